"""The judge's card takes the seating from the accepted seating plan: a planned table
comes seated, the judge confirms it or swaps in a substitute; a table the plan lacks,
and a tournament without a plan, are seated by taps as before."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from bot.db import Database, players
from bot.db import games as games_db
from bot.db import seating as seating_db
from bot.reads import stored_plans
from bot.services import seating as service
from tests.handlers.test_game_entry_support import CHIEF, JUDGE2, Driver, World
from tests.support import BotHarness
from tests.support.telegram import buttons

MORE = ("Mike", "November", "Oscar", "Papa", "Quebec", "Romeo", "Sierra", "Tango")
PLANNED = "📋 The seats come from the accepted seating plan."


@pytest.fixture(autouse=True)
def seeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Seeds 101, 102, ... instead of random ones: the plans of a test are reproducible."""
    counter = itertools.count(101)
    monkeypatch.setattr(service, "new_seed", lambda: next(counter))
    yield


async def twenty(harness: BotHarness, db: Database) -> World:
    """Twenty confirmed players, two games each: a plan of two rounds of two tables."""
    world = await World.create(harness, db, distance=2)
    async with db.transaction() as conn:
        for nick in MORE:
            row = await players.add_player(
                conn, world.tid, nick, status="confirmed", decided_by=CHIEF
            )
            world.pids.append(row.id)
    return world


async def accept_plan(world: World) -> None:
    """The chief judge's /seating: two tables, accepted."""
    h = world.harness
    chief = h.user(CHIEF, "Chief", language_code="en")
    await h.say(chief, "/seating")
    for label in ("2 ✓", "✅ Accept"):
        message = h.session.last_message(CHIEF)
        assert message is not None
        await h.press(chief, message, text=label)
    accepted = h.session.last_message(CHIEF)
    assert accepted is not None and "The seating plan is accepted" in (accepted.text or "")


async def judge_with_plan(harness: BotHarness, db: Database) -> tuple[World, Driver]:
    """Twenty players, the plan accepted, and the judge's card open at step 1."""
    world = await twenty(harness, db)
    await accept_plan(world)
    judge = world.judge()
    await judge.start()
    return world, judge


async def planned(world: World, round_no: int, table: int) -> list[int]:
    stored = await stored_plans.accepted_plan(world.db, world.tid)
    found = stored.seats_at(round_no, table) if stored else None
    assert found is not None
    return found


async def names(world: World) -> dict[int, str]:
    async with world.db.read() as conn:
        return {p.id: p.nickname for p in await players.list_players(conn, world.tid)}


async def add_sub(world: World, nick: str = "Sub") -> int:
    async with world.db.transaction() as conn:
        row = await players.add_player(conn, world.tid, nick, status="confirmed", decided_by=CHIEF)
    return row.id


def assert_seated(judge: Driver, nicks: list[str]) -> None:
    """The card lists the ten seats with these players (``—``: empty)."""
    for line in (f"{n}. {nick}" for n, nick in enumerate(nicks, start=1)):
        assert line in judge.text, (line, judge.text)


def callback_sizes(judge: Driver) -> list[int]:
    return [len((data or "").encode()) for _, data in buttons(judge.card)]


async def finish(judge: Driver) -> None:
    """From the roles step to the review: roles 1-4, nobody voted out, seat 5 shot."""
    await judge.play()
    await judge.to_review()


async def play_as_planned(judge: Driver, round_table: str) -> None:
    """The judge saves the plan's table as planned and taps New game: the new card."""
    await judge.say(round_table)
    await judge.tap("✅ Seating as planned")
    await finish(judge)
    await judge.save()
    await judge.tap("➕ New game")
    judge.card_id = judge.h.session.last_message(judge.user.id).message_id  # type: ignore[union-attr]


# -- a planned table ------------------------------------------------------------------------


async def test_a_planned_table_comes_seated_and_is_confirmed_with_one_tap(
    harness: BotHarness, db: Database
) -> None:
    world, judge = await judge_with_plan(harness, db)
    # Step 1 suggests the plan's tables, first unplayed first.
    assert judge.labels()[:3] == [
        "📋 Round 1, table 1", "📋 Round 1, table 2", "📋 Round 2, table 1"
    ]
    await judge.tap("📋 Round 1, table 2")
    ids, nick = await planned(world, 1, 2), await names(world)
    assert "Step 2/11: Seating" in judge.text and PLANNED in judge.text
    assert_seated(judge, [nick[pid] for pid in ids])
    assert (await judge.draft())["players"] == ids
    assert "✅ Seating as planned" in judge.labels()
    assert max(callback_sizes(judge)) <= 64
    await judge.tap("✅ Seating as planned")
    assert "Step 3/11: Roles" in judge.text
    await finish(judge)
    game = await judge.save()
    assert [s.player_id for s in game.seats] == ids


