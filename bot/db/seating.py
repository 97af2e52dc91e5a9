"""Seating plans: the chief judge's offers and each tournament's accepted plan.

A row keeps the generator's request (docs/formats.md#seating, its seed included), the
ids of the request's players in its order (names in the request and the plan are
nicknames as they were then), and the plan's JSON. A tournament has at most one
``accepted`` plan; accepting another turns it ``replaced`` and drops every offer
still open. Offers are drafts: a newer one of the same chief judge, a cancel or an
accept deletes them.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, insert, run
from bot.db.errors import NotFound
from bot.db.timeutil import from_ts, opt_from_ts, ts_or_now

PlanStatus = Literal["offered", "accepted", "replaced"]


@dataclass(frozen=True, slots=True)
class SeatingPlanRow:
    id: int
    tournament_id: int
    status: PlanStatus
    request: dict[str, Any]  # the contract's request, seed included
    player_ids: tuple[int, ...]  # player_ids[n] is request["players"][n]
    plan: dict[str, Any]  # the contract's plan, quality included
    base_plan_id: int | None  # the accepted plan when this one was made
    created_by: int
    created_at: datetime
    accepted_by: int | None
    accepted_at: datetime | None

    @property
    def seed(self) -> int:
        return int(self.request.get("seed", 0))

    @property
    def tables(self) -> int:
        return int(self.request["tables"])


def _row(r: sqlite3.Row) -> SeatingPlanRow:
    return SeatingPlanRow(
        id=r["id"],
        tournament_id=r["tournament_id"],
        status=cast(PlanStatus, r["status"]),
        request=json.loads(r["request"]),
        player_ids=tuple(json.loads(r["player_ids"])),
        plan=json.loads(r["plan"]),
        base_plan_id=r["base_plan_id"],
        created_by=r["created_by"],
        created_at=from_ts(r["created_at"]),
        accepted_by=r["accepted_by"],
        accepted_at=opt_from_ts(r["accepted_at"]),
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


async def add_offer(
    conn: Conn,
    tournament_id: int,
    *,
    request: dict[str, Any],
    player_ids: list[int] | tuple[int, ...],
    plan: dict[str, Any],
    base_plan_id: int | None,
    created_by: int,
    now: datetime | None = None,
) -> SeatingPlanRow:
    """Store a new offer; the same chief judge's earlier offers of the tournament go."""
    if len(player_ids) != len(request.get("players", ())):
        raise ValueError("player_ids must name every player of the request, in its order")
    await run(
        conn,
        "DELETE FROM seating_plans WHERE tournament_id = ? AND status = 'offered'"
        " AND created_by = ?",
        (tournament_id, created_by),
    )
    plan_id = await insert(
        conn,
        "INSERT INTO seating_plans (tournament_id, request, player_ids, plan, base_plan_id,"
        " created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            tournament_id,
            _json(request),
            _json(list(player_ids)),
            _json(plan),
            base_plan_id,
            created_by,
            ts_or_now(now),
        ),
    )
    return await require_plan(conn, plan_id)


async def get_plan(conn: Conn, plan_id: int) -> SeatingPlanRow | None:
    r = await fetch_one(conn, "SELECT * FROM seating_plans WHERE id = ?", (plan_id,))
    return None if r is None else _row(r)


async def require_plan(conn: Conn, plan_id: int) -> SeatingPlanRow:
    row = await get_plan(conn, plan_id)
    if row is None:
        raise NotFound("seating plan", plan_id)
    return row


async def accepted_plan(conn: Conn, tournament_id: int) -> SeatingPlanRow | None:
    r = await fetch_one(
        conn,
        "SELECT * FROM seating_plans WHERE tournament_id = ? AND status = 'accepted'",
        (tournament_id,),
    )
    return None if r is None else _row(r)


async def accept_plan(
    conn: Conn, plan_id: int, *, accepted_by: int, now: datetime | None = None
) -> SeatingPlanRow:
    """Make the offer the tournament's plan: the accepted one before it becomes
    ``replaced``, the tournament's other offers are deleted. Call it inside the
    caller's transaction, having checked the offer is still ``offered``."""
    offer = await require_plan(conn, plan_id)
    if offer.status != "offered":
        raise ValueError(f"seating plan {plan_id} is {offer.status}, not an offer")
    await run(
        conn,
        "UPDATE seating_plans SET status = 'replaced' WHERE tournament_id = ?"
        " AND status = 'accepted'",
        (offer.tournament_id,),
    )
    await run(
        conn,
        "UPDATE seating_plans SET status = 'accepted', accepted_by = ?, accepted_at = ?"
        " WHERE id = ?",
        (accepted_by, ts_or_now(now), plan_id),
    )
    await run(
        conn,
        "DELETE FROM seating_plans WHERE tournament_id = ? AND status = 'offered'",
        (offer.tournament_id,),
    )
    return await require_plan(conn, plan_id)


async def discard_offer(conn: Conn, plan_id: int) -> bool:
    """Delete an offer (never an accepted or replaced plan); False if there was none."""
    return (
        await run(
            conn, "DELETE FROM seating_plans WHERE id = ? AND status = 'offered'", (plan_id,)
        )
        > 0
    )


async def list_plans(
    conn: Conn, tournament_id: int, *, status: PlanStatus | None = None
) -> list[SeatingPlanRow]:
    """The tournament's plans, oldest first."""
    rows = await fetch_all(
        conn,
        "SELECT * FROM seating_plans WHERE tournament_id = ? AND (? IS NULL OR status = ?)"
        " ORDER BY id",
        (tournament_id, status, status),
    )
    return [_row(r) for r in rows]
