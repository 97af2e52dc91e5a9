"""/seating in a tournament of stages (RULES.md D13, D14): the current stage is planned,
a later one for its entrants over its own games, its rounds numbered after the earlier
stages'; an earlier stage's plan no longer seats anybody once it closed."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

import pytest

from bot.db import seating as seating_repo
from bot.db import stages as stages_db
from bot.db.connection import Database
from bot.reads import stored_plans
from bot.services import seating as service
from tests.handlers.test_game_entry_support import Driver
from tests.handlers.test_game_entry_support import World as CardWorld
from tests.handlers.tournament_fixtures import TournamentSetup, running_tournament
from tests.support import BotHarness, buttons, seating_fixtures

CHIEF = seating_fixtures.CHIEF
JUDGE = seating_fixtures.JUDGE
CHAT = seating_fixtures.CHAT
PLAYERS = [f"P{n}" for n in range(1, 21)]
PLANNED = "📋 The seats come from the accepted seating plan."


@pytest.fixture(autouse=True)
def seeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    counter = itertools.count(101)
    monkeypatch.setattr(service, "new_seed", lambda: next(counter))
    yield


async def qualifying(harness: BotHarness, db: Database, stage: str) -> TournamentSetup:
    """Twenty players, a qualifying of 2 games; the chief judge adds ``stage``."""
    t = await running_tournament(
        db, chief_id=CHIEF, judge_ids=[JUDGE], players=PLAYERS, chat_id=CHAT,
        title=seating_fixtures.TITLE, distance=2, language="en",
    )  # fmt: skip
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, f"/stages add {stage}", chat_id=CHAT)
    return t


async def close_first(db: Database, t: TournamentSetup, entrants: list[str]) -> None:
    """The qualifying closed with these entrants of the next stage (as /stages close
    stores them)."""
    async with db.transaction() as conn:
        first, following = (await stages_db.list_stages(conn, t.id))[:2]
        await stages_db.set_status(conn, first.id, "closed")
        await stages_db.set_status(conn, following.id, "running")
        for name in entrants:
            await stages_db.add_entrant(conn, following.id, t.player(name).id, "cut")


async def play_qualifying(harness: BotHarness, db: Database, t: TournamentSetup) -> None:
    """The qualifying planned (2 tables), accepted and played as planned: rounds 1-2."""
    plan = await seating_fixtures.accept_plan(harness, t)
    for round_ in plan.rounds:
        tables = {table.table: table.seats for table in round_.tables}
        await seating_fixtures.save_round(db, t, round_.round, tables, JUDGE)


def chief_text(harness: BotHarness) -> str:
    found = harness.session.last_message(CHIEF)
    assert found is not None
    return found.text or ""


async def press(harness: BotHarness, label: str) -> None:
    chief = harness.user(CHIEF, "Chief", language_code="en")
    message = harness.session.last_message(CHIEF)
    assert message is not None, label
    assert label in [text for text, _data in buttons(message)], (label, buttons(message))
    await harness.press(chief, message, text=label)


async def test_d13_d14_the_final_is_planned_for_its_entrants_after_the_qualifying_rounds(
    harness: BotHarness, db: Database
) -> None:
    """D13/D14: a final of 10 entrants, 4 games, after a 2-round qualifying: /seating
    plans rounds 3-6 of the entrants only, nobody in the same seat twice; the group is
    told round 3 of the final, and the judge's card for round 3 comes seated from it."""
    t = await qualifying(harness, db, "final games=4 entrants=10")
    await play_qualifying(harness, db, t)
    entrants = [f"P{n}" for n in (2, 4, 6, 8, 10, 11, 13, 15, 17, 19)]
    await close_first(db, t, entrants)
    # The qualifying's plan no longer applies: the card takes nothing from it.
    assert await stored_plans.accepted_plan(db, t.id) is None

    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    question = chief_text(harness)
    assert "<b>Seating plan</b> of the final stage of «Spring Cup»" in question
    assert "Players of the stage: 10; games per player in it: 4." in question
    assert "Played rounds" not in question  # the qualifying's rounds are not this stage's
    await press(harness, "1 ✓")
    offer = chief_text(harness)
    assert "of the final stage" in offer and "4 rounds, tables at once: 1." in offer
    assert "Round 3" in offer and "Round 1\n" not in offer
    await press(harness, "✅ Accept")
    assert "The seating plan is accepted" in chief_text(harness)

    async with db.read() as conn:
        row = await seating_repo.accepted_plan(conn, t.id)
    assert row is not None
    assert (row.request["stage"], row.request["first_round"]) == (2, 3)
    assert sorted(row.request["players"]) == sorted(entrants)
    assert row.request["games_per_player"] == 4
    rounds = row.plan["rounds"]
    assert [r["round"] for r in rounds] == [3, 4, 5, 6]
    seats = Counter(
        (name, seat)
        for r in rounds
        for table in r["tables"]
        for seat, name in enumerate(table["seats"], start=1)
    )
    assert {name for name, _seat in seats} == set(entrants)
    assert max(seats.values()) == 1  # nobody sits in the same seat twice

    # The group is told round 3's seating, the stage named.
    group = harness.session.sent_texts(CHAT)
    assert any("Spring Cup: final stage" in text and "Round 3" in text for text in group)

    # The judge's card: round 3, table 1 comes seated from the final's plan.
    card = CardWorld(harness, db, tid=t.id, pids=t.player_ids)
    judge = Driver(card, harness.user(JUDGE, "Judge", language_code="en"))
    await judge.start()
    assert "📋 Round 3, table 1" in judge.labels()
    await judge.tap("📋 Round 3, table 1")
    assert PLANNED in judge.text
    planned = rounds[0]["tables"][0]["seats"]
    for n, name in enumerate(planned, start=1):
        assert f"{n}. {name}" in judge.text
    assert (await judge.draft())["players"] == [t.player(name).id for name in planned]


