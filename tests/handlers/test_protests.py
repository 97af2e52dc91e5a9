"""/protest and the chief judge's decision (8.8.1-8.8.4, D11).

Every game here ended on 2025-05-01 at 18:00 UTC, long before the bot's own clock:
the 10-minute window is judged by the protest message's own date (D11).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from aiogram.types import ForceReply

from bot.db.audit import audit_entries
from bot.db.connection import Database
from bot.db.protests import ProtestRow, get_protest, protests_for_game
from bot.db.staff import add_staff
from handlers.callbacks import GameMenu
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    ENDED,
    USER_BASE,
    World,
    add_game,
    answers,
    english_users,
    make_world,
)
from tests.support import BotHarness, buttons

CHIEF2 = 5002


async def world_with_game(db: Database) -> tuple[World, int]:
    world = await make_world(db, 12)
    return world, await add_game(db, world, range(1, 11))


async def protest(
    harness: BotHarness, user_id: int, text: str, at: datetime, *, chat_id: int | None = None
) -> str:
    user = harness.user(user_id, "Player", language_code="en")
    if chat_id is None:
        update = harness.updates.private_message(user, text, date=at)
    else:
        update = harness.updates.group_message(user, chat_id, text, date=at)
    await harness.send(update)
    return harness.session.last_text(chat_id or user_id) or ""


async def stored(db: Database, game_id: int) -> list[ProtestRow]:
    async with db.read() as conn:
        return await protests_for_game(conn, game_id)


async def test_8_8_1_protest_at_9_59_after_the_end_is_accepted(
    harness: BotHarness, db: Database
) -> None:
    world, game = await world_with_game(db)
    sent = ENDED + timedelta(minutes=9, seconds=59)
    reply = await protest(harness, USER_BASE + 1, "/protest the vote was miscounted", sent)
    [row] = await stored(db, game)
    assert reply.startswith(f"Protest #{row.id} against round 1, table 1 is recorded")
    assert row.text == "the vote was miscounted" and row.filed_at == sent  # D11
    assert row.player_id == world.players[0] and row.status == "open"
    # The chief judge gets it privately, with Uphold / Reject.
    card = harness.session.last_message(CHIEF)
    assert card is not None and f"Protest #{row.id}" in (card.text or "")
    assert "from P1 (seat 1)" in (card.text or "")
    assert [label for label, _ in buttons(card)] == ["✅ Uphold protest", "❌ Reject protest"]


async def test_8_8_1_protest_at_10_01_after_the_end_is_refused(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    sent = ENDED + timedelta(minutes=10, seconds=1)
    reply = await protest(harness, USER_BASE + 1, "/protest too late", sent)
    assert "Too late" in reply and "8.8.1" in reply
    assert "ended at 18:00 UTC; the deadline was 18:10 UTC" in reply
    assert await stored(db, game) == []
    assert harness.session.last_text(CHIEF) is None  # nobody is bothered


async def test_D11_window_is_the_message_date_not_the_bot_clock(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    # The bot reads this a year after the game; the message itself is on time.
    await protest(harness, USER_BASE + 2, "/protest late read", ENDED + timedelta(minutes=3))
    assert len(await stored(db, game)) == 1


async def test_D11_a_player_not_seated_in_the_game_is_refused(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    sent = ENDED + timedelta(minutes=2)
    # P11 is in the tournament but did not sit at the table.
    reply = await protest(harness, USER_BASE + 11, "/protest I saw it all", sent)
    assert "did not sit" in reply and "only a player seated" in reply and "D11" not in reply
    # A stranger to the tournament is refused the same way.
    reply = await protest(harness, 999, "/protest me too", sent)
    assert "did not sit" in reply
    assert await stored(db, game) == []


async def test_a_second_protest_on_the_same_game_is_refused(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    await protest(harness, USER_BASE + 1, "/protest first", ENDED + timedelta(minutes=1))
    reply = await protest(harness, USER_BASE + 1, "/protest again", ENDED + timedelta(minutes=2))
    [row] = await stored(db, game)
    assert reply.startswith("You have already protested round 1, table 1")
    assert f"protest #{row.id} open" in reply and row.text == "first"
    # Another player of the same game may still protest it.
    await protest(harness, USER_BASE + 2, "/protest mine", ENDED + timedelta(minutes=3))
    assert len(await stored(db, game)) == 2


async def test_protest_without_reason_asks_for_it_and_dates_the_reason(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    ask = await protest(harness, USER_BASE + 1, "/protest", ENDED + timedelta(minutes=4))
    assert "Write the reason" in ask and "18:10 UTC" in ask
    assert await stored(db, game) == []
    sent = ENDED + timedelta(minutes=9)
    reply = await protest(harness, USER_BASE + 1, "the don was nominated twice", sent)
    [row] = await stored(db, game)
    assert reply.startswith(f"Protest #{row.id}") and row.filed_at == sent
    assert row.text == "the don was nominated twice"


async def test_8_8_1_a_reason_sent_after_the_window_is_refused(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    await protest(harness, USER_BASE + 1, "/protest", ENDED + timedelta(minutes=9))
    reply = await protest(harness, USER_BASE + 1, "slow typing", ENDED + timedelta(minutes=11))
    assert "Too late" in reply and "the deadline was 18:10 UTC" in reply
    assert await stored(db, game) == []
    # The conversation is over: a later text is not taken as a protest.
    await protest(harness, USER_BASE + 1, "/cancel", ENDED + timedelta(minutes=12))
    assert harness.session.last_text(USER_BASE + 1) == "Nothing to cancel."


async def test_several_recent_games_ask_which_one(harness: BotHarness, db: Database) -> None:
    world = await make_world(db, 12)
    await add_game(db, world, range(1, 11), table_no=1)
    later = ENDED + timedelta(minutes=5)
    second = await add_game(db, world, [1, 2, 3, 4, 5, 6, 7, 8, 11, 12], round_no=2, ended_at=later)
    player = harness.user(USER_BASE + 1, "Pavel", language_code="en")
    await harness.send(
        harness.updates.private_message(
            player, "/protest wrong seat", date=ENDED + timedelta(minutes=8)
        )
    )
    choice = harness.session.last_message(player.id)
    labels = [label for label, _ in buttons(choice)]
    assert labels == [
        "round 2, table 1, ended 18:05 UTC",
        "round 1, table 1, ended 18:00 UTC",
    ]
    # Someone else can't use his buttons.
    stranger = harness.user(USER_BASE + 2, "Other", language_code="en")
    await harness.press(stranger, choice, text=labels[0])
    assert "not yours" in (answers(harness)[-1] or "")
    await harness.press(player, choice, text=labels[0])
    [row] = await stored(db, second)
    assert row.text == "wrong seat" and row.filed_at == ENDED + timedelta(minutes=8)


async def test_protest_in_the_tournament_chat(harness: BotHarness, db: Database) -> None:
    _world, game = await world_with_game(db)
    await protest(
        harness, USER_BASE + 4, "/protest foul", ENDED + timedelta(minutes=1), chat_id=CHAT
    )
    [row] = await stored(db, game)
    assert row.source_chat_id == CHAT
    # (The chat's live standings message may follow; the answer is among the texts.)
    assert any(t.startswith(f"Protest #{row.id}") for t in harness.session.sent_texts(CHAT))


async def decide(
    harness: BotHarness, chief_id: int, card_text: str, decision: str, *, card: object = None
) -> None:
    chief = harness.user(chief_id, "Chief", language_code="en")
    message = card or harness.session.last_message(chief_id)
    await harness.press(chief, message, text=card_text)  # type: ignore[arg-type]
    await harness.say(chief, decision)


async def test_8_8_2_upheld_protest_tells_everyone_and_leads_to_the_game_menu(
    harness: BotHarness, db: Database
) -> None:
    world, game = await world_with_game(db)
    guest = harness.user(700, "Guest", language_code="en")
    await protest(harness, USER_BASE + 1, "/protest miscount", ENDED + timedelta(minutes=1))
    await harness.say(guest, "/rating", chat_id=CHAT)
    assert "Pending games included: 1" in (harness.session.last_text(CHAT) or "")

    card = harness.session.last_message(CHIEF)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.press(chief, card, text="✅ Uphold protest")
    assert "will be upheld" in (harness.session.last_text(CHIEF) or "")
    await harness.say(chief, "The video shows six votes, not five.")

    [row] = await stored(db, game)
    assert row.status == "upheld" and row.decided_by == CHIEF
    assert row.decision == "The video shows six votes, not five."
    # The chief judge is led into correcting or annulling the game.
    reply = harness.session.last_message(CHIEF)
    assert reply is not None and "upheld" in (reply.text or "")
    assert buttons(reply) == [("Correct or annul the game", GameMenu(game_id=game).pack())]
    # The player is told, with the decision.
    told = harness.session.last_text(USER_BASE + 1) or ""
    assert "was upheld by the chief judge" in told and "six votes" in told
    # The chat gets one line, in the tournament's language (English here).
    notes = [t for t in harness.session.sent_texts(CHAT) if t.startswith("⚖️")]
    assert notes == [
        f"⚖️ Protest #{row.id} against round 1, table 1 was upheld by the chief judge (8.8.4)."
    ]
    # Audited, with who decided.
    async with db.read() as conn:
        entries = await audit_entries(conn, world.tournament_id, entity="protest")
    decided = next(e for e in entries if e.action == "protest.decide")
    assert decided.actor_id == CHIEF and decided.before["status"] == "open"
    assert decided.after["status"] == "upheld"
    # The standings are recomputed: the game is no longer pending.
    await harness.say(guest, "/rating", chat_id=CHAT)
    assert "Pending" not in (harness.session.last_text(CHAT) or "")


async def test_8_8_2_rejected_protest_without_decision_text(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    await protest(harness, USER_BASE + 3, "/protest unfair", ENDED + timedelta(minutes=1))
    await decide(harness, CHIEF, "❌ Reject protest", "-")
    [row] = await stored(db, game)
    assert row.status == "rejected" and row.decision is None
    assert "rejected" in (harness.session.last_text(CHIEF) or "")
    assert buttons(harness.session.last_message(CHIEF)) == []  # nothing to correct
    told = harness.session.last_text(USER_BASE + 3) or ""
    assert "was rejected by the chief judge" in told and "Decision:" not in told
    assert any(t.startswith("⚖️") and "rejected" in t for t in harness.session.sent_texts(CHAT))


async def test_8_8_4_a_decided_protest_cannot_be_decided_again(
    harness: BotHarness, db: Database
) -> None:
    world, game = await world_with_game(db)
    async with db.transaction() as conn:
        await add_staff(conn, world.tournament_id, CHIEF2, "chief", added_by=CHIEF)
    await english_users(db, CHIEF2)
    await protest(harness, USER_BASE + 1, "/protest miscount", ENDED + timedelta(minutes=1))
    card_one = harness.session.last_message(CHIEF)
    card_two = harness.session.last_message(CHIEF2)
    one = harness.user(CHIEF, "Chief", language_code="en")
    two = harness.user(CHIEF2, "Chief Two", language_code="en")
    # Both chiefs open the decision before either sends it.
    await harness.press(one, card_one, text="✅ Uphold protest")
    await harness.press(two, card_two, text="❌ Reject protest")
    await harness.say(one, "upheld on video")
    await harness.say(two, "rejected")
    refusal = harness.session.last_text(CHIEF2) or ""
    assert refusal.startswith("Already decided: protest #") and "8.8.4" in refusal
    [row] = await stored(db, game)
    assert row.status == "upheld" and row.decision == "upheld on video"
    # A later tap on the old card is refused too, and changes nothing.
    await harness.press(one, card_one, text="❌ Reject protest")
    assert "final (8.8.4)" in (answers(harness)[-1] or "")
    async with db.read() as conn:
        assert (await get_protest(conn, row.id)).status == "upheld"  # type: ignore[union-attr]
    told = [t for t in harness.session.sent_texts(USER_BASE + 1) if "chief judge" in t]
    assert len(told) == 2  # "recorded ... the chief judge will decide", then one decision


async def test_only_a_chief_judge_decides(harness: BotHarness, db: Database) -> None:
    _world, game = await world_with_game(db)
    await protest(harness, USER_BASE + 1, "/protest miscount", ENDED + timedelta(minutes=1))
    card = harness.session.last_message(CHIEF)
    player = harness.user(USER_BASE + 2, "Sneaky", language_code="en")
    await harness.press(player, card, text="✅ Uphold protest")
    assert "Only the tournament's chief judge" in (answers(harness)[-1] or "")
    [row] = await stored(db, game)
    assert row.status == "open"


async def test_chief_lists_open_protests(harness: BotHarness, db: Database) -> None:
    _world, _game = await world_with_game(db)
    await protest(harness, USER_BASE + 1, "/protest one", ENDED + timedelta(minutes=1))
    await protest(harness, USER_BASE + 2, "/protest two", ENDED + timedelta(minutes=2))
    chief = harness.user(CHIEF, "Chief", language_code="en")
    harness.session.clear()
    await harness.say(chief, "/protests")
    texts = harness.session.sent_texts(CHIEF)
    assert texts[0].startswith("Open protests: 2")
    assert "Reason: one" in texts[1] and "Reason: two" in texts[2]
    await decide(harness, CHIEF, "❌ Reject protest", "-")
    harness.session.clear()
    await harness.say(chief, "/protests")
    assert harness.session.sent_texts(CHIEF)[0].startswith("Open protests: 1")
    outsider = harness.user(USER_BASE + 1, "Pavel", language_code="en")
    await harness.say(outsider, "/protests")
    assert "Only the tournament's chief judge" in (harness.session.last_text(outsider.id) or "")


async def test_in_the_group_the_reason_is_asked_for_as_a_reply(
    harness: BotHarness, db: Database
) -> None:
    _world, game = await world_with_game(db)
    await protest(harness, USER_BASE + 6, "/protest", ENDED + timedelta(minutes=2), chat_id=CHAT)
    # Privacy mode shows the bot only replies to it: the prompt asks for one.
    assert isinstance(harness.session.last_markup(CHAT), ForceReply)
    await protest(
        harness,
        USER_BASE + 6,
        "two players spoke at once",
        ENDED + timedelta(minutes=3),
        chat_id=CHAT,
    )
    [row] = await stored(db, game)
    assert row.text == "two players spoke at once" and row.source_chat_id == CHAT


async def test_8_8_3_decision_waits_for_the_video_review_and_records_its_basis(
    harness: BotHarness, db: Database
) -> None:
    """8.8.3: the chief judge may review video and consult the judging committee, so a
    protest stays open with no deadline for the decision (only the filing has one, 8.8.1),
    across restarts of the conversation, and the decision text records the basis."""
    _world, game = await world_with_game(db)
    await protest(harness, USER_BASE + 1, "/protest miscount", ENDED + timedelta(minutes=1))
    chief = harness.user(CHIEF, "Chief", language_code="en")
    # Still open and decidable after the filing window closed: no decision deadline.
    await harness.say(chief, "/protests")
    assert harness.session.sent_texts(CHIEF)[-2].startswith("Open protests: 1")
    basis = "Video reviewed with the FIIM judging committee: the count stands."
    await decide(harness, CHIEF, "❌ Reject protest", basis)
    [row] = await stored(db, game)
    assert row.status == "rejected" and row.decision == basis
    assert basis in (harness.session.last_text(USER_BASE + 1) or "")


async def test_8_8_1_a_second_protest_in_the_window_asks_again_and_names_the_protested_game(
    harness: BotHarness, db: Database
) -> None:
    """Misfiled protest: after protesting round 3, a second /protest is not filed against
    round 2 without asking; the chooser lists round 2 only and names round 3."""
    world = await make_world(db, 12)
    second = await add_game(db, world, range(1, 11), round_no=2)
    third = await add_game(
        db, world, range(1, 11), round_no=3, ended_at=ENDED + timedelta(minutes=4)
    )
    player = harness.user(USER_BASE + 1, "Pavel", language_code="en")
    await protest(harness, player.id, "/protest", ENDED + timedelta(minutes=5))
    choice = harness.session.last_message(player.id)
    [round_3] = [label for label, _ in buttons(choice) if label.startswith("round 3, table 1")]
    await harness.press(player, choice, text=round_3)
    await protest(harness, player.id, "the vote was miscounted", ENDED + timedelta(minutes=6))
    assert [row.text for row in await stored(db, third)] == ["the vote was miscounted"]

    again = await protest(harness, player.id, "/protest", ENDED + timedelta(minutes=7))
    assert "Which one do you protest?" in again
    assert "You already protested round 3, table 1." in again
    choice = harness.session.last_message(player.id)
    labels = [label for label, _ in buttons(choice)]
    assert len(labels) == 1 and labels[0].startswith("round 2, table 1")
    assert await stored(db, second) == []  # nothing filed without his choice
    await harness.press(player, choice, text=labels[0])
    await protest(harness, player.id, "wrong seat", ENDED + timedelta(minutes=8))
    assert [row.text for row in await stored(db, second)] == ["wrong seat"]


async def test_8_8_a_game_under_protest_is_marked_in_the_group_text_and_picture(
    harness: BotHarness, db: Database
) -> None:
    """The group's live standings mark the players of a game under protest and say
    which protest is open; the standings picture marks them and its caption says so."""
    from aiogram.methods import SendPhoto

    from tests.handlers.rating_fixtures import CHAT

    _world, game = await world_with_game(db)
    sent = ENDED + timedelta(minutes=3)
    await protest(harness, USER_BASE + 1, "/protest the vote was miscounted", sent)
    [row] = await stored(db, game)
    live = harness.session.last_text(CHAT) or ""
    assert f"protest #{row.id} open, 8.8" in live
    assert "P1*" in live and "P11*" not in live  # P11 did not play it
    assert "Player  Total Extra Wins   Ci" in live  # the picture's column names
    player = harness.user(USER_BASE + 2, "P2", language_code="en")
    await harness.send(harness.updates.private_message(player, "/rating image"))
    [photo] = harness.session.requests_of(SendPhoto)
    assert f"protest #{row.id} open" in (photo.caption or "")
