"""``python -m bot backup`` and ``export`` as an operator types them: a folder for the
backup, the list of tournaments when the id is missing or wrong, one line for each
problem (no traceback, exit 2), in the shell's language."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.db import tournaments
from bot.db.connection import Database
from bot.db.migrations import LATEST

STAMPED = re.compile(r"bot-\d{8}-\d{6}-\d{3}\.sqlite3")
MAY_DAY = datetime(2025, 5, 1, 11, 5, tzinfo=UTC)  # 14:05 in Moscow
MAY_2 = datetime(2025, 5, 2, 17, 30, tzinfo=UTC)


@pytest.fixture
def db_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data" / "bot.sqlite3"
    path.parent.mkdir()
    asyncio.run(_seed(path))
    monkeypatch.setenv("DATABASE_PATH", str(path))
    return path


async def _seed(path: Path) -> None:
    db = await Database.open(path)
    try:
        async with db.transaction() as conn:
            old = await tournaments.create_tournament(
                conn, title="Winter Cup", distance=10, created_by=1, chat_id=-100123,
                now=MAY_DAY, timezone="Europe/Moscow")
            await tournaments.set_status(conn, old.id, "finished", now=MAY_2)
            await tournaments.create_tournament(
                conn, title="Rehearsal", distance=2, created_by=1, now=MAY_2, timezone="UTC")
    finally:
        await db.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], list[str]]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def test_backup_into_a_folder_writes_a_dated_file(
        db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "copies"
    folder.mkdir()
    code, out, err = run(capsys, "backup", str(folder))
    [written] = list(folder.iterdir())
    assert code == 0 and err == [] and STAMPED.fullmatch(written.name), written
    assert out == [f"backup of {db_path} written to {written}"]
    with sqlite3.connect(written) as copy:
        assert copy.execute("PRAGMA user_version").fetchone() == (LATEST,)
        assert copy.execute("SELECT count(*) FROM tournaments").fetchone() == (2,)
    copy.close()

    # A path ending in a slash is a folder too, made when missing.
    code, out, _ = run(capsys, "backup", f"{tmp_path}/new/")
    [inside] = list((tmp_path / "new").iterdir())
    assert code == 0 and STAMPED.fullmatch(inside.name) and out[0].endswith(str(inside))
    # Any other path is the file's own name.
    code, out, _ = run(capsys, "backup", str(tmp_path / "saturday.sqlite3"))
    assert code == 0 and (tmp_path / "saturday.sqlite3").is_file()


def test_a_backup_that_cannot_be_written_is_one_line(
        db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = db_path.read_bytes()
    code, out, err = run(capsys, "backup", str(db_path))
    assert (code, out) == (2, []) and err == [f"backup failed: {db_path} is the database itself"]
    assert db_path.read_bytes() == before
    note = tmp_path / "note.txt"
    note.write_text("a file, not a folder")
    code, out, err = run(capsys, "backup", f"{note}/copy.sqlite3")
    assert (code, out, len(err)) == (2, [], 1) and err[0].startswith("backup failed: ")
    assert note.read_text() == "a file, not a folder"


def test_export_without_an_id_lists_the_tournaments(
        db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "export")
    assert (code, out) == (2, [])
    assert err == [
        f"export: which tournament? python -m bot export ID FOLDER, the ID one of these in "
        f"{db_path}:",
        "    2  «Rehearsal» · no group · registration · created 2025-05-02 17:30 UTC",
        "    1  «Winter Cup» · group -100123 · finished · created 2025-05-01 14:05 UTC+3, "
        "finished 2025-05-02 20:30 UTC+3",
    ]
    code, _, err = run(capsys, "export", "7", "out")
    assert code == 2 and len(err) == 3
    assert err[0] == f"export: there is no tournament 7 in {db_path}; its tournaments:"
    code, _, err = run(capsys, "export", "Winter", "out")
    assert code == 2 and err[0].startswith("export: Winter is not a tournament's number")
    code, _, err = run(capsys, "export", "1")
    assert (code, err) == (2, ["export: give the folder to write the files into: "
                               "python -m bot export 1 FOLDER"])


def test_export_with_the_id_writes_the_files(
        db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "export", "1", str(tmp_path / "out"))
    assert code == 0 and err == []
    assert out and all(Path(line).parent == tmp_path / "out" for line in out)
    assert str(tmp_path / "out" / "tournament-1.json") in out


def test_export_of_an_empty_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bot.sqlite3"
    asyncio.run(_empty(path))
    monkeypatch.setenv("DATABASE_PATH", str(path))
    assert run(capsys, "export")[2] == [f"export: there are no tournaments in {path} yet"]


async def _empty(path: Path) -> None:
    await (await Database.open(path)).close()


def test_a_russian_shell_reads_russian(db_path: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    _, out, _ = run(capsys, "backup", str(tmp_path / "copy.sqlite3"))
    assert out == [f"копия базы {db_path} записана в {tmp_path / 'copy.sqlite3'}"]
    _, _, err = run(capsys, "export")
    assert err[1:] == [
        "    2  «Rehearsal» · без группы · регистрация · создан 2025-05-02 17:30 UTC",
        "    1  «Winter Cup» · группа -100123 · завершён · создан 2025-05-01 14:05 UTC+3, "
        "завершён 2025-05-02 20:30 UTC+3",
    ]
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "none.sqlite3"))
    assert run(capsys, "check")[2] == [
        f"неисправно: базы нет: {tmp_path / 'none.sqlite3'} (бот здесь ещё не запускался, или "
        f"DATABASE_PATH указывает в другое место); бот на базе {tmp_path / 'none.sqlite3'} не "
        "запущен"]
    monkeypatch.setenv("TIMEZONE", "Mars/Olympus")
    assert run(capsys, "check")[2][0].startswith(
        "Неверные настройки (.env или окружение): TIMEZONE: unknown time zone")
