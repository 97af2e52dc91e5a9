"""Use cases of games (docs/organiser.md) besides the Save (``bot.services.game_save``):
annul a game, the chief judge's decision on judge's points above 0.5 (8.4.3, D7), and
players a judge adds at his table.

Each owns its transaction with the audit entry and the outbox rows. They take
``acknowledge``, the handler's reply, and call it right after the commit, before the
caller's ``Teller`` publishes and tells the others.

Who is told what, when and in which language is decided here; the words, the buttons
and the sending are the caller's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.db import audit, games, players, staff, tournaments, users
from bot.db.connection import Database
from bot.db.errors import (
    AlreadyDecided,
    InvalidNickname,
    NicknameTaken,
    PlayerHasGames,
    UserAlreadyPlayer,
)
from bot.db.games import ApprovalRow, GameRecord
from bot.db.players import PlayerRow
from bot.db.tournaments import CHIEF
from bot.services import N_, Refusal
from bot.services.notices import Notice, Outbox, locale_of_user, notice_to
from bot.services.phrases import Joined, Phrase, locale_for
from scoring.judging import APPROVAL_THRESHOLD


class Runtime(Protocol):
    """What a game use case records in: the database and the group's outbox."""

    @property
    def db(self) -> Database: ...

    @property
    def publisher(self) -> Outbox: ...


class Teller(Protocol):
    """How the game use cases' news reach people once committed: the caller words and
    sends them (``bot.publishing.notices.GameTeller``), each in the reader's ``locale``,
    with buttons where a chief judge is asked to decide. A message that can't arrive is
    logged, and the rest still go."""

    async def publish(self, tournament_id: int, what: str) -> None:
        """The group's outbox goes out (a failure is logged: the change is saved)."""

    async def tell(self, notice: Notice) -> None: ...

    async def ask_to_confirm(
        self, chief: int, locale: str, judge: str, player: PlayerRow, title: str
    ) -> None:
        """The chief judge is asked to confirm a player the judge added at his table."""

    async def tell_decision(
        self, judge: int, locale: str, approval: ApprovalRow, game: GameRecord
    ) -> None:
        """The game's judge hears the chief judge's decision on his points."""


# -- the chief judge: his games, annulment ---------------------------------------------------


# Why the chief judge's buttons on games are refused (their filters say it too).
NO_SUCH_GAME = Refusal(N_("There is no such game."), alert=True)
ONLY_CHIEF_CORRECTS = Refusal(N_("Only the chief judge can correct or annul a game."), alert=True)
STALE_REQUEST = Refusal(N_("This request is out of date."))
ONLY_CHIEF_APPROVES = Refusal(N_("Only the chief judge can decide this (8.4.3)."), alert=True)
NO_SUCH_PLAYER = Refusal(N_("There is no such player."))
ONLY_CHIEF_CONFIRMS = Refusal(N_("Only the chief judge can confirm players."), alert=True)
ONLY_CHIEF_LISTS = Refusal(N_("Only the chief judge can list and correct games."), alert=True)

async def annul_game(
    rt: Runtime,
    teller: Teller,
    *,
    game: GameRecord,
    actor: int,
    acknowledge: Callable[[GameRecord], Awaitable[None]],
) -> GameRecord:
    """Annul ``game``: it leaves the standings and its round and table become free
    (audited once, however often it is tapped)."""
    async with rt.db.transaction() as conn:
        before = await games.require_game(conn, game.id)
        after = await games.annul_game(conn, game.id, annulled_by=actor)
        if before.status != "annulled":
            await audit.record(
                conn,
                "game.annul",
                game.id,
                game.tournament_id,
                actor,
                before=before,
                after=after,
            )
            await rt.publisher.enqueue(conn, game.tournament_id)
    await acknowledge(after)
    await teller.publish(game.tournament_id, f"annulment of game {game.id}")
    return after


# -- approvals of judge's points above 0.5 (8.4.3, D7) -------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    approval: ApprovalRow  # as decided
    game: GameRecord  # after the decision (before it, when ``fresh`` is False)
    fresh: bool  # False: it was decided already, nothing changed


async def decide_approval(
    rt: Runtime,
    teller: Teller,
    *,
    approval_id: int,
    actor: int,
    lower: bool,
    acknowledge: Callable[[Decision], Awaitable[None]],
) -> Decision | Refusal:
    """The chief judge approves the requested points or lowers them to 0.5 (D7); the
    standings follow and the game's judge is told."""
    async with rt.db.read() as conn:
        row = await games.get_approval(conn, approval_id)
        game = await games.get_game(conn, row.game_id) if row else None
        role = await staff.staff_role(conn, game.tournament_id, actor) if game else None
    if row is None or game is None:
        return STALE_REQUEST
    if role != CHIEF:
        return ONLY_CHIEF_APPROVES
    try:
        decision = await _decide(rt, row, game, actor, APPROVAL_THRESHOLD if lower else None)
    except AlreadyDecided as exc:
        return Decision(exc.row, game, fresh=False)
    await acknowledge(decision)
    await teller.publish(game.tournament_id, f"standings after approval {row.id}")
    async with rt.db.read() as conn:
        locale = await locale_of_user(conn, game.judge_id)
    await teller.tell_decision(game.judge_id, locale, decision.approval, decision.game)
    return decision


