"""Before each round the group gets that round's seating (text and picture, in the
tournament's language) and every linked player his own table and seat, privately in his
language: round 1 when the plan is accepted, round r + 1 when round r's last game is
saved, what changed when a re-plan changes it. Nothing is lost: the posts wait in the
outbox, and a player who can't be reached keeps nobody waiting."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import logging
import re
import sqlite3
from pathlib import Path

import pytest
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import SendMessage, SendPhoto

import seating
from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import LATEST, MIGRATIONS, outbox
from bot.db import games as games_db
from bot.db import seating as seating_repo
from bot.db import stages as stages_db
from bot.db.connection import Database
from bot.services import seating as service
from bot.services.seating import PlanView, Prepared
from bot.texts.seating_text import round_seating_text
from tests.handlers.test_game_entry_support import Driver
from tests.handlers.test_game_entry_support import World as CardWorld
from tests.handlers.tournament_fixtures import TournamentSetup
from tests.support import ApiError, BotHarness
from tests.support.seating_fixtures import (
    CHAT,
    CHIEF,
    I18N,
    JUDGE,
    LINKED,
    TITLE,
    accept_plan,
    current_plan,
    group_posts,
    language_of,
    offer_plan,
    outbox_kinds,
    photo_bytes,
    photo_name,
    place,
    plans,
    play_table,
    press_accept,
    save_quietly,
    seat_line,
    seated_world,
    table_of,
    told_users,
    user_of,
)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeds 101, 102, ... instead of random ones: the plans of a test are reproducible."""
    counter = itertools.count(101)
    monkeypatch.setattr(service, "new_seed", lambda: next(counter))


def seating_text(plan: seating.Plan, round_no: int, locale: str = "en") -> str:
    with I18N.context(), I18N.use_locale(locale):
        return round_seating_text(plan, round_no, TITLE)


def changed_line(round_no: int, locale: str) -> str:
    with I18N.context(), I18N.use_locale(locale):
        return "🔁 " + I18N.gettext("The seating of round {round} changed.").format(round=round_no)


def assert_seating_posted(harness: BotHarness, plan: seating.Plan, round_no: int) -> None:
    """The group's last two posts: the round's seating as text, then as a picture."""
    *_, text, photo = group_posts(harness)
    assert isinstance(text, SendMessage) and text.text == seating_text(plan, round_no)
    assert isinstance(photo, SendPhoto) and photo_name(photo) == f"seating-round-{round_no}.png"
    assert photo_bytes(photo).startswith(PNG)


# -- round 1: the plan is accepted ------------------------------------------------------------


async def test_accepting_a_plan_posts_round_1_and_tells_each_linked_player_his_seat(
    harness: BotHarness, db: Database
) -> None:
    t = await seated_world(db)
    plan = await accept_plan(harness, t)

    posts = group_posts(harness)
    assert len(posts) == 2  # the seating alone: no standings, nothing played yet
    assert_seating_posted(harness, plan, 1)
    text = posts[0].text  # type: ignore[attr-defined]
    assert text.startswith("<b>Spring Cup</b>\n<b>Round 1</b>\n\n<b>Table 1</b>\n1. ")
    assert "Sitting out: " in text  # 25 players at 2 tables: 5 sit round 1 out

    told = told_users(harness)
    for name in LINKED:
        where = place(plan, 1, name)
        if language_of(name) == "en":
            line = (
                f"Round 1: table {where.table}, seat {where.seat}"
                if where.table is not None
                else "Round 1: sitting out"
            )
        else:
            line = seat_line(plan, 1, name, "ru")
            assert line != seat_line(plan, 1, name, "en")  # in his own language
        assert told[name] == [f"<b>Spring Cup</b>\n{line}"], name
    unlinked = {m.chat_id for m in harness.session.requests_of(SendMessage)} - {
        CHAT, CHIEF, *(user_of(n) for n in LINKED)
    }
    assert unlinked == set()  # P23…P25 have no account to tell
    assert await outbox_kinds(db) == []


async def test_the_last_game_of_round_1_brings_round_2_after_the_round_results(
    harness: BotHarness, db: Database
) -> None:
    t = await seated_world(db)
    plan = await accept_plan(harness, t)
    harness.session.clear()
    await save_quietly(db, t, plan, 1, 1)  # table 1 was saved: round 1 is not over
    await play_table(harness, db, t, plan, 1, 2)

    posts = group_posts(harness)
    names = [photo_name(p) for p in posts]
    assert names == [None, None, "standings-1.png", None, "seating-round-2.png"]
    result, standings = (p.text for p in posts[:2])  # type: ignore[attr-defined]
    assert result.startswith("Round 1, table 2: red win.") and "Standings" in standings
    assert_seating_posted(harness, plan, 2)  # after the round's results and picture
    told = told_users(harness)
    for name in LINKED:
        line = seat_line(plan, 2, name, language_of(name))
        assert told[name] == [f"<b>Spring Cup</b>\n{line}"], name
    assert await outbox_kinds(db) == []


