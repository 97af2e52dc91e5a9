"""A draw in the Mini App against the real bot: the page offers no judge's points
before a result or in a draw (8.4, 8.4.7), and only the penalties the protocol would
accept (8.5, D8: in a draw, 8.5.2 to a civilian); what it offers is what the stored
game's protocol accepts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from scoring.protocol import Protocol, Refusal, apply, replay

from .page import Browser, LiveTable

RULES = ("8.5.1", "8.5.2", "8.5.3", "8.5.4")


def outcome(b: Browser) -> dict[str, Any]:
    """The Result tab's tools and, in the penalty tool, each seat's chips."""
    b.tap("tab", "outcome", sync=False)
    found: dict[str, Any] = {
        "modes": b.js("return Array.from(document.querySelectorAll('[data-act=\"mode\"]'))"
                      ".map(function (e) { return e.dataset.arg; })"),
        "chips": {},
    }
    if "penalty" in found["modes"]:
        b.tap("mode", "penalty", sync=False)
        for n in range(1, 11):
            b.seat(n, sync=False)
            found["chips"][n] = b.js(
                "return Array.from(document.querySelectorAll('.seattool [data-act]'))"
                ".filter(function (e) { return !e.disabled; })"
                ".map(function (e) { return e.dataset.act + ' ' + e.dataset.arg; })")
        b.tap("mode", "penalty", sync=False)
    found["extra chips"] = b.js("return document.querySelectorAll('[data-act=\"extra\"]')"
                                ".length")
    return found


def play(b: Browser, live: LiveTable) -> dict[str, Any]:
    b.telegram(live.init_data())
    b.open(live.url)
    for seat in (1, 2, 3, 4):  # sheriff, don, mafia, mafia
        b.seat(seat)
    before = outcome(b)
    b.screenshot("draw-before-result.png")
    b.tap("result", "draw")
    drawn = outcome(b)
    b.tap("mode", "penalty", sync=False)
    b.seat(7, sync=False)
    b.tap("penalty", "8.5.2")
    assert "8.5.2" in b.text(".summary"), b.text("body")
    b.screenshot("draw-result.png")
    return {"before": before, "draw": drawn}


def accepted(p: Protocol) -> dict[int, list[str]]:
    """The protocol's own answer: seat → the penalties it accepts."""
    found = {}
    for n in range(1, 11):
        rules = [f"penalty {r}" for r in RULES
                 if not isinstance(apply(p, {"type": "penalty", "seat": n, "rule": r}), Refusal)]
        found[n] = rules
    return found


async def test_a_draw_offers_no_judge_s_points_and_only_the_penalties_it_allows(
    live_table: LiveTable, browser: Browser,
) -> None:
    live = live_table
    seen = await asyncio.to_thread(play, browser, live)
    before, drawn = seen["before"], seen["draw"]
    # Before the result: neither judge's points nor penalties (they need it, 8.4, 8.5).
    assert "extra" not in before["modes"] and "penalty" not in before["modes"], before
    assert before["extra chips"] == 0
    # In a draw: still no judge's points (8.4.7); the penalty chips are the protocol's.
    assert "extra" not in drawn["modes"] and drawn["extra chips"] == 0, drawn
    commands = [json.loads(c) for _id, c in live.stored_events()]
    assert [c["type"] for c in commands] == ["roles", "result", "penalty"]
    p = replay(commands[:2])
    assert isinstance(p, Protocol), p
    assert {int(n): chips for n, chips in drawn["chips"].items()} == accepted(p)
    assert drawn["chips"][7] == ["penalty 8.5.2"] and drawn["chips"][1] == []
