"""What the bot leaves unimported until it is used: Pillow until a picture is drawn,
aiohttp's web server until WEB_PORT, WEBHOOK_URL or WEBAPP_URL asks for one. Checked in
a fresh interpreter that imports what `python -m bot` imports, as
tests/test_aiogram_models.py checks the lazy aiogram models.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
