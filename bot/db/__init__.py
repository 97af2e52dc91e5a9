"""The bot's SQLite storage: one ``Database``, migrations, and repository modules.

Repositories are plain async functions taking the connection of a
``db.transaction()`` / ``db.read()`` block, so a handler composes several in one
transaction::

    async with db.transaction() as conn:
        game_id = await games.save_game(conn, tournament.id, draft, judge_id, ended_at)
        await audit.audit(conn, action="game.save", entity="game", entity_id=game_id, ...)
"""

from bot.db.connection import Conn, Database, backup_file, backup_file_sync
from bot.db.errors import DatabaseTooNew, DbError
from bot.db.migrations import LATEST, MIGRATIONS

__all__ = [
    "LATEST",
    "MIGRATIONS",
    "Conn",
    "Database",
    "DatabaseTooNew",
    "DbError",
    "backup_file",
    "backup_file_sync",
]
