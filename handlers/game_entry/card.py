"""The text of the judge's card: the protocol so far, the step's prompt, the rule checks.

Everything is rendered from a ``Draft`` and a ``View`` (what the database and the
scoring engine say about it), in the locale that is current when ``render`` runs.
Every user-provided string (nicknames, titles, typed filters) is HTML-escaped.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.db.players import PlayerRow
from handlers.game_entry.draft import STEPS, Draft, approved_seats, penalty_allowed
from scoring import PENALTY_RULES, SEAT_NUMBERS, GameBreakdown, Problem, Result, Role

MAX_TEXT = 4096
MAX_ISSUES = 12
WINNER_CAP = 70  # 8.4.3, hundredths
LOSER_CAP = 40  # 8.4.4

STEP_TITLES = {
    "tn": __("Tournament"),
    "rt": __("Round and table"),
    "st": __("Seating"),
    "ro": __("Roles"),
    "d1": __("Day 1"),
    "n1": __("Night 1"),
    "bm": __("Best move"),
    "re": __("Result"),
    "dq": __("Disqualifications"),
    "pe": __("Penalties"),
    "ex": __("Judge's extra points"),
    "rv": __("Review"),
}
ROLE_NAMES = {
    Role.CIVILIAN: __("civilian"),
    Role.SHERIFF: __("sheriff"),
    Role.MAFIA: __("mafia"),
    Role.DON: __("don"),
}
RESULT_NAMES = {
    Result.RED: __("red win"),
    Result.BLACK: __("black win"),
    Result.DRAW: __("draw"),
}
PENALTY_NAMES = {
    "8.5.1": __("broke into a red player with 10 at the table; red lost"),
    "8.5.2": __("broke into a red player with 4 at the table when voting out two would win"),
    "8.5.3": __("claimed a knowingly false check and left it; red lost"),
    "8.5.4": __("claimed sheriff with a red check on the real sheriff; black lost"),
}
_ROLE_VALUES = frozenset(r.value for r in Role)
_RESULT_VALUES = frozenset(r.value for r in Result)


@dataclass
class Issue:
    """A rule problem to show: a rule id and a translatable template with params."""

    rule: str
    template: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, problem: Problem) -> Issue:
        return cls(problem.rule, problem.template, dict(problem.params))

    def text(self) -> str:
        params = dict(self.params)
        # Role and result values inside the engine's sentences read better translated.
        if str(params.get("role")) in _ROLE_VALUES:
            params["role"] = str(ROLE_NAMES[Role(str(params["role"]))])
        if str(params.get("result")) in _RESULT_VALUES:
            params["result"] = str(RESULT_NAMES[Result(str(params["result"]))])
        safe = {k: html.escape(str(v)) for k, v in params.items()}
        return f"{self.rule}: " + _(self.template).format(**safe)


@dataclass
class View:
    """What the card shows besides the draft itself (loaded by ``flow.load_view``)."""

    title: str = ""
    players: dict[int, PlayerRow] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    suggestions: list[tuple[int, int]] = field(default_factory=list)
    tournaments: dict[int, str] = field(default_factory=dict)
    # seat -> best-move points (8.3.4) the seat would get; for the 8.4.6 budget
    best_move_points: dict[int, Fraction] = field(default_factory=dict)
    breakdown: GameBreakdown | None = None
    # (i, B, Ci) of the first-killed player over the tournament (8.6.1, D1)
    ci_info: tuple[int, int, Fraction] | None = None
    original_code: str = ""

    def nickname(self, player_id: int | None) -> str:
        if player_id is None:
            return "—"
        row = self.players.get(player_id)
        return html.escape(row.nickname) if row else f"#{player_id}"

    def pending(self, player_id: int | None) -> bool:
        row = self.players.get(player_id) if player_id is not None else None
        return row is not None and row.status != "confirmed"


MINUS = "\u2212"  # −: the one minus sign of every text


def fmt(value: Fraction | int | Decimal) -> str:
    """Points for display: two decimals at most (D3), no trailing zeros, −0.4."""
    number = Decimal(value.numerator) / Decimal(value.denominator) if isinstance(
        value, Fraction
    ) else Decimal(value)
    text = format(number.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    if text in ("-0", ""):
        return "0"
    return MINUS + text[1:] if text.startswith("-") else text


def hundredths(value: int) -> str:
    return fmt(Fraction(value, 100))


def seats_list(seats: Iterable[int]) -> str:
    return ", ".join(str(s) for s in seats)


# -- the protocol ---------------------------------------------------------------------


def header(d: Draft, view: View) -> list[str]:
    if d.mode == "correct":
        kind = _("Correcting game {code}").format(code=html.escape(view.original_code))
    else:
        kind = _("New game")
    lines = [f"🎲 <b>{html.escape(view.title)}</b> — {kind}"]
    if d.step in STEPS:
        lines.append(
            "<b>"
            + _("Step {n}/{total}: {title}").format(
                n=d.step_number(d.step), total=len(STEPS), title=STEP_TITLES[d.step]
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
    lines: list[str] = []
    if d.round is not None:
        lines.append(_("Round {round}, table {table}").format(round=d.round, table=d.table))
    if any(p is not None for p in d.players) or d.step == "st":
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
        parts = []
        for seat, value in sorted(d.extras.items(), key=lambda kv: int(kv[0])):
            part = _("seat {seat} — {value}").format(seat=seat, value=hundredths(value))
            if value > 50 and int(seat) not in approved_seats(d):
                part += " " + _("(needs the chief judge's approval, D7)")
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
    if role in (Role.MAFIA, Role.DON):
        lines.append(
            _("The first-killed player is black: his best move is recorded but earns "
              "nothing (D10).")
        )
    return lines


# -- the steps --------------------------------------------------------------------------


def prompt(d: Draft, view: View) -> list[str]:
    step = d.step
    if step == "tn":
        return [_("You judge several running tournaments. Which one is this game in?")]
    if step == "rt":
        return [
            _("Tap the suggested round and table, or type them, e.g. <code>2 3</code> "
              "(round 2, table 3).")
        ]
    if step == "st":
        lines = [
            _("Seat {seat}: tap a player, or type part of a nickname to filter. You can also "
              "paste all ten nicknames at once, one per line, in seat order.").format(
                seat=d.sel
            )
        ]
        if d.query:
            lines.append(_("Filter: «{query}»").format(query=html.escape(d.query)))
        return lines
    if step == "ro":
        return [
            _("Tap the sheriff, then the don, then the two mafia; the rest are civilians. "
              "Tap a seat again to undo it."),
            roles_next(d),
        ]
    if step == "d1":
        return [_("How many players left the game by the day-1 vote?")]
    if step == "n1":
        return [_("Which seat was shot on night 1? Or a miss.")]
    if step == "bm":
        return best_move_prompt(d, view)
    if step == "re":
        return [_("The result of the game?")]
    if step == "dq":
        return [_("Tap the seats disqualified from the table (−0.5 each, 8.2.4), then Next.")]
    if step == "pe":
        return penalties_prompt(d, view)
    if step == "ex":
        return extras_prompt(d, view)
    if step == "rv":
        return review_lines(d, view)
    return []


def roles_next(d: Draft) -> str:
    if d.sheriff is None:
        return _("Next tap: <b>the sheriff</b>.")
    if d.don is None:
        return _("Next tap: <b>the don</b>.")
    if len(d.mafia) < 2:
        return _("Next tap: <b>mafia</b> ({count} of 2).").format(count=len(d.mafia) + 1)
    return _("All roles are set.")


def best_move_prompt(d: Draft, view: View) -> list[str]:
    seat = d.first_killed
    assert seat is not None
    who = view.nickname(d.players[seat - 1])
    lines = [
        _("Seat {seat} ({player}) may name up to three seats he believes black (8.3). "
          "Each number is final (8.3.3); he may stop earlier (8.3.2).").format(
            seat=seat, player=who
        )
    ]
    if d.bm_done:
        lines.append(_("The judge answered «Accepted»; tap Next."))
    elif d.bm_by == "player":
        lines.append(
            _("⏳ Waiting for {player} to tap his numbers in his private chat with the bot. "
              "You can take over and enter them yourself.").format(player=who)
        )
    else:
        lines.append(
            _("Tap the seats he names, one per number; Done if he named fewer than three.")
        )
    return lines


def penalties_prompt(d: Draft, view: View) -> list[str]:
    lines = [
        _("Penalties of 8.5 (−0.4 each): tap a seat, then the reason. Only the reasons the "
          "rules allow for the seat's role and the result are offered (D8).")
    ]
    if d.sel not in SEAT_NUMBERS:
        lines.append("👆 " + _("Tap a seat first."))
        return lines
    result = d.result_value
    role = d.role(d.sel)
    allowed = [r for r in PENALTY_RULES if penalty_allowed(role, result, r)]
    if role is not None:
        lines.append(
            _("Seat {seat} ({player}, {role}):").format(
                seat=d.sel, player=view.nickname(d.players[d.sel - 1]), role=ROLE_NAMES[role]
            )
        )
        if allowed:
            lines.extend(f"• {r} — {PENALTY_NAMES[r]}" for r in allowed)
        else:
            lines.append(_("no penalty of 8.5 applies to this seat in this game (D8)."))
    return lines


def extras_caps(d: Draft) -> dict[int, int]:
    """Each seat's cap in hundredths: 0.7 for the winners (8.4.3), 0.4 for the losers (8.4.4)."""
    result = d.result_value
    if result is None or result is Result.DRAW:
        return {}
    caps = {}
    for n in SEAT_NUMBERS:
        role = d.role(n)
        if role is not None:
            caps[n] = WINNER_CAP if role.team is result else LOSER_CAP
    return caps


