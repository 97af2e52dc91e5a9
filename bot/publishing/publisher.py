"""``Publisher``: what handlers call to tell a tournament's group (package docstring)."""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.utils.i18n import I18n

from bot.db import outbox, tournaments
from bot.db.connection import Conn, Database
from bot.db.tournaments import DEFAULT_LANGUAGE
from bot.publishing.chat_events import ChatEvents
from bot.publishing.posting import GroupPoster
from bot.publishing.scheduler import RETRY_AFTER, OutboxScheduler
from bot.reads.standings import StandingsService
from bot.services.phrases import Said
from bot.texts.i18n import create_i18n, use_language
from bot.texts.phrases import say

log = logging.getLogger(__name__)


class Publisher:
    """The tournament chat's news and live standings.

    A change is recorded with ``enqueue(conn, ...)`` inside the transaction that makes
    it, and announced with ``publish(bot, tournament_id)`` after the commit.

    :param debounce: seconds a change waits for others of the same tournament
        (``Settings.standings_debounce``); 0 publishes at once, in the caller's task.
    :param i18n: the bot's translations; group texts are in the tournament's language
        (``TournamentRow.language``; the notes use cases enqueue are worded in it).
    :param retry_after: the first wait before posting again what Telegram refused.
    """

    def __init__(
        self,
        db: Database,
        standings: StandingsService,
        *,
        debounce: float = 0.0,
        i18n: I18n | None = None,
        retry_after: float = RETRY_AFTER,
    ) -> None:
        self._db = db
        self._standings = standings
        i18n = self._i18n = i18n or create_i18n()
        self._events = ChatEvents(db, i18n, republish=self.standings_changed)
        self._poster = GroupPoster(db, standings, i18n, self._events)
        self._scheduler = OutboxScheduler(
            self._poster.post, debounce=debounce, retry_after=retry_after
        )

    @property
    def db(self) -> Database:
        """The database whose outbox it posts."""
        return self._db

    # -- what handlers call ---------------------------------------------------------

    async def enqueue(
        self,
        conn: Conn,
        tournament_id: int,
        *,
        result: str | None = None,
        game_id: int | None = None,
        note: Said | None = None,
        standings: bool = False,
        final: bool = False,
        cut: int | None = None,
    ) -> None:
        """Record, in the caller's transaction, what the chat must be told
        (``bot.db.outbox.enqueue``); a ``note`` a use case says is worded here, in the
        group's language (the tournament's)."""
        if note is not None and not isinstance(note, str):
            tournament = await tournaments.get_tournament(conn, tournament_id)
            language = tournament.language if tournament else DEFAULT_LANGUAGE
            with use_language(self._i18n, language):
                note = say(note)
        await outbox.enqueue(
            conn, tournament_id, result=result, game_id=game_id, note=note,
            standings=standings, final=final, cut=cut,
        )

    async def publish(self, bot: Bot, tournament_id: int, *, now: bool = False) -> None:
        """After the commit: the standings are recomputed and what waits in the outbox
        goes out, after the debounce unless ``now``."""
        self._standings.invalidate(tournament_id)
        await self._scheduler.request(bot, tournament_id, now=now, defer=self._db_locked_here())

    async def standings_changed(self, bot: Bot, tournament_id: int) -> None:
        """Anything that changes points or order, for a caller without a transaction of
        its own: ``enqueue`` the standings and ``publish``."""
        async with self._db.transaction() as conn:
            await self.enqueue(conn, tournament_id)
        await self.publish(bot, tournament_id)

    async def send_standings_image(
        self, bot: Bot, tournament_id: int, chat_id: int, *, caption: str | None = None
    ) -> None:
        """The picture of the full standings to ``chat_id`` (/rating image); API errors
        propagate to the caller."""
        await self._poster.send_standings_image(bot, tournament_id, chat_id, caption=caption)

    # -- the group's own events (handlers.chat_events) ---------------------------------

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup: its tournaments follow (FloodControl's
        ``on_migrate`` too)."""
        await self._events.chat_migrated(old_chat_id, new_chat_id)

    async def bot_removed(self, bot: Bot, chat_id: int) -> None:
        await self._events.bot_removed(bot, chat_id)

    async def bot_returned(self, bot: Bot, chat_id: int) -> None:
        await self._events.bot_returned(bot, chat_id)

    async def bot_promoted(self, bot: Bot, chat_id: int) -> None:
        await self._events.bot_promoted(bot, chat_id)

    # -- lifecycle --------------------------------------------------------------------

    async def resume(self, bot: Bot) -> None:
        """What a previous run left in the outbox goes out (the dispatcher's start-up)."""
        async with self._db.read() as conn:
            waiting = await outbox.tournaments_waiting(conn)
        for tournament_id in waiting:
            log.info("tournament %s: posting what waited in the outbox", tournament_id)
            self._scheduler.wake(bot, tournament_id)

    async def close(self) -> None:
        """Publish everything still waiting (the dispatcher's shutdown hook)."""
        await self._scheduler.close()

    def _db_locked_here(self) -> bool:
        # A caller inside db.transaction() must not wait for a post that needs the
        # database: it would wait for itself. Such a change is posted afterwards.
        holds = getattr(self._db, "_holds_lock", None)
        return bool(holds()) if callable(holds) else False
