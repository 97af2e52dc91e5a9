"""What the Mini App offers is read off the view: the page (``webapp/static/app.js``) is
drawn in headless Chromium on views of the protocol (``scoring.protocol.view``), served
as they are with no bot (the API answered by a stand-in ``fetch``), and every mode,
seat to tap, chip and button it offers is what the view's ``allowed`` offers, no more
and no less. Views whose ``allowed`` is swapped for another state's show that the page
follows ``allowed`` and not rules of its own (``tests/scoring/test_protocol_allowed.py``
holds ``allowed`` to the protocol's answers)."""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from scoring.protocol import Protocol, replay, view
from tests.scoring.test_protocol_allowed import ROLES, WON

from .page import Browser

ROOT = Path(__file__).resolve().parents[2]
NICKS = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India",
         "Juliet"]
DRAW = (ROLES, {"type": "result", "result": "draw"},
        {"type": "penalty", "seat": 7, "rule": "8.5.2"})


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def files() -> Iterator[str]:
    """The repository's files over loopback HTTP: the page as the bot serves it."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(ROOT)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/webapp/index.html?g=t"
    finally:
        server.shutdown()
        server.server_close()


def answer(shown: Mapping[str, Any]) -> str:
    """The stand-in API: GET answers the judge's draft with ``shown`` as its view; a
    POST (nothing here taps a seat into a command) never answers."""
    data = {"token": "t", "public": None, "version": 1, "locale": "en", "tournament": "Cup",
            "round": 1, "table": 1, "events": [], "texts": {}, "saved": None,
            "players": [{"seat": n, "nickname": nick} for n, nick in enumerate(NICKS, 1)],
            "view": shown}
    return f"""
      window.fetch = function (url, init) {{
        if (init && init.method === 'POST') return new Promise(function () {{}});
        return Promise.resolve({{status: 200, json: function () {{
          return Promise.resolve({json.dumps(data)}); }}}});
      }};
    """


# Every mode, seat, chip and button the page offers, tab by tab (nothing is sent: only
# tabs, modes, the voting panel and, in the penalty and judge's points tools, seats are
# tapped).
_COLLECT = """
  function all(css) { return Array.prototype.slice.call(document.querySelectorAll(css)); }
  function on(css) { return all(css).filter(function (e) { return !e.disabled; }); }
  function args(css) { return on(css).map(function (e) { return e.getAttribute('data-arg'); }); }
  function tap(css) { var e = document.querySelector(css); if (e) e.click(); return !!e; }
  function can() {
    return all('.seat.can').map(function (e) { return Number(e.getAttribute('data-arg')); });
  }
  function speaker() {
    var e = document.getElementById('speaker');
    return e ? Number((e.textContent.match(/[0-9]+/) || [0])[0]) : null;
  }
  var found = {table: {seats: {}}, outcome: {tools: {}}};
  var t = found.table, o = found.outcome;
  tap('[data-act="tab"][data-arg="table"]');
  t.modes = args('[data-act="mode"]');
  t.speaker = speaker();
  t.miss = on('[data-act="miss"]').length > 0;
  t.end_night = on('[data-act="end_night"]').length > 0;
  t.undo = on('[data-act="undo"]').length > 0;
  t.modes.forEach(function (m) {
    var mode = '[data-act="mode"][data-arg="' + m + '"]';
    tap(mode);
    t.seats[m] = can();
    tap(mode);
  });
  var speeches = tap('[data-act="voting"]');
  if (document.querySelector('.panel.vote')) {
    t.out = args('[data-act="out"]');
    t.votes = args('[data-act="votes"]');
    if (speeches) tap('[data-act="speeches"]');
  }
  tap('[data-act="tab"][data-arg="outcome"]');
  o.modes = args('[data-act="mode"]');
  o.result = args('[data-act="result"]');
  o.best = args('[data-act="best"]').map(Number);
  o.best_end = on('[data-act="best_end"]').length > 0;
  o.best_hint = on('[data-act="best_hint"]').length > 0;
  o.modes.forEach(function (m) {
    var mode = '[data-act="mode"][data-arg="' + m + '"]';
    tap(mode);
    var tool = {seats: can(), chips: {}};
    if (m !== 'dq') {
      tool.seats.forEach(function (n) {
        tap('#seat-' + n);
        tool.chips[n] = {penalty: args('[data-act="penalty"]'),
                         unpenalty: args('[data-act="unpenalty"]'),
                         extra: args('[data-act="extra"]').map(Number)};
      });
    }
    o.tools[m] = tool;
    tap(mode);
  });
  return found;
