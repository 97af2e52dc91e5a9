"""/rating: the standings in the tournament's chat; in private also the player's own
row and his points game by game (8.2-8.7).

``/rating`` shows the top 20, ``/rating all`` everyone. ``/rating image`` belongs to
another router (the picture) and is left alone here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.db import games as games_db
from bot.db import players as players_db
from bot.db import protests as protests_db
from bot.db import tournaments as tournaments_db
from bot.db.connection import Conn, Database
from bot.db.players import PlayerRow
from bot.db.tournaments import TournamentRow
from bot.rating_format import (
    PENDING_MARK,
    TOP,
    GameView,
    Pages,
    breakdown_blocks,
    esc,
    own_row_line,
    place_labels,
    standings_table,
)
from bot.standings import StandingsService, TournamentStandings
from scoring import InvalidGameError

router = Router(name="rating")

ALL_WORDS = frozenset({"all", "все", "всё"})
IMAGE_WORD = "image"  # /rating image: the picture, another router's
_CODE = re.compile(r"^R(\d+)-T(\d+)$")


def not_image(message: Message, command: CommandObject) -> bool:
    words = (command.args or "").split()
    return not words or words[0].lower() != IMAGE_WORD


@dataclass(slots=True)
class PendingGame:
    """A game the standings include that may still change (marked, and counted)."""

    code: str
    approval: bool = False  # judge's points above 0.5 await the chief judge (D7)
    protests: list[int] = field(default_factory=list)  # open protests (8.8)


def game_title(code: str) -> str:
    found = _CODE.match(code)
    if found is None:
        return esc(code)
    return _("round {round}, table {table}").format(round=found[1], table=found[2])


async def pending_games(
    conn: Conn, tournament_id: int, ts: TournamentStandings
) -> dict[str, PendingGame]:
    pending = {code: PendingGame(code, approval=True) for code in ts.standings.pending_games}
    codes: dict[int, str] = {}
    for protest in await protests_db.open_protests(conn, tournament_id):
        code = codes.get(protest.game_id)
        if code is None:
            game = await games_db.get_game(conn, protest.game_id)
            if game is None or game.status == "annulled":
                continue
            code = codes[protest.game_id] = game.code
        pending.setdefault(code, PendingGame(code)).protests.append(protest.id)
    return pending


def pending_players(ts: TournamentStandings, pending: dict[str, PendingGame]) -> set[str]:
    return {
        seat.player for game in ts.tournament.games if game.id in pending for seat in game.seats
    }


def pending_note(pending: dict[str, PendingGame]) -> str:
    items = []
    for game in sorted(pending.values(), key=lambda g: _sort_key(g.code)):
        reasons = []
        if game.approval:
            reasons.append(_("judge's points above 0.5 await the chief judge's approval, D7"))
        reasons += [_("protest #{id} open, 8.8").format(id=pid) for pid in game.protests]
        items.append(f"{game_title(game.code)} ({'; '.join(reasons)})")
    return _(
        "⏳ Pending games included: {count} — {games}. Players marked {mark} played in them; "
        "their points may still change."
    ).format(count=len(pending), games=", ".join(items), mark=PENDING_MARK)


def _sort_key(code: str) -> tuple[int, int, str]:
    found = _CODE.match(code)
    return (int(found[1]), int(found[2]), code) if found else (0, 0, code)


def ties_note() -> str:
    return _(
        "Shared places (such as 5–6) are players still tied after 8.7.1–8.7.4; "
        "the chief judge draws a lot for them (8.7.5)."
    )


def problem_line(error: InvalidGameError) -> str:
    problem = error.problems[0] if error.problems else None
    detail = (
        ""
        if problem is None
        else f"{problem.rule}: " + _(problem.template).format(**problem.params)
    )
    return _(
        "The standings can't be computed: a stored game breaks a rule ({detail}). "
        "The chief judge must correct it."
    ).format(detail=esc(detail))


async def render_standings(
    pages: Pages,
    conn: Conn,
    tournament: TournamentRow,
    ts: TournamentStandings,
    *,
    show_all: bool,
) -> dict[str, PendingGame]:
    """Title, table and notes of one tournament; returns its pending games."""
    rows = ts.standings.rows
    title = f"<b>{esc(tournament.title)}</b>"
    if not rows:
        pages.text(title + "\n" + _("No games have been recorded yet."))
        return {}
    pending = await pending_games(conn, tournament.id, ts)
    shown = rows if show_all else rows[:TOP]
    if len(shown) < len(rows):
        scope = _("top {top} of {players}; /rating all shows everyone").format(
            top=len(shown), players=len(rows)
        )
    else:
        scope = _("all {players} players").format(players=len(rows))
    pages.text(
        title
        + "\n"
        + _("Standings · games counted: {games} · {scope}").format(
            games=len(ts.tournament.games), scope=scope
        )
    )
    places = [r.place for r in rows]
    table = standings_table(shown, all_places=places, pending_players=pending_players(ts, pending))
    pages.table(table.header, table.rows)
    notes = []
    if len(set(places)) < len(places):
        notes.append(ties_note())
    if pending:
        notes.append(pending_note(pending))
    if notes:
        pages.text("\n".join(notes))
    return pending


# --------------------------------------------------------------------------- handlers


@router.message(Command("rating"), not_image)
async def rating(
    message: Message, command: CommandObject, db: Database, standings: StandingsService
) -> None:
    words = (command.args or "").split()
    if words and (len(words) > 1 or words[0].lower() not in ALL_WORDS):
        await message.answer(
            _("Send /rating for the top {top}, or /rating all for everyone.").format(top=TOP)
        )
        return
    show_all = bool(words)
    if message.chat.type == "private":
        await _private(message, db, standings, show_all=show_all)
    else:
        await _group(message, db, standings, show_all=show_all)


async def _group(
    message: Message, db: Database, standings: StandingsService, *, show_all: bool
) -> None:
    async with db.read() as conn:
        tournament = await tournaments_db.running_tournament_for_chat(conn, message.chat.id)
        if tournament is None:
            known = await tournaments_db.tournaments_for_chat(conn, message.chat.id)
            tournament = known[-1] if known else None
    if tournament is None:
        await message.answer(
            _("This group has no tournament. A chief judge starts one here with /new_tournament.")
        )
        return
    pages = Pages()
    try:
        ts = await standings.get(tournament.id)
        async with db.read() as conn:
            await render_standings(pages, conn, tournament, ts, show_all=show_all)
    except InvalidGameError as error:
        await message.answer(problem_line(error))
        return
    for page in pages.pages():
        await message.answer(page)


async def _my_tournaments(conn: Conn, user_id: int) -> list[tuple[TournamentRow, PlayerRow | None]]:
    """The player's unfinished tournaments (else his latest one), then the unfinished
    ones he judges without playing; newest first."""
    played: list[tuple[TournamentRow, PlayerRow | None]] = []
    for player in await players_db.players_of_user(conn, user_id):
        tournament = await tournaments_db.get_tournament(conn, player.tournament_id)
        if tournament is not None:
            played.append((tournament, player))
    played.sort(key=lambda pair: pair[0].id, reverse=True)
    chosen = [pair for pair in played if pair[0].status != "finished"] or played[:1]
    seen = {t.id for t, _p in played}
    for staffed in await tournaments_db.tournaments_for_staff(conn, user_id):
        if staffed.tournament.id not in seen:
            chosen.append((staffed.tournament, None))
    return chosen


async def _private(
    message: Message, db: Database, standings: StandingsService, *, show_all: bool
) -> None:
    user = message.from_user
    assert user is not None  # the identity middleware lets only real senders through
    async with db.read() as conn:
        chosen = await _my_tournaments(conn, user.id)
    if not chosen:
        await message.answer(_("You are not in any tournament yet. Join one with /join NICKNAME."))
        return
    for tournament, player in chosen:
        pages = Pages()
        try:
            ts = await standings.get(tournament.id)
            async with db.read() as conn:
                pending = await render_standings(pages, conn, tournament, ts, show_all=show_all)
                if player is not None:
                    await _render_player(pages, conn, ts, player, pending)
        except InvalidGameError as error:
            await message.answer(esc(tournament.title) + "\n" + problem_line(error))
            continue
        for page in pages.pages():
            await message.answer(page)


async def _render_player(
    pages: Pages,
    conn: Conn,
    ts: TournamentStandings,
    player: PlayerRow,
    pending: dict[str, PendingGame],
) -> None:
    rows = ts.standings.rows
    labels = place_labels([r.place for r in rows])
    mine = next(
        (
            (label, row)
            for label, row in zip(labels, rows, strict=True)
            if row.player == player.nickname
        ),
        None,
    )
    if mine is None:
        pages.text(
            _("You ({nickname}) have no games that count yet.").format(
                nickname=esc(player.nickname)
            )
        )
        return
    label, row = mine
    pages.text(own_row_line(row, label, len(rows)))
    breakdowns = ts.breakdowns()
    views = []
    for game in await games_db.games_of_player(conn, player.id, include_annulled=True):
        protests = tuple(
            (p.id, p.status) for p in await protests_db.protests_for_game(conn, game.id)
        )
        record_seat = game.seat_of(player.id)
        breakdown = breakdowns.get(game.code) if game.status != "annulled" else None
        seat = (
            None
            if breakdown is None or record_seat is None
            else (breakdown.seats[record_seat.seat - 1])
        )
        if breakdown is None or record_seat is None or seat is None:
            views.append(GameView(game.round, game.table_no, game.result, None, protests=protests))
            continue
        views.append(
            GameView(
                round=game.round,
                table_no=game.table_no,
                result=game.result,
                seat=seat,
                penalty_rules=record_seat.penalties,
                awaiting_approval=breakdown.pending,
                protests=protests,
            )
        )
    pages.text(_("<b>Your games</b> (points with the current Ci, D1):"))
    for block in breakdown_blocks(views):
        pages.text(block)
