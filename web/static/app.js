// staffwork web table: live updates, map zoom and pan, click-a-hex for the move form.
// No inline scripts anywhere (the Content-Security-Policy forbids them); htmx does the rest.
(function () {
  "use strict";

  // Live updates: the server sends only "changed, sequence N"; the page re-fetches its panels.
  function live() {
    var el = document.getElementById("live");
    if (!el || !window.EventSource) return;
    var last = null;
    var es = new EventSource(el.getAttribute("data-stream"));
    es.addEventListener("changed", function (ev) {
      var seq = ev.data;
      if (last !== null && seq !== last) {
        document.body.dispatchEvent(new CustomEvent("sw-changed"));
      }
      last = seq;
      el.setAttribute("data-sequence", seq);
    });
  }

  // Zoom and pan by the SVG viewBox.
  var view = null;
  function svg() { return document.getElementById("map"); }
  function full() {
    var s = svg();
    return s ? s.getAttribute("data-full").split(" ").map(Number) : null;
  }
  function apply() {
    var s = svg();
    if (s && view) s.setAttribute("viewBox", view.join(" "));
  }
  function zoom(f, cx, cy) {
    var s = svg();
    if (!s) return;
    if (!view) view = full();
    var nw = view[2] * f, nh = view[3] * f;
    if (cx === undefined) { cx = view[0] + view[2] / 2; cy = view[1] + view[3] / 2; }
    view = [cx - (cx - view[0]) * f, cy - (cy - view[1]) * f, nw, nh];
    apply();
  }
  function point(s, e) {
    var r = s.getBoundingClientRect();
    var v = view || full();
    return [v[0] + (e.clientX - r.left) / r.width * v[2], v[1] + (e.clientY - r.top) / r.height * v[3]];
  }
  function mapEvents() {
    var wrap = document.getElementById("mapwrap");
    if (!wrap) return;
    var drag = null, moved = false;
    wrap.addEventListener("wheel", function (e) {
      var s = svg(); if (!s) return;
      e.preventDefault();
      var p = point(s, e);
      zoom(e.deltaY < 0 ? 0.8 : 1.25, p[0], p[1]);
    }, { passive: false });
    wrap.addEventListener("mousedown", function (e) {
      var s = svg(); if (!s) return;
      if (!view) view = full();
      drag = { x: e.clientX, y: e.clientY, v: view.slice() }; moved = false;
    });
    window.addEventListener("mousemove", function (e) {
      var s = svg(); if (!drag || !s) return;
      var r = s.getBoundingClientRect();
      var dx = (e.clientX - drag.x) / r.width * drag.v[2];
      var dy = (e.clientY - drag.y) / r.height * drag.v[3];
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3) moved = true;
      view = [drag.v[0] - dx, drag.v[1] - dy, drag.v[2], drag.v[3]];
      apply();
    });
    window.addEventListener("mouseup", function () { drag = null; });
    wrap.addEventListener("click", function (e) {
      if (moved) return;
      var t = e.target;
      var piece = t && t.closest && t.closest("[data-piece]");
      var sel = document.getElementById("move-piece");
      // Clicking one of your own counters picks it; clicking a hex sets the destination.
      if (piece && sel && sel.querySelector('option[value="' + piece.getAttribute("data-piece") + '"]')) {
        sel.value = piece.getAttribute("data-piece");
        return;
      }
      var hex = t && t.getAttribute && t.getAttribute("data-hex");
      var input = document.getElementById("move-to");
      if (hex && input) {
        input.value = hex;
        // The movement form previews the engine's path and cost on change.
        input.dispatchEvent(new Event("change", { bubbles: true }));
      }
    });
    document.querySelectorAll("[data-zoom]").forEach(function (b) {
      b.addEventListener("click", function () {
        var k = b.getAttribute("data-zoom");
        if (k === "in") zoom(0.7);
        else if (k === "out") zoom(1 / 0.7);
        else { view = null; var s = svg(); if (s) s.setAttribute("viewBox", s.getAttribute("data-full")); }
      });
    });
    // A live update replaces the SVG: keep the reader's zoom.
    document.body.addEventListener("htmx:afterSwap", function (e) {
      if (e.target && e.target.id === "mapwrap") apply();
    });
  }

  document.addEventListener("DOMContentLoaded", function () { live(); mapEvents(); });
})();
