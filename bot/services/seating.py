"""Seating plans (docs/formats.md#seating): the chief judge's ``/seating`` use cases, and
the accepted plan for whoever needs it (the judge's card, the publisher).

A plan is made for the tournament's confirmed roster (names are nicknames, in the
roster's order), ``games_per_player`` = its distance, and the tables the chief judge
chose. Rounds already played are kept exactly as played: every round with a saved
game is a fixed round of the request, its seats taken from the stored games (the
tables of a round still being played come from the accepted plan). So making a plan
after round 1 is the re-plan of the remaining rounds, e.g. after a player dropped out
or was replaced.

A re-plan over an accepted plan keeps that plan's rounds still to play, repaired only
where they must change (``seating.repair``: a departed player's seats, a game handed
back after a substitute; a withdrawn player's seats left stay for substitutes when the
others' games would not fill whole tables without them), so the players keep the seats
they were told; a fresh plan is made beside it, so the offer says how many players the
other way moves, and is offered instead when the chief judge asks for it, unless it is
less fair.

The generator is CPU-bound (seconds for a big tournament): it runs in a worker
thread, outside any transaction. An offer is stored (``bot.db.seating``) so that the
chief judge can accept exactly what he saw; accepting checks that nothing it was made
from changed meanwhile (the roster, the saved games, the accepted plan).

The accepted plan as the bot reads it is ``bot.reads.stored_plans``; what the group
and the players are told of it before each round, ``bot.services.seating_rounds``.

Stages (docs/rules.md D13, D14): a plan is of the tournament's current stage. A later
stage's plan seats its entrants (confirmed, playing on) over its own games per player,
keeps as played only the rounds of its own saved games, and its rounds are numbered
after the last round of the earlier stages (game codes run across the tournament):
the generator plans rounds 1, 2, ... and the stored plan reads 11, 12, ... . A
tournament without stages is one stage over its distance.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any

import seating
from bot.db import games as games_db
from bot.db import players as players_db
from bot.db import seating as seating_db
from bot.db import stages as stages_db
from bot.db import tournaments as tournaments_db
from bot.db.audit import audit
from bot.db.connection import Conn, Database
from bot.db.games import GameRecord
from bot.db.players import PlayerRow
from bot.db.seating import SeatingPlanRow
from bot.db.tournaments import CHIEF, TournamentRow
from bot.reads.stored_plans import (
    StoredPlan,
    current_row,
    current_stage,
    load_accepted,
    plan_from_dict,
    plan_stage,
    stored_plan,
)
from bot.services import N_, Refusal
from bot.services.notices import FollowUp
from bot.services.phrases import Verbatim
from bot.services.seating_rounds import tell_seating
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
# A plan's buttons outlive it: say what became of it, and how to change it now.
REPLACED = Refusal(
    N_("This plan was accepted and replaced by a newer one. Send /seating to see the current one."),
    alert=True,
)
USE_REPLAN = Refusal(
    N_("The plan is accepted: to change it, use Re-plan in /seating."), alert=True
)
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
                "multiple of {step}: confirm players, or withdraw them with /withdraw NICKNAME, "
                "to have {fewer} or {more}, then send /seating again."
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


def withdrawn_seats(players: int, games: int, played: int, seats: int) -> Refusal:
    return Refusal(
        N_(
            "{players} players × {games} games + {played} played by withdrawn players = "
            "{seats} seats, not a multiple of 10 (a table seats 10), so the rounds left can't "
            "be planned. Confirm or withdraw players until they are; meanwhile the "
            "judges seat substitutes on the card."
        ),
        {"players": players, "games": games, "played": played, "seats": seats},
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


def before_the_stage(code: str, stage: str, first: int) -> Refusal:
    return Refusal(
        N_(
            "Game {game} of the {stage} stage is numbered among the rounds of the stages "
            "before it; this stage's rounds start at round {first}. Correct its round with "
            "/games, then send /seating again."
        ),
        {"game": code, "stage": Verbatim(stage), "first": first},
        alert=True,
    )


def cannot_plan(reason: str) -> Refusal:
    return Refusal(N_("The plan can't be made: {reason}."), {"reason": reason}, alert=True)


def new_seed() -> int:
    return secrets.randbelow(MAX_SEED) + 1


# -- what a plan is made from -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StagePart:
    """The stage a plan is made for (D13, D14): the current one."""

    number: int = 1
    name: str | None = None  # None: the tournament has no stages
    games: int = 0  # its games per player (the distance)
    entrants: frozenset[int] | None = None  # a later stage's entrants' ids
    first_round: int = 1  # its first round: after the earlier stages' last one

    @property
    def offset(self) -> int:
        return self.first_round - 1



@dataclass(frozen=True, slots=True)
class Basis:
    """What a plan is made from, read in one go."""

    tournament: TournamentRow
    stage: StagePart
    # confirmed, in the request's order: who plays on, and the withdrawn who played
    players: tuple[PlayerRow, ...]
    fixed: tuple[Round, ...]  # the played rounds, as played
    accepted: StoredPlan | None
    # games in all of a player whose planned seat a withdrawn substitute played: the
    # game is gone (nobody else can play one more to make up for it)
    games_of: Mapping[str, int] = field(default_factory=dict)
    gone: frozenset[str] = frozenset()  # every withdrawn player, played or not
    # withdrawn players whose planned seats stay, for substitutes: without their games
    # left the others' don't fill whole tables
    vacant: frozenset[str] = frozenset()

    @property
    def playing(self) -> int:
        """Players who play on (not withdrawn), and the seats kept for substitutes."""
        return sum(p.plays_on or p.nickname in self.vacant for p in self.players)

    @property
    def withdrawn(self) -> tuple[str, ...]:
        """The withdrawn players who played and whose seats go: their games stay in the
        played rounds."""
        return tuple(
            p.nickname for p in self.players if not p.plays_on and p.nickname not in self.vacant
        )

    @property
    def seats(self) -> int:
        """Seats in the whole plan: the distance for everyone who plays on, and the
        games the withdrawn played."""
        gone = set(self.withdrawn)
        played = sum(n in gone for r in self.fixed for t in r.tables for n in t.seats)
        fewer = sum(self.distance - n for n in self.games_of.values())
        return self.playing * self.distance + played - fewer

    @property
    def distance(self) -> int:
        """The stage's games per player (D14)."""
        return self.stage.games

    @property
    def most_tables(self) -> int:
        return len(self.players) // SEATS  # the withdrawn filled the played rounds

    @property
    def default_tables(self) -> int:
        if self.accepted is not None and 1 <= self.accepted.tables <= self.most_tables:
            return self.accepted.tables
        return self.most_tables

    @property
    def played(self) -> tuple[int, ...]:
        return tuple(r.round for r in self.fixed)

    def request_data(self, tables: int, seed: int) -> dict[str, Any]:
        """The contract's request (JSON-ready), rounds numbered as in the tournament;
        with stages, the stage and its first round too (``generator_data`` drops them)."""
        withdrawn = {"withdrawn": list(self.withdrawn)} if self.withdrawn else {}
        fewer = {"games_of": dict(self.games_of)} if self.games_of else {}
        staged = (
            {"stage": self.stage.number, "first_round": self.stage.first_round}
            if self.stage.name is not None
            else {}
        )
        return {
            **staged,
            **withdrawn,
            **fewer,
            "players": [p.nickname for p in self.players],
            "games_per_player": self.distance,
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


_SAME_BASIS = (
    "players", "games_per_player", "fixed_rounds", "withdrawn", "games_of", "stage", "first_round"
)
_BOT_FIELDS = ("stage", "first_round")  # not the generator's: the rounds' numbering


def generator_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """A stored request as the generator takes it: a later stage's rounds numbered from
    1 (``first_round`` becomes round 1)."""
    offset = int(data.get("first_round", 1)) - 1
    found = {k: v for k, v in data.items() if k not in _BOT_FIELDS}
    for key in ("fixed_rounds", "previous_rounds"):
        if key in found:
            found[key] = [{**r, "round": r["round"] - offset} for r in found[key]]
    return found


def _shifted(rounds: Sequence[Round], by: int) -> tuple[Round, ...]:
    return tuple(replace(r, round=r.round + by) for r in rounds)


async def _stage_part(
    conn: Conn, tournament: TournamentRow, played: Sequence[GameRecord]
) -> tuple[StagePart, list[GameRecord]] | Refusal:
    """The current stage and its saved games (D13): a tournament without stages is one
    stage over its distance, every game its own."""
    stage = await current_stage(conn, tournament.id)
    if stage is None:
        return StagePart(games=tournament.distance), list(played)
    of = await stages_db.game_stages(conn, tournament.id)
    own = [g for g in played if of.get(g.id, 1) == stage.number]
    first = max((g.round for g in played if of.get(g.id, 1) < stage.number), default=0) + 1
    early = next((g for g in own if g.round < first), None)
    if early is not None:
        return before_the_stage(early.code, stage.name, first)
    entrants = None
    if stage.entrants is not None:
        entrants = frozenset(e.player_id for e in await stages_db.entrants_of(conn, stage.id))
    part = StagePart(stage.number, stage.name, stage.games_per_player, entrants, first)
    return part, own


async def _basis(conn: Conn, tournament: TournamentRow) -> Basis | Refusal:
    everyone = await players_db.list_players(conn, tournament.id)
    staged = await _stage_part(conn, tournament, await games_db.list_games(conn, tournament.id))
    if isinstance(staged, Refusal):
        return staged
    stage, played = staged
    confirmed = [
        p
        for p in everyone
        if p.status == "confirmed" and (stage.entrants is None or p.id in stage.entrants)
    ]
    row = await seating_db.accepted_plan(conn, tournament.id)
    mine = row is not None and plan_stage(row) == stage.number
    accepted = stored_plan(row, everyone) if row is not None and mine else None
    on = {p.nickname for p in confirmed if p.plays_on}
    fixed = _played_rounds(played, accepted, {p.nickname for p in confirmed}, on)
    if isinstance(fixed, Refusal):
        return fixed
    seated = {n for r in fixed for t in r.tables for n in t.seats}
    roster = tuple(p for p in confirmed if p.nickname in on or p.nickname in seated)
    gone = frozenset(p.nickname for p in confirmed if not p.plays_on)
    games_of = _games_of(fixed, accepted, on, stage.games)
    basis = Basis(tournament, stage, roster, fixed, accepted, games_of, gone)
    ahead = set() if accepted is None else _planned_ahead(accepted, basis.played)
    vacant = frozenset(basis.withdrawn) & ahead
    if basis.seats % SEATS and vacant:  # a substitute plays each of their seats left
        games_of = _games_of(fixed, accepted, on | vacant, stage.games)
        basis = replace(basis, games_of=games_of, vacant=vacant)
    return basis


def _planned_ahead(accepted: StoredPlan, played: Sequence[int]) -> set[str]:
    """Names with a seat in the accepted plan's rounds still to play."""
    return {
        n for r in accepted.plan.rounds if r.round not in played for t in r.tables for n in t.seats
    }


def _games_of(
    fixed: Sequence[Round], accepted: StoredPlan | None, owners: set[str], distance: int
) -> dict[str, int]:
    """Games in all of the players (among ``owners``) whose planned seats a withdrawn
    substitute played: those games are gone."""
    missed = _missed(fixed, accepted, owners)
    return {name: distance - count for name, count in sorted(missed.items())}


def _missed(
    fixed: Sequence[Round], accepted: StoredPlan | None, owners: set[str]
) -> Counter[str]:
    """Player -> his planned seats a withdrawn substitute played (the card's substitute
    takes the seat of the player he replaces) while he played nowhere in that round."""
    missed: Counter[str] = Counter()
    planned = {} if accepted is None else {r.round: r for r in accepted.plan.rounds}
    for round_ in fixed:
        plan_round = planned.get(round_.round)
        tables = {} if plan_round is None else {t.table: t.seats for t in plan_round.tables}
        seated = {n for t in round_.tables for n in t.seats}
        for table in round_.tables:
            for name, meant in zip(table.seats, tables.get(table.table, ()), strict=False):
                if name not in owners and meant in owners and meant not in seated:
                    missed[meant] += 1
    return missed


def _played_rounds(
    played: Sequence[GameRecord], accepted: StoredPlan | None, confirmed: set[str], on: set[str]
) -> tuple[Round, ...] | Refusal:
    """Each round with a saved game, as played; a round still being played is completed
    with the accepted plan's other tables of it (whose players must play on)."""
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
            if any(n in seated or n not in on for n in table.seats):
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
    problem = _sizes_problem(basis)
    if problem is not None:
        return problem
    if not 1 <= tables <= basis.most_tables:
        return tables_out_of_range(tables, len(basis.players))
    all_games = basis.seats // SEATS
    rounds = -(-all_games // tables)
    for round_ in basis.fixed:
        number = round_.round - basis.stage.offset  # the stage's own count (D13)
        want = tables if number < rounds else all_games - (rounds - 1) * tables
        if len(round_.tables) < want:
            return unfinished_round(
                round_.round, [t.table for t in round_.tables], planned=basis.accepted is not None
            )
    data = basis.request_data(tables, seed)
    try:
        request = seating.parse_request(generator_data(data))
    except SeatingError as error:
        return cannot_plan(str(error))
    return request, data


def _sizes_problem(basis: Basis) -> Refusal | None:
    """Why the players' games can't fill whole tables, if they can't."""
    count, games = basis.playing, basis.distance
    if count < SEATS:
        return too_few(count)
    if basis.seats % SEATS and basis.withdrawn:
        return withdrawn_seats(count, games, basis.seats - count * games, basis.seats)
    if basis.seats % SEATS:
        return not_a_multiple(count, games)
    return None


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
    problem: Refusal | None = None  # why no plan can be made of the roster now
    withdrawn: frozenset[str] = frozenset()  # their seats still planned: substitutes play them
    stage: str | None = None  # the stage planned (D13), when the tournament has stages
    games: int = 0  # its games per player


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
    kept: bool = False  # it keeps the accepted plan's rounds, repaired where they must change
    # a re-plan: how many players the other way moves (a fresh plan, or the kept one);
    # None when there is no other way
    other_moves: int | None = None
    fresh_not_fairer: bool = False  # so the kept plan is offered, even when asked for fresh
    fewer: tuple[str, ...] = ()  # players with a game fewer: a withdrawn substitute played it
    # accepted: the seating posts its transaction enqueued, to go out once it is answered
    follow_up: FollowUp = field(default_factory=FollowUp)
    withdrawn: tuple[str, ...] = ()  # in the played rounds only
    vacant: tuple[str, ...] = ()  # withdrawn, their seats left played by substitutes
    stage: str | None = None  # the stage planned (D13), when the tournament has stages
    games: int = 0  # its games per player

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


async def _chief_basis(db: Database, tournament_id: int, user_id: int) -> Basis | Refusal:
    """What a plan of the tournament is made from, for its chief judge."""
    tournament = await _chief(db, tournament_id, user_id)
    if isinstance(tournament, Refusal):
        return tournament
    async with db.read() as conn:
        return await _basis(conn, tournament)


async def overview(db: Database, tournament_id: int, user_id: int) -> Overview | Refusal:
    """The roster and the plan so far, and why no plan can be made of the roster now
    (refused outright when there is no accepted plan to show)."""
    basis = await _chief_basis(db, tournament_id, user_id)
    if isinstance(basis, Refusal):
        return basis
    problem = _sizes_problem(basis)
    if problem is not None and basis.accepted is None:
        return problem
    return Overview(
        tournament=basis.tournament,
        players=sum(p.plays_on for p in basis.players),
        default_tables=basis.default_tables,
        most_tables=basis.most_tables,
        played=basis.played,
        accepted=basis.accepted,
        problem=problem,
        withdrawn=basis.gone,
        stage=basis.stage.name,
        games=basis.distance,
    )


@dataclass(frozen=True, slots=True)
class Prepared:
    """A checked request, ready for the generator (``make_offer``)."""

    tournament: TournamentRow
    basis: Basis
    request: Request  # a fresh plan's
    data: dict[str, Any]  # the request as stored
    user_id: int
    fresh: bool = False  # over an accepted plan: a fresh plan, not the kept one


async def prepare_offer(
    db: Database,
    tournament_id: int,
    user_id: int,
    tables: int,
    *,
    seed: int | None = None,
    fresh: bool | None = None,
) -> Prepared | Refusal:
    """Check that a plan with ``tables`` tables can be made now (quick: no generating).
    Over an accepted plan it keeps that plan's rounds unless ``fresh`` (by default only
    once a round is played: before, the chief judge asked for a new plan)."""
    basis = await _chief_basis(db, tournament_id, user_id)
    if isinstance(basis, Refusal):
        return basis
    made = _request(basis, tables, new_seed() if seed is None else seed)
    if isinstance(made, Refusal):
        return made
    request, data = made
    fresh = not basis.played if fresh is None else fresh
    return Prepared(basis.tournament, basis, request, data, user_id, fresh)


async def prepare_regeneration(
    db: Database, tournament_id: int, plan_id: int, user_id: int
) -> Prepared | Refusal:
    """Another plan like the offer ``plan_id`` (its tables), with a new seed."""
    offer = await check_offer(db, tournament_id, plan_id, user_id)
    if offer is ALREADY_ACCEPTED:
        return USE_REPLAN
    if isinstance(offer, Refusal):
        return offer
    seed = new_seed()
    while seed == offer.seed:
        seed = new_seed()
    return await prepare_offer(db, tournament_id, user_id, offer.tables, seed=seed, fresh=True)


async def prepare_other_way(
    db: Database, tournament_id: int, plan_id: int, user_id: int, *, fresh: bool
) -> Prepared | Refusal:
    """The re-plan the offer ``plan_id`` counted as the other way: a fresh plan of its
    seed (the same plan, so the count holds), or the accepted plan kept."""
    offer = await check_offer(db, tournament_id, plan_id, user_id)
    if offer is ALREADY_ACCEPTED:
        return USE_REPLAN
    if isinstance(offer, Refusal):
        return offer
    return await prepare_offer(
        db, tournament_id, user_id, offer.tables, seed=offer.seed, fresh=fresh
    )


async def make_offer(
    db: Database, prepared: Prepared, *, now: datetime | None = None
) -> PlanView | Refusal:
    """Generate the plan (in a worker thread, seconds for a big tournament) and store it
    as the user's offer; his earlier offer of the tournament goes. Nothing is stored
    when the generator refuses the request."""
    try:
        ways = await asyncio.to_thread(_replans, prepared)
    except SeatingError as error:
        return cannot_plan(str(error))
    basis = prepared.basis
    plan, data = ways.fresh, prepared.data
    if ways.kept is not None and (not prepared.fresh or ways.fresh_not_fairer):
        plan = ways.kept
        data = {**data, "previous_rounds": [seating.round_to_dict(r) for r in _previous(basis)]}
    async with db.transaction() as conn:
        row = await seating_db.add_offer(
            conn,
            prepared.tournament.id,
            request=data,
            player_ids=[p.id for p in basis.players],
            plan=seating.plan_to_dict(plan),
            base_plan_id=None if basis.accepted is None else basis.accepted.id,
            created_by=prepared.user_id,
            now=now,
        )
    view = _view(row, prepared.tournament, plan, basis)
    other = ways.fresh if plan is ways.kept else ways.kept
    if other is None:
        return view
    moves = len(_moved(basis, other))
    return replace(view, other_moves=moves, fresh_not_fairer=ways.fresh_not_fairer)


@dataclass(frozen=True, slots=True)
class _Ways:
    """A re-plan's two ways: the accepted plan's own rounds kept (None: no accepted
    plan, or they can't be kept) and a fresh plan."""

    fresh: Plan
    kept: Plan | None
    fresh_not_fairer: bool  # the fresh plan is less fair than the kept one


def _replans(prepared: Prepared) -> _Ways:
    """Both ways (in the worker thread): the chief judge is told how many players each
    moves, and a fresh plan less fair than the kept one is not offered."""
    offset = prepared.basis.stage.offset  # the generator's round 1 is the stage's first
    fresh = seating.generate(prepared.request)
    fresh = replace(fresh, rounds=_shifted(fresh.rounds, offset))
    previous = _shifted(_previous(prepared.basis), -offset)
    if not previous:
        return _Ways(fresh, None, False)
    kept = seating.repair(replace(prepared.request, previous_rounds=previous), previous)
    if kept is None:
        return _Ways(fresh, None, False)
    kept = replace(kept, rounds=_shifted(kept.rounds, offset))
    return _Ways(fresh, kept, _fairness(fresh.quality) > _fairness(kept.quality))


def _previous(basis: Basis) -> tuple[Round, ...]:
    """The accepted plan's rounds still to play (names as they are now)."""
    if basis.accepted is None:
        return ()
    return tuple(r for r in basis.accepted.plan.rounds if r.round not in basis.played)


def _fairness(q: Quality) -> tuple[int, ...]:
    """Smaller is fairer: apart pairs parted, seats even, meetings even, tables even."""
    return (
        q.apart_violations,
        q.seat_spread,
        q.meetings_max - q.meetings_min,
        q.meetings_max,
        q.table_spread,
    )


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
    db: Database,
    tournament_id: int,
    plan_id: int,
    user_id: int,
    *,
    now: datetime | None = None,
) -> PlanView | Refusal:
    """Make the offer the tournament's plan, if it is still what the tournament is now
    (roster, saved games, accepted plan); audited as ``seating.accept``. The group and
    the linked players are told the next round's seating (a re-plan: what changed in
    it) through the outbox, in the same transaction; its ``follow_up`` posts it."""
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
            offer.request.get(key) != now_data.get(key) for key in _SAME_BASIS
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
        new = StoredPlan(row, plan, _ids(basis.players))
        await tell_seating(
            conn, basis.tournament.id, basis.played, basis.accepted, new, basis.stage.first_round
        )
    return replace(view, follow_up=FollowUp(tournament_id=tournament.id))


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
        return await load_accepted(conn, tournament_id)


async def _open_offer(conn: Conn, tournament_id: int, plan_id: int) -> SeatingPlanRow | Refusal:
    """The offer, or why its buttons are stale."""
    row = await seating_db.get_plan(conn, plan_id)
    if row is not None and row.tournament_id != tournament_id:
        return STALE_OFFER
    accepted = await current_row(conn, tournament_id)  # an earlier stage's is done with
    if row is None:
        # Accepting a plan drops every other offer: one made after this was accepted.
        return ANOTHER_ACCEPTED if accepted is not None and accepted.id > plan_id else STALE_OFFER
    if row.status == "accepted":
        return ALREADY_ACCEPTED
    if row.status == "replaced":
        return REPLACED
    if row.base_plan_id != (None if accepted is None else accepted.id):
        return ANOTHER_ACCEPTED
    return row


def _view(row: SeatingPlanRow, tournament: TournamentRow, plan: Plan, basis: Basis) -> PlanView:
    return PlanView(
        plan_id=row.id,
        tournament=tournament,
        plan=plan,
        seed=row.seed,
        tables=row.tables,
        played=basis.played,
        replaces=basis.accepted is not None,
        changed=_moved(basis, plan),
        kept="previous_rounds" in row.request,
        fewer=tuple(row.request.get("games_of", ())),
        withdrawn=tuple(row.request.get("withdrawn", ())),
        vacant=tuple(sorted(basis.vacant)),
        stage=basis.stage.name,
        games=basis.distance,
    )


def _moved(basis: Basis, plan: Plan) -> tuple[str, ...]:
    """Nicknames whose seats in the rounds still to play differ from the accepted plan's."""
    if basis.accepted is None:
        return ()
    played = basis.played
    ids = _ids(basis.players)
    later = {r.round for r in plan.rounds if r.round not in played}
    later |= {r.round for r in basis.accepted.plan.rounds if r.round not in played}
    before = basis.accepted.seats_by_player(later)
    after = StoredPlan(row=basis.accepted.row, plan=plan, ids=ids).seats_by_player(later)
    return tuple(
        p.nickname for p in basis.players if p.plays_on and before.get(p.id) != after[p.id]
    )


def _ids(players: Sequence[PlayerRow]) -> dict[str, int]:
    return {p.nickname: p.id for p in players}


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
    "StagePart",
    "accept",
    "cancel",
    "check_offer",
    "chief_tournaments",
    "generator_data",
    "make_offer",
    "offer_plan",
    "overview",
    "prepare_offer",
    "prepare_other_way",
    "prepare_regeneration",
]
