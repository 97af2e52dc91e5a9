"""The standings as people read them, in one place: the monospaced table, the group's
live standings message, /rating's standings block and the cells of the picture.

Pure rendering (no I/O), in the current language (aiogram's gettext): the group's live
message is built in the tournament's language by ``bot.publishing``, /rating in the
reader's by ``handlers.rating``. Numbers and message splitting: ``bot.texts.rating_format``;
the drawing itself: ``bot.texts.standings_image``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from aiogram.utils.i18n import gettext as _

from bot.texts.i18n import N_
from bot.texts.markup import html_text
from bot.texts.rating_format import (
    MESSAGE_LIMIT,
    Pages,
    decimal_point,
    display_width,
    fit,
    place_labels,
    points,
    right,
    short_points,
    split_labels,
    utf16_len,
)
from scoring import StandingRow, Standings

TOP = 20  # rows of /rating; /rating all shows everyone
LIVE_ROWS = 50  # rows of the group's live standings message; the rest: /rating all
NAME_WIDTH = 14  # nickname column in the monospaced table (a phone shows ~40 columns)
PENDING_MARK = "*"
_CODE = re.compile(r"^R(\d+)-T(\d+)$")


def standings_after(games: int) -> str:
    return _("Standings after {games} game", "Standings after {games} games", games).format(
        games=games
    )


def _games_played(standings: Standings) -> int:
    return sum(row.games for row in standings.rows) // 10


# ---------------------------------------------------------------------------- the table


@dataclass(frozen=True, slots=True)
class TableText:
    header: str
    rows: list[str]


# One msgid for the whole header row: its words only make sense together. The text
# tables and the picture name each column alike.
COLUMNS = N_("#|Player|Total|Extra|Wins|Ci|Games")


def columns() -> list[str]:
    """Place, nickname, total, extra points, wins, Ci, games: in the reader's words."""
    return split_labels(_(COLUMNS), COLUMNS)


def standings_table(
    rows: Sequence[StandingRow],
    *,
    all_places: Sequence[int] | None = None,
    pending_players: Collection[str] = (),
    name_width: int = NAME_WIDTH,
) -> TableText:
    """Place, nickname, total, extra points, wins, Ci; escaped monospaced lines.

    ``all_places`` are the places of the whole standings (rows may be its top only),
    so a shared place cut by the top still shows its full range.
    """
    places = list(all_places) if all_places is not None else [r.place for r in rows]
    labels = place_labels(places)[: len(rows)]
    heads = columns()[:6]  # the picture's, without its games column
    cells = [
        (
            label,
            row.player,
            points(row.total),
            points(row.extra),
            short_points(row.wins),  # a fraction in a weighted stage (D15)
            points(row.ci),
        )
        for label, row in zip(labels, rows, strict=True)
    ]
    marks = [PENDING_MARK if row.player in pending_players else " " for row in rows]
    if not pending_players or all(m == " " for m in marks):
        marks = [""] * len(rows)
    widths = [display_width(h) for h in heads]
    for values in cells:
        widths = [max(w, display_width(v)) for w, v in zip(widths, values, strict=True)]
    widths[1] = min(widths[1], max(name_width, display_width(heads[1])))

    def line(values: Sequence[str], mark: str) -> str:
        place, name, *numbers = values
        # The mark follows the (cut) nickname, so truncation never hides it.
        shown = fit(name, widths[1]).rstrip(" ") + mark.strip()
        parts = [right(place, widths[0]), fit(shown, widths[1] + len(mark))]
        parts += [right(v, w) for v, w in zip(numbers, widths[2:], strict=True)]
        return html_text(" ".join(parts).rstrip())

    pad = " " if any(marks) else ""
    return TableText(line(heads, pad), [line(c, m) for c, m in zip(cells, marks, strict=True)])


# ------------------------------------------------------------------------- the stages

# The names of the preset stages, stored untranslated and shown in the reader's language.
STAGE_NAMES = {
    "qualifying": N_("qualifying"),
    "semifinal": N_("semifinal"),
    "final": N_("final"),
}