async def _decide(
    rt: Runtime, row: ApprovalRow, game: GameRecord, actor: int, lowered: int | None
) -> Decision:
    """The decision, audited, in one transaction (raises ``AlreadyDecided``)."""
    async with rt.db.transaction() as conn:
        decided = await games.decide_approval(conn, row.id, decided_by=actor, lowered_to=lowered)
        after = await games.require_game(conn, game.id)
        await audit.audit(
            conn,
            action="approval.approve" if lowered is None else "approval.lower",
            entity="approval",
            entity_id=row.id,
            tournament_id=game.tournament_id,
            actor_id=actor,
            before=row,
            after=decided,
        )
        await rt.publisher.enqueue(conn, game.tournament_id)
    return Decision(decided, after, fresh=True)


async def _tell(rt: Runtime, teller: Teller, user_id: int, said: Phrase | Joined) -> None:
    """A notice in his own language (bot.services.notices)."""
    async with rt.db.read() as conn:
        notices = await notice_to(conn, user_id, said)
    for notice in notices:
        await teller.tell(notice)


# -- players added at a table ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TablePlayer:
    player: PlayerRow
    ask_chiefs: bool  # added now, pending: the chief judges are to confirm him


async def add_player_at_table(
    db: Database, *, tournament_id: int, nickname: str, actor: int
) -> TablePlayer | Refusal:
    """The player of that nickname, added to the roster if he is not on it: confirmed
    when a chief judge adds him, else pending the chief judge's confirmation."""
    async with db.transaction() as conn:
        existing = await players.find_player_by_nickname(conn, tournament_id, nickname)
        if existing is not None:
            return TablePlayer(existing, ask_chiefs=False)
        chief = await staff.staff_role(conn, tournament_id, actor) == CHIEF
        try:
            row = await players.add_player(
                conn,
                tournament_id,
                nickname,
                status="confirmed" if chief else "pending",
                decided_by=actor if chief else None,
            )
        except InvalidNickname:
            return Refusal(
                N_("This nickname can't be used: 1–{max} visible characters."),
                {"max": players.MAX_NICKNAME},
            )
        except NicknameTaken as exc:
            return Refusal(N_("The nickname {name} is taken."), {"name": exc.nickname})
        await audit.record(
            conn,
            "player.add",
            row.id,
            tournament_id,
            actor,
            after=row,
        )
    return TablePlayer(row, ask_chiefs=row.status == "pending")


async def ask_chiefs_to_confirm(
    rt: Runtime, teller: Teller, *, tournament_id: int, player_id: int, judge: int
) -> None:
    """The chief judges (but the judge himself) are asked to confirm a player the
    judge added at his table."""
    async with rt.db.read() as conn:
        row = await players.get_player(conn, player_id)
        t = await tournaments.get_tournament(conn, tournament_id)
        chiefs = await staff.list_staff(conn, tournament_id, role=CHIEF)
        known = await users.get_users(conn, [c.user_id for c in chiefs])
        profile = await users.get_user(conn, judge)
    if row is None or t is None:
        return
    judge_name = profile.first_name if profile else str(judge)
    for chief in chiefs:
        if chief.user_id == judge:
            continue
        locale = locale_for(known.get(chief.user_id))
        await teller.ask_to_confirm(chief.user_id, locale, judge_name, row, t.title)


async def decide_table_player(
    db: Database, *, player_id: int, actor: int, confirm: bool
) -> PlayerRow | Refusal:
    """The chief judge confirms or rejects a player added at a table; the player as he
    was before."""
    async with db.read() as conn:
        row = await players.get_player(conn, player_id)
        role = await staff.staff_role(conn, row.tournament_id, actor) if row else None
    if row is None:
        return NO_SUCH_PLAYER
    if role != CHIEF:
        return ONLY_CHIEF_CONFIRMS
    if row.status != "pending":
        return Refusal(N_("This was decided already."))
    try:
        async with db.transaction() as conn:
            if confirm:
                after = await players.confirm_player(conn, row.id, decided_by=actor)
            else:
                after = await players.reject_player(conn, row.id, decided_by=actor)
            await audit.audit(
                conn,
                action="player.confirm" if confirm else "player.reject",
                entity="player",
                entity_id=row.id,
                tournament_id=row.tournament_id,
                actor_id=actor,
                before=row,
                after=after,
            )
    except (NicknameTaken, UserAlreadyPlayer):
        return Refusal(N_("The nickname or account is taken meanwhile."), alert=True)
    except PlayerHasGames:
        return Refusal(N_("He has played games; annul them first."), alert=True)
    return row


__all__ = [
    "Decision",
    "Runtime",
    "TablePlayer",
    "Teller",
    "add_player_at_table",
    "annul_game",
    "ask_chiefs_to_confirm",
    "decide_approval",
    "decide_table_player",
]
