"""Seating plans in storage: schema version 5, offers, the one accepted plan."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.db import LATEST, MIGRATIONS, Database
from bot.db import seating as seating_repo
from bot.db.tournaments import TournamentRow
from tests.db.helpers import CHIEF

OTHER_CHIEF = CHIEF + 7


def request(players: list[str], seed: int = 1) -> dict[str, Any]:
    return {"players": players, "games_per_player": 1, "tables": 1, "seed": seed}


PLAN: dict[str, Any] = {
    "rounds": [{"round": 1, "tables": [{"table": 1, "seats": ["a"] * 10}], "sitting_out": []}],
    "quality": {"seat_spread": 0},
}


async def add(
    db: Database, tournament: TournamentRow, *, by: int = CHIEF, seed: int = 1
) -> seating_repo.SeatingPlanRow:
    async with db.transaction() as conn:
        base = await seating_repo.accepted_plan(conn, tournament.id)
        return await seating_repo.add_offer(
            conn,
            tournament.id,
            request=request([f"P{n}" for n in range(1, 11)], seed),
            player_ids=list(range(1, 11)),
            plan=PLAN,
            base_plan_id=None if base is None else base.id,
            created_by=by,
        )


async def statuses(db: Database, tournament: TournamentRow) -> list[tuple[int, str]]:
    async with db.read() as conn:
        return [(p.id, p.status) for p in await seating_repo.list_plans(conn, tournament.id)]


async def test_v5_adds_seating_plans_to_an_existing_database(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:4])
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Old', 8, 1, 0)"
    )
    await db.close()
    db = await Database.open(path)
    try:
        assert LATEST >= 5 and await db.fetchval("PRAGMA user_version") == LATEST
        assert await db.fetchval("SELECT title FROM tournaments") == "Old"
        assert await db.fetchval("SELECT count(*) FROM seating_plans") == 0
        with pytest.raises(sqlite3.IntegrityError):  # the JSON columns are checked
            await db.execute(
                "INSERT INTO seating_plans (tournament_id, request, player_ids, plan,"
                " created_by, created_at) VALUES (1, 'not json', '[]', '{}', 1, 0)"
            )
        with pytest.raises(sqlite3.IntegrityError):  # accepted says by whom and when
            await db.execute(
                "INSERT INTO seating_plans (tournament_id, status, request, player_ids, plan,"
                " created_by, created_at) VALUES (1, 'accepted', '{}', '[]', '{}', 1, 0)"
            )
    finally:
        await db.close()


async def test_offers_accept_and_replace(db: Database, tournament: TournamentRow) -> None:
    first = await add(db, tournament)
    assert (first.status, first.seed, first.tables, first.base_plan_id) == ("offered", 1, 1, None)
    assert first.player_ids == tuple(range(1, 11)) and first.plan == PLAN
    # A newer offer of the same chief judge replaces his older one; another's stays.
    second = await add(db, tournament, seed=2)
    theirs = await add(db, tournament, by=OTHER_CHIEF, seed=3)
    assert await statuses(db, tournament) == [(second.id, "offered"), (theirs.id, "offered")]
    assert second.id > first.id  # ids are never reused: old buttons can't reach new offers

    async with db.transaction() as conn:
        accepted = await seating_repo.accept_plan(conn, second.id, accepted_by=CHIEF)
    assert (accepted.status, accepted.accepted_by) == ("accepted", CHIEF)
    assert accepted.accepted_at is not None
    assert await statuses(db, tournament) == [(second.id, "accepted")]  # other offers dropped

    third = await add(db, tournament, seed=4)
    assert third.base_plan_id == second.id
    async with db.transaction() as conn:
        with pytest.raises(ValueError, match="not an offer"):
            await seating_repo.accept_plan(conn, second.id, accepted_by=CHIEF)
        assert not await seating_repo.discard_offer(conn, second.id)  # never an accepted plan
        await seating_repo.accept_plan(conn, third.id, accepted_by=OTHER_CHIEF)
        current = await seating_repo.accepted_plan(conn, tournament.id)
        assert current is not None and current.id == third.id
    assert await statuses(db, tournament) == [(second.id, "replaced"), (third.id, "accepted")]
    with pytest.raises(sqlite3.IntegrityError):  # one accepted plan per tournament
        await db.execute("UPDATE seating_plans SET status = 'accepted' WHERE id = ?", (second.id,))


async def test_discarding_an_offer_and_bad_input(db: Database, tournament: TournamentRow) -> None:
    row = await add(db, tournament)
    async with db.transaction() as conn:
        assert await seating_repo.discard_offer(conn, row.id)
        assert not await seating_repo.discard_offer(conn, row.id)
        assert await seating_repo.get_plan(conn, row.id) is None
        with pytest.raises(ValueError, match="every player"):
            await seating_repo.add_offer(
                conn, tournament.id, request=request(["A", "B"]), player_ids=[1],
                plan=PLAN, base_plan_id=None, created_by=CHIEF,
            )
    assert await statuses(db, tournament) == []
