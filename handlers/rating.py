"""/rating: the standings in the tournament's chat; in private also the player's own
row and his points game by game (8.2-8.7).

``/rating`` shows the top 20, ``/rating all`` everyone. ``/rating image`` belongs to
another router (the picture) and is left alone here.
"""

from __future__ import annotations

import html

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.db import games as games_db
from bot.db import players as players_db
from bot.db import protests as protests_db
from bot.db import tournaments as tournaments_db
from bot.db.connection import Conn, Database
from bot.db.games import GameRecord
from bot.db.players import PlayerRow
from bot.db.tournaments import TournamentRow
from bot.rating_format import GameView, Pages, breakdown_blocks, own_row_line, place_labels
from bot.services.tournaments import chat_tournament
from bot.standings import StandingsService, TournamentStandings
from bot.standings_text import TOP, PendingGame, hidden, rating_block
from scoring import GameBreakdown, InvalidGameError

router = Router(name="rating")

ALL_WORDS = frozenset({"all", "все", "всё"})
IMAGE_WORD = "image"  # /rating image: the picture, another router's


def not_image(message: Message, command: CommandObject) -> bool:
    words = (command.args or "").split()
    return not words or words[0].lower() != IMAGE_WORD


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


def problem_detail(error: InvalidGameError) -> str:
    """The first rule a stored game breaks, as ``RULE: what is wrong`` (plain text)."""
    problem = error.problems[0] if error.problems else None
    if problem is None:
        return ""
    return f"{problem.rule}: " + _(problem.template).format(**problem.params)


def problem_line(error: InvalidGameError) -> str:
    return _(
        "The standings can't be computed: a stored game breaks a rule ({detail}). "
        "The chief judge must correct it."
    ).format(detail=html.escape(problem_detail(error), quote=False))


async def render_standings(
    pages: Pages,
    conn: Conn,
    tournament: TournamentRow,
    ts: TournamentStandings,
    *,
    show_all: bool,
    reveal: bool = False,
) -> dict[str, PendingGame]:
    """Title, table and notes of one tournament; returns its pending games. ``reveal``:
    the reader is its judge or chief judge, who sees a hidden stage (D17)."""
    pending = await pending_games(conn, tournament.id, ts) if ts.standings.rows else {}
    rating_block(
        pages,
        tournament.title,
        ts.standings,
        games=len(ts.tournament.games),
        show_all=show_all,
        pending=pending,
        pending_players=pending_players(ts, pending),
        stage=ts.stage,
        reveal=reveal,
    )
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
    tournament = await chat_tournament(db, message.chat.id, latest=True)
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
        staffed = {
            s.tournament.id for s in await tournaments_db.tournaments_for_staff(conn, user.id)
        }
    if not chosen:
        await message.answer(_("You are not in any tournament yet. Join one with /join NICKNAME."))
        return
    for tournament, player in chosen:
        pages = Pages()
        try:
            ts = await standings.get(tournament.id)
            async with db.read() as conn:
                reveal = tournament.id in staffed
                pending = await render_standings(
                    pages, conn, tournament, ts, show_all=show_all, reveal=reveal
                )
                if player is not None and (reveal or not hidden(ts.stage)):
                    await _render_player(pages, conn, ts, player, pending)
        except InvalidGameError as error:
            await message.answer(
                html.escape(tournament.title, quote=False) + "\n" + problem_line(error)
            )
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
                nickname=html.escape(player.nickname, quote=False)
            )
        )
        return
    label, row = mine
    pages.text(own_row_line(row, label, len(rows)))
    breakdowns = ts.breakdowns()
    views = [
        await _game_view(conn, breakdowns, player, game)
        for game in await games_db.games_of_player(conn, player.id, include_annulled=True)
    ]
    pages.text(_("<b>Your games</b> (points with the current Ci, D1):"))
    for block in breakdown_blocks(views):
        pages.text(block)


async def _game_view(
    conn: Conn, breakdowns: dict[str, GameBreakdown], player: PlayerRow, game: GameRecord
) -> GameView:
    """One of the player's games with his points in it (none for an annulled game)."""
    protests = tuple((p.id, p.status) for p in await protests_db.protests_for_game(conn, game.id))
    record_seat = game.seat_of(player.id)
    breakdown = breakdowns.get(game.code) if game.status != "annulled" else None
    if breakdown is None or record_seat is None:
        return GameView(game.round, game.table_no, game.result, None, protests=protests)
    return GameView(
        round=game.round,
        table_no=game.table_no,
        result=game.result,
        seat=breakdown.seats[record_seat.seat - 1],
        penalty_rules=record_seat.penalties,
        awaiting_approval=breakdown.pending,
        protests=protests,
    )
