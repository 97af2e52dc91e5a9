"""Exports of a tournament for the chief judge (/export, ``python -m bot export``).

* ``tournament-N.json`` — the scoring contract's input format
  (``python -m scoring standings FILE`` recomputes the bot's standings from it):
  games that count, ids ``R1-T2``, judge's points as decimal strings, the lot;
* ``standings-N.csv`` — UTF-8 with a BOM (Excel), the contract's output columns;
* ``standings-N.xlsx`` — a sheet of standings and a sheet of every seat's points;
  with stages the first sheet is the final standings (D16), then a sheet per stage
  (its standings by D15, the points carried from the stage before shown apart);
* ``protocols-N.md`` — every game's protocol, annulled ones included, with protests;
* ``seating-N.csv`` — the accepted seating plan, one row a seat (also a sheet of the
  XLSX), when the tournament has one;
* ``ratings-N.csv`` — the career rating (docs/formats.md#rating) of each player: his
  rating before his first game here, what this tournament changed, his rating now
  (the protocols give each game's changes);
* ``ratings-input-N.json`` — the tournament's games as the input of
  ``python -m scoring elo``, with its players' sums before its first game.

No Telegram id is in any of them.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiogram.utils.i18n import gettext as _

from bot.db import career as career_repo
from bot.db import games as games_repo
from bot.db import live as live_repo
from bot.db import players as players_repo
from bot.db import protests as protests_repo
from bot.db import seating as seating_repo
from bot.db import stages as stages_repo
from bot.db import tournaments, users
from bot.db.audit import AuditEntry, audit_entries
from bot.db.connection import Database
from bot.db.errors import NotFound
from bot.db.games import GameRecord
from bot.db.lots import lots_for_tournament
from bot.db.protests import ProtestRow
from bot.db.scoring_bridge import load_scoring_tournament, player_names
from bot.db.stages import StageRow
from bot.db.tournaments import TournamentRow
from bot.db.users import UserRow
from bot.reads.career import CareerService, GameRating, TournamentRatings, tournament_ratings
from bot.reads.standings import stage_breakdowns, stage_lots
from bot.reads.stored_plans import StoredPlan, stored_plan
from bot.texts.career_text import kind_name
from bot.texts.i18n import caller_language
from bot.texts.localtime import clock as local_clock
from bot.texts.markup import html_text
from bot.texts.rating_format import points as format_points
from bot.texts.rating_format import split_labels
from bot.texts.seating_text import plan_sheet_rows
from bot.texts.standings_text import stage_name
from bot.texts.vocabulary import result_name, role_name
from scoring import (
    StagedStandings,
    Tournament,
    b_value,
    compute_standings,
    tournament_breakdowns,
    tournament_standings,
)
from scoring.judging import MINUS

if TYPE_CHECKING:
    from scoring import Game, GameBreakdown, SeatPoints, Standings

CSV_COLUMNS = (
    "place",
    "player",
    "total",
    "main",
    "extra",
    "ci",
    "wins",
    "wins_don_sheriff",
    "first_night_deaths",
    "games",
)


@dataclass(frozen=True, slots=True)
class ExportFile:
    name: str
    data: bytes
    mime: str


@dataclass(frozen=True, slots=True)
class ExportData:
    """Everything the files are made of, read in one snapshot."""

    tournament: TournamentRow
    scored: Tournament  # games that count, as the standings use them
    standings: Standings
    breakdowns: dict[str, GameBreakdown]
    games: list[GameRecord]  # annulled included
    protests: dict[int, list[ProtestRow]]
    people: dict[int, UserRow]
    plan: StoredPlan | None  # the accepted seating plan
    # The stages (D13-D15; none: one stage over the distance), the stage number of each
    # game that counts (by code), each stage's replacements and its own lot (8.7.5, D15)
    # by number, and every stage's standings (with ``standings`` the final ones, D16).
    stages: tuple[StageRow, ...] = ()
    stage_of: dict[str, int] = field(default_factory=dict)
    replaced: dict[int, dict[str, str]] = field(default_factory=dict)
    lots: dict[int, tuple[str, ...]] = field(default_factory=dict)
    staged: StagedStandings | None = None
    # The live protocol's commands of games saved from the Mini App, by game code.
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # What was done to the tournament, oldest first (games, staff, protests, posts
    # Telegram refused and posted again).
    audit: tuple[AuditEntry, ...] = ()
    # Its share of the career rating (docs/formats.md#rating) and how it counts there.
    ratings: TournamentRatings | None = None
    rating_kind: str = "tournament"


# -- reading ---------------------------------------------------------------------------


async def load_export(
    db: Database, tournament_id: int, career: CareerService | None = None
) -> ExportData:
    """Raises NotFound for an unknown tournament. ``career``: the bot's rating (else it
    is computed here)."""
    async with db.read() as conn:
        tournament = await tournaments.require_tournament(conn, tournament_id)
        scored = await load_scoring_tournament(conn, tournament_id)
        games = await games_repo.list_games(conn, tournament_id, include_annulled=True)
        filed = await protests_repo.protests_for_games(conn, [g.id for g in games])
        protests = {g.id: filed.get(g.id, []) for g in games}
        people = await users.get_users(
            conn, {g.judge_id for g in games} | {g.annulled_by for g in games if g.annulled_by}
        )
        plan_row = await seating_repo.accepted_plan(conn, tournament_id)
        plan = None
        if plan_row is not None:
            plan = stored_plan(plan_row, await players_repo.list_players(conn, tournament_id))
        stages = tuple(await stages_repo.list_stages(conn, tournament_id))
        stage_of = await stages_repo.stage_of_games(conn, tournament_id) if stages else {}
        replaced = await stages_repo.replacements(conn, tournament_id, stages)
        lots = stage_lots(
            await lots_for_tournament(conn, tournament_id), await player_names(conn, tournament_id)
        )
        counted = {g.id: g.code for g in games if g.status != "annulled"}
        events = await live_repo.commands_of_games(conn, list(counted))
        log = tuple(reversed(await audit_entries(conn, tournament_id, limit=-1)))
        actors = {e.actor_id for e in log if e.actor_id is not None} - set(people)
        people |= await users.get_users(conn, actors)
        kind: str = await career_repo.rating_kind(conn, tournament_id)
        if kind != "unrated" and await career_repo.is_evening(conn, tournament_id):
            kind = "club"
    state = await (career or CareerService(db)).current()
    ratings = await tournament_ratings(db, state, tournament_id)
    standings, breakdowns = compute_standings(scored), tournament_breakdowns(scored)
    staged = None
    if stages:
        staged, breakdowns = _staged(scored, stages, stage_of, replaced, lots)
        standings = staged.final
    return ExportData(
        tournament=tournament,
        scored=scored,
        standings=standings,
        breakdowns=breakdowns,
        games=games,
        protests=protests,
        people=people,
        plan=plan,
        stages=stages,
        stage_of=stage_of,
        replaced=replaced,
        lots=lots if stages else {},
        staged=staged,
        events={counted[game_id]: commands for game_id, commands in events.items()},
        audit=log,
        ratings=ratings,
        rating_kind=kind,
    )


def _staged(
    scored: Tournament,
    stages: Sequence[StageRow],
    stage_of: Mapping[str, int],
    replaced: Mapping[int, Mapping[str, str]],
    lots: Mapping[int, tuple[str, ...]],
) -> tuple[StagedStandings, dict[str, GameBreakdown]]:
    """Every stage's standings, each by its own lot, with the final ones (D15, D16),
    and each game's points within its stage (D14)."""
    engine = [row.stage(replaced.get(row.number, {}), lots.get(row.number, ())) for row in stages]
    pairs = [(stages[stage_of.get(g.id, 1) - 1].name, g) for g in scored.games]
    return tournament_standings(engine, pairs), stage_breakdowns(stages, pairs)


