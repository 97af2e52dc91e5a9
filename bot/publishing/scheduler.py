"""When each tournament's outbox is posted: debounce, coalescing, retries, shutdown.

Per tournament, ``version`` counts the changes requested and ``done`` those posted (or
given up until the next change); one task at a time posts, under the tournament's
lock. The posting itself is the ``post`` callable's (``bot.publishing.posting``): it
returns whether rows were left that should be tried again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field

from aiogram import Bot

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT = 30.0
RETRY_AFTER = 15.0  # seconds before posting again what Telegram refused, doubling...
MAX_RETRY_AFTER = 600.0  # ...up to this

Post = Callable[[Bot, int], Awaitable[bool]]


@dataclass(eq=False)
class _Pending:
    """When one tournament's outbox is posted next (the rows themselves are in the
    database)."""

    bot: Bot | None = None
    version: int = 0  # changes requested
    done: int = 0  # changes posted (or given up until the next change)
    failures: int = 0  # posts in a row that left rows behind
    retrying: bool = False  # the task waits out a back-off (not a debounce)
    hurried: bool = False  # a new change cut that back-off short
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class OutboxScheduler:
    """:param post: posts a tournament's outbox; returns whether rows are left.
    :param debounce: seconds a change waits for others of the same tournament; 0 posts
        at once, in the caller's task.
    :param retry_after: the first wait before trying again what was refused.
    """

    def __init__(self, post: Post, *, debounce: float, retry_after: float = RETRY_AFTER) -> None:
        self._post = post
        self._debounce = debounce
        self._retry_after = retry_after
        self._pending: dict[int, _Pending] = {}
        self._closing = False

    async def request(
        self, bot: Bot, tournament_id: int, *, now: bool = False, defer: bool = False
    ) -> None:
        """A change to post: after the debounce, unless ``now``; in a task of its own
        if ``defer`` (the caller holds what posting needs, e.g. the database)."""
        pending = self._pending_for(tournament_id)
        pending.bot = bot
        pending.version += 1
        mine = pending.version
        if (self._debounce > 0 and not self._closing and not now) or defer:
            if pending.retrying and pending.task is not None:
                # The back-off is the failed item's: a new change goes out after its own
                # debounce, and the failed item is tried with it.
                pending.retrying = False
                pending.hurried = True
                pending.wake.set()
            self._schedule(tournament_id, pending)
            if now:
                pending.wake.set()
            return
        await asyncio.sleep(0)  # changes made at the same moment join this post
        async with pending.lock:
            if pending.done < mine:
                await self._flush(tournament_id, pending)
        self._follow_up(tournament_id, pending)

    def wake(self, bot: Bot, tournament_id: int) -> None:
        """Post what waits for ``tournament_id`` after the debounce (at start-up)."""
        pending = self._pending_for(tournament_id)
        pending.bot = bot
        pending.version += 1
        self._schedule(tournament_id, pending)

    async def close(self) -> None:
        """Post everything still waiting, without further debounce or retries."""
        self._closing = True
        for pending in self._pending.values():
            pending.wake.set()
        tasks = [p.task for p in self._pending.values() if p.task is not None]
        if tasks:
            _done, late = await asyncio.wait(tasks, timeout=SHUTDOWN_TIMEOUT)
            for task in late:
                log.warning("publishing did not finish in %ss; stopped", SHUTDOWN_TIMEOUT)
                task.cancel()
            if late:
                await asyncio.gather(*late, return_exceptions=True)
        for tournament_id, pending in list(self._pending.items()):
            if pending.done < pending.version and pending.bot is not None:
                async with pending.lock:
                    await self._flush(tournament_id, pending)

    def _pending_for(self, tournament_id: int) -> _Pending:
        pending = self._pending.get(tournament_id)
        if pending is None:
            pending = self._pending[tournament_id] = _Pending()
        return pending

    def _schedule(self, tournament_id: int, pending: _Pending, delay: float | None = None) -> None:
        if pending.task is None:
            pending.wake.clear()
            pending.task = asyncio.create_task(
                self._run(tournament_id, pending, self._debounce if delay is None else delay),
                name=f"publish-tournament-{tournament_id}",
            )

    async def _run(self, tournament_id: int, pending: _Pending, delay: float) -> None:
        try:
            if delay > 0 and not self._closing:
                with suppress(TimeoutError):
                    await asyncio.wait_for(pending.wake.wait(), delay)
            pending.retrying = False
            if pending.hurried and not self._closing:
                pending.hurried = False
                await asyncio.sleep(self._debounce)  # the change's own window
            async with pending.lock:
                if pending.done < pending.version:
                    await self._flush(tournament_id, pending)
        except Exception:
            log.exception("publishing for tournament %s failed", tournament_id)
        finally:
            pending.task = None
            self._follow_up(tournament_id, pending)

    def _follow_up(self, tournament_id: int, pending: _Pending) -> None:
        if self._closing or pending.task is not None:
            return
        if pending.done < pending.version:
            self._schedule(tournament_id, pending)  # changes made while posting
        elif pending.failures:
            # Rows are left (Telegram refused, the network is down): try again later,
            # waiting longer each time, even if no new change comes.
            backoff = min(self._retry_after * 2 ** (pending.failures - 1), MAX_RETRY_AFTER)
            pending.version += 1
            self._schedule(tournament_id, pending, delay=backoff)
            pending.retrying = True

    async def _flush(self, tournament_id: int, pending: _Pending) -> None:
        """Post the tournament's outbox; what fails stays there for the next try."""
        target = pending.version
        bot = pending.bot
        left = True
        try:
            if bot is not None:
                left = await self._post(bot, tournament_id)
        except Exception:
            log.exception("publishing for tournament %s failed; retried later", tournament_id)
        finally:
            pending.done = max(pending.done, target)
            pending.failures = pending.failures + 1 if left else 0
