"""Flood control for every outgoing Bot API call.

Telegram answers 429 (``TelegramRetryAfter``) when a bot sends more than roughly
1 message per second to one chat, 20 messages per minute to one group, or 30
messages per second overall, and keeps answering 429 until ``retry_after`` has
passed. Hitting that during a game means lost or late announcements, so instead
of reacting to 429s we schedule requests to stay under the limits: requests
WAIT in a per-chat FIFO queue, they are never dropped.

Design:

* Only requests that create or change messages are scheduled (see
  :func:`counts_toward_limits`). Everything else - ``answerCallbackQuery``,
  ``getChatMember``, ``getMe`` and above all ``getUpdates`` - passes straight
  through, so a busy chat never delays a button spinner or polling.
* Each chat has its own lock and pace, so waiting for one chat never blocks
  another. A chat may burst (3 at once), then goes on at 1 per second: never more
  than 3 in any second nor 12 in any 10 seconds. Groups also keep 20 a minute; a
  shared window keeps the bot under 30 a second. At that window, requests to
  people's private chats (a judge's card) go before group posts that wait too: a post
  can wait a moment, a judge waiting for his card should not.
* Within a chat requests are sent one at a time, in arrival order: concurrent
  HTTP requests could overtake each other and shuffle messages.
* Edits of one message that wait in the queue coalesce: a newer edit (same
  method, same message) takes the place of the waiting one, which is never sent;
  both callers get the answer to the edit that went out. A card tapped quickly
  shows its newest state at the next free slot instead of replaying every step.
* A 429 that still gets through (other bot instances, limits we don't know)
  blocks that chat for ``retry_after`` + margin and the request is retried.
* ``TelegramMigrateToChat`` (a group became a supergroup) is reported to
  ``on_migrate`` and the request is re-sent to the new chat id; later requests
  to the old id are rewritten without another round trip.

Install on the bot's session::

    bot.session.middleware(FloodControl(on_migrate=storage.move_chat))
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import heapq
import itertools
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramMigrateToChat, TelegramRetryAfter
from aiogram.methods import TelegramMethod
from aiogram.methods.base import Response, TelegramType

if TYPE_CHECKING:
    from aiogram import Bot

__all__ = [
    "FloodControl",
    "FloodLimits",
    "FloodStats",
    "MigrateCallback",
    "counts_toward_limits",
]

logger = logging.getLogger(__name__)

MigrateCallback = Callable[[int, int], Awaitable[object]]
"""``async def on_migrate(old_chat_id, new_chat_id)``."""

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class FloodLimits:
    """How fast counted requests may go.

    A chat: ``chat_burst`` at once, then one per ``chat_period`` seconds (the k-th
    previous request at least ``(k - chat_burst + 1) * chat_period`` seconds ago), so
    with the defaults at most 3 in any second and 12 in any 10 seconds. Groups and
    the whole bot: at most ``*_rate`` in any ``*_period`` seconds. Defaults follow
    https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this.
    """

    chat_burst: int = 3
    chat_period: float = 1.0
    group_rate: int = 20  # groups, supergroups and channels (chat_id < 0 or "@username")
    group_period: float = 60.0
    global_rate: int = 30
    global_period: float = 1.0

    def __post_init__(self) -> None:
        for rate in (self.chat_burst, self.group_rate, self.global_rate):
            if rate < 1:
                raise ValueError("rates must be >= 1")
        for period in (self.chat_period, self.group_period, self.global_period):
            if period <= 0:
                raise ValueError("periods must be > 0")

    def scaled(self, factor: float) -> FloodLimits:
        """Same rates with every period multiplied by ``factor``.

        Lets tests exercise "20 per minute" in about a second with ``factor=0.02``.
        """
        return FloodLimits(
            chat_burst=self.chat_burst,
            chat_period=self.chat_period * factor,
            group_rate=self.group_rate,
            group_period=self.group_period * factor,
            global_rate=self.global_rate,
            global_period=self.global_period * factor,
        )


@dataclass(slots=True)
class FloodStats:
    """Counters for logs and tests."""

    retried: int = 0  # 429s waited out and retried
    migrated: int = 0  # requests re-sent to a migrated chat id
    coalesced: int = 0  # waiting edits replaced by a newer edit of the same message


# Methods that produce or change a message in a chat but don't start with send*/edit*.
_COUNTED_EXTRA = frozenset(
    {
        "copyMessage",
        "copyMessages",
        "forwardMessage",
        "forwardMessages",
        "pinChatMessage",  # posts a "pinned a message" service message in groups
        "stopPoll",
        "stopMessageLiveLocation",
    }
)
# A typing indicator is worthless if it waits behind messages.
_NOT_COUNTED = frozenset({"sendChatAction"})
# Requests that post one message per item of a list field.
_BULK = {"sendMediaGroup": "media", "copyMessages": "message_ids", "forwardMessages": "message_ids"}
# Never retried nor queued: the polling loop (bot.telegram.polling) has its own backoff, and a
# long poll must never sit behind the message queue.
_PASSTHROUGH = frozenset({"getUpdates"})


def counts_toward_limits(method: TelegramMethod[Any]) -> bool:
    """Whether ``method`` sends or edits a message and so is rate limited."""
    name = method.__api_method__
    if name in _NOT_COUNTED:
        return False
    if name.startswith("send"):
        return True
    if name.startswith("edit") and "Message" in name:
        return True
    return name in _COUNTED_EXTRA


def _weight(method: TelegramMethod[Any]) -> int:
    """How many messages one request produces (albums, bulk copy/forward)."""
    attr = _BULK.get(method.__api_method__)
    items = getattr(method, attr, None) if attr else None
    return len(items) if isinstance(items, list) and items else 1


def _chat_key(method: TelegramMethod[Any]) -> Hashable | None:
    chat_id = getattr(method, "chat_id", None)
    if isinstance(chat_id, int | str):
        return chat_id
    inline_id = getattr(method, "inline_message_id", None)
    if isinstance(inline_id, str):
        # No chat known: serialise edits of one inline message, nothing more.
        return ("inline", inline_id)
    return None


def _edit_target(method: TelegramMethod[Any]) -> tuple[Hashable, Hashable] | None:
    """(chat key, message) of an edit that a newer edit of the same message may replace."""
    if not method.__api_method__.startswith("editMessage"):
        return None
    key = _chat_key(method)
    if isinstance(key, tuple):  # an inline message: the id is the message
        return key, key[1]
    message_id = getattr(method, "message_id", None)
    if key is None or not isinstance(message_id, int):
        return None
    return key, message_id


def _is_group(key: Hashable) -> bool:
    return (isinstance(key, int) and key < 0) or isinstance(key, str)


class _Window:
    """Sliding-window log: at most ``rate`` units in any ``period`` seconds.

    A request occupies its units from dispatch until its reply and is then stamped:
    with the reply's time (Telegram counted it on arrival, before), or for the bot's
    30 a second about when it was sent (:meth:`FloodControl._stamp`): there a slot
    lasting a round trip more than a period made 30 a second 27 at 0.1 s a trip.
    """

    __slots__ = ("_changed", "_clock", "_in_flight", "_stamps", "period", "rate")

    def __init__(self, rate: int, period: float, clock: Clock) -> None:
        self.rate = rate
        self.period = period
        self._clock = clock
        self._stamps: deque[float] = deque()  # sorted
        self._in_flight = 0
        self._changed = asyncio.Event()

    def _prune(self, now: float) -> None:
        while self._stamps and self._stamps[0] + self.period <= now:
            self._stamps.popleft()

    def delay(self, weight: int) -> float | None:
        """Seconds until ``weight`` units fit; None if in-flight requests must finish first."""
        now = self._clock()
        self._prune(now)
        excess = len(self._stamps) + self._in_flight + min(weight, self.rate) - self.rate
        if excess <= 0:
            return 0.0
        if excess <= len(self._stamps):
            return self._stamps[excess - 1] + self.period - now
        return None

    def take(self, weight: int) -> None:
        self._in_flight += min(weight, self.rate)

    def finish(self, weight: int, stamp: float | None) -> None:
        """The reply is in: stamped ``stamp`` (None: never sent)."""
        units = min(weight, self.rate)
        self._in_flight -= units
        if stamp is not None:
            for _ in range(units):  # replies come in any order
                bisect.insort(self._stamps, stamp)
        self._changed.set()

    async def changed(self) -> None:
        # Only one task waits on a window at a time (chat lock / global lock).
        self._changed.clear()
        await self._changed.wait()

    def idle(self) -> bool:
        self._prune(self._clock())
        return not self._stamps and not self._in_flight


class _Pace:
    """A chat's pace: a burst of ``burst``, then one request per ``period``.

    The k-th previous request must have completed at least ``(k - burst + 1) * period``
    seconds ago (a token bucket written over reply stamps: the round trip delays the
    pace once, not a slot after slot). A chat's requests are sent one at a time, so
    nothing is in flight when ``delay`` is asked.
    """

    __slots__ = ("_changed", "_clock", "_stamps", "burst", "period")

    _KEEP = 64  # older stamps cannot bind: the pace has spread them out

    def __init__(self, burst: int, period: float, clock: Clock) -> None:
        self.burst = burst
        self.period = period
        self._clock = clock
        self._stamps: deque[float] = deque(maxlen=self._KEEP)
        self._changed = asyncio.Event()

    def delay(self, weight: int) -> float | None:
        weight = min(weight, self.burst)
        now = self._clock()
        wait = 0.0
        # The last of ``weight`` requests sent now has the m-th stamp back as its
        # (weight - 1 + m)-th previous request.
        for m, stamp in enumerate(reversed(self._stamps), start=1):
            lag = (weight + m - self.burst) * self.period
            if lag <= 0:
                continue
            wait = max(wait, stamp + lag - now)
        return wait

    def take(self, weight: int) -> None:
        pass  # one request at a time per chat: see the class docstring

    def finish(self, weight: int, stamp: float | None) -> None:
        if stamp is not None:
            self._stamps.extend([stamp] * min(weight, self.burst))
        self._changed.set()

    async def changed(self) -> None:
        self._changed.clear()
        await self._changed.wait()

    def idle(self) -> bool:
        now = self._clock()
        return not self._stamps or self._stamps[-1] + self.burst * self.period <= now


class _Turns:
    """Whose turn it is at the bot-wide window: requests to people's private chats (a
    judge's card, an answer someone waits for) before posts to groups, which can wait
    a moment; in arrival order within each. One holder at a time."""

    __slots__ = ("_busy", "_order", "_queue")

    def __init__(self) -> None:
        self._busy = False
        self._order = itertools.count()
        self._queue: list[tuple[int, int, asyncio.Future[None]]] = []

    @contextlib.asynccontextmanager
    async def turn(self, priority: int) -> AsyncIterator[None]:
        if self._busy or self._queue:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._queue, (priority, next(self._order), waiter))
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():  # handed the turn, then cancelled
                    self._pass()
                raise
        else:
            self._busy = True
        try:
            yield
        finally:
            self._pass()

    def _pass(self) -> None:
        while self._queue:
            _priority, _order, waiter = heapq.heappop(self._queue)
            if not waiter.done():  # a cancelled waiter is done: skipped
                waiter.set_result(None)
                return
        self._busy = False


@dataclass(slots=True)
class _Edit:
    """An edit waiting in its chat's queue; newer edits of the message replace ``method``."""

    target: tuple[Hashable, Hashable]
    method: TelegramMethod[Any]
    outcome: asyncio.Future[Any]


