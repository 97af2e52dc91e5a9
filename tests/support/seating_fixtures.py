"""A tournament seated by an accepted plan, and what the group and the players were
told before each round (tests/test_seating_posts.py).

    t = await seated_world(db)            # 25 players, 2 games each: 3 rounds
    plan = await accept_plan(harness, t)  # /seating, 2 tables, ✅ Accept
    await play_last_table(harness, db, t, plan, round_no=1, table_no=2)

Players P1…P22 are linked to Telegram accounts (``user_of``), odd ones English-speaking,
even ones Russian-speaking; P23…P25 are not linked. Their group reads ``language``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aiogram.methods import SendMessage, SendPhoto, TelegramMethod

import seating
from bot.config import Settings
from bot.db import users as users_repo
from bot.db.connection import Database
from bot.db.games import GameDraft, SeatDraft, save_game
from bot.db.seating import SeatingPlanRow, accepted_plan, list_plans
from bot.reads import stored_plans
from bot.texts.i18n import create_i18n
from bot.texts.seating_text import player_seat_text
from handlers.seating import SeatingOffer, SeatingTables
from scoring.model import Result, Role
from tests.handlers.rating_fixtures import ENDED
from tests.handlers.test_game_entry_support import Driver
from tests.handlers.test_game_entry_support import World as CardWorld
from tests.handlers.tournament_fixtures import TournamentSetup, running_tournament
from tests.support import BotHarness

CHIEF = 7100
JUDGE = 7101
CHAT = -100710
TITLE = "Spring Cup"  # the judge's card driver looks for it
PLAYERS = [f"P{n}" for n in range(1, 26)]
LINKED = PLAYERS[:22]
USER_BASE = 71_000
I18N = create_i18n(Settings().locales_path)
ROLES = (
    Role.CIVILIAN, Role.MAFIA, Role.CIVILIAN, Role.CIVILIAN, Role.SHERIFF,
    Role.CIVILIAN, Role.DON, Role.CIVILIAN, Role.MAFIA, Role.CIVILIAN,
)  # fmt: skip
_drafts = itertools.count(1)


def user_of(nickname: str) -> int:
    return USER_BASE + int(nickname[1:])


def language_of(nickname: str) -> str:
    """The player's Telegram language: English for odd numbers, Russian for even ones."""
    return "en" if int(nickname[1:]) % 2 else "ru"


async def seated_world(db: Database, *, language: str = "en") -> TournamentSetup:
    t = await running_tournament(
        db,
        chief_id=CHIEF,
        judge_ids=[JUDGE],
        players=PLAYERS,
        chat_id=CHAT,
        title=TITLE,
        distance=2,
        player_users={name: user_of(name) for name in LINKED},
        language=language,
    )
    async with db.transaction() as conn:
        for name in LINKED:
            await users_repo.upsert_user(
                conn, user_of(name), first_name=name, language_code=language_of(name)
            )
    return t


# -- the chief judge ------------------------------------------------------------------------


async def offer_plan(harness: BotHarness, t: TournamentSetup, *, language: str = "en") -> int:
    """/seating and 2 tables (buttons pressed by their data, in any language): the id of
    the plan offered."""
    chief = harness.user(CHIEF, "Chief", language_code=language)
    await harness.say(chief, "/seating")
    shown = harness.session.last_message(CHIEF)
    await harness.press(chief, shown, data=SeatingTables(tournament_id=t.id, tables=2).pack())
    return max(p.id for p in await plans(harness, t))


async def press_accept(
    harness: BotHarness, t: TournamentSetup, plan_id: int, *, language: str = "en"
) -> None:
    chief = harness.user(CHIEF, "Chief", language_code=language)
    data = SeatingOffer(action="accept", tournament_id=t.id, plan_id=plan_id).pack()
    await harness.press(chief, harness.session.last_message(CHIEF), data=data)


async def accept_plan(
    harness: BotHarness, t: TournamentSetup, *, language: str = "en"
) -> seating.Plan:
    """The chief judge makes a plan of 2 tables and accepts it: the plan."""
    plan_id = await offer_plan(harness, t, language=language)
    await press_accept(harness, t, plan_id, language=language)
    return await current_plan(harness, t)


async def plans(harness: BotHarness, t: TournamentSetup) -> list[SeatingPlanRow]:
    async with harness_db(harness).read() as conn:
        return await list_plans(conn, t.id)


