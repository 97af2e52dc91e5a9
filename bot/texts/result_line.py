"""A saved game's line in the tournament's chat: its round, table and result, and each
seat's points, or, while its stage hides its figures (D17), the seats without them."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot.services.phrases import ResultLines
from bot.texts.markup import html_text
from bot.texts.rating_format import short_points
from bot.texts.vocabulary import RESULT_NAMES
from scoring import GameBreakdown, Result


def summary_line(
    round_no: int, table_no: int, result: Result, breakdown: GameBreakdown | None, hidden: bool
) -> str:
    """The short result line for the tournament chat (in the current locale). ``hidden``:
    the game's stage hides its figures (D17), so the seats are named without points and
    the line says nothing of judge's points awaiting approval (they are points too)."""
    line = _("Round {round}, table {table}: {result}.").format(
        round=round_no, table=table_no, result=RESULT_NAMES[result]
    )
    if breakdown is None:
        return line
    if hidden:
        seats = ", ".join(f"{s.seat}. {html_text(s.player)}" for s in breakdown.seats)
        hidden_note = _("Seats: {seats}. The stage's points are hidden until it ends.")
        return f"{line} {hidden_note.format(seats=seats)}"
    points = ", ".join(
        f"{s.seat}. {html_text(s.player)} {short_points(s.total)}" for s in breakdown.seats
    )
    line += " " + _("Points: {points}").format(points=points)
    if breakdown.pending:
        line += " " + _("(judge's points above 0.5 await the chief judge's approval)")
    return line


def result_lines(
    round_no: int, table_no: int, result: Result, breakdown: GameBreakdown | None
) -> ResultLines:
    """Both lines of a game (in the current locale): the use case that stores it picks
    the one its stage allows (D17)."""
    return ResultLines(*(
        summary_line(round_no, table_no, result, breakdown, hidden) for hidden in (False, True)
    ))
