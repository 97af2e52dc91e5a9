"""The tournaments of a database, for ``python -m bot export`` without a known id. Apart
from bot.reads.export so that listing them loads none of the export's texts (nor aiogram,
whose gettext they use)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.db import tournaments
from bot.db.connection import Database
from bot.db.tournaments import TournamentRow


async def list_tournaments(database_path: str | Path) -> list[TournamentRow]:
    """Every tournament of the database, newest first: what ``python -m bot export``
    shows when the tournament's id is missing or unknown. Raises FileNotFoundError."""
    database_path = Path(database_path)
    if not await asyncio.to_thread(database_path.is_file):
        raise FileNotFoundError(f"no database at {database_path}")
    db = await Database.open(database_path)
    try:
        async with db.read() as conn:
            return await tournaments.all_tournaments(conn)
    finally:
        await db.close()
