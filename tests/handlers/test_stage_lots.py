"""Each stage has its own lot (8.7.5, D12, D15): the lot drawn at the cut of the
qualifying and the lot of the final among the same players are two draws, and the
export's ``stages[].lot`` carries each stage's own."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from bot.db.connection import Database
from bot.db.lots import LotRow, lots_for_tournament
from bot.reads.export import load_export, tournament_json
from scoring.model import Result
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    World,
    add_game,
    make_world,
    table_rows,
)
from tests.handlers.test_stage_final_post import finish_with_the_card
from tests.support import BotHarness, buttons


class _Draws:
    """Stands in for ``secrets.SystemRandom``: the first draw keeps the standings
    order, the next ones reverse it, so two draws of the same players differ."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> _Draws:
        return self

    def shuffle(self, order: list[int]) -> None:
        self.count += 1
        if self.count > 1:
            order.reverse()


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> _Draws:
    found = _Draws()
    monkeypatch.setattr("bot.services.lots.secrets", SimpleNamespace(SystemRandom=found))
    return found


async def _qualifying_tied_at_the_cut(db: Database, harness: BotHarness) -> World:
    """Twelve players, two qualifying games: P2, P7, P12 share places 10-12 with
    nothing; a final of 11 entrants (one game, no carry) lets two of the three in."""
    world = await make_world(db)
    await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, result=Result.BLACK)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages add final games=1 entrants=11", chat_id=CHAT)
    return world


async def _draw(harness: BotHarness, label: str) -> None:
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    assert offer is not None and label in [text for text, _ in buttons(offer)], offer
    await harness.press(chief, offer, text=label)


def _names(world: World, lot: LotRow) -> list[str]:
    nick = dict(zip(world.players, world.nicks, strict=True))
    return [nick[pid] for pid in lot.order]


async def test_8_7_5_d15_the_cut_and_the_final_each_draw_their_own_lot(
    harness: BotHarness, db: Database, draws: _Draws
) -> None:
    world = await _qualifying_tied_at_the_cut(db, harness)
    chief = harness.user(CHIEF, "Chief", language_code="en")

    # The qualifying's tie at the cut: its own lot decides who enters.
    await _draw(harness, "Draw for places 10–12")
    await harness.say(chief, "/stages close")
    await harness.press(chief, harness.session.last_message(CHIEF), text="Close the stage")
    async with db.read() as conn:
        [cut_lot] = await lots_for_tournament(conn, world.tournament_id)
    assert cut_lot.stage == 1
    at_cut = _names(world, cut_lot)
    assert sorted(at_cut) == ["P12", "P2", "P7"]
    first, second, out = at_cut  # the first two entered

    # The final: the two who entered by the lot tie again (red civilians, no extras);
    # P8 sits it out.
    seated = [first, "P4", "P5", "P9", "P1", second, "P10", "P11", "P3", "P6"]
    await add_game(
        db,
        world,
        [int(name[1:]) for name in seated],
        round_no=3,
        extras={3: 30, 4: 20, 10: 10, 7: 20},
        disqualified=(8,),
    )
    harness.dispatcher["standings"].invalidate(world.tournament_id)

    # Finished, the final standings' tie waits for the final's own lot: the
    # qualifying's, which put them in an order, does not decide it (D15).
    await finish_with_the_card(harness, anyway=True)  # P8 sat the final out
    await harness.say(chief, "/lot")
    offer = harness.session.last_text(CHIEF) or ""
    [line] = [line for line in offer.splitlines() if line.endswith(f": {first}, {second}")]
    assert line.startswith("Places ") and ", the final stage's lot: " in line
    places = line.removeprefix("Places ").split(",")[0]
    await _draw(harness, f"Draw for places {places}")

    async with db.read() as conn:
        found = await lots_for_tournament(conn, world.tournament_id)
    assert [lot.stage for lot in found] == [1, 2]
    in_final = _names(world, found[1])
    assert sorted(in_final) == sorted([first, second])
    assert in_final == [second, first]  # a different draw among the same two
    assert any(
        t.startswith("🎲 Lot of the final stage") for t in harness.session.sent_texts(CHAT)
    )

    # The final standings follow the final's lot; the qualifying's still orders the cut.
    guest = harness.user(700, "Guest", language_code="en")
    await harness.say(guest, "/rating all", chat_id=CHAT)
    names = [row.split()[1] for row in table_rows([harness.session.last_text(CHAT) or ""])]
    assert names.index(second) < names.index(first)
    assert names[-1] == out  # left after the qualifying: after the final's entrants (D16)

    # The export carries each stage's own lot (scoring-contract.md, stages[].lot).
    document = json.loads(tournament_json(await load_export(db, world.tournament_id)))
    assert [stage["lot"] for stage in document["stages"]] == [at_cut, in_final]
    assert draws.count == 2
