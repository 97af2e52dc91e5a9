"""Invite links: a one-time judge invite, the players' reusable link, spending and
revoking them."""

from __future__ import annotations

from dataclasses import dataclass

from bot.db import audit, invites, staff, tournaments
from bot.db.connection import Conn, Database
from bot.db.errors import InviteInvalid
from bot.db.invites import InviteKind, IssuedInvite
from bot.db.tournaments import JUDGE, TournamentRow
from bot.services import N_, Refusal
from bot.services.notices import FollowUp, notice_to, person
from bot.services.phrases import Phrase, Title

INVITE_UNKNOWN = Refusal(N_("This invite link is not valid. Ask the chief judge for a new one."))
INVITE_USED = Refusal(
    N_("This invite link has been used already. Ask the chief judge for a new one.")
)
INVITE_REVOKED = Refusal(N_("This invite link was revoked. Ask the chief judge for a new one."))
NO_SUCH_INVITE = Refusal(N_("There is no such invite."))
_INVALID = {"used": INVITE_USED, "revoked": INVITE_REVOKED}


async def _create(
    conn: Conn, tournament_id: int, kind: InviteKind, chief_id: int
) -> IssuedInvite:
    issued = await invites.create_invite(conn, tournament_id, kind, created_by=chief_id)
    row = issued.row
    await audit.record(conn, "invite.create", row.ref, tournament_id, chief_id, after=row)
    return issued


async def judge_invite(db: Database, tournament: TournamentRow, chief_id: int) -> IssuedInvite:
    """A new one-time judge invite."""
    async with db.transaction() as conn:
        return await _create(conn, tournament.id, "judge", chief_id)


async def withdraw(db: Database, issued: IssuedInvite, chief_id: int) -> None:
    """Revoke an invite whose link could not be delivered: nobody ever saw it."""
    invite = issued.row
    async with db.transaction() as conn:
        if await invites.revoke_invite(conn, issued.token):
            after = await invites.get_invite(conn, issued.token)
            await audit.record(
                conn,
                "invite.revoke",
                invite.ref,
                invite.tournament_id,
                chief_id,
                before=invite,
                after=after,
            )


async def players_invite(db: Database, tournament: TournamentRow, chief_id: int) -> IssuedInvite:
    """A new players' link. Only digests are stored, so a link cannot be shown again:
    each one asked for is new, and those already posted stay valid until revoked."""
    async with db.transaction() as conn:
        return await _create(conn, tournament.id, "player", chief_id)


@dataclass(frozen=True, slots=True)
class Accepted:
    tournament: TournamentRow
    follow_up: FollowUp  # the chief judge who made the invite is told (the first time)


async def accept_judge_invite(db: Database, token: str, user_id: int) -> Accepted | Refusal:
    """Spend a judge invite for ``user_id``. The same user's invite again (a redelivered
    /start) changes nothing and tells nobody; the chief judge who made it is told, in
    his language."""
    async with db.transaction() as conn:
        invite = await invites.get_invite(conn, token)
        if invite is None or invite.kind != "judge":
            return INVITE_UNKNOWN
        tournament = await tournaments.require_tournament(conn, invite.tournament_id)
        current = await staff.staff_role(conn, tournament.id, user_id)
        title = Title(tournament.title)
        if tournament.status == "finished":
            return Refusal(N_("{title} is finished; it needs no more judges."), {"title": title})
        if current is not None and invite.used_by != user_id:
            # Already staff: the link stays unused, for someone else.
            return Refusal(N_("You are on the staff of {title} already."), {"title": title})
        try:
            used = await invites.use_invite(conn, token, user_id)
        except InviteInvalid as exc:
            return _INVALID.get(exc.reason, INVITE_UNKNOWN)
        if current is not None:
            return Accepted(tournament, FollowUp())
        await audit.record(
            conn, "invite.use", invite.ref, tournament.id, user_id, before=invite, after=used
        )
        row = await staff.add_staff(conn, tournament.id, user_id, JUDGE, added_by=invite.created_by)
        await audit.record(conn, "staff.add", user_id, tournament.id, user_id, after=row)
        accepted = Phrase(
            N_("{name} accepted your judge invite and is now a judge of {title}."),
            {"name": await person(conn, user_id), "title": title},
        )
        notices = await notice_to(conn, invite.created_by, accepted)
    return Accepted(tournament, FollowUp(notices))


async def revoke(db: Database, token: str, actor_id: int) -> Refusal | None:
    """Revoke a judge or player invite (its chief judge checked by the caller's filter):
    None, or why it can't be. Either way the link is dead now."""
    async with db.transaction() as conn:
        invite = await invites.get_invite(conn, token)
        if invite is None:
            return NO_SUCH_INVITE
        if not await invites.revoke_invite(conn, token):
            if invite.revoked_at is not None:
                return Refusal(N_("This invite link was revoked already."))
            return Refusal(
                N_(
                    "This invite link has been used already; remove the judge with /staff "
                    "instead."
                )
            )
        after = await invites.get_invite(conn, token)
        await audit.record(
            conn,
            "invite.revoke",
            invite.ref,
            invite.tournament_id,
            actor_id,
            before=invite,
            after=after,
        )
    return None
