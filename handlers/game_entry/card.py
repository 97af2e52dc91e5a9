"""The text of the judge's card: the protocol so far, the step's prompt, the rule checks.

Everything is rendered from a ``Draft`` and a ``View`` (``view.py``: what the database
and the scoring engine say about it), in the locale that is current when ``render`` runs.
Every user-provided string (nicknames, titles, typed filters) is HTML-escaped. The
prompt is the step's own (``StepSpec.prompt``); points are shown by
``bot.texts.rating_format.short_points``.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.services import Refusal
from bot.texts.markup import html_text
from bot.texts.rating_format import seat_parts, short_points
from bot.texts.rule_issues import Issue
from bot.texts.vocabulary import RESULT_NAMES, ROLE_NAMES
from handlers.game_entry.draft import Draft, approved_seats
from handlers.game_entry.spec import Card
from handlers.game_entry.view import View
from scoring import SEAT_NUMBERS, Result, Role, SeatPoints
from scoring.judging import compensated, needs_approval
from scoring.ruleset import PENALTIES

MAX_TEXT = 4096
MAX_ISSUES = 12

PENALTY_NAMES = {rule: __(penalty.name) for rule, penalty in PENALTIES.items()}  # 8.5


def hundredths(value: int) -> str:
    """Judge's points kept in hundredths, for display."""
    return short_points(Fraction(value, 100))


def seats_list(seats: Iterable[int]) -> str:
    return ", ".join(str(s) for s in seats)


def refusal_text(refusal: Refusal) -> str:
    """A use case's refusal for the card's HTML (its parameters escaped)."""
    return _(refusal.msgid).format(**{k: html_text(str(v)) for k, v in refusal.params.items()})


# -- the protocol ---------------------------------------------------------------------


def header(card: Card, d: Draft, view: View) -> list[str]:
    if d.mode == "correct":
        kind = _("Correcting game {code}").format(code=html_text(view.original_code))
    else:
        kind = _("New game")
    lines = [f"🎲 <b>{html_text(view.title)}</b> — {kind}"]
    number = card.number(d.step)
    if number:
        lines.append(
            "<b>"
            + _("Step {n}/{total}: {title}").format(
                n=number, total=card.total, title=card.spec(d.step).title
            )
            + "</b>"
        )
    return lines


def seat_line(d: Draft, view: View, n: int, *, marker: bool = False) -> str:
    player = d.players[n - 1]
    text = f"{n}. {view.nickname(player)}"
    role = d.role(n)
    if role is not None and role is not Role.CIVILIAN:
        text += f" — <b>{ROLE_NAMES[role]}</b>"
    if view.pending(player):
        text += " ⏳"
    if marker and n == d.sel:
        text = "▶ " + text
    return text


def protocol(d: Draft, view: View, *, seats_marker: bool = False) -> list[str]:
    """The game as entered so far. ``seats_marker``: the seating step, where every seat
    is listed (empty ones too) and the selected one marked."""
    lines: list[str] = []
    if d.round is not None:
        lines.append(_("Round {round}, table {table}").format(round=d.round, table=d.table))
    if any(p is not None for p in d.players) or seats_marker:
        lines.extend(seat_line(d, view, n, marker=seats_marker) for n in SEAT_NUMBERS)
        if d.roles_done:
            lines.append(_("The other seats are civilians."))
    if d.day1 is not None:
        lines.append(_("Day 1: {count} left by the vote").format(count=d.day1))
    if d.night is not None:
        if d.first_killed is None:
            lines.append(_("Night 1: a miss"))
        else:
            lines.append(
                _("Night 1: seat {seat} ({player}) shot").format(
                    seat=d.first_killed, player=view.nickname(d.players[d.first_killed - 1])
                )
            )
    if d.first_killed is not None and d.day1 is not None:
        lines.extend(best_move_lines(d))
    if d.result is not None:
        lines.append(_("Result: {result}").format(result=RESULT_NAMES[Result(d.result)]))
    return lines + points_given_lines(d)


def points_given_lines(d: Draft) -> list[str]:
    """Disqualifications, penalties and judge's points, as entered."""
    lines: list[str] = []
    if d.dq:
        lines.append(_("Disqualified (8.2.4): {seats}").format(seats=seats_list(sorted(d.dq))))
    for seat, rules in sorted(d.penalties.items(), key=lambda kv: int(kv[0])):
        if rules:
            lines.append(
                _("Penalty (−0.4 each): seat {seat} — {rules}").format(
                    seat=seat, rules=", ".join(rules)
                )
            )
    if d.extras:
        approved = approved_seats(d)
        parts = []
        for seat, value in sorted(d.extras.items(), key=lambda kv: int(kv[0])):
            part = _("seat {seat} — {value}").format(seat=seat, value=hundredths(value))
            if needs_approval(value) and int(seat) not in approved:
                part += " " + _("(needs the chief judge's approval)")
            parts.append(part)
        lines.append(_("Judge's points: {list}").format(list="; ".join(parts)))
    return lines


