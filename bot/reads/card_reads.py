"""What the judge's card reads as the judge taps: players, games, approvals, titles.

Plain queries, each in its own read transaction (the card changes nothing until Save,
``bot.services.game_save``); here so that handlers reach data only through
``bot.services``.
"""

from __future__ import annotations

from functools import partial
from weakref import WeakKeyDictionary

from bot.db import games, players, staff, tournaments, users
from bot.db.connection import Database
from bot.db.games import ApprovalRow, GameRecord
from bot.db.players import PlayerRow
from bot.db.scoring_bridge import load_scoring_tournament
from bot.db.tournaments import StaffRole, TournamentRow
from bot.db.users import UserRow
from bot.reads.standings import StandingsService
from scoring import Tournament


async def tournament(db: Database, tournament_id: int) -> TournamentRow | None:
    async with db.read() as conn:
        return await tournaments.get_tournament(conn, tournament_id)


async def titles(db: Database, tournament_ids: list[int]) -> dict[int, str]:
    async with db.read() as conn:
        found = [await tournaments.get_tournament(conn, tid) for tid in tournament_ids]
    return {t.id: t.title for t in found if t is not None}


async def tournament_and_staff_role(
    db: Database, tournament_id: int, user_id: int
) -> tuple[TournamentRow | None, StaffRole | None]:
    """Read afresh (not the cache): the judge picks the tournament he enters a game in."""
    async with db.read() as conn:
        found = await tournaments.get_tournament(conn, tournament_id)
        role = await staff.staff_role(conn, tournament_id, user_id)
    return found, role


# Rosters by database and tournament: (roster_version, players).
_ROSTERS: WeakKeyDictionary[Database, dict[int, tuple[int, tuple[PlayerRow, ...]]]] = (
    WeakKeyDictionary()
)


async def roster(db: Database, of: TournamentRow) -> tuple[PlayerRow, ...]:
    """Every player of the tournament, of every status, in nickname order: the card shows
    it on every tap, so it is kept in memory while the tournament's ``roster_version``
    (read with ``of``, bumped by a trigger on any change of its players) stays the same.
    A kept roster takes no lock: the tap doesn't wait behind another update's write."""
    kept = _ROSTERS.setdefault(db, {})
    found = kept.get(of.id)
    if found is not None and found[0] == of.roster_version:
        return found[1]
    async with db.read() as conn:
        listed = tuple(await players.list_players(conn, of.id))
    kept[of.id] = (of.roster_version, listed)
    return listed


async def roster_player(db: Database, of: TournamentRow, player_id: int) -> PlayerRow | None:
    """One player of the tournament, as its ``roster`` has him (None: not its player)."""
    return next((p for p in await roster(db, of) if p.id == player_id), None)


async def players_of(db: Database, player_ids: list[int]) -> list[PlayerRow]:
    """These players only (the ten of a game), not the tournament's roster."""
    async with db.read() as conn:
        return await players.players_by_id(conn, player_ids)


async def player(db: Database, player_id: int) -> PlayerRow | None:
    async with db.read() as conn:
        return await players.get_player(conn, player_id)


async def player_and_profile(
    db: Database, player_id: int
) -> tuple[PlayerRow | None, UserRow | None]:
    """The player and, when his account is linked, what the bot knows of it."""
    async with db.read() as conn:
        row = await players.get_player(conn, player_id)
        profile = await users.get_user(conn, row.user_id) if row and row.user_id else None
    return row, profile


async def by_nicknames(
    db: Database, tournament_id: int, names: list[str]
) -> list[PlayerRow | None]:
    """The player of each nickname (None where there is none), in one read."""
    async with db.read() as conn:
        return await players.find_players_by_nicknames(conn, tournament_id, names)


async def unreachable(db: Database, user_id: int) -> None:
    """Telegram refused a message to ``user_id``: he is not asked again."""
    async with db.transaction() as conn:
        await users.set_can_message(conn, user_id, False)


async def game(db: Database, game_id: int) -> GameRecord | None:
    async with db.read() as conn:
        return await games.get_game(conn, game_id)


async def games_in(
    db: Database, tournament_id: int, *, round_no: int | None = None, annulled: bool = False
) -> list[GameRecord]:
    """The tournament's games (of one round), in round and table order."""
    async with db.read() as conn:
        return await games.list_games(
            conn, tournament_id, include_annulled=annulled, round=round_no
        )


async def tables_played(db: Database, tournament_id: int) -> list[tuple[int, int, int]]:
    """(game id, round, table) of every game that counts (cached until a change)."""
    return await db.cached(
        ("games.tables_by_round", tournament_id),
        partial(games.tables_by_round, tournament_id=tournament_id),
    )


async def last_judged(db: Database, tournament_id: int, judge_id: int) -> tuple[int, int] | None:
    """(round, table) of the judge's latest game (cached until a change)."""
    return await db.cached(
        ("games.last_judged", tournament_id, judge_id),
        partial(games.last_judged, tournament_id=tournament_id, judge_id=judge_id),
    )


def first_free(stored: list[tuple[int, int, int]]) -> tuple[int, int]:
    """The first round and table with no game, over ``tables_played``."""
    return games.first_free(stored)


async def pending_approvals(db: Database, game_id: int) -> list[ApprovalRow]:
    async with db.read() as conn:
        return [a for a in await games.approvals_for_game(conn, game_id) if a.status == "pending"]


async def scoring_tournament(db: Database, tournament_id: int) -> Tournament:
    """The tournament as the engine sees it, read straight from the database."""
    async with db.read() as conn:
        return await load_scoring_tournament(conn, tournament_id)


async def tournament_model(db: Database, standings: StandingsService, tid: int) -> Tournament:
    """The tournament as the engine sees it (cached standings; a direct read if a stored
    game keeps the standings from being computed)."""
    try:
        return (await standings.get(tid)).tournament
    except Exception:  # an invalid stored game: the model itself is still readable
        return await scoring_tournament(db, tid)
