"""Playing a club evening (docs/club.md, "The evening"): the host marks who came, starts
the evening, has the next game's tables suggested and posted, and closes it.

Started, an evening is a tournament of kind ``evening`` in the club's group, so the
judge's card, the live protocol, the standings, the export and the career work on it
unchanged: the club's owner is its chief judge, the hosts its judges, the players
present its players. Each next game is one more round of its accepted seating plan,
so ``/game`` pre-fills the seats and the group and the players get the seating posts
as in a tournament. The evening has no distance of its own: the tournament's is the
most games anyone played (B of 8.6.1 from it), set at each game and at the close, so
``python -m scoring standings`` on its export gives the posted table.

Who may is checked before any of these runs, as for a tournament: the handlers' filters
(``handlers.club_filters``) let only the group's club's owner and hosts through and hand
over the club (``bot.services.clubs.club_and_role``); a use case takes that club.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.db import audit, clubs, evenings, games, players, staff, tournaments
from bot.db import evening_play as repo
from bot.db import seating as seating_db
from bot.db.clubs import HOST, OWNER, ClubRow
from bot.db.connection import Conn, Database, fetch_val
from bot.db.errors import NicknameTaken
from bot.db.evenings import EveningRow, Presence, SignupRow
from bot.db.players import PlayerRow
from bot.db.tournaments import TournamentRow
from bot.reads.stored_plans import StoredPlan, load_accepted
from bot.services import N_, Refusal
from bot.services.notices import FollowUp, Outbox
from bot.services.phrases import Phrase, Verbatim
from bot.services.players import check_nickname
from bot.services.seating import new_seed
from bot.services.seating_rounds import tell_seating
from bot.services.tournaments import chat_busy
from seating import Plan, Request, Round, SeatingError, Table, plan_to_dict
from seating.evening import History, suggest
from seating.quality import measure

NO_EVENING = Refusal(
    N_("The club has no evening to play. A host announces one with /evening.")
)
NOT_RUNNING = Refusal(
    N_("The evening has not started yet. A host starts it with /start_evening.")
)
ALREADY_RUNNING = Refusal(N_("The evening has started already: /next_game for the next game."))
OUT_OF_DATE = Refusal(N_("This list is out of date: send /present again."))
MIN_PLAYERS = 10


def too_few(present: int) -> Refusal:
    return Refusal(
        N_("{count} present; a game needs 10. Mark who came: /present, or /present NICKNAME."),
        {"count": present},
    )


def unfinished(round_no: int, tables: Sequence[int]) -> Refusal:
    return Refusal(
        N_("Game {round} is not entered yet (tables {tables}): enter it with /game first."),
        {"round": round_no, "tables": ", ".join(str(t) for t in tables)},
    )


@dataclass(frozen=True, slots=True)
class Attendance:
    """The evening's list as the host marks it."""

    club: ClubRow
    evening: EveningRow
    people: tuple[SignupRow, ...]

    @property
    def present(self) -> int:
        return sum(1 for a in self.people if a.present)


