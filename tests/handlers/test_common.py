from bot.db.connection import Database
from tests.support import BotHarness


async def test_start_answers_in_russian_by_default(harness: BotHarness) -> None:
    ann = harness.user(101, "Аня", language_code="ru")
    await harness.send(harness.updates.private_message(ann, "/start"))
    text = harness.session.last_text(101)
    assert text.startswith("Здравствуйте!") and "/rating" in text


async def test_help_follows_english_telegram_language(harness: BotHarness) -> None:
    bob = harness.user(102, "Bob", language_code="en")
    await harness.send(harness.updates.private_message(bob, "/help"))
    assert "standings of a sports-mafia tournament" in harness.session.last_text(102)


async def test_cancel_without_conversation_says_so(harness: BotHarness) -> None:
    bob = harness.user(103, "Bob", language_code="en")
    await harness.send(harness.updates.private_message(bob, "/cancel"))
    assert harness.session.last_text(103) == "Nothing to cancel."


async def test_unknown_command_in_private_points_to_help(harness: BotHarness) -> None:
    bob = harness.user(106, "Bob", language_code="en")
    await harness.send(harness.updates.private_message(bob, "/frobnicate"))
    assert harness.session.last_text(106) == (
        "I don't know this command. /help lists what I can do."
    )


async def test_a_button_nobody_knows_is_answered_as_out_of_date(harness: BotHarness) -> None:
    from aiogram.methods import AnswerCallbackQuery

    bob = harness.user(107, "Bob", language_code="en")
    await harness.send(harness.updates.private_message(bob, "/help"))
    message = harness.session.last_message(107)
    assert message is not None
    await harness.press(bob, message, data="zz:garbage")
    answers = harness.session.requests_of(AnswerCallbackQuery)
    assert answers[-1].text == "This card is out of date."


async def test_anonymous_admin_command_is_refused(harness: BotHarness) -> None:
    await harness.send(harness.updates.anonymous_admin_message(-100500, "/help"))
    text = harness.session.last_text(-100500)
    assert "анонимн" in text.lower()


async def test_forwarded_command_acts_for_no_one(harness: BotHarness) -> None:
    ann = harness.user(104, "Аня")
    other = harness.user(105, "Босс")
    await harness.send(harness.updates.private_message(ann, "/cancel", forward_from=other))
    assert "Пересланная команда" in harness.session.last_text(104)


async def test_command_menus_are_set_in_russian_and_english(harness: BotHarness) -> None:
    from aiogram.methods import SetMyCommands

    from handlers import set_commands

    await set_commands(harness.bot)
    calls = harness.session.requests_of(SetMyCommands)
    by_language = {(c.scope.type, c.language_code): c.commands for c in calls}
    private_ru = by_language[("all_private_chats", None)]
    private_en = by_language[("all_private_chats", "en")]
    assert [c.command for c in private_ru] == [c.command for c in private_en]
    assert any(c.command == "game" and "Внести игру" in c.description for c in private_ru)
    assert any(c.command == "game" and c.description.startswith("Enter a game") for c in private_en)
    # Telegram's limits: descriptions up to 256 characters, commands up to 32.
    assert all(len(c.description) <= 256 and len(c.command) <= 32 for c in private_ru)


async def test_help_shows_what_the_readers_role_can_do(harness: BotHarness, db: Database) -> None:
    """A player sees the commands everyone has; a judge the judges' too; a chief judge
    every command of his; an operator /backup: each with what it does."""
    from bot.config import Settings
    from bot.db.clubs import create_club
    from handlers.access import COMMANDS
    from tests.handlers.tournament_fixtures import running_tournament

    await running_tournament(db, chief_id=301, judge_ids=[302], chat_id=-100301)
    async with db.transaction() as conn:  # he owns a club too: every command is his
        await create_club(conn, -100302, "Club", owner=301)
    settings: Settings = harness.dispatcher["settings"]
    settings.operator_ids = frozenset({301})
    texts = {}
    for user_id in (300, 302, 301):
        user = harness.user(user_id, "U", language_code="en")
        await harness.send(harness.updates.private_message(user, "/help"))
        texts[user_id] = harness.session.last_text(user_id) or ""
    player, judge, chief = texts[300], texts[302], texts[301]
    assert "/rating — Standings and my points by game" in player
    assert "<b>Judges</b>" not in player and "/game" not in player and "/backup" not in player
    assert "/game — Enter a game (judge)" in judge and "/export" not in judge
    assert all(f"/{command} — " in chief for command in COMMANDS), chief
    assert "/judge — Make a judge: reply /judge to his message in the group" in chief


async def test_text_nobody_waits_for_in_private_points_to_help(harness: BotHarness) -> None:
    bob = harness.user(108, "Bob", language_code="en")
    await harness.send(harness.updates.private_message(bob, "hello?"))
    assert harness.session.last_text(108) == (
        "I don't know what to do with this here. /help lists what I can do."
    )
