"""Step 11, the review: every seat's points, any step to go back to, and Save (its
handler is ``save.py``)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.reads import card_reads
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import points_lines
from handlers.game_entry.draft import Draft, scoring_game
from handlers.game_entry.flow import STALE
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import game_breakdown
from scoring.judging import first_killed_ci


def buttons(k: Keys, view: View) -> None:
    d, card = k.d, k.card
    assert card is not None
    if not view.issues and view.breakdown is not None:
        label = _("Save the correction") if d.mode == "correct" else _("Save")
        k.row(k.button("💾 " + label, "save"))
    steps = [s for s in card.visible(d) if s != card.review]
    k.rows_of(
        [
            k.button(f"{card.number(s)}. {card.spec(s).title}", "goto", card.number(s) - 1)
            for s in steps
        ],
        2,
    )


async def load(ctx: Ctx, d: Draft, view: View) -> None:
    """The points of every seat, once nothing is left to fix; Ci over the tournament."""
    game = scoring_game(d, view.names())
    if game is None or view.issues or not ctx.card.complete(d):
        return
    t = await card_reads.tournament_model(ctx.db, ctx.standings, d.tid)
    view.ci_info = first_killed_ci(t, game, replaces=view.original_code)
    view.breakdown = game_breakdown(game, ci=view.ci_info.ci)


async def goto(ctx: Ctx, d: Draft, data: Step) -> str | None:
    order = ctx.card.order
    if data.n not in range(len(order) - 1):
        return _(STALE)
    step = order[data.n]
    if not ctx.card.applies(d, step):
        return _("This step does not apply to this game.")
    ctx.go(d, step)
    return None


SPEC = StepSpec(
    code="rv",
    state=GameEntry.review,
    title=__("Review"),
    prompt=points_lines,
    keyboard=buttons,
    load=load,
    actions={"goto": goto},
    lists_seats=True,
)
