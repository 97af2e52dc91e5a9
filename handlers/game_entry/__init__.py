"""Game entry (README, "Using the bot"): the judge's step-by-step card, Save, the chief judge's
approvals (D7), corrections and annulment, and the first-killed player's own best move.
"""

from __future__ import annotations

from aiogram import Router

from handlers.game_entry import (
    approvals,
    best_move,
    corrections,
    review,  # noqa: F401 - registers the review's actions
    roster,
    save,
    steps,
)

router = Router(name="game_entry")
# save before steps: Save is a Step button with its own handler.
router.include_routers(
    save.router,
    best_move.router,
    approvals.router,
    roster.router,
    corrections.router,
    steps.router,
)

__all__ = ["router"]
