"""The staff of a tournament: who holds which role (read through the one cache,
``Database.cached``), judges added by a reply and removed."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, Protocol

from bot.db import audit, games, invites, players, protests, staff, tournaments, users
from bot.db.connection import Database
from bot.db.errors import LastChief
from bot.db.staff import StaffRow
from bot.db.tournaments import CHIEF, JUDGE, StaffRole, StaffTournament, TournamentRow
from bot.services import N_, Refusal
from bot.services.notices import FollowUp, notice_to, people, person
from bot.services.phrases import Person, Phrase, Title

# -- who holds which role ---------------------------------------------------------------


def allows(role: StaffRole | None, need: StaffRole | None) -> bool:
    """Whether ``role`` may do what needs ``need`` (None: anyone on the staff)."""
    return role is not None and (need is None or role == need)


async def tournament_and_role(
    db: Database, tournament_id: int, user_id: int
) -> tuple[TournamentRow | None, StaffRole | None]:
    return await db.cached(
        ("tournament_and_role", tournament_id, user_id),
        partial(tournaments.tournament_and_role, tournament_id=tournament_id, user_id=user_id),
    )


async def staff_tournaments(
    db: Database, user_id: int, *, finished: bool = False
) -> list[StaffTournament]:
    """The tournaments ``user_id`` is on the staff of, newest first (unfinished ones only
    unless ``finished``)."""
    return await db.cached(
        ("staff_tournaments", user_id, finished),
        partial(tournaments.tournaments_for_staff, user_id=user_id, include_finished=finished),
    )


# What a button or a command names, from which its tournament is found.
Named = Literal["tournament", "player", "protest", "invite", "game", "approval"]


@dataclass(frozen=True, slots=True)
class Located:
    """The tournament a button names, the sender's role in it, and what was read on
    the way (``player``, ``protest``, ``game``, ``invite``) for the handler."""

    tournament: TournamentRow | None = None
    role: StaffRole | None = None
    extra: dict[str, Any] = field(default_factory=dict)


async def locate(db: Database, named: Named, key: int | str, user_id: int) -> Located:
    """The tournament of the ``named`` row ``key`` (an id; an invite's token) and
    ``user_id``'s role in it; an empty Located when there is no such row."""
    extra: dict[str, Any] = {}
    tournament_id: int | None
    async with db.read() as conn:
        if named == "invite":
            invite = extra["invite"] = await invites.get_invite(conn, str(key))
            tournament_id = None if invite is None else invite.tournament_id
        elif named == "player":
            found = extra["player"] = await players.get_player(conn, int(key))
            tournament_id = None if found is None else found.tournament_id
        elif named == "protest":
            protest = extra["protest"] = await protests.get_protest(conn, int(key))
            game = None if protest is None else await games.get_game(conn, protest.game_id)
            extra["game"] = game
            tournament_id = None if game is None else game.tournament_id
        elif named == "game":
            game = extra["game"] = await games.get_game(conn, int(key))
            tournament_id = None if game is None else game.tournament_id
        elif named == "approval":
            approval = await games.get_approval(conn, int(key))
            game = None if approval is None else await games.get_game(conn, approval.game_id)
            tournament_id = None if game is None else game.tournament_id
        else:
            tournament_id = int(key)
    if tournament_id is None:
        return Located()
    tournament, role = await tournament_and_role(db, tournament_id, user_id)
    return Located(tournament, role, extra)


@dataclass(frozen=True, slots=True)
class StaffList:
    tournament: TournamentRow
    members: list[StaffRow]  # chiefs first
    names: dict[int, Person]  # user id -> as the staff list shows him

    def of(self, role: StaffRole) -> list[StaffRow]:
        return [m for m in self.members if m.role == role]

    def is_chief(self, user_id: int) -> bool:
        return any(m.user_id == user_id for m in self.of(CHIEF))


async def staff_list(db: Database, tournament_id: int) -> StaffList:
    async with db.read() as conn:
        tournament = await tournaments.require_tournament(conn, tournament_id)
        members = await staff.list_staff(conn, tournament_id)
        names = await people(conn, [m.user_id for m in members])
    return StaffList(tournament, members, names)


# -- adding and removing ----------------------------------------------------------------


class Profile(Protocol):
    """Someone as a Telegram update shows him (an aiogram ``User``)."""

    @property
    def id(self) -> int: ...

    @property
    def first_name(self) -> str: ...

    @property
    def last_name(self) -> str | None: ...

    @property
    def username(self) -> str | None: ...

    @property
    def language_code(self) -> str | None: ...


async def add_judge(
    db: Database, tournament: TournamentRow, someone: Profile, actor_id: int
) -> Person | Refusal:
    """Make ``someone`` (pointed at by a reply) a judge: his name, or a Refusal when he
    is on the staff already."""
    async with db.transaction() as conn:
        # Recorded for his name in lists and notices (he may never have written to us).
        await users.upsert_user(
            conn,
            someone.id,
            first_name=someone.first_name,
            username=someone.username,
            language_code=someone.language_code,
        )
        name = await person(conn, someone.id)
        current = await staff.staff_role(conn, tournament.id, someone.id)
        if current is None:
            row = await staff.add_staff(conn, tournament.id, someone.id, JUDGE, added_by=actor_id)
            await audit.record(conn, "staff.add", someone.id, tournament.id, actor_id, after=row)
    if current == CHIEF:
        return Refusal(N_("{name} is the chief judge already."), {"name": name})
    if current == JUDGE:
        return Refusal(N_("{name} is a judge already."), {"name": name})
    return name


@dataclass(frozen=True, slots=True)
class Removed:
    name: Person  # as the staff list showed him
    follow_up: FollowUp  # he is told


async def remove_judge(
    db: Database, tournament: TournamentRow, target: int, actor_id: int
) -> Removed | Refusal:
    """Take ``target`` off the staff; he is told, in his language."""
    async with db.transaction() as conn:
        before = await staff.get_staff(conn, tournament.id, target)
        name = await person(conn, target)
        if before is None:
            return Refusal(N_("{name} is not on the staff."), {"name": name})
        try:
            await staff.remove_staff(conn, tournament.id, target)
        except LastChief:
            return Refusal(
                N_("The tournament can't be left without a chief judge; {name} stays."),
                {"name": name},
            )
        await audit.record(conn, "staff.remove", target, tournament.id, actor_id, before=before)
        told = Phrase(
            N_("You are no longer a judge of {title}."), {"title": Title(tournament.title)}
        )
        notices = await notice_to(conn, target, told)
    return Removed(name, FollowUp(notices))
