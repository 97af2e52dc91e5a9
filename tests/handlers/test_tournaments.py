"""/new_tournament, the /tournament card, Start and Finish."""

from __future__ import annotations

from datetime import timedelta

from aiogram.methods import SendMediaGroup
from aiogram.types import ForceReply

from bot.db import audit, players, protests, staff, tournaments
from bot.db.connection import Database
from tests.handlers import rating_fixtures as rf
from tests.handlers.tournament_fixtures import (
    current,
    last_answer,
    reply_to_bot,
    running_tournament,
)
from tests.support import BOT_ID, BotHarness, buttons

CHAT = -100_500
CHIEF = 501
JUDGE = 502
OTHER = 503


async def _group_tournaments(db: Database, chat_id: int = CHAT) -> list[tournaments.TournamentRow]:
    async with db.read() as conn:
        return await tournaments.tournaments_for_chat(conn, chat_id)


# -- /new_tournament ------------------------------------------------------------------------


async def test_new_tournament_asks_title_then_distance_and_creates_it(
    harness: BotHarness, db: Database
) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament en", chat_id=CHAT)
    prompt = harness.session.last_message(CHAT)
    assert prompt is not None and "title" in (prompt.text or "")
    sent = harness.session.requests[-1]
    assert isinstance(getattr(sent, "reply_markup", None), ForceReply)

    await reply_to_bot(harness, chief, CHAT, "  Spring   Cup  ")
    assert "8.6.1" in (harness.session.last_text(CHAT) or "")
    assert await _group_tournaments(db) == []  # nothing stored before the last step

    await reply_to_bot(harness, chief, CHAT, "10")
    text = harness.session.last_text(CHAT) or ""
    assert "«Spring Cup» is created: 10 games per player, B = 4" in text
    assert "not an administrator" not in text  # the test bot is an admin with pin rights

    [created] = await _group_tournaments(db)
    assert (created.title, created.distance, created.status) == ("Spring Cup", 10, "registration")
    async with db.read() as conn:
        assert await staff.staff_role(conn, created.id, CHIEF) == "chief"
        actions = [e.action for e in await audit.audit_entries(conn, created.id)]
    assert sorted(actions) == ["staff.add", "tournament.create"]


async def test_8_6_1_bad_distance_is_refused_and_nothing_is_stored(
    harness: BotHarness, db: Database
) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament", chat_id=CHAT)
    await reply_to_bot(harness, chief, CHAT, "Cup")
    for bad in ("ten", "0", "101", "-3", "7.5", "１０"):
        await reply_to_bot(harness, chief, CHAT, bad)
        text = harness.session.last_text(CHAT) or ""
        assert text.startswith("The distance must be a whole number of games from 1 to 100")
        assert "8.6.1" in text
        assert await _group_tournaments(db) == []
    await reply_to_bot(harness, chief, CHAT, "7")
    [created] = await _group_tournaments(db)
    assert created.distance == 7
    assert "B = 3" in (harness.session.last_text(CHAT) or "")  # 2.8 rounds half up (D2)


