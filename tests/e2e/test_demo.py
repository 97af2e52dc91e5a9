"""``make demo`` (``python -m tests.demo``), played once: the transcript tells the whole
tournament in order, its standings are those ``python -m scoring standings`` computes
from the export it left, and the pictures and the exports are in the folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.demo.__main__ import main
from tests.demo.run import TRANSCRIPT

from .bot_process import requires_bot
from .scenario import chat_table, scoring_cli

pytestmark = requires_bot

EXPORTS = ("tournament-1.json", "standings-1.csv", "standings-1.xlsx", "protocols-1.md",
           "audit-1.csv")


def test_the_demo_plays_a_tournament_and_leaves_its_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo-output"

    assert main(["--dir", str(out), "--language", "en"]) == 0

    said = capsys.readouterr().out
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
    for name in EXPORTS:
        assert (out / name).stat().st_size > 0, name
        assert str(out / name) in said  # listed at the end
    assert len(json.loads((out / "tournament-1.json").read_text())["games"]) == 2
    assert (out / TRANSCRIPT).read_text(encoding="utf-8").strip() == said.strip()
