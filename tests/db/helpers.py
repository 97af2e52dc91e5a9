"""Constants and builders shared by the storage tests."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime

from bot.db.games import GameDraft, SeatDraft
from scoring.model import Result, Role

CHIEF = 1000
JUDGE = 1001
ENDED = datetime(2025, 5, 1, 18, 0, 0, tzinfo=UTC)

# Seat roles in a legal order: 6 civilians, sheriff, 2 mafia, don.
ROLES = (
    Role.CIVILIAN,
    Role.MAFIA,
    Role.CIVILIAN,
    Role.CIVILIAN,
    Role.SHERIFF,
    Role.CIVILIAN,
    Role.DON,
    Role.CIVILIAN,
    Role.MAFIA,
    Role.CIVILIAN,
)

_drafts = itertools.count(1)


def make_draft(
    player_ids: Sequence[int],
    *,
    round_no: int = 1,
    table_no: int = 1,
    draft_id: str | None = None,
    result: Result = Result.RED,
    extras: dict[int, int] | None = None,
    **game: object,
) -> GameDraft:
    extras = extras or {}
    seats = tuple(
        SeatDraft(player_id=pid, role=ROLES[i], judge_extra=extras.get(i + 1, 0))
        for i, pid in enumerate(player_ids[:10])
    )
    return GameDraft(
        draft_id=draft_id or f"draft-{next(_drafts)}",
        round=round_no,
        table_no=table_no,
        result=result,
        seats=seats,
        **game,  # type: ignore[arg-type]
    )
