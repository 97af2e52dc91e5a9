"""What the bot leaves unimported until it is used: Pillow until a picture is drawn,
aiohttp's web server until WEB_PORT, WEBHOOK_URL or WEBAPP_URL asks for one, and aiogram
itself in the shell's commands that never talk to Telegram. Checked in a fresh
interpreter that imports what `python -m bot` imports, as tests/test_aiogram_models.py
checks the lazy aiogram models.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from bot.db import tournaments
from bot.db.connection import Database

REPO_ROOT = Path(__file__).resolve().parents[1]
LAZY = ("PIL", "aiohttp.web", "bot.web.server", "bot.texts.standings_image",
        "bot.texts.seating_image", "bot.texts.career_image")

_CHILD = f"""
import json, sys
import bot.__main__, bot.app
print(json.dumps([name for name in {LAZY!r} if name in sys.modules]))
"""


def test_polling_starts_without_pillow_and_the_web_server() -> None:
    done = subprocess.run([sys.executable, "-c", _CHILD], cwd=REPO_ROOT, env=os.environ.copy(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == []


# `python -m bot check`, `export` (the list), `backup` and `restore`, one after another in
# one interpreter: what none of them imports, all of them together leave out too.
SHELL_UNUSED = ("aiogram", "aiohttp", "PIL")
_SHELL_CHILD = f"""
import contextlib, io, json, sys
from bot.__main__ import main
runs = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    runs.append([code, out.getvalue().splitlines(), err.getvalue().splitlines()])
print(json.dumps({{"runs": runs, "loaded": [m for m in {SHELL_UNUSED!r} if m in sys.modules]}}))
"""


async def _seed(path: Path) -> None:
    db = await Database.open(path)
    try:
        async with db.transaction() as conn:
            await tournaments.create_tournament(
                conn, title="Winter Cup", distance=10, created_by=1, chat_id=-100123,
                now=datetime(2025, 5, 1, 11, 5, tzinfo=UTC), timezone="Europe/Moscow")
    finally:
        await db.close()


def test_the_shell_commands_load_no_aiogram(tmp_path: Path) -> None:
    db_path = tmp_path / "bot.sqlite3"
    asyncio.run(_seed(db_path))
    copy = tmp_path / "copy.sqlite3"
    argvs = [["check"], ["export"], ["backup", str(copy)], ["restore", str(copy)]]
    # In Russian: the shell's translations are read too (bot.texts.shell_language).
    env = os.environ | {"DATABASE_PATH": str(db_path), "LANGUAGE": "ru"}
    done = subprocess.run([sys.executable, "-c", _SHELL_CHILD, json.dumps(argvs)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["loaded"] == []
    check, listing, backup, restore = result["runs"]
    assert check[0] == 1 and json.loads("\n".join(check[1]))["database_ok"] is True
    assert check[2] == [f"неисправно: бот на базе {db_path} не запущен"]
    assert listing[0] == 2 and listing[2][1:] == [
        "    1  «Winter Cup» · группа -100123 · регистрация · создан 2025-05-01 14:05 UTC+3"]
    assert backup == [0, [f"копия базы {db_path} записана в {copy}"], []]
    assert restore[0] == 0 and restore[1][0].startswith(f"копия {copy} восстановлена в {db_path} ")