def counted_extras(extras: Mapping[str, int], best: Mapping[int, Fraction]) -> int:
    """Hundredths of judge's points that count towards 1.0: those larger than the seat's
    best-move points (8.4.6; a tie goes to the best move, D4)."""
    return sum(v for s, v in extras.items() if Fraction(v, 100) > best.get(int(s), 0))


@dataclass(frozen=True)
class ExtraLimit:
    """What one seat may still get: the 0.05 steps (hundredths), and the rule that
    stops it there (8.4.3 / 8.4.4 its cap, 8.4.2 the sum, 8.4.1 four players)."""

    values: list[int]
    rule: str

    @property
    def most(self) -> int:
        return max(self.values, default=0)


def extra_limit(d: Draft, view: View, seat: int) -> ExtraLimit:
    """The one source of the card's prompt and of its value buttons."""
    cap = extras_caps(d).get(seat)
    if cap is None:
        return ExtraLimit([], "8.4.7")
    others = {s: v for s, v in d.extras.items() if s != str(seat)}
    if len(others) >= 4:
        return ExtraLimit([], "8.4.1")
    values = [
        value
        for value in range(5, cap + 1, 5)
        if counted_extras({**others, str(seat): value}, view.best_move_points) <= 100
    ]
    if values and max(values) == cap:
        return ExtraLimit(values, "8.4.3" if cap == WINNER_CAP else "8.4.4")
    return ExtraLimit(values, "8.4.2")


