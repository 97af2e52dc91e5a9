"""The Mini App and the public live view in headless Chromium against the real bot: an
event the server stored under the page's id with another command is refused (409)
and the judge reads both commands, the page showing the server's protocol again; the
public view reads "game over" with the result and what ended it as soon as the day-3
vote ends the game (no role shown), and after Save names the result and the saved game
in words."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from tests.web.test_live_api import GAME

from .page import Browser, LiveTable

ROLE_WORDS = ("sheriff", "don", "mafia", "civilian")


async def post(live: LiveTable, path: str, body: Any = None) -> tuple[int, Any]:
    """The judge's request to the live API, as his page sends it."""
    async with aiohttp.ClientSession() as client, client.post(
        f"{live.base_url}/api/live/{live.token}{path}", json=body,
        headers={"X-Telegram-Init-Data": live.init_data()},
    ) as answer:
        return answer.status, await answer.json()


def tap_offline(b: Browser, live: LiveTable) -> str:
    """Roles, then (offline) seat 1 nominates seat 7: the id the page queued for it."""
    b.telegram(live.init_data())
    b.open(live.url)
    for seat in (1, 2, 3, 4):
        b.seat(seat)
    b.offline(True)
    b.seat(7, sync=False)
    b.wait(lambda: b.find("#pending") is not None, "the tap to wait")
    queued = b.js("return JSON.parse(localStorage.getItem(arguments[0]))",
                  "live-queue:" + live.token)
    [event] = queued
    assert event["command"] == {"type": "nominate", "seat": 7, "by": 1}, event
    return str(event["id"])


def back_online(b: Browser) -> str:
    b.offline(False)
    shown = b.toast()
    b.synced()
    b.wait(lambda: b.find("#seat-8 .fouls i.f") is not None, "the stored foul")
    assert "nominated" not in b.seat_class(7)
    b.screenshot("conflict-409.png")
    return shown


async def test_an_id_stored_with_another_command_is_told_and_the_page_reloads(
    live_table: LiveTable, browser: Browser,
) -> None:
    """The id the page queued offline reached the server meanwhile with a foul to seat 8
    (another device, a tampered queue): the page's nomination is refused whole, the
    judge reads both commands, and the page shows the stored foul, not its tap."""
    live = live_table
    event_id = await asyncio.to_thread(tap_offline, browser, live)
    status, _body = await post(live, "/events", {"events": [
        {"id": event_id, "command": {"type": "foul", "seat": 8}}]})
    assert status == 200
    shown = await asyncio.to_thread(back_online, browser)
    assert shown == ("Not stored: this event was recorded already as «a foul to seat 8», "
                     "and now it came as «seat 1 nominates seat 7». Nothing was changed; "
                     "the protocol is shown as recorded.")
    assert [json.loads(c)["type"] for _id, c in live.stored_events()] == ["roles", "foul"]
    assert "notification:error" in await asyncio.to_thread(
        browser.js, "return window.__haptics")


def public_page(b: Browser, live: LiveTable, wanted: str, screenshot: str) -> dict[str, str]:
    b.driver.get(f"{live.base_url}/live/{live.public}")
    b.wait(lambda: wanted in b.text("body"), wanted)
    b.screenshot(screenshot)
    return {"phase": b.text("#phase"), "saved": b.text("#saved"), "seats": b.text("#seats")}


async def test_the_public_view_reads_game_over_then_the_saved_result(
    live_table: LiveTable, browser: Browser,
) -> None:
    live = live_table
    status, body = await post(live, "/events", {"events": [
        {"id": f"e{n}", "command": c} for n, c in enumerate(GAME[:-1])]})
    assert status == 200 and body["refused"] is None, body
    over = await asyncio.to_thread(public_page, browser, live, "Game over",
                                   "public-game-over.png")
    assert over["phase"] == "🏁 Game over after the day-3 vote: red win", over
    assert over["saved"] == ""
    assert not any(word in over["seats"].lower() for word in ROLE_WORDS), over

    status, body = await post(live, "/events", {"events": [{"id": "r", "command": GAME[-1]}]})
    assert status == 200 and body["refused"] is None, body
    status, body = await post(live, "/save")
    assert status == 200, body
    saved = await asyncio.to_thread(public_page, browser, live, "Saved as game",
                                    "public-saved.png")
    assert saved["phase"] == "🏁 Game over after the day-3 vote: red win", saved
    assert saved["saved"] == "✔ Saved as game R1-T1"
    assert "sheriff" in saved["seats"] and "don" in saved["seats"]
