// The DOM builder both pages share (inserted before each page's own script by render_page).
// Text goes in through textContent or setAttribute only: never parsed as HTML.
var kgDom = (function () {
  "use strict";
  function el(tag, attrs) {  // el(tag, {class, text, on<event>, attr...}, child...)
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = String(v);
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, String(v));
    });
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function add(parent) {  // add(parent, child...): nodes, text, arrays; null/false skipped
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) { child.forEach(function (c) { add(parent, c); }); continue; }
      parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return parent;
  }
  return { el: el, add: add };
})();