@dataclass(slots=True, eq=False)
class _Chat:
    windows: tuple[_Window | _Pace, ...]
    group: bool = False  # its posts wait behind people's chats for the bot-wide window
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    blocked_until: float = 0.0  # monotonic time a 429's retry_after expires
    users: int = 0  # tasks holding a reference; the sweeper must not drop the state


class _Reroute(Exception):
    """Control flow: the request got TelegramMigrateToChat, queue ``method`` under the new id."""

    def __init__(self, error: TelegramMigrateToChat, method: TelegramMethod[Any]) -> None:
        super().__init__()
        self.error = error
        self.method = method


class _Requeue(Exception):
    """Control flow: the chat migrated while the request waited for its lock."""


class FloodControl(BaseRequestMiddleware):
    """Client-session middleware that queues outgoing messages within Telegram's limits.

    :param limits: rates to stay under (scale them down in tests).
    :param on_migrate: awaited once per migrated group with ``(old_chat_id, new_chat_id)``;
        its exceptions are logged and the message is delivered anyway.
    :param max_retries: 429s per request before giving up and re-raising
        ``TelegramRetryAfter``; ``None`` retries forever.
    :param retry_margin: extra seconds on top of ``retry_after`` (it is rounded and
        measured on Telegram's clock).
    :param clock: monotonic clock, injectable for tests.
    :param sleep: coroutine used for every wait, injectable with ``clock``.
    """

    _MAX_MIGRATIONS = 3  # a chat migrates once; more means something is broken
    # How much faster than the fastest round trip seen a way out and another request's
    # way back may be together (the event loop's delays, encoding, the network).
    _TRIP_SPREAD = 0.01
    _NETWORK_TRIP = 0.04

    def __init__(
        self,
        limits: FloodLimits | None = None,
        *,
        on_migrate: MigrateCallback | None = None,
        max_retries: int | None = 10,
        retry_margin: float = 0.1,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.limits = limits or FloodLimits()
        self.on_migrate = on_migrate
        self.max_retries = max_retries
        self.retry_margin = retry_margin
        self.stats = FloodStats()
        self._clock = clock
        self._sleep = sleep
        self._chats: dict[Hashable, _Chat] = {}
        self._migrated: dict[int, int] = {}
        # (chat key, message id) -> the edit of that message waiting for its turn.
        self._edits: dict[tuple[Hashable, Hashable], _Edit] = {}
        self._global = _Window(self.limits.global_rate, self.limits.global_period, clock)
        self._global_turns = _Turns()  # people's chats first, then groups, each FIFO
        self._fastest: float | None = None  # the fastest round trip of a counted request
        self._last_sweep = clock()

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if method.__api_method__ in _PASSTHROUGH:
            return await make_request(bot, method)
        if not counts_toward_limits(method):
            return await self._send_unqueued(make_request, bot, method)
        return await self._send_queued(make_request, bot, method)

    # -- unqueued: retried on 429, never scheduled ---------------------------------

    async def _send_unqueued(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        retries = migrations = 0
        while True:
            method = self._follow_migration(method)
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as e:
                retries = self._check_retry(e, retries)
                await self._sleep(e.retry_after + self.retry_margin)
            except TelegramMigrateToChat as e:
                migrations = self._check_migration(e, migrations)
                method = await self._migrate(method, e.migrate_to_chat_id)

    # -- queued: per-chat FIFO within the windows ----------------------------------

    async def _send_queued(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        target = _edit_target(self._follow_migration(method))
        if target is None:
            return await self._send_in_order(make_request, bot, method, None)
        waiting = self._edits.get(target)
        if waiting is not None and waiting.method.__api_method__ == method.__api_method__:
            waiting.method = method  # the waiting edit goes out with this content
            self.stats.coalesced += 1
            result: Response[TelegramType] = await asyncio.shield(waiting.outcome)
            return result
        outcome = asyncio.get_running_loop().create_future()
        edit = self._edits[target] = _Edit(target, method, outcome)
        try:
            response = await self._send_in_order(make_request, bot, method, edit)
        except BaseException as exc:
            if self._edits.get(target) is edit:
                del self._edits[target]
            if not edit.outcome.done():
                edit.outcome.set_exception(exc)
                edit.outcome.exception()  # retrieved: no "never retrieved" warning
            raise
        edit.outcome.set_result(response)
        return response

    async def _send_in_order(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
        edit: _Edit | None,
    ) -> Response[TelegramType]:
        weight = _weight(method)
        migrations = 0
        while True:
            method = self._follow_migration(method)
            try:
                return await self._send_in_queue(make_request, bot, method, weight, edit)
            except _Reroute as reroute:
                migrations = self._check_migration(reroute.error, migrations)
                method = reroute.method
            except _Requeue:
                pass  # the chat migrated while we waited: _follow_migration rewrites it

    async def _send_in_queue(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
        weight: int,
        edit: _Edit | None,
    ) -> Response[TelegramType]:
        key = _chat_key(method)
        if key is None:
            return await self._send_in_chat(make_request, bot, method, None, weight, edit)
        self._sweep()
        chat = self._chat(key)
        chat.users += 1
        try:
            async with chat.lock:
                if isinstance(key, int) and key in self._migrated:
                    raise _Requeue
                return await self._send_in_chat(make_request, bot, method, chat, weight, edit)
        finally:
            chat.users -= 1

    async def _send_in_chat(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
        chat: _Chat | None,
        weight: int,
        edit: _Edit | None = None,
    ) -> Response[TelegramType]:
        """Send ``method`` once its chat (if any) and global windows allow, retrying 429s.

        For a waiting ``edit`` the newest content is taken when it goes out.
        """
        retries = 0
        blocked_until = 0.0  # stands in for chat.blocked_until when there is no chat
        while True:
            until = chat.blocked_until if chat else blocked_until
            while (left := until - self._clock()) > 0:
                await self._sleep(left)
            try:
                return await self._dispatch(make_request, bot, method, chat, weight, edit)
            except TelegramRetryAfter as e:
                retries = self._check_retry(e, retries)
                # Block the whole chat: its queued requests would only collect more 429s.
                until = self._clock() + e.retry_after + self.retry_margin
                if chat:
                    chat.blocked_until = max(chat.blocked_until, until)
                else:
                    blocked_until = until
            except TelegramMigrateToChat as e:
                # Leave this chat's queue and join the new chat's one.
                sent = self._follow_migration(edit.method) if edit else method
                raise _Reroute(e, await self._migrate(sent, e.migrate_to_chat_id)) from None

    async def _dispatch(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
        chat: _Chat | None,
        weight: int,
        edit: _Edit | None,
    ) -> Response[TelegramType]:
        taken: list[_Window | _Pace] = []
        sent_at: float | None = None
        try:
            # Chat windows are only touched by the holder of the chat lock.
            for window in chat.windows if chat else ():
                await self._acquire(window, weight)
                taken.append(window)
            async with self._global_turns.turn(1 if chat is not None and chat.group else 0):
                await self._acquire(self._global, weight)
                taken.append(self._global)
            if edit is not None:
                # It goes out now, with the newest content; a newer edit queues anew.
                if self._edits.get(edit.target) is edit:
                    del self._edits[edit.target]
                method = self._follow_migration(edit.method)
            sent_at = self._clock()  # from here on Telegram may count it, whatever happens
            return await make_request(bot, method)
        finally:
            replied = None if sent_at is None else self._clock()
            early = None if sent_at is None or replied is None else self._stamp(sent_at, replied)
            for window in taken:
                window.finish(weight, early if window is self._global else replied)

    async def _acquire(self, window: _Window | _Pace, weight: int) -> None:
        while (delay := window.delay(weight)) != 0:
            if delay is None:
                await window.changed()
            else:
                await self._sleep(delay)
        window.take(weight)

    # -- helpers --------------------------------------------------------------------

    def _stamp(self, sent_at: float, now: float) -> float:
        """The global window's stamp of a request sent at ``sent_at`` whose reply is in
        ``now``: about its send, so that its slot is free again a period after it.

        Telegram counts a request on arrival. The next one, sent a period after this
        stamp, arrives at least a period after this one as long as its way out plus
        this one's way back take the fastest round trip seen (or this one, if faster)
        less ``_TRIP_SPREAD``: the stamp is ``now`` less that. With trips alike it is
        the send. Trips under ``_NETWORK_TRIP`` are the event loop's more than the
        network's and vary as much as they last: those (and the first reply, with
        nothing to go by) are stamped ``now``, as safe as it gets."""
        trip = now - sent_at
        fastest = self._fastest
        self._fastest = trip if fastest is None else min(fastest, trip)
        if fastest is None or fastest < self._NETWORK_TRIP:
            return now
        return now - max(0.0, min(fastest, trip) - self._TRIP_SPREAD)

    def _chat(self, key: Hashable) -> _Chat:
        chat = self._chats.get(key)
        if chat is None:
            limits = self.limits
            windows: list[_Window | _Pace] = [
                _Pace(limits.chat_burst, limits.chat_period, self._clock)
            ]
            if _is_group(key):
                windows.append(_Window(limits.group_rate, limits.group_period, self._clock))
            chat = self._chats[key] = _Chat(windows=tuple(windows), group=_is_group(key))
        return chat

    def _sweep(self) -> None:
        """Forget idle chats so a long-running bot doesn't keep one entry per chat ever seen."""
        now = self._clock()
        horizon = max(self.limits.chat_period, self.limits.group_period)
        if now - self._last_sweep < horizon:
            return
        self._last_sweep = now
        for key, chat in list(self._chats.items()):
            if (
                chat.users == 0
                and chat.blocked_until <= now
                and all(window.idle() for window in chat.windows)
            ):
                del self._chats[key]

    def _check_retry(self, error: TelegramRetryAfter, retries: int) -> int:
        retries += 1
        if self.max_retries is not None and retries > self.max_retries:
            logger.error("Giving up on %s after %d flood waits", error.method, retries - 1)
            raise error
        self.stats.retried += 1
        logger.warning(
            "Flood wait %ss for %s in chat %s (attempt %d)",
            error.retry_after,
            error.method.__api_method__,
            getattr(error.method, "chat_id", None),
            retries,
        )
        return retries

    def _check_migration(self, error: TelegramMigrateToChat, migrations: int) -> int:
        migrations += 1
        if migrations > self._MAX_MIGRATIONS:
            raise error
        return migrations

    def _follow_migration(
        self, method: TelegramMethod[TelegramType]
    ) -> TelegramMethod[TelegramType]:
        chat_id = getattr(method, "chat_id", None)
        if isinstance(chat_id, int) and chat_id in self._migrated:
            return method.model_copy(update={"chat_id": self._migrated[chat_id]})
        return method

    async def _migrate(
        self, method: TelegramMethod[TelegramType], new_chat_id: int
    ) -> TelegramMethod[TelegramType]:
        old_chat_id = getattr(method, "chat_id", None)
        self.stats.migrated += 1
        if isinstance(old_chat_id, int) and old_chat_id not in self._migrated:
            self._migrated[old_chat_id] = new_chat_id
            logger.info("Chat %s migrated to %s", old_chat_id, new_chat_id)
            if self.on_migrate is not None:
                try:
                    await self.on_migrate(old_chat_id, new_chat_id)
                except Exception:
                    # Delivering the message matters more than the bookkeeping.
                    logger.exception("on_migrate(%s, %s) failed", old_chat_id, new_chat_id)
        return method.model_copy(update={"chat_id": new_chat_id})
