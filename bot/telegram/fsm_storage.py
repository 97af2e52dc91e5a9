"""aiogram FSM storage on the bot's SQLite database, so conversations survive restarts.

One ``fsm`` row per storage key (``bot.db.fsm``) holds both the state and the JSON data;
the two are independent (clearing the state keeps the data and vice versa), and a row with
neither is deleted.

Every update reads its state (aiogram's FSM middleware) and most handlers read the
data, so rows are kept in memory once read: this process is the database's only
writer, and each write goes to the database (one statement, one round trip) before it
returns, so what is cached is what is stored. The data is cached as JSON text and
decoded for each reader: every caller gets its own copy to change.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, cast

from aiogram.exceptions import DataNotDictLikeError
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State
from aiogram.fsm.storage.base import (
    BaseStorage,
    DefaultKeyBuilder,
    KeyBuilder,
    StateType,
    StorageKey,
)

from bot.db import fsm
from bot.db.connection import Database

_JsonLoads = Callable[[str], Any]
_JsonDumps = Callable[[Any], str]

EMPTY = "{}"
# Conversations in memory at most (the least recently used are read again on demand).
CACHE_SIZE = 10_000


def _dumps(data: Any) -> str:
    # Compact and key-sorted: cheap rows, stable text for equal data.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class _Row(NamedTuple):
    state: str | None
    data: str  # JSON text


_NO_ROW = _Row(None, EMPTY)


class _Keep:
    """``_merge``'s default: the state stays as it is."""


_KEEP = _Keep()


class SQLiteStorage(BaseStorage):
    def __init__(
        self,
        db: Database,
        key_builder: KeyBuilder | None = None,
        json_loads: _JsonLoads = json.loads,
        json_dumps: _JsonDumps = _dumps,
        cache_size: int = CACHE_SIZE,
    ) -> None:
        self.db = db
        # with_destiny: scenes and custom FSMContext destinies get their own rows.
        self.key_builder = key_builder or DefaultKeyBuilder(with_destiny=True)
        self.json_loads = json_loads
        self.json_dumps = json_dumps
        self._cache: OrderedDict[str, _Row] = OrderedDict()
        self._cache_size = cache_size

    def _key(self, key: StorageKey) -> str:
        return self.key_builder.build(key)

    async def set_state(self, key: StorageKey, state: StateType = None) -> None:
        value = state.state if isinstance(state, State) else state
        storage_key = self._key(key)
        row = await self._row(storage_key)
        await self._write(storage_key, _Row(value, row.data))

    async def get_state(self, key: StorageKey) -> str | None:
        return (await self._row(self._key(key))).state

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        if not isinstance(data, dict):
            msg = f"Data must be a dict or dict-like object, got {type(data).__name__}"
            raise DataNotDictLikeError(msg)
        text = self.json_dumps(data)  # first: a TypeError leaves the row as it was
        storage_key = self._key(key)
        row = await self._row(storage_key)
        await self._write(storage_key, _Row(row.state, text))

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        return self._decode((await self._row(self._key(key))).data)

    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        return await self._merge(self._key(key), data)

    async def set_state_and_update_data(
        self, key: StorageKey, state: StateType, data: Mapping[str, Any]
    ) -> dict[str, Any]:
        """``set_state`` and ``update_data`` together: one write (a card's every tap)."""
        value = state.state if isinstance(state, State) else state
        return await self._merge(self._key(key), data, state=value)

    async def clear(self, key: StorageKey) -> None:
        """``FSMContext.clear`` (no state, no data) in one write: the row deleted."""
        await self._write(self._key(key), _NO_ROW)

    async def _merge(
        self, storage_key: str, data: Mapping[str, Any], *, state: str | _Keep | None = _KEEP
    ) -> dict[str, Any]:
        row = await self._row(storage_key)
        # From the read to the new cached row there is no await: two updates of one key
        # can't lose each other's changes.
        current = self._decode(row.data)
        current.update(data)
        new_state = row.state if isinstance(state, _Keep) else state
        await self._write(storage_key, _Row(new_state, self.json_dumps(current)))
        return current.copy()

    async def close(self) -> None:
        # The Database is shared with the rest of the bot; the app closes it.
        self._cache.clear()

    def _decode(self, text: str) -> dict[str, Any]:
        return {} if text == EMPTY else cast(dict[str, Any], self.json_loads(text))

    async def _row(self, storage_key: str) -> _Row:
        row = self._cache.get(storage_key)
        if row is not None:
            self._cache.move_to_end(storage_key)
            return row
        async with self.db.read() as conn:
            found = await fsm.get_row(conn, storage_key)
        # A write that landed while we read wins over what we read.
        row = self._cache.get(storage_key)
        if row is None:
            row = _NO_ROW if found is None else _Row(*found)
            self._remember(storage_key, row)
        return row

    async def _write(self, storage_key: str, row: _Row) -> None:
        # The cache first, so that a reader during the round trip sees the new row.
        self._remember(storage_key, row)
        try:
            if row.state is None and row.data == EMPTY:
                await fsm.delete_row(self.db, storage_key)
            else:
                await fsm.put_row(self.db, storage_key, row.state, row.data)
        except BaseException:
            # Not stored: read the row again next time rather than trust the cache.
            self._cache.pop(storage_key, None)
            raise

    def _remember(self, storage_key: str, row: _Row) -> None:
        self._cache[storage_key] = row
        self._cache.move_to_end(storage_key)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)


async def set_state_and_update_data(
    context: FSMContext, state: StateType, data: Mapping[str, Any]
) -> None:
    """``context.set_state(state)``, then ``update_data(data)``: one write on this storage."""
    if isinstance(context.storage, SQLiteStorage):
        await context.storage.set_state_and_update_data(context.key, state, data)
        return
    await context.set_state(state)
    await context.update_data(data)


async def clear(context: FSMContext) -> None:
    """``context.clear()`` (no state, no data): one write on this storage."""
    if isinstance(context.storage, SQLiteStorage):
        await context.storage.clear(context.key)
        return
    await context.clear()
