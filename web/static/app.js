// rmq-inspect web viewer: optional enhancements; every page works without this file.
// Untrusted store text only ever reaches the page through textContent, never innerHTML.
(function () {
  "use strict";

  function readJson(id) {
    var el = document.getElementById(id);
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
  }

  // Arrow keys step the teaching page and the hex page (they follow the prev/next links).
  document.addEventListener("keydown", function (ev) {
    if (ev.target && /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) return;
    var rel = ev.key === "ArrowLeft" ? "prev" : ev.key === "ArrowRight" ? "next" : null;
    if (!rel) return;
    var link = document.querySelector(".stepper a." + rel + ", .hexnav a." + rel);
    if (link) { window.location.href = link.getAttribute("href"); }
  });

  // Hex page: hovering a byte shows its field in a status line and highlights the field's bytes.
  var data = readJson("hex-data");
  var view = document.getElementById("hexview");
  var info = document.getElementById("hexinfo");
  if (data && view && info) {
    var hot = [];
    function clear() { hot.forEach(function (e) { e.classList.remove("hot"); }); hot = []; }
    view.addEventListener("mouseover", function (ev) {
      var span = ev.target.closest("span[data-r]");
      if (!span) return;
      var r = data.regions[Number(span.dataset.r)];
      if (!r) return;
      clear();
      var text = r.kind + " " + r.label + " [" + r.start + ".." + r.end + ")";
      var selector = 'span[data-r="' + span.dataset.r + '"]';
      if (span.dataset.f !== undefined) {
        var f = r.fields[Number(span.dataset.f)];
        if (f) { text = "#" + f.number + " " + f.name + " @ " + f.start + " (" + f.length + " bytes) = " + f.value + "\n" + text; }
        selector += '[data-f="' + span.dataset.f + '"]';
      }
      info.textContent = text;
      hot = Array.prototype.slice.call(view.querySelectorAll(selector));
      hot.forEach(function (e) { e.classList.add("hot"); });
    });
    view.addEventListener("mouseleave", clear);
  }
})();
