"""Step 5: the seat shot on night 1, or a miss."""

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
from scoring import SEAT_NUMBERS, SEATS

MISS = 0  # ``Draft.night`` of a night without a shot


def prompt(d: Draft, view: View) -> list[str]:
    return [_("Which seat was shot on night 1? Or a miss.")]


def buttons(k: Keys, view: View) -> None:
    d = k.d
    k.seats("set", {n: f"✓{n}" for n in SEAT_NUMBERS if n == d.night})
    k.row(k.button(("✓ " if d.night == MISS else "") + _("Miss (nobody shot)"), "set", MISS))


async def set_night1(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in range(SEATS + 1):
        return _(STALE)
    command = {"type": "night1", "seat": data.n or None}
    return await best_move.with_best_move(ctx, d, command)


SPEC = StepSpec(
    code="n1",
    state=GameEntry.night1,
    title=__("Night 1"),
    prompt=prompt,
    keyboard=buttons,
    done=lambda d: d.night is not None,
    actions={"set": set_night1},
)
