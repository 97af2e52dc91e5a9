"""The first-killed player taps his own best move in his private chat (8.3)."""

from __future__ import annotations

import asyncio

import pytest
from aiogram.fsm.storage.base import StorageKey
from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Message

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import Database, players, users
from handlers.game_entry import best_move
from tests.handlers.test_game_entry_support import JUDGE, PLAYER_USER_BASE, Driver, World
from tests.support import BotHarness
from tests.support.telegram import ApiError, buttons

ROLES = (1, 2, (3, 4))
ECHO = 4  # index of Echo in NICKS: seat 5 in the default seating
ECHO_USER = PLAYER_USER_BASE + ECHO


async def shot(world: World, judge: Driver) -> None:
    """The judge's card at step 6 after seat 5 (Echo) was shot on night 1."""
    await judge.enter(roles=ROLES, night=5, best_move=None)
    assert "Step 6/11: Best move" in judge.text


def request(world: World) -> Message:
    message = world.harness.session.last_message(ECHO_USER)
    assert message is not None, "Echo got no request"
    return message


async def test_8_3_1_three_taps_then_accepted_and_the_judge_goes_on(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    judge = world.judge()
    await shot(world, judge)
    assert "Waiting for Echo" in judge.text and "Next ▶" not in judge.labels()
    asked = request(world)
    labels = [label for label, _ in buttons(asked)]
    assert "5" not in labels and {"1", "4", "10"} <= set(labels)  # D10: not his own seat
    echo = Driver(world, world.person(ECHO_USER, "Echo"))
    await echo.tap("2", on=asked)
    assert echo.last_answer() == "Seat 2: named."
    asked = request(world)
    assert "Named: 2" in (asked.text or "") and "✓2" in [lbl for lbl, _ in buttons(asked)]
    assert "Best move so far: 2" in judge.text
    await echo.tap("✓2", on=asked)
    assert "8.3.3" in (echo.last_answer() or "")
    await echo.tap("3", on=asked)
    await echo.tap("4", on=request(world))
    asked = request(world)
    assert "<b>Accepted</b> (8.3.1): 2, 3, 4" in (asked.text or "") and buttons(asked) == []
    assert echo.last_answer() == "Accepted: 2, 3, 4"
    assert "Best move: 2, 3, 4 — <b>Accepted</b>" in judge.text and "Next ▶" in judge.labels()
    # After acceptance his old buttons change nothing.
    await echo.tap_data(
        "gb:" + f"{judge.user.id}:" + (await judge.draft())["token"] + ":s:6", on=asked
    )
    assert "accepted already" in (echo.last_answer() or "")
    await judge.next()
    await judge.tap("🔴 Red win")
    await judge.to_review()
    assert "5. Echo (civilian): win 1 · best move 0.4" in judge.text
    game = await judge.save()
    assert game.best_move == (2, 3, 4)


async def test_8_3_2_one_tap_then_done(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    judge = world.judge()
    await shot(world, judge)
    echo = Driver(world, world.person(ECHO_USER, "Echo"))
    await echo.tap("7", on=request(world))
    await echo.tap("Done (1 named)", on=request(world))
    assert "<b>Accepted</b> (8.3.1): 7" in (request(world).text or "")
    assert "Best move: 7 — <b>Accepted</b>" in judge.text


async def test_a_foreign_tap_changes_nothing(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    judge = world.judge()
    await shot(world, judge)
    stranger = Driver(world, world.person(PLAYER_USER_BASE + 7, "Hotel"))
    await stranger.tap("2", on=request(world))
    assert "not yours" in (stranger.last_answer() or "")
    assert (await judge.draft())["bm"] == []
    # Nor can the judge tap the player's buttons.
    await judge.tap("2", on=request(world))
    assert "not yours" in (judge.last_answer() or "")


async def test_the_judge_takes_over(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    judge = world.judge()
    await shot(world, judge)
    echo = Driver(world, world.person(ECHO_USER, "Echo"))
    await echo.tap("2", on=request(world))
    old = request(world)
    await judge.tap("Take over: I enter the numbers")
    assert "entering your best move himself" in (request(world).text or "")
    assert buttons(request(world)) == []
    await echo.tap("3", on=old)
    assert "out of date" in (echo.last_answer() or "") or "himself" in (echo.last_answer() or "")
    # The number he named stays (8.3.3); the judge goes on from there.
    assert "✓2" in judge.labels()
    await judge.tap("3")
    await judge.tap("Done (2 named)")
    assert "Best move: 2, 3 — <b>Accepted</b>" in judge.text


async def test_an_unreachable_player_the_judge_is_told_and_enters(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    harness.session.fail_next("sendMessage", ApiError.cant_initiate(), chat_id=ECHO_USER)
    judge = world.judge()
    await shot(world, judge)
    assert "Telegram refused to deliver the request to Echo" in judge.text
    async with db.read() as conn:
        profile = await users.get_user(conn, ECHO_USER)
    assert profile is not None and not profile.can_message
    await judge.tap("2")
    await judge.tap("3")
    await judge.tap("4")
    assert "<b>Accepted</b> (8.3.1)" in judge.text


async def test_not_linked_or_never_started_the_judge_enters(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, linked=[ECHO])  # linked, never started the bot
    judge = world.judge()
    await shot(world, judge)
    assert "has not started the bot" in judge.text and "2" in judge.labels()
    assert harness.session.last_message(ECHO_USER) is None


async def test_the_request_is_cancelled_when_the_first_killed_seat_changes(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    judge = world.judge()
    await shot(world, judge)
    asked = request(world)
    await judge.back()
    await judge.tap("6")
    voided = harness.session.message(ECHO_USER, asked.message_id)
    assert voided is not None and "cancelled" in (voided.text or "")
    echo = Driver(world, world.person(ECHO_USER, "Echo"))
    await echo.tap("2", on=asked)
    assert "out of date" in (echo.last_answer() or "")
    assert (await judge.draft())["bm"] == []


async def test_the_player_sees_russian_and_accepted_is_prinyato(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    async with db.transaction() as conn:
        await users.upsert_user(conn, ECHO_USER, first_name="Echo", language_code="ru")
    judge = world.judge()
    await shot(world, judge)
    echo = Driver(world, world.person(ECHO_USER, "Echo", language="ru"))
    await echo.tap("Готово (названо: 0)", on=request(world))
    assert "Принято" in (request(world).text or "")
    assert "<b>Accepted</b>" in judge.text  # the judge reads English


async def test_the_players_taps_survive_a_restart(
    harness: BotHarness, db: Database, settings: Settings
) -> None:
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    judge = world.judge()
    await shot(world, judge)
    echo = Driver(world, world.person(ECHO_USER, "Echo"))
    await echo.tap("9", on=request(world))
    async with BotHarness(build_dispatcher(db, settings), session=harness.session) as again:
        again.updates = harness.updates
        world.harness = again
        await echo.tap("10", on=request(world))
        await echo.tap("Done (2 named)", on=request(world))
        assert "Best move: 9, 10 — <b>Accepted</b>" in judge.text


# -- the chat's own lock (aiogram's event isolation is not re-entrant) ---------------------


def answers_to(harness: BotHarness, query_ids: set[str]) -> list[str | None]:
    return [
        a.text
        for a in harness.session.requests_of(AnswerCallbackQuery)
        if a.callback_query_id in query_ids
    ]


async def still_answers(harness: BotHarness, user_id: int) -> None:
    """The chat is not stuck: its next message gets a reply."""
    user = harness.user(user_id, "Again", language_code="en")
    before = len(harness.session.sent_texts(user_id))
    await asyncio.wait_for(harness.say(user, "/help"), 5)
    assert len(harness.session.sent_texts(user_id)) > before


async def test_best_move_tap_by_the_chats_own_user_does_not_hang(harness: BotHarness) -> None:
    """Forged button data naming the tapper himself as the judge: refused, at once."""
    user = harness.user(502, "Forger", language_code="en")
    update = harness.updates.callback(user, 502, "gb:502:x:s:1", message_id=1)
    await asyncio.wait_for(harness.send(update), 5)
    assert answers_to(harness, {update.callback_query.id}) == [  # type: ignore[union-attr]
        "This request is out of date; nothing was changed."
    ]
    await still_answers(harness, 502)


async def test_best_move_a_judge_seated_at_his_own_table_and_shot_first_taps_it_himself(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    async with db.transaction() as conn:  # Echo (seat 5) is the judge's own account
        await players.link_player(conn, world.pids[ECHO], JUDGE)
        await users.upsert_user(conn, JUDGE, first_name="Echo", language_code="en",
                                can_message=True)
    judge = world.judge()
    await shot(world, judge)
    asked = harness.session.last_message(JUDGE)
    assert asked is not None and "shot on night 1" in (asked.text or "")
    await asyncio.wait_for(judge.tap("2", on=asked), 5)
    assert judge.last_answer() == "Seat 2: named."
    asked = harness.session.message(JUDGE, asked.message_id)
    await asyncio.wait_for(judge.tap("Done (1 named)", on=asked), 5)
    assert "Best move: 2 — <b>Accepted</b>" in judge.text
    await still_answers(harness, JUDGE)


async def test_best_move_two_users_tapping_each_others_requests_at_once_do_not_hang(
    harness: BotHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(best_move, "JUDGE_WAIT", 0.3)
    one, two = harness.user(601, "One"), harness.user(602, "Two")
    taps = [
        harness.updates.callback(one, 601, "gb:602:x:s:1", message_id=1),
        harness.updates.callback(two, 602, "gb:601:x:s:1", message_id=1),
    ]
    await asyncio.wait_for(asyncio.gather(*(harness.send(u) for u in taps)), 5)
    answered = answers_to(harness, {u.callback_query.id for u in taps})  # type: ignore[union-attr]
    assert len(answered) == 2 and all(answered)
    await still_answers(harness, 601)
    await still_answers(harness, 602)


async def test_best_move_tap_while_the_judges_card_stays_busy_is_refused_not_stuck(
    harness: BotHarness, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(best_move, "JUDGE_WAIT", 0.3)
    world = await World.create(harness, db, linked=[ECHO], reachable=[ECHO])
    judge = world.judge()
    await shot(world, judge)
    echo = Driver(world, world.person(ECHO_USER, "Echo"))
    key = StorageKey(bot_id=harness.bot.id, chat_id=JUDGE, user_id=JUDGE)
    async with harness.dispatcher.fsm.events_isolation.lock(key):  # the judge's update runs
        await asyncio.wait_for(echo.tap("2", on=request(world)), 5)
    assert echo.last_answer() == (
        "The judge's card is busy; nothing was changed. Tap again in a moment."
    )
    assert (await judge.draft())["bm"] == []
    await echo.tap("2", on=request(world))  # once the judge's update is over, it goes in
    assert echo.last_answer() == "Seat 2: named." and (await judge.draft())["bm"] == [2]
