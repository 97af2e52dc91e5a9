"""Players: applications (/join, the players' link), the chief judge's decisions on them
and on claims of roster players, and the pasted roster.

A nickname belongs to one account: a nickname linked to someone else is refused, and an
unlinked roster nickname is only linked to whoever claims it after the chief judge
confirms it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.db import audit, games, invites, players, staff, tournaments
from bot.db.connection import Conn, Database
from bot.db.errors import InvalidNickname, NicknameTaken, PlayerHasGames, UserAlreadyPlayer
from bot.db.players import MAX_NICKNAME, PlayerRow
from bot.db.tournaments import CHIEF, TournamentRow
from bot.reads.stored_plans import load_accepted
from bot.services import N_, Refusal
from bot.services.invites import INVITE_REVOKED, INVITE_UNKNOWN
from bot.services.notices import FollowUp, Notice, notice_to, people, person
from bot.services.phrases import Nick, Person, Phrase, Title, Verbatim
from bot.services.refusals import ONLY_CHIEF, OUT_OF_DATE, REGISTRATION_CLOSED
from bot.services.staff import staff_tournaments, tournament_and_role


@dataclass(frozen=True, slots=True)
class TryAgain(Refusal):
    """Refused, but the conversation goes on: the user may send another nickname."""


def check_nickname(raw: str) -> str | Refusal:
    """The nickname as stored (trimmed, 1–32 characters), or why it can't be one."""
    try:
        return players.normalize_nickname(raw)
    except InvalidNickname:
        shown = " ".join(raw.split())
    if len(shown) > MAX_NICKNAME:
        return Refusal(
            N_("A nickname is 1–{max} characters; «{nick}…» has {length}."),
            {"max": MAX_NICKNAME, "nick": Verbatim(shown[:MAX_NICKNAME]), "length": len(shown)},
        )
    if shown:
        return Refusal(
            N_("This nickname can't be used: 1–{max} visible characters."), {"max": MAX_NICKNAME}
        )
    return Refusal(N_("A nickname can't be empty."))


def already_registered(mine: PlayerRow, tournament: TournamentRow) -> Refusal:
    params = {"title": Title(tournament.title), "nick": Nick(mine.nickname)}
    if mine.status == "confirmed":
        return Refusal(N_("You are registered in {title} as {nick} already."), params)
    return Refusal(
        N_("Your application as {nick} to {title} is waiting for the chief judge."), params
    )


async def registrations(db: Database, user_id: int) -> list[tuple[TournamentRow, PlayerRow]]:
    """The user's players (and applications) in unfinished tournaments."""
    found = []
    async with db.read() as conn:
        for player in await players.players_of_user(conn, user_id):
            tournament = await tournaments.get_tournament(conn, player.tournament_id)
            if tournament is not None and tournament.status != "finished":
                found.append((tournament, player))
    return found


# -- applying ---------------------------------------------------------------------------


async def joining_by_invite(db: Database, token: str, user_id: int) -> TournamentRow | Refusal:
    """The tournament a players' link opens an application to (nothing is stored yet)."""
    async with db.read() as conn:
        invite = await invites.get_invite(conn, token)
        tournament = (
            None if invite is None else await tournaments.get_tournament(conn, invite.tournament_id)
        )
        mine = (
            None
            if tournament is None
            else await players.player_for_user(conn, tournament.id, user_id)
        )
    if invite is None or invite.kind != "player" or tournament is None:
        return INVITE_UNKNOWN
    if not invite.usable:
        return INVITE_REVOKED
    if tournament.status == "finished":
        return REGISTRATION_CLOSED
    if mine is not None:
        return already_registered(mine, tournament)
    return tournament


@dataclass(frozen=True, slots=True)
class Application:
    """What the chief judges now decide: a new player, or a claim of a roster player."""

    tournament: TournamentRow
    player: PlayerRow  # the new application, or the roster player claimed
    claim: bool
    request: Phrase  # what the chief judges are asked
    follow_up: FollowUp  # the request, to every chief judge


async def request_text(
    conn: Conn, tournament: TournamentRow, nickname: str, user_id: int, *, claim: bool
) -> Phrase:
    """What the chief judge is asked (rebuilt from the database when he decides)."""
    return _request(tournament, nickname, await person(conn, user_id), claim=claim)


def _request(tournament: TournamentRow, nickname: str, name: Person, *, claim: bool) -> Phrase:
    params = {"name": name, "nick": Nick(nickname), "title": Title(tournament.title)}
    if claim:
        return Phrase(
            N_("{name} says the roster player {nick} of {title} is them. Link the account?"),
            params,
        )
    return Phrase(N_("New player for {title}: {nick}, {name}."), params)


