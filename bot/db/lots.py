"""Drawn lots (8.7.5, D12): once per tied group of a stage, recorded so the standings
stay stable. Each stage has its own lot (D15): a group drawn at the cut of the
qualifying and the same players tied in the final are two draws. A tournament without
stages draws all its lots in stage 1."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.db.connection import Conn, fetch_all, fetch_one, run
from bot.db.errors import InvalidLot
from bot.db.timeutil import from_ts, ts_or_now


@dataclass(frozen=True, slots=True)
class LotRow:
    id: int
    tournament_id: int
    stage: int  # the stage's number; 1 without stages
    group: tuple[int, ...]  # the tied players' ids, ascending
    order: tuple[int, ...]  # the same ids in drawn order, first = best place
    drawn_by: int
    drawn_at: datetime


def group_key(player_ids: Sequence[int]) -> str:
    return ",".join(str(i) for i in sorted(player_ids))


def _row(r: sqlite3.Row) -> LotRow:
    order = tuple(int(i) for i in json.loads(r["drawn_order"]))
    return LotRow(
        id=r["id"],
        tournament_id=r["tournament_id"],
        stage=r["stage"],
        group=tuple(sorted(order)),
        order=order,
        drawn_by=r["drawn_by"],
        drawn_at=from_ts(r["drawn_at"]),
    )


async def get_lot(
    conn: Conn, tournament_id: int, player_ids: Sequence[int], *, stage: int = 1
) -> LotRow | None:
    r = await fetch_one(
        conn,
        "SELECT * FROM lots WHERE tournament_id = ? AND stage = ? AND group_key = ?",
        (tournament_id, stage, group_key(player_ids)),
    )
    return None if r is None else _row(r)


async def record_lot(
    conn: Conn,
    tournament_id: int,
    order: Sequence[int],
    *,
    drawn_by: int,
    stage: int = 1,
    now: datetime | None = None,
) -> LotRow:
    """Record the drawn order of a tied group of stage ``stage``.

    A group drawn before in that stage keeps its first draw (returned unchanged), so a repeated tap
    or a redelivered update cannot reshuffle the standings.
    """
    ids = [int(i) for i in order]
    if len(ids) < 2 or len(set(ids)) != len(ids):
        raise InvalidLot("a lot orders two or more distinct players")
    known = await fetch_all(
        conn,
        "SELECT id FROM players WHERE tournament_id = ? AND id IN (SELECT value FROM json_each(?))",
        (tournament_id, json.dumps(ids)),
    )
    if len(known) != len(ids):
        raise InvalidLot("a lot names players who are not in this tournament")
    await run(
        conn,
        "INSERT INTO lots (tournament_id, stage, group_key, drawn_order, drawn_by, drawn_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tournament_id, stage, group_key) DO NOTHING",
        (tournament_id, stage, group_key(ids), json.dumps(ids), drawn_by, ts_or_now(now)),
    )
    row = await get_lot(conn, tournament_id, ids, stage=stage)
    assert row is not None
    return row


async def lots_for_tournament(conn: Conn, tournament_id: int) -> list[LotRow]:
    """All recorded lots of every stage, oldest first."""
    rows = await fetch_all(
        conn, "SELECT * FROM lots WHERE tournament_id = ? ORDER BY drawn_at, id", (tournament_id,)
    )
    return [_row(r) for r in rows]
