// sgkr export: draws the graph laid out by sgkr (positions come with the data),
// with pan, zoom, search and a side panel. Part of sgkr (MIT licence); no dependencies.
(function () {
  "use strict";
  var started = Date.now();
  var data = JSON.parse(document.getElementById("sgkr-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var H = data.nodeHeight;
  var svg = document.querySelector("#canvas svg");
  var viewport = el("g", { id: "viewport" }, svg);
  var edgeLayer = el("g", { "class": "edges" }, viewport);
  var nodeLayer = el("g", { "class": "nodes" }, viewport);
  var nodes = data.nodes, edges = data.edges;
  var incident = nodes.map(function () { return []; });
  var view = { x: 0, y: 0, k: 1 };

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (parent) parent.appendChild(e);
    return e;
  }

  var defs = el("defs", {}, svg);
  [["arrow", "#8792a6"], ["arrow-path", "#1f4fa0"], ["arrow-near", "#e0362c"]].forEach(function (m) {
    var mk = el("marker", { id: m[0], viewBox: "0 0 10 10", refX: "9", refY: "5",
      markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse", markerUnits: "userSpaceOnUse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: m[1] }, mk);
  });

  edges.forEach(function (e, i) {
    var s = nodes[e[0]], t = nodes[e[1]];
    // Down: bottom of s to top of t; up: top to bottom; same layer: a loop below both.
    var dir = t.y > s.y ? 1 : (t.y < s.y ? -1 : 0);
    var x1 = s.x, x2 = t.x;
    var y1 = s.y + (dir >= 0 ? H / 2 : -H / 2), y2 = t.y + (dir > 0 ? -H / 2 : H / 2);
    var dy = Math.max(28, Math.abs(y2 - y1) / 2);
    var c1 = y1 + (dir >= 0 ? dy : -dy), c2 = y2 + (dir > 0 ? -dy : dy);
    var cls = "edge type-" + e[2] + (e[3] ? " role-" + e[3] : (data.highlighted ? " faded" : ""));
    var p = el("path", { "class": cls, d: "M" + x1 + "," + y1 + " C" + x1 + "," + c1 + " " +
      x2 + "," + c2 + " " + x2 + "," + y2, "marker-end": "url(#" + (e[3] === "path" ? "arrow-path" : "arrow") + ")" }, edgeLayer);
    e.el = p;
    incident[e[0]].push(i);
    incident[e[1]].push(i);
  });

  nodes.forEach(function (n, i) {
    var cls = "node kind-" + n.kind + (n.role ? " role-" + n.role : (data.highlighted ? " faded" : ""));
    var g = el("g", { "class": cls, transform: "translate(" + n.x + "," + n.y + ")", "data-id": n.id }, nodeLayer);
    el("rect", { x: -n.w / 2, y: -H / 2, width: n.w, height: H, rx: n.kind === "tag" ? H / 2 : 4 }, g);
    var label = el("text", {}, g);
    label.textContent = n.label;
    var tip = el("title", {}, g);
    tip.textContent = n.id;
    g.addEventListener("click", function (ev) { ev.stopPropagation(); select(i, false); });
    n.el = g;
  });

  function apply() {
    viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")");
    svg.classList.toggle("far", view.k < 0.3);  // unreadable labels cost the most to draw
  }
  function fit() {
    var box = svg.getBoundingClientRect();
    var k = Math.min(box.width / data.width, box.height / data.height, 1.6);
    view.k = k;
    view.x = (box.width - data.width * k) / 2;
    view.y = Math.max(0, (box.height - data.height * k) / 2);
    apply();
  }
  function zoomAt(px, py, factor) {
    var k = Math.max(0.02, Math.min(8, view.k * factor));
    view.x = px - (px - view.x) * (k / view.k);
    view.y = py - (py - view.y) * (k / view.k);
    view.k = k;
    apply();
  }
  function centre(i) {
    var box = svg.getBoundingClientRect();
    view.k = Math.max(view.k, 0.9);
    view.x = box.width / 2 - nodes[i].x * view.k;
    view.y = box.height / 2 - nodes[i].y * view.k;
    apply();
  }

  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var box = svg.getBoundingClientRect();
    zoomAt(ev.clientX - box.left, ev.clientY - box.top, Math.exp(-ev.deltaY * 0.0015));
  }, { passive: false });
  var drag = null;
  svg.addEventListener("pointerdown", function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
    svg.setPointerCapture(ev.pointerId);
    svg.classList.add("dragging");
  });
  svg.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
    view.x = drag.vx + dx; view.y = drag.vy + dy;
    apply();
  });
  svg.addEventListener("pointerup", function (ev) {
    svg.classList.remove("dragging");
    svg.releasePointerCapture(ev.pointerId);
    var target = document.elementFromPoint(ev.clientX, ev.clientY);
    var hit = target && target.closest ? target.closest(".node") : null;
    if (drag && !drag.moved && hit) {
      var id = hit.getAttribute("data-id");
      for (var i = 0; i < nodes.length; i++) if (nodes[i].id === id) { select(i, false); break; }
    }
    drag = null;
  });

  var selected = -1;
  function select(i, move) {
    if (selected >= 0) {
      nodes[selected].el.classList.remove("selected");
      incident[selected].forEach(function (j) { edges[j].el.classList.remove("near"); });
    }
    selected = i;
    nodes[i].el.classList.add("selected");
    incident[i].forEach(function (j) { edges[j].el.classList.add("near"); });
    if (move) centre(i);
    showPanel(i);
  }

  var panel = document.getElementById("panel");
  function add(parent, tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    parent.appendChild(e);
    return e;
  }
  function links(title, list) {
    if (!list.length) return;
    add(panel, "h3", title);
    var div = add(panel, "div");
    list.forEach(function (j) {
      var a = add(div, "a", nodes[j].label);
      a.title = nodes[j].id;
      a.addEventListener("click", function () { select(j, true); });
    });
  }
  function showPanel(i) {
    var n = nodes[i];
    panel.textContent = "";
    add(panel, "h2", n.label);
    var what = n.kind + (n.role ? " \u00b7 " + n.role : "") + (n.score !== null ? " \u00b7 score " + n.score : "");
    add(panel, "div", what + " \u00b7 " + n.id, "muted");
    if (n.aliases.length) { add(panel, "h3", "aliases"); add(panel, "div", n.aliases.join(", ")); }
    if (n.qualnames.length) { add(panel, "h3", "qualnames"); add(panel, "div", n.qualnames.join("\n"), "knowledge muted"); }
    if (n.sources.length) { add(panel, "h3", "sources"); add(panel, "div", n.sources.join("\n"), "knowledge muted"); }
    var into = [], out = [];
    incident[i].forEach(function (j) {
      var e = edges[j];
      if (e[0] === i) out.push(e[1]); else into.push(e[0]);
    });
    links(n.kind === "tag" ? "producers" : "callers and input tags", into);
    links(n.kind === "tag" ? "consumers" : "callees and output tags", out);
    if (n.knowledge) { add(panel, "h3", "knowledge"); add(panel, "div", n.knowledge, "knowledge"); }
    if (n.code) { add(panel, "h3", "code"); add(panel, "pre", n.code); }
  }

  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("zoom-in").addEventListener("click", function () {
    var b = svg.getBoundingClientRect(); zoomAt(b.width / 2, b.height / 2, 1.25);
  });
  document.getElementById("zoom-out").addEventListener("click", function () {
    var b = svg.getBoundingClientRect(); zoomAt(b.width / 2, b.height / 2, 0.8);
  });
  document.getElementById("search").addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    var q = this.value.trim().toLowerCase();
    if (!q) return;
    var start = selected + 1;
    for (var s = 0; s < nodes.length; s++) {
      var i = (start + s) % nodes.length;
      if (nodes[i].label.toLowerCase().indexOf(q) >= 0 || nodes[i].id.toLowerCase().indexOf(q) >= 0) {
        select(i, true); return;
      }
    }
  });
  window.addEventListener("resize", fit);
  fit();
  // page.html#NODE_ID opens with that node selected.
  var wanted = decodeURIComponent(location.hash.slice(1));
  for (var w = 0; wanted && w < nodes.length; w++) if (nodes[w].id === wanted) { select(w, false); break; }
  svg.getBoundingClientRect();  // forces layout, so the time below includes it
  svg.setAttribute("data-drawn-nodes", String(nodes.length));
  svg.setAttribute("data-draw-ms", String(Date.now() - started));
})();
