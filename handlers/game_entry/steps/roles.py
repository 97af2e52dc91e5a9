"""Step 3: roles. The sheriff, the don and the two mafia are tapped; the rest are
civilians."""

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
from scoring import SEAT_NUMBERS, Role

ROLE_MARKS = {Role.SHERIFF: "⭐", Role.DON: "🎩", Role.MAFIA: "⚫"}


def prompt(d: Draft, view: View) -> list[str]:
    return [
        _("Tap the sheriff, then the don, then the two mafia; the rest are civilians. "
          "Tap a seat again to undo it."),
        roles_next(d),
    ]


def roles_next(d: Draft) -> str:
    if d.sheriff is None:
        return _("Next tap: <b>the sheriff</b>.")
    if d.don is None:
        return _("Next tap: <b>the don</b>.")
    if len(d.mafia) < 2:
        return _("Next tap: <b>mafia</b> ({count} of 2).").format(count=len(d.mafia) + 1)
    return _("All roles are set.")


def buttons(k: Keys, view: View) -> None:
    d = k.d
    labels = {}
    for n in SEAT_NUMBERS:
        role = d.role(n)
        labels[n] = ROLE_MARKS.get(role, "") + str(n) if role is not None else str(n)
    k.seats("tap", labels)
    if d.sheriff or d.don or d.mafia:
        k.row(k.button("↺ " + _("Start the roles again"), "reset"))


async def tap(ctx: Ctx, d: Draft, data: Step) -> str | None:
    seat = data.n
    if seat not in SEAT_NUMBERS:
        return _(STALE)
    tapped = d.copy()
    refusal = _tap(tapped, seat)
    if refusal is not None:
        return refusal
    if tapped.roles_done:  # all four tapped: the protocol's roles (and their knock-ons)
        refusal = run(d, {"type": "roles", "sheriff": tapped.sheriff, "don": tapped.don,
                          "mafia": tapped.mafia})
        if refusal is not None:
            return refusal
    d.sheriff, d.don, d.mafia = tapped.sheriff, tapped.don, tapped.mafia
    return None


def _tap(d: Draft, seat: int) -> str | None:
    """The tap on the card's roles, as far as they are tapped (the sheriff, the don,
    then the mafia; a role's seat tapped again takes it off)."""
    if seat == d.sheriff:
        d.sheriff = None
    elif seat == d.don:
        d.don = None
    elif seat in d.mafia:
        d.mafia.remove(seat)
    elif d.sheriff is None:
        d.sheriff = seat
    elif d.don is None:
        d.don = seat
    elif len(d.mafia) < 2:
        d.mafia.append(seat)
    else:
        return _("All roles are set. Tap a sheriff's, don's or mafia seat to undo it first.")
    return None


async def reset(ctx: Ctx, d: Draft, data: Step) -> str | None:
    d.sheriff = d.don = None
    d.mafia = []
    return None


SPEC = StepSpec(
    code="ro",
    state=GameEntry.roles,
    title=__("Roles"),
    prompt=prompt,
    keyboard=buttons,
    done=lambda d: d.roles_done,
    actions={"tap": tap, "reset": reset},
)
