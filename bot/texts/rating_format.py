"""Text for Telegram: numbers, monospaced columns, messages under the limit, and a
player's game-by-game points (/rating in private).

Pure rendering (no I/O): values in, HTML out, split into Telegram messages that stay
under 4096 characters without ever cutting a table row or a game's block. Points are
exact ``Fraction``s and are shown with 2 decimals (D3); players still tied after
8.7.1-8.7.5 share a place shown as a range, e.g. ``5–6`` (D12). The standings
themselves (tables, the group's live message, the picture's cells) are
``bot.texts.standings_text``'s.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.texts.vocabulary import role_name
from scoring import Result, Role, SeatPoints, StandingRow
from scoring.judging import MINUS, format_points

MESSAGE_LIMIT = 4096  # characters (UTF-16 code units) of a Telegram message
CAPTION_LIMIT = 1024  # ...of a photo's caption
ELLIPSIS = "…"

# ------------------------------------------------------------------------- numbers


def utf16_len(text: str) -> int:
    """Telegram counts message length in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def decimal_point() -> str:
    """The decimal separator of whoever reads the text now: a comma for Russian (0,4),
    a dot otherwise (and in files, which pass ``point="."``)."""
    i18n = I18n.get_current(no_error=True)
    return "," if i18n is not None and i18n.current_locale == "ru" else "."


def points(value: Fraction | int, *, minus: str = MINUS, point: str | None = None) -> str:
    """Exact points for display: 2 decimals, half away from zero (D3): 0.13, −0.50
    (``minus="-"``, ``point="."`` for files that programs read, e.g. CSV); in the
    reader's decimal separator unless ``point`` says."""
    return format_points(value, fixed=True, minus=minus, point=point or decimal_point())


def short_points(value: Fraction | int) -> str:
    """Points as the judge's card and messages show them: 0.5, 1, −0.4 (0,5 in Russian)."""
    return format_points(value, point=decimal_point())


def place_labels(places: Sequence[int]) -> list[str]:
    """``place`` of each row → its label; a place shared by n players is ``p–(p+n-1)``."""
    shared = Counter(places)
    return [
        f"{place}–{place + shared[place] - 1}" if shared[place] > 1 else str(place)
        for place in places
    ]


# ------------------------------------------------------------------- monospaced text


@lru_cache(maxsize=4096)
def char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


# Latin, Cyrillic and the like, one column each: every /rating measures hundreds of cells.
_NARROW = re.compile(r"[\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff\u0400-\u0482\u048a-\u052f]*")


