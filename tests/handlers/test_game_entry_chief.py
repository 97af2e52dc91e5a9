"""The chief judge: approvals of judge's points above 0.5 (8.4.3, D7), corrections and
annulment of saved games, players added at the table."""

from __future__ import annotations

from bot.db import Database, audit, games, players
from handlers.callbacks import GameMenu
from tests.handlers.test_game_entry_support import CHIEF, GROUP, NICKS, Driver, World
from tests.support import BotHarness

ROLES = (1, 2, (3, 4))


async def game_with_points(world: World, judge: Driver, seat: int, value: str) -> games.GameRecord:
    await judge.enter(roles=ROLES, night=None, result="Red win")
    await judge.next()
    await judge.next()
    await judge.say(f"{seat} {value}")
    await judge.next()
    return await judge.save()


async def test_d7_points_above_0_5_wait_for_the_chief_who_approves(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    chief = world.judge(CHIEF)
    await chief.say("/start")  # he can be messaged
    game = await game_with_points(world, judge, 6, "0.6")
    assert game.status == "pending"
    assert "wait for the chief judge's approval (8.4.3)" in judge.text
    assert "judge 0.6 (not counted yet: awaits the chief judge's approval)" in judge.text
    request = harness.session.last_message(CHIEF)
    assert request is not None and "0.6" in (request.text or "") and "8.4.3" in (request.text or "")
    # Only the chief decides.
    await judge.tap("✅ Approve 0.6", on=request)
    assert "Only the chief judge" in (judge.last_answer() or "")
    await chief.tap("✅ Approve 0.6", on=request)
    async with db.read() as conn:
        stored = await games.require_game(conn, game.id)
        entries = await audit.audit_entries(conn, world.tid, entity="approval")
    assert stored.status == "final" and stored.seat(6).chief_approved
    assert stored.seat(6).judge_extra == 60
    assert [e.action for e in entries] == ["approval.approve"]
    assert entries[0].before["status"] == "pending" and entries[0].after["status"] == "approved"
    decided = harness.session.message(CHIEF, request.message_id)
    assert decided is not None and "Approved: 0.6 for seat 6" in (decided.text or "")
    assert "The chief judge decided: Approved" in (judge.last_sent() or "")
    assert "final" in (judge.last_sent() or "")
    # A second tap changes nothing.
    await chief.tap_data(request.reply_markup.inline_keyboard[0][1].callback_data, on=request)  # type: ignore[union-attr, arg-type]
    assert "decided already" in (chief.last_answer() or "")


async def test_d7_the_chief_lowers_to_0_5(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    chief = world.judge(CHIEF)
    await chief.say("/start")
    game = await game_with_points(world, judge, 7, "0.7")
    request = harness.session.last_message(CHIEF)
    await chief.tap("⬇ Lower to 0.5", on=request)
    async with db.read() as conn:
        stored = await games.require_game(conn, game.id)
    assert stored.status == "final" and stored.seat(7).judge_extra == 50
    assert "Lowered to 0.5" in (judge.last_sent() or "")


async def test_d7_a_chief_who_judged_the_game_still_taps_the_approval(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    chief = world.judge(CHIEF)
    game = await game_with_points(world, chief, 6, "0.65")
    assert game.status == "pending"
    request = harness.session.last_message(CHIEF)
    assert request is not None and "Approve 0.65" in str(request.reply_markup)
    await chief.tap("✅ Approve 0.65", on=request)
    async with db.read() as conn:
        assert (await games.require_game(conn, game.id)).status == "final"


async def test_chief_corrects_a_game_with_audit_and_annuls_another(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=None, result="Red win")
    await judge.to_review()
    game = await judge.save()
    # A judge may not open the correction menu.
    await judge.tap_data(GameMenu(game_id=game.id).pack())
    assert "Only the chief judge" in (judge.last_answer() or "")
    chief = world.judge(CHIEF)
    await chief.say("/games")
    listing = harness.session.last_message(CHIEF)
    assert listing is not None and "R1 T1 · red win" in str(listing.reply_markup)
    await chief.tap("R1 T1 · red win", on=listing)
    menu = harness.session.last_message(CHIEF)
    assert menu is not None and "Game R1-T1" in (menu.text or "")
    await chief.tap("✏️ Correct", on=menu)
    chief.card_id = menu.message_id
    assert "Correcting game R1-T1" in chief.text and "Step 11/11: Review" in chief.text
    await chief.tap("7. Result")
    await chief.tap("⚫ Black win")
    await chief.to_review()
    assert "2. Bravo (don): win 1" in chief.text
    await chief.tap("💾 Save the correction")
    assert "Correction saved" in chief.text
    async with db.read() as conn:
        stored = await games.require_game(conn, game.id)
        entries = await audit.audit_entries(conn, world.tid, entity="game")
    assert stored.result.value == "black" and stored.ended_at == game.ended_at
    assert entries[0].action == "game.update" and entries[0].actor_id == CHIEF
    assert entries[0].before["result"] == "red" and entries[0].after["result"] == "black"
    # Annul it, with a confirmation.
    await chief.tap("Open the game")
    menu = harness.session.last_message(CHIEF)
    await chief.tap("🗑 Annul", on=menu)
    menu = harness.session.message(CHIEF, menu.message_id)  # type: ignore[union-attr]
    assert menu is not None and "Annul game R1-T1?" in (menu.text or "")
    await chief.tap("No", on=menu)
    menu = harness.session.message(CHIEF, menu.message_id)
    await chief.tap("🗑 Annul", on=menu)
    menu = harness.session.message(CHIEF, menu.message_id)  # type: ignore[union-attr]
    await chief.tap("Yes, annul it", on=menu)
    async with db.read() as conn:
        stored = await games.require_game(conn, game.id)
        entries = await audit.audit_entries(conn, world.tid, entity="game")
    assert stored.status == "annulled" and stored.annulled_by == CHIEF
    assert entries[0].action == "game.annul"
    assert entries[0].before["status"] == "final" and entries[0].after["status"] == "annulled"
    # Its round and table are free again.
    again = world.judge()
    await again.start()
    assert "Round 1, table 1" in again.labels()


async def test_a_correction_keeps_an_approval_only_for_unchanged_points(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    chief = world.judge(CHIEF)
    game = await game_with_points(world, chief, 6, "0.6")
    await chief.tap("✅ Approve 0.6", on=harness.session.last_message(CHIEF))
    await chief.tap_data(GameMenu(game_id=game.id).pack(), on=harness.session.last_message(CHIEF))
    menu = harness.session.last_message(CHIEF)
    await chief.tap("✏️ Correct", on=menu)
    chief.card_id = menu.message_id  # type: ignore[union-attr]
    assert "judge 0.6 =" in chief.text or "judge 0.6 ·" in chief.text or "judge 0.6" in chief.text
    assert "awaits" not in chief.text
    await chief.tap("8. Disqualifications")
    await chief.tap("9")
    await chief.to_review()
    await chief.tap("💾 Save the correction")
    async with db.read() as conn:
        stored = await games.require_game(conn, game.id)
    assert stored.status == "final" and stored.seat(9).disqualified


async def test_a_player_added_at_the_table_waits_for_the_chief(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    chief = world.judge(CHIEF)
    await chief.say("/start")
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.say("Newbie")
    assert "➕ Add «Newbie»" in judge.labels()
    await judge.tap("➕ Add «Newbie»")
    assert "1. Newbie ⏳" in judge.text and "waiting for the chief judge" in judge.text
    ask = harness.session.last_message(CHIEF)
    assert ask is not None and "Newbie" in (ask.text or "")
    await judge.say("\n".join(["Newbie", *NICKS[1:10]]))
    await judge.next()
    await judge.roles(*ROLES)
    await judge.tap("0")
    await judge.tap("Miss (nobody shot)")
    await judge.tap("🔴 Red win")
    await judge.to_review()
    assert "not confirmed yet" in judge.text and "💾 Save" not in judge.labels()
    await chief.tap("✅ Confirm", on=ask)
    async with db.read() as conn:
        row = await players.find_player_by_nickname(conn, world.tid, "Newbie")
    assert row is not None and row.status == "confirmed"
    await judge.tap("1. Round and table")
    await judge.tap("⏭ Review")
    game = await judge.save()
    assert game.seat(1).nickname == "Newbie"
    assert GROUP in harness.session.chats
