"""Set up tournaments straight through the repositories, for any handler test.

    t = await running_tournament(db, chief_id=1, judge_ids=[2], players=["Ann", "Bob"],
                                 chat_id=-100)
    t.tournament.id, t.player("Ann").id, t.player_ids

Players are confirmed; ``player_users`` links some of them to Telegram accounts.
Staff and player users get a row in the users table, so their names show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Message, User

from bot.db import players as players_repo
from bot.db import staff as staff_repo
from bot.db import tournaments as tournaments_repo
from bot.db import users as users_repo
from bot.db.connection import Database
from bot.db.players import PlayerRow
from bot.db.tournaments import TournamentRow, TournamentStatus
from tests.support import BotHarness


@dataclass
class TournamentSetup:
    tournament: TournamentRow
    chief_id: int
    judge_ids: list[int]
    chat_id: int | None
    players: dict[str, PlayerRow] = field(default_factory=dict)  # by nickname, as given

    def player(self, nickname: str) -> PlayerRow:
        return self.players[nickname]

    @property
    def player_ids(self) -> list[int]:
        return [p.id for p in self.players.values()]

    @property
    def id(self) -> int:
        return self.tournament.id


async def running_tournament(
    db: Database,
    *,
    chief_id: int,
    judge_ids: Sequence[int] = (),
    players: Sequence[str] = (),
    chat_id: int | None,
    title: str = "Test Cup",
    distance: int = 10,
    status: TournamentStatus = "running",
    player_users: Mapping[str, int] | None = None,
    names: Mapping[int, str] | None = None,
    language: str = "en",
) -> TournamentSetup:
    """A tournament with its chief, judges and confirmed players, in one transaction.

    ``status`` "registration" leaves it unstarted; ``names`` gives users' first names
    (default "User <id>"); ``language`` is what its group reads (the tests speak
    English; the bot's own default is Russian).
    """
    player_users = dict(player_users or {})
    names = dict(names or {})
    async with db.transaction() as conn:
        for uid in {chief_id, *judge_ids, *player_users.values()}:
            await users_repo.upsert_user(conn, uid, first_name=names.get(uid, f"User {uid}"))
        tournament = await tournaments_repo.create_tournament(
            conn,
            title=title,
            distance=distance,
            created_by=chief_id,
            chat_id=chat_id,
            language=language,
        )
        for judge in judge_ids:
            await staff_repo.add_staff(conn, tournament.id, judge, "judge", added_by=chief_id)
        rows: dict[str, PlayerRow] = {}
        for nickname in players:
            rows[nickname] = await players_repo.add_player(
                conn,
                tournament.id,
                nickname,
                user_id=player_users.get(nickname),
                status="confirmed",
                decided_by=chief_id,
            )
        if status != "registration":
            tournament = await tournaments_repo.set_status(conn, tournament.id, status)
    return TournamentSetup(
        tournament=tournament,
        chief_id=chief_id,
        judge_ids=list(judge_ids),
        chat_id=chat_id,
        players=rows,
    )


# -- small harness helpers for handler tests ------------------------------------------------


def last_answer(harness: BotHarness) -> str | None:
    """Text of the bot's latest answerCallbackQuery (what a pressed button showed)."""
    answers = harness.session.requests_of(AnswerCallbackQuery)
    return answers[-1].text if answers else None


async def reply_to_bot(harness: BotHarness, user: User, chat_id: int, text: str) -> Any:
    """``user`` answers the bot's latest message in ``chat_id`` (a ForceReply prompt)."""
    prompt = harness.session.last_message(chat_id)
    if chat_id == user.id:
        return await harness.send(harness.updates.private_message(user, text, reply_to=prompt))
    return await harness.send(harness.updates.group_message(user, chat_id, text, reply_to=prompt))


def current(harness: BotHarness, chat_id: int, message_id: int | None = None) -> Message:
    """The bot's message ``message_id`` (default: its latest in the chat) as it looks now."""
    found = (
        harness.session.last_message(chat_id)
        if message_id is None
        else harness.session.message(chat_id, message_id)
    )
    assert found is not None, f"no bot message {message_id} in chat {chat_id}"
    return found
