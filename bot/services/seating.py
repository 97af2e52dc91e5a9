"""Seating plans (seating-contract.md): the chief judge's ``/seating`` use cases, and
the accepted plan for whoever needs it (the judge's card, the publisher).

A plan is made for the tournament's confirmed roster (names are nicknames, in the
roster's order), ``games_per_player`` = its distance, and the tables the chief judge
chose. Rounds already played are kept exactly as played: every round with a saved
game is a fixed round of the request, its seats taken from the stored games (the
tables of a round still being played come from the accepted plan). So making a plan
after round 1 is the re-plan of the remaining rounds, e.g. after a player dropped out
or was replaced.

The generator is CPU-bound (seconds for a big tournament): it runs in a worker
thread, outside any transaction. An offer is stored (``bot.db.seating``) so that the
chief judge can accept exactly what he saw; accepting checks that nothing it was made
from changed meanwhile (the roster, the saved games, the accepted plan).

Before each round the group gets its seating and every linked player his seat: round 1
when a plan is accepted before any game, round r + 1 when a save completes round r
(``round_saved``), what changed when a re-plan changes an announced round. The rows go
into the outbox (``bot.db.outbox``) in the transaction of the accept or the save.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

import seating
from bot.db import games as games_db
from bot.db import outbox
from bot.db import players as players_db
from bot.db import seating as seating_db
from bot.db import tournaments as tournaments_db
from bot.db.audit import audit
from bot.db.connection import Conn, Database
from bot.db.games import GameRecord
from bot.db.players import PlayerRow
from bot.db.seating import SeatingPlanRow
from bot.db.tournaments import CHIEF, TournamentRow
from bot.services import N_, Refusal
from seating import Plan, Quality, Request, Round, SeatingError, Table

SEATS = 10
TIME_LIMIT = 20.0  # seconds the generator may search at most (the contract's default)
MAX_SEED = 2**31 - 1

NO_TOURNAMENT = Refusal(N_("This tournament no longer exists."))
ONLY_CHIEF = Refusal(
    N_("Only the chief judge of this tournament makes the seating plan."), alert=True
)
FINISHED = Refusal(N_("The tournament is finished: its seating plan can't change any more."))
STALE_OFFER = Refusal(
    N_("This plan is out of date: a newer one was made, or it was cancelled. Send /seating again.")
)
ANOTHER_ACCEPTED = Refusal(
    N_("Another plan was accepted meanwhile; this one was not saved. Send /seating to see it."),
    alert=True,
)
ALREADY_ACCEPTED = Refusal(N_("This plan is accepted already."))
CHANGED = Refusal(
    N_(
        "The roster or the saved games changed since this plan was made, so it was not "
        "saved. Tap 🔄 Regenerate for a plan of the current roster."
    ),
    alert=True,
)


def too_few(players: int) -> Refusal:
    return Refusal(
        N_(
            "Confirmed players: {players}. A table seats 10: confirm at least 10 players, "
            "then send /seating again."
        ),
        {"players": players},
        alert=True,
    )


def not_a_multiple(players: int, games: int) -> Refusal:
    """players × games seats must fill whole tables: say which rosters would."""
    step = SEATS // _gcd(games, SEATS)
    more = (players // step + 1) * step
    fewer = players // step * step
    params = {"players": players, "games": games, "seats": players * games, "step": step,
              "fewer": fewer, "more": more}
    if fewer >= SEATS:
        return Refusal(
            N_(
                "{players} players × {games} games = {seats} seats, not a multiple of 10 "
                "(a table seats 10). With {games} games each the number of players must be a "
                "multiple of {step}: confirm or remove players to have {fewer} or {more}, "
                "then send /seating again."
            ),
            params,
            alert=True,
        )
    return Refusal(
        N_(
            "{players} players × {games} games = {seats} seats, not a multiple of 10 "
            "(a table seats 10). With {games} games each the number of players must be a "
            "multiple of {step}: confirm players to have {more}, then send /seating again."
        ),
        params,
        alert=True,
    )


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def tables_out_of_range(tables: int, players: int) -> Refusal:
    return Refusal(
        N_(
            "{tables} tables can't be filled: {players} confirmed players fill 1 to {most} "
            "tables at once. Send /seating and choose again."
        ),
        {"tables": tables, "players": players, "most": players // SEATS},
        alert=True,
    )


def unfinished_round(round_no: int, saved: Sequence[int], *, planned: bool) -> Refusal:
    tables = ", ".join(str(t) for t in saved)
    if planned:
        return Refusal(
            N_(
                "Round {round} is still being played, and the accepted plan doesn't complete "
                "it (tables with saved games: {tables}). Save the round's other games first, "
                "then make the plan again."
            ),
            {"round": round_no, "tables": tables},
            alert=True,
        )
    return Refusal(
        N_(
            "Round {round} is still being played (tables with saved games: {tables}). Save "
            "the round's other games first, then make the plan again."
        ),
        {"round": round_no, "tables": tables},
        alert=True,
    )


def gone_player(nickname: str, round_no: int) -> Refusal:
    return Refusal(
        N_(
            "{player} played in round {round} but is not a confirmed player any more. "
            "Played rounds are kept as played, so the plan can't be made without him: "
            "confirm him again, or correct that game."
        ),
        {"player": nickname, "round": round_no},
        alert=True,
    )


def cannot_plan(reason: str) -> Refusal:
    return Refusal(N_("The plan can't be made: {reason}."), {"reason": reason}, alert=True)


def new_seed() -> int:
    return secrets.randbelow(MAX_SEED) + 1


# -- plans as stored, with today's nicknames ----------------------------------------------------


def plan_from_dict(data: Mapping[str, Any]) -> Plan:
    """The contract's plan object → ``Plan`` (what ``seating.plan_to_dict`` wrote)."""
    rounds = tuple(
        Round(
            round=int(r["round"]),
            tables=tuple(
                Table(table=int(t["table"]), seats=tuple(t["seats"])) for t in r["tables"]
            ),
            sitting_out=tuple(r.get("sitting_out", ())),
        )
        for r in data["rounds"]
    )
    q = data["quality"]
    quality = Quality(
        seat_spread=int(q["seat_spread"]),
        meetings_min=int(q["meetings_min"]),
        meetings_max=int(q["meetings_max"]),
        meetings_histogram={int(k): int(v) for k, v in q["meetings_histogram"].items()},
        table_spread=int(q["table_spread"]),
        apart_violations=int(q.get("apart_violations", 0)),
        cut_short=bool(q.get("cut_short", False)),
        seconds=float(q.get("seconds", 0.0)),
    )
    return Plan(rounds=rounds, quality=quality)