async def test_whether_a_save_ends_its_round_is_read_from_that_round_alone(
    harness: BotHarness, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Save that completes round 1 brings round 2's seating, the round checked on
    its own games: the tournament's are not read (they grow with it)."""
    t = await seated_world(db)
    plan = await accept_plan(harness, t)
    harness.session.clear()
    await save_quietly(db, t, plan, 1, 1)
    judge = Driver(CardWorld(harness, db, tid=t.id, pids=t.player_ids),
                   harness.user(JUDGE, "Judge", language_code="en"))
    await judge.enter(round_table="1 2", nicks=table_of(plan, 1, 2))
    await judge.to_review()

    async def every_game(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the tournament's games were read")

    monkeypatch.setattr(games_db, "tables_by_round", every_game)
    monkeypatch.setattr(stages_db, "game_stages", every_game)
    await judge.save()

    assert [photo_name(p) for p in group_posts(harness)] == [
        None, None, "standings-1.png", None, "seating-round-2.png"
    ]
    assert_seating_posted(harness, plan, 2)


async def test_a_withdrawn_players_seat_is_posted_for_a_substitute_and_he_is_not_told(
    harness: BotHarness, db: Database
) -> None:
    t = await seated_world(db)
    plan = await accept_plan(harness, t)
    await save_quietly(db, t, plan, 1, 1)
    gone = next(n for n in table_of(plan, 1, 1) if n in LINKED and place(plan, 2, n).table)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, f"/withdraw {gone}")
    harness.session.clear()
    await play_table(harness, db, t, plan, 1, 2)  # round 2 is posted and told

    at = place(plan, 2, gone)
    text = next(p for p in group_posts(harness) if isinstance(p, SendMessage)
                and "<b>Round 2</b>" in p.text)
    assert f"{at.seat}. substitute for {gone}" in text.text  # type: ignore[attr-defined]
    told = told_users(harness)
    assert told[gone] == []
    others = [n for n in LINKED if n != gone]
    assert all(told[n] == [f"<b>Spring Cup</b>\n{seat_line(plan, 2, n, language_of(n))}"]
               for n in others)


async def test_the_last_round_has_no_successor(harness: BotHarness, db: Database) -> None:
    t = await seated_world(db)
    plan = await accept_plan(harness, t)
    assert [r.round for r in plan.rounds] == [1, 2, 3] and len(plan.rounds[2].tables) == 1
    for table in (1, 2):
        await save_quietly(db, t, plan, 1, table)
    await save_quietly(db, t, plan, 2, 1)
    await play_table(harness, db, t, plan, 2, 2)
    assert_seating_posted(harness, plan, 3)
    harness.session.clear()

    [last] = plan.rounds[2].tables
    await play_table(harness, db, t, plan, 3, last.table)  # the last game of the last round

    # Its result (the standings message is edited) and, the plan's one table of the
    # round saved, the round's standings picture; no seating follows.
    result, picture = group_posts(harness)
    assert photo_name(picture) == "standings-1.png"
    assert picture.caption.endswith("standings after round 3")  # type: ignore[attr-defined]
    assert isinstance(result, SendMessage)
    assert result.text.startswith(f"Round 3, table {last.table}: ")
    assert all(texts == [] for texts in told_users(harness).values())
    assert await outbox_kinds(db) == []


# -- a re-plan ---------------------------------------------------------------------------------

Seat = tuple[int, int]  # (table, seat)


async def offer_swapped(db: Database, t: TournamentSetup, swaps: list[tuple[Seat, Seat]]) -> int:
    """A re-plan offered as the accepted plan with players of round 2 swapped (the
    generator would move nearly everyone): the offer's id."""
    prepared = await service.prepare_offer(db, t.id, CHIEF, 2)
    assert isinstance(prepared, Prepared) and prepared.basis.accepted is not None
    accepted = prepared.basis.accepted.row
    crafted = copy.deepcopy(accepted.plan)
    tables = {table["table"]: table["seats"] for table in crafted["rounds"][1]["tables"]}
    for (t1, s1), (t2, s2) in swaps:
        tables[t1][s1 - 1], tables[t2][s2 - 1] = tables[t2][s2 - 1], tables[t1][s1 - 1]
    async with db.transaction() as conn:
        offer = await seating_repo.add_offer(
            conn, t.id, request=prepared.data, player_ids=[p.id for p in prepared.basis.players],
            plan=crafted, base_plan_id=accepted.id, created_by=CHIEF,
        )
    return offer.id


async def test_a_replan_tells_only_the_players_whose_next_round_seat_changed(
    harness: BotHarness, db: Database
) -> None:
    t = await seated_world(db)
    plan = await accept_plan(harness, t)
    await save_quietly(db, t, plan, 1, 1)
    await play_table(harness, db, t, plan, 1, 2)  # round 2 is posted and told
    one, two = table_of(plan, 2, 1), table_of(plan, 2, 2)
    moved = {one[0], two[0], one[2], one[3]}
    # The chief judge re-plans: two players change tables, two swap seats at one.
    offer_id = await offer_swapped(db, t, [((1, 1), (2, 1)), ((1, 3), (1, 4))])
    harness.session.clear()

    await press_accept(harness, t, offer_id)

    new = await current_plan(harness, t)
    assert table_of(new, 2, 1)[0] == two[0]
    told = told_users(harness)
    for name in LINKED:
        if name not in moved:
            assert told[name] == [], name
            continue
        language = language_of(name)
        line = seat_line(new, 2, name, language)
        assert told[name] == [f"<b>Spring Cup</b>\n{changed_line(2, language)}\n{line}"], name
    assert all(told[name] for name in moved & set(LINKED)) and moved & set(LINKED)
    [text, photo] = group_posts(harness)
    assert isinstance(text, SendMessage) and isinstance(photo, SendPhoto)
    assert text.text == "🔁 The seating of round 2 changed.\n\n" + seating_text(new, 2)
    assert photo_name(photo) == "seating-round-2.png"
    assert await outbox_kinds(db) == []


async def test_a_replan_of_a_round_not_told_yet_tells_nobody(
    harness: BotHarness, db: Database
) -> None:
    t = await seated_world(db)
    plan = await accept_plan(harness, t)
    await save_quietly(db, t, plan, 1, 1)  # round 1 is under way: round 2 is not told yet
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    replan = "🔁 Re-plan the remaining rounds"
    await harness.press(chief, harness.session.last_message(CHIEF), text=replan)
    await harness.press(chief, harness.session.last_message(CHIEF), text="2 ✓")
    harness.session.clear()
    await press_accept(harness, t, max(p.id for p in await plans(harness, t)))

    assert group_posts(harness) == []
    assert all(texts == [] for texts in told_users(harness).values())
    assert await outbox_kinds(db) == []


async def test_a_replan_after_two_players_swapped_tables_moves_nobody_in_the_told_round(
    harness: BotHarness, db: Database
) -> None:
    t = await seated_world(db)
    plan = await accept_plan(harness, t)
    # Round 1 is played with the first players of its two tables swapped.
    one, two = table_of(plan, 1, 1), table_of(plan, 1, 2)
    one[0], two[0] = two[0], one[0]
    swapped = dataclasses.replace(plan, rounds=(
        dataclasses.replace(plan.rounds[0], tables=(
            seating.Table(table=1, seats=tuple(one)), seating.Table(table=2, seats=tuple(two))
        )),
        *plan.rounds[1:],
    ))
    await save_quietly(db, t, swapped, 1, 1)
    await play_table(harness, db, t, swapped, 1, 2)  # round 2 is posted and told
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    await harness.press(
        chief, harness.session.last_message(CHIEF), text="🔁 Re-plan the remaining rounds"
    )
    await harness.press(chief, harness.session.last_message(CHIEF), text="2 ✓")
    offered = harness.session.last_text(CHIEF) or ""
    fresh = re.search(r"a fresh plan would move (\d+) players", offered)
    assert fresh is not None and int(fresh.group(1)) >= 10, offered
    assert "Seats change for" not in offered
    assert "Nobody's seats in the rounds left change." in offered
    harness.session.clear()

    await press_accept(harness, t, max(p.id for p in await plans(harness, t)))

    new = await current_plan(harness, t)
    assert new.rounds[1:] == plan.rounds[1:]  # rounds 2 and 3 as they were told
    assert group_posts(harness) == []
    assert all(texts == [] for texts in told_users(harness).values())


# -- nothing lost, nobody kept waiting ----------------------------------------------------------


async def test_a_player_who_blocked_the_bot_does_not_stop_the_others(
    harness: BotHarness, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    t = await seated_world(db)
    harness.session.fail_next("sendMessage", ApiError.blocked(), chat_id=user_of("P3"))
    harness.session.fail_next("sendMessage", ApiError.cant_initiate(), chat_id=user_of("P4"))
    with caplog.at_level(logging.INFO):
        plan = await accept_plan(harness, t)

    told = told_users(harness)
    assert told["P3"] == [] and told["P4"] == []
    for name in set(LINKED) - {"P3", "P4"}:
        assert told[name] == [f"<b>Spring Cup</b>\n{seat_line(plan, 1, name, language_of(name))}"]
    assert_seating_posted(harness, plan, 1)
    assert any(str(user_of("P3")) in r.getMessage() for r in caplog.records)
    assert await outbox_kinds(db) == []  # given up: never tried again


async def test_a_crash_between_the_commit_and_the_post_is_posted_on_the_next_run(
    harness: BotHarness, db: Database, settings: Settings
) -> None:
    t = await seated_world(db)
    plan_id = await offer_plan(harness, t)
    # The accept commits; the process dies before it publishes.
    assert isinstance(await service.accept(db, t.id, plan_id, CHIEF), PlanView)
    kinds = await outbox_kinds(db)
    assert kinds == ["seating"] + ["seat"] * len(LINKED)
    assert group_posts(harness) == []

    async with BotHarness(build_dispatcher(db, settings)) as restarted:
        pass  # start-up posts what waited in the outbox; the shutdown waits for it

    plan = await current_plan(harness, t)
    assert_seating_posted(restarted, plan, 1)
    assert len(group_posts(restarted)) == 2
    told = told_users(restarted)
    assert all(told[name] == [f"<b>Spring Cup</b>\n{seat_line(plan, 1, name, language_of(name))}"]
               for name in LINKED)
    assert await outbox_kinds(db) == []


async def test_a_post_that_failed_halfway_posts_only_what_did_not_go_out(
    harness: BotHarness, db: Database
) -> None:
    t = await seated_world(db)
    failure = TelegramNetworkError(SendPhoto(chat_id=CHAT, photo="x"), "connection reset")
    harness.session.fail_next("sendPhoto", failure)
    plan = await accept_plan(harness, t)
    assert "seating" in await outbox_kinds(db)  # the text went out, the picture did not
    assert [photo_name(p) for p in group_posts(harness)] == [None]

    await harness.dispatcher["publisher"].publish(harness.bot, t.id)

    # The picture comes now; the text, marked as posted when it went out, not again.
    assert [photo_name(p) for p in group_posts(harness)] == [None, "seating-round-1.png"]
    assert_seating_posted(harness, plan, 1)
    assert await outbox_kinds(db) == []


# -- languages ----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_group_reads_the_tournament_language_and_a_player_his_own(
    harness: BotHarness, db: Database, language: str
) -> None:
    t = await seated_world(db, language=language)
    chief_language = "ru" if language == "en" else "en"  # the chief's own doesn't matter
    plan = await accept_plan(harness, t, language=chief_language)

    [text, _photo] = group_posts(harness)
    assert isinstance(text, SendMessage)
    assert text.text == seating_text(plan, 1, language)
    assert ("<b>Round 1</b>" in text.text) == (language == "en")
    told = told_users(harness)
    assert told["P1"] == [f"<b>Spring Cup</b>\n{seat_line(plan, 1, 'P1', 'en')}"]
    assert told["P2"] == [f"<b>Spring Cup</b>\n{seat_line(plan, 1, 'P2', 'ru')}"]
    assert told["P1"][0].split("\n")[1].startswith("Round 1: ")


# -- the schema -----------------------------------------------------------------------------------


async def test_v6_keeps_what_waited_in_the_outbox(tmp_path: Path) -> None:
    """A result line a v5 bot left unposted is still posted after the upgrade; the outbox
    now takes the seating rows, a private one only with its reader."""
    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:5])
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Old', 8, 1, 0)"
    )
    await db.execute(
        "INSERT INTO outbox (tournament_id, kind, text, created_at) VALUES (1, 'note', 'Hi', 0)"
    )
    await db.close()
    db = await Database.open(path)
    try:
        assert await db.fetchval("PRAGMA user_version") == LATEST
        async with db.read() as conn:
            [row] = await outbox.pending(conn, 1)
        assert (row.kind, row.text, row.round, row.user_id, row.changed) == (
            "note", "Hi", None, None, False
        )
        async with db.transaction() as conn:
            await outbox.add_seating(conn, 1, 2)
        with pytest.raises(sqlite3.IntegrityError):  # a private message needs its reader
            await db.execute(
                "INSERT INTO outbox (tournament_id, kind, round, created_at)"
                " VALUES (1, 'seat', 2, 0)"
            )
    finally:
        await db.close()
