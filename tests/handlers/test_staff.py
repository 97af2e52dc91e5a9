"""Judges: /judge and /unjudge as replies, invite links, /staff, /revoke."""

from __future__ import annotations

import re

from aiogram.types import Message, User

from bot.db import audit, invites, staff
from bot.db.connection import Database
from tests.handlers.tournament_fixtures import (
    TournamentSetup,
    current,
    last_answer,
    running_tournament,
)
from tests.support import ApiError, BotHarness, buttons

CHAT = -100_600
CHIEF = 601
JUDGE = 602
OTHER = 603


async def _setup(
    db: Database, *, judge_ids: list[int] | None = None, names: dict[int, str] | None = None
) -> TournamentSetup:
    return await running_tournament(
        db, chief_id=CHIEF, judge_ids=judge_ids or [], chat_id=CHAT, names=names or {CHIEF: "Anna"}
    )


async def _posted(harness: BotHarness, user: User, text: str = "hello") -> Message:
    update = harness.updates.group_message(user, CHAT, text)
    await harness.send(update)
    assert update.message is not None
    return update.message


async def _reply(harness: BotHarness, user: User, command: str, to: Message) -> None:
    await harness.send(harness.updates.group_message(user, CHAT, command, reply_to=to))


async def _role(db: Database, tournament_id: int, user_id: int) -> str | None:
    async with db.read() as conn:
        return await staff.staff_role(conn, tournament_id, user_id)


def _token(text: str | None) -> str:
    found = re.search(r"start=t[jp]_([A-Za-z0-9_-]+)", text or "")
    assert found, text
    return found.group(1)


# -- by reply -------------------------------------------------------------------------------