def renamed(plan: Plan, names: Mapping[str, str]) -> Plan:
    """``plan`` with every name ``n`` written ``names.get(n, n)``."""
    if all(names.get(n, n) == n for n in names):
        return plan
    return Plan(
        rounds=tuple(
            Round(
                round=r.round,
                tables=tuple(
                    Table(table=t.table, seats=tuple(names.get(n, n) for n in t.seats))
                    for t in r.tables
                ),
                sitting_out=tuple(names.get(n, n) for n in r.sitting_out),
            )
            for r in plan.rounds
        ),
        quality=plan.quality,
    )


Seat = tuple[int, int, int]  # round, table, seat


@dataclass(frozen=True, slots=True)
class StoredPlan:
    """A stored plan whose names are the players' nicknames now (renames followed)."""

    row: SeatingPlanRow
    plan: Plan
    ids: Mapping[str, int]  # name in ``plan`` -> player id

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def tables(self) -> int:
        return self.row.tables

    def seats_at(self, round_no: int, table_no: int) -> list[int] | None:
        """The player ids at the table in the round in seat order (seat n is element
        n - 1); None: the plan has no such table."""
        for round_ in self.plan.rounds:
            for table in round_.tables if round_.round == round_no else ():
                if table.table == table_no:
                    return [self.ids[name] for name in table.seats]
        return None

    def tables_by_round(self) -> dict[int, set[int]]:
        """Round -> the table numbers the plan has in it."""
        return {r.round: {t.table for t in r.tables} for r in self.plan.rounds}

    def seats_by_player(self, rounds: set[int] | None = None) -> dict[int, set[Seat]]:
        """Player id -> his (round, table, seat) in ``rounds`` (default: all)."""
        found: dict[int, set[Seat]] = {pid: set() for pid in self.ids.values()}
        for round_ in self.plan.rounds:
            if rounds is not None and round_.round not in rounds:
                continue
            for table in round_.tables:
                for seat, name in enumerate(table.seats, start=1):
                    found[self.ids[name]].add((round_.round, table.table, seat))
        return found


