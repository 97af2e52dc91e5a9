"""Exports for the chief judge: the tournament JSON recomputes the bot's own
standings through the real ``python -m scoring standings``; CSV and XLSX open and hold
every row; the protocols tell every game; ``python -m bot export`` writes the files."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from openpyxl import load_workbook

import seating
from bot.db import games, lots, players, protests, users
from bot.db import seating as seating_repo
from bot.db.connection import Database
from bot.reads.export import (
    CSV_COLUMNS,
    UnknownTournament,
    build_export,
    decimal_text,
    export_to_dir,
)
from bot.reads.standings import StandingsService
from scoring.cli import standings_json
from tests.test_publishing import CHIEF, I18N, JUDGE, draft, make_tournament, save

ROOT = Path(__file__).resolve().parent.parent
ENDED = datetime(2024, 5, 1, 12, tzinfo=UTC)


@dataclass
class Sample:
    tournament_id: int
    annulled: int
    protested: int


async def sample_tournament(db: Database) -> Sample:
    """Judge's points (approved, pending), best move, Ci, a penalty, a disqualification,
    a draw, an annulled game, protests and a recorded lot."""
    names = ["Ёжик", "Alice | Bob", "Очень длинный ник игрока 32 сим"]
    t, ids = await make_tournament(db, players_count=30, nicknames=names)
    async with db.transaction() as conn:
        await users.upsert_user(conn, JUDGE, first_name="Анна", username="anna_judge")
    r1t1 = await save(
        db, t.id,
        draft(1, 1, ids[0:10], first_killed=3, best_move=(8, 9, 10), extras={1: 30, 7: 70}),
    )
    r1t2 = await save(
        db, t.id,
        draft(1, 2, ids[10:20], result="black", first_killed=1, extras={8: 50},
              penalties={2: ("8.5.1",)}, disqualified=(4,)),
    )
    await save(db, t.id, draft(1, 3, ids[20:30], result="draw", first_killed=5))
    await save(db, t.id, draft(2, 1, ids[5:15], extras={2: 60}))  # pending (D7)
    annulled = await save(db, t.id, draft(2, 2, ids[15:25], result="black"))
    async with db.transaction() as conn:
        (approval,) = await games.approvals_for_game(conn, r1t1)
        await games.decide_approval(conn, approval.id, decided_by=CHIEF)
        await games.annul_game(conn, annulled, annulled_by=CHIEF, reason="стол перепутан")
        filed = ENDED + timedelta(minutes=5)
        p1 = await protests.add_protest(conn, r1t2, ids[11], 9001, "Неверный | подсчёт", filed)
        await protests.decide_protest(conn, p1.id, "rejected", decided_by=CHIEF,
                                      decision="Видео подтверждает протокол")
        await protests.add_protest(conn, r1t2, ids[12], 9002, "Прошу пересмотреть", filed)
    # Draw a lot for the first group still tied.
    standings = (await StandingsService(db).get(t.id)).standings
    tied = standings.ties()[0]
    by_name = {name: pid for pid, name in zip(ids, [*names] + [
        f"Игрок {i}" for i in range(len(names) + 1, 31)], strict=True)}
    async with db.transaction() as conn:
        await lots.record_lot(conn, t.id, [by_name[n] for n in reversed(tied)], drawn_by=CHIEF)
    return Sample(t.id, annulled, r1t2)


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        check=False,
    )


def all_files(paths: list[str]) -> bool:
    return all(Path(p).is_file() for p in paths)


async def export_files(db: Database, tournament_id: int) -> dict[str, bytes]:
    with I18N.context(), I18N.use_locale("ru"):
        return {f.name: f.data for f in await build_export(db, tournament_id)}


async def test_json_round_trip_through_the_scoring_cli(db: Database, tmp_path: Path) -> None:
    sample = await sample_tournament(db)
    files = await export_files(db, sample.tournament_id)
    path = tmp_path / "t.json"
    path.write_bytes(files[f"tournament-{sample.tournament_id}.json"])

    done = run_cli("scoring", "standings", str(path))

    assert done.returncode == 0, done.stderr
    ours = (await StandingsService(db).get(sample.tournament_id)).standings
    assert json.loads(done.stdout) == json.loads(standings_json(ours))
    assert ours.pending_games == ("R2-T1",)  # D7: exported as pending, not counted


async def test_json_follows_the_contract(db: Database) -> None:
    sample = await sample_tournament(db)
    data = json.loads((await export_files(db, sample.tournament_id))[
        f"tournament-{sample.tournament_id}.json"])
    assert data["distance"] == 10 and data["lot"]
    assert [g["id"] for g in data["games"]] == ["R1-T1", "R1-T2", "R1-T3", "R2-T1"]
    first = data["games"][0]
    assert first["judge_extras"] == {"1": "0.3", "7": "0.7"}
    assert first["chief_approved"] == [7]
    assert first["best_move"] == [8, 9, 10] and first["first_killed"] == 3
    assert len(first["seats"]) == 10 and first["seats"][0]["player"] == "Ёжик"
    second = data["games"][1]
    assert second["penalties"] == {"2": ["8.5.1"]} and second["disqualified"] == [4]
    assert data["games"][3]["chief_approved"] == []  # R2-T1 still waits


def test_judge_points_are_exact_decimal_strings() -> None:
    from fractions import Fraction

    assert decimal_text(Fraction(3, 10)) == "0.3"
    assert decimal_text(Fraction(1, 4)) == "0.25"
    assert decimal_text(Fraction(7, 100)) == "0.07"
    assert decimal_text(Fraction(1)) == "1"


async def test_csv_has_bom_header_and_every_player(db: Database) -> None:
    sample = await sample_tournament(db)
    raw = (await export_files(db, sample.tournament_id))[f"standings-{sample.tournament_id}.csv"]
    assert raw.startswith(b"\xef\xbb\xbf")
    table = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    ours = (await StandingsService(db).get(sample.tournament_id)).standings
    assert tuple(table[0]) == CSV_COLUMNS
    assert len(table) == 1 + len(ours.rows)
    top = ours.rows[0]
    assert table[1][:2] == [str(top.place), top.player]
    assert abs(float(table[1][2]) - float(top.total)) <= 0.005
    assert "Alice | Bob" in [row[1] for row in table[1:]]


async def test_xlsx_has_standings_and_every_seat_of_every_game(db: Database) -> None:
    sample = await sample_tournament(db)
    raw = (await export_files(db, sample.tournament_id))[f"standings-{sample.tournament_id}.xlsx"]
    book = load_workbook(io.BytesIO(raw))
    assert book.sheetnames == ["Рейтинг", "Игры"]
    standings_sheet, games_sheet = book["Рейтинг"], book["Игры"]
    ours = (await StandingsService(db).get(sample.tournament_id)).standings
    rows = list(standings_sheet.iter_rows(values_only=True))
    assert rows[0][:3] == ("Место", "Игрок", "Итог")
    assert len(rows) == 1 + len(ours.rows)
    assert rows[1][1] == ours.rows[0].player
    assert rows[1][2] == pytest.approx(float(ours.rows[0].total))
    seats = list(games_sheet.iter_rows(values_only=True))
    assert len(seats) == 1 + 4 * 10  # counted games only
    r1t1 = [row for row in seats[1:] if row[0] == "R1-T1"]
    assert [row[5] for row in r1t1][:2] == ["Ёжик", "Alice | Bob"]
    sheriff = next(row for row in r1t1 if row[4] == 7)
    assert sheriff[6] == "шериф" and sheriff[10] == pytest.approx(0.7) and sheriff[11] == "да"
    pending = next(row for row in seats[1:] if row[0] == "R2-T1" and row[4] == 2)
    assert pending[11] == "ждут утверждения"


async def accept_plan(db: Database, tournament_id: int, ids: list[int]) -> seating.Plan:
    """A 20-player, 2-game plan stored and accepted as /seating would."""
    async with db.read() as conn:
        names = {p.id: p.nickname for p in await players.list_players(conn, tournament_id)}
    data = {"players": [names[i] for i in ids], "tables": 2, "games_per_player": 2, "seed": 3}
    plan = seating.generate(seating.parse_request(data))
    async with db.transaction() as conn:
        offer = await seating_repo.add_offer(
            conn, tournament_id, request=data, player_ids=ids,
            plan=seating.plan_to_dict(plan), base_plan_id=None, created_by=CHIEF,
        )
        await seating_repo.accept_plan(conn, offer.id, accepted_by=CHIEF)
    return plan


async def test_an_accepted_plan_is_a_csv_and_a_sheet_with_nicknames_of_now(
    db: Database,
) -> None:
    t, ids = await make_tournament(db, players_count=20, distance=2)
    plan = await accept_plan(db, t.id, ids)
    async with db.transaction() as conn:
        await players.rename_player(conn, ids[0], "Новое имя")
    files = await export_files(db, t.id)

    table = list(csv.reader(io.StringIO(files[f"seating-{t.id}.csv"].decode("utf-8-sig"))))
    assert table[0] == ["Тур", "Стол", "Место", "Игрок"]
    assert len(table) == 1 + 2 * 2 * 10  # two rounds of two tables of ten
    first = plan.rounds[0].tables[0]
    assert table[1] == ["1", "1", "1", first.seats[0] if first.seats[0] != "Игрок 1"
                        else "Новое имя"]
    assert "Игрок 1" not in {row[3] for row in table[1:]}
    assert sum(row[3] == "Новое имя" for row in table[1:]) == 2
    book = load_workbook(io.BytesIO(files[f"standings-{t.id}.xlsx"]))
    assert book.sheetnames == ["Рейтинг", "Игры", "Рассадка"]
    sheet = [list(r) for r in book["Рассадка"].iter_rows(values_only=True)]
    assert sheet[0] == table[0] and [[str(v) for v in r] for r in sheet[1:]] == table[1:]


async def test_no_plan_no_seating_file(db: Database) -> None:
    t, _ = await make_tournament(db, players_count=20, distance=2)
    assert f"seating-{t.id}.csv" not in await export_files(db, t.id)


async def test_protocols_tell_every_game_with_protests(db: Database) -> None:
    sample = await sample_tournament(db)
    text = (await export_files(db, sample.tournament_id))[
        f"protocols-{sample.tournament_id}.md"].decode()
    for code in ("R1-T1", "R1-T2", "R1-T3", "R2-T1", "R2-T2"):
        assert f"## {code}" in text
    assert "АННУЛИРОВАНА" in text and "стол перепутан" in text
    assert "Анна (@anna_judge)" in text
    assert "Alice \\| Bob" in text  # a nickname can't break the Markdown table
    assert "Неверный \\| подсчёт" in text and "отклонён: Видео подтверждает протокол" in text
    assert "ещё не рассмотрен" in text
    assert "штраф 8.5.1" in text and "дисквалифицирован (8.2.4)" in text
    assert "баллы судьи 0.70 (утверждены главным судьёй)" in text
    assert "Лучший ход: 8 (" in text


async def test_export_to_dir_writes_the_seven_files(db: Database, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sample = await sample_tournament(db)
    written = await export_to_dir(db.path, sample.tournament_id, tmp_path / "out")
    n = sample.tournament_id
    assert [p.name for p in written] == [
        f"tournament-{n}.json", f"standings-{n}.csv", f"standings-{n}.xlsx", f"protocols-{n}.md",
        f"audit-{n}.csv", f"ratings-{n}.csv", f"ratings-input-{n}.json",
    ]
    assert all(p.is_file() and p.stat().st_size > 0 for p in written)
    assert capsys.readouterr().out.split() == [str(p) for p in written]


async def test_export_of_an_unknown_tournament_is_refused(db: Database, tmp_path: Path) -> None:
    with pytest.raises(UnknownTournament):
        await export_to_dir(db.path, 999, tmp_path / "out")
    assert not (tmp_path / "out").exists()


async def test_python_m_bot_export_from_the_shell(db: Database, tmp_path: Path) -> None:
    sample = await sample_tournament(db)
    env = {"DATABASE_PATH": str(db.path)}
    out = tmp_path / "shell"

    done = run_cli("bot", "export", str(sample.tournament_id), str(out), env=env)

    assert done.returncode == 0, done.stderr
    printed = done.stdout.split()
    assert len(printed) == 7 and all_files(printed)
    check = run_cli("scoring", "standings", printed[0])
    assert check.returncode == 0, check.stderr



def test_shell_export_of_unknown_tournament_or_database_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.__main__ import main

    path = tmp_path / "bot.sqlite3"
    asyncio.run(_empty_database(path))
    monkeypatch.setenv("DATABASE_PATH", str(path))
    assert main(["export", "999", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert "tournament 999" in captured.err and captured.out == ""

    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "nope.sqlite3"))
    assert main(["export", "1", str(tmp_path / "out")]) == 2
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "nope.sqlite3").exists()  # not created by the attempt


async def _empty_database(path: Path) -> None:
    await (await Database.open(path)).close()
