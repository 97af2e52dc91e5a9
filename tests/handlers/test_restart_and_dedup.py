"""Surviving restarts and redelivery: the FSM in SQLite, update dedup, /backup."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from aiogram.methods import SendDocument
from aiogram.types import BufferedInputFile

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import players, tournaments
from bot.db.connection import Database
from tests.handlers.tournament_fixtures import reply_to_bot, running_tournament
from tests.support import BotHarness, UpdateFactory

CHAT = -100_800
CHIEF = 801
PETE = 802


async def test_restart_in_the_middle_of_new_tournament_continues(
    db: Database, settings: Settings
) -> None:
    path = db.path
    async with BotHarness(build_dispatcher(db, settings)) as first:
        chief = first.user(CHIEF, "Anna", language_code="en")
        await first.say(chief, "/new_tournament en", chat_id=CHAT)
        await reply_to_bot(first, chief, CHAT, "Winter Cup")
        assert "8.6.1" in (first.session.last_text(CHAT) or "")
    await db.close()  # the process stops

    session = first.session  # Telegram is still there, with the chat as it was
    reopened = await Database.open(path)
    try:
        async with BotHarness(build_dispatcher(reopened, settings), session=session) as second:
            # Telegram's update ids go on after a restart.
            second.updates = UpdateFactory(session, first_update_id=200_000)
            await reply_to_bot(second, chief, CHAT, "9")
            assert "«Winter Cup» is created: 9 games per player, B = 4" in (
                session.last_text(CHAT) or ""
            )
        async with reopened.read() as conn:
            [created] = await tournaments.tournaments_for_chat(conn, CHAT)
        assert (created.title, created.distance, created.created_by) == ("Winter Cup", 9, CHIEF)
        assert await reopened.fetchval("SELECT count(*) FROM fsm") == 0  # conversation over
    finally:
        await reopened.close()


async def test_the_same_join_delivered_twice_is_applied_once(
    harness: BotHarness, db: Database
) -> None:
    t = await running_tournament(db, chief_id=CHIEF, chat_id=CHAT)
    pete = harness.user(PETE, "Pete", language_code="en")
    update = harness.updates.group_message(pete, CHAT, "/join Alex")
    await harness.send(update)
    await harness.send(update)  # Telegram redelivers it (e.g. after a lost ack)
    async with db.read() as conn:
        rows = await players.list_players(conn, t.id)
    assert [(p.nickname, p.status) for p in rows] == [("Alex", "pending")]
    assert len(harness.session.sent_texts(CHIEF)) == 1
    assert len(harness.session.sent_texts(PETE)) == 1  # his answer, privately


# -- /backup --------------------------------------------------------------------------------

DOMAIN_TABLES = ("tournaments", "staff", "users", "invites", "players", "games", "audit_log")


def _dump(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    # Table names are our constants above, never input.
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in DOMAIN_TABLES}


async def test_backup_is_sent_and_restores_to_an_equal_database(
    harness: BotHarness, db: Database, settings: Settings, tmp_path: Path
) -> None:
    settings.operator_ids = frozenset({CHIEF})  # the bot's operator (OPERATOR_IDS)
    t = await running_tournament(
        db, chief_id=CHIEF, chat_id=CHAT, players=["Ann", "Bob"], names={CHIEF: "Anna"}
    )
    async with db.transaction() as conn:
        await players.add_player(conn, t.id, "Cid", user_id=PETE)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/backup")

    [sent] = harness.session.requests_of(SendDocument, delivered=True)
    assert sent.chat_id == CHIEF
    assert isinstance(sent.document, BufferedInputFile)
    assert (sent.document.filename or "").startswith("tournament-bot-")
    assert "Database backup" in (sent.caption or "")

    restored_path = tmp_path / "restored.sqlite3"
    restored_path.write_bytes(sent.document.data)
    restored = sqlite3.connect(restored_path)
    live = sqlite3.connect(db.path)
    try:
        assert restored.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert _dump(restored) == _dump(live)
        assert (
            restored.execute("PRAGMA user_version").fetchone()
            == live.execute("PRAGMA user_version").fetchone()
        )
    finally:
        restored.close()
        live.close()
    # The bot itself opens the restored file.
    reopened = await Database.open(restored_path)
    try:
        async with reopened.read() as conn:
            names = [p.nickname for p in await players.list_players(conn, t.id)]
        assert names == ["Ann", "Bob", "Cid"]
    finally:
        await reopened.close()


async def test_backup_is_for_operators_only_in_private(
    harness: BotHarness, db: Database, settings: Settings
) -> None:
    """A copy of the whole database holds every tournament's protests and players: a
    chief judge gets /export of his own, only an operator (OPERATOR_IDS) the file."""
    await running_tournament(db, chief_id=CHIEF, judge_ids=[PETE], chat_id=CHAT)
    settings.operator_ids = frozenset({PETE})
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/backup")
    assert harness.session.last_text(CHIEF) == (
        "A copy of the whole database is for the bot's operators only. "
        "The chief judge's copy of his tournament is /export."
    )
    operator = harness.user(PETE, "Pete", language_code="en")
    await harness.say(operator, "/backup", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "Send this to me in a private chat."
    assert harness.session.requests_of(SendDocument) == []
    await harness.say(operator, "/backup")
    [sent] = harness.session.requests_of(SendDocument, delivered=True)
    assert sent.chat_id == PETE
    settings.operator_ids = frozenset()  # none: nobody in chat
    await harness.say(operator, "/backup")
    assert len(harness.session.requests_of(SendDocument)) == 1
