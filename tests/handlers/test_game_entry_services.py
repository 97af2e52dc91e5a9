"""The game use cases (``bot.services.game_save``, ``bot.services.games``) on their own:
one transaction with its audit entry and outbox rows, the acting user answered before
the chat and the others are told, refusals instead of changes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from aiogram import Bot
from aiogram.utils.i18n import I18n

from bot.db import Database, audit
from bot.db.games import GameDraft, GameRecord, SeatDraft
from bot.publishing import Publisher
from bot.publishing.notices import GameTeller
from bot.services import Refusal
from bot.services.game_save import Gone, Stored, save_game
from bot.services.games import TablePlayer, add_player_at_table, annul_game
from bot.services.phrases import ResultLines
from bot.texts.phrases import say
from handlers.game_entry.notices import NOTICES
from scoring import Result, Role
from tests.handlers.test_game_entry_support import CHIEF, GROUP, JUDGE, World
from tests.support import BotHarness

LINES = ResultLines("line", "line")
ROLES = (Role.SHERIFF, Role.DON, Role.MAFIA, Role.MAFIA, *[Role.CIVILIAN] * 6)


@dataclass(frozen=True)
class Runtime:
    bot: Bot
    db: Database
    publisher: Publisher
    i18n: I18n

    @property
    def teller(self) -> GameTeller:
        return GameTeller(self.bot, self.publisher, NOTICES)


def runtime(harness: BotHarness, db: Database) -> Runtime:
    data = harness.dispatcher.workflow_data
    return Runtime(harness.bot, db, data["publisher"], data["i18n"])


def draft(world: World, draft_id: str = "g-test", *, extra: int = 0) -> GameDraft:
    return GameDraft(
        draft_id=draft_id,
        round=1,
        table_no=1,
        result=Result.RED,
        seats=tuple(
            SeatDraft(player_id=pid, role=role, judge_extra=extra if n == 0 else 0)
            for n, (pid, role) in enumerate(zip(world.pids, ROLES, strict=False))
        ),
    )


async def test_save_answers_the_judge_before_the_chat_and_is_idempotent(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    rt = runtime(harness, db)
    seen: list[tuple[int, int]] = []

    async def acknowledge(record: GameRecord) -> None:
        seen.append((record.id, len(harness.session.sent_texts(GROUP))))

    with rt.i18n.context(), rt.i18n.use_locale("en"):
        for _ in range(2):  # a Save delivered again
            saved = await save_game(
                rt, tournament_id=world.tid, draft=draft(world), correcting=None,
                actor=JUDGE, lines=ResultLines("R1-T1: red win.", "R1-T1."),
            )
            assert isinstance(saved, Stored)
            await acknowledge(saved.record)  # the handler answers the judge,
            await rt.teller.saved(saved.news)  # then the news go out
    [game] = await world.games()
    # The chat is told after the judge (the result line and the standings), once.
    assert [record for record, _ in seen] == [game.id, game.id]
    assert seen[0][1] == 0 and seen[1][1] > 0
    assert harness.session.sent_texts(GROUP).count("R1-T1: red win.") == 1
    async with db.read() as conn:
        entries = await audit.audit_entries(conn, world.tid, entity="game")
    assert [e.action for e in entries] == ["game.save"]


async def test_a_correction_of_a_game_annulled_meanwhile_is_refused(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    rt = runtime(harness, db)
    told: list[GameRecord] = []

    async def acknowledge(record: GameRecord) -> None:
        told.append(record)

    with rt.i18n.context(), rt.i18n.use_locale("en"):
        saved = await save_game(
            rt, tournament_id=world.tid, draft=draft(world), correcting=None,
            actor=JUDGE, lines=LINES,
        )
        assert isinstance(saved, Stored)
        game = saved.record
        await acknowledge(game)
        await annul_game(rt, rt.teller, game=game, actor=CHIEF, acknowledge=acknowledge)
        refused = await save_game(
            rt, tournament_id=world.tid, draft=draft(world, extra=30),
            correcting=game.id, actor=CHIEF, lines=LINES,
        )
        assert isinstance(refused, Gone)
        assert say(refused) == "This game was annulled meanwhile; the correction was not saved."
    assert [r.status for r in told] == ["final", "annulled"]
    async with db.read() as conn:
        entries = await audit.audit_entries(conn, world.tid, entity="game")
    assert [e.action for e in entries] == ["game.annul", "game.save"]  # newest first


async def test_d7_points_above_0_5_ask_the_chief_after_the_judge_is_answered(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    rt = runtime(harness, db)
    await harness.say(harness.user(CHIEF, "Chief", language_code="en"), "/start")
    asked: list[int] = []

    async def acknowledge(record: GameRecord) -> None:
        asked.append(len(harness.session.sent_texts(CHIEF)))

    with rt.i18n.context(), rt.i18n.use_locale("en"):
        saved = await save_game(
            rt, tournament_id=world.tid, draft=draft(world, extra=60),
            correcting=None, actor=JUDGE, lines=LINES,
        )
        assert isinstance(saved, Stored)
        await acknowledge(saved.record)
        await rt.teller.saved(saved.news)
    game = saved.record
    assert game.status == "pending"
    texts = harness.session.sent_texts(CHIEF)
    assert len(texts) == asked[0] + 1 and "(8.4.3);" in texts[-1]


async def test_a_player_added_at_the_table_waits_for_the_chief_unless_he_adds_him(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    by_judge = await add_player_at_table(db, tournament_id=world.tid, nickname="Mike", actor=JUDGE)
    assert isinstance(by_judge, TablePlayer) and by_judge.ask_chiefs
    assert by_judge.player.status == "pending"
    again = await add_player_at_table(db, tournament_id=world.tid, nickname="mike", actor=CHIEF)
    assert isinstance(again, TablePlayer) and not again.ask_chiefs
    assert again.player.id == by_judge.player.id
    by_chief = await add_player_at_table(db, tournament_id=world.tid, nickname="Nova", actor=CHIEF)
    assert isinstance(by_chief, TablePlayer) and by_chief.player.status == "confirmed"
    refused = await add_player_at_table(db, tournament_id=world.tid, nickname=" ", actor=JUDGE)
    assert isinstance(refused, Refusal) and refused.params == {"max": 32}


def forged(world: World, **fields: object) -> GameDraft:
    """A draft no card would make, straight to the use case."""
    base = draft(world, "g-forged")
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


async def test_save_validates_through_the_protocol_8_3_6_and_8_4_7(
    harness: BotHarness, db: Database
) -> None:
    """A forged draft the game's protocol refuses is not stored: a best move after two
    day-1 vote-outs (8.3.6), judge's points in a draw (8.4.7), a penalty its role and
    result do not allow (8.5.4, D8); the refusal names the rule."""
    world = await World.create(harness, db)
    rt = runtime(harness, db)
    told: list[GameRecord] = []

    async def acknowledge(record: GameRecord) -> None:
        told.append(record)

    seats = draft(world).seats
    drafts = {
        "8.3.6": forged(world, day1_voted_out=2, first_killed=5, best_move=(2, 3)),
        "8.4.7": forged(world, result=Result.DRAW, seats=(
            dataclasses.replace(seats[0], judge_extra=30), *seats[1:])),
        "8.5.4": forged(world, seats=(
            seats[0], dataclasses.replace(seats[1], penalties=("8.5.4",)), *seats[2:])),
    }
    drafts["8.5.4"] = dataclasses.replace(drafts["8.5.4"], result=Result.BLACK)
    with rt.i18n.context(), rt.i18n.use_locale("en"):
        for rule, forged_draft in drafts.items():
            refused = await save_game(
                rt, tournament_id=world.tid, draft=forged_draft, correcting=None,
                actor=JUDGE, lines=LINES,
            )
            assert isinstance(refused, Refusal), rule
            assert say(refused).startswith(f"Not saved: {rule}: "), say(refused)
        # The same game as the card makes it is stored.
        fine = forged(world, day1_voted_out=1, first_killed=5, best_move=(2, 3))
        saved = await save_game(
            rt, tournament_id=world.tid, draft=fine, correcting=None,
            actor=JUDGE, lines=LINES,
        )
        assert isinstance(saved, Stored)
        await acknowledge(saved.record)
    assert [record.best_move for record in told] == [(2, 3)]
    assert [game.best_move for game in await world.games()] == [(2, 3)]


async def test_d13_a_stale_card_seating_a_non_entrant_is_told_in_the_judges_words(
    harness: BotHarness, db: Database
) -> None:
    """D13: the final's entrants changed while a card was open (Kilo is not one): its
    Save is refused naming the player and the stage in the judge's language, without
    the rule's internal id, and nothing is stored."""
    from bot.db import stages as stages_db
    from bot.db.stages import StageSpec

    world = await World.create(harness, db)
    async with db.transaction() as conn:
        first = await stages_db.add_stage(conn, world.tid, StageSpec("qualifying", 10, None))
        await stages_db.set_status(conn, first.id, "closed")
        final = await stages_db.add_stage(
            conn, world.tid, StageSpec("final", 2, 10), status="running"
        )
        for pid in world.pids[1:11]:
            await stages_db.add_entrant(conn, final.id, pid, "cut")
    rt = runtime(harness, db)

    for locale, said in (
        ("en", "Not saved: not among the entrants of the final stage: Alpha"),
        ("ru", "Не сохранено: не среди участников этапа «финал»: Alpha"),
    ):
        with rt.i18n.context(), rt.i18n.use_locale(locale):
            refused = await save_game(
                rt, tournament_id=world.tid, draft=draft(world), correcting=None,
                actor=JUDGE, lines=LINES,
            )
            assert isinstance(refused, Refusal)
            assert say(refused).startswith(said), say(refused)
            assert "D13" not in say(refused)
    assert await world.games() == []
