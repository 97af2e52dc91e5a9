"""Fixtures of the storage tests. ``db``, a real database file per test, is tests/conftest.py's:
a copy of the worker's migrated one (tests/db/test_migrations.py migrates from scratch)."""

from __future__ import annotations

import pytest

from bot.db import Database
from bot.db.players import add_player
from bot.db.tournaments import TournamentRow, create_tournament
from tests.db.helpers import CHIEF


@pytest.fixture
async def tournament(db: Database) -> TournamentRow:
    async with db.transaction() as conn:
        return await create_tournament(
            conn, title="Spring Cup", distance=10, created_by=CHIEF, chat_id=-100
        )


@pytest.fixture
async def players(db: Database, tournament: TournamentRow) -> list[int]:
    """Twelve confirmed players; their nicknames are P1..P12."""
    async with db.transaction() as conn:
        return [
            (
                await add_player(conn, tournament.id, f"P{i}", status="confirmed", decided_by=CHIEF)
            ).id
            for i in range(1, 13)
        ]
