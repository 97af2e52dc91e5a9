"""The export of a tournament of stages (RULES.md D13-D16; scoring-contract.md,
"Stages"): ``python -m scoring standings`` on it reproduces the bot's figures for
every stage and the final standings."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from openpyxl import load_workbook

from bot.db import lots
from bot.db import stages as stages_db
from bot.db.connection import Database
from bot.db.stages import StageSpec
from bot.reads.standings import StandingsService
from scoring import cut
from scoring.cli import staged_json
from tests.test_export import export_files, run_cli
from tests.test_publishing import CHIEF, draft, make_tournament, save


async def _staged_tournament(db: Database) -> int:
    """20 players: a qualifying of 2 games each, then a final of the top 10 (carry 0.5,
    no compensation, hidden) where the 10th withdrew and the 11th took his place."""
    t, ids = await make_tournament(db, players_count=20)
    async with db.transaction() as conn:
        first = await stages_db.add_stage(
            conn, t.id, StageSpec("qualifying", 2, None), status="running"
        )
        spec = StageSpec("final", 2, 10, carry="0.5", compensation=False, hidden=True)
        final = await stages_db.add_stage(conn, t.id, spec)
    await save(
        db, t.id, draft(1, 1, ids[0:10], first_killed=3, best_move=(8, 9, 10), extras={1: 30})
    )
    await save(db, t.id, draft(1, 2, ids[10:20], result="black", first_killed=1))
    await save(db, t.id, draft(2, 1, ids[5:15], result="draw", first_killed=5))
    await save(db, t.id, draft(2, 2, [*ids[15:20], *ids[0:5]], extras={2: 40}))
    service = StandingsService(db)
    by_name = dict(zip([f"Игрок {i}" for i in range(1, 21)], ids, strict=True))
    while (taken := cut((await service.get(t.id)).standings, 10)).tied:  # the lot (8.7.5)
        async with db.transaction() as conn:
            order = [by_name[name] for name in taken.tied]
            await lots.record_lot(conn, t.id, order, drawn_by=CHIEF)
        service.invalidate(t.id)
    rows = (await service.get(t.id)).standings.rows
    entrants = [by_name[row.player] for row in rows[:9]]
    out, into = by_name[rows[9].player], by_name[rows[10].player]
    async with db.transaction() as conn:
        await stages_db.set_status(conn, first.id, "closed")
        await stages_db.set_status(conn, final.id, "running")
        for pid in entrants:
            await stages_db.add_entrant(conn, final.id, pid, "cut")
        await stages_db.add_entrant(conn, final.id, into, "replacement", out)
    await save(db, t.id, draft(3, 1, [*entrants, into], first_killed=2))
    return t.id


async def test_d13_d16_the_export_of_stages_recomputes_every_stage_through_the_cli(
    db: Database, tmp_path: Path
) -> None:
    tid = await _staged_tournament(db)
    files = await export_files(db, tid)
    document = json.loads(files[f"tournament-{tid}.json"])
    assert [stage["id"] for stage in document["stages"]] == ["qualifying", "final"]
    final = document["stages"][1]
    assert (final["entrants"], final["carry"], final["compensation"]) == (10, "0.5", False)
    assert len(final["replaced"]) == 1
    assert [game["stage"] for game in document["games"]][-1] == "final"
    path = tmp_path / "t.json"
    path.write_bytes(files[f"tournament-{tid}.json"])

    done = run_cli("scoring", "standings", str(path))

    assert done.returncode == 0, done.stderr
    ours = (await StandingsService(db).get(tid)).stage
    assert ours is not None
    assert json.loads(done.stdout) == json.loads(staged_json(ours.staged))


async def test_d16_the_standings_csv_of_stages_lists_the_final_standings(db: Database) -> None:
    tid = await _staged_tournament(db)
    files = await export_files(db, tid)
    text = files[f"standings-{tid}.csv"].decode("utf-8-sig")
    ours = (await StandingsService(db).get(tid)).stage
    assert ours is not None
    players = [line.split(",")[1] for line in text.splitlines()[1:]]
    assert players == [row.player for row in ours.staged.final.rows]


async def test_d15_d16_the_xlsx_of_stages_has_the_final_standings_and_a_sheet_per_stage(
    db: Database,
) -> None:
    """The first sheet is the final standings (D16); each stage's sheet its standings by
    D15, the points carried from the stage before (carry 0.5 in the final) apart."""
    tid = await _staged_tournament(db)
    raw = (await export_files(db, tid))[f"standings-{tid}.xlsx"]
    book = load_workbook(io.BytesIO(raw))
    assert book.sheetnames == ["Итоговый рейтинг", "1. отбор", "2. финал", "Игры"]
    ours = (await StandingsService(db).get(tid)).stage
    assert ours is not None
    final = list(book["Итоговый рейтинг"].iter_rows(values_only=True))
    assert [row[1] for row in final[1:]] == [row.player for row in ours.staged.final.rows]

    qualifying, in_final = (
        list(book[name].iter_rows(values_only=True)) for name in book.sheetnames[1:3]
    )
    assert in_final[0][:5] == ("Место", "Игрок", "Итог", "Перенесено", "Этот этап")
    first_stage, final_stage = ours.staged.stages
    assert [row[:2] for row in qualifying[1:]] == [
        (row.place, row.player) for row in first_stage.standings.rows
    ]
    assert all(row[3] == 0 for row in qualifying[1:])  # nothing carried into the first
    brought = {row.player: row.total for row in first_stage.standings.rows}
    assert len(in_final) == 1 + 10
    for cells, row in zip(in_final[1:], final_stage.standings.rows, strict=True):
        assert cells[:2] == (row.place, row.player)
        assert cells[2] == pytest.approx(float(row.total))
        assert cells[3] == pytest.approx(float(brought[row.player] / 2))
        assert cells[4] == pytest.approx(float(row.total - brought[row.player] / 2))
        assert cells[11] == row.games
    played = [cells for cells in in_final[1:] if cells[11]]
    assert played and any(cells[4] for cells in played)  # the final's own points


async def test_the_xlsx_without_stages_keeps_its_sheets(db: Database) -> None:
    t, _ids = await make_tournament(db, players_count=10)
    raw = (await export_files(db, t.id))[f"standings-{t.id}.xlsx"]
    assert load_workbook(io.BytesIO(raw)).sheetnames == ["Рейтинг", "Игры"]
