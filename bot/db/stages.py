"""A tournament's stages (docs/rules.md D13-D17) and the entrants of each later stage.

No rows: the tournament is one stage over its distance, exactly as before stages. The
current stage is the first one not closed. carry and weight are stored as the exact
decimal strings the chief judge typed (D3, D15); ``Fraction`` reads them back exactly.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, insert, run
from bot.db.games import game_code
from bot.db.timeutil import opt_from_ts, ts_or_now
from scoring import Ruleset, Stage

StageStatus = Literal["planned", "running", "closed"]
Entered = Literal["cut", "lot", "replacement"]


@dataclass(frozen=True, slots=True)
class StageSpec:
    """What the chief judge sets for a stage (D13-D15, D17)."""

    name: str
    games_per_player: int  # the stage's distance (D14)
    entrants: int | None  # the top N of the stage before; None: the first stage (D13)
    carry: str = "0"  # exact decimal strings (D3, D15)
    weight: str = "1"
    compensation: bool = True  # 8.6 in this stage (D14)
    hidden: bool = False  # standings hidden from the group and players until it ends (D17)


@dataclass(frozen=True, slots=True)
class StageRow:
    id: int
    tournament_id: int
    number: int  # 1, 2, ... in the order played
    name: str
    games_per_player: int  # the stage's distance (D14)
    entrants: int | None  # the top N of the stage before; None on the first stage (D13)
    carry: str  # exact decimal strings (D3, D15)
    weight: str
    compensation: bool  # 8.6 in this stage (D14)
    hidden: bool  # standings hidden from the group and players until it ends (D17)
    status: StageStatus
    closed_at: datetime | None

    @property
    def hides_figures(self) -> bool:
        """D17: the group and the players see no points or places of this stage now: it
        is hidden and has not ended (closing it, or finishing the tournament, shows it)."""
        return self.hidden and self.status != "closed"

    @property
    def rules(self) -> Ruleset:
        return Ruleset(
            self.games_per_player, self.compensation, Fraction(self.carry), Fraction(self.weight)
        )

    @property
    def spec(self) -> StageSpec:
        return StageSpec(
            self.name,
            self.games_per_player,
            self.entrants,
            self.carry,
            self.weight,
            self.compensation,
            self.hidden,
        )

    def stage(self, replaced: Mapping[str, str], lot: tuple[str, ...]) -> Stage:
        """The engine's stage; its id is the stage's name (unique in a tournament)."""
        return Stage(self.name, self.rules, self.entrants, replaced, lot)


@dataclass(frozen=True, slots=True)
class EntrantRow:
    stage_id: int
    player_id: int
    entered: Entered
    replaced: int | None  # the withdrawn entrant whose place he took


def _row(r: sqlite3.Row) -> StageRow:
    return StageRow(
        id=r["id"],
        tournament_id=r["tournament_id"],
        number=r["number"],
        name=r["name"],
        games_per_player=r["games_per_player"],
        entrants=r["entrants"],
        carry=r["carry"],
        weight=r["weight"],
        compensation=bool(r["compensation"]),
        hidden=bool(r["hidden"]),
        status=cast(StageStatus, r["status"]),
        closed_at=opt_from_ts(r["closed_at"]),
    )


async def list_stages(conn: Conn, tournament_id: int) -> list[StageRow]:
    """The tournament's stages in order; [] for a tournament of one implicit stage."""
    rows = await fetch_all(
        conn, "SELECT * FROM stages WHERE tournament_id = ? ORDER BY number", (tournament_id,)
    )
    return [_row(r) for r in rows]


def current_stage(stages: list[StageRow]) -> StageRow | None:
    """The first stage not closed (the last one once all are closed)."""
    for stage in stages:
        if stage.status != "closed":
            return stage
    return stages[-1] if stages else None