async def test_d13_a_replan_of_the_final_after_its_first_round_keeps_it_as_played(
    harness: BotHarness, db: Database
) -> None:
    """D13/D14: round 3 (the final's first) played with two seats swapped: the re-plan
    keeps it as played and numbers the rest 4-6."""
    t = await qualifying(harness, db, "final games=4 entrants=10")
    await play_qualifying(harness, db, t)
    entrants = PLAYERS[:10]
    await close_first(db, t, entrants)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    await press(harness, "1 ✓")
    await press(harness, "✅ Accept")
    stored = await stored_plans.accepted_plan(db, t.id)
    assert stored is not None and stored.stage == "final"
    first = list(stored.plan.rounds[0].tables[0].seats)
    first[0], first[1] = first[1], first[0]
    await seating_fixtures.save_round(db, t, 3, {1: first}, JUDGE)
    await harness.say(chief, "/seating")
    assert "Played rounds are kept as played: 3." in chief_text(harness)
    await press(harness, "🔁 Re-plan the remaining rounds")
    await press(harness, "1 ✓")
    assert "4 rounds, tables at once: 1." in chief_text(harness)
    await press(harness, "✅ Accept")
    async with db.read() as conn:
        row = await seating_repo.accepted_plan(conn, t.id)
    assert row is not None
    assert [r["round"] for r in row.plan["rounds"]] == [3, 4, 5, 6]
    assert row.plan["rounds"][0]["tables"][0]["seats"] == first


async def test_d13_seating_before_the_qualifying_closes_plans_the_qualifying(
    harness: BotHarness, db: Database
) -> None:
    """D13: a final added but the qualifying still running (the final has no entrants
    yet): /seating plans the qualifying, all players over its games, and says so."""
    t = await qualifying(harness, db, "final games=4 entrants=10")
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    question = chief_text(harness)
    assert "of the qualifying stage" in question
    assert "Players of the stage: 20; games per player in it: 2." in question
    await press(harness, "2 ✓")
    await press(harness, "✅ Accept")
    async with db.read() as conn:
        row = await seating_repo.accepted_plan(conn, t.id)
    assert row is not None and row.request["stage"] == 1
    assert [r["round"] for r in row.plan["rounds"]] == [1, 2]
    assert await stored_plans.accepted_plan(db, t.id) is not None


async def test_d13_a_stage_whose_entrants_dont_fill_tables_is_refused_clearly(
    harness: BotHarness, db: Database
) -> None:
    """D13: 15 entrants × 1 game = 15 seats: the usual refusal, nothing stored."""
    t = await qualifying(harness, db, "semifinal games=1 entrants=15")
    await close_first(db, t, PLAYERS[:15])
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    assert "15 players × 1 games = 15 seats, not a multiple of 10" in chief_text(harness)
    async with db.read() as conn:
        assert await seating_repo.list_plans(conn, t.id) == []


async def test_d13_a_final_game_numbered_among_the_qualifying_rounds_is_named(
    harness: BotHarness, db: Database
) -> None:
    """D13: the final's rounds follow the qualifying's; a final game saved as round 1
    is named, with where the final's rounds start."""
    t = await qualifying(harness, db, "final games=4 entrants=10")
    await play_qualifying(harness, db, t)
    await close_first(db, t, PLAYERS[:10])
    await seating_fixtures.save_round(db, t, 1, {3: PLAYERS[:10]}, JUDGE)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    text = chief_text(harness)
    assert "Game R1-T3 of the final stage is numbered among the rounds" in text
    assert "start at round 3" in text


async def test_d13_each_round_of_a_one_table_final_gets_its_standings_picture(
    harness: BotHarness, db: Database
) -> None:
    """D13: a round of the final is complete with its one table, although the
    qualifying played two (no plan accepted for the final): the group gets the
    standings picture after each of its rounds."""
    t = await qualifying(harness, db, "final games=2 entrants=10")
    await play_qualifying(harness, db, t)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages close")
    card = harness.session.last_message(CHIEF)
    if card is not None and not buttons(card):  # tied across the cut: the lot first
        await harness.say(chief, "/lot")
        offer = harness.session.last_message(CHIEF)
        assert offer is not None
        [draw] = [label for label, _data in buttons(offer) if "10–" in label]
        await harness.press(chief, offer, text=draw)
        await harness.say(chief, "/stages close")
    await press(harness, "Close the stage")
    async with db.read() as conn:
        final = (await stages_db.list_stages(conn, t.id))[1]
        ids = {e.player_id for e in await stages_db.entrants_of(conn, final.id)}
    entrants = [name for name in PLAYERS if t.player(name).id in ids]
    harness.session.clear()
    for round_no in (3, 4):
        order = entrants[round_no - 3:] + entrants[:round_no - 3]
        card_world = CardWorld(harness, db, tid=t.id, pids=t.player_ids)
        judge = Driver(card_world, harness.user(JUDGE, "Judge", language_code="en"))
        await judge.enter(round_table=f"{round_no} 1", nicks=order)
        await judge.to_review()
        await judge.save()
    captions = [
        getattr(post, "caption", None)
        for post in seating_fixtures.group_posts(harness)
        if seating_fixtures.photo_name(post)
    ]
    assert [c for c in captions if c and "standings after round" in c] == [
        "Spring Cup: standings after round 3",
        "Spring Cup: standings after round 4",
    ]
