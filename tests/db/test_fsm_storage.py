"""aiogram's storage contract against SQLiteStorage, plus persistence across restarts."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiogram.exceptions import DataNotDictLikeError
from aiogram.fsm.state import State, StatesGroup
from aiogram.fsm.storage.base import DefaultKeyBuilder, StorageKey

from bot.db import Database
from bot.telegram.fsm_storage import SQLiteStorage

KEY = StorageKey(bot_id=42, chat_id=-100, user_id=7)


class Form(StatesGroup):
    nickname = State()


@pytest.fixture
def storage(db: Database) -> SQLiteStorage:
    return SQLiteStorage(db)


async def test_empty_key(storage: SQLiteStorage) -> None:
    assert await storage.get_state(KEY) is None
    assert await storage.get_data(KEY) == {}
    assert await storage.get_value(KEY, "x") is None
    assert await storage.get_value(KEY, "x", 5) == 5


async def test_state_str_state_object_and_none(storage: SQLiteStorage) -> None:
    await storage.set_state(KEY, "Form:nickname")
    assert await storage.get_state(KEY) == "Form:nickname"
    await storage.set_state(KEY, Form.nickname)
    assert await storage.get_state(KEY) == Form.nickname.state
    await storage.set_state(KEY, None)
    assert await storage.get_state(KEY) is None


async def test_set_get_update_data(storage: SQLiteStorage) -> None:
    await storage.set_data(KEY, {"a": 1, "nested": {"b": [1, 2]}, "text": "Привет"})
    assert await storage.get_data(KEY) == {"a": 1, "nested": {"b": [1, 2]}, "text": "Привет"}
    assert await storage.get_value(KEY, "a") == 1
    assert await storage.update_data(KEY, {"a": 2, "c": None}) == {
        "a": 2,
        "nested": {"b": [1, 2]},
        "text": "Привет",
        "c": None,
    }
    assert (await storage.get_data(KEY))["a"] == 2
    await storage.set_data(KEY, {})
    assert await storage.get_data(KEY) == {}


async def test_returned_data_is_a_copy(storage: SQLiteStorage) -> None:
    await storage.set_data(KEY, {"a": 1})
    got = await storage.get_data(KEY)
    got["a"] = 99
    assert await storage.get_data(KEY) == {"a": 1}


@pytest.mark.parametrize("bad", [[("a", 1)], "text", 5, None])
async def test_non_dict_data_refused(storage: SQLiteStorage, bad: object) -> None:
    await storage.set_data(KEY, {"kept": True})
    with pytest.raises(DataNotDictLikeError):
        await storage.set_data(KEY, bad)  # type: ignore[arg-type]
    assert await storage.get_data(KEY) == {"kept": True}


async def test_unserialisable_data_leaves_row(storage: SQLiteStorage) -> None:
    await storage.set_data(KEY, {"kept": True})
    with pytest.raises(TypeError):
        await storage.set_data(KEY, {"bad": object()})
    assert await storage.get_data(KEY) == {"kept": True}


async def test_state_and_data_independent(storage: SQLiteStorage, db: Database) -> None:
    await storage.set_state(KEY, "s1")
    await storage.set_data(KEY, {"a": 1})
    await storage.set_state(KEY, None)
    assert await storage.get_data(KEY) == {"a": 1}
    await storage.set_state(KEY, "s2")
    await storage.set_data(KEY, {})
    assert await storage.get_state(KEY) == "s2"
    await storage.set_state(KEY, None)
    # Neither state nor data: the row is gone, not kept empty.
    assert await db.fetchval("SELECT count(*) FROM fsm") == 0


async def test_clear_is_state_and_data_gone(storage: SQLiteStorage, db: Database) -> None:
    other = StorageKey(bot_id=42, chat_id=-100, user_id=8)
    for key in (KEY, other):
        await storage.set_state(key, "s1")
        await storage.set_data(key, {"a": 1})
    await storage.clear(KEY)
    assert await storage.get_state(KEY) is None and await storage.get_data(KEY) == {}
    assert await storage.get_state(other) == "s1"
    assert await db.fetchval("SELECT count(*) FROM fsm") == 1
    restarted = SQLiteStorage(db)  # what is stored, not what was cached
    assert await restarted.get_state(KEY) is None and await restarted.get_data(KEY) == {}


async def test_keys_and_destinies_isolated(storage: SQLiteStorage) -> None:
    keys = [
        KEY,
        StorageKey(bot_id=42, chat_id=-100, user_id=8),
        StorageKey(bot_id=42, chat_id=7, user_id=7),
        StorageKey(bot_id=42, chat_id=-100, user_id=7, thread_id=3),
        StorageKey(bot_id=42, chat_id=-100, user_id=7, destiny="scene"),
    ]
    for i, key in enumerate(keys):
        await storage.set_state(key, f"state{i}")
        await storage.set_data(key, {"i": i})
    for i, key in enumerate(keys):
        assert await storage.get_state(key) == f"state{i}"
        assert await storage.get_data(key) == {"i": i}


async def test_custom_key_builder(db: Database) -> None:
    storage = SQLiteStorage(db, key_builder=DefaultKeyBuilder(prefix="x", with_bot_id=True))
    await storage.set_state(KEY, "s")
    assert await db.fetchval("SELECT key FROM fsm") == "x:42:-100:7"


async def test_concurrent_update_data_loses_nothing(storage: SQLiteStorage) -> None:
    import asyncio

    await asyncio.gather(*(storage.update_data(KEY, {f"k{i}": i}) for i in range(50)))
    assert await storage.get_data(KEY) == {f"k{i}": i for i in range(50)}


async def test_close_does_not_close_database(storage: SQLiteStorage, db: Database) -> None:
    await storage.close()
    await storage.set_state(KEY, "still works")
    assert await storage.get_state(KEY) == "still works"


async def test_persistence_across_restart(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path)
    storage = SQLiteStorage(db)
    await storage.set_state(KEY, Form.nickname)
    await storage.set_data(KEY, {"draft": {"seats": [1, 2, 3]}})
    await storage.close()
    await db.close()

    db2 = await Database.open(path)
    try:
        storage2 = SQLiteStorage(db2)
        assert await storage2.get_state(KEY) == "Form:nickname"
        assert await storage2.get_data(KEY) == {"draft": {"seats": [1, 2, 3]}}
    finally:
        await db2.close()