async def test_second_tournament_in_the_same_group_is_refused(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(db, chief_id=CHIEF, players=[], chat_id=CHAT, title="First")
    other = harness.user(OTHER, "Oleg", language_code="en")
    await harness.say(other, "/new_tournament", chat_id=CHAT)
    assert "already has an unfinished tournament, «First»" in (
        harness.session.last_text(CHAT) or ""
    )
    # No conversation was started: a reply is not taken as a title.
    sent = len(harness.session.sent_texts(CHAT))
    await reply_to_bot(harness, other, CHAT, "Second")
    assert len(harness.session.sent_texts(CHAT)) == sent
    assert [t.title for t in await _group_tournaments(db)] == ["First"]


async def test_new_tournament_in_private_points_to_the_group(harness: BotHarness) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament")
    assert "in the tournament's group" in (harness.session.last_text(CHIEF) or "")


async def test_group_chatter_is_not_taken_for_the_title(harness: BotHarness, db: Database) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament", chat_id=CHAT)
    sent = len(harness.session.sent_texts(CHAT))
    await harness.say(chief, "wait a second, folks", chat_id=CHAT)  # not a reply to the bot
    assert len(harness.session.sent_texts(CHAT)) == sent
    await reply_to_bot(harness, chief, CHAT, "Cup")
    assert "8.6.1" in (harness.session.last_text(CHAT) or "")


async def test_bot_without_admin_rights_warns_the_chief(harness: BotHarness, db: Database) -> None:
    harness.session.set_chat_member(CHAT, BOT_ID, "member")
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament en", chat_id=CHAT)
    await reply_to_bot(harness, chief, CHAT, "Cup")
    await reply_to_bot(harness, chief, CHAT, "10")
    text = harness.session.last_text(CHAT) or ""
    assert "is created" in text and "I am not an administrator here" in text


async def test_bot_that_cannot_post_tells_the_chief_privately(
    harness: BotHarness, db: Database
) -> None:
    harness.session.set_chat_member(CHAT, BOT_ID, "restricted", can_send_messages=False)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament", chat_id=CHAT)
    assert harness.session.sent_texts(CHAT) == []
    assert "I can't post in that group" in (harness.session.last_text(CHIEF) or "")


async def test_anonymous_admin_cannot_create_a_tournament(
    harness: BotHarness, db: Database
) -> None:
    await harness.send(harness.updates.anonymous_admin_message(CHAT, "/new_tournament"))
    assert "анонимн" in (harness.session.last_text(CHAT) or "").lower()
    assert await _group_tournaments(db) == []
    assert await db.fetchval("SELECT count(*) FROM fsm") == 0


async def test_forwarded_new_tournament_acts_for_no_one(harness: BotHarness, db: Database) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    boss = harness.user(OTHER, "Boss")
    await harness.send(
        harness.updates.group_message(chief, CHAT, "/new_tournament", forward_from=boss)
    )
    assert "forwarded command" in (harness.session.last_text(CHAT) or "").lower()
    assert await db.fetchval("SELECT count(*) FROM fsm") == 0


async def test_cancel_stops_the_conversation(harness: BotHarness, db: Database) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament", chat_id=CHAT)
    await reply_to_bot(harness, chief, CHAT, "Cup")
    await harness.say(chief, "/cancel", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "Cancelled. Nothing was saved."
    await reply_to_bot(harness, chief, CHAT, "10")
    assert await _group_tournaments(db) == []


async def test_new_tournament_texts_are_russian_by_default(harness: BotHarness) -> None:
    chief = harness.user(CHIEF, "Анна", language_code="ru")
    await harness.say(chief, "/new_tournament", chat_id=CHAT)
    assert "Новый турнир" in (harness.session.last_text(CHAT) or "")


# -- the /tournament card -------------------------------------------------------------------


async def test_tournament_card_shows_the_numbers(harness: BotHarness, db: Database) -> None:
    t = await running_tournament(
        db,
        chief_id=CHIEF,
        judge_ids=[JUDGE],
        players=["Ann", "Bob", "Cid"],
        chat_id=CHAT,
        distance=12,
        names={CHIEF: "Anna", JUDGE: "Jack"},
    )
    async with db.transaction() as conn:
        await players.add_player(conn, t.id, "Dan", user_id=OTHER)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    card = harness.session.last_message(CHAT)
    assert card is not None
    text = card.text or ""
    for expected in (
        "Test Cup",
        "Status: running",
        "Distance: 12 games per player (8.6.1), B = 5",
        "Chief judge: Anna",
        "Judges: Jack",
        "Players: 3 confirmed, 1 waiting for confirmation",
        "Games saved: 0",
    ):
        assert expected in text
    labels = [label for label, _ in buttons(card)]
    assert labels == ["🏁 Finish", "Applications (1)"]  # running: no Start any more

    judge = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(judge, "/tournament", chat_id=CHAT)
    assert buttons(harness.session.last_message(CHAT)) == []


async def test_tournament_without_one_in_the_group(harness: BotHarness) -> None:
    user = harness.user(OTHER, "Oleg", language_code="en")
    await harness.say(user, "/tournament", chat_id=CHAT)
    assert "There is no unfinished tournament in this group" in (
        harness.session.last_text(CHAT) or ""
    )


async def test_chief_starts_and_finishes_with_a_confirmation(
    harness: BotHarness, db: Database
) -> None:
    # No players: nothing is left unsettled, so Finish asks only once.
    t = await running_tournament(db, chief_id=CHIEF, chat_id=CHAT, status="registration")
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    card = current(harness, CHAT)
    assert [label for label, _ in buttons(card)] == ["▶️ Start", "🏁 Finish"]

    await harness.press(chief, card, text="▶️ Start")
    assert last_answer(harness) == "The tournament is running."
    async with db.read() as conn:
        assert (await tournaments.require_tournament(conn, t.id)).status == "running"
    # The group reads the tournament's language (English here), the card and the news alike.
    assert "Tournament «Test Cup» has started" in harness.session.sent_texts(CHAT)[-1]
    card = current(harness, CHAT, card.message_id)
    assert "Status: running" in (card.text or "")

    await harness.press(chief, card, text="🏁 Finish")
    confirm = current(harness, CHAT, card.message_id)
    assert "can't be undone" in (confirm.text or "")
    await harness.press(chief, confirm, text="Back")
    card = current(harness, CHAT, card.message_id)
    assert "Status: running" in (card.text or "")

    await harness.press(chief, card, text="🏁 Finish")
    confirm = current(harness, CHAT, card.message_id)
    await harness.press(chief, confirm, text="Yes, finish")
    async with db.read() as conn:
        done = await tournaments.require_tournament(conn, t.id)
        entries = await audit.audit_entries(conn, t.id, entity="tournament")
    assert done.status == "finished"
    assert [(e.before["status"], e.after["status"]) for e in entries] == [
        ("running", "finished"),
        ("registration", "running"),
    ]
    assert buttons(current(harness, CHAT, card.message_id)) == []
    # Pressing Yes again on the old keyboard changes nothing.
    await harness.press(chief, confirm, text="Yes, finish")
    assert last_answer(harness) == "This card is out of date."


async def test_finish_lists_what_is_unsettled_and_asks_again(
    harness: BotHarness, db: Database
) -> None:
    """A protest open on R1-T1, 0.6 awaiting approval on R1-T2 (D7), everyone one game
    short of two: Finish lists them and asks again; Back keeps it running; Finish anyway
    finishes, and the exported protocol shows R1-T1 under protest, not final."""
    world = await rf.make_world(db, 20, distance=2)
    async with db.transaction() as conn:
        await tournaments.set_status(conn, world.tournament_id, "running")
    protested = await rf.add_game(db, world, range(1, 11), table_no=1)
    await rf.add_game(db, world, range(11, 21), table_no=2, extras={3: 60})
    async with db.transaction() as conn:
        await protests.add_protest(conn, protested, world.players[0], world.user_of(1),
                                   "The vote was miscounted", rf.ENDED + timedelta(minutes=5))
    chief = harness.user(rf.CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/tournament", chat_id=rf.CHAT)
    card = current(harness, rf.CHAT)
    await harness.press(chief, card, text="🏁 Finish")
    asked = current(harness, rf.CHAT, card.message_id)
    text = asked.text or ""
    assert "Finish «Spring Cup»? Not everything is settled yet:" in text
    assert "• Open protests (8.8): #1 (R1-T1). Decide them with /protests." in text
    assert "• Judge's points above 0.5 await your approval (8.4.3): R1-T2." in text
    assert "• Players short of the distance (games per player: 2): P1 — 1, P10 — 1" in text
    assert [label for label, _ in buttons(asked)] == ["Finish anyway", "Back"]
    await harness.press(chief, asked, text="Back")
    assert "Status: running" in (current(harness, rf.CHAT, card.message_id).text or "")

    await harness.press(chief, current(harness, rf.CHAT, card.message_id), text="🏁 Finish")
    await harness.press(chief, current(harness, rf.CHAT, card.message_id), text="Finish anyway")
    async with db.read() as conn:
        assert (await tournaments.require_tournament(conn, world.tournament_id)).status == (
            "finished"
        )
    await harness.say(chief, "/export")
    (album,) = [m for m in harness.session.requests_of(SendMediaGroup, delivered=True)
                if m.chat_id == rf.CHIEF]
    files = {item.media.filename: item.media.data for item in album.media}  # type: ignore[union-attr]
    protocol = files[f"protocols-{world.tournament_id}.md"].decode()
    first = protocol[protocol.index("## R1-T1") : protocol.index("## R1-T2")]
    assert "Status: under protest (8.8), not decided yet." in first
    assert "Status: final" not in first


async def test_a_yes_to_a_clean_finish_asks_again_when_a_protest_came_meanwhile(
    harness: BotHarness, db: Database
) -> None:
    world = await rf.make_world(db, 10, distance=1)
    async with db.transaction() as conn:
        await tournaments.set_status(conn, world.tournament_id, "running")
    game = await rf.add_game(db, world, range(1, 11))
    chief = harness.user(rf.CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/tournament", chat_id=rf.CHAT)
    card = current(harness, rf.CHAT)
    await harness.press(chief, card, text="🏁 Finish")
    assert [label for label, _ in buttons(current(harness, rf.CHAT, card.message_id))] == [
        "Yes, finish", "Back"
    ]
    async with db.transaction() as conn:
        await protests.add_protest(conn, game, world.players[1], world.user_of(2), "Too loud",
                                   rf.ENDED + timedelta(minutes=1))
    await harness.press(chief, current(harness, rf.CHAT, card.message_id), text="Yes, finish")
    asked = current(harness, rf.CHAT, card.message_id)
    assert "Open protests (8.8): #1 (R1-T1)" in (asked.text or "")
    async with db.read() as conn:
        assert (await tournaments.require_tournament(conn, world.tournament_id)).status == (
            "running"
        )


async def test_only_the_chief_can_press_start(harness: BotHarness, db: Database) -> None:
    t = await running_tournament(
        db, chief_id=CHIEF, judge_ids=[JUDGE], chat_id=CHAT, status="registration"
    )
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    card = harness.session.last_message(CHAT)
    judge = harness.user(JUDGE, "Jack", language_code="en")
    await harness.press(judge, card, text="▶️ Start")
    assert last_answer(harness) == "Only the chief judge of this tournament can do that."
    async with db.read() as conn:
        assert (await tournaments.require_tournament(conn, t.id)).status == "registration"


async def test_private_tournament_picker_for_staff_of_several(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(db, chief_id=CHIEF, chat_id=CHAT, title="Spring")
    await running_tournament(db, chief_id=OTHER, judge_ids=[CHIEF], chat_id=-100_501, title="Fall")
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament")
    picker = harness.session.last_message(CHIEF)
    assert picker is not None and picker.text == "Which tournament?"
    assert [label for label, _ in buttons(picker)] == ["Fall", "Spring"]
    await harness.press(chief, picker, text="Fall")
    card = current(harness, CHIEF)
    assert "Fall" in (card.text or "") and buttons(card) == []  # a judge there, not chief


async def test_private_tournament_for_someone_not_on_staff(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(db, chief_id=CHIEF, chat_id=CHAT)
    user = harness.user(OTHER, "Oleg", language_code="en")
    await harness.say(user, "/tournament")
    assert harness.session.last_text(OTHER) == "You are not a judge of any unfinished tournament."
