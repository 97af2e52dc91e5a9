"""``python -m seating generate FILE`` as a subprocess (seating-contract.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .rules import broken_rules

ROOT = Path(__file__).resolve().parents[2]
QUALITY_KEYS = [
    "seat_spread",
    "meetings_min",
    "meetings_max",
    "meetings_histogram",
    "table_spread",
    "apart_violations",
    "cut_short",
    "seconds",
]
SMALL: dict[str, Any] = {
    "players": [f"Игрок {n}" for n in range(20)],
    "games_per_player": 3,
    "apart": [["Игрок 0", "Игрок 1"]],
    "seed": 5,
}


def seating(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "seating", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "request.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_file_gives_one_json_plan(tmp_path: Path) -> None:
    done = seating("generate", write(tmp_path, SMALL))
    assert done.returncode == 0 and done.stderr == b""
    plan = json.loads(done.stdout)
    assert list(plan) == ["rounds", "quality"]
    assert list(plan["quality"]) == QUALITY_KEYS
    assert list(plan["rounds"][0]) == ["round", "tables", "sitting_out"]
    assert broken_rules(plan, SMALL) == []
    assert plan["quality"]["apart_violations"] == 0
    assert all(isinstance(key, str) for key in plan["quality"]["meetings_histogram"])


def test_standard_input_and_the_table_format() -> None:
    done = seating("generate", "-", "--format", "table", stdin=json.dumps(SMALL).encode())
    assert done.returncode == 0 and done.stderr == b""
    text = done.stdout.decode("utf-8")
    assert text.startswith("Round 1\n")
    assert "Table 1" in text and "Игрок 0" in text and "Seat spread: 1" in text
    assert "Quality" in text and "Meetings:" in text


VALID: dict[str, Any] = {"players": [f"P{n}" for n in range(20)], "games_per_player": 2}
FIXED_TABLE = {"table": 1, "seats": [f"P{n}" for n in range(10)]}


@pytest.mark.parametrize(
    ("request_", "hint"),
    [
        ("{not json", "not valid JSON"),
        ([1, 2], "JSON object"),
        ({**VALID, "games_per_player": 3, "players": VALID["players"][:15]}, "multiple of 10"),
        ({**VALID, "players": VALID["players"][:9], "games_per_player": 10}, "too few"),
        ({**VALID, "tables": 3}, "tables"),
        ({**VALID, "players": [*VALID["players"][:19], "P0"]}, "twice"),
        ({**VALID, "apart": [["P0", "Nobody"]]}, "Nobody"),
        ({**VALID, "games_per_player": "2"}, "whole number"),
        ({**VALID, "games_per_player": 40}, "1 to 30"),
        ({**VALID, "games_per_player": True}, "whole number"),
        ({**VALID, "tabels": 2}, "unknown field"),
        ({"games_per_player": 2}, "players"),
        ({**VALID, "seed": 1.5}, "seed"),
        ({**VALID, "time_limit": 0}, "time_limit"),
        ({**VALID, "fixed_rounds": [{"round": 1, "tables": [FIXED_TABLE]}]}, "2 in that round"),
        (
            {**VALID, "fixed_rounds": [{"round": 1, "tables": [
                FIXED_TABLE, {"table": 2, "seats": [f"P{n}" for n in range(9, 19)]},
            ]}]},
            "twice",
        ),
        (
            {**VALID, "fixed_rounds": [{"round": 9, "tables": [
                FIXED_TABLE, {"table": 2, "seats": [f"P{n}" for n in range(10, 20)]},
            ]}]},
            "rounds 1 to 2",
        ),
    ],
)
def test_an_invalid_request_exits_2_with_one_line(
    tmp_path: Path, request_: Any, hint: str
) -> None:
    done = seating("generate", write(tmp_path, request_))
    assert done.returncode == 2
    assert done.stdout == b""
    lines = done.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1 and hint in lines[0], lines


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    done = seating("generate", str(tmp_path / "missing.json"))
    assert done.returncode == 2 and done.stdout == b""
    assert len(done.stderr.decode().splitlines()) == 1
