"""A seating plan for people: a round's seating as text (HTML), one player's seat, rows
for a sheet, and the plan's fairness figures (the picture: ``bot.texts.seating_image``).

Pure rendering (no I/O, no database): a ``seating.Plan`` whose names are the nicknames
to show in, text out. Texts are translated with the current locale: the caller picks
it (``i18n.use_locale(tournament.language)`` for the group, the reader's own in
private). Nicknames and titles are escaped here; callers pass them as they are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from aiogram.utils.i18n import gettext as _

from bot.texts.markup import html_text
from bot.texts.standings_text import stage_name
from seating import Plan, Round
from seating.model import SEATS

MESSAGE_LIMIT = 4096  # Telegram's limit of a message's text, in UTF-16 code units
ELLIPSIS = "…"


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def find_round(plan: Plan, round_no: int) -> Round | None:
    return next((r for r in plan.rounds if r.round == round_no), None)


def round_of(plan: Plan, round_no: int) -> Round:
    """Round ``round_no`` of ``plan``; ValueError if the plan has none."""
    found = find_round(plan, round_no)
    if found is None:
        raise ValueError(f"the plan has no round {round_no}")
    return found


def _esc(text: str) -> str:
    return html_text(text)


# -- a round's seating -------------------------------------------------------------------


def plan_title(title: str, stage: str | None) -> str:
    """The title over a plan's seating: the tournament's, and the stage the plan seats
    when the tournament has stages (docs/rules.md D13; round numbers run across stages)."""
    if stage is None:
        return title
    return _("{title}: {stage} stage").format(title=title, stage=stage_name(stage))


def round_title(round_no: int) -> str:
    return _("Round {round}").format(round=round_no)


def table_title(table_no: int) -> str:
    return _("Table {table}").format(table=table_no)


def sitting_out_line(names: Sequence[str]) -> str:
    return _("Sitting out: {players}").format(players=", ".join(_esc(n) for n in names))


def table_block(table_no: int, seats: Sequence[str]) -> str:
    """``Table 2`` and its ten seats, one a line: ``7. Nick``."""
    lines = [f"<b>{table_title(table_no)}</b>"]
    lines += [f"{seat}. {_esc(name)}" for seat, name in enumerate(seats, start=1)]
    return "\n".join(lines)


def table_line(table_no: int, seats: Sequence[str]) -> str:
    """A table on one line: ``Table 2: 1 Ann · 2 Bob · …``."""
    cells = " · ".join(f"{seat} {_esc(name)}" for seat, name in enumerate(seats, start=1))
    return f"<b>{table_title(table_no)}</b>: {cells}"


def round_seating_text(plan: Plan, round_no: int, title: str) -> str:
    """The seating of round ``round_no`` (HTML): per table its players in seat order,
    then who sits the round out. A round too long for one message is written one line
    a table, and cut with an ellipsis if even that is too long. ValueError for a round
    the plan doesn't have."""
    round_ = round_of(plan, round_no)
    head = f"<b>{_esc(title)}</b>\n<b>{round_title(round_no)}</b>"
    tail = [sitting_out_line(round_.sitting_out)] if round_.sitting_out else []
    full = "\n\n".join([head, *(table_block(t.table, t.seats) for t in round_.tables), *tail])
    if utf16_len(full) <= MESSAGE_LIMIT:
        return full
    lines = [head, *(table_line(t.table, t.seats) for t in round_.tables), *tail]
    return fit_lines(lines, MESSAGE_LIMIT)


def fit_lines(lines: Sequence[str], limit: int) -> str:
    """The lines joined, as many as fit in ``limit`` with an ellipsis line for the rest
    (a line is never cut, so no HTML tag is)."""
    text = "\n".join(lines)
    if utf16_len(text) <= limit:
        return text
    kept: list[str] = []
    size = utf16_len(ELLIPSIS)
    for line in lines:
        size += utf16_len(line) + 1
        if size > limit:
            break
        kept.append(line)
    return "\n".join([*kept, ELLIPSIS])


