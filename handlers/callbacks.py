"""Callback data shared between feature routers (each router keeps its own otherwise)."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class GameMenu(CallbackData, prefix="gm"):
    """Open a saved game's menu for the chief judge: correct any step or annul it.

    Sent by /games and by an upheld protest (8.8.2); handled by the game-entry router.
    """

    game_id: int