def stored_plan(row: SeatingPlanRow, everyone: Sequence[PlayerRow]) -> StoredPlan:
    old_names = [str(n) for n in row.request["players"]]
    current = {p.id: p.nickname for p in everyone}
    now = [current.get(pid, name) for pid, name in zip(row.player_ids, old_names, strict=True)]
    if len(set(now)) != len(now):  # two of them share a nickname now: keep the old names
        now = old_names
    plan = renamed(plan_from_dict(row.plan), dict(zip(old_names, now, strict=True)))
    return StoredPlan(row=row, plan=plan, ids=dict(zip(now, row.player_ids, strict=True)))


async def _load_accepted(conn: Conn, tournament_id: int) -> StoredPlan | None:
    row = await seating_db.accepted_plan(conn, tournament_id)
    if row is None:
        return None
    return stored_plan(row, await players_db.list_players(conn, tournament_id))


async def accepted_plan(db: Database, tournament_id: int) -> StoredPlan | None:
    """The tournament's accepted plan, nicknames as they are now; read once per change
    of the database."""
    return await db.cached(
        ("seating.accepted", tournament_id), partial(_load_accepted, tournament_id=tournament_id)
    )


async def planned_table(
    db: Database, tournament_id: int, round_no: int, table_no: int
) -> list[int] | None:
    """The ten player ids of the accepted plan at the table in the round, in seat order
    (seat n is element n - 1); None without an accepted plan or such a table."""
    stored = await accepted_plan(db, tournament_id)
    return None if stored is None else stored.seats_at(round_no, table_no)


# -- what a plan is made from -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Basis:
    """What a plan is made from, read in one go."""

    tournament: TournamentRow
    players: tuple[PlayerRow, ...]  # confirmed, in the request's order
    fixed: tuple[Round, ...]  # the played rounds, as played
    accepted: StoredPlan | None

    @property
    def most_tables(self) -> int:
        return len(self.players) // SEATS

    @property
    def default_tables(self) -> int:
        if self.accepted is not None and 1 <= self.accepted.tables <= self.most_tables:
            return self.accepted.tables
        return self.most_tables

    @property
    def played(self) -> tuple[int, ...]:
        return tuple(r.round for r in self.fixed)

    def request_data(self, tables: int, seed: int) -> dict[str, Any]:
        """The contract's request (JSON-ready)."""
        return {
            "players": [p.nickname for p in self.players],
            "games_per_player": self.tournament.distance,
            "tables": tables,
            "fixed_rounds": [
                {
                    "round": r.round,
                    "tables": [{"table": t.table, "seats": list(t.seats)} for t in r.tables],
                }
                for r in self.fixed
            ],
            "seed": seed,
            "time_limit": TIME_LIMIT,
        }


_SAME_BASIS = ("players", "games_per_player", "fixed_rounds")


async def _basis(conn: Conn, tournament: TournamentRow) -> Basis | Refusal:
    everyone = await players_db.list_players(conn, tournament.id)
    roster = tuple(p for p in everyone if p.status == "confirmed")
    row = await seating_db.accepted_plan(conn, tournament.id)
    accepted = None if row is None else stored_plan(row, everyone)
    played = await games_db.list_games(conn, tournament.id)
    fixed = _played_rounds(played, accepted, {p.nickname for p in roster})
    if isinstance(fixed, Refusal):
        return fixed
    return Basis(tournament=tournament, players=roster, fixed=fixed, accepted=accepted)