@dataclass(frozen=True, slots=True)
class Started:
    evening: EveningRow
    tournament: TournamentRow
    players: int
    follow_up: FollowUp


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The next game as suggested: not stored until the host accepts it."""

    evening: EveningRow
    tournament: TournamentRow
    game: Round
    seed: int
    follow_up: FollowUp | None = None  # set once accepted: the seating posts go out


@dataclass(frozen=True, slots=True)
class Closed:
    evening: EveningRow
    tournament: TournamentRow
    games: int
    follow_up: FollowUp


# -- attendance ----------------------------------------------------------------------------


async def _attendance(conn: Conn, club: ClubRow) -> Attendance | Refusal:
    evening = await repo.evening_to_play(conn, club.id)
    if evening is None:
        return NO_EVENING
    people = await repo.attendees(conn, evening.id)
    return Attendance(club, evening, tuple(people))


async def attendance(db: Database, club: ClubRow) -> Attendance | Refusal:
    """The list of the evening the host acts on (the running one, else the nearest)."""
    async with db.read() as conn:
        return await _attendance(conn, club)


def _next_presence(now: Presence | None, running: bool) -> Presence:
    """A tap: not marked or absent -> present; present -> left once the evening runs (a
    leaver keeps his games), else absent; left -> present (he came back)."""
    if now == "present":
        return "left" if running else "absent"
    return "present"


async def toggle(
    db: Database, club: ClubRow, user_id: int, evening_id: int, signup_id: int
) -> Attendance | Refusal:
    """The host ``user_id`` taps a name on the list."""
    async with db.transaction() as conn:
        found = await _attendance(conn, club)
        if isinstance(found, Refusal):
            return found
        person = next((a for a in found.people if a.id == signup_id), None)
        if found.evening.id != evening_id or person is None:
            return OUT_OF_DATE
        running = found.evening.status == "running"
        presence = _next_presence(person.presence, running)
        await repo.set_presence(conn, signup_id, presence)
        if running and presence == "present":
            await _player_for(conn, found.club, found.evening, person, user_id)
        before, after = {"presence": person.presence}, {"presence": presence}
        await _audit_signup(conn, "evening.presence", signup_id, found, user_id, before, after)
        again = await _attendance(conn, club)
    return again


async def _audit_signup(
    conn: Conn,
    action: str,
    signup_id: int,
    found: Attendance,
    user_id: int,
    before: Mapping[str, object] | None,
    after: Mapping[str, object],
) -> None:
    await audit.audit(
        conn,
        action=action,
        entity="evening_signup",
        entity_id=signup_id,
        tournament_id=found.evening.tournament_id,
        actor_id=user_id,
        before=before,
        after=after,
    )


async def add_latecomer(
    db: Database, club: ClubRow, user_id: int, nickname: str
) -> Attendance | Refusal:
    """``/present NICK``: one on the list (or who left) is marked present; anyone else
    joins the list at its end, present (and the running evening's players)."""
    name = check_nickname(nickname)
    if isinstance(name, Refusal):
        return name
    key = players.nickname_key(name)
    async with db.transaction() as conn:
        found = await _attendance(conn, club)
        if isinstance(found, Refusal):
            return found
        person = next((a for a in found.people if a.name_key == key), None)
        if person is None:
            signup_id = await repo.add_latecomer(
                conn, found.evening.id, name=name, name_key=key, added_by=user_id
            )
        else:
            signup_id = person.id
            await repo.set_presence(conn, signup_id, "present")
        if found.evening.status == "running":
            people = await repo.attendees(conn, found.evening.id)
            added = next(a for a in people if a.id == signup_id)
            await _player_for(conn, found.club, found.evening, added, user_id)
        await _audit_signup(
            conn, "evening.latecomer", signup_id, found, user_id, None, {"name": name}
        )
        return await _attendance(conn, club)


# -- the start -----------------------------------------------------------------------------


def evening_title(club: ClubRow, evening: EveningRow) -> str:
    """The tournament's title: the club's, and the evening's local date."""
    day = evening.starts_at.astimezone(ZoneInfo(club.timezone)).strftime("%d.%m.%Y")
    return f"{club.title} {day}"


async def _player_for(
    conn: Conn, club: ClubRow, evening: EveningRow, person: SignupRow, actor_id: int
) -> PlayerRow:
    """The evening tournament's player of a present person: his row if he has one, else
    a new confirmed player; a guest without an account is the person of the club's
    earlier player of his nickname, so his season adds up."""
    assert evening.tournament_id is not None
    if person.player_id is not None:
        found = await players.get_player(conn, person.player_id)
        if found is not None:
            return found
    existing = await players.find_player_by_nickname(conn, evening.tournament_id, person.name)
    if existing is not None and (existing.user_id is None or existing.user_id == person.user_id):
        row = existing
    else:
        try:
            row = await players.add_player(
                conn,
                evening.tournament_id,
                person.name,
                user_id=person.user_id,
                status="confirmed",
                decided_by=actor_id,
            )
        except NicknameTaken:  # an account's player of that name: the guest is someone else
            row = await players.add_player(
                conn,
                evening.tournament_id,
                f"{person.name} ({person.id})",
                user_id=person.user_id,
                status="confirmed",
                decided_by=actor_id,
            )
        if person.user_id is None:
            earlier = await repo.club_person(
                conn, club.id, players.nickname_key(row.nickname), evening.tournament_id
            )
            if earlier is not None:
                await repo.move_to_person(conn, row.id, earlier)
    await repo.set_player(conn, person.id, row.id)
    return row


async def start(
    db: Database, publisher: Outbox, club: ClubRow, user_id: int, *, now: datetime | None = None
) -> Started | Refusal:
    """Start the evening: a running tournament of kind ``evening`` in the club's group,
    the owner its chief judge, the hosts its judges, those present its players."""
    async with db.transaction() as conn:
        found = await _attendance(conn, club)
        if isinstance(found, Refusal):
            return found
        evening = found.evening
        if evening.status == "running":
            return ALREADY_RUNNING
        present = [a for a in found.people if a.present]
        if len(present) < MIN_PLAYERS:
            return too_few(len(present))
        busy = await tournaments.running_tournament_for_chat(conn, club.chat_id)
        if busy is not None:
            return chat_busy(busy)
        people = await clubs.list_staff(conn, club.id)
        owner = next((m.user_id for m in people if m.role == OWNER), user_id)
        tournament = await tournaments.create_tournament(
            conn,
            title=evening_title(club, evening),
            distance=1,
            created_by=owner,
            chat_id=club.chat_id,
            language=club.language if club.language in tournaments.LANGUAGES else "ru",
            timezone=club.timezone,
            kind="evening",
            now=now,
        )
        for member in people:
            if member.role == HOST and member.user_id != owner:
                await staff.add_staff(
                    conn, tournament.id, member.user_id, "judge", added_by=user_id
                )
        await repo.set_running(conn, evening.id, tournament.id, now)
        running = replace(evening, status="running", tournament_id=tournament.id)
        for person in present:
            await _player_for(conn, club, running, person, user_id)
        tournament = await tournaments.set_status(conn, tournament.id, "running", now=now)
        await publisher.enqueue(
            conn,
            tournament.id,
            note=Phrase(
                N_("The evening has started. Players: {count}. Good games!"),
                {"count": len(present)},
            ),
        )
        await audit.record(
            conn, "evening.start", evening.id, tournament.id, user_id,
            after={"tournament": tournament.id, "players": len(present)},
        )
    return Started(
        running, tournament, len(present), FollowUp(tournament_id=tournament.id, now=True)
    )


# -- the next game -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _State:
    club: ClubRow
    evening: EveningRow
    tournament: TournamentRow
    everyone: list[PlayerRow]
    present: list[str]  # nicknames of the players present, in the list's order
    accepted: StoredPlan | None
    history: list[tuple[tuple[str, ...], ...]]


async def _running(conn: Conn, club: ClubRow) -> tuple[Attendance, int] | Refusal:
    """The running evening's list and its tournament, or why not."""
    found = await _attendance(conn, club)
    if isinstance(found, Refusal):
        return found
    if found.evening.status != "running" or found.evening.tournament_id is None:
        return NOT_RUNNING
    return found, found.evening.tournament_id


async def _state(conn: Conn, club: ClubRow) -> _State | Refusal:
    running = await _running(conn, club)
    if isinstance(running, Refusal):
        return running
    found, tid = running
    evening = found.evening
    tournament = await tournaments.require_tournament(conn, tid)
    everyone = await players.list_players(conn, tournament.id, status="confirmed")
    names = {p.id: p.nickname for p in everyone}
    present = [
        names[a.player_id] for a in found.people if a.present and a.player_id in names
    ]
    accepted = await load_accepted(conn, tournament.id)
    saved: dict[int, dict[int, tuple[str, ...]]] = {}
    for game in await games.list_games(conn, tournament.id):
        saved.setdefault(game.round, {})[game.table_no] = tuple(
            names.get(s.player_id, str(s.player_id)) for s in game.seats
        )
    planned = {} if accepted is None else {r.round: r for r in accepted.plan.rounds}
    history: list[tuple[tuple[str, ...], ...]] = []
    for number in range(1, max([*planned, *saved], default=0) + 1):
        tables = {t.table: t.seats for t in planned[number].tables} if number in planned else {}
        missing = sorted(set(tables) - set(saved.get(number, {})))
        if missing:
            return unfinished(number, missing)
        tables.update(saved.get(number, {}))
        history.append(tuple(tables[t] for t in sorted(tables)))
    return _State(found.club, evening, tournament, everyone, present, accepted, history)


async def suggest_next(
    db: Database, club: ClubRow, seed: int | None = None
) -> Suggestion | Refusal:
    """The next game's tables from who is present now (``seating.evening``)."""
    async with db.read() as conn:
        state = await _state(conn, club)
    if isinstance(state, Refusal):
        return state
    return _suggestion(state, new_seed() if seed is None else seed)


def _suggestion(state: _State, seed: int) -> Suggestion | Refusal:
    if len(state.present) < MIN_PLAYERS:
        return too_few(len(state.present))
    try:
        game = suggest(state.present, History.of(state.history), seed=seed)
    except SeatingError as error:
        return Refusal(N_("The game can't be seated: {reason}"), {"reason": Verbatim(str(error))})
    return Suggestion(state.evening, state.tournament, game, seed)


async def accept_next(
    db: Database, club: ClubRow, user_id: int, round_no: int, seed: int
) -> Suggestion | Refusal:
    """Store the suggested game as the next round of the evening's plan; the group gets
    its seating and each player with an account his seat (the outbox)."""
    async with db.transaction() as conn:
        state = await _state(conn, club)
        if isinstance(state, Refusal):
            return state
        if len(state.history) + 1 != round_no:
            return Refusal(N_("This game was posted already: /next_game for the next one."))
        shown = _suggestion(state, seed)
        if isinstance(shown, Refusal):
            return shown
        rounds = (*_rounds(state.history), shown.game)
        everyone = state.everyone
        ids = [p.id for p in everyone]
        names = [p.nickname for p in everyone]
        tables = max(len(r.tables) for r in rounds)
        request = Request(players=tuple(names), games_per_player=1, tables=tables, seed=seed)
        plan = Plan(rounds=rounds, quality=measure(rounds, request))
        request_data = {
            "players": names,
            "games_per_player": 1,
            "tables": tables,
            "seed": seed,
            "evening": state.evening.id,
        }
        offer = await seating_db.add_offer(
            conn,
            state.tournament.id,
            request=request_data,
            player_ids=ids,
            plan=plan_to_dict(plan),
            base_plan_id=None if state.accepted is None else state.accepted.id,
            created_by=user_id,
        )
        row = await seating_db.accept_plan(conn, offer.id, accepted_by=user_id)
        new = StoredPlan(row, plan, dict(zip(names, ids, strict=True)))
        await tell_seating(conn, state.tournament.id, list(range(1, round_no)), state.accepted, new)
        await _set_distance(conn, state.tournament.id, rounds)
        await audit.audit(
            conn,
            action="evening.next_game",
            entity="seating_plan",
            entity_id=row.id,
            tournament_id=state.tournament.id,
            actor_id=user_id,
            after={"round": round_no, "seed": seed, "tables": len(shown.game.tables)},
        )
    return Suggestion(
        shown.evening, shown.tournament, shown.game, seed,
        FollowUp(tournament_id=state.tournament.id, now=True),
    )


def _rounds(history: Sequence[tuple[tuple[str, ...], ...]]) -> tuple[Round, ...]:
    return tuple(
        Round(round=n, tables=tuple(Table(t, seats) for t, seats in enumerate(games, start=1)))
        for n, games in enumerate(history, start=1)
    )


async def _set_distance(conn: Conn, tournament_id: int, rounds: Sequence[Round]) -> None:
    """The tournament's distance: the most games anyone plays in the evening (B of 8.6.1
    follows it), at least 1."""
    count: dict[str, int] = {}
    for round_ in rounds:
        for table in round_.tables:
            for name in table.seats:
                count[name] = count.get(name, 0) + 1
    most = max(count.values(), default=1)
    await tournaments.update_tournament(conn, tournament_id, distance=most)


# -- the close -----------------------------------------------------------------------------


async def close(
    db: Database, publisher: Outbox, club: ClubRow, user_id: int, *, now: datetime | None = None
) -> Closed | Refusal:
    """Close the evening: the tournament finishes with the distance its games played;
    the group gets the evening's table, text and picture (the outbox's final post)."""
    async with db.transaction() as conn:
        running = await _running(conn, club)
        if isinstance(running, Refusal):
            return running
        found, tid = running
        evening = found.evening
        played = await games.list_games(conn, tid)
        most = await fetch_val(
            conn,
            "SELECT coalesce(max(n), 1) FROM (SELECT count(*) AS n FROM game_seats s"
            " JOIN games g ON g.id = s.game_id WHERE g.tournament_id = ?"
            " AND g.status <> 'annulled' GROUP BY s.player_id)",
            (tid,),
        )
        await tournaments.update_tournament(conn, tid, distance=int(most))
        tournament = await tournaments.set_status(conn, tid, "finished", now=now)
        await evenings.set_status(conn, evening.id, "finished", now=now)
        await publisher.enqueue(
            conn,
            tid,
            note=Phrase(
                N_(
                    "The evening is over. Games played: {games}. Thank you for playing! "
                    "The table: /rating"
                ),
                {"games": len(played)},
            ),
            standings=True,
            final=True,
        )
        await audit.record(
            conn, "evening.close", evening.id, tid, user_id, after={"games": len(played)}
        )
        finished = await evenings.get_evening(conn, evening.id)
    assert finished is not None
    return Closed(finished, tournament, len(played), FollowUp(tournament_id=tid, now=True))


__all__ = [
    "Attendance",
    "Closed",
    "Started",
    "Suggestion",
    "accept_next",
    "add_latecomer",
    "attendance",
    "close",
    "start",
    "suggest_next",
    "toggle",
]
