// The public live view: a table's game as it is entered, read-only (GET
// /api/public/{public} every 2 s). Roles are shown only once the game is saved.
"use strict";
(function () {
  var pub = location.pathname.split("/").filter(Boolean).pop();
  var version = -1;

  function text(el, value) { el.textContent = value == null ? "" : String(value); }

  function render(data) {
    text(document.getElementById("title"),
      data.tournament + " — R" + data.round + " T" + data.table);
    var phase = data.phase || {};
    text(document.getElementById("phase"),
      (phase.kind === "night" ? "🌙 " : "☀️ ") + (phase.number || "") +
      (data.saved ? " · " + data.saved.code + " ✔" : ""));
    var body = document.getElementById("seats");
    while (body.firstChild) body.removeChild(body.firstChild);
    data.seats.forEach(function (s) {
      var tr = document.createElement("tr");
      if (!s.alive) tr.className = "out";
      [s.seat, s.nickname, s.role || "", s.nominated ? "⚖️" : "",
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
