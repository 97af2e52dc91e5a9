"""Backups that restore: taken while games are saved, put back by ``python -m bot
restore`` into a fresh folder with the same standings; a file that is no sound backup
of this bot is refused and nothing is replaced; one bot (or restore) per database."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.db import Database
from bot.db.migrations import LATEST, MIGRATIONS
from bot.ops.backups import BackupSchedule, backup_before_migration, prune, scheduled_name
from bot.ops.instance import AlreadyRunning, InstanceLock, running
from bot.reads.standings import StandingsService
from tests.db.test_standings_service import World


def restore_cli(monkeypatch: pytest.MonkeyPatch, db_path: Path, backup: Path) -> int:
    monkeypatch.setenv("DATABASE_PATH", str(db_path))
    return main(["restore", str(backup)])


async def standings_of(path: Path, tid: int) -> object:
    db = await Database.open(path)
    try:
        return (await StandingsService(db).get(tid)).standings
    finally:
        await db.close()


def games_whole(path: Path) -> tuple[int, bool]:
    """How many games the file holds, and whether each has its ten seats."""
    con = sqlite3.connect(path)
    try:
        games = con.execute("SELECT count(*) FROM games").fetchone()[0]
        seats = con.execute("SELECT count(*) FROM game_seats").fetchone()[0]
    finally:
        con.close()
    return games, seats == 10 * games


async def test_backups_while_games_are_saved_restore_with_the_same_standings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = tmp_path / "live" / "bot.sqlite3"
    folder = tmp_path / "backups"
    db = await Database.open(live)
    try:
        world = await World.create(db, players=30)
        schedule = BackupSchedule(db, folder, timedelta(hours=1), keep=3)

        async def saving() -> None:
            for _ in range(40):  # one table after another
                await world.save()

        async def backing_up() -> None:
            for _ in range(6):
                await schedule.take()
                await asyncio.sleep(0)

        await asyncio.gather(saving(), backing_up())
        taken = sorted(folder.iterdir())
        # Pruned to the newest three, each a snapshot of whole games.
        assert len(taken) == 3, taken
        for backup in taken:
            games, whole = games_whole(backup)
            assert games <= 40 and whole
        last = await schedule.take()
        expected = (await StandingsService(db).get(world.tid)).standings
    finally:
        await db.close()

    fresh = tmp_path / "fresh" / "bot.sqlite3"
    assert restore_cli(monkeypatch, fresh, last) == 0
    assert await standings_of(fresh, world.tid) == expected
    assert not fresh.with_name(".bot.sqlite3.restoring").exists()


async def _filled(path: Path) -> None:
    db = await Database.open(path)
    try:
        await World.create(db, players=10)
    finally:
        await db.close()


@pytest.fixture
def current(tmp_path: Path) -> Path:
    """The bot's database in place, with a tournament in it."""
    path = tmp_path / "data" / "bot.sqlite3"
    asyncio.run(_filled(path))
    return path


async def _at(path: Path, version: int) -> None:
    db = await Database.open(path, migrations=MIGRATIONS[:version])
    await db.close()


def backup_at(tmp_path: Path, version: int, name: str | None = None) -> Path:
    """An empty database of this bot at schema ``version``."""
    path = tmp_path / (name or f"v{version}.sqlite3")
    asyncio.run(_at(path, version))
    return path