async def test_a_substitute_plays_the_seat_in_the_saved_game(
    harness: BotHarness, db: Database
) -> None:
    world, judge = await judge_with_plan(harness, db)
    sub = await add_sub(world)  # joined after the plan was made
    await judge.say("1 2")
    ids, nick = await planned(world, 1, 2), await names(world)
    await judge.tap("4✓")
    assert "seat 4 is selected" in judge.text
    offered = set(judge.labels())
    assert "Sub" in offered and not offered & {nick[pid] for pid in ids}  # not twice at a table
    await judge.tap("Sub")
    assert "4. Sub" in judge.text
    assert f"Seat 4: Sub plays instead of {nick[ids[3]]}." in judge.text
    assert "✅ Seating as planned" not in judge.labels()
    await judge.tap("✅ Confirm the seating")
    assert "Step 3/11: Roles" in judge.text
    await finish(judge)
    game = await judge.save()
    assert [s.player_id for s in game.seats] == [*ids[:3], sub, *ids[4:]]
    assert game.seats[3].nickname == "Sub"
    # The chief judge learns of the change to the plan, and how to re-plan.
    told = harness.session.last_text(CHIEF) or ""
    assert "game R1-T2 was played with a change to the seating plan" in told
    assert f"Seat 4: Sub instead of {nick[ids[3]]}." in told and "/seating" in told


async def test_a_table_played_as_planned_tells_nobody(
    harness: BotHarness, db: Database
) -> None:
    _world, judge = await judge_with_plan(harness, db)
    await judge.say("1 1")
    await judge.tap("✅ Seating as planned")
    await finish(judge)
    before = harness.session.last_text(CHIEF)
    await judge.save()
    assert harness.session.last_text(CHIEF) == before


async def test_players_of_another_table_of_the_round_come_last_and_marked(
    harness: BotHarness, db: Database
) -> None:
    """No slip: the substitutes offered first are free this round; one planned (or
    saved) at the round's other table is marked with it and warned about once seated."""
    world, judge = await judge_with_plan(harness, db)
    await add_sub(world)
    await judge.say("1 1")
    await judge.tap("4✓")
    nick = await names(world)
    elsewhere = [nick[pid] for pid in await planned(world, 1, 2)]
    offered = [label for label in judge.labels() if label.removesuffix(" ⚠2") in nick.values()]
    assert offered[0] == "Sub"
    assert offered[1:] == sorted((f"{n} ⚠2" for n in elsewhere), key=str.casefold)
    assert "⚠N after a name: he plays this round at table N." in judge.text
    await judge.tap(f"{elsewhere[0]} ⚠2")
    assert f"⚠ {elsewhere[0]} plays round 1 at table 2 too." in judge.text
    # Nothing is forbidden: a club may seat him (the shared example does).
    assert f"4. {elsewhere[0]}" in judge.text


async def test_a_saved_table_counts_as_played_not_as_planned(
    harness: BotHarness, db: Database
) -> None:
    """R1-T1 saved with a substitute: the planned player he replaced is free at R1-T2
    (no ⚠1, no warning), and the substitute is the one who plays at table 1."""
    world, judge = await judge_with_plan(harness, db)
    await add_sub(world)
    nick = await names(world)
    replaced = nick[(await planned(world, 1, 1))[3]]
    await judge.say("1 1")
    await judge.tap("4✓")
    await judge.tap("Sub")
    await judge.tap("✅ Confirm the seating")
    await finish(judge)
    await judge.save()
    other = world.judge(JUDGE2)
    await other.start()
    await other.say("1 2")
    await other.tap("4✓")
    offered = other.labels()
    assert replaced in offered and f"{replaced} ⚠1" not in offered
    assert "Sub ⚠1" in offered
    await other.tap(replaced)
    assert f"4. {replaced}" in other.text and "plays round 1 at table 1" not in other.text


async def test_another_planned_table_replaces_the_seating_and_says_so(
    harness: BotHarness, db: Database
) -> None:
    world, judge = await judge_with_plan(harness, db)
    await add_sub(world)
    await judge.say("1 2")
    await judge.tap("4✓")
    await judge.tap("Sub")
    # The same table again keeps the substitute.
    await judge.back()
    await judge.tap("✓ 📋 Round 1, table 2")
    assert "4. Sub" in judge.text and "replaced" not in judge.text
    # Another table of the plan: its seating, and the card says so.
    await judge.back()
    await judge.say("2 1")
    ids, nick = await planned(world, 2, 1), await names(world)
    assert_seated(judge, [nick[pid] for pid in ids])
    assert "The seating is replaced by the plan's for round 2, table 1." in judge.text
    assert "✅ Seating as planned" in judge.labels()


# -- tables the plan lacks, no plan ----------------------------------------------------------


