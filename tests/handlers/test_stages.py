"""/stages: the chief judge adds and changes stages (RULES.md D13-D17)."""

from __future__ import annotations

from bot.db import stages as stages_db
from bot.db.audit import audit_entries
from bot.db.connection import Database
from bot.db.stages import StageRow
from tests.handlers.rating_fixtures import CHAT, CHIEF, JUDGE, add_game, make_world
from tests.support import BotHarness, buttons


async def _stages(db: Database, tid: int) -> list[StageRow]:
    async with db.read() as conn:
        return await stages_db.list_stages(conn, tid)


async def test_d13_a_preset_final_adds_the_first_stage_and_the_final(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages")
    card = harness.session.last_message(CHIEF)
    assert card is not None and "One stage: 10 games a player, all players." in (card.text or "")
    assert [label for label, _ in buttons(card)] == [
        "Semifinal: 2 games, top 20",
        "Final: 2 games, one table",
        "Final: 4 games, one table",
    ]
    await harness.press(chief, card, text="Final: 4 games, one table")
    first, final = await _stages(db, world.tournament_id)
    assert (first.name, first.entrants, first.games_per_player, first.status) == (
        "qualifying",
        None,
        10,
        "running",
    )
    assert (final.name, final.entrants, final.games_per_player, final.hidden) == (
        "final",
        10,
        4,
        True,
    )
    shown = harness.session.last_text(CHIEF) or ""
    assert "2. <b>final</b>: 4 games a player, top 10" in shown and "hidden" in shown
    async with db.read() as conn:
        entries = await audit_entries(conn, world.tournament_id, entity="stage")
    assert [e.action for e in entries] == ["stage.add", "stage.add"]


async def test_d13_d15_typed_values_are_stored_exactly(harness: BotHarness, db: Database) -> None:
    world = await make_world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(
        chief, "/stages add semi games=2 entrants=10 carry=0,5 compensation=off", chat_id=CHAT
    )
    _first, semi = await _stages(db, world.tournament_id)
    assert (semi.carry, semi.weight, semi.compensation, semi.hidden) == ("0.5", "1", False, False)
    await harness.say(chief, "/stages set 2 weight=2 hidden=on", chat_id=CHAT)
    _first, semi = await _stages(db, world.tournament_id)
    assert (semi.weight, semi.hidden) == ("2", True)


async def test_d13_d15_bad_input_is_refused_and_stores_nothing(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db)  # 12 players
    chief = harness.user(CHIEF, "Chief", language_code="en")
    refusals = {
        "/stages add semi games=2 entrants=20": "20 entrants, but the stage before has only 12",
        "/stages add semi games=2 entrants=10 carry=-1": "carry may not be negative",
        "/stages add semi games=2 entrants=10 weight=much": "weight must be a number",
        "/stages add semi games=2": "needs games=N and entrants=N",
        "/stages add semi games=2 entrants=10 colour=red": "Unknown setting colour",
        "/stages add qualifying games=2 entrants=10": "has a stage named qualifying",
        "/stages set 1 games=3": "no stage 1",
        f"/stages add {'x' * 33} games=2 entrants=10": "name is 1 to 32 characters",
        # A number no stage can have: told how to write the command, no query made.
        "/stages set 99999999999999999999999 games=3": "/stages set NUMBER",
    }
    for command, words in refusals.items():
        await harness.say(chief, command)
        assert words in (harness.session.last_text(CHIEF) or ""), command
    assert await _stages(db, world.tournament_id) == []


async def test_d7_no_stage_is_added_while_the_current_one_has_games_awaiting_approval(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db)
    await add_game(db, world, world.players[:10], extras={3: 60})  # 0.6 awaits approval
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages add final games=2 entrants=10")
    assert ": R1-T1" in (harness.session.last_text(CHIEF) or "")
    assert await _stages(db, world.tournament_id) == []


async def test_d13_a_stage_with_games_can_no_longer_be_changed(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages add final games=2 entrants=10")
    await add_game(db, world, world.players[:10])  # a game of the first stage
    await harness.say(chief, "/stages set 1 games=8")
    assert "Stage 1 has games already" in (harness.session.last_text(CHIEF) or "")
    await harness.say(chief, "/stages set 2 entrants=12")
    assert (await _stages(db, world.tournament_id))[1].entrants == 12


async def test_only_the_chief_judge_sets_stages(harness: BotHarness, db: Database) -> None:
    world = await make_world(db)
    judge = harness.user(JUDGE, "Judge", language_code="en")
    await harness.say(judge, "/stages add final games=2 entrants=10", chat_id=CHAT)
    assert "chief judge" in (harness.session.last_text(CHAT) or "")
    assert await _stages(db, world.tournament_id) == []
