from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.db import Database, backup_file, backup_file_sync
from bot.db.audit import audit
from bot.db.players import add_player
from bot.db.tournaments import TournamentRow

COUNTER = "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"


async def _rows(db: Database, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in await db.fetchall(sql)]


async def _counter(db: Database) -> None:
    await db.execute(COUNTER)
    await db.execute("INSERT INTO counter (id, n) VALUES (1, 0)")


async def test_failing_transaction_leaves_nothing(db: Database) -> None:
    await _counter(db)
    with pytest.raises(RuntimeError):
        async with db.transaction() as conn:
            await conn.execute("UPDATE counter SET n = 5")
            await conn.execute("INSERT INTO counter (id, n) VALUES (2, 1)")
            raise RuntimeError("handler failed")
    assert await _rows(db, "SELECT id, n FROM counter") == [(1, 0)]


async def test_failing_statement_rolls_back_earlier_ones(db: Database) -> None:
    await _counter(db)
    with pytest.raises(sqlite3.IntegrityError):
        async with db.transaction() as conn:
            await conn.execute("UPDATE counter SET n = 5")
            await conn.execute("INSERT INTO counter (id, n) VALUES (1, 1)")  # duplicate key
    assert await db.fetchval("SELECT n FROM counter") == 0


async def test_concurrent_read_modify_write_loses_nothing(db: Database) -> None:
    await _counter(db)

    async def bump(times: int) -> None:
        for _ in range(times):
            async with db.transaction() as conn:
                async with conn.execute("SELECT n FROM counter WHERE id = 1") as cur:
                    row = await cur.fetchone()
                assert row is not None
                await asyncio.sleep(0)  # invite the other coroutine in
                await conn.execute("UPDATE counter SET n = ? WHERE id = 1", (row[0] + 1,))

    await asyncio.gather(bump(100), bump(100))
    assert await db.fetchval("SELECT n FROM counter") == 200


async def test_reads_wait_for_a_transaction(db: Database) -> None:
    await _counter(db)
    seen: list[int] = []

    async def writer() -> None:
        async with db.transaction() as conn:
            await conn.execute("UPDATE counter SET n = 1")
            await asyncio.sleep(0.01)
            await conn.execute("UPDATE counter SET n = 2")

    async def reader() -> None:
        await asyncio.sleep(0)
        seen.append(await db.fetchval("SELECT n FROM counter"))

    await asyncio.gather(writer(), reader())
    assert seen == [2]  # never the half-done 1


async def test_nested_transaction_is_a_savepoint(db: Database) -> None:
    await _counter(db)
    async with db.transaction() as conn:
        await conn.execute("UPDATE counter SET n = 1")
        with pytest.raises(ValueError):
            async with db.transaction() as inner:
                await inner.execute("UPDATE counter SET n = 2")
                raise ValueError
        async with db.read() as inner, inner.execute("SELECT n FROM counter") as cur:
            assert (await cur.fetchone())[0] == 1  # type: ignore[index]
        async with db.transaction() as inner:
            await inner.execute("INSERT INTO counter (id, n) VALUES (2, 7)")
    assert await _rows(db, "SELECT id, n FROM counter ORDER BY id") == [(1, 1), (2, 7)]


async def test_cancelled_transaction_rolls_back(db: Database) -> None:
    await _counter(db)
    started = asyncio.Event()

    async def slow() -> None:
        async with db.transaction() as conn:
            await conn.execute("UPDATE counter SET n = 9")
            started.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(slow())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await db.fetchval("SELECT n FROM counter") == 0
    await db.execute("UPDATE counter SET n = 1")  # the connection is usable again
    assert await db.fetchval("SELECT n FROM counter") == 1


async def test_parameters_are_bound(db: Database) -> None:
    await _counter(db)
    evil = "1; DROP TABLE counter; --"
    assert await db.fetchall("SELECT n FROM counter WHERE id = ?", (evil,)) == []
    assert await db.fetchval("SELECT count(*) FROM counter") == 1


async def test_closed_database_refuses(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "bot.db")
    await db.close()
    await db.close()  # twice is fine
    with pytest.raises(RuntimeError, match="closed"):
        await db.fetchval("SELECT 1")


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {n: sorted(conn.execute(f'SELECT * FROM "{n}"').fetchall(), key=repr) for n in names}


def _single_file(path: Path) -> bool:
    """A backup is one file, with no WAL or journal beside it."""
    return path.is_file() and not any(
        Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-shm", "-journal", ".part")
    )


async def _fill(db: Database, tournament: TournamentRow) -> None:
    async with db.transaction() as conn:
        for i in range(30):
            await add_player(conn, tournament.id, f"Игрок {i}")
        await audit(conn, action="test", entity="tournament", entity_id=tournament.id)


async def test_backup_restores_an_equal_database(
    db: Database, tournament: TournamentRow, tmp_path: Path
) -> None:
    await _fill(db, tournament)
    dest = await db.backup(tmp_path / "backups" / "copy.db")
    assert _single_file(dest)
    assert _dump(dest) == _dump(db.path)

    restored = await Database.open(dest)  # a backup opens as a normal database
    try:
        assert await restored.fetchval("SELECT count(*) FROM players") == 30
    finally:
        await restored.close()


async def test_backup_file_while_the_bot_runs(
    db: Database, tournament: TournamentRow, tmp_path: Path
) -> None:
    await _fill(db, tournament)
    # From another process, as `python -m bot backup PATH` would, with the WAL unmerged.
    code = (
        "import asyncio, sys; from bot.db import backup_file;"
        " asyncio.run(backup_file(sys.argv[1], sys.argv[2]))"
    )
    dest = tmp_path / "shell.db"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, str(db.path), str(dest), cwd=Path(__file__).parents[2]
    )
    assert await process.wait() == 0
    assert _dump(dest) == _dump(db.path)
    # Again over an existing file: replaced, not appended to.
    await db.execute("DELETE FROM audit_log")
    await backup_file(db.path, dest)
    assert _dump(dest) == _dump(db.path)


def test_backup_file_refuses_missing_source_and_self(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        backup_file_sync(tmp_path / "none.db", tmp_path / "x.db")
    src = tmp_path / "a.db"
    sqlite3.connect(src).close()
    with pytest.raises(ValueError):
        backup_file_sync(src, src)


async def test_cached_reads_are_kept_until_a_change_commits(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "cache.sqlite3")
    try:
        reads = 0

        async def load(conn: Any) -> int:
            nonlocal reads
            reads += 1
            rows = await conn.execute_fetchall("SELECT count(*) FROM tournaments")
            return int(rows[0][0])

        assert await db.cached("n", load) == 0
        assert await db.cached("n", load) == 0 and reads == 1
        await db.write("INSERT INTO fsm (key, state, data, updated_at) VALUES ('k', NULL, '{}', 0)")
        assert await db.cached("n", load) == 0 and reads == 1  # a runtime table: still valid
        # A domain table written outside transaction() still counts as a change.
        await db.write(
            "INSERT INTO tournaments (title, distance, created_by, created_at)"
            " VALUES ('Cup', 10, 1, 0)"
        )
        assert await db.cached("n", load) == 1 and reads == 2
    finally:
        await db.close()
