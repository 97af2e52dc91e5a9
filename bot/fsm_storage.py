"""aiogram FSM storage on the bot's SQLite database, so conversations survive restarts.

One ``fsm`` row per storage key holds both the state and the JSON data; the two are
independent (clearing the state keeps the data and vice versa), and a row with
neither is deleted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from aiogram.exceptions import DataNotDictLikeError
from aiogram.fsm.state import State
from aiogram.fsm.storage.base import (
    BaseStorage,
    DefaultKeyBuilder,
    KeyBuilder,
    StateType,
    StorageKey,
)

from bot.db.connection import Conn, Database, fetch_one, run
from bot.db.timeutil import ts_or_now

_JsonLoads = Callable[[str], Any]
_JsonDumps = Callable[[Any], str]


def _dumps(data: Any) -> str:
    # Compact and key-sorted: cheap rows, stable text for equal data.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class SQLiteStorage(BaseStorage):
    def __init__(
        self,
        db: Database,
        key_builder: KeyBuilder | None = None,
        json_loads: _JsonLoads = json.loads,
        json_dumps: _JsonDumps = _dumps,
    ) -> None:
        self.db = db
        # with_destiny: scenes and custom FSMContext destinies get their own rows.
        self.key_builder = key_builder or DefaultKeyBuilder(with_destiny=True)
        self.json_loads = json_loads
        self.json_dumps = json_dumps

    def _key(self, key: StorageKey) -> str:
        return self.key_builder.build(key)

    async def set_state(self, key: StorageKey, state: StateType = None) -> None:
        value = state.state if isinstance(state, State) else state
        async with self.db.transaction() as conn:
            await run(
                conn,
                "INSERT INTO fsm (key, state, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET state = excluded.state,"
                " updated_at = excluded.updated_at",
                (self._key(key), value, ts_or_now(None)),
            )
            await _drop_if_empty(conn, self._key(key))

    async def get_state(self, key: StorageKey) -> str | None:
        async with self.db.read() as conn:
            row = await fetch_one(conn, "SELECT state FROM fsm WHERE key = ?", (self._key(key),))
        return None if row is None else cast(str | None, row[0])

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        if not isinstance(data, dict):
            msg = f"Data must be a dict or dict-like object, got {type(data).__name__}"
            raise DataNotDictLikeError(msg)
        text = self.json_dumps(data)  # before the lock: a TypeError leaves the row as it was
        async with self.db.transaction() as conn:
            await self._write_data(conn, self._key(key), text)

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        async with self.db.read() as conn:
            return await self._read_data(conn, self._key(key))

    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        # One transaction, unlike BaseStorage's get-then-set: no lost update between two
        # concurrent updates of the same key.
        storage_key = self._key(key)
        async with self.db.transaction() as conn:
            current = await self._read_data(conn, storage_key)
            current.update(data)
            await self._write_data(conn, storage_key, self.json_dumps(current))
        return current.copy()

    async def close(self) -> None:
        # The Database is shared with the rest of the bot; the app closes it.
        pass

    async def _read_data(self, conn: Conn, storage_key: str) -> dict[str, Any]:
        row = await fetch_one(conn, "SELECT data FROM fsm WHERE key = ?", (storage_key,))
        if row is None:
            return {}
        return cast(dict[str, Any], self.json_loads(row[0]))

    async def _write_data(self, conn: Conn, storage_key: str, text: str) -> None:
        await run(
            conn,
            "INSERT INTO fsm (key, data, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET data = excluded.data,"
            " updated_at = excluded.updated_at",
            (storage_key, text, ts_or_now(None)),
        )
        await _drop_if_empty(conn, storage_key)


async def _drop_if_empty(conn: Conn, storage_key: str) -> None:
    await run(
        conn,
        "DELETE FROM fsm WHERE key = ? AND state IS NULL AND data = '{}'",
        (storage_key,),
    )