def harness_db(harness: BotHarness) -> Database:
    db: Database = harness.dispatcher["db"]
    return db


async def current_plan(harness: BotHarness, t: TournamentSetup) -> seating.Plan:
    async with harness_db(harness).read() as conn:
        row = await accepted_plan(conn, t.id)
    assert row is not None, "no plan accepted"
    return stored_plans.plan_from_dict(row.plan)


# -- the judges -------------------------------------------------------------------------------


def table_of(plan: seating.Plan, round_no: int, table_no: int) -> list[str]:
    round_ = next(r for r in plan.rounds if r.round == round_no)
    return list(next(t for t in round_.tables if t.table == table_no).seats)


async def save_quietly(
    db: Database, t: TournamentSetup, plan: seating.Plan, round_no: int, table_no: int
) -> None:
    """A game of the plan's table saved straight into the database: nobody is told."""
    await save_round(db, t, round_no, {table_no: table_of(plan, round_no, table_no)})


async def save_round(
    db: Database,
    t: TournamentSetup,
    round_no: int,
    tables: dict[int, Sequence[str]],
    judge: int = JUDGE,
) -> None:
    """Games of the round as the judges saved them (nicknames in seat order per table),
    straight into the database: nobody is told."""
    async with db.transaction() as conn:
        for table_no, names in tables.items():
            draft = GameDraft(
                draft_id=f"seating-test-{next(_drafts)}",
                round=round_no,
                table_no=table_no,
                result=Result.RED,
                seats=tuple(
                    SeatDraft(player_id=t.player(name).id, role=role)
                    for name, role in zip(names, ROLES, strict=True)
                ),
            )
            await save_game(conn, t.id, draft, judge, ENDED)


async def play_table(
    harness: BotHarness, db: Database, t: TournamentSetup, plan: seating.Plan,
    round_no: int, table_no: int,
) -> None:
    """The judge enters the plan's table on his card and taps Save."""
    world = CardWorld(harness, db, tid=t.id, pids=t.player_ids)
    judge = Driver(world, harness.user(JUDGE, "Judge", language_code="en"))
    nicks = table_of(plan, round_no, table_no)
    await judge.enter(round_table=f"{round_no} {table_no}", nicks=nicks)
    await judge.to_review()
    await judge.save()


# -- what was told ------------------------------------------------------------------------------


def group_posts(harness: BotHarness) -> list[TelegramMethod[Any]]:
    """Messages and photos the group got, in order."""
    return [
        m
        for m in harness.session.delivered
        if isinstance(m, SendMessage | SendPhoto) and m.chat_id == CHAT
    ]


def photo_name(method: TelegramMethod[Any]) -> str | None:
    photo = getattr(method, "photo", None)
    return getattr(photo, "filename", None)


def photo_bytes(method: SendPhoto) -> bytes:
    data = getattr(method.photo, "data", b"")
    assert isinstance(data, bytes)
    return data


def private_texts(harness: BotHarness, user_id: int) -> list[str]:
    return [
        m.text
        for m in harness.session.requests_of(SendMessage, delivered=True)
        if m.chat_id == user_id
    ]


def told_users(harness: BotHarness, linked: Sequence[str] = LINKED) -> dict[str, list[str]]:
    """Nickname -> the private messages his account got (linked players only)."""
    return {name: private_texts(harness, user_of(name)) for name in linked}


def seat_line(plan: seating.Plan, round_no: int, nickname: str, locale: str) -> str:
    """"Round 2: table 3, seat 7" (or that he sits out) in ``locale``."""
    with I18N.context(), I18N.use_locale(locale):
        line = player_seat_text(plan, round_no, nickname)
    assert line is not None, f"{nickname} is not in round {round_no}"
    return line


@dataclass(frozen=True, slots=True)
class Place:
    table: int | None  # None: sitting out
    seat: int | None


def place(plan: seating.Plan, round_no: int, nickname: str) -> Place:
    round_ = next(r for r in plan.rounds if r.round == round_no)
    for table in round_.tables:
        if nickname in table.seats:
            return Place(table.table, table.seats.index(nickname) + 1)
    assert nickname in round_.sitting_out
    return Place(None, None)


async def outbox_kinds(db: Database) -> list[str]:
    rows = await db.fetchall("SELECT kind FROM outbox ORDER BY id")
    return [r[0] for r in rows]
