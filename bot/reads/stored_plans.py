"""The accepted seating plan as the bot uses it: the plan stored as it was made
(``bot.db.seating``), its names followed through renames, and each name's player id;
read once per change of the database (``Database.cached``).

A plan is of one stage (docs/rules.md D13): its request names the stage's number
(``stage``; none: the first stage, as every plan made before the tournament had
stages). The accepted plan applies while its stage is the current one: once the
qualifying closes, its plan seats nobody in the final (the final's own plan does).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from bot.db import games as games_db
from bot.db import players as players_db
from bot.db import seating as seating_db
from bot.db import stages as stages_db
from bot.db.connection import Conn, Database
from bot.db.players import PlayerRow
from bot.db.seating import SeatingPlanRow
from bot.db.stages import StageRow
from seating import Plan, Quality, Round, Table


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
    stage: str | None = None  # the stage's name (D13) when the tournament has stages

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


def vacated(
    plan: Plan, numbers: Collection[int], names: Collection[str], label: Callable[[str], str]
) -> Plan:
    """``plan`` with the seats of ``names`` (withdrawn players) in the rounds ``numbers``
    written ``label(name)``: a substitute plays them; they don't sit those rounds out."""
    if not names:
        return plan
    rounds = tuple(
        r
        if r.round not in numbers
        else Round(
            round=r.round,
            tables=tuple(
                Table(table=t.table, seats=tuple(label(n) if n in names else n for n in t.seats))
                for t in r.tables
            ),
            sitting_out=tuple(n for n in r.sitting_out if n not in names),
        )
        for r in plan.rounds
    )
    return Plan(rounds=rounds, quality=plan.quality)


async def withdrawn_names(db: Database, tournament_id: int) -> set[str]:
    """Nicknames of the tournament's withdrawn players."""
    async with db.read() as conn:
        everyone = await players_db.list_players(conn, tournament_id, status="confirmed")
    return {p.nickname for p in everyone if not p.plays_on}


def stored_plan(row: SeatingPlanRow, everyone: Sequence[PlayerRow]) -> StoredPlan:
    old_names = [str(n) for n in row.request["players"]]
    current = {p.id: p.nickname for p in everyone}
    now = [current.get(pid, name) for pid, name in zip(row.player_ids, old_names, strict=True)]
    if len(set(now)) != len(now):  # two of them share a nickname now: keep the old names
        now = old_names
    plan = renamed(plan_from_dict(row.plan), dict(zip(old_names, now, strict=True)))
    return StoredPlan(row=row, plan=plan, ids=dict(zip(now, row.player_ids, strict=True)))


def plan_stage(row: SeatingPlanRow) -> int:
    """The number of the stage a stored plan seats (D13); 1 for a plan without one."""
    return int(row.request.get("stage", 1))


async def current_stage(conn: Conn, tournament_id: int) -> StageRow | None:
    """The tournament's current stage; None while it has no stages (one stage)."""
    return stages_db.current_stage(await stages_db.list_stages(conn, tournament_id))


async def current_row(conn: Conn, tournament_id: int) -> SeatingPlanRow | None:
    """The accepted plan if it is of the current stage (an earlier stage's plan no
    longer applies)."""
    row = await seating_db.accepted_plan(conn, tournament_id)
    if row is None:
        return None
    stage = await current_stage(conn, tournament_id)
    return row if plan_stage(row) == (1 if stage is None else stage.number) else None


async def load_accepted(conn: Conn, tournament_id: int) -> StoredPlan | None:
    """The accepted plan of the current stage, nicknames as they are now."""
    row = await current_row(conn, tournament_id)
    if row is None:
        return None
    stored = stored_plan(row, await players_db.list_players(conn, tournament_id))
    stage = await current_stage(conn, tournament_id)
    return stored if stage is None else replace(stored, stage=stage.name)


async def accepted_plan(db: Database, tournament_id: int) -> StoredPlan | None:
    """The tournament's accepted plan, nicknames as they are now; read once per change
    of the database."""
    return await db.cached(
        ("seating.accepted", tournament_id), partial(load_accepted, tournament_id=tournament_id)
    )


async def elsewhere_in_round(
    db: Database, tournament_id: int, round_no: int, table_no: int | None, except_id: int | None
) -> dict[int, int]:
    """Player id -> the other table of the round he plays at. A saved table counts as
    it was played (a substitute in, the planned player free again); a table not saved
    yet, as the accepted plan has it. ``except_id``: the game being corrected."""
    played = await db.cached(
        ("games.played_in_round", tournament_id, round_no, except_id),
        partial(games_db.played_in_round, tournament_id=tournament_id, round_no=round_no,
                except_id=except_id),
    )
    found: dict[int, int] = {}
    plan = await accepted_plan(db, tournament_id)
    if plan is not None:
        saved = set(played.values())
        for table in plan.tables_by_round().get(round_no, set()) - {table_no} - saved:
            found.update(dict.fromkeys(plan.seats_at(round_no, table) or (), table))
    found.update(played)
    return found
