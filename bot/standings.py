"""The current standings of each tournament, from the database through the scoring engine.

Every reader (/rating, the chat's live standings, the review card) asks here; a save,
a correction, an annulment, a protest decision or a lot calls ``invalidate`` so the
next reader recomputes. Recomputing is one read of the tournament plus the engine.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.db.connection import Database
from bot.db.scoring_bridge import load_scoring_tournament
from scoring import GameBreakdown, Standings, Tournament, compute_standings, tournament_breakdowns


@dataclass(frozen=True, slots=True)
class TournamentStandings:
    tournament: Tournament
    standings: Standings

    def breakdowns(self) -> dict[str, GameBreakdown]:
        """Every game's per-seat points with the current Ci (D1); for /rating in private."""
        return tournament_breakdowns(self.tournament)


class StandingsService:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._cache: dict[int, TournamentStandings] = {}
        self._versions: dict[int, int] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def invalidate(self, tournament_id: int) -> None:
        self._versions[tournament_id] = self._versions.get(tournament_id, 0) + 1
        self._cache.pop(tournament_id, None)

    async def get(self, tournament_id: int) -> TournamentStandings:
        cached = self._cache.get(tournament_id)
        if cached is not None:
            return cached
        # One recomputation at a time per tournament: ten readers after a save share it.
        lock = self._locks.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            cached = self._cache.get(tournament_id)
            if cached is not None:
                return cached
            version = self._versions.get(tournament_id, 0)
            async with self._db.read() as conn:
                tournament = await load_scoring_tournament(conn, tournament_id)
            result = TournamentStandings(tournament, compute_standings(tournament))
            # A save that landed while we computed makes this result stale: don't keep it.
            if self._versions.get(tournament_id, 0) == version:
                self._cache[tournament_id] = result
            return result