"""


def drawn(b: Browser, url: str, shown: Mapping[str, Any]) -> dict[str, Any]:
    """What the page offers, drawn on ``shown``."""
    b.telegram("user=%7B%7D", hooks=answer(shown))
    b.open(url)
    return dict(b.js(_COLLECT))


def _seats(found: object) -> list[int]:
    return sorted(int(n) for n in found) if found else []  # type: ignore[attr-defined]


def expected(shown: Mapping[str, Any]) -> dict[str, Any]:
    """What the page must offer on ``shown``: its ``allowed``, read as the page reads it
    (``offered`` in app.js), and nothing else."""
    a = shown["allowed"]
    phase, over = shown["phase"], shown["over"]
    night = phase["kind"] == "night" and not over  # the night's panel (not once over)
    roles_known = any(seat["role"] for seat in shown["seats"])
    given = {int(n) for n, rules in shown["penalties"].items() if rules}
    seats: dict[str, list[int]] = {
        "foul": a["foul"],
        "dq": sorted({*a["disqualify"], *a["undisqualify"]}),
        "roles": list(range(1, 11)) if a["roles"] else [],
        "shoot": a["shoot"]["seats"],
        "don_check": _seats(a["don_check"]),
        "sheriff_check": _seats(a["sheriff_check"]),
        "penalty": sorted({*_seats(a["penalty"]), *_seats(a["unpenalty"]), *given}),
        "extra": [int(n) for n, e in a["extra"].items()
                  if any(e["values"]) or shown["extras"].get(n)],
    }
    table = ["foul"] if a["foul"] else []
    if phase["kind"] == "day" and phase["step"] != "voting" and a["nominate"]:
        table.append("nominate")
    if a["roles"] and roles_known:
        table.append("roles")
    if seats["dq"]:
        table.append("dq")
    checks = shown["checks"]
    recorded = {"shoot": phase["step"] == "checks", "don_check": checks["don"] is not None,
                "sheriff_check": checks["sheriff"] is not None}
    if night:
        table += [s for s in ("shoot", "don_check", "sheriff_check")
                  if seats[s] and not recorded[s]]
    best, named = a["best_move"], shown["best_move"]
    open_ = bool(named["first_killed"]) and named["allowed"] is not False
    chips = open_ and not named["final"]
    return {
        "seats": seats,
        "table modes": sorted(table),
        "outcome modes": sorted(m for m in ("dq", "penalty", "extra") if seats[m]),
        "miss": night and a["shoot"]["miss"] and not recorded["shoot"],
        "end_night": night and a["end_night"],
        "result": a["result"],
        "best": [n for n in best["seats"] if n not in named["seats"]] if chips else [],
        "best_end": best["end"] and chips,
        "best_hint": best["hint"] and open_ and not named["hint"],
    }


def check(found: Mapping[str, Any], shown: Mapping[str, Any]) -> None:
    want = expected(shown)
    a = shown["allowed"]
    t, o = found["table"], found["outcome"]
    assert sorted(t["modes"]) == want["table modes"], (t["modes"], want)
    for m in t["modes"]:
        wanted = (a["nominate"].get(str(t["speaker"]), []) if m == "nominate"
                  else want["seats"][m])
        assert t["seats"][m] == wanted, (m, t["seats"][m], wanted)
    assert t["miss"] == want["miss"] and t["end_night"] == want["end_night"], (t, want)
    if "out" in t:  # the vote: out of the seats the view lets leave, by no more votes
        out = a["vote_out"]
        for leaving in t["out"]:
            seats = [int(n) for n in leaving.split(",") if n]
            assert out is not None and (set(seats) <= set(out["seats"]) if seats
                                        else out["nobody"]), (leaving, out)
        for chip in t["votes"]:
            seat, count = map(int, chip.split(":"))
            assert seat in a["vote"]["seats"] and count <= a["vote"]["most"], (chip, a["vote"])
    assert sorted(o["modes"]) == want["outcome modes"], (o["modes"], want)
    assert o["result"] == want["result"], (o["result"], want)
    assert o["best"] == want["best"] and o["best_end"] == want["best_end"], (o, want)
    assert o["best_hint"] == want["best_hint"], (o, want)
    for m, tool in o["tools"].items():
        assert tool["seats"] == want["seats"][m], (m, tool["seats"], want["seats"][m])
        for n, chips in tool["chips"].items():
            if m == "penalty":
                given = shown["penalties"].get(n, [])
                assert chips["penalty"] == [r for r in a["penalty"].get(n, [])
                                            if r not in given], (n, chips)
                assert chips["unpenalty"] == [r for r in a["unpenalty"].get(n, [])
                                              if r in given], (n, chips)
            else:
                assert chips["extra"] == a["extra"][n]["values"], (n, chips)


def states() -> list[tuple[str, dict[str, Any]]]:
    """Views along a game the red team wins, a draw, and views whose ``allowed`` is
    another state's."""
    def at(commands: Sequence[Mapping[str, object]]) -> dict[str, Any]:
        p = replay(commands)
        assert isinstance(p, Protocol), p
        return view(p)

    picked = {"new": at(()), "roles": at(WON[:1]), "nominated": at(WON[:5]),
              "night 1": at(WON[:7]), "checked": at(WON[:9]), "best move": at(WON[:11]),
              "won": at(WON[:18]), "points": at(WON), "draw": at(DRAW)}
    picked["over, day-1 offers"] = {**picked["won"], "allowed": picked["nominated"]["allowed"]}
    picked["draw, won offers"] = {**picked["draw"], "allowed": picked["points"]["allowed"]}
    return list(picked.items())


def offers(b: Browser, url: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    return [(name, shown, drawn(b, url, shown)) for name, shown in states()]


async def test_the_page_offers_what_the_view_allows_and_nothing_else(
    browser: Browser, files: str,
) -> None:
    for name, shown, found in await asyncio.to_thread(offers, browser, files):
        try:
            check(found, shown)
        except AssertionError as problem:
            raise AssertionError(f"{name}: {problem}") from None