async def add_stage(
    conn: Conn, tournament_id: int, spec: StageSpec, *, status: StageStatus = "planned"
) -> StageRow:
    """Append a stage after the last one."""
    number = await fetch_one(
        conn,
        "SELECT coalesce(max(number), 0) + 1 FROM stages WHERE tournament_id = ?",
        (tournament_id,),
    )
    assert number is not None
    stage_id = await insert(
        conn,
        "INSERT INTO stages (tournament_id, number, status, name, games_per_player, entrants,"
        " carry, weight, compensation, hidden) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (tournament_id, int(number[0]), status, *_values(spec)),
    )
    found = await get_stage(conn, stage_id)
    assert found is not None
    return found


def _values(spec: StageSpec) -> tuple[object, ...]:
    return (
        spec.name,
        spec.games_per_player,
        spec.entrants,
        spec.carry,
        spec.weight,
        int(spec.compensation),
        int(spec.hidden),
    )


async def get_stage(conn: Conn, stage_id: int) -> StageRow | None:
    r = await fetch_one(conn, "SELECT * FROM stages WHERE id = ?", (stage_id,))
    return None if r is None else _row(r)


async def update_stage(conn: Conn, stage_id: int, spec: StageSpec) -> StageRow:
    await run(
        conn,
        "UPDATE stages SET name = ?, games_per_player = ?, entrants = ?, carry = ?, weight = ?,"
        " compensation = ?, hidden = ? WHERE id = ?",
        (*_values(spec), stage_id),
    )
    found = await get_stage(conn, stage_id)
    assert found is not None
    return found


async def set_status(
    conn: Conn, stage_id: int, status: StageStatus, *, now: datetime | None = None
) -> None:
    closed_at = ts_or_now(now) if status == "closed" else None
    await run(
        conn,
        "UPDATE stages SET status = ?, closed_at = ? WHERE id = ?",
        (status, closed_at, stage_id),
    )


async def add_entrant(
    conn: Conn, stage_id: int, player_id: int, entered: Entered, replaced: int | None = None
) -> None:
    await run(
        conn,
        "INSERT INTO stage_entrants (stage_id, player_id, entered, replaced) VALUES (?, ?, ?, ?)",
        (stage_id, player_id, entered, replaced),
    )


async def remove_entrant(conn: Conn, stage_id: int, player_id: int) -> None:
    await run(
        conn,
        "DELETE FROM stage_entrants WHERE stage_id = ? AND player_id = ?",
        (stage_id, player_id),
    )


async def entrants_of(conn: Conn, stage_id: int) -> list[EntrantRow]:
    rows = await fetch_all(conn, "SELECT * FROM stage_entrants WHERE stage_id = ?", (stage_id,))
    return [
        EntrantRow(r["stage_id"], r["player_id"], cast(Entered, r["entered"]), r["replaced"])
        for r in rows
    ]


async def games_of_stage(conn: Conn, tournament_id: int, number: int) -> int:
    """How many games (not annulled) the stage has; NULL is the first stage."""
    r = await fetch_one(
        conn,
        "SELECT count(*) FROM games WHERE tournament_id = ? AND status <> 'annulled'"
        " AND coalesce(stage, 1) = ?",
        (tournament_id, number),
    )
    assert r is not None
    return int(r[0])


async def game_stages(conn: Conn, tournament_id: int) -> dict[int, int]:
    """Game id → stage number of the tournament's games that count."""
    rows = await fetch_all(
        conn,
        "SELECT id, coalesce(stage, 1) FROM games WHERE tournament_id = ? AND status <> 'annulled'",
        (tournament_id,),
    )
    return {int(r[0]): int(r[1]) for r in rows}


async def last_rounds(conn: Conn, tournament_id: int) -> dict[int, int]:
    """Stage number → the highest round of its games that count."""
    rows = await fetch_all(
        conn,
        "SELECT coalesce(stage, 1), max(round) FROM games WHERE tournament_id = ?"
        " AND status <> 'annulled' GROUP BY coalesce(stage, 1)",
        (tournament_id,),
    )
    return {int(r[0]): int(r[1]) for r in rows}


