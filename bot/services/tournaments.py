"""Tournaments: the group's tournament, creation, language, time zone, start and finish."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Literal

from bot.db import audit, games, players, protests, staff, stages, tournaments
from bot.db.connection import Conn, Database
from bot.db.errors import ChatBusy, InvalidTransition
from bot.db.tournaments import TournamentRow
from bot.services import N_, Refusal
from bot.services.notices import FollowUp, Outbox
from bot.services.phrases import Phrase, Title
from bot.services.refusals import NO_TOURNAMENT_HERE, OUT_OF_DATE
from bot.services.staff import StaffList, staff_list


async def chat_tournament(
    db: Database, chat_id: int, *, latest: bool = False
) -> TournamentRow | None:
    """The group's unfinished tournament; with ``latest``, else its latest one."""
    load = tournaments.current_for_chat if latest else tournaments.running_tournament_for_chat
    return await db.cached(("chat_tournament", chat_id, latest), partial(load, chat_id=chat_id))


def chat_busy(busy: TournamentRow) -> Refusal:
    return Refusal(
        N_(
            "This group already has an unfinished tournament, {title}. One group runs one "
            "tournament at a time: its chief judge finishes it first (/tournament)."
        ),
        {"title": Title(busy.title)},
    )


@dataclass(frozen=True, slots=True)
class NewTournament:
    title: str
    distance: int
    chat_id: int
    language: str
    timezone: str


async def create(db: Database, new: NewTournament, chief_id: int) -> TournamentRow | Refusal:
    """Create the group's tournament; its creator becomes its chief judge."""
    try:
        async with db.transaction() as conn:
            tournament = await tournaments.create_tournament(
                conn,
                title=new.title,
                distance=new.distance,
                created_by=chief_id,
                chat_id=new.chat_id,
                language=new.language,
                timezone=new.timezone,
            )
            tid = tournament.id
            await audit.record(conn, "tournament.create", tid, tid, chief_id, after=tournament)
            chief = await staff.get_staff(conn, tid, chief_id)
            await audit.record(conn, "staff.add", chief_id, tid, chief_id, after=chief)
    except ChatBusy as exc:
        async with db.read() as conn:
            busy = await tournaments.get_tournament(conn, exc.tournament_id)
        return chat_busy(busy) if busy else NO_TOURNAMENT_HERE
    return tournament


async def set_language(
    db: Database, tournament: TournamentRow, language: str, actor_id: int
) -> TournamentRow:
    """The language the tournament's group reads."""
    return await _change(db, tournament, "language", language, actor_id)


async def set_timezone(
    db: Database, tournament: TournamentRow, zone: str, actor_id: int
) -> TournamentRow:
    """The time zone the tournament's times are shown in (an IANA name, checked)."""
    return await _change(db, tournament, "timezone", zone, actor_id)


async def _change(
    db: Database,
    tournament: TournamentRow,
    setting: Literal["language", "timezone"],
    value: str,
    actor_id: int,
) -> TournamentRow:
    """One setting of the tournament changed, and audited when it really changed."""
    store = tournaments.set_language if setting == "language" else tournaments.set_timezone
    async with db.transaction() as conn:
        before = await tournaments.require_tournament(conn, tournament.id)
        after = await store(conn, tournament.id, value)
        old, new = getattr(before, setting), getattr(after, setting)
        if old != new:
            await audit.record(
                conn,
                "tournament." + setting,
                after.id,
                after.id,
                actor_id,
                before={setting: old},
                after={setting: new},
            )
    return after


@dataclass(frozen=True, slots=True)
class StatusChanged:
    tournament: TournamentRow
    follow_up: FollowUp  # the group is told


@dataclass(frozen=True, slots=True)
class Unsettled:
    """What finishing would leave undecided: the chief judge is asked again."""

    protests: list[tuple[int, str]]  # open protests (8.8): (protest id, game code)
    approvals: list[str]  # codes of games whose judge's points await approval (D7)
    short: list[tuple[str, int]]  # confirmed players short of the distance: (nickname, games)
    distance: int = 0  # the distance they are short of: the current stage's (D14)

    def __bool__(self) -> bool:
        return bool(self.protests or self.approvals or self.short)


