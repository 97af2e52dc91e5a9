"""/lot: the chief judge draws a lot for players still tied (8.7.5, D12)."""

from __future__ import annotations

from bot.db.audit import audit_entries
from bot.db.connection import Database
from bot.db.lots import lots_for_tournament
from bot.publishing import Publisher
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    JUDGE,
    add_game,
    answers,
    table_rows,
    tied_world,
)
from tests.support import BotHarness, buttons


async def test_8_7_5_lot_is_drawn_once_kept_and_followed_by_the_standings(
    harness: BotHarness, db: Database
) -> None:
    world, _game = await tied_world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    assert offer is not None
    assert "Places 5–6: P1, P6" in (offer.text or "")
    assert "Places 9–10: P2, P9" in (offer.text or "")
    labels = [label for label, _ in buttons(offer)]
    assert labels == ["Draw for places 5–6", "Draw for places 9–10"]

    await harness.press(chief, offer, text="Draw for places 5–6")
    async with db.read() as conn:
        [lot] = await lots_for_tournament(conn, world.tournament_id)
        entries = await audit_entries(conn, world.tournament_id, entity="lot")
    assert sorted(lot.order) == sorted([world.players[0], world.players[5]])
    assert lot.drawn_by == CHIEF
    assert [e.action for e in entries] == ["lot.draw"] and entries[0].actor_id == CHIEF
    nick = {world.players[0]: "P1", world.players[5]: "P6"}
    first, second = (nick[pid] for pid in lot.order)
    drawn = f"5. {first}, 6. {second}"
    assert drawn in (harness.session.last_text(CHIEF) or "")
    assert any(t.startswith("🎲") and drawn in t for t in harness.session.sent_texts(CHAT))

    # The same group can't be drawn again: the old button says so, nothing changes.
    await harness.press(chief, offer, text="Draw for places 5–6")
    assert "drawn already" in (answers(harness)[-1] or "")
    async with db.read() as conn:
        assert await lots_for_tournament(conn, world.tournament_id) == [lot]

    # The standings follow the lot: places 5 and 6, in the drawn order.
    guest = harness.user(700, "Guest", language_code="en")
    await harness.say(guest, "/rating", chat_id=CHAT)
    rows = [r.split()[:2] for r in table_rows([harness.session.last_text(CHAT) or ""])]
    assert rows[4:6] == [["5", first], ["6", second]]
    assert ["9–10", "P2"] in rows  # the other group is still tied

    # /lot now offers only the group still tied.
    await harness.say(chief, "/lot")
    again = harness.session.last_message(CHIEF)
    assert [label for label, _ in buttons(again)] == ["Draw for places 9–10"]


async def test_a_changed_tie_makes_the_old_button_stale(harness: BotHarness, db: Database) -> None:
    world, _game = await tied_world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    # A new game separates P1 from P6 (P1 wins again): the tie of 5–6 is gone.
    await add_game(db, world, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10][::-1], round_no=2)
    harness.dispatcher["standings"].invalidate(world.tournament_id)
    await harness.press(chief, offer, text="Draw for places 5–6")
    assert "out of date" in (answers(harness)[-1] or "")
    async with db.read() as conn:
        assert await lots_for_tournament(conn, world.tournament_id) == []


async def test_only_the_chief_judge_draws(harness: BotHarness, db: Database) -> None:
    world, _game = await tied_world(db)
    judge = harness.user(JUDGE, "Judge", language_code="en")
    await harness.say(judge, "/lot")
    assert "Only the tournament's chief judge" in (harness.session.last_text(JUDGE) or "")
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    await harness.press(judge, offer, text="Draw for places 5–6")
    assert "Only the tournament's chief judge" in (answers(harness)[-1] or "")
    async with db.read() as conn:
        assert await lots_for_tournament(conn, world.tournament_id) == []


async def test_no_ties_no_lot(harness: BotHarness, db: Database) -> None:
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await tied_world(db)
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    await harness.press(chief, offer, text="Draw for places 5–6")
    await harness.press(chief, offer, text="Draw for places 9–10")
    await harness.say(chief, "/lot")
    assert harness.session.last_text(CHIEF) == "No players are tied: no lot is needed (8.7.5)."
    # In the group, the chief judge of its tournament may ask too.
    await harness.say(chief, "/lot", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == "No players are tied: no lot is needed (8.7.5)."


async def live_standings(harness: BotHarness, tournament_id: int) -> str:
    """The group's live standings message, published now."""
    publisher: Publisher = harness.dispatcher["publisher"]
    async with harness.dispatcher["db"].transaction() as conn:
        await publisher.enqueue(conn, tournament_id, standings=True)
    await publisher.publish(harness.bot, tournament_id, now=True)
    await harness.settle()
    return harness.session.last_text(CHAT) or ""


async def test_no_lot_before_the_distance_is_played(harness: BotHarness, db: Database) -> None:
    """Ties after game 1 of a two-game distance are passing: /lot says when a lot comes,
    the standings don't mention one; once every player has played the distance (or the
    tournament is finished) the lot is offered and announced."""
    world, _game = await tied_world(db, distance=2)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/lot")
    said = harness.session.last_message(CHIEF)
    assert said is not None and buttons(said) == []
    assert said.text == (
        "Spring Cup: a lot (8.7.5) becomes available once every player has played the "
        "distance (games per player: 2; players still short of it: 10), or once the chief "
        "judge finishes the tournament. Until then the next games may break a tie."
    )
    live = await live_standings(harness, world.tournament_id)
    assert "5–6" in live and "lot" not in live
    standings_id = harness.session.last_message(CHAT).message_id  # type: ignore[union-attr]
    guest = harness.user(700, "Guest", language_code="en")
    await harness.say(guest, "/rating", chat_id=CHAT)
    rating = harness.session.last_text(CHAT) or ""
    assert "5–6" in rating and "lot" not in rating and "8.7.5" not in rating

    # Finished early (the chief judge confirms it anyway), the places are final but for
    # the lot: the pinned standings say so, and it is offered.
    await harness.say(chief, "/tournament", chat_id=CHAT)
    card = harness.session.last_message(CHAT)
    await harness.press(chief, card, text="🏁 Finish")
    await harness.press(chief, harness.session.message(CHAT, card.message_id),  # type: ignore[union-attr]
                        text="Finish anyway")
    pinned = harness.session.message(CHAT, standings_id)
    assert pinned is not None and "wait for the chief judge's lot" in (pinned.text or "")
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    assert [label for label, _ in buttons(offer)][:1] == ["Draw for places 5–6"]


async def test_the_lot_is_offered_once_every_player_played_the_distance(
    harness: BotHarness, db: Database
) -> None:
    world, _game = await tied_world(db, distance=2)
    # The same ten again, the same seats: every one has played his two games, still tied.
    await add_game(db, world, range(1, 11), round_no=2, extras={3: 30, 4: 20, 10: 10, 7: 20},
                   disqualified=(8,))
    harness.dispatcher["standings"].invalidate(world.tournament_id)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    assert [label for label, _ in buttons(offer)] == [
        "Draw for places 5–6", "Draw for places 9–10"
    ]
