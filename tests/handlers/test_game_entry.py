"""The judge enters a game step by step: the core path, Back, /cancel, a
restart, stale buttons, two judges at once, who may enter games."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import Database, audit, players, staff, tournaments
from tests.handlers.test_game_entry_support import (
    CHIEF,
    GROUP,
    JUDGE,
    JUDGE2,
    NICKS,
    OUTSIDER,
    World,
)
from tests.support import BotHarness


async def test_normal_red_win_is_saved_audited_and_announced(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(round_table="1 1", roles=(1, 2, (3, 4)), night=5, result="Red win")
    assert "Step 8/11: Disqualifications" in judge.text
    await judge.to_review()
    assert "1. Alpha (sheriff): win 1 = <b>1</b>" in judge.text
    assert "2. Bravo (don): 0 = <b>0</b>" in judge.text
    before = datetime.now(UTC).replace(microsecond=0)
    game = await judge.save()
    # The game as stored: seats, roles, the Save tap as its end (8.8.1, D11).
    assert (game.round, game.table_no, game.result.value, game.status) == (1, 1, "red", "final")
    assert [s.nickname for s in game.seats] == list(NICKS[:10])
    assert [s.role.value for s in game.seats[:5]] == [
        "sheriff",
        "don",
        "mafia",
        "mafia",
        "civilian",
    ]
    assert game.first_killed == 5 and game.best_move == () and game.day1_voted_out == 0
    assert before <= game.ended_at <= datetime.now(UTC) + timedelta(seconds=1)
    # The final card: saved, the protest window, only "New game" left.
    assert "✅ <b>Saved</b>: game R1-T1" in judge.text and "8.8.1" in judge.text
    assert judge.labels() == ["➕ New game"]
    assert await judge.state() is None
    # One audit entry, one line in the group chat with every player's points.
    async with db.read() as conn:
        entries = await audit.audit_entries(conn, world.tid, entity="game")
    assert [(e.action, e.actor_id) for e in entries] == [("game.save", JUDGE)]
    assert entries[0].after["round"] == 1 and entries[0].before is None
    line = harness.session.sent_texts(GROUP)[0]
    assert "1" in line and "Alpha 1" in line and "Bravo 0" in line


async def test_save_reads_the_ten_seated_players_not_the_whole_tournament(
    harness: BotHarness, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = await World.create(harness, db)  # twelve players
    judge = world.judge()
    await judge.enter()
    await judge.to_review()
    listed: list[int] = []
    list_players = players.list_players

    async def every_player(conn: Any, tournament_id: int, **kwargs: Any) -> Any:
        listed.append(tournament_id)
        return await list_players(conn, tournament_id, **kwargs)

    monkeypatch.setattr(players, "list_players", every_player)
    await judge.save()

    assert listed == []  # the final card has its ten players by id
    assert "✅ <b>Saved</b>: game R1-T1" in judge.text
    assert all(nick in judge.text for nick in NICKS[:10])
    assert not any(nick in judge.text for nick in NICKS[10:])


async def test_the_card_is_edited_while_the_taps_answer_is_on_its_way(
    harness: BotHarness, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.seat()
    session = harness.session
    make_request = session.make_request
    edited = asyncio.Event()
    order: list[str] = []

    async def slow_answers(
        bot: Any, method: Any, timeout: int | None = None  # noqa: ASYNC109 - the session's
    ) -> Any:
        if isinstance(method, AnswerCallbackQuery):
            # A slow network: the answer is still on its way when the card could go.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(edited.wait(), 2)
            order.append("answered")
        result = await make_request(bot, method, timeout)
        if isinstance(method, EditMessageText):
            order.append("edited")
            edited.set()
        return result

    monkeypatch.setattr(session, "make_request", slow_answers)
    await judge.tap("3")

    assert order == ["edited", "answered"]
    assert "⭐3" in judge.labels()


async def test_new_game_button_starts_the_next_table(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter()
    await judge.to_review()
    await judge.save()
    await judge.tap("➕ New game")
    judge.card_id = harness.session.last_message(JUDGE).message_id  # type: ignore[union-attr]
    assert "Step 1/11: Round and table" in judge.text
    # Suggestions: the next round (1 table per round so far) and round 1's next table.
    assert "Round 2, table 1" in judge.labels() and "Round 1, table 2" in judge.labels()
    await judge.tap("Round 1, table 2")
    assert "Step 2/11: Seating" in judge.text and "Round 1, table 2" in judge.text


async def test_without_a_plan_a_judge_is_offered_his_own_table_of_the_next_round_first(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    first, second = world.judge(), world.judge(JUDGE2)
    for judge, table in ((first, "1 1"), (second, "1 2")):
        await judge.enter(round_table=table)
        await judge.to_review()
        await judge.save()
    await second.tap("➕ New game")
    second.card_id = harness.session.last_message(JUDGE2).message_id  # type: ignore[union-attr]
    assert second.labels()[:2] == ["Round 2, table 2", "Round 2, table 1"]


async def test_round_and_table_typed_wrong_or_taken_change_nothing(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    first = world.judge()
    await first.enter(round_table="3 2")
    await first.to_review()
    await first.save()
    judge = world.judge(JUDGE2)
    await judge.start()
    await judge.say("table three")
    assert "two numbers" in (judge.last_sent() or "")
    await judge.say("3 2")
    assert "Round 3, table 2 is already saved" in (judge.last_sent() or "")
    assert "Step 1/11" in judge.text
    await judge.say("3/3")
    assert "Step 2/11" in judge.text and "Round 3, table 3" in judge.text


async def test_seating_by_taps_filter_and_one_seat_per_player(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    assert "Seat 1: tap a player" in judge.text
    await judge.tap("Alpha")
    assert "1. Alpha" in judge.text and "Seat 2:" in judge.text
    assert "Alpha" not in judge.labels()  # seated players are not offered again
    # Typing part of a nickname filters the buttons; a whole nickname seats him.
    await judge.say("ra")
    assert set(judge.labels()) >= {"Bravo"} and "Delta" not in judge.labels()
    await judge.say("charlie")
    assert "2. Charlie" in judge.text
    # A crafted button for a player already seated is refused.
    await judge.tap_data(judge.step_data("pick", 3, world.pids[0]))
    assert "already sits at seat 1" in (judge.last_answer() or "")
    assert "3. —" in judge.text
    # Pasting ten lines with an unknown nickname changes nothing.
    await judge.say("\n".join([*NICKS[:9], "Nobody"]))
    assert "Not on the roster: Nobody" in (judge.last_sent() or "")
    assert "3. —" in judge.text
    await judge.say("\n".join([*NICKS[:9], NICKS[0]]))
    assert "listed twice" in (judge.last_sent() or "")
    await judge.say("\n".join(f"{i}. {n}" for i, n in enumerate(NICKS[2:12], start=1)))
    assert "1. Charlie" in judge.text and "10. Lima" in judge.text
    await judge.next()
    assert "Step 3/11: Roles" in judge.text


async def test_roles_are_tapped_and_can_be_undone(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.seat()
    assert "Next tap: <b>the sheriff</b>" in judge.text
    assert "Next ▶" not in judge.labels()
    for seat in ("7", "8", "9"):
        await judge.tap(seat)
    assert "7. Golf — <b>sheriff</b>" in judge.text and "8. Hotel — <b>don</b>" in judge.text
    await judge.tap("🎩8")  # undo the don
    assert "Next tap: <b>the don</b>" in judge.text
    await judge.tap("2")
    await judge.tap("10")
    assert "All roles are set." in judge.text and "The other seats are civilians." in judge.text
    await judge.tap("3")
    assert "All roles are set" in (judge.last_answer() or "")
    await judge.next()
    assert "Step 4/11: Day 1" in judge.text


async def test_back_at_every_step_keeps_what_was_entered(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(best_move=(2, 3))
    await judge.to_review()
    titles = [
        "Step 10/11: Judge's extra points",
        "Step 9/11: Penalties",
        "Step 8/11: Disqualifications",
        "Step 7/11: Result",
        "Step 6/11: Best move",
        "Step 5/11: Night 1",
        "Step 4/11: Day 1",
        "Step 3/11: Roles",
        "Step 2/11: Seating",
        "Step 1/11: Round and table",
    ]
    for title in titles:
        await judge.back()
        assert title in judge.text, (title, judge.text)
        assert "Best move: 2, 3" in judge.text or title.startswith(("Step 2", "Step 1"))
    assert "◀ Back" not in judge.labels()
    # Everything is still there: review is one tap away.
    await judge.tap("⏭ Review")
    assert "Step 11/11: Review" in judge.text and "💾 Save" in judge.labels()
    # From the review any step can be opened directly.
    await judge.tap("4. Day 1")
    assert "Step 4/11: Day 1" in judge.text


async def test_cancel_ends_the_conversation_and_the_card_says_so(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    old = judge.card
    await judge.say("/cancel")
    assert await judge.state() is None and await judge.draft() == {}
    assert "Cancelled" in judge.text and judge.labels() == []
    assert judge.last_sent() == "Cancelled. Nothing was saved."
    await judge.tap("Alpha", on=old)
    assert "out of date" in (judge.last_answer() or "")
    assert await world.games() == []


async def test_a_restart_in_the_middle_loses_nothing(
    harness: BotHarness, db: Database, settings: Settings
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("2 1")
    await judge.seat()
    await judge.roles(1, 2, (3, 4))
    # The bot restarts: a new dispatcher over the same database file and Telegram.
    async with BotHarness(build_dispatcher(db, settings), session=harness.session) as again:
        again.updates = harness.updates  # Telegram's update ids go on
        world.harness = again
        assert "Step 4/11: Day 1" in judge.text
        await judge.tap("1")
        await judge.tap("5")
        await judge.tap("Done (0 named)")
        await judge.next()
        await judge.tap("⚫ Black win")
        await judge.to_review()
        game = await judge.save()
    assert (game.round, game.result.value, game.day1_voted_out) == (2, "black", 1)


async def test_stale_buttons_change_nothing(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.seat()
    # A button of the seating step, pressed while the card shows the roles.
    await judge.tap_data(judge.step_data("clear", 1, step="st"))
    assert "out of date" in (judge.last_answer() or "")
    assert "1. Alpha" in judge.text
    # /game again: the card moves below; the old one leads nowhere.
    old = judge.card
    await judge.say("/game")
    assert "unfinished game" in (judge.last_sent() or "")
    retired = harness.session.message(JUDGE, old.message_id)
    assert retired is not None and retired.reply_markup is None
    draft = await judge.draft()
    judge.card_id = draft["card_id"]
    assert "Step 3/11: Roles" in judge.text
    await judge.tap_data(judge.step_data("tap", 1), on=old)
    assert "out of date" in (judge.last_answer() or "")
    await judge.play()
    await judge.to_review()
    review = judge.card
    await judge.save()
    # After the save every button of the draft is out of date, Save included.
    await judge.tap_data(judge.step_data("save", step="rv", on=review), on=review)
    assert "out of date" in (judge.last_answer() or "")
    assert len(await world.games()) == 1


async def test_two_judges_at_once_and_the_same_table_twice(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    one, two = world.judge(JUDGE), world.judge(JUDGE2)
    await one.start()
    await two.start()
    await one.say("1 1")
    await two.say("1 1")  # nobody saved it yet: both may choose it
    await one.seat(NICKS[:10])
    await two.seat(NICKS[2:12])
    await one.roles(1, 2, (3, 4))
    await two.roles(5, 6, (7, 8))
    assert "1. Alpha — <b>sheriff</b>" in one.text
    assert "1. Charlie" in two.text and "5. Golf — <b>sheriff</b>" in two.text
    for judge in (one, two):
        await judge.tap("0")
        await judge.tap("Miss (nobody shot)")
        await judge.tap("🔴 Red win")
        await judge.to_review()
    await one.save()
    await two.tap("💾 Save")
    assert "was saved meanwhile" in two.text and "💾 Save" in two.labels()
    assert len(await world.games()) == 1
    await two.tap("1. Round and table")
    await two.say("1 2")
    await two.tap("⏭ Review")
    await two.tap("💾 Save")
    assert sorted(g.table_no for g in await world.games()) == [1, 2]


async def test_game_before_the_start_says_the_chief_starts_it_with_tournament(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, status="registration")
    judge = world.judge()
    await judge.say("/game")
    assert judge.last_sent() == (
        "The tournament «Spring Cup» has not started yet: the chief judge starts it with "
        "/tournament. Games are entered once it is running."
    )
    russian = world.judge(JUDGE2, language="ru")
    await russian.say("/game")
    assert "«Spring Cup» ещё не начат" in (russian.last_sent() or "")
    assert "/tournament" in (russian.last_sent() or "")


async def test_only_judges_of_a_running_tournament_enter_games(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, status="registration")
    outsider = world.judge(OUTSIDER)
    await outsider.say("/game")
    assert "running tournament" in (outsider.last_sent() or "")
    async with db.transaction() as conn:
        await tournaments.set_status(conn, world.tid, "running")
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    # Removed from the staff mid-way: his next tap is refused.
    async with db.transaction() as conn:
        await staff.remove_staff(conn, world.tid, JUDGE)
    await judge.tap("Alpha")
    assert "no longer a judge" in (judge.last_answer() or "")
    assert "1. —" in judge.text


async def test_several_running_tournaments_the_judge_picks_one(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    async with db.transaction() as conn:
        other = await tournaments.create_tournament(
            conn, title="Autumn Open", distance=8, created_by=CHIEF
        )
        await tournaments.set_status(conn, other.id, "running")
        await staff.add_staff(conn, other.id, JUDGE, "judge", added_by=CHIEF)
    judge = world.judge()
    await judge.start()
    assert set(judge.labels()) == {"Spring Cup", "Autumn Open"}
    await judge.tap("Spring Cup")
    assert "Step 1/11" in judge.text and "Spring Cup" in judge.text
    await judge.back()
    await judge.tap("Autumn Open")
    assert "Autumn Open" in judge.text


async def test_a_taps_answer_says_what_it_did_while_the_card_may_still_wait(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.seat()
    await judge.tap("3")
    assert judge.last_answer() == "Seat 3: sheriff"
    await judge.tap("⭐3")
    assert judge.last_answer() == "Seat 3: role taken back"
    for seat in ("1", "2", "3", "4"):
        await judge.tap(seat)
    assert judge.last_answer() == "Seat 4: mafia"
    await judge.next()
    assert judge.last_answer() == "Step 4/11: Day 1"
    await judge.tap("0")
    assert judge.last_answer() == "Day 1: 0 voted out; Step 5/11: Night 1"
    await judge.tap("Miss (nobody shot)")
    assert judge.last_answer() == "Night 1: a miss; Step 7/11: Result"


async def test_a_taps_answer_is_in_the_judges_language(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge(language="ru")
    await judge.say("/game")
    judge.card_id = harness.session.last_message(JUDGE).message_id  # type: ignore[union-attr]
    await judge.say("1 1")
    await judge.say("\n".join(NICKS[:10]))
    await judge.tap("Далее ▶")
    assert judge.last_answer() == "Шаг 3/11: Роли"
    await judge.tap("3")
    assert judge.last_answer() == "Место 3: шериф"


async def test_russian_is_the_default_language_of_the_card(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge(language="ru")
    await judge.say("/game")
    judge.card_id = harness.session.last_message(JUDGE).message_id  # type: ignore[union-attr]
    assert "Шаг 1/11" in judge.text


async def test_many_players_come_in_pages_and_unconfirmed_ones_are_refused(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    async with db.transaction() as conn:
        for i in range(20):
            await players.add_player(conn, world.tid, f"Zulu{i:02d}", status="confirmed")
        await players.add_player(conn, world.tid, "Applicant")  # /join, not confirmed yet
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    assert "1/3" in judge.labels() and "Zulu19" not in judge.labels()
    await judge.tap("▶")
    await judge.tap("▶")
    assert "3/3" in judge.labels() and "Zulu19" in judge.labels()
    await judge.tap("Zulu19")
    assert "1. Zulu19" in judge.text
    await judge.say("applicant")
    assert "not confirmed by the chief judge yet" in (judge.last_sent() or "")
    assert "2. —" in judge.text
