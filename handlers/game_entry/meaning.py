"""What a tap on the judge's card did, in a few words for the tap's answer ("Seat 3:
sheriff"). The answer is not rate limited and shows at once, while the card's edit
may wait for the chat's next slot (``bot.telegram.flood``): the judge knows his tap counted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from aiogram.utils.i18n import gettext as _

from bot.texts.vocabulary import RESULT_NAMES, ROLE_NAMES
from handlers.game_entry.draft import Draft
from handlers.game_entry.spec import Card
from scoring import Result, Role

ANSWER_LIMIT = 200  # Telegram's limit for a callback query's answer


@dataclass(frozen=True, slots=True)
class Before:
    """The fields a tap's answer speaks of, as they were (cheaper than a draft's copy)."""

    step: str
    roles: dict[int, Role]
    day1: int | None
    night: int | None
    bm: tuple[int, ...]
    result: str | None

    @classmethod
    def of(cls, d: Draft) -> Before:
        return cls(d.step, _roles(d), d.day1, d.night, tuple(d.bm), d.result)


def _roles(d: Draft) -> dict[int, Role]:
    roles = {seat: Role.MAFIA for seat in d.mafia}
    if d.don is not None:
        roles[d.don] = Role.DON
    if d.sheriff is not None:
        roles[d.sheriff] = Role.SHERIFF
    return roles


def tap_meaning(card: Card, before: Before, d: Draft) -> str:
    """What changed, then the step the card moved to ("" when nothing is worth saying),
    in the current locale."""
    parts = list(_changes(before, d))
    if d.step != before.step and d.step in card.order:
        parts.append(_("Step {n}/{total}: {title}").format(
            n=card.number(d.step), total=card.total, title=card.spec(d.step).title))
    return "; ".join(parts)[:ANSWER_LIMIT]


def _changes(before: Before, d: Draft) -> Iterator[str]:
    roles = _roles(d)
    for seat in sorted(before.roles.keys() | roles.keys()):
        role = roles.get(seat)
        if role == before.roles.get(seat):
            continue
        if role is None:
            yield _("Seat {seat}: role taken back").format(seat=seat)
        else:
            yield _("Seat {seat}: {role}").format(seat=seat, role=ROLE_NAMES[role])
    if d.day1 != before.day1 and d.day1 is not None:
        yield _("Day 1: {count} voted out").format(count=d.day1)
    if d.night != before.night and d.night is not None:
        yield (_("Night 1: seat {seat} shot").format(seat=d.night) if d.night
               else _("Night 1: a miss"))
    if tuple(d.bm) != before.bm:
        yield (_("Best move: {seats}").format(seats=", ".join(map(str, d.bm))) if d.bm
               else _("Best move: none"))
    if d.result != before.result and d.result is not None:
        yield _("Result: {result}").format(result=RESULT_NAMES[Result(d.result)])
