(function () {
  "use strict";
  // Text from task files goes through textContent only: never parsed as HTML.
  var D = JSON.parse(document.getElementById("kg-data").textContent);
  var items = D.items;
  var app = document.getElementById("app");
  var state = { i: 0, sel: 0, labels: {} };
  try { state.labels = JSON.parse(localStorage.getItem(D.key) || "{}") || {}; } catch (e) { }

  var el = kgDom.el;
  function lab(item) {
    var l = state.labels[item.answer_id];
    if (!l) l = state.labels[item.answer_id] = { paths: {}, edges: {} };
    return l;
  }
  function complete(item) {
    var l = state.labels[item.answer_id];
    return !!l && item.paths.every(function (p) { return typeof l.paths[p.name] === "boolean"; });
  }
  function keep() {
    try { localStorage.setItem(D.key, JSON.stringify(state.labels)); } catch (e) { }
  }
  function setPath(name, value) {
    lab(items[state.i]).paths[name] = value;
    keep();
    render();
  }
  function setEdge(name, k, value) {
    var l = lab(items[state.i]);
    var p = items[state.i].paths.filter(function (x) { return x.name === name; })[0];
    var marks = l.edges[name] || p.edges.map(function () { return null; });
    marks[k] = marks[k] === value ? null : value;
    l.edges[name] = marks;
    keep();
    render();
  }
  function go(i) {
    state.i = Math.max(0, Math.min(items.length - 1, i));
    state.sel = 0;
    render();
  }

  function progress() {
    var done = items.filter(complete).length;
    var paths = 0, labeled = 0;
    items.forEach(function (it) {
      var l = state.labels[it.answer_id] || { paths: {} };
      it.paths.forEach(function (p) { paths++; if (typeof l.paths[p.name] === "boolean") labeled++; });
    });
    var e = document.getElementById("progress");
    e.textContent = "answer " + (state.i + 1) + " of " + items.length + " · " + done + " of " +
      items.length + " answers labeled · " + labeled + " of " + paths + " paths";
    e.className = done === items.length ? "done" : "todo";
    e.setAttribute("data-done", done);
    e.setAttribute("data-paths", labeled);
  }

  function render() {
    var item = items[state.i], l = lab(item);
    while (app.firstChild) app.removeChild(app.firstChild);
    var concepts = el("dl", { "class": "concepts" }, Object.keys(item.concepts).map(function (k) {
      return [el("dt", { text: k }), el("dd", { text: item.concepts[k] || "(no summary)" })];
    }));
    var left = el("div", { "class": "card", id: "answer-card", "data-answer": item.answer_id },
      el("h2", { text: "Question" }), el("p", { id: "question", text: item.question }),
      el("h2", { text: "Answer" }), el("div", { "class": "answer", id: "answer", text: item.answer }),
      el("h2", { text: "Concepts" }), concepts);
    var paths = item.paths.map(function (p, n) {
      var v = l.paths[p.name];
      var marks = l.edges[p.name] || [];
      var cls = "path" + (n === state.sel ? " selected" : "") +
        (v === true ? " present" : v === false ? " absent" : "");
      return el("div", { "class": cls, "data-path": p.name, "data-label": v === undefined ? "" : String(v),
        onclick: function () { state.sel = n; render(); } },
        el("b", { text: p.name }),
        el("span", { "class": "choice" }, " ",
          el("button", { type: "button", "class": v === true ? "on" : null, "data-choice": "present",
            text: "present (y)", onclick: function (e) { e.stopPropagation(); setPath(p.name, true); } }),
          el("button", { type: "button", "class": v === false ? "on" : null, "data-choice": "absent",
            text: "absent (n)", onclick: function (e) { e.stopPropagation(); setPath(p.name, false); } })),
        p.edges.map(function (ed, k) {
          return el("div", { "class": "edge", "data-edge": k },
            el("span", { text: ed.source + " —" + ed.label + "→ " + ed.target + " " }),
            el("button", { type: "button", "class": marks[k] === true ? "on" : null, "data-edge-choice": "stated",
              text: "stated", onclick: function (e) { e.stopPropagation(); setEdge(p.name, k, true); } }),
            el("button", { type: "button", "class": marks[k] === false ? "on" : null, "data-edge-choice": "missing",
              text: "missing", onclick: function (e) { e.stopPropagation(); setEdge(p.name, k, false); } }),
            el("div", { "class": "reason", text: ed.reason }));
        }));
    });
    var right = el("div", { "class": "card", id: "paths" },
      el("h2", { text: "Paths (" + item.paths.length + ")" }), paths);
    app.appendChild(left);
    app.appendChild(right);
    progress();
  }

  function goldLines() {
    var who = document.getElementById("annotator").value.trim();
    return items.filter(complete).map(function (it) {
      var l = state.labels[it.answer_id], present = {}, edges = {};
      it.paths.forEach(function (p) {
        present[p.name] = l.paths[p.name];
        if (l.edges[p.name]) edges[p.name] = l.edges[p.name];
      });
      var row = { answer_id: it.answer_id, question_id: it.question_id, domain: it.domain,
        style: it.style, kind: it.kind };
      if (it.setting) row.setting = it.setting;
      row.answer = it.answer;
      row.present = present;
      if (Object.keys(edges).length) row.edges = edges;
      if (who) row.annotator = who;
      return JSON.stringify(row);
    });
  }

  function save() {
    var lines = goldLines();
    if (!lines.length) { alert("No answer has all its paths labeled yet."); return; }
    var open = items.length - lines.length;
    if (open && !confirm(open + " answer(s) are not fully labeled and are left out. Save the " +
      lines.length + " labeled ones?")) return;
    var who = document.getElementById("annotator").value.trim().replace(/[^A-Za-z0-9_-]+/g, "_");
    var blob = new Blob([lines.join("\n") + "\n"], { type: "application/x-ndjson" });
    var a = el("a", { href: URL.createObjectURL(blob), download: "labels" + (who ? "-" + who : "") + ".jsonl" });
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
  }

  document.getElementById("prev").addEventListener("click", function () { go(state.i - 1); });
  document.getElementById("next").addEventListener("click", function () { go(state.i + 1); });
  document.getElementById("save").addEventListener("click", save);
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "INPUT") return;
    var item = items[state.i], n = item.paths.length;
    if (e.key === "y" || e.key === "n") {
      setPath(item.paths[state.sel].name, e.key === "y");
      if (state.sel < n - 1) { state.sel++; render(); }
    } else if (e.key === "ArrowDown" || e.key === "j") { state.sel = Math.min(n - 1, state.sel + 1); render(); }
    else if (e.key === "ArrowUp" || e.key === "k") { state.sel = Math.max(0, state.sel - 1); render(); }
    else if (e.key === "ArrowRight") go(state.i + 1);
    else if (e.key === "ArrowLeft") go(state.i - 1);
    else if (e.key === "s") save();
    else return;
    e.preventDefault();
  });
  render();
  document.body.setAttribute("data-ready", "1");
})();