def _played_rounds(
    played: Sequence[GameRecord], accepted: StoredPlan | None, confirmed: set[str]
) -> tuple[Round, ...] | Refusal:
    """Each round with a saved game, as played; a round still being played is completed
    with the accepted plan's other tables of it."""
    by_round: dict[int, dict[int, tuple[str, ...]]] = {}
    for game in played:
        by_round.setdefault(game.round, {})[game.table_no] = tuple(s.nickname for s in game.seats)
    planned = {} if accepted is None else {r.round: r for r in accepted.plan.rounds}
    rounds = []
    for number, tables in sorted(by_round.items()):
        seated = {name for seats in tables.values() for name in seats}
        gone = next((n for seats in tables.values() for n in seats if n not in confirmed), None)
        if gone is not None:
            return gone_player(gone, number)
        complete = dict(tables)
        plan_round = planned.get(number)
        for table in plan_round.tables if plan_round is not None else ():
            if table.table in tables:
                continue
            if any(n in seated or n not in confirmed for n in table.seats):
                return unfinished_round(number, sorted(tables), planned=True)
            complete[table.table] = table.seats
            seated.update(table.seats)
        rounds.append(
            Round(
                round=number,
                tables=tuple(Table(table=t, seats=s) for t, s in sorted(complete.items())),
            )
        )
    return tuple(rounds)