async def test_chief_adds_a_judge_by_replying_judge(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    jack = harness.user(JUDGE, "Jack", username="jack", language_code="en")
    said = await _posted(harness, jack)
    await _reply(harness, chief, "/judge", said)
    assert harness.session.last_text(CHAT) == "Jack (@jack) is now a judge of «Test Cup»."
    assert await _role(db, t.id, JUDGE) == "judge"
    async with db.read() as conn:
        [entry] = await audit.audit_entries(conn, t.id, entity="staff")
    assert (entry.action, entry.actor_id, entry.after["role"]) == ("staff.add", CHIEF, "judge")

    await _reply(harness, chief, "/judge", said)
    assert harness.session.last_text(CHAT) == "Jack (@jack) is a judge already."


async def test_judge_without_a_reply_explains_how(harness: BotHarness, db: Database) -> None:
    await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/judge", chat_id=CHAT)
    assert "Reply /judge to a message of the person" in (harness.session.last_text(CHAT) or "")


async def test_only_the_chief_adds_judges(harness: BotHarness, db: Database) -> None:
    t = await _setup(db, judge_ids=[JUDGE])
    jack = harness.user(JUDGE, "Jack", language_code="en")
    oleg = harness.user(OTHER, "Oleg", language_code="en")
    said = await _posted(harness, oleg)
    await _reply(harness, jack, "/judge", said)
    assert harness.session.last_text(CHAT) == "Only the chief judge of this tournament can do that."
    assert await _role(db, t.id, OTHER) is None


async def test_judge_in_private_is_sent_to_the_group(harness: BotHarness, db: Database) -> None:
    await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/judge")
    assert (harness.session.last_text(CHIEF) or "").startswith(
        "Send this in the tournament's group."
    )


async def test_judge_in_a_group_without_tournament(harness: BotHarness, db: Database) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/judge", chat_id=CHAT)
    assert "no unfinished tournament in this group" in (harness.session.last_text(CHAT) or "")


async def test_a_bot_cannot_be_a_judge(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    bot_message = harness.session.last_message(CHAT)
    assert bot_message is not None
    await _reply(harness, chief, "/judge", bot_message)
    assert harness.session.last_text(CHAT) == "A bot or an anonymous admin can't be a judge."
    async with db.read() as conn:
        assert len(await staff.list_staff(conn, t.id)) == 1


async def test_unjudge_by_reply_removes_and_tells_him(harness: BotHarness, db: Database) -> None:
    t = await _setup(db, judge_ids=[JUDGE], names={CHIEF: "Anna", JUDGE: "Jack"})
    chief = harness.user(CHIEF, "Anna", language_code="en")
    jack = harness.user(JUDGE, "Jack", language_code="en")
    said = await _posted(harness, jack)
    await _reply(harness, chief, "/unjudge", said)
    assert harness.session.last_text(CHAT) == "Jack is no longer a judge of «Test Cup»."
    assert harness.session.last_text(JUDGE) == "You are no longer a judge of «Test Cup»."
    assert await _role(db, t.id, JUDGE) is None
    async with db.read() as conn:
        [entry] = await audit.audit_entries(conn, t.id, entity="staff")
    assert entry.action == "staff.remove" and entry.before["user_id"] == JUDGE
    assert entry.after is None


async def test_the_removed_judge_is_told_in_his_language(harness: BotHarness, db: Database) -> None:
    await _setup(db, judge_ids=[JUDGE], names={CHIEF: "Anna", JUDGE: "Jack"})
    chief = harness.user(CHIEF, "Anna", language_code="en")
    said = await _posted(harness, harness.user(JUDGE, "Jack", language_code="ru"))
    await _reply(harness, chief, "/unjudge", said)
    assert harness.session.last_text(JUDGE) == "Вы больше не судья турнира «Test Cup»."


async def test_the_last_chief_cannot_be_removed(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    said = await _posted(harness, chief)
    await _reply(harness, chief, "/unjudge", said)
    assert "can't be left without a chief judge" in (harness.session.last_text(CHAT) or "")
    assert await _role(db, t.id, CHIEF) == "chief"


async def test_anonymous_admin_cannot_add_a_judge(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    oleg = harness.user(OTHER, "Oleg", language_code="en")
    said = await _posted(harness, oleg)
    replied = said.model_dump(mode="json", by_alias=True, exclude_none=True)
    await harness.send(
        harness.updates.anonymous_admin_message(CHAT, "/judge", reply_to_message=replied)
    )
    # In the tournament's language (English here), like everything in its group.
    assert "anonymous admins" in (harness.session.last_text(CHAT) or "").lower()
    assert await _role(db, t.id, OTHER) is None


async def test_forwarded_judge_command_acts_for_no_one(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    oleg = harness.user(OTHER, "Oleg", language_code="en")
    said = await _posted(harness, oleg)
    # The chief forwards someone's "/judge" as a reply to Oleg: it is not his command.
    await harness.send(
        harness.updates.group_message(chief, CHAT, "/judge", reply_to=said, forward_from=oleg)
    )
    assert harness.session.last_text(CHAT) == (
        "A forwarded command acts for no one. Send the command yourself."
    )
    assert await _role(db, t.id, OTHER) is None


# -- invite links ---------------------------------------------------------------------------


async def test_judge_invite_link_works_once(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/invite_judge", chat_id=CHAT)
    assert (
        harness.session.last_text(CHAT) == "I've sent you a one-time judge invite link privately."
    )
    invite_message = harness.session.last_message(CHIEF)
    assert invite_message is not None
    text = invite_message.text or ""
    assert "https://t.me/mafia_test_bot?start=tj_" in text
    assert [label for label, _ in buttons(invite_message)] == ["Revoke the link"]
    token = _token(text)

    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(jack, f"/start tj_{token}")
    assert (harness.session.last_text(JUDGE) or "").startswith("You are now a judge of «Test Cup».")
    assert harness.session.last_text(CHIEF) == (
        "Jack accepted your judge invite and is now a judge of «Test Cup»."
    )
    assert await _role(db, t.id, JUDGE) == "judge"
    async with db.read() as conn:
        invite = await invites.get_invite(conn, token)
        actions = [e.action for e in await audit.audit_entries(conn, t.id)]
    assert invite is not None and invite.used_by == JUDGE
    assert actions == ["staff.add", "invite.use", "invite.create"]

    oleg = harness.user(OTHER, "Oleg", language_code="en")
    await harness.say(oleg, f"/start tj_{token}")
    assert harness.session.last_text(OTHER) == (
        "This invite link has been used already. Ask the chief judge for a new one."
    )
    assert await _role(db, t.id, OTHER) is None


async def test_revoked_judge_link_is_refused(harness: BotHarness, db: Database) -> None:
    t = await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/invite_judge")  # private: his only tournament
    invite_message = harness.session.last_message(CHIEF)
    token = _token(invite_message.text if invite_message else None)
    await harness.press(chief, invite_message, text="Revoke the link")
    assert last_answer(harness) == "The invite link is revoked; it no longer works."
    edited = harness.session.last_message(CHIEF)
    assert edited is not None and buttons(edited) == []
    assert "revoked" in (edited.text or "")

    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(jack, f"/start tj_{token}")
    assert harness.session.last_text(JUDGE) == (
        "This invite link was revoked. Ask the chief judge for a new one."
    )
    assert await _role(db, t.id, JUDGE) is None
    async with db.read() as conn:
        [entry] = await audit.audit_entries(conn, t.id, entity="invite", limit=1)
    assert entry.action == "invite.revoke" and entry.before["revoked_at"] is None
    assert entry.after["revoked_at"] is not None


async def test_revoke_command_checks_the_chief_and_the_link(
    harness: BotHarness, db: Database
) -> None:
    await _setup(db, judge_ids=[JUDGE])
    chief = harness.user(CHIEF, "Anna", language_code="en")
    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(chief, "/invite_judge")
    link = re.search(r"https://\S+", harness.session.last_text(CHIEF) or "")
    assert link
    await harness.say(jack, f"/revoke {link.group(0)}")
    assert (
        harness.session.last_text(JUDGE) == "Only the chief judge of this tournament can do that."
    )
    await harness.say(chief, f"/revoke {link.group(0)}")
    assert harness.session.last_text(CHIEF) == "The invite link is revoked; it no longer works."
    await harness.say(chief, f"/revoke {link.group(0)}")
    assert harness.session.last_text(CHIEF) == "This invite link was revoked already."
    await harness.say(chief, "/revoke")
    assert harness.session.last_text(CHIEF) == (
        "Send /revoke followed by the invite's token or link."
    )
    await harness.say(chief, "/revoke abcdefghijklmnop")
    assert harness.session.last_text(CHIEF) == "There is no such invite."


async def test_used_link_cannot_be_revoked(harness: BotHarness, db: Database) -> None:
    await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/invite_judge")
    invite_message = harness.session.last_message(CHIEF)
    token = _token(invite_message.text if invite_message else None)
    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(jack, f"/start tj_{token}")
    await harness.press(chief, invite_message, text="Revoke the link")
    assert last_answer(harness) == (
        "This invite link has been used already; remove the judge with /staff instead."
    )


async def test_invite_judge_when_the_bot_cannot_write_to_the_chief(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(db)
    harness.session.fail_next("sendMessage", ApiError.cant_initiate(), chat_id=CHIEF)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/invite_judge", chat_id=CHAT)
    assert "I can't write to you privately" in (harness.session.last_text(CHAT) or "")
    async with db.read() as conn:
        assert await invites.list_invites(conn, t.id, usable_only=True) == []


async def test_only_the_chief_invites_judges(harness: BotHarness, db: Database) -> None:
    await _setup(db, judge_ids=[JUDGE])
    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(jack, "/invite_judge", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "Only the chief judge of this tournament can do that."
    await harness.say(jack, "/invite_judge")
    assert harness.session.last_text(JUDGE) == (
        "You are not the chief judge of any unfinished tournament."
    )


async def test_staff_member_opening_a_judge_link_keeps_it_unused(
    harness: BotHarness, db: Database
) -> None:
    await _setup(db, judge_ids=[JUDGE])
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/invite_judge")
    token = _token(harness.session.last_text(CHIEF))
    jack = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(jack, f"/start tj_{token}")
    assert harness.session.last_text(JUDGE) == "You are on the staff of «Test Cup» already."
    async with db.read() as conn:
        invite = await invites.get_invite(conn, token)
    assert invite is not None and invite.usable


# -- /staff ---------------------------------------------------------------------------------


async def test_staff_lists_people_and_the_chief_removes_with_a_button(
    harness: BotHarness, db: Database
) -> None:
    t = await _setup(
        db, judge_ids=[JUDGE, OTHER], names={CHIEF: "Anna", JUDGE: "Jack", OTHER: "Oleg"}
    )
    oleg = harness.user(OTHER, "Oleg", language_code="en")
    await harness.say(oleg, "/staff", chat_id=CHAT)
    listing = current(harness, CHAT)
    assert listing is not None
    assert (listing.text or "").split("\n") == [
        "Staff of «Test Cup»",
        "Chief judge: Anna",
        "Judges:",
        "• Jack",
        "• Oleg",
    ]
    assert buttons(listing) == []  # a judge sees no Remove buttons

    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/staff", chat_id=CHAT)
    listing = current(harness, CHAT)
    assert [label for label, _ in buttons(listing)] == ["Remove Jack", "Remove Oleg"]
    await harness.press(oleg, listing, text="Remove Jack")
    assert last_answer(harness) == "Only the chief judge of this tournament can do that."
    assert await _role(db, t.id, JUDGE) == "judge"

    await harness.press(chief, listing, text="Remove Jack")
    assert last_answer(harness) == "Jack is no longer a judge of «Test Cup»."
    assert await _role(db, t.id, JUDGE) is None
    refreshed = current(harness, CHAT, listing.message_id)
    assert [label for label, _ in buttons(refreshed)] == ["Remove Oleg"]
    # The old keyboard pressed again: nothing to remove.
    await harness.press(chief, listing, text="Remove Jack")
    assert last_answer(harness) == "Jack is not on the staff."


async def test_staff_without_judges_says_how_to_add(harness: BotHarness, db: Database) -> None:
    await _setup(db)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/staff")
    assert "No judges yet" in (harness.session.last_text(CHIEF) or "")
