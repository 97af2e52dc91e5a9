"""Game entry (docs/organiser.md): the judge's step-by-step card, Save, the chief
judge's approvals (D7), corrections and annulment, and the first-killed player's own
best move.

The card's steps are ``steps/`` (one module each, assembled in ``steps.CARD``); the
use cases are ``bot.services.games``. ``CardContext`` gives every handler here its
``deps`` and ``ctx``.
"""

from __future__ import annotations

from aiogram import Router

from handlers.game_entry import (
    approvals,
    best_move,
    corrections,
    entry,
    roster,
    save,
)
from handlers.game_entry.context import CardContext
from handlers.game_entry.steps import CARD

router = Router(name="game_entry")
# save before entry: Save is a Step button with its own handler.
router.include_routers(
    save.router,
    best_move.router,
    approvals.router,
    roster.router,
    corrections.router,
    entry.router,
)
# Inner middlewares: they run for this router's handlers only, those of its sub-routers
# included, once a handler's filters have matched.
_context = CardContext(CARD)
router.callback_query.middleware(_context)
router.message.middleware(_context)

__all__ = ["router"]