async def apply(
    db: Database,
    user_id: int,
    tournament_id: int,
    shown: str,
    *,
    invite_token: str | None = None,
) -> Application | Refusal:
    """Apply as ``shown`` (a checked nickname): a new application, or the claim of the
    unlinked roster player of that nickname. Each chief judge is asked in his own
    language; ``request`` is said in the caller's (the group's, where no chief can be
    told)."""
    async with db.transaction() as conn:
        tournament = await tournaments.get_tournament(conn, tournament_id)
        if tournament is None or tournament.status == "finished":
            return REGISTRATION_CLOSED
        refusal = await _cannot_apply(conn, tournament, user_id, invite_token)
        if refusal is not None:
            return refusal
        found = await players.find_player_by_nickname(conn, tournament_id, shown)
        if found is not None and found.user_id is not None:
            return TryAgain(
                N_(
                    "The nickname {nick} is taken by another player of {title}. "
                    "Choose another one."
                ),
                {"nick": Nick(found.nickname), "title": Title(tournament.title)},
            )
        player = found or await _add_application(conn, tournament_id, user_id, shown, invite_token)
        if player is None:
            return TryAgain(N_("Someone was quicker. Send /join again."))
        claim = found is not None
        asked = _request(tournament, player.nickname, await person(conn, user_id), claim=claim)
        notices: tuple[Notice, ...] = ()
        for chief in await staff.list_staff(conn, tournament_id, role=CHIEF):
            notices += await notice_to(conn, chief.user_id, asked)
    return Application(tournament, player, claim, asked, FollowUp(notices))


async def _cannot_apply(
    conn: Conn, tournament: TournamentRow, user_id: int, invite_token: str | None
) -> Refusal | None:
    if invite_token is not None:
        invite = await invites.get_invite(conn, invite_token)
        if invite is None or not invite.usable or invite.tournament_id != tournament.id:
            return INVITE_REVOKED
    mine = await players.player_for_user(conn, tournament.id, user_id)
    return None if mine is None else already_registered(mine, tournament)


async def _add_application(
    conn: Conn, tournament_id: int, user_id: int, shown: str, invite_token: str | None
) -> PlayerRow | None:
    """A new application (None: someone was quicker), with the invite it spent."""
    try:
        player = await players.add_player(conn, tournament_id, shown, user_id=user_id)
    except (NicknameTaken, UserAlreadyPlayer):
        return None
    await audit.record(conn, "player.add", player.id, tournament_id, user_id, after=player)
    if invite_token is not None:
        after = {"user_id": user_id, "player_id": player.id}
        await audit.record(conn, "invite.use", invite_token, tournament_id, user_id, after=after)
    return player


# -- the chief judge decides ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decided:
    """How a request stands after the chief judge's tap."""

    player: PlayerRow
    answer: Phrase  # the tap's answer (shown plain)
    line: Phrase  # under the request: how it was decided
    changed: bool  # False: nothing changed (decided already, or can't be)
    follow_up: FollowUp = field(default_factory=FollowUp)


def decided_text(player: PlayerRow, applicant: Person | None = None) -> Phrase:
    """The decision, naming who applied when an account did."""
    params: dict[str, object] = {"nick": Nick(player.nickname)}
    if applicant is None:
        if player.status == "confirmed":
            return Phrase(N_("✅ {nick} is confirmed."), params)
        return Phrase(N_("❌ {nick} is rejected."), params)
    params["name"] = applicant
    if player.status == "confirmed":
        return Phrase(N_("✅ {name} confirmed as {nick}."), params)
    return Phrase(N_("❌ {name}: the application as {nick} is rejected."), params)


async def _decision_line(conn: Conn, player: PlayerRow) -> Phrase:
    """``decided_text`` naming who applied as ``player`` (nobody for a roster line)."""
    applicant = None if player.user_id is None else await person(conn, player.user_id)
    return decided_text(player, applicant)


async def decide_application(
    db: Database,
    player: PlayerRow,
    tournament: TournamentRow,
    *,
    confirm: bool,
    actor_id: int,
) -> Decided | Refusal:
    """Confirm or reject a pending application; the player is told, in his language."""
    if tournament.status == "finished":
        return OUT_OF_DATE
    async with db.transaction() as conn:
        before = await players.require_player(conn, player.id)
        if before.status != "pending":
            line = await _decision_line(conn, before)
            why = Refusal(N_("Decided already: {status}"), {"status": line})
            return Decided(before, why, line, changed=False)
        decided = await _decide(conn, before, confirm, actor_id)
        if isinstance(decided, Refusal):
            return Decided(before, decided, await _decision_line(conn, before), False)
        line = await _decision_line(conn, decided)
        notices = await notice_to(conn, decided.user_id, _told_decision(decided, tournament))
    return Decided(decided, line, line, changed=True, follow_up=FollowUp(notices))


