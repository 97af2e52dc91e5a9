"""Step 8: seats disqualified from the table (−0.5 each, 8.2.4)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from handlers.game_entry.callbacks import Step
from handlers.game_entry.commands import run
from handlers.game_entry.draft import Draft
from handlers.game_entry.flow import STALE
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import SEAT_NUMBERS


def prompt(d: Draft, view: View) -> list[str]:
    return [_("Tap the seats disqualified from the table (−0.5 each, 8.2.4), then Next.")]


def buttons(k: Keys, view: View) -> None:
    k.seats("tap", {n: f"✖{n}" for n in k.d.dq})


async def toggle(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    kind = "undisqualify" if data.n in d.dq else "disqualify"
    return run(d, {"type": kind, "seat": data.n})


SPEC = StepSpec(
    code="dq",
    state=GameEntry.disqualify,
    title=__("Disqualifications"),
    prompt=prompt,
    keyboard=buttons,
    actions={"tap": toggle},
)
