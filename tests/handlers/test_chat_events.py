"""The tournament's group itself: the bot removed and added back (my_chat_member), made
an admin, and the group upgraded to a supergroup (migrate service messages)."""

from __future__ import annotations

from aiogram.methods import PinChatMessage

from bot.db import tournaments, users
from bot.db.connection import Database
from bot.db.tournaments import TournamentRow
from bot.publishing import Publisher
from tests.support import ApiError, BotHarness
from tests.test_publishing import CHIEF, GROUP, draft, make_tournament, publish_result, save

ADMIN = 8201


async def stored(db: Database, tournament_id: int) -> TournamentRow:
    async with db.read() as conn:
        return await tournaments.require_tournament(conn, tournament_id)


async def test_kicked_bot_marks_the_tournament_and_tells_the_chief_once(
    harness: BotHarness, db: Database
) -> None:
    t, _ = await make_tournament(db)
    admin = harness.user(ADMIN, "Админ")
    async with db.transaction() as conn:  # the chief is known to the bot, in English
        await users.upsert_user(conn, CHIEF, first_name="Главный", language_code="en")

    await harness.send(harness.updates.my_chat_member(GROUP, admin, old="member", new="kicked"))

    assert (await stored(db, t.id)).bot_removed
    told = harness.session.sent_texts(CHIEF)
    assert len(told) == 1 and "removed" in told[0] and "Весенний кубок" in told[0]

    # Telegram may repeat the news (left after kicked, a 403 on a send): no second note.
    await harness.send(harness.updates.my_chat_member(GROUP, admin, old="kicked", new="left"))
    await harness.dispatcher["publisher"].bot_removed(harness.bot, GROUP)
    assert harness.session.sent_texts(CHIEF) == told


async def test_bot_added_back_clears_the_mark_and_posts_what_waited(
    harness: BotHarness, db: Database
) -> None:
    t, ids = await make_tournament(db)
    admin = harness.user(ADMIN, "Админ")
    publisher: Publisher = harness.dispatcher["publisher"]
    await harness.send(harness.updates.my_chat_member(GROUP, admin, old="member", new="left"))
    game = await save(db, t.id, draft(1, 1, ids[:10]))
    await publish_result(db, publisher, harness.bot, t.id, game, "Стол 1: победа красных")
    assert harness.session.sent_texts(GROUP) == []  # the bot is not there

    await harness.send(
        harness.updates.my_chat_member(GROUP, admin, old="left", new="administrator")
    )

    assert not (await stored(db, t.id)).bot_removed
    texts = harness.session.sent_texts(GROUP)
    assert texts[0] == "Стол 1: победа красных" and "<pre>" in texts[1]


async def test_a_403_on_a_send_counts_as_removal(harness: BotHarness, db: Database) -> None:
    t, ids = await make_tournament(db)
    harness.session.fail_next("sendMessage", ApiError.kicked(), chat_id=GROUP)
    game = await save(db, t.id, draft(1, 1, ids[:10]))
    publisher = harness.dispatcher["publisher"]
    await publish_result(db, publisher, harness.bot, t.id, game, "Стол 1")
    assert (await stored(db, t.id)).bot_removed
    assert len(harness.session.sent_texts(CHIEF)) == 1


async def test_promoted_bot_pins_the_standings(harness: BotHarness, db: Database) -> None:
    t, ids = await make_tournament(db)
    harness.session.fail_next(
        "pinChatMessage", ApiError.bad_request("not enough rights to manage pinned messages")
    )
    game = await save(db, t.id, draft(1, 1, ids[:10]))
    publisher = harness.dispatcher["publisher"]
    await publish_result(db, publisher, harness.bot, t.id, game, "Стол 1")
    message_id = (await stored(db, t.id)).standings_message_id
    assert harness.session.requests_of(PinChatMessage, delivered=True) == []

    admin = harness.user(ADMIN, "Админ")
    await harness.send(
        harness.updates.my_chat_member(GROUP, admin, old="member", new="administrator")
    )

    (pin,) = harness.session.requests_of(PinChatMessage, delivered=True)
    assert pin.message_id == message_id and pin.disable_notification


async def test_migrate_to_chat_id_moves_the_tournament(harness: BotHarness, db: Database) -> None:
    t, _ = await make_tournament(db, chat_id=-4001)
    async with db.transaction() as conn:
        await tournaments.set_standings_message(conn, t.id, 7, "hash")
    admin = harness.user(ADMIN, "Админ")

    await harness.send(harness.updates.group_message(
        admin, -4001, None, chat_type="group", migrate_to_chat_id=-1004001
    ))

    moved = await stored(db, t.id)
    assert moved.chat_id == -1004001
    # The old group's message id means nothing in the supergroup: posted anew next time.
    assert moved.standings_message_id is None and moved.standings_hash is None


async def test_migrate_from_chat_id_in_the_new_supergroup(
    harness: BotHarness, db: Database
) -> None:
    t, _ = await make_tournament(db, chat_id=-4002)
    admin = harness.user(ADMIN, "Админ")
    await harness.send(harness.updates.group_message(
        admin, -1004002, None, chat_type="supergroup", migrate_from_chat_id=-4002
    ))
    assert (await stored(db, t.id)).chat_id == -1004002


async def test_migration_of_a_group_without_tournament_changes_nothing(
    harness: BotHarness, db: Database
) -> None:
    t, _ = await make_tournament(db)
    admin = harness.user(ADMIN, "Админ")
    await harness.send(harness.updates.group_message(
        admin, -4003, None, chat_type="group", migrate_to_chat_id=-1004003
    ))
    assert (await stored(db, t.id)).chat_id == GROUP
