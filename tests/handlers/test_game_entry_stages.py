"""The judge's card in a later stage (RULES.md D13): only its entrants are offered and
may sit, and a saved game records its stage."""

from __future__ import annotations

import pytest

from bot.db import Database
from bot.db import stages as stages_db
from bot.db.errors import InvalidDraft
from bot.db.games import save_game
from bot.db.stages import StageSpec
from tests.db.helpers import ENDED, make_draft
from tests.handlers.test_game_entry_support import JUDGE, NICKS, World
from tests.support import BotHarness


async def _final_of_ten(world: World) -> None:
    """The qualifying closed; the final running, its entrants the first ten players."""
    async with world.db.transaction() as conn:
        first = await stages_db.add_stage(conn, world.tid, StageSpec("qualifying", 10, None))
        await stages_db.set_status(conn, first.id, "closed")
        final = await stages_db.add_stage(
            conn, world.tid, StageSpec("final", 2, 10), status="running"
        )
        for pid in world.pids[:10]:
            await stages_db.add_entrant(conn, final.id, pid, "cut")


async def test_d13_the_card_offers_and_seats_only_the_stages_entrants(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    await _final_of_ten(world)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    assert "Alpha" in judge.labels() and "Kilo" not in judge.labels()
    await judge.tap_data(judge.step_data("pick", 1, world.pids[10]))
    assert "Not among the entrants of the final stage: Kilo" in (judge.last_answer() or "")
    await judge.say("\n".join([*NICKS[:9], "Lima"]))
    assert "Not among the entrants of the final stage: Lima" in (judge.last_sent() or "")
    assert "1. —" in judge.text
    await judge.seat(NICKS[:10])
    await judge.play()
    await judge.to_review()
    game = await judge.save()
    stored = await db.fetchval("SELECT stage FROM games WHERE id = ?", (game.id,))
    assert stored == 2


async def test_d13_a_non_entrant_is_not_saved_even_from_a_stale_card(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    await _final_of_ten(world)
    with pytest.raises(InvalidDraft, match="Kilo: not among the entrants of the final stage"):
        async with db.transaction() as conn:
            await save_game(conn, world.tid, make_draft(world.pids[1:11]), JUDGE, ENDED)


async def test_d13_a_new_final_game_takes_no_round_of_the_qualifying(
    harness: BotHarness, db: Database
) -> None:
    """D13: the qualifying played rounds 1-2; a final's game typed as round 2 is
    refused with the round to type, and nothing is stored; round 3 is taken."""
    world = await World.create(harness, db)
    async with db.transaction() as conn:
        for round_no in (1, 2):
            await save_game(
                conn, world.tid, make_draft(world.pids[:10], round_no=round_no), JUDGE, ENDED
            )
    await _final_of_ten(world)
    judge = world.judge()
    await judge.start()
    # The buttons offer the final's first round, none of the qualifying's.
    assert "Round 3, table 1" in judge.labels()
    assert not any(label.startswith(("Round 1,", "Round 2,")) for label in judge.labels())
    await judge.say("2 1")
    assert (
        "Round 2 belongs to an earlier stage. The final stage's rounds come after round 2: "
        "type its round, e.g. <code>3 1</code>."
    ) in (judge.last_sent() or "")
    assert (await judge.draft())["round"] is None
    await judge.say("3 1")
    assert (await judge.draft())["round"] == 3
