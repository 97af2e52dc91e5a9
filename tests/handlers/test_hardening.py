"""What users do that the happy path does not: answers Telegram refuses (403), an answer
aiogram can't decode, endless numbers. Each test names what a user would notice."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from aiogram.exceptions import ClientDecodeError
from aiogram.methods import SendMessage

from bot.config import Settings
from bot.db import games, tournaments
from bot.db.connection import Database
from tests.handlers import rating_fixtures
from tests.handlers.test_game_entry_support import CHIEF as CHIEF_OF_WORLD
from tests.handlers.test_game_entry_support import GROUP, JUDGE, World
from tests.handlers.test_protests import stored
from tests.handlers.tournament_fixtures import reply_to_bot, running_tournament
from tests.support import BotHarness
from tests.support.telegram import ApiError

CHAT = -100_600
CHIEF = 601
PLAYER = 701


def refused(harness: BotHarness, chat_id: int) -> list[SendMessage]:
    """sendMessage requests to ``chat_id`` that Telegram did not deliver."""
    delivered = {id(m) for m in harness.session.requests_of(SendMessage, delivered=True)}
    return [
        m
        for m in harness.session.requests_of(SendMessage)
        if m.chat_id == chat_id and id(m) not in delivered
    ]


def no_errors_logged(caplog: pytest.LogCaptureFixture) -> bool:
    return not [r for r in caplog.records if r.levelno >= logging.ERROR]


# -- /new_tournament: the bot's rights can't be read ----------------------------------------


async def test_new_tournament_is_created_when_get_chat_member_cannot_be_decoded(
    harness: BotHarness, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """A self-hosted Bot API server older than aiogram's types: its getChatMember answer
    can't be decoded. The tournament is created all the same, without the rights note."""
    harness.session.fail_next(
        "getChatMember",
        ClientDecodeError("Failed to deserialize object", ValueError("unknown status"), {}),
    )
    chief = harness.user(CHIEF, "Anna", language_code="en")
    with caplog.at_level(logging.WARNING, logger="handlers.tournaments"):
        await harness.say(chief, "/new_tournament", chat_id=CHAT)
    assert "title" in (harness.session.last_text(CHAT) or "")
    assert any("could not check my rights" in r.getMessage() for r in caplog.records)
    await reply_to_bot(harness, chief, CHAT, "Cup")
    await reply_to_bot(harness, chief, CHAT, "10")
    # The reply is in the group's language; no note about the bot's rights in either.
    text = harness.session.last_text(CHAT) or ""
    assert "B = 4" in text
    assert "administrator" not in text and "администратор" not in text
    async with db.read() as conn:
        [created] = await tournaments.tournaments_for_chat(conn, CHAT)
    assert created.distance == 10


# -- numbers typed with thousands of digits -------------------------------------------------


async def test_8_6_1_a_distance_of_5000_digits_gets_a_reply_saying_what_to_type(
    harness: BotHarness, db: Database
) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament", chat_id=CHAT)
    await reply_to_bot(harness, chief, CHAT, "Cup")
    for endless in ("1" * 5000, "0" * 4400 + "7"):
        await reply_to_bot(harness, chief, CHAT, endless)
        text = harness.session.last_text(CHAT) or ""
        assert text.startswith("The distance must be a whole number of games from 1 to 100")
        assert "Send it again" in text
    async with db.read() as conn:
        assert await tournaments.tournaments_for_chat(conn, CHAT) == []
    await reply_to_bot(harness, chief, CHAT, "10")
    assert "B = 4" in (harness.session.last_text(CHAT) or "")
    async with db.read() as conn:
        [created] = await tournaments.tournaments_for_chat(conn, CHAT)
    assert created.distance == 10


# -- 403: the chat is closed to the bot ---------------------------------------------------


async def test_rating_in_private_to_a_user_who_blocked_the_bot_is_logged_at_info(
    harness: BotHarness, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    await running_tournament(
        db, chief_id=CHIEF, players=["Ann"], chat_id=CHAT, player_users={"Ann": PLAYER}
    )
    harness.session.fail_next("sendMessage", ApiError.blocked(), chat_id=PLAYER, times=5)
    user = harness.user(PLAYER, "Ann", language_code="en")
    with caplog.at_level(logging.INFO):
        result = await harness.say(user, "/rating")  # no TelegramForbiddenError escapes
    assert result is None and refused(harness, PLAYER)
    [logged] = [r for r in caplog.records if r.name == "handlers.errors"]
    assert logged.levelno == logging.INFO and "bot was blocked by the user" in logged.getMessage()
    assert no_errors_logged(caplog)


async def test_protest_whose_confirmation_is_refused_still_reaches_the_chief_judge(
    harness: BotHarness, db: Database
) -> None:
    """The player blocked the bot right after sending his protest: the protest is
    recorded and the chief judge still gets it."""
    world = await rating_fixtures.make_world(db, 12)
    game = await rating_fixtures.add_game(db, world, range(1, 11))
    filer = rating_fixtures.USER_BASE + 1
    harness.session.fail_next("sendMessage", ApiError.blocked(), chat_id=filer)
    user = harness.user(filer, "Player", language_code="en")
    sent = rating_fixtures.ENDED + timedelta(minutes=3)
    await harness.send(harness.updates.private_message(user, "/protest foul", date=sent))
    [row] = await stored(db, game)
    assert refused(harness, filer)
    card = harness.session.last_message(rating_fixtures.CHIEF)
    assert card is not None and f"Protest #{row.id}" in (card.text or "")


async def test_save_when_the_judges_chat_refuses_everything_still_reaches_the_group(
    harness: BotHarness, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """The judge blocked the bot while tapping Save, and the chief judge never started
    it: the game is saved, the group gets its result, the judge's card is closed."""
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(night=None)
    await judge.next()
    await judge.next()
    await judge.say("6 0.6")  # above 0.5: the chief judge must approve (D7)
    await judge.to_review()
    harness.session.fail_next("editMessageText", ApiError.blocked(), chat_id=JUDGE)
    harness.session.fail_next("sendMessage", ApiError.blocked(), chat_id=JUDGE, times=2)
    harness.session.fail_next("sendMessage", ApiError.cant_initiate(), chat_id=CHIEF_OF_WORLD)
    with caplog.at_level(logging.INFO):
        await judge.tap("💾 Save")
    [game] = await world.games()
    assert game.status == "pending"
    assert len(refused(harness, JUDGE)) == 2  # the final card, then "could not reach"
    # The group's result line (in the group's language), then its standings.
    assert any("6. Foxtrot 1" in t for t in harness.session.sent_texts(GROUP))
    assert await judge.state() is None and await judge.draft() == {}
    async with db.read() as conn:
        assert [a.status for a in await games.approvals_for_game(conn, game.id)] == ["pending"]
    assert no_errors_logged(caplog)


async def test_backup_to_an_operator_who_blocked_the_bot_is_logged_at_info_and_not_retried(
    harness: BotHarness, db: Database, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    await running_tournament(db, chief_id=CHIEF, chat_id=CHAT)
    settings.operator_ids = frozenset({CHIEF})
    harness.session.fail_next("sendDocument", ApiError.blocked(), chat_id=CHIEF)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    with caplog.at_level(logging.INFO):
        await harness.say(chief, "/backup")
    assert [r.levelno for r in caplog.records if "backup" in r.getMessage()] == [logging.INFO]
    assert harness.session.requests_of(SendMessage) == []  # no "try again" into a closed chat
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
