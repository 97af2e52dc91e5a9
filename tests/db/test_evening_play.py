"""Playing a club evening, the use cases alone (bot.services.evening_play): attendance,
the start as a tournament of kind 'evening', the next game as a round of its plan with
the seating posts, the close with the final post; protests off unless the club allows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.db import games as games_db
from bot.db import outbox
from bot.db import players as players_db
from bot.db import staff as staff_db
from bot.db.clubs import ClubRow, club_for_chat
from bot.db.connection import Database, fetch_all, fetch_val
from bot.db.evening_play import protests_on
from bot.publishing import Publisher
from bot.reads.standings import StandingsService
from bot.reads.stored_plans import load_accepted
from bot.services import Refusal
from bot.services import evening_play as play
from tests.db.helpers import make_draft
from tests.support.club_rows import add_evening, club_with_evening

CHAT = -500
OWNER, HOST = 1, 2
NAMES = [f"P{n:02}" for n in range(23)]


async def here(db: Database) -> ClubRow:
    """The club of the group, as the host's filter hands it to the use cases."""
    async with db.read() as conn:
        club = await club_for_chat(conn, CHAT)
    assert club is not None
    return club


@pytest.fixture
def publisher(db: Database) -> Publisher:
    return Publisher(db, StandingsService(db))


async def _started(db: Database, publisher: Publisher, count: int = 23) -> play.Started:
    await club_with_evening(
        db, chat_id=CHAT, owner=OWNER, hosts=[HOST], signed=NAMES[:count], present=True,
        users={"P00": 100, "P01": 101},
    )
    started = await play.start(db, publisher, await here(db), HOST)
    assert isinstance(started, play.Started)
    return started


async def _enter_round(db: Database, tid: int, round_no: int) -> None:
    """The judge enters the round's games as the plan seats them."""
    async with db.transaction() as conn:
        plan = await load_accepted(conn, tid)
        assert plan is not None
        for t in plan.tables_by_round()[round_no]:
            seats = plan.seats_at(round_no, t)
            assert seats is not None
            await games_db.save_game(
                conn, tid, make_draft(seats, round_no=round_no, table_no=t), OWNER,
                datetime(2025, 3, 14, 20, round_no, tzinfo=UTC),
            )


async def test_presence_taps_and_a_latecomer(db: Database) -> None:
    club = await club_with_evening(db, chat_id=CHAT, owner=OWNER, hosts=[HOST], signed=NAMES[:3])
    listed = await play.attendance(db, club.row)
    assert isinstance(listed, play.Attendance)
    assert [a.name for a in listed.people] == NAMES[:3] and listed.present == 0
    ann = club.signups["P00"]
    tapped = await play.toggle(db, club.row, HOST, club.evening_id, ann)
    assert isinstance(tapped, play.Attendance) and tapped.present == 1
    again = await play.toggle(db, club.row, HOST, club.evening_id, ann)
    assert isinstance(again, play.Attendance)
    assert again.people[0].presence == "absent"  # not started: absent, not left
    late = await play.add_latecomer(db, club.row, HOST, "  Late  Comer ")
    assert isinstance(late, play.Attendance)
    assert late.people[-1].name == "Late Comer" and late.people[-1].present
    same = await play.add_latecomer(db, club.row, HOST, "p01")
    assert isinstance(same, play.Attendance) and len(same.people) == 4
    assert same.people[1].present


async def test_stale_taps_and_bad_input_are_refused(db: Database, publisher: Publisher) -> None:
    club = await club_with_evening(db, chat_id=CHAT, owner=OWNER, hosts=[HOST], signed=NAMES[:9],
                                   present=True)
    assert await play.toggle(db, club.row, HOST, club.evening_id + 1, 1) == play.OUT_OF_DATE
    refused = await play.start(db, publisher, club.row, OWNER)
    assert isinstance(refused, Refusal) and refused.params == {"count": 9}
    assert await play.suggest_next(db, club.row) == play.NOT_RUNNING
    assert await play.close(db, publisher, club.row, OWNER) == play.NOT_RUNNING
    bad = await play.add_latecomer(db, club.row, OWNER, "   ")
    assert isinstance(bad, Refusal)


async def test_start_makes_an_evening_tournament(db: Database, publisher: Publisher) -> None:
    started = await _started(db, publisher)
    tid = started.tournament.id
    assert started.tournament.status == "running" and started.players == 23
    assert started.tournament.title == "Mafia Club 14.03.2025"
    async with db.read() as conn:
        assert await fetch_val(conn, "SELECT kind FROM tournaments WHERE id = ?", (tid,)) == (
            "evening"
        )
        assert await staff_db.staff_role(conn, tid, OWNER) == "chief"
        assert await staff_db.staff_role(conn, tid, HOST) == "judge"
        everyone = await players_db.list_players(conn, tid, status="confirmed")
        assert [p.nickname for p in everyone] == NAMES
        assert everyone[0].user_id == 100
        status = await fetch_val(conn, "SELECT status FROM evenings WHERE tournament_id = ?",
                                 (tid,))
        assert status == "running"
        assert not await protests_on(conn, tid)
    assert await play.start(db, publisher, await here(db), OWNER) == play.ALREADY_RUNNING


