"""The buttons every step has: Back, Next, Review (and a button that does nothing)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft
from handlers.game_entry.spec import Action, Ctx


async def back(ctx: Ctx, d: Draft, data: Step) -> str | None:
    card = ctx.card
    previous = card.previous(d, d.step)
    if previous is None:
        if d.step == card.first and len(d.choices) > 1:
            ctx.go(d, card.prelude.code)
            return None
        return _("This is the first step.")
    ctx.go(d, previous)
    return None


async def forward(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if not ctx.card.done(d, d.step):
        return _("Finish this step first.")
    ctx.go_on(d)
    return None


async def to_review(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if not ctx.card.complete(d):
        return _("Finish the earlier steps first.")
    ctx.go(d, ctx.card.review)
    return None


async def noop(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return _("Nothing to change here.")


ACTIONS: dict[str, Action] = {"back": back, "next": forward, "review": to_review, "noop": noop}
