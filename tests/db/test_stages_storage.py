"""Storage of stages (schema v9, RULES.md D13-D17)."""

from __future__ import annotations

import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest

from bot.db import MIGRATIONS, Database
from bot.db import stages as stages_db
from bot.db.games import save_game
from bot.db.stages import StageSpec
from bot.db.tournaments import TournamentRow
from tests.db.helpers import ENDED, JUDGE, make_draft


async def test_v9_keeps_old_games_in_the_first_stage_d13(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    old = await Database.open(path, migrations=MIGRATIONS[:8])
    await old.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Cup', 4, 1, 0)"
    )
    await old.close()
    db = await Database.open(path)
    try:
        assert await db.fetchval("SELECT count(*) FROM stages") == 0
        assert await db.fetchval("SELECT count(*) FROM stage_entrants") == 0
        columns = "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'stage'"
        assert await db.fetchval(columns) == 1
    finally:
        await db.close()


async def test_a_game_without_stages_has_no_stage_d13(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        game_id = await save_game(conn, tournament.id, make_draft(players), JUDGE, ENDED)
        assert await stages_db.game_stages(conn, tournament.id) == {game_id: 1}
    assert await db.fetchval("SELECT stage FROM games WHERE id = ?", (game_id,)) is None


async def test_stages_in_order_exact_factors_and_the_current_stage_d15(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        first = await stages_db.add_stage(
            conn, tournament.id, StageSpec("1", 10, None), status="running"
        )
        spec = StageSpec("2", 4, 10, carry="0.5", compensation=False, hidden=True)
        final = await stages_db.add_stage(conn, tournament.id, spec)
        listed = await stages_db.list_stages(conn, tournament.id)
    assert [s.number for s in listed] == [1, 2]
    assert final.rules.carry == Fraction(1, 2) and final.rules.compensation is False
    assert final.hidden and final.status == "planned"
    assert stages_db.current_stage(listed) == first
    async with db.transaction() as conn:
        await stages_db.set_status(conn, first.id, "closed")
        await stages_db.set_status(conn, final.id, "running")
        for player in players[:10]:
            await stages_db.add_entrant(conn, final.id, player, "cut")
        game_id = await save_game(conn, tournament.id, make_draft(players), JUDGE, ENDED)
        assert await stages_db.game_stages(conn, tournament.id) == {game_id: 2}
        assert await stages_db.games_of_stage(conn, tournament.id, 2) == 1
        listed = await stages_db.list_stages(conn, tournament.id)
    assert stages_db.current_stage(listed) is not None
    assert listed[0].closed_at is not None


async def test_entrants_record_how_they_entered_d13(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        await stages_db.add_stage(conn, tournament.id, StageSpec("1", 10, None), status="running")
        final = await stages_db.add_stage(conn, tournament.id, StageSpec("2", 2, 2))
        await stages_db.add_entrant(conn, final.id, players[0], "cut")
        await stages_db.add_entrant(conn, final.id, players[2], "replacement", players[1])
        found = await stages_db.entrants_of(conn, final.id)
    assert {(e.player_id, e.entered, e.replaced) for e in found} == {
        (players[0], "cut", None),
        (players[2], "replacement", players[1]),
    }
    with pytest.raises(sqlite3.IntegrityError):  # a replacement names whom he replaces
        async with db.transaction() as conn:
            await stages_db.add_entrant(conn, final.id, players[3], "replacement")


async def test_the_first_stage_has_no_entrant_count_d13(
    db: Database, tournament: TournamentRow
) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        async with db.transaction() as conn:
            await stages_db.add_stage(conn, tournament.id, StageSpec("1", 10, 20))
