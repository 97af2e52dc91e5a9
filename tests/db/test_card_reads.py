"""What the judge's card reads on every tap (bot/reads/card_reads.py)."""

from __future__ import annotations

import asyncio

from bot.db import Database
from bot.db.players import rename_player
from bot.db.tournaments import TournamentRow, get_tournament
from bot.reads import card_reads


async def _fresh(db: Database, tournament: TournamentRow) -> TournamentRow:
    async with db.read() as conn:
        found = await get_tournament(conn, tournament.id)
    assert found is not None
    return found


async def test_the_roster_is_kept_while_unchanged_and_read_again_after_a_rename(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    t = await _fresh(db, tournament)
    first = await card_reads.roster(db, t)
    assert [p.nickname for p in first] == sorted(f"P{i}" for i in range(1, 13))

    # Kept: a tap while another update holds the database (its write on its way) shows
    # the card without waiting for it.
    held, release = asyncio.Event(), asyncio.Event()

    async def writer() -> None:
        async with db.transaction():
            held.set()
            await release.wait()

    task = asyncio.create_task(writer())
    await held.wait()
    again = await asyncio.wait_for(card_reads.roster(db, t), timeout=5)
    release.set()
    await task
    assert again is first

    async with db.transaction() as conn:
        await rename_player(conn, players[0], "Zed")
    renamed = await _fresh(db, tournament)
    assert renamed.roster_version != t.roster_version
    assert "Zed" in [p.nickname for p in await card_reads.roster(db, renamed)]
