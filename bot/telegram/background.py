"""Work a handler starts and does not wait for.

A judge's tap must be answered at once, while the card's edit may wait in the flood
queue (``bot.telegram.flood``) for the chat's next slot: the handler hands the edit over here
and returns, so aiogram's per-user isolation lets the next tap in. The tasks are kept
referenced (asyncio holds only weak references), their errors are logged, and a
graceful stop waits for them (a shutdown hook) before the database closes.

What an update starts here belongs to it: ``collect()`` lists the tasks started while
it is handled, and the update counts as processed (``bot.telegram.middlewares.dedup``) only
once they are done. A crash before a card's edit went out so leaves the update to be
delivered again, and the card is shown then.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

log = logging.getLogger(__name__)

# The lists of the ``collect()`` blocks this context is in, innermost last.
_started: ContextVar[tuple[list[asyncio.Task[Any]], ...]] = ContextVar("started", default=())


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        for started in _started.get():
            started.append(task)
        return task

    @staticmethod
    @contextmanager
    def collect() -> Iterator[list[asyncio.Task[Any]]]:
        """The tasks spawned (by anyone) while the block runs in this context, nested
        blocks' included."""
        started: list[asyncio.Task[Any]] = []
        token = _started.set((*_started.get(), started))
        try:
            yield started
        finally:
            _started.reset(token)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("%s failed", task.get_name(), exc_info=error)

    def __len__(self) -> int:
        return len(self._tasks)

    async def join(self) -> None:
        """Wait until nothing runs, including what the running tasks start."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
