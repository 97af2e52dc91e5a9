"""Long polling that confirms an update to Telegram only once it is handled.

Telegram keeps an update, and sends it again, until a getUpdates asks for a later
offset. aiogram's ``start_polling`` asks for the next updates at once, while the
earlier ones are still being handled in tasks of their own: a crash (``kill -9``, a
power cut) then loses the judge's Save, the tap, the ``/protest`` it was handling,
as Telegram will not send them again. Here the offset never passes the lowest update
still in hand, and an update stays in hand until its handler returned and, with
``settled`` (the dedup middleware's ``recorded``), until its record of being handled
is written. After a crash Telegram sends again what was cut short, which is handled
again, and what was finished but not yet confirmed, which the dedup middleware skips.
Webhook mode gets the same by answering Telegram only after handling (``bot.web.server``).

Updates of different users are still handled at once (one user's updates wait for
each other: the dispatcher's event isolation). While the offset is held back,
getUpdates answers at once with the held updates again: those seen in this process
are not handled again, and the next poll waits for an update in hand to be done, or
``recheck`` seconds for the new ones meanwhile, instead of asking again and again. So
an update that comes while others are in hand is fetched a little later than by a
long poll (about a round trip). With nothing held back it long-polls as usual. At most
one answer's worth (100) of updates is in hand: past that, the next ones wait until
the lowest is done.

What ``Dispatcher.start_polling`` gave is kept: the start-up and shutdown hooks (the
shutdown ones drain the updates in hand: ``bot.telegram.middlewares.inflight``), a stop on
SIGTERM or SIGINT, ``allowed_updates``, and aiogram's back-off, logged, when the
network or Telegram fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.methods import TelegramMethod
from aiogram.types import Update
from aiogram.utils.backoff import Backoff, BackoffConfig

log = logging.getLogger(__name__)

# aiogram's own: 1 s after a failure, growing to 5 s.
BACKOFF = BackoffConfig(min_delay=1.0, max_delay=5.0, factor=1.3, jitter=0.1)
Settled = Callable[[int], Awaitable[None]]


class Polling:
    """``await Polling(dp, bot, allowed_updates=..., settled=dedup.recorded).run()``
    serves until ``stop()`` (or SIGTERM/SIGINT with ``handle_signals``)."""

    def __init__(
        self,
        dp: Dispatcher,
        bot: Bot,
        *,
        allowed_updates: list[str] | None = None,
        settled: Settled | None = None,
        timeout: int = 10,
        recheck: float = 0.1,
        backoff: BackoffConfig = BACKOFF,
        handle_signals: bool = True,
    ) -> None:
        self._dp = dp
        self._bot = bot
        self._allowed = allowed_updates
        self._settled = settled
        self._timeout = timeout  # the long poll's, in seconds (Telegram's `timeout`)
        self._recheck = recheck  # a few polls a second at most while held back
        self._backoff = backoff
        self._handle_signals = handle_signals
        self._data: dict[str, Any] = {"dispatcher": dp, "bots": [bot], **dp.workflow_data}
        self._next: int | None = None  # one past the highest update id received
        self._in_hand: set[int] = set()  # fed, and not done (handled and settled) yet
        self._seen: set[int] = set()  # fed in this process and not confirmed yet
        self._tasks: set[asyncio.Task[None]] = set()
        self._done = asyncio.Event()  # an update in hand is done
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        """The start-up hooks, polling until stopped, then the shutdown hooks."""
        self._stop.clear()
        with self._signals():
            await self._dp.emit_startup(bot=self._bot, **self._data)
            try:
                fetching = asyncio.create_task(self._fetch(), name="polling")
                stopping = asyncio.create_task(self._stop.wait())
                done, pending = await asyncio.wait((fetching, stopping),
                                                   return_when=asyncio.FIRST_COMPLETED)
                for task in pending:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                await asyncio.gather(*done)  # what ended the fetching, if not the stop
            finally:
                log.info("polling stopped")
                # The updates still in hand are waited for here (the first hook); they
                # stay unconfirmed, and what they recorded makes them skipped next time.
                await self._dp.emit_shutdown(bot=self._bot, **self._data)

    @property
    def _offset(self) -> int | None:
        return min(self._in_hand, default=self._next)

    async def _fetch(self) -> None:
        # As aiogram's polling: a bot that cannot even learn who it is (a malformed API
        # URL, a revoked token) stops here, with the error.
        me = await self._bot.me()
        log.info("polling for @%s id=%d", me.username, me.id)
        backoff = Backoff(self._backoff)
        failed = False
        # Longer than the long poll, so that an empty answer is no timeout.
        request_timeout = int((self._bot.session.timeout or 0) + self._timeout)
        while True:
            offset = self._offset  # confirms every update below it
            self._done.clear()
            try:
                updates = await self._bot.get_updates(
                    offset=offset, timeout=self._timeout, allowed_updates=self._allowed,
                    request_timeout=request_timeout)
            except Exception as error:
                failed = True
                log.error("Failed to fetch updates - %s: %s", type(error).__name__, error)
                log.warning("Sleep for %f seconds and try again... (tryings = %d)",
                            backoff.next_delay, backoff.counter)
                await backoff.asleep()
                continue
            if failed:
                log.info("Connection established (tryings = %d)", backoff.counter)
                backoff.reset()
                failed = False
            if offset is not None:
                self._seen = {seen for seen in self._seen if seen >= offset}
            fresh = [update for update in updates if update.update_id not in self._seen]
            for update in fresh:
                self._start(update)
            if updates:
                self._next = max(self._next or 0, updates[-1].update_id + 1)
            if self._in_hand and not fresh:
                # Held back: asking now would bring the same updates at once.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._done.wait(), self._recheck)

    def _start(self, update: Update) -> None:
        self._seen.add(update.update_id)
        self._in_hand.add(update.update_id)
        task = asyncio.create_task(self._handle(update), name=f"update-{update.update_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, update: Update) -> None:
        try:
            result = await self._dp.feed_update(self._bot, update, **self._data)
            if isinstance(result, TelegramMethod):
                await self._dp.silent_call_request(self._bot, result)
        except Exception as error:
            # As aiogram's polling: logged, and the update counts as handled.
            log.exception("update id=%d failed: %s: %s",
                          update.update_id, type(error).__name__, error)
        if self._settled is not None:
            await self._settled(update.update_id)
        # Not when cancelled: an update cut short stays unconfirmed.
        self._in_hand.discard(update.update_id)
        self._done.set()

    @contextlib.contextmanager
    def _signals(self) -> Iterator[None]:
        numbers = (signal.SIGTERM, signal.SIGINT) if self._handle_signals else ()
        loop = asyncio.get_running_loop()
        for number in numbers:
            loop.add_signal_handler(number, self._signalled, number)
        try:
            yield
        finally:
            for number in numbers:
                loop.remove_signal_handler(number)

    def _signalled(self, number: signal.Signals) -> None:
        log.warning("Received %s signal", number.name)
        self.stop()
