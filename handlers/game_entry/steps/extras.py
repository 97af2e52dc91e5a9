"""Step 10: judge's extra points (8.4), tapped in steps of 0.05 or typed ("0.35", or
"3 0.35" for seat 3). What a seat may get, and the rule that stops it there, is
``scoring.judging``'s; the engine's checks decide what is accepted (8.4.1-8.4.4, 8.4.6,
8.4.7, D6)."""

from __future__ import annotations

import re
from fractions import Fraction

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.texts.rating_format import short_points
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import hundredths
from handlers.game_entry.commands import run
from handlers.game_entry.draft import NO_SEAT, Draft, scoring_game
from handlers.game_entry.flow import STALE
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import SEAT_NUMBERS
from scoring.judging import (
    JUDGE_SUM_MAX,
    POINTS_PATTERN,
    Cap,
    ExtraLimit,
    best_move_points,
    counted_extras,
    extra_limit,
    judge_cap,
    judge_points_allowed,
    judge_points_count,
    parse_points,
    points_hundredths,
)

# Typed: the points, or a seat and the points.
EXTRA_VALUE = re.compile(rf"\s*(?:(\d{{1,2}})\s+)?({POINTS_PATTERN})\s*")


def caps(d: Draft) -> dict[int, Cap]:
    """The seats that may get judge's points, each with its cap (8.4.3, 8.4.4)."""
    result = d.result_value
    found = {}
    for n in SEAT_NUMBERS:
        cap = judge_cap(d.role(n), result)
        if cap is not None:
            found[n] = cap
    return found


def given(d: Draft) -> dict[int, int]:
    """Seat → the judge's points given, in hundredths."""
    return {int(seat): value for seat, value in d.extras.items()}


def limit(d: Draft, view: View, seat: int) -> ExtraLimit:
    """The one source of the card's prompt and of its value buttons."""
    return extra_limit(seat, caps(d).get(seat), given(d), view.best_move_points)


def limit_reason(rule: str) -> str:
    return {
        "8.4.1": _("8.4.1: at most 4 players"),
        "8.4.2": _("8.4.2: at most 1 in all"),
        "8.4.3": _("8.4.3: a winner at most 0.7"),
        "8.4.4": _("8.4.4: a loser at most 0.4"),
    }.get(rule, rule)


def prompt(d: Draft, view: View) -> list[str]:
    lines = [
        _("Judge's extra points (8.4): tap a player, then a value, or type it, e.g. "
          "<code>0.35</code>. At most 4 players (8.4.1) and 1.0 in all (8.4.2); winners up "
          "to 0.7 (above 0.5 needs the chief judge's approval, 8.4.3), losers up to 0.4 "
          "(8.4.4).")
    ]
    counted = counted_extras(given(d), view.best_move_points)
    lines.append(
        _("Budget (8.4.2): {used} of 1.0 counts, {free} free.").format(
            used=hundredths(counted), free=hundredths(max(0, JUDGE_SUM_MAX - counted))
        )
    )
    for seat, value in sorted(given(d).items()):
        best = view.best_move_points.get(seat, Fraction(0))
        if best and not judge_points_count(value, best):
            lines.append(
                _("Seat {seat}: {value} does not count — his best move gives {best}, the "
                  "larger counts (8.4.6).").format(
                    seat=seat, value=hundredths(value), best=short_points(best)
                )
            )
    if d.sel not in caps(d):
        lines.append("👆 " + _("Tap a seat first."))
        return lines
    return [*lines, _seat_line(d, view)]


def _seat_line(d: Draft, view: View) -> str:
    found = limit(d, view, d.sel)
    player = view.nickname(d.players[d.sel - 1])
    if found.values:
        return _("Seat {seat} ({player}): up to {cap} ({reason}).").format(
            seat=d.sel, player=player, cap=hundredths(found.most),
            reason=limit_reason(found.rule),
        )
    return _("Seat {seat} ({player}): no points can be given ({reason}).").format(
        seat=d.sel, player=player, reason=limit_reason(found.rule)
    )


def buttons(k: Keys, view: View) -> None:
    d = k.d
    open_seats = caps(d)
    labels = {}
    for n in SEAT_NUMBERS:
        value = d.extras.get(str(n))
        text = f"{n}·{hundredths(value)}" if value else str(n)
        labels[n] = f"[{text}]" if n == d.sel else text
    k.seats("seat", labels, skip={n for n in SEAT_NUMBERS if n not in open_seats})
    if d.sel not in open_seats:
        return
    current = d.extras.get(str(d.sel))
    k.rows_of(
        [
            k.button(("✓" if v == current else "") + hundredths(v), "val", d.sel, v)
            for v in limit(d, view, d.sel).values
        ],
        5,
    )
    if current:
        k.row(k.button("✖ " + _("Remove seat {seat}'s points").format(seat=d.sel), "del",
                       d.sel))


def enter(d: Draft) -> None:
    """No seat selected: a value tapped at once must not land on whichever seat was
    touched last."""
    d.sel = NO_SEAT


async def load(ctx: Ctx, d: Draft, view: View) -> None:
    """The seats' best-move points, which 8.4.6 weighs the judge's points against."""
    game = scoring_game(d, view.names())
    if game is not None:
        view.best_move_points = best_move_points(game)


async def set_extra(ctx: Ctx, d: Draft, seat: int, value: int) -> str | None:
    """Give ``seat`` ``value`` hundredths (0 removes them), if 8.4 allows it; the
    protocol decides (8.4.1-8.4.4, 8.4.6, 8.4.7, D6)."""
    if seat not in caps(d) and judge_points_allowed(d.result_value):
        return _(STALE)  # a seat the card never offered
    refusal = run(d, {"type": "extra", "seat": seat, "hundredths": value})
    if refusal is None:
        d.sel = seat
    return refusal


async def select_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in caps(d):
        return _(STALE)
    d.sel = data.n
    return None


async def tap_value(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await set_extra(ctx, d, data.n, data.m)


async def remove(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await set_extra(ctx, d, data.n, 0)


async def typed(ctx: Ctx, d: Draft, text: str) -> str | None:
    match = EXTRA_VALUE.fullmatch(text)
    number = parse_points(match.group(2)) if match is not None else None
    if match is None or number is None:
        return _(
            "Type the points as a number with at most two decimals, e.g. <code>0.35</code> "
            "(or a seat and the points: <code>3 0.35</code>)."
        )
    seat = int(match.group(1)) if match.group(1) else d.sel
    if seat == NO_SEAT:
        return _(
            "Tap a seat first, or type the seat and the points, e.g. <code>3 0.35</code>."
        )
    if seat not in caps(d):
        return _("Seat {seat} can't get judge's points here.").format(seat=seat)
    value = points_hundredths(number)
    if value is None:
        return _("Not accepted: judge's points have at most two decimals, e.g. 0.35.")
    return await set_extra(ctx, d, seat, value)


SPEC = StepSpec(
    code="ex",
    state=GameEntry.extras,
    title=__("Judge's extra points"),
    prompt=prompt,
    keyboard=buttons,
    applies=lambda d: judge_points_allowed(d.result_value),
    enter=enter,
    load=load,
    actions={"seat": select_seat, "val": tap_value, "del": remove},
    typed=typed,
)