def display_width(text: str) -> int:
    if _NARROW.fullmatch(text):
        return len(text)
    return sum(map(char_width, text))


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns (an ellipsis marks a cut) and padded to it."""
    if display_width(text) > width:
        kept, used = [], 0
        for ch in text:
            w = char_width(ch)
            if used + w > width - 1:
                break
            kept.append(ch)
            used += w
        text = "".join(kept) + ELLIPSIS
    return text + " " * (width - display_width(text))


def right(text: str, width: int) -> str:
    """``text`` padded on the left to ``width`` columns (numbers line up)."""
    return " " * (width - display_width(text)) + text


def split_labels(translated: str, english: str) -> list[str]:
    """Column titles kept in one msgid ("Seat|Player|Role"): they only make sense
    together. A translation with the wrong number of parts falls back to English."""
    parts = [part.strip() for part in translated.split("|")]
    default = english.split("|")
    return parts if len(parts) == len(default) else default


# ---------------------------------------------------------------------- messages


class Pages:
    """Builds messages under the limit from paragraphs and ``<pre>`` tables.

    A paragraph or a table row is never cut; a table that does not fit continues in
    the next message, its column header repeated. Lengths are measured on the HTML
    itself, so the limit holds whatever Telegram does with the tags.
    """

    def __init__(self, limit: int = MESSAGE_LIMIT) -> None:
        self._limit = limit
        self._pages: list[str] = []
        self._current = ""

    def _room(self, extra: str) -> bool:
        joined = f"{self._current}\n{extra}" if self._current else extra
        return utf16_len(joined) <= self._limit

    def _append(self, text: str) -> None:
        self._current = f"{self._current}\n{text}" if self._current else text

    def break_page(self) -> None:
        if self._current:
            self._pages.append(self._current)
            self._current = ""

    def text(self, block: str) -> None:
        """A paragraph (HTML); one longer than a whole message is split by lines."""
        if not block:
            return
        if not self._room(block):
            self.break_page()
        if utf16_len(block) <= self._limit:
            self._append(block)
            return
        for line in block.split("\n"):
            while utf16_len(line) > self._limit:  # a single enormous line: cut it
                head, line = _cut(line, self._limit)
                self.break_page()
                self._append(head)
            if not self._room(line):
                self.break_page()
            self._append(line)

    def table(self, header: str, rows: Iterable[str]) -> None:
        """A ``<pre>`` table; ``header`` and ``rows`` are escaped lines."""
        open_tag, close_tag = "<pre>", "</pre>"
        body: list[str] = []

        def flush() -> None:
            if body:
                self._append(open_tag + "\n".join([header, *body]) + close_tag)
                body.clear()

        for row in rows:
            candidate = open_tag + "\n".join([header, *body, row]) + close_tag
            if not self._room(candidate):
                if body:
                    flush()
                self.break_page()
            body.append(row)
        flush()

    def pages(self) -> list[str]:
        self.break_page()
        return list(self._pages)


def split_lines(lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> list[list[str]]:
    """Group lines into messages of at most ``limit`` characters (a longer line is cut)."""
    chunks: list[list[str]] = []
    size = 0
    for line in lines:
        if utf16_len(line) > limit:
            cut = limit - 1
            while utf16_len(line[:cut]) > limit - 1:  # emoji take two units
                cut -= 1
            line = line[:cut] + ELLIPSIS
        length = utf16_len(line)
        if chunks and size + 1 + length <= limit:
            chunks[-1].append(line)
            size += 1 + length
        else:
            chunks.append([line])
            size = length
    return chunks


def _cut(line: str, limit: int) -> tuple[str, str]:
    # Cut outside an HTML entity or tag, below the limit.
    end = limit
    while utf16_len(line[:end]) > limit:
        end -= 1
    amp, lt = line.rfind("&", 0, end), line.rfind("<", 0, end)
    for start, stop in ((amp, ";"), (lt, ">")):
        if start > 0 and line.find(stop, start) >= end:
            end = start
    return line[:end], line[end:]


def own_row_line(row: StandingRow, label: str, players: int) -> str:
    return _(
        "<b>You: place {place} of {players}</b> · total {total} · extra {extra} · "
        "wins {wins} · Ci {ci} · games {games}"
    ).format(
        place=label,
        players=players,
        total=points(row.total),
        extra=points(row.extra),
        wins=short_points(row.wins),  # a fraction in a weighted stage (D15)
        ci=points(row.ci),
        games=row.games,
    )


# ----------------------------------------------------------- a player's breakdown


@dataclass(frozen=True, slots=True)
class GameView:
    """One game of the player, as /rating in private shows it."""

    round: int
    table_no: int
    result: Result
    seat: SeatPoints | None  # None: annulled, not in the standings
    penalty_rules: tuple[str, ...] = ()
    awaiting_approval: bool = False  # some judge's points of the game wait (D7)
    protests: tuple[tuple[int, str], ...] = ()  # (protest id, status)


def seat_and_role(seat: int, role: Role) -> str:
    return _("seat {seat}, {role}").format(seat=seat, role=role_name(role))


def _outcome(role: Role, result: Result) -> str:
    if result is Result.DRAW:
        return _("the game was a draw")
    return _("your team won") if role.team is result else _("your team lost")


def protest_note(protest_id: int, status: str) -> str:
    notes = {
        "open": _("protest #{id} open"),
        "upheld": _("protest #{id} upheld"),
        "rejected": _("protest #{id} rejected"),
    }
    return notes.get(status, "{id}").format(id=protest_id)


def seat_parts(
    s: SeatPoints, *, every: bool = False, penalty_rules: Sequence[str] = ()
) -> list[str]:
    """What a seat's points are made of, in the same words wherever they are shown
    (the judge's card, /rating): win, Ci, best move, judge's points, penalties,
    disqualification. Only the parts that are not zero, in short numbers (0.4), unless
    ``every`` (each part, with two decimals: 0.40)."""
    shown = points if every else short_points
    parts = []
    if every or s.win:
        parts.append(_("win {value}").format(value=shown(s.win)))
    if every or s.ci:
        parts.append(_("Ci {value}").format(value=shown(s.ci)))
    if every or s.best_move:
        part = _("best move {value}").format(value=shown(s.best_move))
        if s.best_move and s.judge_counted:
            part += " " + _("(not counted: judge's points are larger, 8.4.6)")
        parts.append(part)
    if every or s.judge:
        part = _("judge {value}").format(value=shown(s.judge))
        if s.judge and s.judge_pending:
            part += " " + _("(not counted yet: awaits the chief judge's approval)")
        elif s.judge and not s.judge_counted:
            part += " " + _("(not counted: the best move is not less, 8.4.6)")
        parts.append(part)
    if every or s.penalties:
        part = _("penalties {value}").format(value=shown(s.penalties))
        if penalty_rules:
            part += " (" + ", ".join(penalty_rules) + ")"
        parts.append(part)
    if every or s.disqualification:
        parts.append(_("disqualification {value}").format(value=shown(s.disqualification)))
    return parts


def game_block(game: GameView) -> str:
    """One game: where he sat, the result, every component of his points, marks."""
    title = _("<b>Round {round}, table {table}</b>").format(round=game.round, table=game.table_no)
    marks = [protest_note(pid, status) for pid, status in game.protests]
    seat = game.seat
    if seat is None:
        return " · ".join([title, _("annulled, not counted"), *marks])
    head_parts = [
        title,
        seat_and_role(seat.seat, seat.role),
        _outcome(seat.role, game.result),
    ]
    if game.awaiting_approval:
        head_parts.append(_("awaits approval"))
    head_parts += marks
    components = seat_parts(seat, every=True, penalty_rules=game.penalty_rules)
    components.append("<b>" + _("total {value}").format(value=points(seat.total)) + "</b>")
    return " · ".join(head_parts) + "\n" + " · ".join(components)


def breakdown_blocks(games: Sequence[GameView]) -> list[str]:
    return [game_block(game) for game in games]
