"""The evening's table as the close posts it (docs/club.md, "The evening"): per player,
games, wins, the points of section 8 and the best-move points (8.3.4) over the evening's
games, in the standings' order — the same engine's standings and per-game breakdowns as
``/rating`` and ``python -m scoring standings`` on the evening's export."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bot.reads.standings import StandingsService


@dataclass(frozen=True, slots=True)
class EveningLine:
    place: int  # equal standings share a place
    player: str
    games: int
    wins: Fraction | int  # 8.7.2
    points: Fraction  # the total of section 8 (8.7)
    best_move: Fraction  # 8.3.4, summed; 0 for whoever named none that counted


async def evening_lines(standings: StandingsService, tournament_id: int) -> list[EveningLine]:
    """The evening's table, best first."""
    found = await standings.get(tournament_id)
    best: dict[str, Fraction] = {}
    for game in found.breakdowns().values():
        for seat in game.seats:
            if seat.best_move:
                best[seat.player] = best.get(seat.player, Fraction(0)) + seat.best_move
    return [
        EveningLine(row.place, row.player, row.games, row.wins, row.total,
                    best.get(row.player, Fraction(0)))
        for row in found.standings.rows
    ]
