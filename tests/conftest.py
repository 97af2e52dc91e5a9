"""Shared fixtures: a real database file and the project's own Dispatcher."""

from __future__ import annotations

# First, before anything imports aiogram: its models are then built lazily
# (bot/telegram/aiogram_models.py).
import bot  # noqa: F401  # isort: skip
import asyncio
import gc
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db.connection import Database
from bot.telegram.aiogram_models import pin_response_types
from tests.support import BotHarness

# Tests that wait on other processes (bot processes, Chromium, fresh interpreters) for
# seconds each go to the pytest-xdist workers first, the longest two first of all: they
# then overlap with the quick ones instead of ending the run alone.
LONGEST = ("tests/test_aiogram_models.py", "tests/e2e/test_fresh_clone.py")
WAITING = ("e2e", "browser")


@pytest.hookimpl(trylast=True)  # after tests/e2e and tests/browser have marked theirs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        if item.nodeid.startswith(LONGEST):
            return 0
        return 1 if any(item.get_closest_marker(name) for name in WAITING) else 2

    items.sort(key=rank)  # stable: in their order otherwise


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the worker has imported and collected lives as long as the run: frozen out
    of the garbage collector's passes, which then walk only what the tests make (the
    handler tests spend about a quarter less in them)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def english_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m bot``'s own lines follow the shell's locale (bot/texts/shell_language.py):
    English in the tests, whatever the developer's shell says, the bot processes they
    start included; a test wanting Russian sets LANG itself."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture(scope="session", autouse=True)
def pinned_responses() -> None:
    """As the bot does at its start (bot.app.prepare_runtime): the ``Response[...]`` aiogram
    parses answers into are kept. pydantic's cache of them is weak, and without this each
    worker built them anew after every garbage collection (~10 ms each, a sixth of the
    handler tests' CPU)."""
    pin_response_types()


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database file with every migration applied, made once per worker: migrating
    anew takes ~90 ms, a copy ~3 ms."""
    path = tmp_path_factory.mktemp("migrated") / "bot.sqlite3"

    async def make() -> None:
        await (await Database.open(path)).close()  # closed: the WAL is in the file

    asyncio.run(make())
    return path


@pytest.fixture
async def db(tmp_path: Path, migrated: Path) -> AsyncIterator[Database]:
    """A real database file of the latest schema, the test's own."""
    shutil.copyfile(migrated, tmp_path / "bot.sqlite3")
    database = await Database.open(tmp_path / "bot.sqlite3")
    yield database
    await database.close()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(bot_token=None, database_path=tmp_path / "bot.sqlite3", standings_debounce=0)


@pytest.fixture
async def harness(db: Database, settings: Settings) -> AsyncIterator[BotHarness]:
    """The whole bot (middlewares, storage, routers) fed through ``feed_update``."""
    async with BotHarness(build_dispatcher(db, settings)) as h:
        yield h
