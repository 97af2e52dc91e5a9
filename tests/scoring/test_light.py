"""``scoring`` stays pure and light: no Telegram, no database, no I/O outside its CLI."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "scoring"


def imported_modules(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_import_scoring_imports_no_aiogram_nor_database() -> None:
    everything = "import scoring; scoring.compute_standings; scoring.game_breakdown; scoring.Game"
    for code in ("import scoring", "import scoring.cli", everything):
        modules = imported_modules(code)
        assert not {
            m for m in modules if m.split(".")[0] in {"aiogram", "aiosqlite", "sqlite3", "bot"}
        }


def test_the_command_line_path_needs_no_data_classes_nor_typing() -> None:
    modules = imported_modules("import scoring.cli")
    assert "dataclasses" not in modules and "typing" not in modules and "inspect" not in modules


def test_no_io_outside_the_cli_module() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "cli.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, (path.name, node.lineno)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert (node.value.id, node.attr) not in {
                    ("sys", "stdin"),
                    ("sys", "stdout"),
                    ("sys", "stderr"),
                }, (path.name, node.lineno)