# -- JSON (docs/formats.md) ------------------------------------------------------------


def decimal_text(value: Fraction) -> str:
    """Judge's points as an exact decimal string ("0.3", "0.25"): hundredths (D6)."""
    return str(Decimal(value.numerator) / Decimal(value.denominator))


def game_json(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "result": game.result.value,
        "seats": [{"player": s.player, "role": s.role.value} for s in game.seats],
        "day1_voted_out": game.day1_voted_out,
        "first_killed": game.first_killed,
        "best_move": list(game.best_move),
        "best_move_hint": game.best_move_hint,
        "disqualified": list(game.disqualified),
        "judge_extras": {
            str(seat): decimal_text(v) for seat, v in sorted(game.judge_extras.items())
        },
        "chief_approved": sorted(game.chief_approved),
        "penalties": {str(seat): list(rules) for seat, rules in sorted(game.penalties.items())},
    }


def stage_json(row: StageRow, replaced: Mapping[str, str], lot: Sequence[str]) -> dict[str, Any]:
    """A stage as the contract's ``stages[]`` (D13-D15); factors as exact decimal strings."""
    found: dict[str, Any] = {"id": row.name, "games_per_player": row.games_per_player}
    if row.entrants is not None:
        found |= {"entrants": row.entrants, "replaced": dict(replaced)}
    return found | {
        "carry": row.carry,
        "weight": row.weight,
        "compensation": row.compensation,
        "lot": list(lot),  # the stage's own lot (8.7.5, D15)
    }