def best_move_lines(d: Draft) -> list[str]:
    if not d.best_move_allowed:
        return [_("No best move: 2 or more left by the day-1 vote (8.3.6).")]
    lines = []
    named = seats_list(d.bm) if d.bm else _("none")
    if d.bm_done:
        lines.append(
            _("Best move: {seats} — <b>Accepted</b> (8.3.1)").format(seats=named)
        )
    elif d.bm:
        lines.append(_("Best move so far: {seats}").format(seats=named))
    if d.bm_hint:
        lines.append(_("Asked for a hint: the best move earns nothing (8.3.5)."))
    role = d.role(d.first_killed) if d.first_killed else None
    if role is not None and not role.is_red:
        lines.append(
            _("The first-killed player is black: his best move is recorded but earns "
              "nothing (8.3.4).")
        )
    return lines


# -- points ---------------------------------------------------------------------------------


def points_lines(d: Draft, view: View) -> list[str]:
    """Every seat's points in this game (``view.breakdown``) and the first-killed player's
    Ci: the review, and the card of a saved game."""
    breakdown = view.breakdown
    if breakdown is None:
        return [_("Fix the problems below to see the points.")]
    lines = ["<b>" + _("Points in this game") + "</b>"]
    for s in breakdown.seats:
        lines.append(
            f"{s.seat}. {html_text(s.player)} ({ROLE_NAMES[s.role]}): {seat_points(s)} = "
            f"<b>{short_points(s.total)}</b>"
        )
    first = d.first_killed
    if view.ci_info and first and compensated(d.role(first), d.result_value):
        lines.append(ci_line(first, view.ci_info))
    return lines


def ci_line(seat: int, info: tuple[int, int, Fraction]) -> str:
    i, b, ci = info
    return _(
        "Ci of seat {seat} = {ci}: shot on night 1 as red {i} time in this "
        "tournament, B = {b} (8.6.1). Ci depends on the whole tournament: "
        "a later first-night death raises it in this game too.",
        "Ci of seat {seat} = {ci}: shot on night 1 as red {i} times in this "
        "tournament, B = {b} (8.6.1). Ci depends on the whole tournament: "
        "a later first-night death raises it in this game too.",
        i,
    ).format(seat=seat, ci=short_points(ci), i=i, b=b)


def seat_points(s: SeatPoints) -> str:
    """What a seat's total is made of, e.g. "win 1 · judge 0.3"; "0" for nothing."""
    return " · ".join(seat_parts(s)) or "0"


def issues_lines(issues: list[Issue]) -> list[str]:
    if not issues:
        return []
    return ["⚠️ <b>" + _("To fix before saving:") + "</b>", *(f"• {i.text()}" for i in issues)]


def render_text(card: Card, d: Draft, view: View) -> str:
    spec = card.spec(d.step)
    blocks = [header(card, d, view)]
    if not spec.prelude:
        blocks.append(protocol(d, view, seats_marker=spec.marks_seat))
    blocks.append(spec.prompt(d, view))
    blocks.append(issues_lines(view.issues[:MAX_ISSUES]))
    if d.note:
        msgid, params = d.note
        safe = {k: html_text(str(v)) for k, v in params.items()}
        blocks.append(["ℹ️ " + _(msgid).format(**safe)])
    text = "\n\n".join("\n".join(b) for b in blocks if b)
    if len(text) > MAX_TEXT and spec.lists_seats:
        # The prompt names every seat again: the protocol's seat lines can go.
        blocks[1] = [line for line in blocks[1] if not line[:1].isdigit()]
        text = "\n\n".join("\n".join(b) for b in blocks if b)
    return text[:MAX_TEXT]


def saved_text(d: Draft, view: View, head: str) -> str:
    """The card of a saved game: ``head``, the protocol and every seat's points (the
    judge's final card, the chief judge's game menu)."""
    blocks = [[head], protocol(d, view), points_lines(d, view)]
    text = "\n\n".join("\n".join(b) for b in blocks if b)
    if len(text) > MAX_TEXT:
        blocks[1] = [line for line in blocks[1] if not line[:1].isdigit()]
        text = "\n\n".join("\n".join(b) for b in blocks if b)
    return text[:MAX_TEXT]