async def _decide(
    conn: Conn, before: PlayerRow, confirm: bool, actor_id: int
) -> PlayerRow | Refusal:
    try:
        if confirm:
            decided = await players.confirm_player(conn, before.id, decided_by=actor_id)
        else:
            decided = await players.reject_player(conn, before.id, decided_by=actor_id)
    except (PlayerHasGames, NicknameTaken, UserAlreadyPlayer):
        return Refusal(N_("This can't be changed any more."))
    action = "player.confirm" if confirm else "player.reject"
    await audit.record(
        conn, action, before.id, before.tournament_id, actor_id, before=before, after=decided
    )
    return decided


def _told_decision(player: PlayerRow, tournament: TournamentRow) -> Phrase:
    if player.status == "confirmed":
        note = N_("You are in: {nick} is confirmed for {title}.")
    else:
        note = N_("Your application as {nick} to {title} was rejected by the chief judge.")
    return Phrase(note, {"nick": Nick(player.nickname), "title": Title(tournament.title)})


def _told_claim(player: PlayerRow, tournament: TournamentRow, *, linked: bool) -> Phrase:
    if linked:
        note = N_("You are in: {nick} of {title} is now your account.")
    else:
        note = N_("The chief judge did not confirm that you are {nick} in {title}.")
    return Phrase(note, {"nick": Nick(player.nickname), "title": Title(tournament.title)})


async def decide_claim(
    db: Database,
    player: PlayerRow,
    tournament: TournamentRow,
    *,
    claimant: int,
    link: bool,
    actor_id: int,
) -> Decided | Refusal:
    """Link the roster player to the account that claimed him, or not; the claimant is
    told, in his language."""
    if tournament.status == "finished":
        return OUT_OF_DATE
    if not link:
        async with db.read() as conn:
            told = _told_claim(player, tournament, linked=False)
            notices = await notice_to(conn, claimant, told)
        line = Phrase(N_("❌ Not linked to {nick}."), {"nick": Nick(player.nickname)})
        return Decided(player, Phrase(N_("Not linked.")), line, False, FollowUp(notices))
    async with db.transaction() as conn:
        linked = await _link(conn, player.id, claimant, actor_id)
        if isinstance(linked, Refusal):
            return Decided(player, linked, linked, changed=False)
        notices = await notice_to(conn, claimant, _told_claim(linked, tournament, linked=True))
    line = Phrase(N_("✅ Linked to {nick}."), {"nick": Nick(linked.nickname)})
    return Decided(linked, Phrase(N_("Linked.")), line, True, FollowUp(notices))


async def _link(conn: Conn, player_id: int, claimant: int, actor_id: int) -> PlayerRow | Refusal:
    before = await players.require_player(conn, player_id)
    if before.status == "rejected":
        return Refusal(N_("This roster player was removed."))
    if before.user_id == claimant:
        return Refusal(N_("Linked already."))
    if before.user_id is not None:
        return Refusal(N_("This nickname is linked to another account already."))
    try:
        linked = await players.link_player(conn, player_id, claimant)
    except UserAlreadyPlayer as exc:
        other = await players.require_player(conn, exc.player_id)
        return Refusal(
            N_("That account plays in this tournament as {nick} already."),
            {"nick": Verbatim(other.nickname)},
        )
    await audit.record(
        conn, "player.link", player_id, before.tournament_id, actor_id, before=before, after=linked
    )
    return linked


async def applications(
    db: Database, tournament_id: int
) -> tuple[list[PlayerRow], dict[int, Person]]:
    """The applications waiting for the chief judge, and who sent them."""
    async with db.read() as conn:
        pending = await players.list_players(conn, tournament_id, status="pending")
        names = await people(conn, [p.user_id for p in pending if p.user_id is not None])
    return pending, names


async def request_of(
    db: Database, tournament: TournamentRow, nickname: str, user_id: int, *, claim: bool
) -> Phrase:
    async with db.read() as conn:
        return await request_text(conn, tournament, nickname, user_id, claim=claim)


# -- the roster -------------------------------------------------------------------------


@dataclass
class RosterReport:
    tournament: TournamentRow
    created: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    bad: list[tuple[int, Refusal]] = field(default_factory=list)  # (line number, why)


