"""A club and its evening's sign-up through the whole bot: /club, /host, /evening and
its announcement, the buttons, the host's commands, the notes, and every refusal."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage
from aiogram.types import Message

from bot.db import evenings as repo
from bot.db.clubs import club_for_chat
from bot.db.connection import Database
from bot.publishing.club_posts import ClubPoster
from handlers.evenings import EveningCb, announcement_keyboard
from tests.support import ApiError, BotHarness

CHAT = -100_900
OTHER_CHAT = -100_901
OWNER, HOST, ANN, BOB, CID, STRANGER, OTHER_OWNER = 901, 902, 903, 904, 905, 906, 907


def day_ahead(days: int = 10) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).strftime("%d.%m.%Y")


async def club(harness: BotHarness, chat: int = CHAT, owner: int = OWNER) -> None:
    boss = harness.user(owner, "Olga", language_code="en")
    await harness.say(boss, "/club Friday Mafia", chat_id=chat)
    await harness.say(boss, "/club_language en", chat_id=chat)


async def announced(harness: BotHarness, seats: str = "2") -> Message:
    await club(harness)
    boss = harness.user(OWNER, "Olga", language_code="en")
    await harness.say(
        boss, f"/evening {day_ahead()} 19:30; Café Luna; {seats}; bring cash", chat_id=CHAT
    )
    post = harness.session.last_message(CHAT)
    assert post is not None and post.reply_markup is not None
    return post


async def tap(harness: BotHarness, user_id: int, name: str, post: Message, label: str) -> str:
    await harness.press(harness.user(user_id, name, language_code="en"), post, text=label)
    answer = harness.session.requests_of(AnswerCallbackQuery)[-1].text
    return answer or ""


def reply(harness: BotHarness) -> str:
    """The bot's latest message sent to the group (not an edit of the announcement)."""
    return harness.session.sent_texts(CHAT)[-1]


def announcement(harness: BotHarness, post: Message) -> str:
    now = harness.session.message(CHAT, post.message_id)
    assert now is not None
    return now.text or ""