async def test_a_table_the_plan_lacks_is_seated_by_taps(
    harness: BotHarness, db: Database
) -> None:
    world, judge = await judge_with_plan(harness, db)
    await judge.say("1 3")
    assert "Step 2/11: Seating" in judge.text and PLANNED not in judge.text
    assert_seated(judge, ["—"] * 10)
    assert "The seating plan has no round 1, table 3: seat the players by taps." in judge.text
    assert "Seat 1: tap a player" in judge.text
    assert not [label for label in judge.labels() if label.startswith("✅")]
    # A planned table first, then one the plan lacks: the seating stays as it was.
    await judge.back()
    await judge.say("1 1")
    seated = [(await names(world))[pid] for pid in await planned(world, 1, 1)]
    await judge.back()
    await judge.say("3 1")
    assert_seated(judge, seated)
    assert "no round 3, table 1: the seating stays as it was." in judge.text
    assert PLANNED not in judge.text
    assert (await judge.draft())["planned"] == []


async def test_without_a_plan_the_card_is_as_before(harness: BotHarness, db: Database) -> None:
    world = await twenty(harness, db)
    judge = world.judge()
    await judge.start()
    assert not [label for label in judge.labels() if "📋" in label]
    await judge.say("1 2")
    assert_seated(judge, ["—"] * 10)
    assert PLANNED not in judge.text and "seating plan" not in judge.text
    assert not [label for label in judge.labels() if label.startswith("✅")]
    # A forged confirm on the empty seating: refused, nothing changes.
    await judge.tap_data(judge.step_data("ok"))
    assert judge.last_answer() == (
        "Seats 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 are empty: seat players there first. "
        "Nothing was changed."
    )
    assert "Step 2/11: Seating" in judge.text


async def test_a_planned_player_off_the_roster_leaves_his_seat_empty(
    harness: BotHarness, db: Database
) -> None:
    world = await twenty(harness, db)
    await accept_plan(world)
    ids, nick = await planned(world, 1, 2), await names(world)
    async with db.transaction() as conn:
        await players.reject_player(conn, ids[2], decided_by=CHIEF)
    await add_sub(world)
    judge = world.judge()
    await judge.start()
    await judge.say("1 2")
    assert "3. —" in judge.text and PLANNED in judge.text
    assert f"Seat 3: {nick[ids[2]]} is no longer on the roster; pick a player." in judge.text
    assert not [label for label in judge.labels() if label.startswith("✅")]
    # An old or forged confirm says what is missing and changes nothing.
    before = await judge.draft()
    await judge.tap_data(judge.step_data("ok"))
    assert judge.last_answer() == (
        "Seat 3 is empty: seat a player there first. Nothing was changed."
    )
    assert await judge.draft() == before and "Step 2/11: Seating" in judge.text
    await judge.tap("Sub")  # the cursor is on the empty seat
    assert "3. Sub" in judge.text
    await judge.tap("✅ Confirm the seating")
    assert "Step 3/11: Roles" in judge.text


async def test_a_withdrawn_player_is_out_of_the_planned_table_and_the_substitutes(
    harness: BotHarness, db: Database
) -> None:
    world = await twenty(harness, db)
    await accept_plan(world)
    ids, nick = await planned(world, 1, 2), await names(world)
    gone = nick[ids[2]]
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, f"/withdraw {gone}")
    assert (harness.session.last_text(CHIEF) or "").startswith(f"🚪 <b>{gone}</b> is withdrawn")
    judge = world.judge()
    await judge.start()
    await judge.say("1 2")
    assert "3. —" in judge.text
    assert f"Seat 3: {gone} is no longer on the roster; pick a player." in judge.text
    assert gone not in judge.labels()  # not offered as a substitute


async def test_suggestions_follow_the_plan_past_the_played_tables(
    harness: BotHarness, db: Database
) -> None:
    _world, judge = await judge_with_plan(harness, db)
    await play_as_planned(judge, "1 1")
    assert judge.labels()[:3] == [
        "📋 Round 2, table 1", "📋 Round 1, table 2", "📋 Round 2, table 2"
    ]


async def test_a_judge_is_offered_his_own_table_of_the_next_round_first(
    harness: BotHarness, db: Database
) -> None:
    """Judges keep their tables: after R1-T2 its judge is offered R2-T2 first, while
    another judge is still offered the round's unplayed table first."""
    world, judge = await judge_with_plan(harness, db)
    await play_as_planned(judge, "1 2")
    assert judge.labels()[:3] == [
        "📋 Round 2, table 2", "📋 Round 1, table 1", "📋 Round 2, table 1"
    ]
    other = world.judge(JUDGE2)
    await other.start()
    assert other.labels()[:3] == [
        "📋 Round 1, table 1", "📋 Round 2, table 1", "📋 Round 2, table 2"
    ]


async def test_the_plan_and_the_tables_are_read_once_per_change(
    harness: BotHarness, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = await twenty(harness, db)
    await accept_plan(world)
    calls = {"plan": 0, "tables": 0}

    def counted(name: str, func: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return await func(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(seating_db, "accepted_plan", counted("plan", seating_db.accepted_plan))
    monkeypatch.setattr(games_db, "tables_by_round", counted("tables", games_db.tables_by_round))
    judge = world.judge()
    await judge.start()
    await judge.say("1 2")
    await judge.back()
    await judge.tap("✓ 📋 Round 1, table 2")
    await judge.back()
    assert calls == {"plan": 1, "tables": 1}
