"""Closing a stage (RULES.md D13): the cut, its lot, the entrants stored and told, what
keeps a stage open, and an entrant who withdraws."""

from __future__ import annotations

from aiogram.methods import SendPhoto

from bot.db import stages as stages_db
from bot.db import tournaments as tournaments_db
from bot.db.audit import audit_entries
from bot.db.connection import Database
from bot.db.protests import add_protest
from bot.services import Refusal
from bot.services.tournaments import set_status
from bot.texts.i18n import use_language
from scoring.model import Result
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    ENDED,
    USER_BASE,
    World,
    add_game,
    answers,
    make_world,
)
from tests.support import BotHarness, buttons


async def _qualified(db: Database, harness: BotHarness, entrants: int) -> World:
    """Twelve players, two qualifying games: P4 2; P5, P9 1 (a win as sheriff or don);
    P1, P3, P6, P8, P10, P11 1; P2, P7, P12 0. A final of ``entrants`` added."""
    world = await make_world(db)
    await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, result=Result.BLACK)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, f"/stages add final games=2 entrants={entrants}", chat_id=CHAT)
    return world


async def _entrants(db: Database, world: World, number: int) -> dict[str, str]:
    async with db.read() as conn:
        stage = (await stages_db.list_stages(conn, world.tournament_id))[number - 1]
        found = await stages_db.entrants_of(conn, stage.id)
    nick = dict(zip(world.players, world.nicks, strict=True))
    return {nick[e.player_id]: e.entered for e in found}


async def test_d13_closing_stores_the_cut_and_tells_the_group_and_each_entrant(
    harness: BotHarness, db: Database
) -> None:
    world = await _qualified(db, harness, 9)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages close")
    card = harness.session.last_message(CHIEF)
    assert card is not None
    assert "Entering the final stage (9): P4, P5, P9, P1, P10, P11, P3, P6, P8." in (
        card.text or ""
    )
    await harness.press(chief, card, text="Close the stage")
    entrants = await _entrants(db, world, 2)
    assert sorted(entrants) == sorted(["P4", "P5", "P9", "P1", "P10", "P11", "P3", "P6", "P8"])
    assert set(entrants.values()) == {"cut"}
    async with db.read() as conn:
        first, final = await stages_db.list_stages(conn, world.tournament_id)
        entries = await audit_entries(conn, world.tournament_id, entity="stage")
    assert (first.status, final.status) == ("closed", "running")
    assert "stage.close" in {e.action for e in entries}
    group = harness.session.sent_texts(CHAT)
    assert any("The qualifying stage is closed. Entering the final stage: P4" in t for t in group)
    # ... and the picture of the qualifying's standings, the entrants marked at the top.
    photos = [m for m in harness.session.requests_of(SendPhoto) if m.chat_id == CHAT]
    assert [p.caption for p in photos] == [
        "Spring Cup: the qualifying stage is closed; the top 9 enter the final stage"
    ]
    told = harness.session.sent_texts(world.user_of(4))
    assert any("Spring Cup" in t and "финал" in t for t in told)  # his language: Russian
    assert not harness.session.sent_texts(world.user_of(2))  # left out: not told
    # The standings now are the final's: every entrant with 0 games (D13).
    await harness.say(chief, "/rating all", chat_id=CHAT)
    shown = harness.session.last_text(CHAT) or ""
    assert "Stage 2 of 2: final" in shown and "P2" not in shown


async def test_d13_a_tie_across_the_cut_waits_for_the_lot(
    harness: BotHarness, db: Database
) -> None:
    world = await _qualified(db, harness, 10)  # P2, P7, P12 share place 10
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages close")
    card = harness.session.last_message(CHIEF)
    assert card is not None and not buttons(card)
    assert "P12, P2, P7 share the place across the cut: draw their lot with /lot" in (
        card.text or ""
    )
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    await harness.press(chief, offer, text="Draw for places 10–12")
    await harness.say(chief, "/stages close")
    card = harness.session.last_message(CHIEF)
    await harness.press(chief, card, text="Close the stage")
    entrants = await _entrants(db, world, 2)
    assert len(entrants) == 10
    [lucky] = [name for name, entered in entrants.items() if entered == "lot"]
    assert lucky in {"P2", "P7", "P12"}


async def test_d13_open_protests_and_points_awaiting_approval_keep_the_stage_open(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db)
    game = await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, extras={3: 60})
    async with db.transaction() as conn:
        await add_protest(conn, game, world.players[0], USER_BASE + 1, "unfair", ENDED)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    async with db.transaction() as conn:  # added before the points awaited approval
        await stages_db.add_stage(
            conn, world.tournament_id, stages_db.StageSpec("qualifying", 10, None), status="running"
        )
        await stages_db.add_stage(conn, world.tournament_id, stages_db.StageSpec("final", 2, 10))
    await harness.say(chief, "/stages close")
    text = harness.session.last_text(CHIEF) or ""
    assert "The qualifying stage can't close yet" in text
    assert "open protests (8.8) on R1-T1: decide them with /protests" in text
    assert "awaiting approval in R2-T1" in text
    assert await _entrants(db, world, 2) == {}


async def test_d13_a_withdrawn_entrant_is_replaced_by_the_next_one(
    harness: BotHarness, db: Database
) -> None:
    world = await _qualified(db, harness, 9)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages close")
    await harness.press(chief, harness.session.last_message(CHIEF), text="Close the stage")
    await harness.say(chief, "/stages replace P11")
    assert "P12 takes the place of P11; recorded." in (harness.session.last_text(CHIEF) or "")
    entrants = await _entrants(db, world, 2)
    assert "P11" not in entrants and entrants["P12"] == "replacement"
    async with db.read() as conn:
        entries = await audit_entries(conn, world.tournament_id, entity="stage")
    assert "stage.replace" in {e.action for e in entries}
    assert any("in place of P11, who withdrew" in t for t in harness.session.sent_texts(CHAT))
    await harness.say(chief, "/stages replace P2")
    assert "P2 is not an entrant" in (harness.session.last_text(CHIEF) or "")
    await harness.say(chief, "/stages replace Mister X")  # a nickname with a space
    assert "Mister X is not an entrant" in (harness.session.last_text(CHIEF) or "")
    assert not any("close" in (a or "") for a in answers(harness))


async def test_d16_d17_finishing_the_tournament_ends_every_stage(
    harness: BotHarness, db: Database
) -> None:
    world = await _qualified(db, harness, 9)
    async with db.read() as conn:
        tournament = await tournaments_db.require_tournament(conn, world.tournament_id)
    i18n = harness.dispatcher["i18n"]
    with use_language(i18n, "en"):
        done = await set_status(  # the chief judge saw what is unsettled and finishes
            db, harness.dispatcher["publisher"], tournament, "finished", CHIEF,
            anyway=True,
        )
    assert not isinstance(done, Refusal)
    async with db.read() as conn:
        found = await stages_db.list_stages(conn, world.tournament_id)
    assert [stage.status for stage in found] == ["closed", "closed"]
