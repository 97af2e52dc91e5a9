"""Inline keyboards of the judge's card: the buttons of the shown step (its
``StepSpec.keyboard``) and the row that moves between steps.

The card (``spec.Card``) declares each step's buttons as a function of ``Keys``; here
the card is known only as ``CardButtons``, what its keyboard reads of it, so that this
module needs nothing of ``spec``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Protocol

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder
from babel.support import LazyProxy

from handlers.game_entry.callbacks import NewGame, Step
from handlers.game_entry.draft import Draft
from handlers.game_entry.view import View
from scoring import SEAT_NUMBERS


class StepButtons(Protocol):
    """A step as its keyboard reads it (``spec.StepSpec``)."""

    @property
    def title(self) -> LazyProxy: ...

    @property
    def prelude(self) -> bool: ...

    @property
    def keyboard(self) -> Callable[[Keys, View], None]: ...


class CardButtons(Protocol):
    """The card as its keyboards read it (``spec.Card``): the steps, their order and
    when each may be left."""

    @property
    def first(self) -> str: ...

    @property
    def review(self) -> str: ...

    def spec(self, code: str) -> StepButtons: ...

    def done(self, d: Draft, code: str) -> bool: ...

    def visible(self, d: Draft) -> list[str]: ...

    def next(self, d: Draft, code: str) -> str: ...

    def previous(self, d: Draft, code: str) -> str | None: ...

    def complete(self, d: Draft) -> bool: ...

    def number(self, code: str) -> int: ...


@cache
def _models() -> tuple[InlineKeyboardButton, InlineKeyboardMarkup]:
    """Every button of the card is a copy of this button with its own text and data, and
    its keyboard a copy of this empty one with its rows: all of it is the card's own, and
    a copy costs half of a model validated anew (a card shows up to 40 buttons a tap).
    Made on first use: aiogram's models are built when first used, not at import."""
    return InlineKeyboardButton(text="-", callback_data="-"), InlineKeyboardMarkup(
        inline_keyboard=[]
    )


class Keys:
    """Buttons carrying the draft's token and the step the card shows."""

    def __init__(self, d: Draft, card: CardButtons | None = None) -> None:
        self.d = d
        self.card = card
        self.rows: list[list[InlineKeyboardButton]] = []
        # Step(t=..., s=..., a=..., n=..., m=...).pack(), without a model per button
        # (a card has up to 40): tests/handlers check both give the same text.
        self._prefix = Step(t=d.token, s=d.step, a="", n=0, m=0).pack().rsplit(":", 3)[0]

    def button(self, text: str, a: str, n: int = 0, m: int = 0) -> InlineKeyboardButton:
        data = f"{self._prefix}:{a}:{n}:{m}"
        return _models()[0].model_copy(update={"text": text, "callback_data": data})

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

    def nav(self, card: CardButtons) -> None:
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
        return _models()[1].model_copy(update={"inline_keyboard": self.rows})


def keyboard(card: CardButtons, d: Draft, view: View) -> InlineKeyboardMarkup:
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
