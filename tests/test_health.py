"""``python -m bot check``: the health report and its exit code, from the shell."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.db import Database
from bot.db.migrations import LATEST, MIGRATIONS
from bot.instance import InstanceLock


def check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          db_path: Path) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv("DATABASE_PATH", str(db_path))
    code = main(["check"])
    return code, json.loads(capsys.readouterr().out)


def made(path: Path, version: int = LATEST) -> Path:
    async def build() -> None:
        db = await Database.open(path, migrations=MIGRATIONS[:version])
        await db.close()

    asyncio.run(build())
    return path


def test_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> None:
    db_path = made(tmp_path / "bot.sqlite3")
    # A sound database, but no bot on it: unhealthy (cron should hear of it).
    code, report = check(monkeypatch, capsys, db_path)
    assert code == 1 and report["database_ok"] and not report["running"], report
    assert report["schema_version"] == LATEST and report["outbox_backlog"] == 0
    assert report["seconds_since_last_update"] is None and report["uptime_seconds"] is None

    with InstanceLock.acquire(db_path):  # as the running bot holds it
        code, report = check(monkeypatch, capsys, db_path)
        assert code == 0 and report["healthy"] and report["pid"] == os.getpid(), report
        assert report["uptime_seconds"] >= 0

        for broken in (tmp_path / "missing.sqlite3", made(tmp_path / "old.sqlite3", LATEST - 1)):
            code, report = check(monkeypatch, capsys, broken)
            assert code == 1 and not report["database_ok"] and report["error"], report
        db_path.write_bytes(os.urandom(4096))  # no WAL beside it: garbage is all there is
        code, report = check(monkeypatch, capsys, db_path)
        assert code == 1 and not report["database_ok"] and report["running"], report
