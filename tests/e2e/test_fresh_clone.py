"""A fresh clone, with no folder beside it, runs the commands the README and the
organiser's guide show, with their documented outcome: the example's standings, the
demo (``make demo``: its transcript tells the whole tournament in order, its standings
are those ``python -m scoring standings`` computes from the export it left, the
pictures and exports are in its folder), and the command lines on the demo's database
(export, backup, check, restore).

The clone is the repository's tracked files copied into an empty folder (what `git
clone` gives, uncommitted edits included, so the test follows the working tree); the
commands run there with this interpreter (the project's .venv), as `.venv/bin/python
-m ...` does in a clone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .bot_process import requires_bot
from .scenario import chat_table, scoring_cli

pytestmark = requires_bot

ROOT = Path(__file__).resolve().parents[2]


def clone(into: Path) -> Path:
    """The tracked files of the working tree, alone in ``into``/clone."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    target = into / "clone"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def run(where: Path, *args: str, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in {"DATABASE_PATH", "BOT_TOKEN", "TELEGRAM_API_URL", "PYTHONPATH"}}
    full = {**clean, "LANG": "C.UTF-8", "LANGUAGE": "en", "PYTHONPATH": str(where),
            **(env or {})}
    return subprocess.run([sys.executable, "-m", *args], cwd=where, env=full,
                          capture_output=True, text=True, timeout=timeout)


def test_a_fresh_clone_runs_what_the_docs_show(tmp_path: Path) -> None:
    repo = clone(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clone"]  # nothing beside it
    assert not (repo / ".venv").exists() and not (repo.parent / "shared").exists()

    # README and docs/formats.md: the example tournament's standings.
    done = run(repo, "scoring", "standings", "docs/examples/small-tournament.json")
    assert done.returncode == 0, done.stderr
    expected = json.loads((repo / "docs/examples/small-tournament.standings.json").read_text())
    got = json.loads(done.stdout)
    assert got.pop("pending_games") == []  # newer than the example's expected file
    assert got == expected
    table = run(repo, "scoring", "standings", "--format", "table",
                "docs/examples/small-tournament.json")
    assert table.returncode == 0 and expected["standings"][0]["player"] in table.stdout

    # `check` before the bot ever ran here says so.
    data = repo / "data" / "bot.sqlite3"
    nothing = run(repo, "bot", "check", env={"DATABASE_PATH": str(data)})
    assert nothing.returncode == 1
    assert f"no database at {data}" in nothing.stdout + nothing.stderr

    # The organiser's guide: make demo (its module, as the Makefile runs it).
    out = repo / "demo-output"
    demo = run(repo, "tests.demo", "--dir", str(out), "--language", "en", timeout=300)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    said = demo.stdout
    # In the order it happened: the tournament, both games' results, the protest's
    # decision, the players' /rating, the export, the bot stopped.
    steps = ["Tournament «Saturday Cup» is created: 2 games per player",
             "Round 1, table 1: red win", "Round 2, table 1: black win",
             "Protest #1 rejected", "Decision: The judge saw no prompting; the vote stands.",
             "Standings · games counted: 2", "📎 a file: tournament-1.json",
             "The bot was stopped and exited with code 0."]
    where = [said.find(step) for step in steps]
    assert -1 not in where and where == sorted(where), dict(zip(steps, where, strict=True))
    assert "[💾 Save]" in said and "Nina taps [✅ Confirm]" in said
    assert "<b>" not in said  # HTML shown as Telegram shows it
    # The standings a player reads are the scoring engine's, from the export.
    assert chat_table(said)[-10:] == scoring_cli(out / "tournament-1.json")
    pictures = sorted(out.glob("standings-picture-*.png"))
    assert [p.name for p in pictures] == ["standings-picture-1.png", "standings-picture-2.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pictures)
    for name in ("tournament-1.json", "standings-1.csv", "standings-1.xlsx",
                 "protocols-1.md", "audit-1.csv", "bot.sqlite3"):
        assert (out / name).stat().st_size > 0, name
        assert str(out / name) in said  # listed at the end
    assert len(json.loads((out / "tournament-1.json").read_text())["games"]) == 2
    assert (out / "transcript.txt").read_text(encoding="utf-8").strip() == said.strip()

    # docs/deploy.md's command lines on the demo's database.
    env = {"DATABASE_PATH": str(out / "bot.sqlite3")}
    listing = run(repo, "bot", "export", env=env)
    assert listing.returncode == 2 and "Saturday Cup" in listing.stdout + listing.stderr
    exported = run(repo, "bot", "export", "1", str(tmp_path / "cup"), env=env)
    assert exported.returncode == 0, exported.stderr
    assert len(exported.stdout.split()) == 7
    assert run(repo, "scoring", "standings", str(tmp_path / "cup" / "tournament-1.json"),
               ).returncode == 0

    backups = tmp_path / "backups"
    backups.mkdir()
    backup = run(repo, "bot", "backup", f"{backups}/", env=env)
    assert backup.returncode == 0, backup.stderr
    [copy] = list(backups.iterdir())
    assert str(copy) in backup.stdout

    health = run(repo, "bot", "check", env=env)
    assert health.returncode == 1  # the database is fine, but no bot runs on it
    assert json.loads(health.stdout)["database_ok"] is True

    restored = run(repo, "bot", "restore", str(copy), env=env)
    assert restored.returncode == 0, restored.stderr


@pytest.fixture(autouse=True)
def _no_stray_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own .env values must not reach the clone's commands."""
    for name in ("WEBHOOK_URL", "WEBAPP_URL", "OPERATOR_IDS", "WEB_PORT"):
        monkeypatch.delenv(name, raising=False)