def tournament_json(data: ExportData) -> bytes:
    document: dict[str, Any] = {
        "title": data.tournament.title,  # not in the contract; the engine ignores it
        "distance": data.scored.distance,
        "lot": list(data.scored.lot),
        "games": [game_json(game) for game in data.scored.games],
    }
    if data.stages:
        document["stages"] = [
            stage_json(row, data.replaced.get(row.number, {}), data.lots.get(row.number, ()))
            for row in data.stages
        ]
        names = {row.number: row.name for row in data.stages}
        for game in document["games"]:
            game["stage"] = names[data.stage_of.get(game["id"], 1)]
    for game in document["games"]:
        if game["id"] in data.events:  # entered in the Mini App: its events in order
            game["events"] = data.events[game["id"]]
    return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode()


# -- CSV and XLSX ------------------------------------------------------------------------


def _standing_values(data: ExportData) -> Iterator[list[Any]]:
    for row in data.standings.rows:
        yield [
            row.place,
            row.player,
            row.total,
            row.main,
            row.extra,
            row.ci,
            row.wins,
            row.wins_don_sheriff,
            row.first_night_deaths,
            row.games,
        ]


def _csv(rows: Iterable[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode("utf-8-sig")  # the BOM tells Excel it is UTF-8


def standings_csv(data: ExportData) -> bytes:
    values = (
        [format_points(v, minus="-", point=".") if isinstance(v, Fraction) else v for v in row]
        for row in _standing_values(data)
    )
    return _csv([list(CSV_COLUMNS), *values])


AUDIT_COLUMNS = ("at", "action", "by", "entity", "entity_id", "before", "after")


def audit_csv(data: ExportData) -> bytes:
    """The tournament's audit log: who did what when (its local time), with the values
    before and after as JSON; a post Telegram refused is ``post.set_aside``."""
    tz = data.tournament.timezone
    rows: list[list[Any]] = [list(AUDIT_COLUMNS)]
    for entry in data.audit:
        by = "" if entry.actor_id is None else _person(data.people, entry.actor_id)
        rows.append([
            _when(entry.at, tz), entry.action, by, entry.entity, entry.entity_id or "",
            "" if entry.before is None else _json(entry.before),
            "" if entry.after is None else _json(entry.after),
        ])
    return _csv(rows)


def _json(value: Any) -> str:
    return json.dumps(_without_accounts(value), ensure_ascii=False)


def _without_accounts(value: Any) -> Any:
    """A snapshot without the players' Telegram ids (``user_id`` of a player, an
    application, a protest): nothing exported names an account."""
    if isinstance(value, dict):
        return {k: _without_accounts(v) for k, v in value.items() if k != "user_id"}
    if isinstance(value, list):
        return [_without_accounts(v) for v in value]
    return value


def seating_csv(plan: StoredPlan) -> bytes:
    """The plan, one row a seat: round, table, seat, player (headers in the caller's
    language, like the XLSX's)."""
    return _csv(plan_sheet_rows(plan.plan))


_STANDINGS_HEADER = (
    "Place|Player|Total|Main|Extra|Ci|Wins|Wins as don or sheriff|First-night deaths|Games"
)
_GAMES_HEADER = (
    "Game|Round|Table|Result|Seat|Player|Role|Win|Ci|Best move|Judge's points"
    "|Judge's points count|Disqualification|Penalties|Main|Extra|Total"
)


def _counted(seat: SeatPoints, words: Sequence[str]) -> str:
    """Whether the judge's points count (8.4.6), or wait for approval (D7)."""
    if not seat.judge:
        return ""
    if seat.judge_pending:
        return words[0]
    return words[1] if seat.judge_counted else words[2]


def standings_xlsx(data: ExportData) -> bytes:
    """Standings, every seat's points and, with an accepted plan, the seating."""
    # Only when exporting. No stubs in the project's dependencies (types-openpyxl has them).
    from openpyxl import Workbook  # type: ignore[import-untyped, unused-ignore]
    from openpyxl.utils import get_column_letter  # type: ignore[import-untyped, unused-ignore]

    book = Workbook()
    book.remove(book.active)
    sheet_names = split_labels(_("Standings|Games"), "Standings|Games")
    # With stages the first sheet is the final standings (D16), a sheet per stage next.
    first_name = _("Final standings") if data.staged is not None else sheet_names[0]
    sheet = _sheet(book, first_name, split_labels(
        _("Place|Player|Total|Main|Extra|Ci|Wins|Wins as don or sheriff|First-night deaths"
          "|Games"),
        _STANDINGS_HEADER,
    ))
    for values in _standing_values(data):
        sheet.append([float(v) if isinstance(v, Fraction) else v for v in values])
    stage_sheets = _stage_sheets(book, data)
    games_sheet = _sheet(book, sheet_names[1], split_labels(
        _("Game|Round|Table|Result|Seat|Player|Role|Win|Ci|Best move|Judge's points"
          "|Judge's points count|Disqualification|Penalties|Main|Extra|Total"),
        _GAMES_HEADER,
    ))
    for row in _seat_rows(data):
        games_sheet.append(row)
    sheets = [
        (sheet, (3, 4, 5, 6)),
        *((ws, (3, 4, 5, 6, 7, 8)) for ws in stage_sheets),
        (games_sheet, (8, 9, 10, 11, 13, 14, 15, 16, 17)),
    ]
    if data.plan is not None:
        header, *rows = plan_sheet_rows(data.plan.plan)
        plan_sheet = _sheet(book, _("Seating"), [str(title) for title in header])
        for row in rows:
            plan_sheet.append(row)
        sheets.append((plan_sheet, ()))
    for ws, columns in sheets:
        for column in columns:
            for cell in ws.iter_rows(min_row=2, min_col=column, max_col=column):
                cell[0].number_format = "0.00"
        for index, column_cells in enumerate(ws.columns, start=1):
            width = max(len(str(c.value)) if c.value is not None else 0 for c in column_cells)
            ws.column_dimensions[get_column_letter(index)].width = min(max(width + 2, 6), 40)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


_STAGE_HEADER = (
    "Place|Player|Total|Carried|This stage|Main|Extra|Ci|Wins|Wins as don or sheriff"
    "|First-night deaths|Games"
)
_NOT_IN_SHEET_NAMES = str.maketrans({c: " " for c in "[]:*?/\\"})


def _number(value: Any) -> Any:
    """A cell's value: exact figures (D3) as numbers Excel reads."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def _stage_sheets(book: Any, data: ExportData) -> list[Any]:
    """A sheet per stage: its standings by D15, each total split into the part carried
    from the stage before (carry × that total) and this stage's own (weight × its
    games' total), then the figures 8.7 orders by."""
    if data.staged is None:
        return []
    header = split_labels(
        _("Place|Player|Total|Carried|This stage|Main|Extra|Ci|Wins|Wins as don or sheriff"
          "|First-night deaths|Games"),
        _STAGE_HEADER,
    )
    found = []
    before: dict[str, Fraction] = {}  # the stage before's totals
    for row, placed in zip(data.stages, data.staged.stages, strict=True):
        name = f"{row.number}. {stage_name(row.name)}".translate(_NOT_IN_SHEET_NAMES)
        ws = _sheet(book, name, header)
        carry = row.rules.carry
        for standing in placed.standings.rows:
            carried = carry * before.get(standing.player, Fraction(0))
            ws.append([_number(v) for v in (
                standing.place,
                standing.player,
                standing.total,
                carried,
                standing.total - carried,
                standing.main,
                standing.extra,
                standing.ci,
                standing.wins,
                standing.wins_don_sheriff,
                standing.first_night_deaths,
                standing.games,
            )])
        before = {standing.player: standing.total for standing in placed.standings.rows}
        found.append(ws)
    return found


def _sheet(book: Any, title: str, header: Sequence[str]) -> Any:
    """A new sheet with a bold, shaded header row that stays in view."""
    from openpyxl.styles import Font, PatternFill  # type: ignore[import-untyped, unused-ignore]

    ws = book.create_sheet(title[:31])  # Excel's limit on a sheet's name
    ws.append(list(header))
    for cell in ws[1]:
        cell.font = Font(bold=True)
        cell.fill = PatternFill("solid", fgColor="DCE6F5")
    ws.freeze_panes = "A2"
    return ws


def _seat_rows(data: ExportData) -> Iterator[list[Any]]:
    """One row per seat of every game that counts."""
    counted_words = split_labels(_("pending approval|yes|no"), "pending approval|yes|no")
    records = {g.code: g for g in data.games if g.status != "annulled"}
    for game in data.scored.games:
        record = records.get(game.id)
        for seat in data.breakdowns[game.id].seats:
            yield [
                game.id,
                record.round if record else None,
                record.table_no if record else None,
                result_name(game.result),
                seat.seat,
                seat.player,
                role_name(seat.role),
                float(seat.win),
                float(seat.ci),
                float(seat.best_move),
                float(seat.judge),
                _counted(seat, counted_words),
                float(seat.disqualification),
                float(seat.penalties),
                float(seat.main),
                float(seat.extra),
                float(seat.total),
            ]


# -- protocols ------------------------------------------------------------------------------


def _md(text: str) -> str:
    """A user's text inside a Markdown table cell or line."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")


def _when(value: datetime, tz: str | None) -> str:
    """``2025-05-01 21:00 (UTC+03:00)``: the tournament's local time, with its offset."""
    return local_clock(value, tz, seconds=False, date=True)


def _person(people: dict[int, UserRow], user_id: int | None) -> str:
    if user_id is None:
        return "—"
    row = people.get(user_id)
    if row is None:
        return str(user_id)
    name = _md(row.first_name)
    return f"{name} (@{row.username})" if row.username else name


def _seats_text(numbers: Sequence[int], game: GameRecord) -> str:
    return ", ".join(f"{n} ({_md(game.seat(n).nickname)})" for n in numbers)


def game_protocol(
    game: GameRecord,
    breakdown: GameBreakdown | None,
    protests: Sequence[ProtestRow],
    people: dict[int, UserRow],
    tz: str | None = None,
    rating: str | None = None,
) -> list[str]:
    statuses = split_labels(
        _("final|waiting for the chief judge's approval (8.4.3)|ANNULLED"),
        "final|waiting for the chief judge's approval (8.4.3)|ANNULLED",
    )
    status = statuses[("final", "pending", "annulled").index(game.status)]
    if game.status != "annulled" and any(p.status == "open" for p in protests):
        # The chief judge's decision may still change the game (8.8.2): not final yet.
        under = _("under protest (8.8), not decided yet")
        status = under if game.status == "final" else f"{status}; {under}"
    lines = [
        f"## {game.code} — {result_name(game.result)}",
        "",
        _("Judge: {judge}. Ended: {ended}. Status: {status}.").format(
            judge=_person(people, game.judge_id), ended=_when(game.ended_at, tz), status=status
        ),
    ]
    if game.status == "annulled":
        lines.append(
            _("Annulled by {who} at {when}: {reason}").format(
                who=_person(people, game.annulled_by),
                when=_when(game.annulled_at, tz) if game.annulled_at else "—",
                reason=_md(game.annul_reason or "—"),
            )
        )
    lines += [
        "",
        "| " + " | ".join(split_labels(_("Seat|Player|Role|Points|Notes"),
                                      "Seat|Player|Role|Points|Notes")) + " |",
        "|---:|---|---|---:|---|",
    ]
    for seat in game.seats:
        notes = []
        if seat.disqualified:
            notes.append(_("disqualified (8.2.4)"))
        if seat.judge_extra:
            text = _("judge's points {points}").format(
                points=format_points(Fraction(seat.judge_extra, 100), point=".")
            )
            if seat.chief_approved:
                text += " " + _("(approved by the chief judge)")
            notes.append(text)
        notes += [_("penalty {rule}").format(rule=rule) for rule in seat.penalties]
        points = (
            format_points(breakdown.seats[seat.seat - 1].total, point=".") if breakdown else "—"
        )
        lines.append(
            f"| {seat.seat} | {_md(seat.nickname)} | {role_name(seat.role)} | {points} | "
            + "; ".join(notes) + " |"
        )
    lines.append("")
    lines.append(_("Day 1: voted out {count}.").format(count=game.day1_voted_out))
    if game.first_killed is None:
        lines.append(_("Night 1: nobody was killed."))
    else:
        lines.append(
            _("Night 1: killed {seat}.").format(seat=_seats_text([game.first_killed], game))
        )
    if game.best_move:
        move = _("Best move: {seats}.").format(seats=_seats_text(game.best_move, game))
        if game.best_move_hint:
            move += " " + _("A hint was asked: no points (8.3.5).")
        lines.append(move)
    elif game.first_killed is not None:
        lines.append(_("Best move: none."))
    if rating:
        lines.append(rating)
    if protests:
        lines += ["", _("Protests (8.8):")]
        for protest in protests:
            decisions = split_labels(
                _("not decided yet|upheld|rejected"), "not decided yet|upheld|rejected"
            )
            decision = decisions[("open", "upheld", "rejected").index(protest.status)]
            if protest.decision:
                decision += ": " + _md(protest.decision)
            player = next(
                (s.nickname for s in game.seats if s.player_id == protest.player_id), "?"
            )
            lines.append(
                f"- {_when(protest.filed_at, tz)}, {_md(player)}: «{_md(protest.text)}» — "
                + decision
            )
    lines.append("")
    return lines


def protocols_md(data: ExportData) -> bytes:
    t = data.tournament
    lines = [
        f"# {_md(t.title)}",
        "",
        _(
            "Distance: {distance} game, B = {b} (8.6.1). Games counted: {games}.",
            "Distance: {distance} games, B = {b} (8.6.1). Games counted: {games}.",
            t.distance,
        ).format(distance=t.distance, b=b_value(t.distance), games=len(data.scored.games)),
        "",
    ]
    for game in data.games:
        breakdown = data.breakdowns.get(game.code) if game.status != "annulled" else None
        lines += game_protocol(
            game, breakdown, data.protests.get(game.id, []), data.people, t.timezone,
            rating_line(data, game),
        )
    return "\n".join(lines).encode()


def rating_line(data: ExportData, game: GameRecord) -> str | None:
    """What the game did to its players' career ratings (docs/formats.md#rating)."""
    if game.status == "annulled":
        return None
    rated = None if data.ratings is None else data.ratings.games.get(game.id)
    if rated is None:
        return _("Career rating: not counted, the tournament has not started.")
    if not rated.rated:
        return _("Career rating: not counted, the tournament is unrated.")
    if not rated.counts:
        return _("Career rating: no change (a draw).")
    return _("Career rating ({kind}; red's chance {odds}): {changes}.").format(
        kind=kind_name(data.rating_kind),
        odds=f"{rated.red_odds:.3f}",
        changes=", ".join(_seat_change(game, rated, seat) for seat in game.seats),
    )


def _seat_change(game: GameRecord, rated: GameRating, seat: Any) -> str:
    """``3 Alpha +3.39``: a file's figures take a dot, as the protocols' points do."""
    value = rated.changes.get(seat.player_id, 0.0)
    shown = f"{abs(value):.2f}"
    if shown != "0.00":
        shown = ("+" if value > 0 else MINUS) + shown
    return f"{seat.seat} {_md(seat.nickname)} {shown}"


RATING_COLUMNS = (
    "player", "career_name", "career_id", "rated_games", "rating_before", "change", "rating_now"
)


def ratings_csv(data: ExportData) -> bytes:
    """Each player's career rating: before his first game here, what the tournament
    changed, and now (2 decimals, a dot; ``ratings-input-N.json`` has the exact ones)."""
    rows: list[list[Any]] = [list(RATING_COLUMNS)]
    for player in data.ratings.players if data.ratings is not None else ():
        rows.append([
            player.nickname, player.name, player.person_id, player.games,
            "" if player.before is None else f"{player.before:.2f}",
            f"{player.change:.2f}", f"{player.now:.2f}",
        ])
    return _csv(rows)


def ratings_input_json(data: ExportData) -> bytes:
    document = {} if data.ratings is None else data.ratings.input
    return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode()


# -- the files ---------------------------------------------------------------------------------


def export_files(data: ExportData) -> list[ExportFile]:
    n = data.tournament.id
    files = [
        ExportFile(f"tournament-{n}.json", tournament_json(data), "application/json"),
        ExportFile(f"standings-{n}.csv", standings_csv(data), "text/csv"),
        ExportFile(
            f"standings-{n}.xlsx",
            standings_xlsx(data),
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ),
        ExportFile(f"protocols-{n}.md", protocols_md(data), "text/markdown"),
        ExportFile(f"audit-{n}.csv", audit_csv(data), "text/csv"),
        ExportFile(f"ratings-{n}.csv", ratings_csv(data), "text/csv"),
        ExportFile(f"ratings-input-{n}.json", ratings_input_json(data), "application/json"),
    ]
    if data.plan is not None:
        files.append(ExportFile(f"seating-{n}.csv", seating_csv(data.plan), "text/csv"))
    return files


async def build_export(db: Database, tournament_id: int) -> list[ExportFile]:
    """The files (seven, eight with a seating plan), in the caller's language (a
    handler's i18n context)."""
    return export_files(await load_export(db, tournament_id))


class UnknownTournament(Exception):
    """``python -m bot export`` was given an id that is not in the database."""


async def export_to_dir(
    database_path: str | Path, tournament_id: int, directory: str | Path
) -> list[Path]:
    """Write the export files into ``directory`` and print their paths (the shell's
    ``python -m bot export``). Raises UnknownTournament, FileNotFoundError."""
    database_path = Path(database_path)
    if not await asyncio.to_thread(database_path.is_file):
        raise FileNotFoundError(f"no database at {database_path}")
    db = await Database.open(database_path)
    try:
        with caller_language():
            try:
                files = await build_export(db, tournament_id)
            except NotFound:
                raise UnknownTournament(
                    f"tournament {tournament_id} is not in {database_path}"
                ) from None
    finally:
        await db.close()
    written = _write_files(Path(directory), files)
    for path in written:
        print(path)
    return written


def _write_files(directory: Path, files: Sequence[ExportFile]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file in files:
        path = directory / file.name
        path.write_bytes(file.data)
        written.append(path)
    return written


def summary_caption(data: ExportData) -> str:
    """A one-line caption for the documents sent in Telegram."""
    games = len(data.scored.games)
    players = len(data.standings.rows)
    return _("«{title}»: {games}, {players}.").format(
        title=html_text(data.tournament.title),
        games=_("{count} game", "{count} games", games).format(count=games),
        players=_("{count} player", "{count} players", players).format(count=players),
    )
