"""What the tournament's group chat is told: game results, notes and the standings.

Handlers call these methods and never post to the group themselves, so flood
control, debouncing and the live standings message live in one place (issue 6).
"""

from __future__ import annotations

import logging

from aiogram import Bot

from bot.db import tournaments
from bot.db.connection import Database
from bot.standings import StandingsService

log = logging.getLogger(__name__)


class Publisher:
    def __init__(self, db: Database, standings: StandingsService) -> None:
        self._db = db
        self._standings = standings

    async def game_saved(self, bot: Bot, tournament_id: int, game_id: int, summary: str) -> None:
        """A new game was saved; ``summary`` is its short result line for the chat."""
        self._standings.invalidate(tournament_id)
        await self.announce(bot, tournament_id, summary)
        await self.standings_changed(bot, tournament_id)

    async def game_corrected(self, bot: Bot, tournament_id: int, game_id: int) -> None:
        self._standings.invalidate(tournament_id)
        await self.standings_changed(bot, tournament_id)

    async def game_annulled(self, bot: Bot, tournament_id: int, game_id: int) -> None:
        self._standings.invalidate(tournament_id)
        await self.standings_changed(bot, tournament_id)

    async def standings_changed(self, bot: Bot, tournament_id: int) -> None:
        """Anything that changes points or order (protest decision, lot, approval)."""
        self._standings.invalidate(tournament_id)

    async def announce(self, bot: Bot, tournament_id: int, text: str) -> None:
        """A one-line note to the tournament chat (already translated, HTML-escaped)."""
        async with self._db.read() as conn:
            tournament = await tournaments.get_tournament(conn, tournament_id)
        if tournament is None or tournament.chat_id is None or tournament.bot_removed:
            return
        await bot.send_message(tournament.chat_id, text)
