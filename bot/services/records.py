"""The records and constants the use cases hand to handlers and take from them: rows
of the database as values, the staff roles, the languages, the clock.

Handlers import these from here, never from ``bot.db``: they reach data only through
``bot.services`` (an import contract of ``make test``, pyproject.toml).
"""

from __future__ import annotations

from bot.db.connection import Database
from bot.db.errors import InvalidDraft, NotFound
from bot.db.games import ApprovalRow, GameDraft, GameRecord, SeatDraft
from bot.db.players import MAX_NICKNAME, PlayerRow
from bot.db.protests import ProtestRow
from bot.db.scoring_bridge import game_from_draft, game_from_record
from bot.db.stages import StageRow, StageSpec
from bot.db.timeutil import from_ts, to_ts, utcnow
from bot.db.tournaments import (
    CHIEF,
    DEFAULT_LANGUAGE,
    JUDGE,
    LANGUAGES,
    StaffRole,
    TournamentRow,
)

__all__ = [
    "CHIEF",
    "DEFAULT_LANGUAGE",
    "JUDGE",
    "LANGUAGES",
    "MAX_NICKNAME",
    "ApprovalRow",
    "Database",
    "GameDraft",
    "GameRecord",
    "InvalidDraft",
    "NotFound",
    "PlayerRow",
    "ProtestRow",
    "SeatDraft",
    "StaffRole",
    "StageRow",
    "StageSpec",
    "TournamentRow",
    "from_ts",
    "game_from_draft",
    "game_from_record",
    "to_ts",
    "utcnow",
]
