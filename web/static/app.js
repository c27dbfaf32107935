// rmq-inspect web viewer: optional enhancements; every page works without this file.
// Untrusted store text only ever reaches the page through textContent, never innerHTML.
(function () {
  "use strict";

  function readJson(id) {
    var el = document.getElementById(id);
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
  }

  // A workshop room's participant who goes anywhere by themselves has stepped away from the trainer's tour.
  var ROOM_KEY = "rmq-inspect-room";
  function stepAway() {
    if (document.getElementById("room-bar")) { try { sessionStorage.setItem(ROOM_KEY, "away"); } catch (e) { /* private mode */ } }
  }

  // Arrow keys step the teaching pages and the hex page (they follow the prev/next links); in presentation mode
  // PageUp/PageDown too (a presenter's clicker sends them). A key with Alt, Ctrl or Meta is the browser's (Alt+Left
  // is "back"), and a key a widget already used (the hex cursor) is that widget's.
  var STEP_KEYS = { ArrowLeft: "prev", ArrowRight: "next", PageUp: "prev", PageDown: "next" };
  function presenting() { return document.documentElement.classList.contains("present"); }
  document.addEventListener("keydown", function (ev) {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    if (ev.target && /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(ev.target.tagName)) return;
    if (ev.key === "p") { togglePresent(); ev.preventDefault(); return; }
    var rel = STEP_KEYS[ev.key];
    if (!rel || (/^Page/.test(ev.key) && !presenting())) return;
    var link = document.querySelector(".stepper a." + rel + ", .hexnav a." + rel);
    if (link) { ev.preventDefault(); stepAway(); window.location.href = link.getAttribute("href"); }
  });

  // The header's theme picker and presentation button (static/theme.js applies both before the page paints).
  var controls = document.querySelector(".view-controls");
  var pick = document.getElementById("theme-pick");
  var presentButton = document.getElementById("present-toggle");
  function togglePresent() {
    var on = !presenting();
    document.documentElement.classList.toggle("present", on);
    if (window.rmqTheme) window.rmqTheme.store("rmq-inspect-present", on ? "1" : "0");
    if (presentButton) presentButton.setAttribute("aria-pressed", on ? "true" : "false");
  }
  if (controls && window.rmqTheme) {
    controls.hidden = false;
    pick.value = window.rmqTheme.stored("rmq-inspect-theme") || "auto";
    pick.addEventListener("change", function () {
      window.rmqTheme.store("rmq-inspect-theme", pick.value);
      window.rmqTheme.apply();
    });
    presentButton.setAttribute("aria-pressed", presenting() ? "true" : "false");
    presentButton.addEventListener("click", togglePresent);
  }

  // Exercises: every answer box belongs to one form (checking one keeps the others typed); Enter in a box checks
  // that box's exercise, not the form's first (the browser's default button).
  document.addEventListener("keydown", function (ev) {
    var box = ev.target;
    if (ev.key !== "Enter" || !box || box.tagName !== "INPUT" || box.getAttribute("form") !== "answers") return;
    var button = box.closest(".answer-form") && box.closest(".answer-form").querySelector("button");
    if (button) { ev.preventDefault(); button.click(); }
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

  // Workshop room (--workshop): the trainer's tour step, live, as server-sent events from this viewer (no CDN, no
  // other host: a classroom without internet works). A participant's page follows it until they step away (any
  // link, form or arrow key of their own) and comes back with "back to the trainer"; the trainer's tour pages set
  // it; the trainer's room page shows the tally as it changes.
  var bar = document.getElementById("room-bar");
  if (bar && window.EventSource) {
    var role = bar.dataset.role, tourUrl = bar.dataset.tour;
    var article = document.getElementById("tour-step");
    var here = article ? Number(article.dataset.step) : null;  // the tour step this page shows, if it is one
    var trainerStep = Number(bar.dataset.step), rendered = trainerStep;
    var following = function () {
      try { return sessionStorage.getItem(ROOM_KEY) !== "away"; } catch (e) { return true; }
    };
    var show = function () {
      var status = bar.querySelector(".room-status");
      if (role === "participant") {
        bar.dataset.following = following() ? "yes" : "no";
        status.textContent = following() ? "Workshop room: following the trainer, at tour step "
                                         : "Workshop room: you stepped away; the trainer is at tour step ";
        var b = document.createElement("b");
        b.className = "room-step";
        status.appendChild(b);
        bar.querySelector(".room-back").setAttribute("href", tourUrl + "?step=" + trainerStep);
      }
      Array.prototype.forEach.call(document.querySelectorAll(".room-step"), function (e) { e.textContent = String(trainerStep); });
    };
    if (role === "participant") {
      document.addEventListener("click", function (ev) {
        var a = ev.target.closest ? ev.target.closest("a[href]") : null;
        if (!a) return;
        if (a.classList.contains("room-back")) {
          try { sessionStorage.setItem(ROOM_KEY, "follow"); } catch (e) { /* private mode */ }
        } else { stepAway(); }
      });
      document.addEventListener("submit", stepAway);
    } else if (here !== null && here !== trainerStep) {  // the trainer opened a step: the room goes there
      var body = new URLSearchParams();
      body.set("step", String(here));
      fetch(bar.dataset.drive, { method: "POST", body: body, credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) {
          if (!r.ok) return;
          var form = document.querySelector("form.room-drive");
          if (form) form.remove();
        });
    }
    show();
    var source = new EventSource(bar.dataset.events);
    source.addEventListener("step", function (ev) {
      trainerStep = Number(JSON.parse(ev.data).step);
      show();
      if (role === "participant" && following() && here !== trainerStep) {
        window.location.href = tourUrl + "?step=" + trainerStep;
      } else if (role === "trainer" && document.getElementById("room-tally") && trainerStep !== rendered) {
        window.location.reload();  // the room page's previous / next buttons name the step next to it
      }
    });
    source.addEventListener("tally", function (ev) {
      var table = document.getElementById("room-tally");
      if (!table) return;
      JSON.parse(ev.data).tally.forEach(function (t) {
        var row = Array.prototype.find.call(table.tBodies[0].rows, function (r) { return r.dataset.exercise === t.exercise; });
        if (!row) {
          row = table.tBodies[0].insertRow();
          row.dataset.exercise = t.exercise;
          ["", "question", "num tried", "num solved"].forEach(function (c) { row.insertCell().className = c; });
          row.cells[0].textContent = t.exercise;
        }
        row.querySelector(".tried").textContent = String(t.tried);
        row.querySelector(".solved").textContent = String(t.solved);
      });
    });
  }
})();