class ShownStageRow(Protocol):
    """A stage as its texts read it (``bot.db.stages.StageRow``)."""

    @property
    def number(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def carry(self) -> str: ...  # an exact decimal string (D15)

    @property
    def hides_figures(self) -> bool: ...


class ShownStage(Protocol):
    """The current stage of a tournament of stages as its texts read it
    (``bot.reads.standings.StageView``): what people read knows no read model."""

    @property
    def row(self) -> ShownStageRow: ...

    @property
    def count(self) -> int: ...  # stages in all

    @property
    def before(self) -> str | None: ...  # the name of the stage before

    @property
    def finished(self) -> bool: ...

    @property
    def carried(self) -> bool: ...


def stage_name(name: str) -> str:
    return _(STAGE_NAMES[name]) if name in STAGE_NAMES else name


def stage_line(stage: ShownStage) -> str:
    """Which stage the standings are of (D13), or the final standings (D16)."""
    if stage.finished:
        return _("The final standings of all {count} stages").format(count=stage.count)
    return _("Stage {number} of {count}: {name}").format(
        number=stage.row.number, count=stage.count, name=html_text(stage_name(stage.row.name))
    )


def carried_note(stage: ShownStage) -> str | None:
    """D15: the figures hold carry × those brought from the stage before."""
    if not stage.carried or stage.before is None:
        return None
    return _("Figures include {carry} × those brought from the {before} stage.").format(
        carry=stage.row.carry.replace(".", decimal_point()),
        before=html_text(stage_name(stage.before)),
    )


def hidden_lines(standings: Standings, limit: int = MESSAGE_LIMIT) -> list[str]:
    """D17: games played, no points or places; by nickname, so the order tells nothing.
    At most ``limit`` characters: the rest is counted in a last line."""
    rows = sorted(standings.rows, key=lambda row: row.player.casefold())
    width = max((display_width(row.player) for row in rows), default=1)
    width = min(width, NAME_WIDTH)
    lines = [html_text(f"{fit(row.player, width)} {row.games}") for row in rows]
    intro = _("The standings of this stage are hidden until it ends. Games played:")
    shown = len(lines)
    while True:
        block = [intro, "<pre>" + "\n".join(lines[:shown]) + "</pre>"]
        if shown < len(lines):
            block.append(_("…and {count} more: /rating all").format(count=len(lines) - shown))
        if utf16_len("\n".join(block)) <= limit or shown <= 1:
            return block
        shown -= 1


def hidden(stage: ShownStage | None) -> bool:
    """D17: the current stage's figures are hidden from the group and the players."""
    return stage is not None and stage.row.hides_figures


def ask_in_private(stage: str, command: str) -> str:
    """A chief judge's command that would show a hidden stage's order (its ties, its
    cut) to the group is answered there with this instead (D17)."""
    return _(
        "The standings of the {stage} stage are hidden until it ends: send {command} to me "
        "in a private chat."
    ).format(stage=html_text(stage_name(stage)), command=command)


# ------------------------------------------------------------- the group's live message


def live_message(
    title: str,
    standings: Standings,
    *,
    pending: Mapping[str, PendingGame] | None = None,
    pending_players: Collection[str] = (),
    lot_due: bool = False,
    max_rows: int = LIVE_ROWS,
    limit: int = MESSAGE_LIMIT,
    stage: ShownStage | None = None,
) -> str:
    """The group's live standings message: the /rating table (place, nickname, total,
    extra, wins, Ci), its top rows only, so that it stays under ``limit`` characters;
    players of games that may still change (``pending``: points awaiting approval,
    open protests) marked as in /rating. Shared places are said to wait for the lot
    only when it is due (``bot.reads.standings.lot_due``). With stages, the current stage's;
    a hidden one (D17) shows games played only."""
    rows = standings.rows
    head = f"<b>{html_text(title)}</b>\n"
    if stage is not None and stage.finished:  # D16: of every stage, not one's games
        head += stage_line(stage)
    else:
        if stage is not None:
            head += stage_line(stage) + "\n"
        head += standings_after(_games_played(standings))
    if not rows:
        return head + "\n" + _("No games counted yet.")
    if hidden(stage):
        return "\n".join([head, *hidden_lines(standings, limit - utf16_len(head) - 1)])
    notes = []
    carried = None if stage is None else carried_note(stage)
    if carried is not None:
        notes.append(carried)
    # The notes' lists of games take at most half the message; the table the rest.
    budget = limit // 2
    if pending:
        notes.append(pending_note(pending, budget))
    elif standings.pending_games:
        notes.append(
            _("Not counted until the chief judge approves the judge's points (8.4.3): {games}")
            .format(games=listed(standings.pending_games, budget))
        )
    if lot_due and len({row.place for row in rows}) < len(rows):  # a place is shared
        notes.append(_("Players sharing a place wait for the chief judge's lot (8.7.5)."))
    # The places up to the end of the last shown one: its label's full range, and no
    # more of the standings is looked at than is shown.
    end = min(max_rows, len(rows))
    while 0 < end < len(rows) and rows[end].place == rows[end - 1].place:
        end += 1
    table = standings_table(
        rows[:max_rows], all_places=[row.place for row in rows[:end]],
        pending_players=pending_players,
    )
    shown = len(table.rows)
    while True:
        parts = [head, "<pre>" + "\n".join([table.header, *table.rows[:shown]]) + "</pre>"]
        if shown < len(rows):
            parts.append(_("…and {count} more: /rating all").format(count=len(rows) - shown))
        text = "\n".join(parts + notes)
        if utf16_len(text) <= limit or shown <= 1:
            return text
        shown -= 1


# ------------------------------------------------------------------------------ /rating


@dataclass(slots=True)
class PendingGame:
    """A game the standings include that may still change (marked, and counted)."""

    code: str
    approval: bool = False  # judge's points above 0.5 await the chief judge (D7)
    protests: list[int] = field(default_factory=list)  # open protests (8.8)


def game_title(code: str) -> str:
    found = _CODE.match(code)
    if found is None:
        return html_text(code)
    return _("round {round}, table {table}").format(round=found[1], table=found[2])


def _sort_key(code: str) -> tuple[int, int, str]:
    found = _CODE.match(code)
    return (int(found[1]), int(found[2]), code) if found else (0, 0, code)


def listed(items: Sequence[str], budget: int | None = None) -> str:
    """``items`` joined by commas; past ``budget`` characters the rest are counted."""
    if budget is None or utf16_len(", ".join(items)) <= budget:
        return ", ".join(items)
    shown, size = 0, 0
    for item in items:
        size += utf16_len(item) + 2
        if size > budget - 40 and shown:  # room for the count
            break
        shown += 1
    more = _("…and {count} more").format(count=len(items) - shown)
    return ", ".join([*items[:shown], more])


def pending_note(pending: Mapping[str, PendingGame], budget: int | None = None) -> str:
    items = []
    for game in sorted(pending.values(), key=lambda g: _sort_key(g.code)):
        reasons = []
        if game.approval:
            reasons.append(_("judge's points above 0.5 await the chief judge's approval, 8.4.3"))
        reasons += [_("protest #{id} open, 8.8").format(id=pid) for pid in game.protests]
        items.append(f"{game_title(game.code)} ({'; '.join(reasons)})")
    return _(
        "⏳ Pending games included: {count} — {games}. Players marked {mark} played in them; "
        "their points may still change."
    ).format(count=len(pending), games=listed(items, budget), mark=PENDING_MARK)


def ties_note() -> str:
    return _(
        "Shared places (such as 5–6) are players still tied after 8.7.1–8.7.4; "
        "the chief judge draws a lot for them (8.7.5)."
    )


def rating_block(
    pages: Pages,
    title: str,
    standings: Standings,
    *,
    games: int,
    show_all: bool,
    pending: Mapping[str, PendingGame],
    pending_players: Collection[str],
    lot_due: bool = False,
    stage: ShownStage | None = None,
    reveal: bool = True,
) -> None:
    """/rating's standings of one tournament: title, scope, table and notes.

    ``games``: the games counted; ``pending``: the counted games that may still change,
    ``pending_players`` those who played them (marked in the table); ``lot_due``: shared
    places wait for the lot (``bot.reads.standings.lot_due``). With stages, the current
    stage's; a hidden one (D17) shows games played only, unless ``reveal`` (judges and
    the chief judge).
    """
    rows = standings.rows
    head = f"<b>{html_text(title)}</b>"
    if stage is not None:
        head += "\n" + stage_line(stage)
    if not rows:
        pages.text(head + "\n" + _("No games have been recorded yet."))
        return
    if hidden(stage) and not reveal:
        pages.text("\n".join([head, *hidden_lines(standings)]))
        return
    shown = rows if show_all else rows[:TOP]
    if len(shown) < len(rows):
        scope = _("top {top} of {players}; /rating all shows everyone").format(
            top=len(shown), players=len(rows)
        )
    else:
        scope = _("all {players} players").format(players=len(rows))
    pages.text(
        head
        + "\n"
        + _("Standings · games counted: {games} · {scope}").format(games=games, scope=scope)
    )
    places = [r.place for r in rows]
    table = standings_table(shown, all_places=places, pending_players=pending_players)
    pages.table(table.header, table.rows)
    notes = []
    carried = None if stage is None else carried_note(stage)
    if carried is not None:
        notes.append(carried)
    if hidden(stage):
        notes.append(_("Hidden from the group and the players until the stage ends."))
    if lot_due and len(set(places)) < len(places):
        notes.append(ties_note())
    if pending:
        notes.append(pending_note(pending))
    if notes:
        pages.text("\n".join(notes))


# ------------------------------------------------------------------------- the picture


@dataclass(frozen=True, slots=True)
class Picture:
    """What ``bot.texts.standings_image.render_standings`` draws, and the photo's caption."""

    title: str
    subtitle: str
    columns: list[str]
    rows: list[tuple[str, ...]]
    podium: int  # rows highlighted: places 1-3
    caption: str


def picture(
    title: str, standings: Standings, *, pending: Mapping[str, PendingGame] | None = None,
    pending_players: Collection[str] = (),
) -> Picture:
    """The full standings as the picture's cells: place, nickname, total, extra, wins,
    Ci, games; players of games that may still change marked as in the text, and the
    caption says why."""
    labels = place_labels([row.place for row in standings.rows])
    rows: list[tuple[str, ...]] = [
        (
            label,
            row.player + (f" {PENDING_MARK}" if row.player in pending_players else ""),
            points(row.total),
            points(row.extra),
            short_points(row.wins),  # a fraction in a weighted stage (D15)
            points(row.ci),
            str(row.games),
        )
        for label, row in zip(labels, standings.rows, strict=True)
    ]
    subtitle = standings_after(_games_played(standings))
    caption = f"<b>{html_text(title)}</b>\n{subtitle}"
    if pending:
        caption += "\n" + pending_note(pending)
    return Picture(
        title=title,
        subtitle=subtitle,
        columns=columns(),
        rows=rows,
        podium=sum(1 for row in standings.rows if row.place <= 3),
        caption=caption,
    )


def round_caption(title: str, round_no: int) -> str:
    """The caption of the picture posted when a round is complete."""
    return _("{title}: standings after round {round}").format(
        title=html_text(title), round=round_no
    )


def cut_caption(title: str, stage: str, following: str, entrants: int) -> str:
    """The caption of the picture posted when a stage closes (D13): its standings, the
    next stage's entrants marked."""
    return _("{title}: the {stage} stage is closed; the top {count} enter the {next} stage").format(
        title=html_text(title),
        stage=html_text(stage_name(stage)),
        next=html_text(stage_name(following)),
        count=entrants,
    )


def final_caption(title: str) -> str:
    """The caption of the picture posted when the last stage ends (D16)."""
    return _("{title}: the final standings").format(title=html_text(title))