def _request(basis: Basis, tables: int, seed: int) -> tuple[Request, dict[str, Any]] | Refusal:
    """The request, or why it can't be planned (the usual reasons in our words, the
    rest in the generator's)."""
    count = len(basis.players)
    games = basis.tournament.distance
    if count < SEATS:
        return too_few(count)
    if count * games % SEATS:
        return not_a_multiple(count, games)
    if not 1 <= tables <= basis.most_tables:
        return tables_out_of_range(tables, count)
    all_games = count * games // SEATS
    rounds = -(-all_games // tables)
    for round_ in basis.fixed:
        want = tables if round_.round < rounds else all_games - (rounds - 1) * tables
        if len(round_.tables) < want:
            return unfinished_round(
                round_.round, [t.table for t in round_.tables], planned=basis.accepted is not None
            )
    data = basis.request_data(tables, seed)
    try:
        request = seating.parse_request(data)
    except SeatingError as error:
        return cannot_plan(str(error))
    return request, data


# -- the chief judge's use cases ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Overview:
    """What ``/seating`` shows before a plan is made."""

    tournament: TournamentRow
    players: int
    default_tables: int
    most_tables: int
    played: tuple[int, ...]  # rounds with saved games: kept as played
    accepted: StoredPlan | None


@dataclass(frozen=True, slots=True)
class PlanView:
    """A plan offered or just accepted."""

    plan_id: int
    tournament: TournamentRow
    plan: Plan
    seed: int
    tables: int
    played: tuple[int, ...]  # rounds kept as played
    replaces: bool  # accepting it replaces an accepted plan
    changed: tuple[str, ...]  # nicknames whose seats in the re-planned rounds changed

    @property
    def planned(self) -> tuple[int, ...]:
        """The rounds this plan (re)makes."""
        return tuple(r.round for r in self.plan.rounds if r.round not in self.played)


async def chief_tournaments(db: Database, user_id: int) -> list[TournamentRow]:
    """Unfinished tournaments the user is the chief judge of, newest first."""
    async with db.read() as conn:
        rows = await tournaments_db.tournaments_for_staff(conn, user_id)
    return [row.tournament for row in rows if row.role == CHIEF]


async def _chief(db: Database, tournament_id: int, user_id: int) -> TournamentRow | Refusal:
    tournament, role = await db.cached(
        ("tournament_and_role", tournament_id, user_id),
        partial(tournaments_db.tournament_and_role, tournament_id=tournament_id, user_id=user_id),
    )
    if tournament is None:
        return NO_TOURNAMENT
    if role != CHIEF:
        return ONLY_CHIEF
    if tournament.status == "finished":
        return FINISHED
    return tournament


async def overview(db: Database, tournament_id: int, user_id: int) -> Overview | Refusal:
    """The roster and the plan so far; refused when no plan can be made of the roster."""
    tournament = await _chief(db, tournament_id, user_id)
    if isinstance(tournament, Refusal):
        return tournament
    async with db.read() as conn:
        basis = await _basis(conn, tournament)
    if isinstance(basis, Refusal):
        return basis
    count = len(basis.players)
    if count < SEATS:
        return too_few(count)
    if count * tournament.distance % SEATS:
        return not_a_multiple(count, tournament.distance)
    return Overview(
        tournament=tournament,
        players=count,
        default_tables=basis.default_tables,
        most_tables=basis.most_tables,
        played=basis.played,
        accepted=basis.accepted,
    )


@dataclass(frozen=True, slots=True)
class Prepared:
    """A checked request, ready for the generator (``make_offer``)."""

    tournament: TournamentRow
    basis: Basis
    request: Request
    data: dict[str, Any]  # the request as stored
    user_id: int


async def prepare_offer(
    db: Database, tournament_id: int, user_id: int, tables: int, *, seed: int | None = None
) -> Prepared | Refusal:
    """Check that a plan with ``tables`` tables can be made now (quick: no generating)."""
    tournament = await _chief(db, tournament_id, user_id)
    if isinstance(tournament, Refusal):
        return tournament
    async with db.read() as conn:
        basis = await _basis(conn, tournament)
    if isinstance(basis, Refusal):
        return basis
    made = _request(basis, tables, new_seed() if seed is None else seed)
    if isinstance(made, Refusal):
        return made
    request, data = made
    return Prepared(tournament, basis, request, data, user_id)


async def prepare_regeneration(
    db: Database, tournament_id: int, plan_id: int, user_id: int
) -> Prepared | Refusal:
    """Another plan like the offer ``plan_id`` (its tables), with a new seed."""
    offer = await check_offer(db, tournament_id, plan_id, user_id)
    if isinstance(offer, Refusal):
        return offer
    seed = new_seed()
    while seed == offer.seed:
        seed = new_seed()
    return await prepare_offer(db, tournament_id, user_id, offer.tables, seed=seed)


async def make_offer(
    db: Database, prepared: Prepared, *, now: datetime | None = None
) -> PlanView | Refusal:
    """Generate the plan (in a worker thread, seconds for a big tournament) and store it
    as the user's offer; his earlier offer of the tournament goes. Nothing is stored
    when the generator refuses the request."""
    try:
        plan = await asyncio.to_thread(seating.generate, prepared.request)
    except SeatingError as error:
        return cannot_plan(str(error))
    basis = prepared.basis
    async with db.transaction() as conn:
        row = await seating_db.add_offer(
            conn,
            prepared.tournament.id,
            request=prepared.data,
            player_ids=[p.id for p in basis.players],
            plan=seating.plan_to_dict(plan),
            base_plan_id=None if basis.accepted is None else basis.accepted.id,
            created_by=prepared.user_id,
            now=now,
        )
    return _view(row, prepared.tournament, plan, basis)


async def offer_plan(
    db: Database,
    tournament_id: int,
    user_id: int,
    tables: int,
    *,
    seed: int | None = None,
    now: datetime | None = None,
) -> PlanView | Refusal:
    """``prepare_offer`` and ``make_offer`` in one."""
    prepared = await prepare_offer(db, tournament_id, user_id, tables, seed=seed)
    if isinstance(prepared, Refusal):
        return prepared
    return await make_offer(db, prepared, now=now)


async def check_offer(
    db: Database, tournament_id: int, plan_id: int, user_id: int
) -> SeatingPlanRow | Refusal:
    """The offer if its buttons still work for the user, else why not."""
    tournament = await _chief(db, tournament_id, user_id)
    if isinstance(tournament, Refusal):
        return tournament
    async with db.read() as conn:
        return await _open_offer(conn, tournament_id, plan_id)


async def accept(
    db: Database, tournament_id: int, plan_id: int, user_id: int, *, now: datetime | None = None
) -> PlanView | Refusal:
    """Make the offer the tournament's plan, if it is still what the tournament is now
    (roster, saved games, accepted plan); audited as ``seating.accept``. The group and
    the linked players are told the next round's seating (a re-plan: what changed in
    it) through the outbox, in the same transaction; the caller publishes."""
    tournament = await _chief(db, tournament_id, user_id)
    if isinstance(tournament, Refusal):
        return tournament
    async with db.transaction() as conn:
        offer = await _open_offer(conn, tournament_id, plan_id)
        if isinstance(offer, Refusal):
            return offer
        basis = await _basis(conn, tournament)
        if isinstance(basis, Refusal):
            return basis
        now_data = basis.request_data(offer.tables, offer.seed)
        if offer.player_ids != tuple(p.id for p in basis.players) or any(
            offer.request.get(key) != now_data[key] for key in _SAME_BASIS
        ):
            return CHANGED
        row = await seating_db.accept_plan(conn, plan_id, accepted_by=user_id, now=now)
        plan = plan_from_dict(row.plan)
        view = _view(row, tournament, plan, basis)
        await audit(
            conn,
            action="seating.accept",
            entity="seating_plan",
            entity_id=row.id,
            tournament_id=tournament.id,
            actor_id=user_id,
            before=None if basis.accepted is None else _summary(basis.accepted.row),
            after={**_summary(row), "quality": row.plan["quality"], "changed": list(view.changed)},
            at=now,
        )
        await _tell_seating(conn, basis, StoredPlan(row, plan, _ids(basis.players)))
    return view


async def cancel(
    db: Database, tournament_id: int, plan_id: int, user_id: int
) -> StoredPlan | Refusal | None:
    """Drop the offer; returns the accepted plan, which stays (None if there is none)."""
    tournament = await _chief(db, tournament_id, user_id)
    if isinstance(tournament, Refusal):
        return tournament
    async with db.transaction() as conn:
        offer = await _open_offer(conn, tournament_id, plan_id)
        if isinstance(offer, Refusal):
            return offer
        await seating_db.discard_offer(conn, plan_id)
        return await _load_accepted(conn, tournament_id)


async def _open_offer(conn: Conn, tournament_id: int, plan_id: int) -> SeatingPlanRow | Refusal:
    """The offer, or why its buttons are stale."""
    row = await seating_db.get_plan(conn, plan_id)
    if row is not None and row.tournament_id != tournament_id:
        return STALE_OFFER
    accepted = await seating_db.accepted_plan(conn, tournament_id)
    if row is None:
        # Accepting a plan drops every other offer: one made after this was accepted.
        return ANOTHER_ACCEPTED if accepted is not None and accepted.id > plan_id else STALE_OFFER
    if row.status == "accepted":
        return ALREADY_ACCEPTED
    if row.status == "replaced":
        return ANOTHER_ACCEPTED
    if row.base_plan_id != (None if accepted is None else accepted.id):
        return ANOTHER_ACCEPTED
    return row


def _view(row: SeatingPlanRow, tournament: TournamentRow, plan: Plan, basis: Basis) -> PlanView:
    played = basis.played
    changed: tuple[str, ...] = ()
    if basis.accepted is not None:
        ids = {p.nickname: p.id for p in basis.players}
        new = StoredPlan(row=row, plan=plan, ids=ids)
        later = {r.round for r in plan.rounds if r.round not in played}
        later |= {r.round for r in basis.accepted.plan.rounds if r.round not in played}
        before = basis.accepted.seats_by_player(later)
        after = new.seats_by_player(later)
        changed = tuple(p.nickname for p in basis.players if before.get(p.id) != after[p.id])
    return PlanView(
        plan_id=row.id,
        tournament=tournament,
        plan=plan,
        seed=row.seed,
        tables=row.tables,
        played=played,
        replaces=basis.accepted is not None,
        changed=changed,
    )


def _ids(players: Sequence[PlayerRow]) -> dict[str, int]:
    return {p.nickname: p.id for p in players}


# -- the seating told to the group and to each linked player ---------------------------------
# The rows go into the outbox in the caller's transaction (the accept, a game's save); the
# publisher draws them from the plan accepted when it posts (bot.publishing.posting).

Position = tuple[int, int] | None  # (table, seat); None: he sits the round out
_ABSENT: Position = (0, 0)  # the round doesn't name him


def positions(stored: StoredPlan, round_no: int) -> dict[int, Position]:
    """Player id -> where he sits in the round; players it doesn't name are left out."""
    found: dict[int, Position] = {}
    for round_ in stored.plan.rounds:
        if round_.round != round_no:
            continue
        for table in round_.tables:
            for seat, name in enumerate(table.seats, start=1):
                found[stored.ids[name]] = (table.table, seat)
        found.update((stored.ids[name], None) for name in round_.sitting_out)
    return found


def _linked(everyone: Sequence[PlayerRow]) -> dict[int, int]:
    """Player id -> his Telegram account, for the players who linked one."""
    return {p.id: p.user_id for p in everyone if p.user_id is not None}


async def _round_complete(
    conn: Conn, tournament_id: int, stored: StoredPlan, round_no: int
) -> bool:
    """Every table the plan has in the round has a saved game (pending approval counts)."""
    planned = stored.tables_by_round().get(round_no, set())
    shape = await games_db.tables_by_round(conn, tournament_id)
    saved = {table for _game, number, table in shape if number == round_no}
    return bool(planned) and planned <= saved


async def _announce(
    conn: Conn, tournament_id: int, stored: StoredPlan, round_no: int, users: Mapping[int, int]
) -> None:
    """The group gets the round's seating and each linked player of the round his seat
    (or that he sits out); once per round, whatever saves or accepts come again."""
    if not await outbox.mark_announced(conn, tournament_id, round_no):
        return
    await outbox.add_seating(conn, tournament_id, round_no)
    for player_id in positions(stored, round_no):
        if player_id in users:
            await outbox.add_seat(
                conn, tournament_id, round_no, player_id=player_id, user_id=users[player_id]
            )


async def _tell_changes(
    conn: Conn,
    tournament_id: int,
    round_no: int,
    before: Mapping[int, Position],
    after: Mapping[int, Position],
    users: Mapping[int, int],
) -> None:
    """A re-plan of an announced round: the group gets it again and the players whose
    place changed (moved, added, left out) are told, unless their message still waits
    (it is drawn from the new plan when posted)."""
    moved = sorted(p for p in {*before, *after} if before.get(p, _ABSENT) != after.get(p, _ABSENT))
    if not moved:
        return
    group_waits, players_wait = await outbox.seating_waiting(conn, tournament_id, round_no)
    if not group_waits:
        await outbox.add_seating(conn, tournament_id, round_no, changed=True)
    for player_id in moved:
        if player_id in users and player_id not in players_wait:
            await outbox.add_seat(
                conn, tournament_id, round_no, player_id=player_id, user_id=users[player_id],
                changed=True,
            )


async def _tell_seating(conn: Conn, basis: Basis, new: StoredPlan) -> None:
    """Within the accept: the next round to be played (after the played ones). Not
    announced yet, it is announced if it is up next (round 1, or the round before it
    complete); announced already, a re-plan tells only what changed in it."""
    tournament_id = basis.tournament.id
    round_no = max(basis.played, default=0) + 1
    users = _linked(await players_db.list_players(conn, tournament_id))
    if await outbox.is_announced(conn, tournament_id, round_no):
        before = {} if basis.accepted is None else positions(basis.accepted, round_no)
        await _tell_changes(conn, tournament_id, round_no, before, positions(new, round_no), users)
        return
    if not positions(new, round_no):
        return  # every round is played: nothing comes next
    if round_no == 1 or await _round_complete(conn, tournament_id, new, round_no - 1):
        await _announce(conn, tournament_id, new, round_no, users)


async def round_saved(conn: Conn, tournament_id: int, round_no: int) -> None:
    """A game of the round was saved (in the caller's transaction): when that completes
    the round under the accepted plan's tables, the next round's seating is announced.
    The last round has no successor: nothing is."""
    row = await seating_db.accepted_plan(conn, tournament_id)
    if row is None or not any(int(r["round"]) == round_no + 1 for r in row.plan["rounds"]):
        return
    if await outbox.is_announced(conn, tournament_id, round_no + 1):
        return
    everyone = await players_db.list_players(conn, tournament_id)
    stored = stored_plan(row, everyone)
    if await _round_complete(conn, tournament_id, stored, round_no):
        await _announce(conn, tournament_id, stored, round_no + 1, _linked(everyone))


def _summary(row: SeatingPlanRow) -> dict[str, Any]:
    request = row.request
    return {
        "id": row.id,
        "seed": row.seed,
        "tables": row.tables,
        "games_per_player": request.get("games_per_player"),
        "players": len(row.player_ids),
        "rounds": len(row.plan.get("rounds", ())),
        "fixed_rounds": [r["round"] for r in request.get("fixed_rounds", ())],
        "created_by": row.created_by,
    }


__all__ = [
    "Basis",
    "Overview",
    "PlanView",
    "Prepared",
    "StoredPlan",
    "accept",
    "accepted_plan",
    "cancel",
    "check_offer",
    "chief_tournaments",
    "make_offer",
    "offer_plan",
    "overview",
    "plan_from_dict",
    "planned_table",
    "positions",
    "prepare_offer",
    "prepare_regeneration",
    "round_saved",
]
