"""``python -m bot check`` and ``/healthz``: the health report and its exit code (or HTTP
status), from the shell and from the running bot."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.__main__ import main
from bot.config import Settings
from bot.db import Database
from bot.db.migrations import LATEST, MIGRATIONS
from bot.ops.instance import InstanceLock
from bot.telegram.watch import TelegramWatch
from bot.web.server import create_app


def check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          db_path: Path) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv("DATABASE_PATH", str(db_path))
    code = main(["check"])
    return code, json.loads(capsys.readouterr().out)


def said(capsys: pytest.CaptureFixture[str], db_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """``check``'s exit code and its lines on stderr (the JSON goes to stdout)."""
    monkeypatch.setenv("DATABASE_PATH", str(db_path))
    code = main(["check"])
    return code, capsys.readouterr().err.splitlines()


def made(path: Path, version: int = LATEST) -> Path:
    async def build() -> None:
        db = await Database.open(path, migrations=MIGRATIONS[:version])
        await db.close()

    asyncio.run(build())
    return path


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, InstanceLock]]:
    """A sound database with a "running bot" on it (this process holds its lock)."""
    db_path = made(tmp_path / "bot.sqlite3")
    with InstanceLock.acquire(db_path) as lock:
        yield db_path, lock


def ago(seconds: float) -> datetime:
    return datetime.now(UTC) - timedelta(seconds=seconds)


def post_waiting(db_path: Path, *, age: int, chat_id: int, set_aside: bool = False,
                 bot_removed: bool = False) -> None:
    """A group's tournament with a line for its group, ``age`` seconds old."""
    created = int(time.time()) - age
    with sqlite3.connect(db_path) as conn:
        tid = conn.execute(
            "INSERT INTO tournaments (title, chat_id, distance, created_by, created_at,"
            " bot_removed) VALUES ('Cup', ?, 10, 1, ?, ?)", (chat_id, created, bot_removed)
        ).lastrowid
        conn.execute(
            "INSERT INTO outbox (tournament_id, kind, text, created_at, set_aside, detail,"
            " set_aside_at) VALUES (?, 'note', 'Round 1 is seated.', ?, ?, ?, ?)",
            (tid, created, "no_photos" if set_aside else None,
             "refused" if set_aside else None, created if set_aside else None))
    conn.close()


def test_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> None:
    db_path = made(tmp_path / "bot.sqlite3")
    # A sound database, but no bot on it: unhealthy (cron should hear of it).
    code, report = check(monkeypatch, capsys, db_path)
    assert code == 1 and report["database_ok"] and not report["running"], report
    assert report["schema_version"] == LATEST and report["outbox_backlog"] == 0
    assert report["seconds_since_last_update"] is None and report["uptime_seconds"] is None
    assert report["seconds_since_telegram_ok"] is None and report["outbox_oldest_seconds"] is None

    with InstanceLock.acquire(db_path) as lock:  # as the running bot holds it
        lock.note_telegram_ok(datetime.now(UTC))
        code, report = check(monkeypatch, capsys, db_path)
        assert code == 0 and report["healthy"] and report["pid"] == os.getpid(), report
        assert report["uptime_seconds"] >= 0 and report["seconds_since_telegram_ok"] <= 1

        for broken in (tmp_path / "missing.sqlite3", made(tmp_path / "old.sqlite3", LATEST - 1)):
            code, report = check(monkeypatch, capsys, broken)
            assert code == 1 and not report["database_ok"] and report["error"], report
        db_path.write_bytes(os.urandom(4096))  # no WAL beside it: garbage is all there is
        code, report = check(monkeypatch, capsys, db_path)
        assert code == 1 and not report["database_ok"] and report["running"], report


def test_no_database_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """Before the bot ever ran here (or with DATABASE_PATH misspelt): the JSON and one
    line say where the database was looked for, and nothing is created."""
    missing = tmp_path / "data" / "bot.sqlite3"
    monkeypatch.setenv("DATABASE_PATH", str(missing))
    assert main(["check"]) == 1
    out, err = capsys.readouterr()
    expected = (f"no database at {missing} (the bot has not run here yet, or DATABASE_PATH "
                "points elsewhere)")
    assert json.loads(out)["error"] == expected
    assert err.splitlines() == [f"unhealthy: {expected}; no bot is running on {missing}"]
    assert not missing.parent.exists()


