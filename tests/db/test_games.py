"""Games, approvals, protests and lots."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import timedelta

import pytest

from bot.db import Database
from bot.db.errors import (
    AlreadyDecided,
    DuplicateTable,
    GameAnnulled,
    InvalidDraft,
    InvalidLot,
    NotSeated,
    ProtestTooLate,
)
from bot.db.games import (
    GameDraft,
    SeatDraft,
    add_game,
    annul_game,
    approvals_for_game,
    decide_approval,
    games_of_player,
    get_game,
    get_game_by_draft,
    list_games,
    next_free_round_table,
    pending_approvals,
    require_game,
    save_game,
    set_approval_messages,
    update_game,
)
from bot.db.lots import lots_for_tournament, record_lot
from bot.db.players import add_player
from bot.db.protests import add_protest, decide_protest, open_protests, protests_for_game
from bot.db.tournaments import TournamentRow, create_tournament
from scoring.model import Result, Role
from tests.db.helpers import CHIEF, ENDED, JUDGE, make_draft


async def save(db: Database, tournament: TournamentRow, draft: GameDraft) -> int:
    async with db.transaction() as conn:
        return await save_game(conn, tournament.id, draft, JUDGE, ENDED)


async def test_save_and_read_back(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    draft = make_draft(
        players,
        result=Result.BLACK,
        day1_voted_out=1,
        first_killed=1,
        best_move=(2, 7, 9),
        extras={3: 30, 6: 25},
    )
    draft = replace(
        draft,
        seats=(
            *draft.seats[:7],
            SeatDraft(players[7], Role.CIVILIAN, disqualified=True, penalties=("8.5.1",)),
            *draft.seats[8:],
        ),
    )
    gid = await save(db, tournament, draft)
    async with db.read() as conn:
        game = await require_game(conn, gid)
    assert game.code == "R1-T1" and game.status == "final"
    assert game.ended_at == ENDED and game.protest_deadline == ENDED + timedelta(minutes=10)
    assert game.best_move == (2, 7, 9) and game.first_killed == 1 and game.day1_voted_out == 1
    assert game.result is Result.BLACK
    assert [s.nickname for s in game.seats] == [f"P{i}" for i in range(1, 11)]
    assert game.seat(8).disqualified and game.seat(8).penalties == ("8.5.1",)
    assert (game.seat(3).judge_extra, game.seat(6).judge_extra) == (30, 25)
    assert game.to_draft() == draft


async def test_a_new_game_is_returned_as_stored(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    """The Save uses the record ``add_game`` returns without reading it back: it is the
    game as stored, with the approvals it requested (D7); saved again, the same."""
    draft = make_draft(
        players, result=Result.DRAW, day1_voted_out=2, first_killed=4, extras={2: 70, 5: 30}
    )
    draft = replace(
        draft,
        best_move_hint=True,
        seats=(
            *draft.seats[:9],
            SeatDraft(players[9], Role.CIVILIAN, disqualified=True, penalties=("8.5.1", "8.5.2")),
        ),
    )
    async with db.transaction() as conn:
        added = await add_game(conn, tournament.id, draft, JUDGE, ENDED)
        again = await add_game(conn, tournament.id, draft, JUDGE, ENDED)
    async with db.read() as conn:
        stored = await require_game(conn, added.record.id)
        approvals = await approvals_for_game(conn, stored.id)
    assert added.fresh and added.record == stored and stored.status == "pending"
    assert added.approvals == tuple(approvals) and [a.seat for a in approvals] == [2]
    assert not added.staged
    assert not again.fresh and again.record == stored and again.approvals == ()


async def test_same_draft_twice_is_one_game(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    draft = make_draft(players, draft_id="conv-1")
    first = await save(db, tournament, draft)
    second = await save(db, tournament, draft)
    assert first == second
    assert await db.fetchval("SELECT count(*) FROM games") == 1
    assert await db.fetchval("SELECT count(*) FROM game_seats") == 10
    async with db.read() as conn:
        assert (await get_game_by_draft(conn, "conv-1")).id == first  # type: ignore[union-attr]


async def test_same_round_table_twice_is_refused(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    first = await save(db, tournament, make_draft(players))
    with pytest.raises(DuplicateTable) as info:
        await save(db, tournament, make_draft(players))
    assert (info.value.round, info.value.table_no, info.value.game_id) == (1, 1, first)
    assert await db.fetchval("SELECT count(*) FROM games") == 1
    # The unique index backs the check even for a raw insert.
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute(
            "INSERT INTO games (tournament_id, round, table_no, result, judge_id, draft_id,"
            " ended_at, created_at, updated_at) VALUES (?, 1, 1, 'red', 1, 'raw', 0, 0, 0)",
            (tournament.id,),
        )


async def test_annulled_game_frees_its_table(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    first = await save(db, tournament, make_draft(players))
    async with db.transaction() as conn:
        annulled = await annul_game(conn, first, annulled_by=CHIEF, reason="wrong table")
        assert annulled.status == "annulled" and annulled.annul_reason == "wrong table"
        assert (await annul_game(conn, first, annulled_by=CHIEF)) == annulled
        second = await save_game(conn, tournament.id, make_draft(players), JUDGE, ENDED)
        assert [g.id for g in await list_games(conn, tournament.id)] == [second]
        assert [g.id for g in await list_games(conn, tournament.id, include_annulled=True)] == [
            first,
            second,
        ]
        with pytest.raises(GameAnnulled):
            await update_game(conn, first, make_draft(players))
        assert [g.id for g in await games_of_player(conn, players[0])] == [second]


async def test_update_game(db: Database, tournament: TournamentRow, players: list[int]) -> None:
    gid = await save(db, tournament, make_draft(players, draft_id="original"))
    await save(db, tournament, make_draft(players, table_no=2))
    swapped = [players[10], *players[1:10]]  # P11 replaces P1
    async with db.transaction() as conn:
        fixed = await update_game(conn, gid, make_draft(swapped, result=Result.BLACK))
        assert fixed.result is Result.BLACK and fixed.seat(1).nickname == "P11"
        assert fixed.draft_id == "original" and fixed.ended_at == ENDED
        with pytest.raises(DuplicateTable):
            await update_game(conn, gid, make_draft(players, table_no=2))
    assert await db.fetchval("SELECT count(*) FROM game_seats WHERE game_id = ?", (gid,)) == 10


async def test_next_free_round_table(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.read() as conn:
        assert await next_free_round_table(conn, tournament.id) == (1, 1)
    await save(db, tournament, make_draft(players))
    async with db.read() as conn:
        assert await next_free_round_table(conn, tournament.id) == (2, 1)
        assert await next_free_round_table(conn, tournament.id, tables=2) == (1, 2)
    await save(db, tournament, make_draft(players, round_no=1, table_no=3))
    async with db.read() as conn:
        assert await next_free_round_table(conn, tournament.id) == (1, 2)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seats": ()}, "10 seats"),
        ({"round": 0}, "start at 1"),
        ({"first_killed": 11}, "first_killed"),
        ({"best_move": (2, 3)}, "needs the first-killed"),
        ({"first_killed": 2, "best_move": (2, 3)}, "own seat"),
        ({"first_killed": 1, "best_move": (2, 2)}, "twice"),
        ({"first_killed": 1, "best_move": (2, 3, 4, 5)}, "at most 3"),
        ({"result": "purple"}, "unknown result"),
        ({"draft_id": ""}, "draft_id"),
    ],
)
def test_invalid_drafts(players: list[int], change: dict[str, object], message: str) -> None:
    good = make_draft(list(range(1, 11)))
    with pytest.raises(InvalidDraft, match=message):
        replace(good, **change)  # type: ignore[arg-type]


def test_invalid_seats() -> None:
    good = make_draft(list(range(1, 11)))
    with pytest.raises(InvalidDraft, match="two seats"):
        replace(good, seats=(*good.seats[:9], replace(good.seats[9], player_id=1)))
    with pytest.raises(InvalidDraft, match="roles must be"):
        replace(good, seats=(*good.seats[:9], replace(good.seats[9], role=Role.MAFIA)))
    with pytest.raises(InvalidDraft, match="penalty"):
        SeatDraft(1, Role.CIVILIAN, penalties=("8.6",))
    with pytest.raises(InvalidDraft, match="out of"):
        SeatDraft(1, Role.CIVILIAN, judge_extra=101)
    with pytest.raises(InvalidDraft, match="role"):
        SeatDraft(1, "werewolf")  # type: ignore[arg-type]
    # Values from FSM JSON are normalised.
    seat = SeatDraft(1, "don", penalties=["8.5.4"])  # type: ignore[arg-type]
    assert seat.role is Role.DON and seat.penalties == ("8.5.4",)


async def test_players_must_be_confirmed_members(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        pending = await add_player(conn, tournament.id, "Newbie")
        other = await create_tournament(conn, title="Other", distance=3, created_by=CHIEF)
        stranger = await add_player(conn, other.id, "Stranger", status="confirmed")
    for intruder, message in ((pending.id, "not confirmed"), (stranger.id, "not in this")):
        with pytest.raises(InvalidDraft, match=message):
            await save(db, tournament, make_draft([intruder, *players[1:10]]))
    assert await db.fetchval("SELECT count(*) FROM games") == 0


async def test_schema_refuses_a_seat_of_another_tournament(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    gid = await save(db, tournament, make_draft(players))
    async with db.transaction() as conn:
        other = await create_tournament(conn, title="Other", distance=3, created_by=CHIEF)
        stranger = await add_player(conn, other.id, "Stranger", status="confirmed")
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute(
            "UPDATE game_seats SET player_id = ? WHERE game_id = ? AND seat = 1",
            (stranger.id, gid),
        )
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute("UPDATE game_seats SET seat = 11 WHERE game_id = ? AND seat = 1", (gid,))
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute("UPDATE game_seats SET role = 'werewolf' WHERE game_id = ?", (gid,))


# Approvals (D7)


async def test_extra_points_above_half_wait_for_the_chief(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    gid = await save(db, tournament, make_draft(players, extras={1: 70, 3: 60, 4: 50}))
    async with db.transaction() as conn:
        game = await require_game(conn, gid)
        assert game.status == "pending"
        pending = await pending_approvals(conn, tournament.id)
        assert [(a.seat, a.requested, a.player_id) for a in pending] == [
            (1, 70, players[0]),
            (3, 60, players[2]),
        ]
        await set_approval_messages(conn, pending[0].id, [(CHIEF, 501)])
        approved = await decide_approval(conn, pending[0].id, decided_by=CHIEF)
        assert approved.status == "approved" and approved.granted == 70
        assert approved.messages == ((CHIEF, 501),)
        with pytest.raises(AlreadyDecided):
            await decide_approval(conn, pending[0].id, decided_by=CHIEF)
        assert (await require_game(conn, gid)).status == "pending"
        with pytest.raises(ValueError):
            await decide_approval(conn, pending[1].id, decided_by=CHIEF, lowered_to=60)
        lowered = await decide_approval(conn, pending[1].id, decided_by=CHIEF, lowered_to=50)
        assert lowered.status == "lowered" and lowered.granted == 50
        game = await require_game(conn, gid)
    assert game.status == "final"
    assert game.seat(1).chief_approved and game.seat(1).judge_extra == 70
    assert not game.seat(3).chief_approved and game.seat(3).judge_extra == 50


async def test_correction_keeps_only_matching_approvals(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    draft = make_draft(players, extras={1: 70, 2: 60, 3: 60})
    gid = await save(db, tournament, draft)
    async with db.transaction() as conn:
        first, second, _ = await approvals_for_game(conn, gid)
        await decide_approval(conn, first.id, decided_by=CHIEF)
        # Seat 1 unchanged (approval kept), seat 2 unchanged (request kept),
        # seat 3 raised to 0.7 (new request).
        fixed = await update_game(
            conn, gid, make_draft(players, extras={1: 70, 2: 60, 3: 70}, result=Result.BLACK)
        )
        assert fixed.status == "pending" and fixed.seat(1).chief_approved
        states = [(a.seat, a.requested, a.status) for a in await approvals_for_game(conn, gid)]
        assert states == [
            (1, 70, "approved"),
            (2, 60, "pending"),
            (3, 60, "superseded"),
            (3, 70, "pending"),
        ]
        # The chief's approval is for a player, not for a seat: another player there voids it.
        swapped = [players[10], *players[1:10]]
        fixed = await update_game(conn, gid, make_draft(swapped, extras={1: 70}))
        assert not fixed.seat(1).chief_approved and fixed.status == "pending"
        await annul_game(conn, gid, annulled_by=CHIEF)
        assert await pending_approvals(conn, tournament.id) == []
        with pytest.raises(AlreadyDecided):
            await decide_approval(conn, second.id, decided_by=CHIEF)


# Protests (8.8, D11)


async def test_protest_window_and_seating(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    gid = await save(db, tournament, make_draft(players))
    async with db.transaction() as conn:
        on_time = await add_protest(
            conn, gid, players[0], 5, "  vote was miscounted ", ENDED + timedelta(minutes=10)
        )
        assert on_time.status == "open" and on_time.text == "vote was miscounted"
        with pytest.raises(ProtestTooLate) as info:
            await add_protest(conn, gid, players[1], 6, "late", ENDED + timedelta(seconds=601))
        assert info.value.deadline == ENDED + timedelta(minutes=10)
        with pytest.raises(NotSeated):
            await add_protest(conn, gid, players[11], 7, "I was not there", ENDED)
        assert [p.id for p in await open_protests(conn, tournament.id)] == [on_time.id]
        decided = await decide_protest(
            conn, on_time.id, "rejected", decided_by=CHIEF, decision="video shows 5 votes"
        )
        assert decided.status == "rejected" and decided.decided_by == CHIEF
        with pytest.raises(AlreadyDecided):
            await decide_protest(conn, on_time.id, "upheld", decided_by=CHIEF)
        assert await open_protests(conn, tournament.id) == []
    assert await db.fetchval("SELECT count(*) FROM protests") == 1


async def test_same_message_files_one_protest(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    gid = await save(db, tournament, make_draft(players))
    async with db.transaction() as conn:
        args = (gid, players[0], 5, "text", ENDED)
        first = await add_protest(conn, *args, source_chat_id=5, source_message_id=9)
        again = await add_protest(conn, *args, source_chat_id=5, source_message_id=9)
        assert first == again
        assert len(await protests_for_game(conn, gid)) == 1


# Lots (8.7.5, D12)


async def test_lots_are_drawn_once(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    a, b, c = players[:3]
    async with db.transaction() as conn:
        lot = await record_lot(conn, tournament.id, [c, a, b], drawn_by=CHIEF)
        assert lot.order == (c, a, b) and lot.group == tuple(sorted((a, b, c)))
        again = await record_lot(conn, tournament.id, [a, b, c], drawn_by=CHIEF)
        assert again == lot
        await record_lot(conn, tournament.id, [b, a], drawn_by=CHIEF)
        assert len(await lots_for_tournament(conn, tournament.id)) == 2
        with pytest.raises(InvalidLot):
            await record_lot(conn, tournament.id, [a], drawn_by=CHIEF)
        with pytest.raises(InvalidLot):
            await record_lot(conn, tournament.id, [a, a], drawn_by=CHIEF)
        with pytest.raises(InvalidLot):
            await record_lot(conn, tournament.id, [a, 99999], drawn_by=CHIEF)


async def test_get_game_missing(db: Database) -> None:
    async with db.read() as conn:
        assert await get_game(conn, 1) is None
