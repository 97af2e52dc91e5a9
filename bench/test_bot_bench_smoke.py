# Run with `pytest bench/test_bot_bench_smoke.py` (not in `make test`: it takes ~60 s).
"""``bench/bot_bench.py`` at a tiny size: it still runs end to end (the recorded stream
still matches the judge's card, the real bot still starts) and reports every figure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "bot_bench.py"
UPDATES = 120  # enough for the four tables' first games to be saved

# It starts the real bot and a bare aiogram bot against the fake Bot API server.
pytestmark = pytest.mark.e2e


def run_bench(tmp_path: Path) -> tuple[dict, str]:
    report = tmp_path / "bench.json"
    argv = [
        sys.executable, str(BENCH),
        "--updates", str(UPDATES),
        "--sizes", "20",
        "--saves", "1",
        "--memory-games", "20",
        "--memory-actions", "3",
        "--paces", "0.3",
        "--profile", "always",
        "--profile-updates", "20",
        "--record", str(tmp_path / "stream.jsonl"),
        "--json", str(report),
    ]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=110)
    # 1 = a goal missed (always at this size: the goals' sizes are not run); anything
    # else broke.
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-4000:]
    assert "Traceback" not in done.stderr, done.stderr[-4000:]
    return json.loads(report.read_text(encoding="utf-8")), done.stdout


@pytest.mark.timeout(120)
def test_bot_bench_reports_every_figure(tmp_path: Path) -> None:
    report, stdout = run_bench(tmp_path)

    d = report["dispatcher"]
    for mode, sides in (("one_at_a_time", ("project", "floor", "echo")),
                        ("tables_at_once", ("project", "echo"))):
        m = d[mode]
        for side in sides:
            figures = m[side]
            assert figures["updates"] == UPDATES, (mode, side)
            for key in ("updates_per_s", "cost_ms", "p50_ms", "p99_ms", "max_ms"):
                assert figures[key] > 0, (mode, side, key)
        assert m["ratio"] > 0 and m["ratio_p50"] > 0
        assert {"tap", "save", "rating:group", "rating:private"} <= set(m["project"]["by_kind"])
        checks = m["checks"]
        assert checks["save_taps"] >= 1 and checks["games_saved"] == checks["save_taps"]
        assert checks["stale_answers"] == 0
    m = d["one_at_a_time"]
    # aiogram's own work for the same calls sits between the echo and the project.
    assert m["echo"]["cost_ms"] < m["floor"]["cost_ms"] < m["project"]["cost_ms"]
    recorded = (tmp_path / "stream.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(recorded) == UPDATES and "update_id" in json.loads(recorded[0])

    save = report["save_to_standings"]["20"]
    for key in ("save_to_standings_ms", "until_publisher_ms", "publisher_to_get_ms",
                "recompute_ms", "save_update_ms", "recompute_alone_ms", "entry_update_p50_ms"):
        assert save[key] >= 0, key
    assert save["save_to_standings_ms"] >= save["recompute_ms"] > 0

    memory = report["memory"]
    assert memory["peak_rss_mib"] > 10 and memory["bare_aiogram_echo"]["peak_rss_mib"] > 10
    assert set(memory["phases"]) == {"started", "after /rating", "after the game entry"}
    assert memory["rating_calls"] > 0 and memory["entry_actions"] == 3
    assert memory["api_errors"] == []

    goals = {goal["name"].split(" <= ")[0]: goal for goal in report["goals"]}
    assert set(goals) == {"per update", "Save -> standings", "peak RSS of python -m bot"} and len(
        report["goals"]
    ) == 4  # Save -> standings at 1,000 and at 10,000 games
    assert all({"name", "figure", "limit", "met"} <= set(goal) for goal in report["goals"])
    assert goals["per update"]["figure"] == m["ratio_to_floor"] > 0
    # The sizes of the goals were not run: not measured, so not met.
    assert goals["Save -> standings"]["figure"] is None and not goals["Save -> standings"]["met"]
    assert goals["peak RSS of python -m bot"]["figure"] is None
    assert set(report["pace_checks"]) == {"card_at_0.3_s_a_tap"}
    assert sum(line.startswith("goal: ") for line in stdout.splitlines()) == 4

    profile = report["profile"]
    for key in ("sql_statements_per_update", "statement_calls_per_update",
                "db_blocks_per_update", "top_own_time", "db_blocks_by_site"):
        assert profile[key], key

    for heading in ("1. Per-update cost", "2. Save -> recomputed standings",
                    "3. Peak memory", "Profile of the per-update stream"):
        assert heading in stdout, heading


@pytest.mark.timeout(120)
def test_many_tables_bench_reports_every_figure() -> None:
    """``python -m bench.pace --tables`` at two tables: every action shown and answered."""
    argv = [sys.executable, "-m", "bench.pace", "--tables", "2", "--rtt", "0.05",
            "--games", "1", "--after-card"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=110)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    report = json.loads(done.stdout)
    assert report["tables"] == 2 and report["games_saved"] == 2
    assert report["actions"] > 20 and report["429s"] == 0
    for key in ("tap_to_card_p50_s", "tap_to_card_p95_s", "answer_p95_s"):
        assert report[key] > 0, key
