"""A card whose game was saved in the live protocol (README, "The live protocol").

The Mini App's Save stores the card's own game (the same ``draft_id``), so the card's
draft is closed then, as a Save on the card closes the live draft: whatever the judge
does with the card next (a tap, typed text, /game, /cancel) finds it closed. Its message
says where the game went and loses its buttons, the first-killed player's request loses
its own, and nothing is changed.
"""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot.services import live
from bot.services.records import GameRecord
from handlers.game_entry.draft import Draft
from handlers.game_entry.flow import retire_card
from handlers.game_entry.spec import Ctx
from handlers.game_entry.steps.best_move import void_request
from scoring import N_

SAVED_LIVE = N_("This game was saved in the live protocol as game {code}; nothing was "
                "changed on this card.")
PLAYER_TOLD = N_("The judge saved this game in the live protocol.")


def saved_live_text(game: GameRecord) -> str:
    """What the judge is told, in the current locale."""
    return _(SAVED_LIVE).format(code=game.code)


async def closed_by_live(ctx: Ctx, d: Draft) -> GameRecord | None:
    """The game, when the live protocol saved the card's game: the card is then closed
    (``close_card``). None: the card goes on (a live draft exists only once the seats
    are filled)."""
    if d.mode != "new" or not d.seats_done:
        return None
    game = await live.saved_live(ctx.db, d.draft_id)
    if game is None:
        return None
    await close_card(ctx, d, game)
    return game


async def close_card(ctx: Ctx, d: Draft, game: GameRecord) -> None:
    """The card's draft is dropped, its message and the player's best-move request say
    where the game went, without buttons."""
    await ctx.state.clear()
    with ctx.i18n.use_locale(d.locale):
        text = "📱 " + saved_live_text(game)
    await retire_card(ctx.bot, d.card_chat, d.card_id, text)
    await void_request(ctx.bot, ctx.i18n, d, PLAYER_TOLD)
