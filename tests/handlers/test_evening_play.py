"""A club evening through the bot (handlers/evening_play.py): the host marks who came,
starts the evening, posts each next game, the judge enters them through /game with the
seats pre-filled, the host closes it; the evening's table is ``python -m scoring
standings`` on its export and the ratings ``python -m scoring elo`` on its input."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from aiogram.methods import EditMessageText
from aiogram.types import Message

from bot.db.connection import Database, fetch_val
from bot.publishing.club_posts import ClubPoster
from bot.reads.career import CareerService
from bot.reads.standings import StandingsService
from scoring.cli import standings_json
from tests.handlers.test_game_entry_support import Driver, World
from tests.support import BotHarness
from tests.support.club_rows import ClubSetup, club_with_evening
from tests.test_career_export import files_of
from tests.test_export import run_cli

GROUP = -1001
OWNER, HOST, STRANGER = 10, 20, 30
NAMES = [f"P{n:02}" for n in range(23)]
TODAY = datetime.now(UTC).replace(hour=0, minute=1, second=0, microsecond=0)


async def _announced(harness: BotHarness, club: ClubSetup) -> Message:
    """The evening's announcement in the group, as ``/evening`` posts it."""
    poster: ClubPoster = harness.dispatcher["club_posts"]
    await poster.changed(harness.bot, club.evening_id)
    await harness.settle()
    post = harness.session.last_message(GROUP)
    assert post is not None and f"Evening #{club.evening_id}" in (post.text or "")
    assert post.reply_markup is not None  # "I'm in", "Can't come"
    return post


async def _play_as_planned(judge: Driver, round_table: str) -> None:
    await judge.say(round_table)
    await judge.tap("✅ Seating as planned")
    await judge.play()
    await judge.to_review()
    await judge.save()
    await judge.tap("➕ New game")
    last = judge.h.session.last_message(judge.user.id)
    assert last is not None
    judge.card_id = last.message_id


async def test_who_may(harness: BotHarness, db: Database) -> None:
    stranger = harness.user(STRANGER, "Stranger", language_code="en")
    await harness.say(stranger, "/present", chat_id=GROUP)
    assert harness.session.last_text(GROUP) == (
        "There is no club in this group. Its organiser creates one with /club TITLE."
    )
    await club_with_evening(db, chat_id=GROUP, owner=OWNER, signed=NAMES[:3])
    await harness.say(stranger, "/start_evening", chat_id=GROUP)
    assert harness.session.last_text(GROUP) == "Only the club's owner and hosts can do that."
    await harness.say(stranger, "/season")
    assert harness.session.last_text(STRANGER) == "Send this in the club's group."


async def test_the_list_is_tapped_and_a_latecomer_added(harness: BotHarness, db: Database) -> None:
    await club_with_evening(db, chat_id=GROUP, owner=OWNER, hosts=[HOST], signed=NAMES[:3])
    host = harness.user(HOST, "Host", language_code="en")
    await harness.say(host, "/present", chat_id=GROUP)
    listed = harness.session.last_message(GROUP)
    assert listed is not None and "0 of 3 present" in (listed.text or "")
    await harness.press(host, listed, text="▫️ P01")
    now = harness.session.message(GROUP, listed.message_id)
    assert now is not None and "1 of 3 present" in (now.text or "")
    await harness.say(host, "/present Late One", chat_id=GROUP)
    assert "2 of 4 present" in (harness.session.last_text(GROUP) or "")
    await harness.say(host, "/start_evening", chat_id=GROUP)
    assert harness.session.last_text(GROUP) == (
        "2 present; a game needs 10. Mark who came: /present, or /present NICKNAME."
    )


async def test_an_evening_of_23_two_tables_three_games(
    harness: BotHarness, db: Database, tmp_path: Path
) -> None:
    club = await club_with_evening(
        db, chat_id=GROUP, owner=OWNER, hosts=[HOST], signed=NAMES, present=True,
        users={"P00": 500, "P01": 501}, starts_at=int(TODAY.timestamp()),
    )
    post = await _announced(harness, club)
    host = harness.user(HOST, "Host", language_code="en")
    await harness.say(host, "/start_evening", chat_id=GROUP)
    await harness.settle()
    said = harness.session.sent_texts(GROUP)
    assert said[-2:] == [
        f"The evening has started as «Mafia Club {TODAY:%d.%m.%Y}»: 23 players. "
        "/next_game seats the first game.",
        "The evening has started. Players: 23. Good games!",
    ]
    # The announcement says so, in place, and takes no more sign-ups.
    shown = harness.session.message(GROUP, post.message_id)
    assert shown is not None and "The evening is under way." in (shown.text or "")
    assert shown.reply_markup is None
    async with db.read() as conn:
        tid = int(await fetch_val(conn, "SELECT tournament_id FROM evenings"))
    judge = Driver(World(harness, db, tid), host)
    await judge.start()
    for round_no in (1, 2, 3):
        await harness.say(host, "/next_game", chat_id=GROUP)
        offer = harness.session.last_message(GROUP)
        assert offer is not None and f"Game {round_no}</b>, suggested" in (offer.text or "")
        await harness.press(host, offer, text="Post")
        await harness.settle()
        posted = harness.session.message(GROUP, offer.message_id)
        assert posted is not None and f"Game {round_no}</b> is posted" in (posted.text or "")
        for table in (1, 2):
            await _play_as_planned(judge, f"{round_no} {table}")
    assert any("Round 3" in t for t in harness.session.sent_texts(GROUP))
    assert harness.session.sent_texts(500)  # a player with an account got his seat
    await harness.say(host, "/close_evening", chat_id=GROUP)
    await harness.settle()
    closed = next(t for t in harness.session.sent_texts(GROUP) if "The evening's table" in t)
    assert "is closed after 6 games." in closed and all(name in closed for name in NAMES)
    shown = harness.session.message(GROUP, post.message_id)
    assert shown is not None and "The evening is over." in (shown.text or "")
    assert "The evening is under way." not in (shown.text or "")
    edits = [
        e for e in harness.session.requests_of(EditMessageText, delivered=True)
        if e.message_id == post.message_id
    ]
    assert len(edits) == 2 and all(e.reply_markup is None for e in edits)

    # The evening's table is the engine's on its export.
    files = await files_of(db, tid)
    path = tmp_path / "evening.json"
    path.write_bytes(files[f"tournament-{tid}.json"])
    done = run_cli("scoring", "standings", str(path))
    assert done.returncode == 0, done.stderr
    ours = (await StandingsService(db).get(tid)).standings
    assert json.loads(done.stdout) == json.loads(standings_json(ours))
    assert sum(row.games for row in ours.rows) == 60
    # Club games (K 4/3): the rule on the export's input gives the bot's ratings.
    document = json.loads(files[f"ratings-input-{tid}.json"])
    assert {g["kind"] for g in document["games"]} == {"club"}
    path = tmp_path / "input.json"
    path.write_text(json.dumps(document), "utf-8")
    done = run_cli("scoring", "elo", str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    state = await CareerService(db).current()
    for game, change in state.of_tournament(tid):
        shown = next(g for g in out["games"] if g["id"] == game.code)
        assert list(shown["changes"].values()) == list(change.changes.values())

    await harness.say(host, "/season", chat_id=GROUP)
    season = harness.session.last_text(GROUP) or ""
    assert f"the season 01.01.{TODAY.year}–31.12.{TODAY.year}, 1 evening" in season
    assert all(name in season for name in NAMES)
