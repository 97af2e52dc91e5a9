"""Role checks as filters (handlers.filters): a refusal or a picker answers the update
once and ends it; the role is read again after every change."""

from __future__ import annotations

from aiogram.methods import AnswerCallbackQuery, SendMessage

from bot.db import staff
from bot.db.connection import Database
from handlers.filters import TournamentPick
from tests.handlers.tournament_fixtures import running_tournament
from tests.support import BotHarness, buttons

CHAT = -100700
CHIEF, JUDGE, OTHER = 710, 711, 712


def sent_to(harness: BotHarness, chat_id: int) -> list[str]:
    return [m.text for m in harness.session.requests_of(SendMessage) if m.chat_id == chat_id]


async def test_a_refused_command_gets_one_answer_and_nothing_else(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(db, chief_id=CHIEF, judge_ids=[JUDGE], chat_id=CHAT)
    judge = harness.user(JUDGE, "Judge", language_code="en")
    await harness.say(judge, "/roster")
    # Not the common router's "I don't know this command" after the refusal.
    assert sent_to(harness, JUDGE) == [
        "You are not the chief judge of any unfinished tournament."
    ]
    await harness.say(judge, "/roster", chat_id=CHAT)
    assert sent_to(harness, CHAT) == ["Only the chief judge of this tournament can do that."]


async def test_a_refused_button_is_answered_once(harness: BotHarness, db: Database) -> None:
    t = await running_tournament(db, chief_id=CHIEF, chat_id=CHAT)
    other = harness.user(OTHER, "Other", language_code="en")
    await harness.say(other, "/help")
    message = harness.session.last_message(OTHER)
    data = TournamentPick(command="roster", tournament_id=t.id).pack()
    await harness.press(other, message, data=data)
    answers = [a.text for a in harness.session.requests_of(AnswerCallbackQuery)]
    assert answers == ["Only the chief judge of this tournament can do that."]


async def test_several_tournaments_are_offered_in_a_picker(
    harness: BotHarness, db: Database
) -> None:
    first = await running_tournament(db, chief_id=CHIEF, chat_id=CHAT, title="First")
    second = await running_tournament(db, chief_id=CHIEF, chat_id=CHAT - 1, title="Second")
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/invite_players")
    picker = harness.session.last_message(CHIEF)
    assert picker is not None and picker.text == "Which tournament?"
    assert buttons(picker) == [
        ("Second", TournamentPick(command="invite_players", tournament_id=second.id).pack()),
        ("First", TournamentPick(command="invite_players", tournament_id=first.id).pack()),
    ]
    await harness.press(chief, picker, text="First")
    assert "Players' invite link for «First»" in (harness.session.last_text(CHIEF) or "")


async def test_the_role_is_read_again_after_a_change(harness: BotHarness, db: Database) -> None:
    t = await running_tournament(db, chief_id=CHIEF, judge_ids=[JUDGE], chat_id=CHAT)
    judge = harness.user(JUDGE, "Judge", language_code="en")
    await harness.say(judge, "/tournament")
    assert "Test Cup" in (harness.session.last_text(JUDGE) or "")
    async with db.transaction() as conn:
        await staff.remove_staff(conn, t.id, JUDGE)
    await harness.say(judge, "/tournament")
    assert harness.session.last_text(JUDGE) == "You are not a judge of any unfinished tournament."
