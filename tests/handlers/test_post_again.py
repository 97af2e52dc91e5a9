"""/tournament lists what Telegram refused to post in the group, and the chief judge's
«Post again» sends it once he fixed the cause (docs/development.md, "Reliability and speed")."""

from __future__ import annotations

from bot.db import audit, outbox
from bot.db.connection import Database
from bot.publishing.refusals import TEXTS
from tests.handlers.tournament_fixtures import current, last_answer, running_tournament
from tests.support import BotHarness, buttons

CHAT = -100_700
CHIEF = 701
JUDGE = 702
REFUSED = "Bad Request: not enough rights to send text messages to the chat"


async def _refused_note(db: Database, tournament_id: int, text: str) -> None:
    """A note the group refused for good, as the publisher leaves it."""
    async with db.transaction() as conn:
        row = await outbox.add(conn, tournament_id, outbox.NOTE, text=text)
        await outbox.set_aside(conn, [row], TEXTS, REFUSED)


async def test_the_card_lists_what_waits_and_post_again_sends_it(
    harness: BotHarness, db: Database
) -> None:
    t = await running_tournament(db, chief_id=CHIEF, judge_ids=[JUDGE], chat_id=CHAT)
    await _refused_note(db, t.tournament.id, "Break: 10 minutes")
    chief = harness.user(CHIEF, "Anna", language_code="en")

    await harness.say(chief, "/tournament")
    card = current(harness, CHIEF)
    text = card.text or ""
    assert "Not posted in the group (Telegram refused it):" in text
    assert "a note × 1: the group does not let me send messages" in text
    assert "Make the bot an administrator of the group" in text
    assert "📤 Post again (1)" in [label for label, _ in buttons(card)]

    # A judge sees what waits, with no button.
    judge = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(judge, "/tournament")
    judge_card = current(harness, JUDGE)
    assert "a note × 1" in (judge_card.text or "") and buttons(judge_card) == []

    await harness.press(chief, card, text="📤 Post again (1)")

    assert last_answer(harness) == "Posting 1 item in the group again."
    assert harness.session.sent_texts(CHAT)[-1] == "Break: 10 minutes"
    async with db.read() as conn:
        assert await outbox.set_aside_rows(conn, t.tournament.id) == []
        actions = [e.action for e in await audit.audit_entries(conn, t.tournament.id)]
    assert "post.again" in actions
    refreshed = current(harness, CHIEF, card.message_id)
    assert "Not posted in the group" not in (refreshed.text or "")

    # The old button again: nothing waits, nothing is sent.
    sent = len(harness.session.sent_texts(CHAT))
    await harness.press(chief, card, text="📤 Post again (1)")
    assert last_answer(harness) == "Nothing waits to be posted in the group."
    assert len(harness.session.sent_texts(CHAT)) == sent


async def test_only_the_chief_judge_posts_again(harness: BotHarness, db: Database) -> None:
    t = await running_tournament(db, chief_id=CHIEF, judge_ids=[JUDGE], chat_id=CHAT)
    await _refused_note(db, t.tournament.id, "Break")
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament")
    card = current(harness, CHIEF)
    [data] = [d for label, d in buttons(card) if label.startswith("📤")]

    judge = harness.user(JUDGE, "Jack", language_code="en")
    await harness.press(judge, card, data=data)  # a forged tap of the chief's button

    assert harness.session.sent_texts(CHAT) == []
    async with db.read() as conn:
        assert len(await outbox.set_aside_rows(conn, t.tournament.id)) == 1


async def test_a_finished_tournament_can_still_post_what_waits(
    harness: BotHarness, db: Database
) -> None:
    t = await running_tournament(db, chief_id=CHIEF, chat_id=CHAT, status="finished")
    await _refused_note(db, t.tournament.id, "Final standings below")
    chief = harness.user(CHIEF, "Anna", language_code="en")

    await harness.say(chief, "/tournament", chat_id=CHAT)
    card = current(harness, CHAT)
    assert [label for label, _ in buttons(card)] == ["📤 Post again (1)"]
    await harness.press(chief, card, text="📤 Post again (1)")

    assert "Final standings below" in harness.session.sent_texts(CHAT)
