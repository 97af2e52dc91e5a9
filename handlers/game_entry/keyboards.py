"""Inline keyboards of the judge's card, one builder per step."""

from __future__ import annotations

from fractions import Fraction

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from handlers.game_entry.callbacks import NewGame, Step
from handlers.game_entry.card import (
    STEP_TITLES,
    View,
    allowed_values,
    extras_caps,
    fmt,
    hundredths,
)
from handlers.game_entry.draft import STEPS, Draft, penalty_allowed
from scoring import PENALTY_RULES, SEAT_NUMBERS, Result, Role
from scoring.rules import PENALTY

PAGE_SIZE = 15
ROLE_MARKS = {Role.SHERIFF: "⭐", Role.DON: "🎩", Role.MAFIA: "⚫"}


class Keys:
    """Buttons carrying the draft's token and the step the card shows."""

    def __init__(self, d: Draft) -> None:
        self.d = d
        self.rows: list[list[InlineKeyboardButton]] = []
        # Step(t=..., s=..., a=..., n=..., m=...).pack(), without a model per button
        # (a card has up to 40): tests/handlers check both give the same text.
        self._prefix = Step(t=d.token, s=d.step, a="", n=0, m=0).pack().rsplit(":", 3)[0]

    def button(self, text: str, a: str, n: int = 0, m: int = 0) -> InlineKeyboardButton:
        return InlineKeyboardButton(text=text, callback_data=f"{self._prefix}:{a}:{n}:{m}")

    def row(self, *buttons: InlineKeyboardButton) -> None:
        if buttons:
            self.rows.append(list(buttons))

    def rows_of(self, buttons: list[InlineKeyboardButton], width: int) -> None:
        for i in range(0, len(buttons), width):
            self.rows.append(buttons[i : i + width])

    def nav(self) -> None:
        d = self.d
        buttons = []
        if d.previous_step(d.step) is not None or (d.step == "rt" and len(d.choices) > 1):
            buttons.append(self.button("◀ " + _("Back"), "back"))
        if d.step != "rv" and d.step_done(d.step):
            buttons.append(self.button(_("Next") + " ▶", "next"))
        if d.step != "rv" and d.complete and d.next_step(d.step) != "rv":
            buttons.append(self.button("⏭ " + _("Review"), "review"))
        self.row(*buttons)

    def markup(self) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup(inline_keyboard=self.rows)


def keyboard(d: Draft, view: View) -> InlineKeyboardMarkup:
    k = Keys(d)
    build = {
        "tn": _tournaments,
        "rt": _round_table,
        "st": _seating,
        "ro": _roles,
        "d1": _day1,
        "n1": _night1,
        "bm": _best_move,
        "re": _result,
        "dq": _disqualify,
        "pe": _penalties,
        "ex": _extras,
        "rv": _review,
    }[d.step]
    build(k, view)
    if d.step != "tn":
        k.nav()
    return k.markup()


def _seat_buttons(k: Keys, a: str, label: dict[int, str], skip: set[int] | None = None) -> None:
    buttons = [
        k.button(label.get(n, str(n)), a, n)
        for n in SEAT_NUMBERS
        if not skip or n not in skip
    ]
    k.rows_of(buttons, 5)


def _tournaments(k: Keys, view: View) -> None:
    for tid in k.d.choices:
        k.row(k.button(view.tournaments.get(tid, f"#{tid}"), "pick", tid))


def _round_table(k: Keys, view: View) -> None:
    for round_no, table in view.suggestions:
        text = _("Round {round}, table {table}").format(round=round_no, table=table)
        if (round_no, table) == (k.d.round, k.d.table):
            text = "✓ " + text
        k.row(k.button(text, "set", round_no, table))


def candidates(d: Draft, view: View) -> list[int]:
    """Players who may take the selected seat: confirmed (or added here), not seated,
    matching the typed filter."""
    seated = {p for p in d.players if p is not None}
    query = d.query.casefold()
    found = [
        row
        for row in view.players.values()
        if (row.status == "confirmed" or row.id in d.added)
        and row.id not in seated
        and query in row.nickname.casefold()
    ]
    found.sort(key=lambda row: (row.nickname.casefold(), row.id))
    return [row.id for row in found]


