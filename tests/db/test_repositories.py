"""Tournaments, users, staff, invites, players, audit."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.db import Database
from bot.db.audit import audit, audit_entries, record
from bot.db.errors import (
    ChatBusy,
    InvalidNickname,
    InvalidTransition,
    InviteInvalid,
    LastChief,
    NicknameTaken,
    PlayerHasGames,
    UserAlreadyPlayer,
)
from bot.db.games import get_game, save_game
from bot.db.invites import create_invite, digest, list_invites, revoke_invite, use_invite
from bot.db.players import (
    add_player,
    confirm_player,
    find_player_by_nickname,
    link_player,
    list_players,
    nickname_key,
    normalize_nickname,
    player_for_user,
    reject_player,
    rename_player,
)
from bot.db.staff import add_staff, list_staff, remove_staff, staff_role
from bot.db.tournaments import (
    TournamentRow,
    create_tournament,
    current_for_chat,
    get_tournament,
    migrate_chat,
    running_tournament_for_chat,
    set_bot_removed,
    set_chat,
    set_standings_message,
    set_status,
    tournaments_for_staff,
)
from bot.db.users import get_user, set_can_message, upsert_user
from tests.db.helpers import CHIEF, ENDED, JUDGE, make_draft

# Tournaments


async def test_create_makes_the_creator_chief(db: Database, tournament: TournamentRow) -> None:
    assert tournament.status == "registration"
    assert tournament.title == "Spring Cup"
    async with db.read() as conn:
        assert await staff_role(conn, tournament.id, CHIEF) == "chief"
        assert await get_tournament(conn, tournament.id) == tournament
        assert await get_tournament(conn, 999) is None


async def test_one_unfinished_tournament_per_chat(db: Database, tournament: TournamentRow) -> None:
    async with db.transaction() as conn:
        with pytest.raises(ChatBusy) as info:
            await create_tournament(conn, title="Second", distance=5, created_by=2, chat_id=-100)
        assert info.value.tournament_id == tournament.id
        await set_status(conn, tournament.id, "running")
        assert (await running_tournament_for_chat(conn, -100)) is not None
        with pytest.raises(ChatBusy):
            await create_tournament(conn, title="Second", distance=5, created_by=2, chat_id=-100)
        await set_status(conn, tournament.id, "finished")
        assert await running_tournament_for_chat(conn, -100) is None
        second = await create_tournament(
            conn, title="Second", distance=5, created_by=2, chat_id=-100
        )
        assert (await running_tournament_for_chat(conn, -100)) == second
        other = await create_tournament(conn, title="Elsewhere", distance=5, created_by=2)
        with pytest.raises(ChatBusy):
            await set_chat(conn, other.id, -100)


async def test_the_unique_index_backs_the_check(db: Database, tournament: TournamentRow) -> None:
    import sqlite3

    with pytest.raises(sqlite3.IntegrityError):
        await db.execute(
            "INSERT INTO tournaments (title, chat_id, distance, created_by, created_at)"
            " VALUES ('x', -100, 3, 1, 0)"
        )


async def test_status_moves_forward_only(db: Database, tournament: TournamentRow) -> None:
    async with db.transaction() as conn:
        running = await set_status(conn, tournament.id, "running")
        assert running.status == "running" and running.finished_at is None
        assert (await set_status(conn, tournament.id, "running")) == running
        with pytest.raises(InvalidTransition):
            await set_status(conn, tournament.id, "registration")
        done = await set_status(conn, tournament.id, "finished", now=ENDED)
        assert done.finished_at == ENDED


async def test_tournaments_for_staff(db: Database, tournament: TournamentRow) -> None:
    async with db.transaction() as conn:
        await add_staff(conn, tournament.id, JUDGE, "judge", added_by=CHIEF)
        mine = await create_tournament(conn, title="Mine", distance=3, created_by=JUDGE)
        listed = await tournaments_for_staff(conn, JUDGE)
        assert [(s.tournament.id, s.role) for s in listed] == [
            (mine.id, "chief"),
            (tournament.id, "judge"),
        ]
        await set_status(conn, mine.id, "finished")
        assert len(await tournaments_for_staff(conn, JUDGE)) == 1
        assert len(await tournaments_for_staff(conn, JUDGE, include_finished=True)) == 2


async def test_chat_migration_removal_and_standings_message(
    db: Database, tournament: TournamentRow
) -> None:
    async with db.transaction() as conn:
        assert await migrate_chat(conn, -100, -1009) == 1
        await set_bot_removed(conn, -1009, True)
        await set_standings_message(conn, tournament.id, 55, "abc")
        row = await get_tournament(conn, tournament.id)
    assert row is not None
    assert (row.chat_id, row.bot_removed, row.standings_message_id, row.standings_hash) == (
        -1009,
        True,
        55,
        "abc",
    )


async def test_bad_tournament_values(db: Database) -> None:
    async with db.transaction() as conn:
        with pytest.raises(ValueError):
            await create_tournament(conn, title="  ", distance=3, created_by=1)
        with pytest.raises(ValueError):
            await create_tournament(conn, title="x", distance=0, created_by=1)


# Users


async def test_upsert_user_keeps_can_message(db: Database) -> None:
    async with db.transaction() as conn:
        first = await upsert_user(conn, 5, first_name="Ann", username="ann", language_code="ru")
        assert not first.can_message
        assert await set_can_message(conn, 5, True)
        again = await upsert_user(conn, 5, first_name="Anna", username=None)
        assert again.can_message and again.first_name == "Anna" and again.username is None
        assert (await upsert_user(conn, 5, first_name="A", can_message=False)).can_message is False
        assert await get_user(conn, 6) is None


# Staff and invites


async def test_staff_roles_and_last_chief(db: Database, tournament: TournamentRow) -> None:
    async with db.transaction() as conn:
        await add_staff(conn, tournament.id, JUDGE, "judge", added_by=CHIEF)
        assert await staff_role(conn, tournament.id, JUDGE) == "judge"
        assert await staff_role(conn, tournament.id, 12345) is None
        with pytest.raises(LastChief):
            await remove_staff(conn, tournament.id, CHIEF)
        with pytest.raises(LastChief):
            await add_staff(conn, tournament.id, CHIEF, "judge", added_by=CHIEF)
        await add_staff(conn, tournament.id, JUDGE, "chief", added_by=CHIEF)
        assert await remove_staff(conn, tournament.id, CHIEF)
        assert not await remove_staff(conn, tournament.id, CHIEF)
        assert [(s.user_id, s.role) for s in await list_staff(conn, tournament.id)] == [
            (JUDGE, "chief")
        ]


async def test_invites_are_one_time(db: Database, tournament: TournamentRow) -> None:
    async with db.transaction() as conn:
        issued = await create_invite(conn, tournament.id, "judge", created_by=CHIEF)
        invite = issued.row
        assert invite.usable and len(issued.token) >= 16
        # Only the token's digest is stored: a copy of the database opens no link.
        assert invite.digest == digest(issued.token) != issued.token
        stored = await conn.execute_fetchall("SELECT token FROM invites")
        assert [tuple(r) for r in stored] == [(invite.digest,)]
        used = await use_invite(conn, issued.token, 77)
        assert used.used_by == 77 and not used.usable
        assert (await use_invite(conn, issued.token, 77)) == used  # redelivered /start
        with pytest.raises(InviteInvalid, match="used"):
            await use_invite(conn, issued.token, 78)
        with pytest.raises(InviteInvalid, match="unknown"):
            await use_invite(conn, "no-such-token", 78)
        other = await create_invite(conn, tournament.id, "player", created_by=CHIEF)
        assert await revoke_invite(conn, other.token)
        assert not await revoke_invite(conn, other.token)
        assert not await revoke_invite(conn, issued.token)
        with pytest.raises(InviteInvalid, match="revoked"):
            await use_invite(conn, other.token, 78)
        assert await list_invites(conn, tournament.id, usable_only=True) == []
        assert len(await list_invites(conn, tournament.id)) == 2


# Players


def test_nickname_key() -> None:
    assert nickname_key("  Ёжик   в\tтумане ") == nickname_key("ежик В ТУМАНЕ")
    assert nickname_key("Straße") == nickname_key("STRASSE")
    assert nickname_key("Ｆｕｌｌ") == nickname_key("full")  # NFKC: full-width letters
    assert nickname_key("a\u200bb") == nickname_key("ab")  # zero-width space
    with pytest.raises(InvalidNickname):
        nickname_key(" \u200b ")
    with pytest.raises(InvalidNickname):
        nickname_key("x" * 65)


async def test_nickname_unique_case_insensitive_and_trimmed(
    db: Database, tournament: TournamentRow
) -> None:
    async with db.transaction() as conn:
        alice = await add_player(conn, tournament.id, "  Alice  Cooper ")
        assert alice.nickname == "Alice Cooper" and alice.status == "pending"
        for clash in ("alice cooper", "ALICE   COOPER", "\tAlice Cooper"):
            with pytest.raises(NicknameTaken) as info:
                await add_player(conn, tournament.id, clash)
            assert info.value.player_id == alice.id
        assert await find_player_by_nickname(conn, tournament.id, " ALICE cooper") == alice
        assert await find_player_by_nickname(conn, tournament.id, "Bob") is None
        assert await find_player_by_nickname(conn, tournament.id, "   ") is None
        other = await create_tournament(conn, title="Other", distance=3, created_by=CHIEF)
        assert (await add_player(conn, other.id, "alice cooper")).nickname == "alice cooper"
        bob = await add_player(conn, tournament.id, "Bob")
        with pytest.raises(NicknameTaken):
            await rename_player(conn, bob.id, "ALICE COOPER")
        assert (await rename_player(conn, bob.id, "bob")).nickname == "bob"


async def test_one_player_per_user(db: Database, tournament: TournamentRow) -> None:
    async with db.transaction() as conn:
        p = await add_player(conn, tournament.id, "Alice", user_id=5)
        with pytest.raises(UserAlreadyPlayer):
            await add_player(conn, tournament.id, "Alice2", user_id=5)
        assert await player_for_user(conn, tournament.id, 5) == p
        walk_in = await add_player(conn, tournament.id, "Walk-in", status="confirmed")
        with pytest.raises(UserAlreadyPlayer):
            await link_player(conn, walk_in.id, 5)
        assert (await link_player(conn, walk_in.id, 6)).user_id == 6


async def test_confirm_reject_and_apply_again(db: Database, tournament: TournamentRow) -> None:
    now = datetime(2025, 5, 1, tzinfo=UTC)
    async with db.transaction() as conn:
        p = await add_player(conn, tournament.id, "Alice", user_id=5)
        rejected = await reject_player(conn, p.id, decided_by=CHIEF, now=now)
        assert rejected.status == "rejected" and rejected.decided_at == now
        assert await player_for_user(conn, tournament.id, 5) is None
        # The nickname and the user are free again.
        again = await add_player(conn, tournament.id, "alice", user_id=5)
        assert (await confirm_player(conn, again.id, decided_by=CHIEF)).status == "confirmed"
        with pytest.raises(NicknameTaken):
            await confirm_player(conn, p.id, decided_by=CHIEF)
        assert [x.id for x in await list_players(conn, tournament.id, status="confirmed")] == [
            again.id
        ]
        assert len(await list_players(conn, tournament.id)) == 2
        assert len(await list_players(conn, tournament.id, status=("pending", "rejected"))) == 1


async def test_a_player_who_played_cannot_be_rejected(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        await save_game(conn, tournament.id, make_draft(players), JUDGE, ENDED)
        with pytest.raises(PlayerHasGames):
            await reject_player(conn, players[0], decided_by=CHIEF)
        assert (await reject_player(conn, players[11], decided_by=CHIEF)).status == "rejected"


# Audit


async def test_audit_round_trips_rows(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        gid = await save_game(conn, tournament.id, make_draft(players), JUDGE, ENDED)
        game = await get_game(conn, gid)
        entry_id = await audit(
            conn,
            action="game.save",
            entity="game",
            entity_id=gid,
            tournament_id=tournament.id,
            actor_id=JUDGE,
            after=game,
        )
        entries = await audit_entries(conn, tournament.id, entity="game", entity_id=gid)
    assert [e.id for e in entries] == [entry_id]
    after = entries[0].after
    assert after["result"] == "red" and after["seats"][0]["role"] == "civilian"
    assert after["ended_at"] == ENDED.isoformat()
    assert entries[0].before is None and entries[0].actor_id == JUDGE


async def test_the_groups_current_tournament_is_its_unfinished_else_latest(
    db: Database, tournament: TournamentRow
) -> None:
    async with db.transaction() as conn:
        assert await current_for_chat(conn, -100) == tournament
        first = await set_status(conn, tournament.id, "finished")
        assert await current_for_chat(conn, -100) == first  # finished, still its latest
        second = await create_tournament(
            conn, title="Second", distance=5, created_by=2, chat_id=-100
        )
        assert await current_for_chat(conn, -100) == second
        second = await set_status(conn, second.id, "finished")
        assert await current_for_chat(conn, -100) == second
        assert await current_for_chat(conn, -999) is None


async def test_record_names_the_entity_by_the_action(
    db: Database, tournament: TournamentRow
) -> None:
    async with db.transaction() as conn:
        await record(conn, "staff.add", JUDGE, tournament.id, CHIEF, after={"role": "judge"})
        [entry] = await audit_entries(conn, tournament.id, entity="staff")
    assert (entry.action, entry.entity, entry.entity_id) == ("staff.add", "staff", str(JUDGE))
    assert entry.actor_id == CHIEF and entry.after == {"role": "judge"} and entry.before is None


@given(st.text(min_size=1, max_size=80))
def test_nickname_normalisation_is_stable(raw: str) -> None:
    try:
        shown = normalize_nickname(raw)
    except InvalidNickname:
        return
    # What is stored normalises to itself, and so does its key: a stored row always
    # matches a look-up of its own nickname.
    assert normalize_nickname(shown) == shown
    assert nickname_key(shown) == nickname_key(raw)
    assert shown == shown.strip() and 1 <= len(shown) <= 64
