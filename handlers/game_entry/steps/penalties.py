"""Step 9: penalties of 8.5 (−0.4 each). Only the penalties the rules allow for the
seat's role and the result are offered (D8, ``scoring.judging``)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.texts.rating_format import short_points
from bot.texts.vocabulary import ROLE_NAMES
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import PENALTY_NAMES
from handlers.game_entry.commands import run
from handlers.game_entry.draft import NO_SEAT, Draft
from handlers.game_entry.flow import STALE
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import PENALTY_RULES, SEAT_NUMBERS
from scoring.judging import penalties_allowed, penalty_points


def allowed(d: Draft, seat: int) -> tuple[str, ...]:
    return penalties_allowed(d.role(seat), d.result_value)


def prompt(d: Draft, view: View) -> list[str]:
    lines = [
        _("Penalties of 8.5 (−0.4 each): tap a seat, then the reason. Only the reasons the "
          "rules allow for the seat's role and the result are offered.")
    ]
    if d.sel not in SEAT_NUMBERS:
        lines.append("👆 " + _("Tap a seat first."))
        return lines
    role = d.role(d.sel)
    rules = allowed(d, d.sel)
    if role is not None:
        lines.append(
            _("Seat {seat} ({player}, {role}):").format(
                seat=d.sel, player=view.nickname(d.players[d.sel - 1]), role=ROLE_NAMES[role]
            )
        )
        if rules:
            lines.extend(f"• {r} — {PENALTY_NAMES[r]}" for r in rules)
        else:
            lines.append(_("no penalty of 8.5 applies to this seat in this game."))
    return lines


def seats(d: Draft) -> list[int]:
    """The seats offered: those a penalty applies to, and those given one."""
    return [n for n in SEAT_NUMBERS if allowed(d, n) or d.penalties.get(str(n))]


def buttons(k: Keys, view: View) -> None:
    d = k.d
    offered = seats(d)
    labels = []
    for n in offered:
        given = d.penalties.get(str(n), [])
        # What the seat's penalties cost (8.5: −0.4 each), e.g. "6 −0.4".
        text = f"{n}" + (f" {short_points(penalty_points(given))}" if given else "")
        labels.append(k.button(f"[{text}]" if n == d.sel else text, "seat", n))
    k.rows_of(labels, 5)
    if d.sel not in offered:  # no seat tapped yet: no reasons to tap
        return
    given = d.penalties.get(str(d.sel), [])
    rules = allowed(d, d.sel)
    for index, rule in enumerate(PENALTY_RULES, start=1):
        if rule in given:
            k.row(k.button(f"☑ {rule} " + _("(tap to remove)"), "rule", d.sel, index))
        elif rule in rules:
            k.row(k.button(f"☐ {rule}", "rule", d.sel, index))


def enter(d: Draft) -> None:
    """No seat selected: a reason tapped at once must not land on whichever seat was
    touched last."""
    d.sel = NO_SEAT


async def select_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    d.sel = data.n
    return None


async def toggle(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS or data.m not in range(1, len(PENALTY_RULES) + 1):
        return _(STALE)
    rule = PENALTY_RULES[data.m - 1]
    kind = "unpenalty" if rule in d.penalties.get(str(data.n), []) else "penalty"
    refusal = run(d, {"type": kind, "seat": data.n, "rule": rule})  # 8.5, D8
    if refusal is None:
        d.sel = data.n
    return refusal


SPEC = StepSpec(
    code="pe",
    state=GameEntry.penalties,
    title=__("Penalties"),
    prompt=prompt,
    keyboard=buttons,
    enter=enter,
    actions={"seat": select_seat, "rule": toggle},
)
