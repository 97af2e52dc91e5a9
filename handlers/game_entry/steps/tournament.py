"""Before step 1: the judge of several running tournaments picks the game's one."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.reads import card_reads
from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft
from handlers.game_entry.flow import STALE
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import SEATS


def prompt(d: Draft, view: View) -> list[str]:
    return [_("You judge several running tournaments. Which one is this game in?")]


def buttons(k: Keys, view: View) -> None:
    for tid in k.d.choices:
        k.row(k.button(view.tournaments.get(tid, f"#{tid}"), "pick", tid))


async def load(ctx: Ctx, d: Draft, view: View) -> None:
    view.tournaments.update(await card_reads.titles(ctx.db, d.choices))


async def pick(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in d.choices:
        return _(STALE)
    t, role = await card_reads.tournament_and_staff_role(ctx.db, data.n, ctx.user_id)
    if t is None or t.status != "running" or role not in ("chief", "judge"):
        return _("You can't enter games in this tournament now.")
    if d.tid != data.n:
        d.tid = data.n
        d.round = d.table = None
        d.players = [None] * SEATS
        d.sheriff = d.don = None
        d.mafia = []
    ctx.go(d, ctx.card.first)
    return None


SPEC = StepSpec(
    code="tn",
    state=GameEntry.tournament,
    title=__("Tournament"),
    prompt=prompt,
    keyboard=buttons,
    load=load,
    actions={"pick": pick},
    prelude=True,
)
