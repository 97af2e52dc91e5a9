"""The export of a tournament of stages (RULES.md D13-D16; scoring-contract.md,
"Stages"): ``python -m scoring standings`` on it reproduces the bot's figures for
every stage and the final standings."""

from __future__ import annotations

import json
from pathlib import Path

from bot.db import lots
from bot.db import stages as stages_db
from bot.db.connection import Database
from bot.db.stages import StageSpec
from bot.standings import StandingsService
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