def test_refused_files_replace_nothing(
        tmp_path: Path, current: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    good = backup_at(tmp_path, LATEST)
    truncated = tmp_path / "truncated.sqlite3"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    foreign = tmp_path / "foreign.sqlite3"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.execute("PRAGMA user_version = 3")
    con.commit()
    con.close()
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all\n" * 100)
    newer = backup_at(tmp_path, LATEST, "newer.sqlite3")
    con = sqlite3.connect(newer)
    con.execute(f"PRAGMA user_version = {LATEST + 1}")
    con.commit()
    con.close()
    before = current.read_bytes()
    files = [*sorted(current.parent.iterdir()), Path(f"{current}.lock")]

    for refused in (truncated, foreign, text, newer, tmp_path / "missing.sqlite3", current):
        assert restore_cli(monkeypatch, current, refused) == 2, refused
        assert current.read_bytes() == before
        assert sorted(current.parent.iterdir()) == sorted(files)
    said = capsys.readouterr().err
    assert "not a sound SQLite database" in said and "not a database of this bot" in said
    assert f"newer than this code's {LATEST}" in said

    # While a bot holds the database (the instance lock), nothing is restored either.
    with InstanceLock.acquire(current):
        assert running(current) is not None
        assert restore_cli(monkeypatch, current, good) == 2
    assert "another bot is running" in capsys.readouterr().err
    assert current.read_bytes() == before

    # An older schema is accepted (the bot migrates it on start); the replaced
    # database, its WAL included, stays beside the restored one.
    older = backup_at(tmp_path, LATEST - 1)
    Path(f"{current}-wal").write_bytes(b"")
    assert restore_cli(monkeypatch, current, older) == 0
    replaced = [p for p in current.parent.iterdir() if ".replaced-" in p.name]
    assert sorted(p.name.endswith("-wal") for p in replaced) == [False, True]
    assert next(p for p in replaced if not p.name.endswith("-wal")).read_bytes() == before
    assert not Path(f"{current}-wal").exists()
    con = sqlite3.connect(current)
    assert con.execute("PRAGMA user_version").fetchone()[0] == LATEST - 1
    con.close()


def test_a_backup_before_a_migration(tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    old = backup_at(tmp_path, LATEST - 1)
    taken = backup_before_migration(old, folder)
    assert taken is not None and f"-before-v{LATEST}-" in taken.name
    con = sqlite3.connect(taken)
    assert con.execute("PRAGMA user_version").fetchone()[0] == LATEST - 1
    con.close()
    # Up to date, or new: nothing to keep.
    assert backup_before_migration(backup_at(tmp_path, LATEST), folder) is None
    assert backup_before_migration(tmp_path / "none.sqlite3", folder) is None
    # Pruning leaves it alone.
    db_path = tmp_path / "v5.sqlite3"
    for n in range(4):
        (folder / scheduled_name(db_path, datetime(2026, 1, 1, 0, 0, n))).write_bytes(b"")
    # What a crash in the middle of a scheduled copy leaves goes too.
    crashed = folder / scheduled_name(db_path, datetime(2026, 1, 1, 0, 0, 9))
    for suffix in (".part", ".part-wal", ".part-shm"):
        Path(f"{crashed}{suffix}").write_bytes(b"")
    assert len(prune(folder, db_path, keep=2)) == 2
    assert taken.exists() and len(list(folder.iterdir())) == 3


def test_one_instance_lock(tmp_path: Path) -> None:
    db_path = tmp_path / "data" / "bot.sqlite3"
    assert running(db_path) is None
    lock = InstanceLock.acquire(db_path)
    with pytest.raises(AlreadyRunning) as refused:
        InstanceLock.acquire(db_path)
    assert refused.value.holder.pid == os.getpid()
    assert f"pid {os.getpid()}" in str(refused.value)
    holder = running(db_path)
    assert holder is not None and holder.started == lock.started
    lock.release()  # what the kernel does for a process that dies, kill -9 included
    assert running(db_path) is None
    InstanceLock.acquire(db_path).release()


async def test_the_schedule_runs_until_stopped(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "bot.sqlite3")
    try:
        schedule = BackupSchedule(db, tmp_path / "backups", timedelta(seconds=0.01), keep=2)
        await schedule.start()
        for _ in range(1000):
            if len(list((tmp_path / "backups").glob("bot-*.sqlite3"))) >= 2:
                break
            await asyncio.sleep(0.01)
        await schedule.stop()
        assert len(list((tmp_path / "backups").glob("bot-*.sqlite3"))) == 2
        # After a restart the period counts from the newest backup; with none, the
        # first comes a minute after the start.
        hourly = BackupSchedule(db, tmp_path / "backups", timedelta(hours=1), keep=2)
        assert 3500 < hourly.first_wait() <= 3600
        assert BackupSchedule(db, tmp_path / "none", timedelta(hours=1), 2).first_wait() == 60
    finally:
        await db.close()


def test_a_backup_of_no_database_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m bot backup`` before the bot ever ran (or with DATABASE_PATH misspelt)."""
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "none.sqlite3"))
    assert main(["backup", str(tmp_path / "copy.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("backup failed: no database at") and "Traceback" not in err
    assert not (tmp_path / "copy.sqlite3").exists()