def allowed_values(d: Draft, view: View, seat: int) -> list[int]:
    """The 0.05 steps the seat may still get: its cap, 4 players (8.4.1), 1.0 (8.4.2)."""
    return extra_limit(d, view, seat).values


def limit_reason(rule: str) -> str:
    return {
        "8.4.1": _("8.4.1: at most 4 players"),
        "8.4.2": _("8.4.2: at most 1 in all"),
        "8.4.3": _("8.4.3: a winner at most 0.7"),
        "8.4.4": _("8.4.4: a loser at most 0.4"),
    }.get(rule, rule)


def extras_prompt(d: Draft, view: View) -> list[str]:
    lines = [
        _("Judge's extra points (8.4): tap a player, then a value, or type it, e.g. "
          "<code>0.35</code>. At most 4 players (8.4.1) and 1.0 in all (8.4.2); winners up "
          "to 0.7 (above 0.5 needs the chief judge's approval, 8.4.3), losers up to 0.4 "
          "(8.4.4).")
    ]
    caps = extras_caps(d)
    counted = counted_extras(d.extras, view.best_move_points)
    lines.append(
        _("Budget (8.4.2): {used} of 1.0 counts, {free} free.").format(
            used=hundredths(counted), free=hundredths(max(0, 100 - counted))
        )
    )
    for seat, value in sorted(d.extras.items(), key=lambda kv: int(kv[0])):
        best = view.best_move_points.get(int(seat), Fraction(0))
        if best and Fraction(value, 100) <= best:
            lines.append(
                _("Seat {seat}: {value} does not count — his best move gives {best}, the "
                  "larger counts (8.4.6, D4).").format(
                    seat=seat, value=hundredths(value), best=fmt(best)
                )
            )
    if d.sel not in caps:
        lines.append("👆 " + _("Tap a seat first."))
        return lines
    limit = extra_limit(d, view, d.sel)
    player = view.nickname(d.players[d.sel - 1])
    if limit.values:
        lines.append(
            _("Seat {seat} ({player}): up to {cap} ({reason}).").format(
                seat=d.sel, player=player, cap=hundredths(limit.most),
                reason=limit_reason(limit.rule),
            )
        )
    else:
        lines.append(
            _("Seat {seat} ({player}): no points can be given ({reason}).").format(
                seat=d.sel, player=player, reason=limit_reason(limit.rule)
            )
        )
    return lines


