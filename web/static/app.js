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

  // Hex page: hovering a byte shows its field and highlights the field's bytes; the bytes are one grid with a
  // cursor (one tab stop, roving tabindex: arrows, Home/End, PageUp/PageDown) and the inspector beside them shows
  // the field and the value under the cursor (web/hexpage.py computes the same for the page's first cursor).
  var data = readJson("hex-data");
  var view = document.getElementById("hexview");
  var info = document.getElementById("hexinfo");
  if (data && view && info) {
    var hot = [];
    var clear = function () { hot.forEach(function (e) { e.classList.remove("hot"); }); hot = []; };
    var fieldText = function (span) {
      var r = data.regions[Number(span.dataset.r)];
      if (!r) return "outside any known region";
      var text = r.kind + " " + r.label + " [" + r.start + ".." + r.end + ")";
      var f = span.dataset.f !== undefined ? r.fields[Number(span.dataset.f)] : null;
      if (f) text = "#" + f.number + " " + f.name + " @ " + f.start + " (" + f.length + " bytes) = " + f.value + "\n" + text;
      return text;
    };
    view.addEventListener("mouseover", function (ev) {
      var span = ev.target.closest("span[data-r]");
      if (!span) return;
      clear();
      info.textContent = fieldText(span);
      var selector = 'span[data-r="' + span.dataset.r + '"]' + (span.dataset.f !== undefined ? '[data-f="' + span.dataset.f + '"]' : "");
      hot = Array.prototype.slice.call(view.querySelectorAll(selector));
      hot.forEach(function (e) { e.classList.add("hot"); });
    });
    view.addEventListener("mouseleave", clear);
    enhanceHex(view, info, fieldText);
  }

  function enhanceHex(view, info, fieldText) {
    // split each field's run into one element per byte (hex and ASCII), keeping the run as their parent
    var bytes = [], hexCells = [], asciiCells = [];
    var split = function (run, parts, cls, into) {
      run.textContent = "";
      parts.forEach(function (text, k) {
        if (k && cls === "b") run.appendChild(document.createTextNode(" "));
        var e = document.createElement("span");
        e.className = cls;
        e.textContent = text;
        into.push(e);
        run.appendChild(e);
      });
    };
    view.setAttribute("role", "grid");
    view.setAttribute("aria-readonly", "true");
    view.setAttribute("aria-label", "bytes " + view.dataset.windowStart + " to " + view.dataset.windowEnd);
    Array.prototype.forEach.call(view.querySelectorAll(".hexrow"), function (row) {
      row.setAttribute("role", "row");
      row.querySelector(".addr").setAttribute("role", "rowheader");
      row.querySelector(".ascii").setAttribute("aria-hidden", "true");
      Array.prototype.forEach.call(row.querySelectorAll(".hex > span[data-offset]"), function (run) {
        var pairs = run.textContent.split(" ");
        pairs.forEach(function (h) { bytes.push(parseInt(h, 16)); });
        split(run, pairs, "b", hexCells);
      });
      Array.prototype.forEach.call(row.querySelectorAll(".ascii > span"), function (run) {
        split(run, Array.from(run.textContent), "c", asciiCells);
      });
    });
    if (!hexCells.length || hexCells.length !== asciiCells.length) return;
    var start = BigInt(view.dataset.windowStart);
    hexCells.forEach(function (e, i) {
      e.setAttribute("role", "gridcell");
      e.setAttribute("tabindex", "-1");
      e.dataset.i = String(i);
    });
    var offsetEl = document.getElementById("cursor-offset"), hexEl = document.getElementById("cursor-hex");
    var table = document.getElementById("data-inspector");
    var values = function (i) {  // the bytes from i, big-endian: [signed, unsigned] per width, null past the window
      var out = {};
      [["int8", 1], ["int16", 2], ["int32", 4], ["int64", 8]].forEach(function (t) {
        if (i + t[1] > bytes.length) { out[t[0]] = null; return; }
        var u = 0n;
        for (var k = 0; k < t[1]; k++) u = (u << 8n) | BigInt(bytes[i + k]);
        var bits = BigInt(8 * t[1]);
        out[t[0]] = [u >= (1n << (bits - 1n)) ? u - (1n << bits) : u, u];
      });
      return out;
    };
    var PLAUSIBLE = [946684800000n, 4102444800000n];  // the engine's PLAUSIBLE_MS (byte_readings): 2000..2100
    var show = function (i) {
      var at = start + BigInt(i);
      if (offsetEl) offsetEl.textContent = at.toString();
      if (hexEl) hexEl.textContent = "0x" + at.toString(16);
      info.textContent = fieldText(hexCells[i].closest("span[data-r]") || hexCells[i]);
      if (!table) return;
      var v = values(i);
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var type = row.dataset.type;
        while (row.cells.length > 1) row.deleteCell(1);
        var cell = function (text, cls, span) {
          var td = row.insertCell();
          td.className = cls; td.textContent = text;
          if (span) td.colSpan = span;
        };
        if (type.indexOf("time") === 0) {
          var ms = v.int64 && v.int64[0];
          var ok = ms !== null && ms !== undefined && ms >= PLAUSIBLE[0] && ms < PLAUSIBLE[1];
          cell(ok ? new Date(Number(ms)).toISOString().replace("Z", "+00:00") : "not a plausible time", "value", 2);
        } else if (!v[type]) {
          cell("past the window", "num dim", 2);
        } else {
          cell(v[type][0].toString(), "num");
          cell(v[type][1] !== v[type][0] ? v[type][1].toString() : "", "num");
        }
      });
    };
    var cursor = -1;
    var move = function (i, focus) {
      i = Math.max(0, Math.min(hexCells.length - 1, i));
      if (cursor >= 0) {
        hexCells[cursor].classList.remove("cur"); asciiCells[cursor].classList.remove("cur");
        hexCells[cursor].setAttribute("tabindex", "-1");
      }
      cursor = i;
      hexCells[i].classList.add("cur"); asciiCells[i].classList.add("cur");
      hexCells[i].setAttribute("tabindex", "0");
      if (focus) hexCells[i].focus();
      show(i);
    };
    var first = Number(BigInt(view.dataset.offset) - start);  // the page's offset: the cursor starts there
    move(first >= 0 && first < hexCells.length ? first : 0, false);
    view.addEventListener("click", function (ev) {
      var b = ev.target.closest(".b"), c = ev.target.closest(".c");
      if (b) move(Number(b.dataset.i), true);
      else if (c) move(asciiCells.indexOf(c), true);
    });
    var rows = Math.max(1, Math.floor(view.clientHeight / 20));
    view.addEventListener("keydown", function (ev) {
      if (!ev.target.classList || !ev.target.classList.contains("b") || ev.altKey || ev.metaKey) return;
      var k = ev.key, col = cursor % 16, to = null;
      if (k === "ArrowLeft") to = cursor - 1;
      else if (k === "ArrowRight") to = cursor + 1;
      else if (k === "ArrowUp") to = cursor - 16;
      else if (k === "ArrowDown") to = cursor + 16;
      else if (k === "Home") to = ev.ctrlKey ? 0 : cursor - col;
      else if (k === "End") to = ev.ctrlKey ? hexCells.length - 1 : cursor - col + 15;
      else if (k === "PageUp") to = cursor - 16 * rows;
      else if (k === "PageDown") to = cursor + 16 * rows;
      if (to === null || (ev.ctrlKey && k !== "Home" && k !== "End")) return;
      ev.preventDefault();  // the cursor's key: not the page's step (the document's handler sees defaultPrevented)
      move(to, true);
    });
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