def _seating(k: Keys, view: View) -> None:
    d = k.d
    labels = {}
    for n in SEAT_NUMBERS:
        text = f"{n}✓" if d.players[n - 1] is not None else str(n)
        labels[n] = f"[{text}]" if n == d.sel else text
    _seat_buttons(k, "seat", labels)
    found = candidates(d, view)
    pages = max(1, -(-len(found) // PAGE_SIZE))
    page = min(d.page, pages - 1)
    shown = found[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    k.rows_of(
        [k.button(view.players[pid].nickname[:24], "pick", d.sel, pid) for pid in shown], 3
    )
    if pages > 1:
        k.row(
            k.button("◀", "page", max(0, page - 1)),
            k.button(f"{page + 1}/{pages}", "noop"),
            k.button("▶", "page", min(pages - 1, page + 1)),
        )
    extra = []
    if d.query:
        extra.append(k.button("✖ " + _("Clear the filter"), "qx"))
        exact = any(
            row.nickname.casefold() == d.query.casefold() and row.status != "rejected"
            for row in view.players.values()
        )
        if not exact:
            extra.append(k.button("➕ " + _("Add «{name}»").format(name=d.query[:24]), "add"))
    if d.players[d.sel - 1] is not None:
        extra.append(k.button(_("Empty seat {seat}").format(seat=d.sel), "clear", d.sel))
    k.rows_of(extra, 2)


def _roles(k: Keys, view: View) -> None:
    d = k.d
    labels = {}
    for n in SEAT_NUMBERS:
        role = d.role(n)
        labels[n] = ROLE_MARKS.get(role, "") + str(n) if role is not None else str(n)
    _seat_buttons(k, "tap", labels)
    if d.sheriff or d.don or d.mafia:
        k.row(k.button("↺ " + _("Start the roles again"), "reset"))


def _day1(k: Keys, view: View) -> None:
    k.row(
        *(
            k.button(("✓ " if k.d.day1 == n else "") + str(n), "set", n)
            for n in range(4)
        )
    )


def _night1(k: Keys, view: View) -> None:
    d = k.d
    labels = {n: f"✓{n}" for n in SEAT_NUMBERS if n == d.night}
    _seat_buttons(k, "set", labels)
    k.row(k.button(("✓ " if d.night == 0 else "") + _("Miss (nobody shot)"), "set", 0))


def _best_move(k: Keys, view: View) -> None:
    d = k.d
    if not d.bm_done and d.bm_by != "player":
        buttons = []
        for n in SEAT_NUMBERS:
            if n == d.first_killed:
                continue
            if n in d.bm:
                buttons.append(k.button(f"✓{n}", "noop", n))
            else:
                buttons.append(k.button(str(n), "seat", n))
        k.rows_of(buttons, 5)
        k.row(k.button(_("Done ({count} named)").format(count=len(d.bm)), "done"))
    if d.bm_by == "player" and not d.bm_done:
        k.row(k.button(_("Take over: I enter the numbers"), "take"))
    box = "☑" if d.bm_hint else "☐"
    k.row(k.button(f"{box} " + _("Asked for a hint (8.3.5)"), "hint"))
    if d.mode == "correct" and (d.bm_done or d.bm):
        k.row(k.button("↺ " + _("Clear and enter again"), "clear"))


def _result(k: Keys, view: View) -> None:
    d = k.d
    names = {
        1: "🔴 " + _("Red win"),
        2: "⚫ " + _("Black win"),
        3: "🤝 " + _("Draw"),
    }
    codes = {Result.RED.value: 1, Result.BLACK.value: 2, Result.DRAW.value: 3}
    k.row(
        *(
            k.button(("✓ " if codes.get(d.result or "") == code else "") + text, "set", code)
            for code, text in names.items()
        )
    )


def _disqualify(k: Keys, view: View) -> None:
    labels = {n: f"✖{n}" for n in k.d.dq}
    _seat_buttons(k, "tap", labels)


def _penalties(k: Keys, view: View) -> None:
    d = k.d
    result = d.result_value
    seats = [
        n
        for n in SEAT_NUMBERS
        if any(penalty_allowed(d.role(n), result, r) for r in PENALTY_RULES)
        or d.penalties.get(str(n))
    ]
    buttons = []
    for n in seats:
        count = len(d.penalties.get(str(n), []))
        # What the seat's penalties cost (8.5: −0.4 each), e.g. "6 −0.4".
        text = f"{n}" + (f" {fmt(Fraction(PENALTY * count, 100))}" if count else "")
        buttons.append(k.button(f"[{text}]" if n == d.sel else text, "seat", n))
    k.rows_of(buttons, 5)
    if d.sel not in seats:  # no seat tapped yet: no reasons to tap
        return
    given = d.penalties.get(str(d.sel), [])
    for index, rule in enumerate(PENALTY_RULES, start=1):
        allowed = penalty_allowed(d.role(d.sel), result, rule)
        if rule in given:
            k.row(k.button(f"☑ {rule} " + _("(tap to remove)"), "rule", d.sel, index))
        elif allowed:
            k.row(k.button(f"☐ {rule}", "rule", d.sel, index))


def _extras(k: Keys, view: View) -> None:
    d = k.d
    caps = extras_caps(d)
    labels = {}
    for n in SEAT_NUMBERS:
        value = d.extras.get(str(n))
        text = f"{n}·{hundredths(value)}" if value else str(n)
        labels[n] = f"[{text}]" if n == d.sel else text
    _seat_buttons(k, "seat", labels, skip={n for n in SEAT_NUMBERS if n not in caps})
    if d.sel in caps:
        values = allowed_values(d, view, d.sel)
        current = d.extras.get(str(d.sel))
        k.rows_of(
            [
                k.button(("✓" if v == current else "") + hundredths(v), "val", d.sel, v)
                for v in values
            ],
            5,
        )
        if current:
            k.row(k.button("✖ " + _("Remove seat {seat}'s points").format(seat=d.sel), "del",
                           d.sel))


def _review(k: Keys, view: View) -> None:
    d = k.d
    if not view.issues and view.breakdown is not None:
        label = _("Save the correction") if d.mode == "correct" else _("Save")
        k.row(k.button("💾 " + label, "save"))
    steps = [s for s in d.visible_steps() if s != "rv"]
    k.rows_of(
        [
            k.button(f"{STEPS.index(s) + 1}. {STEP_TITLES[s]}", "goto", STEPS.index(s))
            for s in steps
        ],
        2,
    )


def new_game_markup() -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text="➕ " + _("New game"), callback_data=NewGame())
    return builder.as_markup()
