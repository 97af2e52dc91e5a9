"""Run the routers' plain (not ``async``) filters on the event loop's thread.

aiogram calls a filter that is not a coroutine function (a magic filter such as
``F.chat.type == "private"``, a plain predicate) through ``asyncio.to_thread``: a
hand-over to a worker thread and back for a test that takes a microsecond, several
times per update, each hop waiting for a core on a busy machine. A filter is a
predicate of the update, quick by nature, so :func:`inline_sync_filters` wraps each
such filter in a coroutine function that calls it directly. Nothing else changes:
the filter gets the same arguments (aiogram still picks them by the original
signature) and its result means the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from aiogram import Router
from aiogram.dispatcher.event.handler import FilterObject
from aiogram.dispatcher.event.telegram import TelegramEventObserver


def _inline(callback: Callable[..., Any]) -> Callable[..., Any]:
    async def inline(*args: Any, **kwargs: Any) -> Any:
        return callback(*args, **kwargs)

    return inline


def _filters(router: Router) -> Iterator[FilterObject]:
    for observer in router.observers.values():
        if not isinstance(observer, TelegramEventObserver):
            continue
        yield from observer._handler.filters or ()  # the router's own (``router.message.filter``)
        for handler in observer.handlers:
            yield from handler.filters or ()
    for child in router.sub_routers:
        yield from _filters(child)


def inline_sync_filters(router: Router) -> int:
    """Make every plain filter of ``router`` and the routers under it run inline;
    return how many were changed (once done, a second call changes none)."""
    changed = 0
    for found in _filters(router):
        if not found.awaitable:
            found.callback = _inline(found.callback)
            found.awaitable = True
            changed += 1
    return changed