async def import_roster(
    db: Database, tournament_id: int, lines: list[str], actor_id: int
) -> RosterReport | Refusal:
    """A confirmed, unlinked player for every good new line (all good lines or nothing);
    duplicates and bad lines are skipped. The chief judge is checked again here: the
    lines come in a conversation, after the command."""
    async with db.transaction() as conn:
        tournament = await tournaments.get_tournament(conn, tournament_id)
        role = await staff.staff_role(conn, tournament_id, actor_id)
        if tournament is None or tournament.status == "finished":
            return REGISTRATION_CLOSED
        if role != CHIEF:
            return ONLY_CHIEF
        report = RosterReport(tournament)
        await _import(conn, report, lines, actor_id)
        # A bad line's reason as its message id and parameters, in no reader's language.
        bad = [(number, why.msgid, why.params) for number, why in report.bad]
        after = {"created": report.created, "duplicates": report.duplicates, "bad": bad}
        await audit.audit(
            conn,
            action="roster.import",
            entity="tournament",
            entity_id=tournament.id,
            tournament_id=tournament.id,
            actor_id=actor_id,
            after=after,
        )
    return report


async def _import(conn: Conn, report: RosterReport, lines: list[str], actor_id: int) -> None:
    tid = report.tournament.id
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        shown = check_nickname(line)
        if isinstance(shown, Refusal):
            report.bad.append((number, shown))
            continue
        key = players.nickname_key(shown)
        if key in seen or await players.find_player_by_nickname(conn, tid, shown):
            report.duplicates.append(shown)
            continue
        seen.add(key)
        player = await players.add_player(
            conn, tid, shown, status="confirmed", decided_by=actor_id
        )
        await audit.record(conn, "player.add", player.id, tid, actor_id, after=player)
        report.created.append(player.nickname)


async def is_member(db: Database, tournament_id: int, user_id: int) -> bool:
    """Whether ``user_id`` plays in the tournament or is on its staff."""
    _tournament, role = await tournament_and_role(db, tournament_id, user_id)
    if role is not None:
        return True
    async with db.read() as conn:
        return await players.player_for_user(conn, tournament_id, user_id) is not None


async def tournaments_of(db: Database, user_id: int) -> list[TournamentRow]:
    """The unfinished tournaments the user plays or judges, else his latest one; newest
    first."""
    found: dict[int, TournamentRow] = {}
    async with db.read() as conn:
        for player in await players.players_of_user(conn, user_id):
            tournament = await tournaments.get_tournament(conn, player.tournament_id)
            if tournament is not None:
                found[tournament.id] = tournament
    for row in await staff_tournaments(db, user_id, finished=True):
        found[row.tournament.id] = row.tournament
    ordered = sorted(found.values(), key=lambda t: t.id, reverse=True)
    return [t for t in ordered if t.status != "finished"] or ordered[:1]


# -- withdrawing a player ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """A player the chief judge withdrew: his games stay, he plays no more."""

    tournament: TournamentRow
    player: PlayerRow
    games: int  # games he played (they stay in the standings)
    planned: bool  # the accepted seating plan still seats him in a round to play


async def withdraw(
    db: Database, tournament_id: int, nickname: str, actor_id: int
) -> Withdrawn | Refusal:
    """Withdraw the confirmed player ``nickname``: kept in the games he played, left out
    of seating plans and the judge's card from now on; audited as ``player.withdraw``.
    The chief judge is checked again here (the command names a player by text)."""
    async with db.transaction() as conn:
        tournament = await tournaments.get_tournament(conn, tournament_id)
        if tournament is None or tournament.status == "finished":
            return OUT_OF_DATE
        if await staff.staff_role(conn, tournament_id, actor_id) != CHIEF:
            return ONLY_CHIEF
        before = await players.find_player_by_nickname(conn, tournament_id, nickname)
        params: dict[str, object] = {"nick": Nick(nickname), "title": Title(tournament.title)}
        if before is None:
            return Refusal(N_("{title} has no player {nick}."), params)
        params["nick"] = Nick(before.nickname)
        if before.status != "confirmed":
            return Refusal(
                N_("{nick} is not confirmed: reject the application in /tournament instead."),
                params,
            )
        if before.withdrawn_at is not None:
            return Refusal(N_("{nick} is withdrawn already."), params)
        after = await players.withdraw_player(conn, before.id, withdrawn_by=actor_id)
        await audit.record(
            conn, "player.withdraw", before.id, tournament_id, actor_id, before=before, after=after
        )
        played = await games.games_of_player(conn, before.id)
        planned = await _planned_later(conn, tournament_id, before.id, {g.round for g in played})
    return Withdrawn(tournament, after, len(played), planned)


async def _planned_later(conn: Conn, tournament_id: int, player_id: int, played: set[int]) -> bool:
    """Whether the accepted seating plan seats the player in a round he hasn't played."""
    stored = await load_accepted(conn, tournament_id)
    if stored is None:
        return False
    shape = {number for _game, number, _table in await games.tables_by_round(conn, tournament_id)}
    rounds = {r.round for r in stored.plan.rounds} - shape - played
    return bool(stored.seats_by_player(rounds).get(player_id))