async def game_hides_figures(conn: Conn, game_id: int) -> bool:
    """Whether the stage of game ``game_id`` hides its figures now (D17)."""
    r = await fetch_one(
        conn,
        "SELECT s.* FROM games g JOIN stages s ON s.tournament_id = g.tournament_id"
        " AND s.number = coalesce(g.stage, 1) WHERE g.id = ?",
        (game_id,),
    )
    return r is not None and _row(r).hides_figures


async def set_game_stage(conn: Conn, game_id: int, number: int | None) -> None:
    await run(conn, "UPDATE games SET stage = ? WHERE id = ?", (number, game_id))


async def unsettled_games(conn: Conn, tournament_id: int, number: int) -> list[tuple[int, int]]:
    """(round, table) of the stage's games whose judge's points above 0.5 wait for the
    chief judge (D7)."""
    rows = await fetch_all(
        conn,
        "SELECT round, table_no FROM games WHERE tournament_id = ? AND status = 'pending'"
        " AND coalesce(stage, 1) = ? ORDER BY round, table_no",
        (tournament_id, number),
    )
    return [(int(r[0]), int(r[1])) for r in rows]


async def open_protests(conn: Conn, tournament_id: int, number: int) -> list[tuple[int, int, int]]:
    """(protest id, round, table) of the stage's open protests (8.8)."""
    rows = await fetch_all(
        conn,
        "SELECT p.id, g.round, g.table_no FROM protests p JOIN games g ON g.id = p.game_id"
        " WHERE g.tournament_id = ? AND p.status = 'open' AND g.status <> 'annulled'"
        " AND coalesce(g.stage, 1) = ? ORDER BY p.id",
        (tournament_id, number),
    )
    return [(int(r[0]), int(r[1]), int(r[2])) for r in rows]


async def seating_entrants(
    conn: Conn, tournament_id: int, game_id: int | None
) -> tuple[str, frozenset[int]] | None:
    """The stage a game is seated for (``game_id``'s own, else the current one) and its
    entrants' ids; None when anybody may sit (no stages, or the first stage)."""
    if game_id is not None:
        number = await fetch_one(
            conn, "SELECT coalesce(stage, 1) FROM games WHERE id = ?", (game_id,)
        )
        wanted = None if number is None else int(number[0])
    else:
        wanted = None
    stages = await list_stages(conn, tournament_id)
    stage = (
        current_stage(stages)
        if wanted is None
        else next((row for row in stages if row.number == wanted), None)
    )
    if stage is None or stage.entrants is None:
        return None
    return stage.name, frozenset(e.player_id for e in await entrants_of(conn, stage.id))


async def replacements(
    conn: Conn, tournament_id: int, stages: Sequence[StageRow]
) -> dict[int, dict[str, str]]:
    """Stage number → withdrawn entrant → who took his place (D13), by nickname."""
    names = {
        int(r[0]): str(r[1])
        for r in await fetch_all(
            conn, "SELECT id, nickname FROM players WHERE tournament_id = ?", (tournament_id,)
        )
    }
    found: dict[int, dict[str, str]] = {}
    for row in stages:
        for entrant in await entrants_of(conn, row.id):
            if entrant.replaced is not None:
                out, into = names[entrant.replaced], names[entrant.player_id]
                found.setdefault(row.number, {})[out] = into
    return found


async def stage_of_games(conn: Conn, tournament_id: int) -> dict[str, int]:
    """Game code (``R1-T2``) → stage number, of the games that count."""
    rows = await fetch_all(
        conn,
        "SELECT round, table_no, coalesce(stage, 1) FROM games WHERE tournament_id = ?"
        " AND status <> 'annulled'",
        (tournament_id,),
    )
    return {game_code(int(r[0]), int(r[1])): int(r[2]) for r in rows}


async def close_all(conn: Conn, tournament_id: int, *, now: datetime | None = None) -> int:
    """The tournament finished: every stage ends with it (D17: a hidden one is shown)."""
    return await run(
        conn,
        "UPDATE stages SET status = 'closed', closed_at = ? WHERE tournament_id = ?"
        " AND status <> 'closed'",
        (ts_or_now(now), tournament_id),
    )
