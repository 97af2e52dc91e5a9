// The public live view: a table's game as it is entered, read-only (GET
// /api/public/{public} every 2 s). Roles are shown only once the game is saved. Its
// words (the phase, "game over" with the result, the saved game) are the API's, in the
// tournament's language.
"use strict";
(function () {
  var pub = location.pathname.split("/").filter(Boolean).pop();
  var version = -1;

  function text(el, value) { el.textContent = value == null ? "" : String(value); }

  var MARKS = { day: "☀️ ", night: "🌙 ", over: "🏁 " };

  function render(data) {
    if (data.locale) document.documentElement.lang = data.locale;
    var title = data.tournament + " — R" + data.round + " T" + data.table;
    document.title = title;
    text(document.getElementById("title"), title);
    var phase = data.phase || {};
    var el = document.getElementById("phase");
    el.className = phase.kind || "";
    text(el, (MARKS[phase.kind] || "") + (data.phase_text || ""));
    text(document.getElementById("saved"), data.saved_text ? "✔ " + data.saved_text : "");
    var body = document.getElementById("seats");
    while (body.firstChild) body.removeChild(body.firstChild);
    data.seats.forEach(function (s) {
      var tr = document.createElement("tr");
      if (!s.alive) tr.className = "out";
      [s.seat, s.nickname, s.role_name || "", s.nominated ? "⚖️" : "",
       s.fouls ? "✋".repeat(Math.min(s.fouls, 4)) : ""].forEach(function (v, i) {
        var td = document.createElement("td");
        if (i === 4) td.className = "fouls";
        text(td, v);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }

  function poll() {
    fetch("/api/public/" + encodeURIComponent(pub), { cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (data) {
        text(document.getElementById("status"), "");
        if (data.version !== version || data.saved) { version = data.version; render(data); }
        if (!data.saved) setTimeout(poll, 2000);
      })
      .catch(function () {
        text(document.getElementById("status"), "…");
        setTimeout(poll, 2000);
      });
  }
  poll();
})();
