"""Step 4: how many players left by the day-1 vote (8.3.6 ends the best move at 2)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft
from handlers.game_entry.flow import STALE
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.steps import best_move
from handlers.game_entry.view import View
from scoring.judging import DAY1_CHOICES


def prompt(d: Draft, view: View) -> list[str]:
    return [_("How many players left the game by the day-1 vote?")]


def buttons(k: Keys, view: View) -> None:
    k.row(*(k.button(("✓ " if k.d.day1 == n else "") + str(n), "set", n) for n in DAY1_CHOICES))


async def set_day1(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in DAY1_CHOICES:
        return _(STALE)
    return await best_move.with_best_move(ctx, d, {"type": "day1", "count": data.n})


SPEC = StepSpec(
    code="d1",
    state=GameEntry.day1,
    title=__("Day 1"),
    prompt=prompt,
    keyboard=buttons,
    done=lambda d: d.day1 is not None,
    actions={"set": set_day1},
)
