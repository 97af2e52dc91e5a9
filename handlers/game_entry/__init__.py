"""Game entry (docs/organiser.md): the judge's step-by-step card, Save, the chief
judge's approvals (D7), corrections and annulment, and the first-killed player's own
best move.

The card's steps are ``steps/`` (one module each, assembled in ``steps.CARD``, which
the app's wiring puts in the Dispatcher's workflow data as ``card``); the use cases
are ``bot.services.game_save`` (the Save) and ``bot.services.games``. Every handler
here takes what it uses by name, as the other routers do, and builds the card's
``spec.Ctx`` from it where it works on a card.
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

router = Router(name="game_entry")
# save before entry: Save is a Step button with its own handler. Then entry, whose
# card taps are most of the bot's updates: the others' buttons have prefixes of their
# own and their one command (/games) is none of entry's, so they come after it.
router.include_routers(
    save.router,
    entry.router,
    best_move.router,
    approvals.router,
    roster.router,
    corrections.router,
)

__all__ = ["router"]
