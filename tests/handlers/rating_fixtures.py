"""Tournaments, players and saved games made straight through the repositories, for the
/rating, /protest and /lot tests (the conversations that normally create them are
other features')."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from aiogram.methods import AnswerCallbackQuery

from bot.db.connection import Database
from bot.db.games import GameDraft, SeatDraft, save_game
from bot.db.players import add_player
from bot.db.staff import add_staff
from bot.db.tournaments import create_tournament
from bot.db.users import upsert_user
from scoring.model import Result, Role
from tests.support import BotHarness

CHIEF = 5000
JUDGE = 5001
CHAT = -100777
ENDED = datetime(2025, 5, 1, 18, 0, 0, tzinfo=UTC)
USER_BASE = 10_000  # player n (1-based) is linked to Telegram user USER_BASE + n

# Seat roles in a legal order: 6 civilians, sheriff, 2 mafia, don.
ROLES = (
    Role.CIVILIAN,
    Role.MAFIA,
    Role.CIVILIAN,
    Role.CIVILIAN,
    Role.SHERIFF,
    Role.CIVILIAN,
    Role.DON,
    Role.CIVILIAN,
    Role.MAFIA,
    Role.CIVILIAN,
)

_drafts = itertools.count(1)


@dataclass(frozen=True, slots=True)
class World:
    tournament_id: int
    players: list[int]  # player ids; players[n - 1] is nickname nicks[n - 1]
    nicks: list[str]

    def user_of(self, n: int) -> int:
        return USER_BASE + n


async def make_world(
    db: Database,
    count: int = 12,
    *,
    distance: int = 10,
    title: str = "Spring Cup",
    chat_id: int | None = CHAT,
    nick: str = "P{n}",
    language: str = "en",
) -> World:
    """A tournament with its chief (CHIEF), a judge (JUDGE) and ``count`` confirmed
    players linked to users USER_BASE + 1 ... USER_BASE + count.

    The staff are known to the bot as English speakers, so what it sends them on its
    own (protest cards) is in English; players get their language as they write. The
    group reads ``language`` (the tournament's).
    """
    await english_users(db, CHIEF, JUDGE)
    async with db.transaction() as conn:
        t = await create_tournament(
            conn,
            title=title,
            distance=distance,
            created_by=CHIEF,
            chat_id=chat_id,
            language=language,
        )
        await add_staff(conn, t.id, JUDGE, "judge", added_by=CHIEF)
        ids, nicks = [], []
        for n in range(1, count + 1):
            row = await add_player(
                conn,
                t.id,
                nick.format(n=n),
                user_id=USER_BASE + n,
                status="confirmed",
                decided_by=CHIEF,
            )
            ids.append(row.id)
            nicks.append(row.nickname)
    return World(t.id, ids, nicks)


async def english_users(db: Database, *user_ids: int) -> None:
    async with db.transaction() as conn:
        for user_id in user_ids:
            await upsert_user(conn, user_id, first_name=f"User {user_id}", language_code="en")


async def add_game(
    db: Database,
    world: World,
    seated: Sequence[int],
    *,
    round_no: int = 1,
    table_no: int = 1,
    result: Result = Result.RED,
    ended_at: datetime = ENDED,
    roles: Sequence[Role] = ROLES,
    extras: dict[int, int] | None = None,
    disqualified: Sequence[int] = (),
    penalties: dict[int, tuple[str, ...]] | None = None,
    **game: object,
) -> int:
    """Save a game; ``seated`` are player NUMBERS (1-based) in seat order; ``extras``
    are judge's points in hundredths by seat."""
    extras = extras or {}
    penalties = penalties or {}
    seats = tuple(
        SeatDraft(
            player_id=world.players[n - 1],
            role=roles[i],
            disqualified=(i + 1) in disqualified,
            judge_extra=extras.get(i + 1, 0),
            penalties=penalties.get(i + 1, ()),
        )
        for i, n in enumerate(seated)
    )
    draft = GameDraft(
        draft_id=f"test-draft-{next(_drafts)}",
        round=round_no,
        table_no=table_no,
        result=result,
        seats=seats,
        **game,  # type: ignore[arg-type]
    )
    async with db.transaction() as conn:
        return await save_game(conn, world.tournament_id, draft, JUDGE, ended_at)


async def tied_world(
    db: Database, *, language: str = "en", distance: int = 1
) -> tuple[World, int]:
    """One red win whose standings have shared places 5–6 (P1, P6) and 9–10 (P2, P9);
    with the default distance of one game it is played, so the lot is due.

    Red: P3 1.3, P4 1.2, P10 1.1, P5 1.0 (sheriff: more wins as sheriff, 8.7.3), then
    P1 and P6 with 1.0 and nothing to tell them apart (8.7.1–8.7.4), P8 0.5 (disqualified).
    Black: P7 0.2 (judge's points), P2 and P9 with 0.
    """
    world = await make_world(db, 10, language=language, distance=distance)
    game_id = await add_game(
        db,
        world,
        range(1, 11),
        extras={3: 30, 4: 20, 10: 10, 7: 20},
        disqualified=(8,),
    )
    return world, game_id


def answers(harness: BotHarness) -> list[str | None]:
    """Texts of every callback answer, in order."""
    return [m.text for m in harness.session.requests_of(AnswerCallbackQuery)]


_PRE = re.compile(r"<pre>(.*?)</pre>", re.S)


def table_rows(texts: Sequence[str]) -> list[str]:
    """Every table row (header lines excluded) of the ``<pre>`` tables in ``texts``."""
    rows = []
    for text in texts:
        for block in _PRE.findall(text):
            rows += block.split("\n")[1:]
    return rows