def review_lines(d: Draft, view: View) -> list[str]:
    lines: list[str] = []
    breakdown = view.breakdown
    if breakdown is None:
        return [_("Fix the problems below to see the points.")]
    lines.append("<b>" + _("Points in this game") + "</b>")
    for s in breakdown.seats:
        parts = []
        if s.win:
            parts.append(_("win {value}").format(value=fmt(s.win)))
        if s.ci:
            parts.append(_("Ci {value}").format(value=fmt(s.ci)))
        if s.best_move:
            parts.append(_("best move {value}").format(value=fmt(s.best_move)))
        if s.judge:
            part = _("judge {value}").format(value=fmt(s.judge))
            if s.judge_pending:
                part += " " + _("(awaits the chief judge's approval, D7)")
            elif not s.judge_counted:
                part += " " + _("(does not count: the best move is not less, 8.4.6)")
            parts.append(part)
        if s.penalties:
            parts.append(_("penalties {value}").format(value=fmt(s.penalties)))
        if s.disqualification:
            parts.append(_("disqualification {value}").format(value=fmt(s.disqualification)))
        detail = " · ".join(parts) if parts else "0"
        lines.append(
            f"{s.seat}. {html.escape(s.player)} ({ROLE_NAMES[s.role]}): {detail} = "
            f"<b>{fmt(s.total)}</b>"
        )
    if view.ci_info is not None and d.first_killed is not None:
        i, b, ci = view.ci_info
        role = d.role(d.first_killed)
        if role in (Role.CIVILIAN, Role.SHERIFF) and d.result == Result.BLACK.value:
            lines.append(
                _("Ci of seat {seat} = {ci}: shot on night 1 as red {i} time in this "
                  "tournament, B = {b} (8.6.1). Ci depends on the whole tournament (D1): "
                  "a later first-night death raises it in this game too.",
                  "Ci of seat {seat} = {ci}: shot on night 1 as red {i} times in this "
                  "tournament, B = {b} (8.6.1). Ci depends on the whole tournament (D1): "
                  "a later first-night death raises it in this game too.",
                  i).format(seat=d.first_killed, ci=fmt(ci), i=i, b=b)
            )
    return lines


def issues_lines(issues: list[Issue]) -> list[str]:
    if not issues:
        return []
    return ["⚠️ <b>" + _("To fix before saving:") + "</b>", *(f"• {i.text()}" for i in issues)]


def render_text(d: Draft, view: View) -> str:
    blocks = [header(d, view)]
    if d.step == "tn":
        blocks.append(prompt(d, view))
    else:
        blocks.append(protocol(d, view, seats_marker=d.step == "st"))
        blocks.append(prompt(d, view))
    blocks.append(issues_lines(view.issues[:MAX_ISSUES]))
    if d.note:
        msgid, params = d.note
        safe = {k: html.escape(str(v)) for k, v in params.items()}
        blocks.append(["ℹ️ " + _(msgid).format(**safe)])
    text = "\n\n".join("\n".join(b) for b in blocks if b)
    if len(text) > MAX_TEXT and d.step == "rv":
        # The points list names every seat again: the protocol's seat lines can go.
        blocks[1] = [line for line in blocks[1] if not line[:1].isdigit()]
        text = "\n\n".join("\n".join(b) for b in blocks if b)
    return text[:MAX_TEXT]