def test_telegram_silent_too_long_is_unhealthy(
        held: tuple[Path, InstanceLock], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db_path, lock = held
    # Running, but Telegram has answered nothing yet (the start is still trying).
    code, lines = said(capsys, db_path, monkeypatch)
    assert (code, lines) == (1, ["unhealthy: Telegram has not answered the bot yet"])

    lock.note_telegram_ok(ago(290))
    assert check(monkeypatch, capsys, db_path)[0] == 0
    lock.note_telegram_ok(ago(310))
    code, report = check(monkeypatch, capsys, db_path)
    assert code == 1 and not report["telegram_ok"] and report["database_ok"], report
    assert 310 <= report["seconds_since_telegram_ok"] < 320
    code, [line] = said(capsys, db_path, monkeypatch)
    assert line.startswith("unhealthy: Telegram has not answered the bot for 31")
    assert line.endswith(" s (HEALTH_TELEGRAM_MAX_AGE=300)")

    monkeypatch.setenv("HEALTH_TELEGRAM_MAX_AGE", "600")  # the operator's own limit
    assert check(monkeypatch, capsys, db_path)[0] == 0


def test_a_post_waiting_too_long_is_unhealthy(
        held: tuple[Path, InstanceLock], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db_path, lock = held
    lock.note_telegram_ok(datetime.now(UTC))
    # Waiting for the chief judge's "Post again", or for the bot to be back in the
    # group: not Telegram's backlog, however old.
    post_waiting(db_path, age=5000, chat_id=-1, set_aside=True)
    post_waiting(db_path, age=5000, chat_id=-2, bot_removed=True)
    code, report = check(monkeypatch, capsys, db_path)
    assert code == 0 and report["outbox_oldest_seconds"] is None, report
    assert report["outbox_set_aside"] == 1 and report["outbox_backlog"] == 1

    post_waiting(db_path, age=500, chat_id=-3)
    code, report = check(monkeypatch, capsys, db_path)
    assert code == 0 and 500 <= report["outbox_oldest_seconds"] < 510, report
    post_waiting(db_path, age=700, chat_id=-4)
    code, report = check(monkeypatch, capsys, db_path)
    assert code == 1 and not report["outbox_ok"] and report["telegram_ok"], report
    code, [line] = said(capsys, db_path, monkeypatch)
    assert line.startswith("unhealthy: a group post has waited 70")
    assert line.endswith(" s (HEALTH_OUTBOX_MAX_AGE=600)")


def test_the_lines_follow_the_shells_language(
        held: tuple[Path, InstanceLock], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db_path, lock = held
    lock.note_telegram_ok(ago(400))
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    code, lines = said(capsys, db_path, monkeypatch)
    assert code == 1 and lines[0].startswith("неисправно: Telegram не отвечает боту уже 4")
    code, report = check(monkeypatch, capsys, db_path)
    assert not report["telegram_ok"]  # the JSON's words stay English, for tools
    monkeypatch.setenv("LANGUAGE", "en_GB:ru")  # gettext's order: LANGUAGE first
    assert said(capsys, db_path, monkeypatch)[1][0].startswith("unhealthy: Telegram has")


async def test_healthz_follows_telegrams_answers(tmp_path: Path) -> None:
    """The running bot's own report: its session's watch, not the lock file."""
    db_path = tmp_path / "bot.sqlite3"
    await (await Database.open(db_path)).close()
    now = [1_000_000.0]
    watch = TelegramWatch(clock=lambda: now[0])
    settings = Settings(_env_file=None, database_path=db_path,  # type: ignore[call-arg]
                        health_telegram_max_age=60)
    app = create_app(settings, started=time.monotonic(), mode="webhook", telegram=watch)
    async with TestClient(TestServer(app)) as client:
        response = await client.get("/healthz")
        body = await response.json()
        assert response.status == 503 and body["seconds_since_telegram_ok"] is None, body
        watch.answered()
        now[0] += 59
        response = await client.get("/healthz")
        body = await response.json()
        assert response.status == 200 and body["seconds_since_telegram_ok"] == 59, body
        assert body["running"] and body["mode"] == "webhook"
        now[0] += 2
        response = await client.get("/healthz")
        body = await response.json()
        assert response.status == 503 and not body["telegram_ok"], body