async def _unsettled(conn: Conn, tournament: TournamentRow) -> Unsettled:
    """Games count here as they were played (pending or not, not annulled)."""
    played = await games.list_games(conn, tournament.id, include_annulled=True)
    code = {g.id: g.code for g in played}
    open_ = [(p.id, code[p.game_id]) for p in await protests.open_protests(conn, tournament.id)]
    counted = [g for g in played if g.status != "annulled"]
    roster = await players.list_players(conn, tournament.id, status="confirmed")
    # The distance that ends now is the current stage's, over its own games and its
    # entrants (D13, D14); without stages, the tournament's over all its games.
    distance = tournament.distance
    current = stages.current_stage(await stages.list_stages(conn, tournament.id))
    if current is not None:
        distance = current.games_per_player
        stage_of = await stages.game_stages(conn, tournament.id)
        counted_here = [g for g in counted if stage_of.get(g.id, 1) == current.number]
        if current.entrants is not None:
            entrants = {e.player_id for e in await stages.entrants_of(conn, current.id)}
            roster = [p for p in roster if p.id in entrants]
    else:
        counted_here = counted
    games_of: Counter[int] = Counter(s.player_id for g in counted_here for s in g.seats)
    short = sorted(  # the furthest from the distance first
        ((p.nickname, games_of[p.id]) for p in roster if games_of[p.id] < distance),
        key=lambda item: item[1],
    )
    return Unsettled(open_, [g.code for g in counted if g.status == "pending"], short, distance)


async def unsettled(db: Database, tournament_id: int) -> Unsettled:
    async with db.read() as conn:
        return await _unsettled(conn, await tournaments.require_tournament(conn, tournament_id))


async def set_status(
    db: Database,
    publisher: Outbox,
    tournament: TournamentRow,
    wanted: Literal["running", "finished"],
    actor_id: int,
    *,
    anyway: bool = False,
) -> StatusChanged | Unsettled | Refusal:
    """Start or finish the tournament (forward only); the group is told. Finishing
    with protests open, points awaiting approval or players short of the distance
    returns them instead, unless ``anyway`` (the chief judge saw them and confirmed)."""
    if tournament.status in (wanted, "finished"):
        return OUT_OF_DATE
    try:
        async with db.transaction() as conn:
            before = await tournaments.require_tournament(conn, tournament.id)
            if wanted == "finished" and not anyway:
                left = await _unsettled(conn, before)
                if left:
                    return left
            after = await tournaments.set_status(conn, tournament.id, wanted)
            if wanted == "running":
                worded = N_("Tournament {title} has started. Good games!")
            else:
                worded = N_("Tournament {title} is finished. The final standings: /rating")
            note = Phrase(worded, {"title": Title(after.title)})
            # Every stage ends with the tournament (D16), a hidden one shown (D17), and
            # the standings' shared places now wait for the lot: the final standings say
            # so. With stages the group gets the final standings, text and picture, the
            # text pinned: through the outbox, so a restart posts them once.
            staged = False
            if wanted == "finished":
                staged = bool(await stages.list_stages(conn, tournament.id))
                await stages.close_all(conn, tournament.id)
            await publisher.enqueue(
                conn, tournament.id, note=note, standings=wanted == "finished", final=staged
            )
            await audit.record(
                conn, "tournament.status", after.id, after.id, actor_id, before=before, after=after
            )
    except InvalidTransition:
        return OUT_OF_DATE
    return StatusChanged(after, FollowUp(tournament_id=after.id, now=True))


@dataclass(frozen=True, slots=True)
class Overview:
    """What the tournament's card shows."""

    staff: StaffList
    confirmed: int  # players
    pending: int  # applications waiting for the chief judge
    saved: int  # games

    @property
    def tournament(self) -> TournamentRow:
        return self.staff.tournament


async def overview(db: Database, tournament_id: int) -> Overview:
    async with db.read() as conn:
        members = await staff_list(db, tournament_id)
        listed = await players.list_players(conn, tournament_id, status=("confirmed", "pending"))
        saved = await games.count_games(conn, tournament_id)
    confirmed = sum(1 for p in listed if p.status == "confirmed")
    return Overview(members, confirmed, len(listed) - confirmed, saved)
