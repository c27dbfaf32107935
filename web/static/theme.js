// rmq-inspect web viewer: the theme and presentation mode, applied before the page paints (loaded in <head>, not
// deferred, so a dark page never flashes white). The choice lives in localStorage; app.js has the controls.
(function () {
  "use strict";
  var root = document.documentElement;
  function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }  // private mode
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }
  var wanted = new URLSearchParams(window.location.search).get("present");
  if (wanted === "1" || wanted === "0") store("rmq-inspect-present", wanted);  // a link's ?present= is remembered
  root.classList.toggle("present", stored("rmq-inspect-present") === "1");
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function apply() {
    var theme = stored("rmq-inspect-theme") || "auto";
    if (theme === "auto") theme = dark && dark.matches ? "dark" : "light";  // the system's choice by default
    root.setAttribute("data-theme", theme);
  }
  apply();
  if (dark && dark.addEventListener) dark.addEventListener("change", apply);
  window.rmqTheme = { apply: apply, stored: stored, store: store };
})();