def player_seat_text(plan: Plan, round_no: int, nickname: str) -> str | None:
    """Where the player sits in the round: "Round 3: table 2, seat 7", or that he sits
    it out; None if the plan has no such round or the round doesn't name him. The
    nickname matches as written, else ignoring case."""
    round_ = find_round(plan, round_no)
    if round_ is None:
        return None
    for wanted in (nickname, nickname.casefold()):
        fold = wanted is not nickname
        for table in round_.tables:
            for seat, name in enumerate(table.seats, start=1):
                if (name.casefold() if fold else name) == wanted:
                    return _("Round {round}: table {table}, seat {seat}").format(
                        round=round_no, table=table.table, seat=seat
                    )
        if any((name.casefold() if fold else name) == wanted for name in round_.sitting_out):
            return _("Round {round}: sitting out").format(round=round_no)
    return None


# -- the seating told before a round (bot.publishing) ----------------------------------------


def seating_changed_line(round_no: int) -> str:
    return "🔁 " + _("The seating of round {round} changed.").format(round=round_no)


def round_seating_update(plan: Plan, round_no: int, title: str) -> str:
    """The seating of a round posted again after a re-plan changed it (HTML): a line
    saying so, then ``round_seating_text``, within one message."""
    body = round_seating_text(plan, round_no, title)
    return fit_lines([seating_changed_line(round_no), "", *body.split("\n")], MESSAGE_LIMIT)


def seat_message(
    plan: Plan, round_no: int, nickname: str | None, title: str, *, changed: bool = False
) -> str | None:
    """A player's private message before the round (HTML): the tournament, then where he
    sits ("Round 2: table 3, seat 7") or that he sits out. ``changed``: a re-plan moved
    him, or left him out of the round. None: nothing to tell (the round doesn't name
    him, and he was never told it did)."""
    seat = player_seat_text(plan, round_no, nickname) if nickname is not None else None
    if seat is None and not changed:
        return None
    lines = [f"<b>{_esc(title)}</b>"]
    if changed:
        lines.append(seating_changed_line(round_no))
    lines.append(
        seat
        if seat is not None
        else _("You are no longer in the seating of round {round}.").format(round=round_no)
    )
    return "\n".join(lines)


def plan_sheet_rows(plan: Plan) -> list[list[str | int]]:
    """The plan as a sheet (CSV/XLSX): a header row, then one row a seat: round, table,
    seat, player. Players sitting a round out have no row in it."""
    rows: list[list[str | int]] = [[_("Round"), _("Table"), _("Seat"), _("Player")]]
    for round_ in plan.rounds:
        for table in round_.tables:
            for seat, name in enumerate(table.seats, start=1):
                rows.append([round_.round, table.table, seat, name])
    return rows


# -- fairness figures ----------------------------------------------------------------------


def sit_outs(plan: Plan) -> tuple[int, int]:
    """Fewest and most rounds one player sits out."""
    counts: Counter[str] = Counter()
    for round_ in plan.rounds:
        for table in round_.tables:
            for name in table.seats:
                counts[name] += 0
        for name in round_.sitting_out:
            counts[name] += 1
    return (min(counts.values()), max(counts.values())) if counts else (0, 0)


def games_played(plan: Plan) -> tuple[int, int]:
    """Fewest and most games one player plays in the plan."""
    counts: Counter[str] = Counter()
    for round_ in plan.rounds:
        for table in round_.tables:
            counts.update(table.seats)
    return (min(counts.values()), max(counts.values())) if counts else (0, 0)


def quality_text(plan: Plan, seed: int | None = None) -> str:
    """How fair the plan is, in plain words for the chief judge, one point a line (HTML).
    ``seed`` is not shown: it tells people nothing."""
    q = plan.quality
    fewest, most = games_played(plan)
    lines = ["<b>" + _("How fair the plan is") + "</b>", "• " + _games_line(fewest, most)]
    even = fewest % SEATS == 0 and most % SEATS == 0
    lines.append("• " + _seats_line(q.seat_spread, most, even=even))
    lines.append("• " + _meetings_line(q.meetings_min, q.meetings_max, q.meetings_histogram))
    tables = max((t.table for r in plan.rounds for t in r.tables), default=1)
    if tables > 1:
        lines.append("• " + _tables_line(q.table_spread))
    low, high = sit_outs(plan)
    if high > 0:
        lines.append("• " + _sit_outs_line(low, high))
    if q.apart_violations:
        lines.append(
            "• " + _(
                "Players who should sit apart share a table in {count} game.",
                "Players who should sit apart share a table in {count} games.",
                q.apart_violations,
            ).format(count=q.apart_violations)
        )
    if q.cut_short:
        warning = _("The search was cut short by its time limit: a regenerated plan may be fairer.")
        lines.append("⚠️ " + warning)
    return "\n".join(lines)


