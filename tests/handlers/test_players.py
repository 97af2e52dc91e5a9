"""Players: /join, Confirm / Reject, roster claims, the players' link, /roster."""

from __future__ import annotations

import re

from aiogram.methods import SetMessageReaction
from aiogram.types import ReactionTypeEmoji

from bot.db import audit, invites, players, users
from bot.db.connection import Database
from bot.db.players import PlayerRow
from tests.handlers.tournament_fixtures import (
    TournamentSetup,
    current,
    last_answer,
    reply_to_bot,
    running_tournament,
)
from tests.support import ApiError, BotHarness, buttons

CHAT = -100_700
CHIEF = 701
JUDGE = 702
PETE = 703
ROSA = 704


async def _setup(db: Database, chief_language: str = "en", **kwargs: object) -> TournamentSetup:
    """The tournament; its chief judge Anna's Telegram speaks ``chief_language``."""
    t = await running_tournament(
        db,
        chief_id=CHIEF,
        judge_ids=[JUDGE],
        chat_id=CHAT,
        names={CHIEF: "Anna", JUDGE: "Jack"},
        **kwargs,  # type: ignore[arg-type]
    )
    async with db.transaction() as conn:
        await users.upsert_user(conn, CHIEF, first_name="Anna", language_code=chief_language)
    return t


async def _players(db: Database, tournament_id: int) -> list[PlayerRow]:
    async with db.read() as conn:
        return await players.list_players(conn, tournament_id)


async def _actions(db: Database, tournament_id: int) -> list[str]:
    async with db.read() as conn:
        return [e.action for e in reversed(await audit.audit_entries(conn, tournament_id))]


# -- /join and the chief's decision ---------------------------------------------------------


