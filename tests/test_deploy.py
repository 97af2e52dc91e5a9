"""deploy/: the systemd unit passes ``systemd-analyze verify`` (where the tool exists)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
UNIT = REPO_ROOT / "deploy" / "mafia-bot.service"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_unit_verifies(tmp_path: Path) -> None:
    # Where the unit expects the installed bot, this checkout: verify checks that
    # ExecStart's program exists.
    text = UNIT.read_text().replace("/opt/mafia-bot/.venv/bin/python", sys.executable)
    unit = tmp_path / UNIT.name
    unit.write_text(text.replace("/opt/mafia-bot", str(REPO_ROOT)))
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                          capture_output=True, text=True, timeout=60, check=False)
    said = [line for line in (done.stdout + done.stderr).splitlines() if UNIT.name in line]
    assert done.returncode == 0 and said == [], done.stdout + done.stderr


def test_the_unit_keeps_what_the_readme_promises() -> None:
    settings = dict(line.split("=", 1) for line in UNIT.read_text().splitlines()
                    if "=" in line and not line.startswith("#"))
    assert settings["Restart"] == "on-failure"
    assert settings["StateDirectory"] == "mafia-bot"
    assert settings["EnvironmentFile"].endswith("/.env")
    assert settings.get("User") or settings.get("DynamicUser") == "yes"