def _games_line(fewest: int, most: int) -> str:
    if fewest == most:
        return _("Everyone plays {games} game.", "Everyone plays {games} games.", most).format(
            games=most
        )
    return _("Players play {fewest} to {most} games.").format(fewest=fewest, most=most)


def _seats_line(spread: int, games: int, *, even: bool) -> str:
    """``even``: every player's games are a multiple of the ten seats, so a spread of 0 is
    possible; else 1 is the best there is."""
    if spread == 0:
        return _("Seats: every player sits in every seat equally often.")
    if spread == 1 and not even and games < SEATS:
        return _("Seats: nobody sits in the same seat twice.")
    if spread == 1 and not even:
        return _("Seats: as even as the games allow (a player's seats differ by one game at most).")
    return _(
        "Seats: uneven; a player may sit in one seat up to {spread} game more than in another.",
        "Seats: uneven; a player may sit in one seat up to {spread} games more than in another.",
        spread,
    ).format(spread=spread)


def _meetings_line(low: int, high: int, histogram: Mapping[int, int]) -> str:
    if low == high:
        return _(
            "Every pair of players meets {count} time.",
            "Every pair of players meets {count} times.",
            high,
        ).format(count=high)
    if low > 0:
        return _(
            "Every pair of players meets {low}–{high} time.",
            "Every pair of players meets {low}–{high} times.",
            high,
        ).format(low=low, high=high)
    pairs = sum(histogram.values())
    never = histogram.get(0, 0)
    percent = max(1, round(100 * never / pairs)) if pairs and never else 0
    return _(
        "No pair of players meets more than {high} time; {percent}% of the pairs never meet "
        "(there are too few games for everyone to meet everyone).",
        "No pair of players meets more than {high} times; {percent}% of the pairs never meet "
        "(there are too few games for everyone to meet everyone).",
        high,
    ).format(high=high, percent=percent)


def _tables_line(spread: int) -> str:
    if spread <= 1:
        return _("Tables: everyone plays at every table about equally often.")
    return _(
        "Tables: uneven; a player may play up to {spread} game more at one table than at "
        "another: even meetings of the players come first, and the tables give way to them.",
        "Tables: uneven; a player may play up to {spread} games more at one table than at "
        "another: even meetings of the players come first, and the tables give way to them.",
        spread,
    ).format(spread=spread)


def _sit_outs_line(low: int, high: int) -> str:
    if low == high:
        return _(
            "Everyone sits out {count} round.", "Everyone sits out {count} rounds.", high
        ).format(count=high)
    return _("Players sit out {low} to {high} rounds.").format(low=low, high=high)


def plan_preview(plan: Plan, rounds: Sequence[int], limit: int) -> str:
    """A look at the plan within ``limit`` characters: the first of ``rounds`` in full
    (one line a table if that doesn't fit), the others one line a table; an ellipsis
    line where the rest is left out."""
    full = _preview_lines(plan, rounds, in_full=True)
    if utf16_len("\n".join(full)) <= limit:
        return "\n".join(full)
    first = _preview_lines(plan, rounds[:1], in_full=True)
    if utf16_len("\n".join(first)) <= limit:
        return fit_lines(full, limit)
    return fit_lines(_preview_lines(plan, rounds, in_full=False), limit)


def _preview_lines(plan: Plan, rounds: Sequence[int], *, in_full: bool) -> list[str]:
    lines: list[str] = []
    for number, round_no in enumerate(rounds):
        round_ = find_round(plan, round_no)
        if round_ is None:
            continue
        lines.append(f"<b>{round_title(round_no)}</b>")
        if number == 0 and in_full:
            lines += [table_block(t.table, t.seats) for t in round_.tables]
        else:
            lines += [table_line(t.table, t.seats) for t in round_.tables]
        if round_.sitting_out:
            lines.append(sitting_out_line(round_.sitting_out))
    return lines


def substitute_for(name: str) -> str:
    """What a withdrawn player's seat in a round still to play reads: a substitute plays it."""
    return _("substitute for {player}").format(player=name)