async def test_club_then_host_then_settings(harness: BotHarness, db: Database) -> None:
    await club(harness)
    assert "is now the club «Friday Mafia»" in (harness.session.sent_texts(CHAT)[0])
    boss = harness.user(OWNER, "Olga", language_code="en")
    await harness.say(boss, "/club Other", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "This group is the club Friday Mafia already."
    hal = harness.user(HOST, "Hal", username="hal", language_code="en")
    said = harness.updates.group_message(hal, CHAT, "hi")
    await harness.send(said)
    assert said.message is not None
    await harness.send(harness.updates.group_message(hal, CHAT, "/host", reply_to=said.message))
    assert harness.session.last_text(CHAT) == "Only the club's owner can do that."
    await harness.send(harness.updates.group_message(boss, CHAT, "/host", reply_to=said.message))
    assert harness.session.last_text(CHAT) == "Hal (@hal) is now a host of «Friday Mafia»."
    await harness.say(boss, "/club_timezone Moscow", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "The club's time zone is now Europe/Moscow, UTC+3."
    await harness.say(boss, "/season_start 13-40", chat_id=CHAT)
    assert "MM-DD" in (harness.session.last_text(CHAT) or "")
    await harness.say(boss, "/season_start 09-01", chat_id=CHAT)
    await harness.say(boss, "/club_protests on", chat_id=CHAT)
    async with db.read() as conn:
        found = await club_for_chat(conn, CHAT)
    assert found is not None
    assert (found.timezone, found.season_start, found.protests) == ("Europe/Moscow", "09-01", True)
    await harness.say(boss, "/club", chat_id=CHAT)
    assert "Hosts: Hal (@hal)" in (harness.session.last_text(CHAT) or "")


async def test_the_announcement_the_list_and_the_reserve(harness: BotHarness, db: Database) -> None:
    post = await announced(harness)
    text = announcement(harness, post)
    assert text.startswith("<b>Evening #1 of «Friday Mafia»</b>\n📅 ")
    assert "📍 Café Luna" in text and "📝 bring cash" in text and "Seats: 0/2" in text
    assert await tap(harness, ANN, "Ann", post, "I'm in") == "You are in, #1."
    assert await tap(harness, ANN, "Ann", post, "I'm in") == "You are already in, #1."
    assert await tap(harness, BOB, "Bob", post, "I'm in") == "You are in, #2."
    assert await tap(harness, CID, "Cid", post, "I'm in") == (
        "All seats are taken: you are #1 in the reserve."
    )
    assert await tap(harness, STRANGER, "Sam", post, "Can't come") == "Noted: you can't come."
    text = announcement(harness, post)
    assert "Seats: 2/2\n\n1. Ann\n2. Bob\n\nReserve:\n1. Cid\n\nCan't come: Sam" in text
    # Ann drops out: Cid moves up and is told privately.
    assert await tap(harness, ANN, "Ann", post, "Can't come") == "Noted: you can't come."
    assert "1. Bob\n2. Cid" in announcement(harness, post)
    assert harness.session.last_text(CID) is not None
    assert "A seat opened up" in (harness.session.last_text(CID) or "")


async def test_a_moved_up_note_that_cannot_arrive_is_recorded_once(
    harness: BotHarness, db: Database
) -> None:
    post = await announced(harness, seats="1")
    await tap(harness, ANN, "Ann", post, "I'm in")
    await tap(harness, BOB, "Bob", post, "I'm in")
    harness.session.fail_next("sendMessage", ApiError.cant_initiate(), chat_id=BOB)
    await tap(harness, ANN, "Ann", post, "Can't come")
    async with db.read() as conn:
        [(note, sent, failed)] = await repo.notes_of(conn, 1)
    assert (note.kind, note.user_id, sent) == ("moved_up", BOB, False) and failed
    await tap(harness, CID, "Cid", post, "I'm in")  # another post: the note is not retried
    tried = [m for m in harness.session.requests_of(SendMessage) if m.chat_id == BOB]
    assert len(tried) == 1  # the one that failed


async def test_refusals_change_nothing(harness: BotHarness, db: Database) -> None:
    await club(harness)
    await club(harness, OTHER_CHAT, OTHER_OWNER)
    boss = harness.user(OWNER, "Olga", language_code="en")
    cases = [
        (
            harness.user(STRANGER, "Sam", language_code="en"),
            f"/evening {day_ahead()} 19:30; X",
            "Only the club's owner and hosts can do that.",
        ),
        (
            harness.user(OTHER_OWNER, "Oleg", language_code="en"),
            f"/evening {day_ahead()} 19:30; X",
            "Only the club's owner and hosts can do that.",
        ),
        (boss, "/evening 01.01.2020 19:30; X", "01.01.2020 19:30 is in the past"),
        (boss, f"/evening {day_ahead()} 19:30; X; 2.5", "Seats must be a whole number"),
        (boss, "/evening tomorrow", "Send /evening DATE TIME; PLACE"),
        (boss, "/guest Tom", "The club has no evening open for sign-up"),
        (boss, "/close_signup #77", "The club has no evening #77."),
    ]
    for user, command, expected in cases:
        await harness.say(user, command, chat_id=CHAT)
        assert expected in (harness.session.last_text(CHAT) or ""), command
    async with db.read() as conn:
        assert list(await conn.execute_fetchall("SELECT * FROM evenings")) == []
    await harness.say(boss, "/evening 01.01 19:30; X", chat_id=-100_999)
    assert "There is no club in this group" in (harness.session.last_text(-100_999) or "")


async def test_host_commands_close_and_cancel(harness: BotHarness, db: Database) -> None:
    post = await announced(harness)
    boss = harness.user(OWNER, "Olga", language_code="en")
    await tap(harness, ANN, "Ann", post, "I'm in")
    await harness.say(boss, "/guest Grey Wolf", chat_id=CHAT)
    assert reply(harness) == "Grey Wolf is signed up for evening #1, #2."
    await harness.say(boss, "/guest #1 Tom", chat_id=CHAT)
    assert reply(harness) == ("Tom is signed up for evening #1, #1 in the reserve.")
    await harness.say(boss, "/guest grey wolf", chat_id=CHAT)
    assert reply(harness) == "Grey Wolf is signed up already, #2."
    await harness.say(boss, "/unsign Ann", chat_id=CHAT)
    assert reply(harness) == ("Ann is off the list of evening #1.\nMoved up from the reserve: Tom.")
    assert "A host took you off the list" in (harness.session.last_text(ANN) or "")
    await harness.say(boss, "/close_signup", chat_id=CHAT)
    text = announcement(harness, post)
    assert "The sign-up is closed." in text
    closed = harness.session.message(CHAT, post.message_id)
    assert closed is not None and closed.reply_markup is None
    await harness.send(
        harness.updates.callback(
            harness.user(BOB, "Bob", language_code="en"),
            post,
            EveningCb(action="out", evening_id=1).pack(),
        )
    )
    assert harness.session.requests_of(AnswerCallbackQuery)[-1].text == (
        "The sign-up is closed; tell a host."
    )
    await harness.send(
        harness.updates.callback(
            harness.user(BOB, "Bob", language_code="en"),
            post,
            EveningCb(action="in", evening_id=1).pack(),
        )
    )
    assert harness.session.requests_of(AnswerCallbackQuery)[-1].text == "The sign-up is closed."
    await harness.say(boss, "/cancel_evening", chat_id=CHAT)
    assert reply(harness) == ("Evening #1 is cancelled; 0 people signed up are told privately.")
    assert "❌ The evening is cancelled." in announcement(harness, post)
    await harness.send(
        harness.updates.callback(
            harness.user(BOB, "Bob", language_code="en"),
            post,
            EveningCb(action="in", evening_id=1).pack(),
        )
    )
    assert harness.session.requests_of(AnswerCallbackQuery)[-1].text == (
        "This evening is cancelled."
    )


async def test_cancel_tells_each_in_his_language(harness: BotHarness, db: Database) -> None:
    post = await announced(harness)
    await harness.press(harness.user(ANN, "Ann", language_code="ru"), post, text="I'm in")
    await tap(harness, BOB, "Bob", post, "I'm in")
    await harness.say(
        harness.user(OWNER, "Olga", language_code="en"), "/cancel_evening", chat_id=CHAT
    )
    assert reply(harness) == ("Evening #1 is cancelled; 2 people signed up are told privately.")
    assert (harness.session.last_text(ANN) or "").startswith("Вечер клуба «Friday Mafia»")
    assert (harness.session.last_text(BOB) or "").startswith("The evening of «Friday Mafia»")


async def test_a_deleted_announcement_is_posted_anew(harness: BotHarness, db: Database) -> None:
    post = await announced(harness)
    await harness.bot.delete_message(CHAT, post.message_id)
    await tap(harness, ANN, "Ann", post, "I'm in")
    fresh = harness.session.last_message(CHAT)
    assert fresh is not None and fresh.message_id != post.message_id
    assert "1. Ann" in (fresh.text or "")
    async with db.read() as conn:
        evening = await repo.get_evening(conn, 1)
    assert evening is not None and evening.message_id == fresh.message_id


async def test_taps_within_a_window_make_one_edit(harness: BotHarness, db: Database) -> None:
    post = await announced(harness, seats="-")
    poster = ClubPoster(db, debounce=0.2, keyboard=announcement_keyboard)
    edits = len(harness.session.requests_of(EditMessageText))
    for uid, name in ((ANN, "Ann"), (BOB, "Bob"), (CID, "Cid")):
        await harness.send(
            harness.updates.callback(
                harness.user(uid, name, language_code="en"),
                post,
                EveningCb(action="in", evening_id=1).pack(),
            ),
            club_posts=poster,
        )
    assert len(harness.session.requests_of(EditMessageText)) == edits  # none yet
    await asyncio.sleep(0.5)
    await poster.stop()
    assert len(harness.session.requests_of(EditMessageText)) == edits + 1
    assert "Signed up: 3 (no limit)" in announcement(harness, post)


async def test_reminders_reach_everyone_signed_up_once(harness: BotHarness, db: Database) -> None:
    await club(harness)
    boss = harness.user(OWNER, "Olga", language_code="en")
    soon = datetime.now(UTC) + timedelta(hours=2)
    when = soon.strftime("%d.%m.%Y %H:%M")
    await harness.say(boss, f"/evening {when}; Café Luna; 1", chat_id=CHAT)
    post = harness.session.last_message(CHAT)
    assert post is not None
    await tap(harness, ANN, "Ann", post, "I'm in")
    await tap(harness, BOB, "Bob", post, "I'm in")
    poster: ClubPoster = harness.dispatcher["club_posts"]
    assert await poster.remind(harness.bot) == [1]
    assert await poster.remind(harness.bot) == []
    assert "You have a seat, #1." in (harness.session.last_text(ANN) or "")
    assert "You are #1 in the reserve." in (harness.session.last_text(BOB) or "")


async def test_the_owner_sets_when_reminders_go(harness: BotHarness, db: Database) -> None:
    await club(harness)
    boss = harness.user(OWNER, "Olga", language_code="en")
    await harness.say(boss, "/club_reminder soon", chat_id=CHAT)
    assert "/club_reminder 3 (hours)" in (harness.session.last_text(CHAT) or "")
    await harness.say(boss, "/club_reminder 200", chat_id=CHAT)  # over a week
    async with db.read() as conn:
        unchanged = await club_for_chat(conn, CHAT)
    assert unchanged is not None and unchanged.remind_before == 3 * 3600  # the default
    await harness.say(boss, "/club_reminder 1", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "Reminders of the evenings announced from now on: 1 hour before."
    )
    await harness.say(boss, "/club", chat_id=CHAT)
    assert "Reminders: 1 hour before." in (harness.session.last_text(CHAT) or "")
    # An evening two hours ahead: not yet reminded; one under an hour ahead: reminded.
    later = (datetime.now(UTC) + timedelta(hours=2)).strftime("%d.%m.%Y %H:%M")
    await harness.say(boss, f"/evening {later}; Café Luna; 1", chat_id=CHAT)
    post = harness.session.last_message(CHAT)
    assert post is not None
    await tap(harness, ANN, "Ann", post, "I'm in")
    poster: ClubPoster = harness.dispatcher["club_posts"]
    assert await poster.remind(harness.bot) == []
    await harness.say(boss, "/club_reminder off", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "Reminders of the evenings announced from now on: no reminder."
    )
    soon = (datetime.now(UTC) + timedelta(minutes=30)).strftime("%d.%m.%Y %H:%M")
    await harness.say(boss, f"/evening {soon}; Café Sol; 1", chat_id=CHAT)
    async with db.read() as conn:
        kept = [e.remind_before for e in await repo.evenings_of_club(conn, unchanged.id)]
    assert sorted(kept) == [0, 3600]
    assert await poster.remind(harness.bot) == []  # the second evening asked for none