async def test_join_in_the_group_and_the_chief_confirms(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join   Alex ", chat_id=CHAT)
    # Answered privately with a 👍 on his /join: the group's 20 messages a minute are
    # not spent on joins.
    assert harness.session.last_text(PETE) == (
        "Your application as <b>Alex</b> to «Test Cup» is sent. The chief judge will confirm it."
    )
    assert harness.session.sent_texts(CHAT) == []
    [reaction] = harness.session.requests_of(SetMessageReaction)
    assert reaction.chat_id == CHAT and reaction.reaction == [ReactionTypeEmoji(emoji="👍")]
    [player] = await _players(db, t.id)
    assert (player.nickname, player.user_id, player.status) == ("Alex", PETE, "pending")

    request = harness.session.last_message(CHIEF)
    assert request is not None
    assert request.text == "New player for «Test Cup»: <b>Alex</b>, Pete."
    assert [label for label, _ in buttons(request)] == ["✅ Confirm", "❌ Reject"]

    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.press(chief, request, text="✅ Confirm")
    # Who applied stays on the decision (the applicant's name, then the nickname).
    assert last_answer(harness) == "✅ Pete confirmed as Alex."
    edited = harness.session.message(CHIEF, request.message_id)
    assert edited is not None and buttons(edited) == []
    assert (
        edited.text
        == "New player for «Test Cup»: <b>Alex</b>, Pete.\n\n✅ Pete confirmed as <b>Alex</b>."
    )
    assert harness.session.last_text(PETE) == (
        "You are in: <b>Alex</b> is confirmed for «Test Cup»."
    )
    [player] = await _players(db, t.id)
    assert player.status == "confirmed" and player.decided_by == CHIEF
    async with db.read() as conn:
        [confirm, add] = await audit.audit_entries(conn, t.id, entity="player")
    assert (add.action, add.after["status"]) == ("player.add", "pending")
    assert (confirm.action, confirm.before["status"], confirm.after["status"]) == (
        "player.confirm",
        "pending",
        "confirmed",
    )

    # The old button pressed again changes nothing.
    await harness.press(chief, request, text="❌ Reject")
    assert last_answer(harness) == "Decided already: ✅ Pete confirmed as Alex."
    assert (await _players(db, t.id))[0].status == "confirmed"


async def test_the_chief_is_asked_in_his_language_not_the_applicants(
    harness: BotHarness, db: Database
) -> None:
    """A Russian group and applicant; the chief judge's Telegram is English: the request
    and its buttons are in English. And the other way round."""
    await _setup(db, language="ru")
    pete = harness.user(PETE, "Pete", language_code="ru")
    await harness.say(pete, "/join Alex", chat_id=CHAT)
    assert "Ваша заявка" in (harness.session.last_text(PETE) or "")  # his own language
    request = harness.session.last_message(CHIEF)
    assert request is not None
    assert request.text == "New player for «Test Cup»: <b>Alex</b>, Pete."
    assert [label for label, _ in buttons(request)] == ["✅ Confirm", "❌ Reject"]
    async with db.transaction() as conn:
        await users.upsert_user(conn, CHIEF, first_name="Anna", language_code="ru")
    rosa = harness.user(ROSA, "Rosa", language_code="en")
    await harness.say(rosa, "/join Bella", chat_id=CHAT)
    request = harness.session.last_message(CHIEF)
    assert request is not None
    assert request.text == "Новый игрок в турнир «Test Cup»: <b>Bella</b>, Rosa."
    assert [label for label, _ in buttons(request)] == ["✅ Подтвердить", "❌ Отклонить"]


async def test_chief_rejects_and_the_nickname_is_free_again(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(db)
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join Alex", chat_id=CHAT)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.press(chief, harness.session.last_message(CHIEF), text="❌ Reject")
    assert last_answer(harness) == "❌ Pete: the application as Alex is rejected."
    assert harness.session.last_text(PETE) == (
        "Your application as <b>Alex</b> to «Test Cup» was rejected by the chief judge."
    )
    rosa = harness.user(ROSA, "Rosa", language_code="en")
    await harness.say(rosa, "/join alex", chat_id=CHAT)
    statuses = sorted((p.nickname, p.user_id, p.status) for p in await _players(db, t.id))
    assert statuses == [("Alex", PETE, "rejected"), ("alex", ROSA, "pending")]
    assert "player.reject" in await _actions(db, t.id)


async def test_a_nickname_linked_to_another_account_is_refused(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(db, players=["Ann"], player_users={"Ann": ROSA})
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join  ANN", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "The nickname <b>Ann</b> is taken by another player of «Test Cup». Choose another one."
    )
    assert [p.user_id for p in await _players(db, t.id)] == [ROSA]
    assert harness.session.sent_texts(CHIEF) == []


async def test_nickname_length_is_1_to_32(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join " + "x" * 33, chat_id=CHAT)
    text = harness.session.last_text(CHAT) or ""
    assert text.startswith("A nickname is 1–32 characters;") and "has 33" in text
    await harness.say(pete, "/join", chat_id=CHAT)
    assert (harness.session.last_text(CHAT) or "").startswith("Send /join and your nickname")
    assert await _players(db, t.id) == []
    await harness.say(pete, "/join " + "y" * 32, chat_id=CHAT)
    assert [len(p.nickname) for p in await _players(db, t.id)] == [32]


async def test_a_second_join_says_where_he_stands(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join Alex", chat_id=CHAT)
    await harness.say(pete, "/join Other", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "Your application as <b>Alex</b> to «Test Cup» is waiting for the chief judge."
    )
    assert [p.nickname for p in await _players(db, t.id)] == ["Alex"]


async def test_join_without_a_tournament_in_the_group(harness: BotHarness) -> None:
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join Alex", chat_id=CHAT)
    assert "no unfinished tournament in this group" in (harness.session.last_text(CHAT) or "")


async def test_unreachable_chief_decides_in_the_group_and_only_he_can(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(db)
    harness.session.fail_next("sendMessage", ApiError.cant_initiate(), chat_id=CHIEF)
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join Alex", chat_id=CHAT)
    reply = harness.session.last_message(CHAT)
    assert reply is not None and "Chief judge: decide here." in (reply.text or "")
    assert [label for label, _ in buttons(reply)] == ["✅ Confirm", "❌ Reject"]

    await harness.press(pete, reply, text="✅ Confirm")
    assert last_answer(harness) == "Only the chief judge of this tournament can do that."
    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.press(jack, reply, text="✅ Confirm")
    assert last_answer(harness) == "Only the chief judge of this tournament can do that."
    assert (await _players(db, t.id))[0].status == "pending"

    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.press(chief, reply, text="✅ Confirm")
    assert (await _players(db, t.id))[0].status == "confirmed"


# -- claiming a roster nickname -------------------------------------------------------------


async def test_claiming_a_roster_nickname_needs_the_chief(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(db, players=["Bob"])
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join bob", chat_id=CHAT)
    assert harness.session.last_text(PETE) == (
        "<b>Bob</b> is on the roster of «Test Cup». I've asked the chief judge to confirm "
        "that it is you."
    )
    assert (await _players(db, t.id))[0].user_id is None  # nothing linked yet
    request = harness.session.last_message(CHIEF)
    assert request is not None
    assert request.text == (
        "Pete says the roster player <b>Bob</b> of «Test Cup» is them. Link the account?"
    )

    rosa = harness.user(ROSA, "Rosa", language_code="en")
    await harness.say(rosa, "/join Bob", chat_id=CHAT)  # a second claimant
    rosa_request = harness.session.last_message(CHIEF)

    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.press(chief, request, text="✅ Link")
    assert last_answer(harness) == "Linked."
    assert harness.session.last_text(PETE) == (
        "You are in: <b>Bob</b> of «Test Cup» is now your account."
    )
    [bob] = await _players(db, t.id)
    assert (bob.user_id, bob.status) == (PETE, "confirmed")
    async with db.read() as conn:
        [link] = await audit.audit_entries(conn, t.id, entity="player", limit=1)
    assert (link.action, link.before["user_id"], link.after["user_id"]) == (
        "player.link",
        None,
        PETE,
    )

    await harness.press(chief, rosa_request, text="✅ Link")
    assert last_answer(harness) == "This nickname is linked to another account already."
    assert (await _players(db, t.id))[0].user_id == PETE


async def test_a_rejected_claim_links_nothing(harness: BotHarness, db: Database) -> None:
    t = await _setup(db, players=["Bob"])
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join Bob", chat_id=CHAT)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.press(chief, harness.session.last_message(CHIEF), text="❌ Reject")
    assert last_answer(harness) == "Not linked."
    assert "did not confirm" in (harness.session.last_text(PETE) or "")
    assert (await _players(db, t.id))[0].user_id is None


# -- the players' invite link ---------------------------------------------------------------


async def test_join_through_the_players_link_in_private(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/invite_players", chat_id=CHAT)
    posted = harness.session.last_message(CHAT)
    assert posted is not None
    found = re.search(r"https://t\.me/mafia_test_bot\?start=tp_([A-Za-z0-9_-]+)", posted.text or "")
    assert found
    token = found.group(1)
    assert [label for label, _ in buttons(posted)] == ["Revoke the link"]
    # Asked again: only digests are stored, so a new link; the first one still works.
    await harness.say(chief, "/invite_players", chat_id=CHAT)
    again = harness.session.last_text(CHAT) or ""
    assert "?start=tp_" in again and token not in again

    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, f"/start tp_{token}")
    assert harness.session.last_text(PETE) == (
        "You are joining «Test Cup». Send your nickname (1–32 characters)."
    )
    await harness.say(pete, "x" * 40)
    assert (harness.session.last_text(PETE) or "").startswith("A nickname is 1–32 characters;")
    await harness.say(pete, "Alex")
    assert (harness.session.last_text(PETE) or "").startswith("Your application as <b>Alex</b>")
    [player] = await _players(db, t.id)
    assert (player.nickname, player.user_id, player.status) == ("Alex", PETE, "pending")
    assert harness.session.last_text(CHIEF) == "New player for «Test Cup»: <b>Alex</b>, Pete."
    actions = await _actions(db, t.id)
    assert actions[-3:] == ["invite.create", "player.add", "invite.use"]

    # The conversation is over: more text is not another application.
    await harness.say(pete, "Boris")
    assert len(await _players(db, t.id)) == 1

    # Reusable for the next player.
    rosa = harness.user(ROSA, "Rosa", language_code="en")
    await harness.say(rosa, f"/start tp_{token}")
    await harness.say(rosa, "/join Rita")
    assert sorted(p.nickname for p in await _players(db, t.id)) == ["Alex", "Rita"]


async def test_a_revoked_players_link_is_refused(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/invite_players")
    posted = harness.session.last_message(CHIEF)
    assert posted is not None
    token = re.search(r"start=tp_([A-Za-z0-9_-]+)", posted.text or "").group(1)  # type: ignore[union-attr]
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, f"/start tp_{token}")  # opened before the revocation
    await harness.press(chief, posted, text="Revoke the link")
    assert last_answer(harness) == "The invite link is revoked; it no longer works."
    await harness.say(pete, "Alex")
    assert harness.session.last_text(PETE) == (
        "This invite link was revoked. Ask the chief judge for a new one."
    )
    rosa = harness.user(ROSA, "Rosa", language_code="en")
    await harness.say(rosa, f"/start tp_{token}")
    assert harness.session.last_text(ROSA) == (
        "This invite link was revoked. Ask the chief judge for a new one."
    )
    assert await _players(db, t.id) == []
    async with db.read() as conn:
        assert await invites.list_invites(conn, t.id, usable_only=True) == []


async def test_join_in_private_without_a_link_explains(harness: BotHarness, db: Database) -> None:
    await _setup(db)
    pete = harness.user(PETE, "Pete", language_code="en")
    await harness.say(pete, "/join Alex")
    assert "open the tournament's player invite link first" in (
        harness.session.last_text(PETE) or ""
    )


async def test_only_the_chief_makes_the_players_link(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(jack, "/invite_players", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "Only the chief judge of this tournament can do that."
    async with db.read() as conn:
        assert await invites.list_invites(conn, t.id) == []


# -- /roster --------------------------------------------------------------------------------


async def test_roster_creates_good_lines_and_reports_duplicates_and_bad_ones(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(db, players=["Zed"])
    chief = harness.user(CHIEF, "Anna", language_code="en")
    long_name = "L" * 33
    await harness.say(
        chief,
        f"/roster\nAnn\n  Bob  \nann\n\nzed\n{long_name}\nCid",
        chat_id=CHAT,
    )
    text = harness.session.last_text(CHAT) or ""
    lines = text.split("\n")
    assert lines[0] == "Roster of «Test Cup»: 3 created, 2 already there, 1 bad."
    assert lines[1] == "Created: <b>Ann</b>, <b>Bob</b>, <b>Cid</b>"
    assert lines[2] == "Already registered, skipped: <b>ann</b>, <b>zed</b>"
    assert lines[3] == "Bad lines, skipped:"
    assert lines[4].startswith("line 6: A nickname is 1–32 characters;")
    rows = await _players(db, t.id)
    assert sorted((p.nickname, p.status, p.user_id) for p in rows) == [
        ("Ann", "confirmed", None),
        ("Bob", "confirmed", None),
        ("Cid", "confirmed", None),
        ("Zed", "confirmed", None),
    ]
    async with db.read() as conn:
        [summary] = await audit.audit_entries(conn, t.id, entity="tournament", limit=1)
    assert summary.action == "roster.import"
    assert summary.after["created"] == ["Ann", "Bob", "Cid"]
    assert (await _actions(db, t.id)).count("player.add") == 3


async def test_roster_in_two_steps_in_private(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/roster")
    assert (harness.session.last_text(CHIEF) or "").startswith(
        "Reply with the players' nicknames, one a line"
    )
    await harness.say(chief, "Ann\nBob")
    assert (harness.session.last_text(CHIEF) or "").startswith(
        "Roster of «Test Cup»: 2 created, 0 already there, 0 bad."
    )
    assert sorted(p.nickname for p in await _players(db, t.id)) == ["Ann", "Bob"]


async def test_roster_in_two_steps_in_the_group_takes_only_the_reply(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/roster", chat_id=CHAT)
    await harness.say(chief, "Chatter", chat_id=CHAT)  # not a reply to the bot: ignored
    assert await _players(db, t.id) == []
    await reply_to_bot(harness, chief, CHAT, "Ann\nBob")
    assert sorted(p.nickname for p in await _players(db, t.id)) == ["Ann", "Bob"]


async def test_only_the_chief_imports_a_roster(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(jack, "/roster\nAnn", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "Only the chief judge of this tournament can do that."
    assert await _players(db, t.id) == []


# -- applications from the tournament card --------------------------------------------------


async def test_applications_list_from_the_card(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    async with db.transaction() as conn:
        await players.add_player(conn, t.id, "Alex", user_id=PETE)
        await players.add_player(conn, t.id, "Rita", user_id=ROSA)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    await harness.press(chief, harness.session.last_message(CHAT), text="Applications (2)")
    listing = current(harness, CHIEF)
    assert listing is not None
    assert (listing.text or "").startswith("Applications to «Test Cup»:")
    assert [label for label, _ in buttons(listing)] == ["✅ Alex", "❌ Alex", "✅ Rita", "❌ Rita"]
    await harness.press(chief, listing, text="❌ Rita")
    refreshed = harness.session.message(CHIEF, listing.message_id)
    assert [label for label, _ in buttons(refreshed)] == ["✅ Alex", "❌ Alex"]
    statuses = {p.nickname: p.status for p in await _players(db, t.id)}
    assert statuses == {"Alex": "pending", "Rita": "rejected"}


async def test_a_join_from_someone_who_never_started_the_bot_is_answered_in_the_group(
    harness: BotHarness, db: Database
) -> None:
    await _setup(db)
    pete = harness.user(PETE, "Pete", language_code="en")
    harness.session.telegram.users[PETE].started = False  # he never pressed Start
    await harness.say(pete, "/join Alex", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "Your application as <b>Alex</b> to «Test Cup» is sent. The chief judge will confirm it."
    )
