"""What /rating and the group's standings read besides the standings themselves: whose
tournaments a user sees, the counted games that may still change (judge's points
awaiting approval, D7; open protests, 8.8) and who played them, a player's games with
his points in each."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.db import games, players, protests, tournaments
from bot.db.connection import Database
from bot.db.games import GameRecord
from bot.db.players import PlayerRow
from bot.db.protests import ProtestRow
from bot.db.tournaments import StaffTournament, TournamentRow
from bot.reads.standings import TournamentStandings
from bot.texts.rating_format import GameView
from bot.texts.standings_text import PendingGame
from scoring import GameBreakdown

Seen = list[tuple[TournamentRow, PlayerRow | None]]


async def tournaments_of(db: Database, user_id: int, staffed: Sequence[StaffTournament]) -> Seen:
    """The player's unfinished tournaments (else his latest one), then the unfinished
    ones he judges without playing (``staffed``: his unfinished ones as staff, as the
    caller read them); newest first."""
    async with db.read() as conn:
        played: Seen = []
        for player in await players.players_of_user(conn, user_id):
            tournament = await tournaments.get_tournament(conn, player.tournament_id)
            if tournament is not None:
                played.append((tournament, player))
    played.sort(key=lambda pair: pair[0].id, reverse=True)
    chosen = [pair for pair in played if pair[0].status != "finished"] or played[:1]
    seen = {t.id for t, _p in played}
    for staff in staffed:
        if staff.tournament.id not in seen:
            chosen.append((staff.tournament, None))
    return chosen


@dataclass(frozen=True, slots=True)
class Unsettled:
    """The counted games of a tournament that may still change, and who played them
    (marked in every table and picture of the standings)."""

    games: dict[str, PendingGame]
    players: frozenset[str]


async def unsettled(db: Database, tournament_id: int, ts: TournamentStandings) -> Unsettled:
    if not ts.standings.rows:
        return Unsettled({}, frozenset())
    pending = {code: PendingGame(code, approval=True) for code in ts.standings.pending_games}
    codes: dict[int, str] = {}
    async with db.read() as conn:
        for protest in await protests.open_protests(conn, tournament_id):
            code = codes.get(protest.game_id)
            if code is None:
                game = await games.get_game(conn, protest.game_id)
                if game is None or game.status == "annulled":
                    continue
                code = codes[protest.game_id] = game.code
            pending.setdefault(code, PendingGame(code)).protests.append(protest.id)
    return Unsettled(pending, _players_of(ts, set(pending)))


def _players_of(ts: TournamentStandings, codes: set[str]) -> frozenset[str]:
    """Who played the games of ``codes``. They are mostly the latest: looked for from
    the end, and no further than the last of them."""
    who: set[str] = set()
    for game in reversed(ts.tournament.games):
        if not codes:
            break
        if game.id in codes:
            codes.discard(game.id)
            who.update(seat.player for seat in game.seats)
    return frozenset(who)


async def games_of(db: Database, ts: TournamentStandings, player: PlayerRow) -> list[GameView]:
    """The player's games, annulled ones too, with his points in each."""
    async with db.read() as conn:
        played = await games.games_of_player(conn, player.id, include_annulled=True)
        filed = await protests.protests_for_games(conn, [game.id for game in played])
    breakdowns = ts.breakdowns_of(game.code for game in played if game.status != "annulled")
    return [
        _game_view(breakdowns, player, game, filed.get(game.id, ())) for game in played
    ]


def _game_view(
    breakdowns: dict[str, GameBreakdown], player: PlayerRow, game: GameRecord,
    protests_filed: Iterable[ProtestRow],
) -> GameView:
    """One of the player's games with his points in it (none for an annulled game)."""
    filed = tuple((p.id, p.status) for p in protests_filed)
    record_seat = game.seat_of(player.id)
    breakdown = breakdowns.get(game.code) if game.status != "annulled" else None
    if breakdown is None or record_seat is None:
        return GameView(game.round, game.table_no, game.result, None, protests=filed)
    return GameView(
        round=game.round,
        table_no=game.table_no,
        result=game.result,
        seat=breakdown.seats[record_seat.seat - 1],
        penalty_rules=record_seat.penalties,
        awaiting_approval=breakdown.pending,
        protests=filed,
    )
