(function () {
  "use strict";
  // All text from runs, files and models goes through textContent or setAttribute: never
  // parsed as HTML.
  var D = JSON.parse(document.getElementById("kg-data").textContent);
  var app = document.getElementById("app");

  var el = kgDom.el, add = kgDom.add;
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function pct(v) { return v === null || v === undefined ? "–" : (100 * v).toFixed(1); }
  function num(v, d) { return v === null || v === undefined ? "–" : Number(v).toFixed(d); }
  function outcomeClass(o) { return "badge o-" + (o === "|A|=0" ? "A0" : o); }
  function uniq(xs) { return Array.from(new Set(xs)); }
  function byId(list) { var m = {}; list.forEach(function (r) { m[r.uid] = r; }); return m; }

  // ------------------------------------------------------------------ shared parts
  function meta() {
    var m = document.getElementById("meta");
    add(m, "generated " + D.meta.generated + " · PerspectiveKG " + D.meta.version +
      " · self-contained file (no network)");
  }

  function tableView(t) {
    var head = el("tr", null, t.columns.map(function (c) { return el("th", { text: c }); }));
    var body = t.rows.map(function (r, i) {
      return el("tr", { "data-row": i }, r.map(function (cell, j) {
        var raw = t.values[i][j];
        return el("td", { text: cell, "class": typeof raw === "number" ? "num" : null,
          "data-col": t.columns[j] });
      }));
    });
    return el("div", { "class": "card table-card", "data-table": t.name },
      el("h3", { text: t.title }),
      el("table", { "class": "report-table" }, el("thead", null, head), el("tbody", null, body)),
      t.notes.length ? el("ul", { "class": "notes" },
        t.notes.map(function (n) { return el("li", { text: n }); })) : null);
  }

  function plotsView() {
    if (!D.plots.length) return null;
    return el("div", { "class": "card plots" }, el("h3", { text: "Plots" }),
      D.plots.map(function (p) {
        return el("img", { src: p.src, alt: p.title, title: p.title, "data-plot": p.title });
      }));
  }

  function tabs(defs) {
    var nav = document.getElementById("tabs");
    var views = {};
    function show(name) {
      Object.keys(views).forEach(function (k) {
        views[k].button.classList.toggle("active", k === name);
        views[k].pane.hidden = k !== name;
      });
    }
    defs.forEach(function (d) {
      var pane = el("section", { id: "pane-" + d.id });
      var button = el("button", { id: "tab-" + d.id, text: d.title, type: "button",
        onclick: function () { show(d.id); } });
      nav.appendChild(button);
      app.appendChild(pane);
      views[d.id] = { button: button, pane: pane };
      d.render(pane);
    });
    show(defs[0].id);
  }

  function select(id, label, options, value, onchange) {
    var s = el("select", { id: id, onchange: onchange });
    options.forEach(function (o) {
      var opt = el("option", { value: o[0], text: o[1] });
      if (o[0] === value) opt.selected = true;
      s.appendChild(opt);
    });
    return el("label", null, label, s);
  }

  // ------------------------------------------------------------------ evaluation runs
  function evalApp() {
    var runs = byId(D.runs);
    var state = { a: D.runs[0].uid, b: D.runs.length > 1 ? D.runs[1].uid : "", domain: "",
      hop: "", theme: "", outcome: "", sort: "pas-asc", selected: null };

    function summary(pane) {
      add(pane, el("div", { "class": "card" }, el("h2", { text: "Runs and judges" }),
        el("ul", { "class": "runs" }, D.runs.map(function (r) {
          var v = r.validity;
          // green only for a kappa >= 0.6 on natural answers; the words say how far to trust
          var validity = el("span", { "class": "badge " + v.badge, "data-kappa": v.kappa,
            "data-level": v.level, text: "judge " + v.summary });
          var figures = el("ul", { "class": "notes validity" },
            v.figures.map(function (f) { return el("li", { "data-kind": f.kind, text: f.text }); }),
            v.warnings.map(function (w) { return el("li", { "class": "warning", text: w }); }));
          return el("li", { "data-run": r.uid }, el("b", { text: r.uid }), " — " + r.label + " ",
            el("span", { "class": "badge", text: "judge " + (v.judge || "?") }), validity,
            el("span", { "class": "badge", text: r.n + " judged" }),
            r.failed ? el("span", { "class": "badge bad", text: r.failed + " failed" }) : null,
            el("span", { "class": "badge", text: "status " + r.status }), figures);
        })),
        el("p", { "class": "notes", text: "A score is only as good as its judge: κ is the " +
          "judge's agreement with gold labels, first on natural answers (written as models " +
          "write), then on constructed ones (written to state chosen paths); below 0.6 it is " +
          "weak." })));
      var groups = [["overall", "Overall"], ["compare", "Paired comparisons"]];
      D.runs.forEach(function (r) { groups.push([r.uid, "Run " + r.uid]); });
      groups.forEach(function (g) {
        var ts = D.tables.filter(function (t) { return t.group === g[0]; });
        if (!ts.length) return;
        add(pane, el("h2", { text: g[1] }), ts.map(tableView));
      });
      add(pane, plotsView());
    }

    function rowsFor() {
      var ra = D.results[state.a] || {}, rb = state.b ? (D.results[state.b] || {}) : {};
      var out = [];
      Object.keys(ra).forEach(function (quid) {
        var q = D.questions[quid];
        if (!q) return;
        var a = ra[quid], b = rb[quid];
        if (state.domain && q.domain !== state.domain) return;
        if (state.hop && String(q.hop) !== state.hop) return;
        if (state.theme && String(q.theme) !== state.theme) return;
        if (state.outcome && a.outcome !== state.outcome) return;
        var d = (b && a.pas !== undefined && b.pas !== undefined) ? b.pas - a.pas : null;
        out.push({ q: q, a: a, b: b, d: d });
      });
      var key = state.sort;
      function val(r) {
        if (key.indexOf("delta") === 0) return r.d;
        return r.a.pas === undefined ? null : r.a.pas;
      }
      out.sort(function (x, y) {
        if (key === "id") return x.q.domain < y.q.domain ? -1 : x.q.domain > y.q.domain ? 1 :
          x.q.id - y.q.id;
        var vx = val(x), vy = val(y);
        if (vx === null && vy === null) return x.q.id - y.q.id;
        if (vx === null) return 1;
        if (vy === null) return -1;
        return (key.slice(-3) === "asc" ? vx - vy : vy - vx) || (x.q.id - y.q.id);
      });
      return out;
    }

    function explorer(pane) {
      var qs = Object.keys(D.questions).map(function (k) { return D.questions[k]; });
      var runOpts = D.runs.map(function (r) { return [r.uid, r.uid]; });
      var manyDomains = uniq(qs.map(function (q) { return q.domain; })).length > 1;
      var controls = el("div", { "class": "controls" },
        select("f-run-a", "run A", runOpts, state.a, function (e) { state.a = e.target.value; list(); }),
        select("f-run-b", "run B (side by side)", [["", "—"]].concat(runOpts), state.b,
          function (e) { state.b = e.target.value; list(); }),
        select("f-domain", "domain", [["", "all"]].concat(uniq(qs.map(function (q) {
          return q.domain; })).sort().map(function (d) { return [d, d]; })), "",
          function (e) { state.domain = e.target.value; list(); }),
        select("f-hop", "hop", [["", "all"]].concat(uniq(qs.map(function (q) {
          return String(q.hop); })).sort().map(function (h) { return [h, h + "-hop"]; })), "",
          function (e) { state.hop = e.target.value; list(); }),
        select("f-theme", "theme", [["", "all"]].concat(uniq(qs.map(function (q) {
          return String(q.theme); })).sort().map(function (t) {
            return [t, t === "null" ? "(no theme)" : t]; })), "",
          function (e) { state.theme = e.target.value; list(); }),
        select("f-outcome", "outcome (run A)", [["", "all"]].concat(D.meta.outcomes.map(
          function (o) { return [o, o]; })), "", function (e) { state.outcome = e.target.value; list(); }),
        select("f-sort", "sort", [["pas-asc", "PAS (A) ascending"], ["pas-desc", "PAS (A) descending"],
          ["delta-asc", "PAS B−A ascending"], ["delta-desc", "PAS B−A descending"],
          ["id", "domain, id"]], state.sort, function (e) { state.sort = e.target.value; list(); }));
      var count = el("div", { "class": "count", id: "q-count" });
      var tbody = el("tbody", { id: "q-rows" });
      var headRow = el("tr", { id: "q-head" });
      var detail = el("div", { id: "q-detail", "class": "card" },
        el("p", { "class": "empty", text: "Click a question to see its paths, answer, verdicts " +
          "and claims." }));
      add(pane, controls, el("div", { "class": "explorer" },
        el("div", null, count, el("div", { "class": "qlist-wrap" },
          el("table", { "class": "qlist", id: "q-list" }, el("thead", null, headRow), tbody))),
        detail));

      function list() {
        var rows = rowsFor();
        var total = Object.keys(D.results[state.a] || {}).length;
        count.textContent = rows.length + " of " + total + " questions of run " + state.a;
        clear(headRow);
        add(headRow, (manyDomains ? ["domain"] : []).concat(["#", "hop", "theme", "question",
          "outcome A", "PAS A"]).map(
          function (h) { return el("th", { text: h }); }));
        if (state.b) add(headRow, ["outcome B", "PAS B", "Δ PAS"].map(
          function (h) { return el("th", { text: h }); }));
        var frag = document.createDocumentFragment();
        rows.forEach(function (r) {
          var tr = el("tr", { "data-q": r.q.uid, "data-outcome": r.a.outcome,
              "data-pas": r.a.pas === undefined ? "" : r.a.pas,
              "class": r.q.uid === state.selected ? "selected" : null,
              onclick: function () { state.selected = r.q.uid; mark(); show(r.q.uid); } },
            manyDomains ? el("td", { text: r.q.domain }) : null,
            el("td", { "class": "num", text: r.q.id }),
            el("td", { "class": "num", text: r.q.hop }), el("td", { text: r.q.theme }),
            el("td", { "class": "qtext", text: r.q.text, title: r.q.text }),
            el("td", null, el("span", { "class": outcomeClass(r.a.outcome), text: r.a.outcome })),
            el("td", { "class": "num", text: pct(r.a.pas) }));
          if (state.b) {
            add(tr, el("td", null, r.b ? el("span", { "class": outcomeClass(r.b.outcome),
              text: r.b.outcome }) : el("span", { "class": "empty", text: "not in run" })),
              el("td", { "class": "num", text: r.b ? pct(r.b.pas) : "–" }),
              el("td", { "class": "num delta " + (r.d > 0 ? "pos" : r.d < 0 ? "neg" : ""),
                text: r.d === null ? "–" : (r.d > 0 ? "+" : "") + pct(r.d) }));
          }
          frag.appendChild(tr);
        });
        clear(tbody).appendChild(frag);
        if (state.selected) show(state.selected);
      }
      function mark() {
        Array.prototype.forEach.call(tbody.children, function (tr) {
          tr.classList.toggle("selected", tr.getAttribute("data-q") === state.selected);
        });
      }
      function show(quid) {
        clear(detail);
        add(detail, questionView(D.questions[quid], [state.a, state.b].filter(Boolean)));
      }
      list();
    }

    function conceptTitle(domain, key) {
      var s = (D.concepts[domain] || {})[key];
      return key + (s ? " — " + s : " (no summary)");
    }

    // a concept's name (or the start of its summary) where a person reads, its key on hover
    function conceptName(domain, key) {
      return ((D.concept_names || {})[domain] || {})[key] || key;
    }

    function chain(q, p, verdict) {
      var c = el("div", { "class": "chain", "data-path": p.uid });
      p.keys.forEach(function (k, i) {
        add(c, el("span", { "class": "concept", text: conceptName(q.domain, k),
          title: conceptTitle(q.domain, k),
          "data-concept": k }));
        if (i < p.labels.length) {
          var ok = verdict && verdict.edges[i];
          add(c, el("span", { "class": "arrow" }, "—",
            el("span", { "class": "lab " + (verdict ? (ok ? "e-ok" : "e-no") : ""),
              text: p.labels[i], title: "edge " + (i + 1) + ": " + (p.reasons[i] || ""),
              "data-edge": i }),
            el("span", { "class": "head", text: "→" })));
        }
      });
      return c;
    }

    function verdictsOf(res) {
      var m = {};
      (res && res.verdicts || []).forEach(function (v) { m[v.path] = v; });
      return m;
    }

    // T1.. for targets and D1.. for distractors, in the question's path order
    function pathName(q, i) {
      var p = q.paths[i], k = 0;
      for (var j = 0; j <= i; j++) if (q.paths[j].target === p.target) k++;
      return (p.target ? "T" : "D") + k + (p.name ? " " + p.name : "");
    }

    function words(text) {
      var m = {};
      (text.toLowerCase().match(/[a-z0-9\u00c0-\uffff]{3,}/g) || []).forEach(function (w) { m[w] = 1; });
      return m;
    }

    // sentence index -> edges the judge matched to it (stored spans), or a lexical fallback
    function highlights(q, res, useSpans) {
      var marks = {}, vs = verdictsOf(res);
      function put(i, m) { (marks[i] = marks[i] || []).push(m); }
      q.paths.forEach(function (p, pi) {
        var v = vs[p.uid];
        if (!v) return;
        p.labels.forEach(function (lab, ei) {
          var m = { path: pathName(q, pi), target: p.target, present: !!v.edges[ei],
            edge: p.keys[ei] + " —" + lab + "→ " + p.keys[ei + 1] };
          if (useSpans) {
            if (v.spans.length > ei) put(v.spans[ei], m);
          } else if (m.present) {
            // no stored span: the sentence sharing most words with the edge's evidence
            var ev = words(p.reasons[ei] || ""), best = -1, bestScore = 0.3;
            res.sentences.forEach(function (s, si) {
              var sw = words(s), hit = 0;
              Object.keys(ev).forEach(function (w) { if (sw[w]) hit++; });
              var score = hit / Math.max(1, Object.keys(ev).length);
              if (score >= bestScore) { best = si; bestScore = score; }
            });
            if (best >= 0) put(best, m);
          }
        });
      });
      return marks;
    }

    function answerView(q, rid) {
      var res = D.results[rid] && D.results[rid][q.uid];
      var run = runs[rid];
      var box = el("div", { "class": "card run-col", "data-run": rid },
        el("h3", { text: "Run " + rid }), el("div", { "class": "notes", text: run.label }));
      if (!res) return add(box, el("p", { "class": "empty", text: "This run has no result for the question." })), box;
      add(box, el("div", null, el("span", { "class": outcomeClass(res.outcome), text: res.outcome,
        "data-outcome": res.outcome })));
      if (res.outcome === "failed") {
        add(box, el("pre", { "class": "text error", text: res.error }));
        return box;
      }
      add(box, el("div", { "class": "scores" }, "PAS " + pct(res.pas) + " · PPrec " +
        pct(res.precision) + " · PRec " + pct(res.recall) + " · PAS~ " + pct(res.partial_pas) +
        " · faithfulness " + pct(res.faithfulness) + " (" + res.n_claims + " claims) · tokens " +
        (res.tokens === null ? "–" : res.tokens)));
      var spans = run.spans;
      var marks = highlights(q, res, spans);
      add(box, el("h3", { text: "Answer" }),
        el("div", { "class": "legend" },
          el("span", { "class": "sent hl-t", text: "target edge" }),
          el("span", { "class": "sent hl-d", text: "distractor edge" }),
          spans ? el("span", { "class": "sent hl-w", text: "closest sentence, edge not reproduced" })
            : null),
        spans || !res.sentences.length ? null : el("p", { "class": "notes warn no-spans", text: "The judge of this run (" +
          (run.validity.judge || "?") + ") stores no matched sentences; highlighted is, per edge it judged present, the " +
          "sentence sharing most words with the edge's evidence (the report's lexical match, not " +
          "the judge's). The embedding judge (baseline:embedding) stores the sentence it matched " +
          "to every edge." }));
      var ans = el("div", { "class": "answer", "data-answer": rid });
      if (!res.sentences.length) add(ans, el("span", { "class": "empty", text: "(empty answer)" }));
      res.sentences.forEach(function (s, i) {
        var ms = marks[i] || [];
        var cls = "sent";
        if (ms.some(function (m) { return m.present && m.target; })) cls += " hl-t";
        else if (ms.some(function (m) { return m.present; })) cls += " hl-d";
        else if (ms.length) cls += " hl-w";
        var sp = el("span", { "class": cls, "data-sentence": i, title: ms.map(function (m) {
          return m.path + ": " + m.edge + (m.present ? "" : " (not reproduced)"); }).join("\n") || null },
          s);
        if (ms.length) add(sp, el("sup", { text: uniq(ms.map(function (m) { return m.path.split(" ")[0]; })).join(",") }));
        add(ans, sp, " ");
      });
      add(box, ans);
      add(box, el("h3", { text: "Claims (" + res.claims.length + ")" }));
      if (!res.claims.length) add(box, el("p", { "class": "empty", text: "no claims" }));
      else add(box, el("table", { "class": "claims" },
        el("thead", null, el("tr", null, el("th", { text: "claim" }), el("th", { text: "supported" }),
          el("th", { text: "support" }))),
        el("tbody", null, res.claims.map(function (c) {
          return el("tr", null, el("td", { text: c.text }),
            el("td", null, el("span", { "class": "badge " + (c.supported ? "ok" : "bad"),
              text: c.supported ? "yes" : "no" })),
            el("td", { text: c.supporting || "–" }));
        }))));
      return box;
    }

    function questionView(q, rids) {
      var out = [el("h2", { text: q.domain + " #" + q.id + " · " + q.hop + "-hop · theme " + q.theme }),
        el("p", { "class": "question-text", text: q.text })];
      if (rids.length === 2) {
        var a = D.results[rids[0]][q.uid], b = D.results[rids[1]] && D.results[rids[1]][q.uid];
        if (a && b && a.pas !== undefined && b.pas !== undefined) {
          var d = b.pas - a.pas;
          out.push(el("p", { "class": "paired", "data-delta": d }, "Paired difference PAS (" +
            rids[1] + " − " + rids[0] + "): ", el("b", { "class": "delta " + (d > 0 ? "pos" : d < 0 ? "neg" : ""),
              text: (d > 0 ? "+" : "") + pct(d) + " points" })));
        }
      }
      out.push(el("h3", { text: "Paths (targets, then distractors)" }));
      var ordered = q.paths.map(function (p, i) { return [p, i]; }).sort(function (x, y) {
        return (y[0].target - x[0].target) || (x[1] - y[1]); });
      ordered.forEach(function (pi) {
        var p = pi[0];
        var first = D.results[rids[0]] && D.results[rids[0]][q.uid];
        var box = el("div", { "class": "path " + (p.target ? "target" : "distractor"), "data-path": p.uid },
          el("span", { "class": "badge " + (p.target ? "target" : "distractor"),
            text: p.target ? "target" : "distractor" }),
          el("b", { text: pathName(q, pi[1]) }), chain(q, p, verdictsOf(first)[p.uid]));
        rids.forEach(function (rid) {
          var v = verdictsOf(D.results[rid] && D.results[rid][q.uid])[p.uid];
          add(box, el("div", { "class": "verdict", "data-run": rid }, el("b", { text: rid + ": " }),
            v ? [el("span", { "class": "badge " + (v.present ? "ok" : "bad"),
              text: v.present ? "present" : "absent" }),
            "edges " + v.edges.map(function (e) { return e ? "✓" : "✗"; }).join(" ") +
              " · partial " + num(v.partial, 2) + " · ",
            el("span", { "class": "reason", text: v.reason || "(no reason given)" })]
              : el("span", { "class": "empty", text: "no verdict" })));
        });
        out.push(box);
      });
      out.push(el("div", { "class": "side" }, rids.map(function (rid) { return answerView(q, rid); })));
      return out;
    }

    tabs([{ id: "summary", title: "Summary", render: summary },
      { id: "questions", title: "Questions", render: explorer }]);
  }

  // ------------------------------------------------------------------ PERSPECTRA runs
  function perspectraApp() {
    var runs = byId(D.runs);
    var state = { a: D.runs.length ? D.runs[0].uid : "", b: "", outcome: "", selected: null };

    function summary(pane) {
      add(pane, el("div", { "class": "card" }, el("h2", { text: "Runs" }),
        el("ul", { "class": "runs" }, D.runs.map(function (r) {
          return el("li", { "data-run": r.uid }, el("b", { text: r.label }), " — " + r.task_title +
            ", build " + r.build + " ", el("span", { "class": "badge", text: r.n + "/" + r.items + " answered" }),
            el("span", { "class": "badge", text: "run " + r.uid }));
        }))));
      add(pane, D.tables.map(tableView), plotsView());
    }

    function itemOutcome(r) { return !r.answered ? "unanswered" : !r.valid ? "invalid" : r.correct ? "correct" : "wrong"; }

    function explorer(pane) {
      var runOpts = D.runs.map(function (r) { return [r.uid, r.label + " (" + r.task + ")"]; });
      var count = el("div", { "class": "count", id: "i-count" });
      var tbody = el("tbody", { id: "i-rows" });
      var detail = el("div", { id: "i-detail", "class": "card" },
        el("p", { "class": "empty", text: "Click an item to see its input, gold, reply and parse." }));
      add(pane, el("div", { "class": "controls" },
        select("f-run-a", "run", runOpts, state.a, function (e) { state.a = e.target.value; list(); }),
        select("f-run-b", "second run (same items)", [["", "—"]].concat(runOpts), "",
          function (e) { state.b = e.target.value; list(); }),
        select("f-outcome", "outcome", [["", "all"], ["correct", "correct"], ["wrong", "wrong"],
          ["invalid", "invalid"], ["unanswered", "unanswered"]], "",
          function (e) { state.outcome = e.target.value; list(); })),
        el("div", { "class": "explorer" }, el("div", null, count, el("div", { "class": "qlist-wrap" },
          el("table", { "class": "qlist", id: "i-list" }, el("thead", null, el("tr", null,
            ["#", "topic", "gold", "parsed", "outcome"].map(function (h) { return el("th", { text: h }); }))),
          tbody))), detail));
      function list() {
        var rep = D.replies[state.a] || {};
        var keys = Object.keys(rep).filter(function (u) { return D.items[u]; })
          .sort(function (x, y) { return D.items[x].index - D.items[y].index; });
        var shown = keys.filter(function (u) { return !state.outcome || itemOutcome(rep[u]) === state.outcome; });
        count.textContent = shown.length + " of " + keys.length + " items";
        var frag = document.createDocumentFragment();
        shown.forEach(function (u) {
          var it = D.items[u], r = rep[u], o = itemOutcome(r);
          frag.appendChild(el("tr", { "data-item": u, "data-outcome": o,
              onclick: function () { state.selected = u; show(u); } },
            el("td", { "class": "num", text: it.index }), el("td", { "class": "qtext", text: it.topic }),
            el("td", { text: it.gold }), el("td", { text: r.parsed === null ? "–" : r.parsed }),
            el("td", null, el("span", { "class": "badge " + (o === "correct" ? "ok" : "bad"), text: o }))));
        });
        clear(tbody).appendChild(frag);
      }
      function replyView(rid, it) {
        var r = D.replies[rid] && D.replies[rid][it.uid];
        var box = el("div", { "class": "card run-col", "data-run": rid }, el("h3", { text: runs[rid].label }));
        if (!r) return add(box, el("p", { "class": "empty", text: "not an item of this run" })), box;
        var o = itemOutcome(r);
        add(box, el("span", { "class": "badge " + (o === "correct" ? "ok" : "bad"), text: o, "data-outcome": o }),
          el("h3", { text: "Model reply" }),
          r.reply === null ? el("p", { "class": "empty", text: "no reply" }) : el("pre", { "class": "text reply", text: r.reply }),
          el("h3", { text: "Parse" }),
          el("p", { "class": "parse" }, r.valid ? ["parsed as ", el("b", { text: r.parsed })]
            : ["invalid: ", el("span", { "class": "warn", text: r.error || "?" })]));
        return box;
      }
      function show(u) {
        var it = D.items[u];
        clear(detail);
        add(detail, el("h2", { text: it.task.toUpperCase() + " item " + it.index + " · " + it.topic }),
          el("h3", { text: "Task input" }), el("pre", { "class": "text task-input", text: it.text }),
          it.options.length ? el("ol", { "class": "options", type: "A" }, it.options.map(function (o) {
            return el("li", { "class": o.letter === it.gold ? "gold" : null, "data-letter": o.letter },
              o.text, o.stance ? el("span", { "class": "badge", text: o.stance }) : null,
              o.letter === it.gold ? el("span", { "class": "badge ok", text: "gold" }) : null);
          })) : null,
          el("p", { "class": "gold" }, "Gold: ", el("b", { text: it.gold }),
            it.gold_stance ? " (stance " + it.gold_stance + ")" : ""),
          el("div", { "class": "side" }, [state.a, state.b].filter(Boolean).map(function (rid) {
            return replyView(rid, it); })));
      }
      list();
    }
    tabs([{ id: "summary", title: "Summary", render: summary },
      { id: "items", title: "Items", render: explorer }]);
  }

  meta();
  if (D.meta.kind === "perspectra") perspectraApp(); else evalApp();
  document.body.setAttribute("data-ready", "1");
})();