async def test_start_refused_while_a_tournament_runs_in_the_group(
    db: Database, publisher: Publisher
) -> None:
    from tests.handlers.tournament_fixtures import running_tournament

    await running_tournament(db, chief_id=OWNER, chat_id=CHAT)
    await club_with_evening(db, chat_id=CHAT, owner=OWNER, signed=NAMES[:10], present=True)
    refused = await play.start(db, publisher, await here(db), OWNER)
    assert isinstance(refused, Refusal) and "unfinished tournament" in refused.msgid


async def test_next_games_are_rounds_of_the_plan_with_posts(
    db: Database, publisher: Publisher
) -> None:
    started = await _started(db, publisher)
    tid = started.tournament.id
    shown = await play.suggest_next(db, await here(db), seed=7)
    assert isinstance(shown, play.Suggestion)
    assert shown.game.round == 1 and len(shown.game.tables) == 2
    assert len(shown.game.sitting_out) == 3
    taken = await play.accept_next(db, await here(db), HOST, 1, 7)
    assert isinstance(taken, play.Suggestion) and taken.game == shown.game
    async with db.read() as conn:
        plan = await load_accepted(conn, tid)
        rows = await outbox.pending(conn, tid)
    assert plan is not None and plan.tables_by_round() == {1: {1, 2}}
    assert [r.kind for r in rows if r.round == 1].count("seating") == 1
    assert {r.player_id for r in rows if r.kind == "seat"} <= set(plan.ids.values())
    # the next game waits for this one's tables
    refused = await play.suggest_next(db, await here(db), seed=8)
    assert isinstance(refused, Refusal) and refused.params["tables"] == "1, 2"
    assert await play.accept_next(db, await here(db), HOST, 1, 7) != taken  # posted already
    await _enter_round(db, tid, 1)
    second = await play.accept_next(db, await here(db), HOST, 2, 8)
    assert isinstance(second, play.Suggestion)
    # the three who sat out play the second game
    seated = {n for t in second.game.tables for n in t.seats}
    assert set(shown.game.sitting_out) <= seated
    async with db.read() as conn:
        assert await fetch_val(conn, "SELECT distance FROM tournaments WHERE id = ?", (tid,)) == 2


async def test_a_leaver_sits_out_and_a_latecomer_plays(
    db: Database, publisher: Publisher
) -> None:
    started = await _started(db, publisher, count=20)
    tid = started.tournament.id
    assert isinstance(await play.accept_next(db, await here(db), HOST, 1, 1), play.Suggestion)
    await _enter_round(db, tid, 1)
    listed = await play.attendance(db, await here(db))
    assert isinstance(listed, play.Attendance)
    leaver = listed.people[0]
    left = await play.toggle(db, await here(db), HOST, listed.evening.id, leaver.id)
    assert isinstance(left, play.Attendance) and left.people[0].presence == "left"
    assert isinstance(await play.add_latecomer(db, await here(db), HOST, "Late"), play.Attendance)
    game = await play.suggest_next(db, await here(db), seed=2)
    assert isinstance(game, play.Suggestion)
    seated = {n for t in game.game.tables for n in t.seats}
    assert "Late" in seated and leaver.name not in seated


async def test_close_posts_the_table_and_a_guest_keeps_his_person(
    db: Database, publisher: Publisher
) -> None:
    started = await _started(db, publisher, count=10)
    tid = started.tournament.id
    assert isinstance(await play.accept_next(db, await here(db), HOST, 1, 1), play.Suggestion)
    await _enter_round(db, tid, 1)
    closed = await play.close(db, publisher, await here(db), OWNER)
    assert isinstance(closed, play.Closed)
    assert closed.tournament.status == "finished" and closed.games == 1
    assert closed.evening.status == "finished"
    async with db.read() as conn:
        kinds = [r.kind for r in await outbox.pending(conn, tid)]
        assert "final" in kinds
        assert await fetch_val(conn, "SELECT distance FROM tournaments WHERE id = ?", (tid,)) == 1
    # next week the guest comes again: the same person
    async with db.transaction() as conn:
        evening = await add_evening(conn, 1, OWNER)
        for name in NAMES[:10]:
            await conn.execute(
                "INSERT INTO evening_signups (evening_id, name, name_key, presence, added_by,"
                " signed_at, changed_at) VALUES (?, ?, ?, 'present', 1, 1, 1)",
                (evening, name, name.casefold()),
            )
    again = await play.start(db, publisher, await here(db), OWNER)
    assert isinstance(again, play.Started)
    async with db.read() as conn:
        rows = await fetch_all(
            conn, "SELECT DISTINCT person_id FROM players WHERE nickname = 'P05'"
        )
    assert len(rows) == 1


async def test_protests_follow_the_club(db: Database, publisher: Publisher) -> None:
    await club_with_evening(
        db, chat_id=CHAT, owner=OWNER, signed=NAMES[:10], present=True, protests=True
    )
    started = await play.start(db, publisher, await here(db), OWNER)
    assert isinstance(started, play.Started)
    async with db.read() as conn:
        assert await protests_on(conn, started.tournament.id)
