"""Inline keyboards of the judge's card: the buttons of the shown step (its
``StepSpec.keyboard``) and the row that moves between steps."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from handlers.game_entry.callbacks import NewGame, Step
from handlers.game_entry.card import View
from handlers.game_entry.draft import Draft
from handlers.game_entry.spec import Card
from scoring import SEAT_NUMBERS


class Keys:
    """Buttons carrying the draft's token and the step the card shows."""

    def __init__(self, d: Draft, card: Card | None = None) -> None:
        self.d = d
        self.card = card
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

    def seats(
        self, a: str, label: dict[int, str], skip: set[int] | None = None
    ) -> None:
        """A button per seat (five a row), labelled ``label[n]`` or its number."""
        buttons = [
            self.button(label.get(n, str(n)), a, n)
            for n in SEAT_NUMBERS
            if not skip or n not in skip
        ]
        self.rows_of(buttons, 5)

    def nav(self, card: Card) -> None:
        d = self.d
        buttons = []
        if card.previous(d, d.step) is not None or (d.step == card.first and len(d.choices) > 1):
            buttons.append(self.button("◀ " + _("Back"), "back"))
        if d.step != card.review and card.done(d, d.step):
            buttons.append(self.button(_("Next") + " ▶", "next"))
        if d.step != card.review and card.complete(d) and card.next(d, d.step) != card.review:
            buttons.append(self.button("⏭ " + _("Review"), "review"))
        self.row(*buttons)

    def markup(self) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup(inline_keyboard=self.rows)


def keyboard(card: Card, d: Draft, view: View) -> InlineKeyboardMarkup:
    spec = card.spec(d.step)
    k = Keys(d, card)
    spec.keyboard(k, view)
    if not spec.prelude:
        k.nav(card)
    return k.markup()


def new_game_markup() -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text="➕ " + _("New game"), callback_data=NewGame())
    return builder.as_markup()
