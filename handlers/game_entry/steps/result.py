"""Step 7: the result (a draw takes the judge's extra points away, 8.4.7; the protocol
clears what the new result no longer allows)."""

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
from scoring import Result

# The buttons' ``n`` of each result.
RESULT_CODES = {1: Result.RED, 2: Result.BLACK, 3: Result.DRAW}


def prompt(d: Draft, view: View) -> list[str]:
    return [_("The result of the game?")]


def buttons(k: Keys, view: View) -> None:
    names = {
        1: "🔴 " + _("Red win"),
        2: "⚫ " + _("Black win"),
        3: "🤝 " + _("Draw"),
    }
    chosen = k.d.result
    k.row(
        *(
            k.button(("✓ " if RESULT_CODES[code].value == chosen else "") + text, "set", code)
            for code, text in names.items()
        )
    )


async def set_result(ctx: Ctx, d: Draft, data: Step) -> str | None:
    result = RESULT_CODES.get(data.n)
    if result is None:
        return _(STALE)
    refusal = run(d, {"type": "result", "result": result.value})  # 8.4.7, D8 knock-ons
    if refusal is not None:
        return refusal
    ctx.go_on(d)
    return None


SPEC = StepSpec(
    code="re",
    state=GameEntry.result,
    title=__("Result"),
    prompt=prompt,
    keyboard=buttons,
    done=lambda d: d.result is not None,
    actions={"set": set_result},
)
