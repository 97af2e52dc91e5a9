"""A club evening as the host and the group read it (docs/club.md, "The evening",
"Season"): the attendance list, the next game's suggestion, the start, and the season's
table. The evening's own table is the tournament's final standings (posted by the
publisher from the same engine).

Pure rendering: values in, HTML out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import ngettext

from bot.texts.markup import html_text
from bot.texts.rating_format import (
    MESSAGE_LIMIT,
    display_width,
    fit,
    place_labels,
    points,
    right,
    short_points,
    utf16_len,
)
from bot.texts.seating_text import sitting_out_line, table_line
from seating import Round

if TYPE_CHECKING:
    from bot.reads.evening_result import EveningLine
    from bot.reads.season import Season

NAME_WIDTH = 16  # columns of a name in the season's table
MARKS = {"present": "✅", "absent": "❌", "left": "🚪", None: "▫️"}


def mark(presence: str | None) -> str:
    return MARKS.get(presence, MARKS[None])


def attendance_text(club: str, place: str, present: int, listed: int, *, running: bool) -> str:
    """The host's list: who came, and what to do next."""
    head = _("<b>{club}</b>, the evening at {place}: {present} of {count} present.").format(
        club=html_text(club), place=html_text(place), present=present, count=listed
    )
    if running:
        hint = _(
            "Tap a name: ✅ present, 🚪 left (he keeps his games). A latecomer: "
            "/present NICKNAME. The next game: /next_game; the end: /close_evening."
        )
    else:
        hint = _(
            "Tap a name: ✅ present, ❌ absent. One who came without signing up: "
            "/present NICKNAME. Then /start_evening."
        )
    if not listed:
        nobody = _("Nobody is on the list yet.")
        return f"{head}\n{nobody}\n\n{hint}"
    return f"{head}\n\n{hint}"


def presence_button(name: str, presence: str | None) -> str:
    return f"{mark(presence)} {name}"


def game_lines(game: Round) -> list[str]:
    lines = [table_line(t.table, t.seats) for t in game.tables]
    if game.sitting_out:
        lines.append(sitting_out_line(game.sitting_out))
    return lines


def suggestion_text(game: Round) -> str:
    """The next game as suggested, for the host to post or draw again."""
    head = _(
        "<b>Game {round}</b>, suggested: those with fewest games play, few repeat "
        "meetings and seats."
    ).format(round=game.round)
    return "\n".join([head, *game_lines(game), _("Post it to the group and the players?")])


def posted_text(game: Round) -> str:
    head = _("<b>Game {round}</b> is posted: the judge's /game card has its seats.").format(
        round=game.round
    )
    return "\n".join([head, *game_lines(game)])


def post_button() -> str:
    return _("Post")


def again_button() -> str:
    return _("Other tables")


def started_text(title: str, players: int) -> str:
    return ngettext(
        "The evening has started as «{title}»: {count} player. /next_game seats the first game.",
        "The evening has started as «{title}»: {count} players. /next_game seats the first game.",
        players,
    ).format(title=html_text(title), count=players)


def closed_text(title: str, games: int, lines: Sequence[EveningLine]) -> str:
    """The evening's table: place, name, games, wins, points, best-move points; the
    rows that fit one message (the rest are in /rating all)."""
    head = ngettext(
        "<b>{title}</b> is closed after {count} game. The evening's table:",
        "<b>{title}</b> is closed after {count} games. The evening's table:",
        games,
    ).format(title=html_text(title), count=games)
    columns = [_("#"), _("Player"), _("Games"), _("Wins"), _("Points"), _("Best move")]
    labels = place_labels([line.place for line in lines])
    rows = [
        [label, fit(line.player, NAME_WIDTH), str(line.games), short_points(line.wins),
         points(line.points), points(line.best_move)]
        for label, line in zip(labels, lines, strict=True)
    ]
    shown = len(rows)
    while True:
        text = f"{head}\n<pre>{html_text(_table([columns, *rows[:shown]]))}</pre>"
        if shown < len(rows):
            text += "\n" + _("…and {count} more: /rating all").format(count=len(rows) - shown)
        if utf16_len(text) <= MESSAGE_LIMIT or shown <= 1:
            return text
        shown -= 1


def season_text(season: Season) -> str:
    """The season's table: place, name, points, average a game, games, wins."""
    head = ngettext(
        "<b>{club}</b>: the season {first}–{last}, {count} evening.",
        "<b>{club}</b>: the season {first}–{last}, {count} evenings.",
        season.evenings,
    ).format(
        club=html_text(season.club.title),
        first=season.first.strftime("%d.%m.%Y"),
        last=season.last.strftime("%d.%m.%Y"),
        count=season.evenings,
    )
    if not season.rows:
        none = _("No games yet this season.")
        return f"{head}\n{none}"
    columns = [_("#"), _("Player"), _("Points"), _("Avg"), _("Games"), _("Wins")]
    rows = [
        [
            str(row.place),
            fit(row.name, NAME_WIDTH),
            points(row.points),
            points(round(row.average, 2)),
            str(row.games),
            points(row.wins),
        ]
        for row in season.rows
    ]
    return f"{head}\n<pre>{html_text(_table([columns, *rows]))}</pre>"


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(display_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        " ".join(
            fit(cell, widths[i]) if i == 1 else right(cell, widths[i])
            for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    )
