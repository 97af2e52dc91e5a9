"""The last stage ends with the tournament (D16, D17): the group gets the final
standings, a hidden final's shown, as text and picture, the text pinned; once, a
restart included (the outbox)."""

from __future__ import annotations

from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import SendMessage, SendPhoto

from bot.db.connection import Database
from scoring.model import Result
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    World,
    add_game,
    make_world,
    table_rows,
)
from tests.support import BotHarness
from tests.support.seating_fixtures import outbox_kinds

FINAL_LINE = "The final standings of all 2 stages"
ENTRANTS = [4, 5, 9, 1, 3, 6, 8, 10, 11, 12]


async def _final_played(db: Database, harness: BotHarness) -> World:
    """Twelve players, two qualifying games (P12 tenth by his judge's points); a hidden
    final of the top 10, one game, carrying half the qualifying's figures: P4 wins it
    with 0.4 judge's points."""
    world = await make_world(db)
    await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, result=Result.BLACK, extras={10: 10})
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(
        chief, "/stages add final games=1 entrants=10 carry=0.5 hidden=on", chat_id=CHAT
    )
    await harness.say(chief, "/stages close")
    await harness.press(chief, harness.session.last_message(CHIEF), text="Close the stage")
    await add_game(db, world, ENTRANTS, round_no=3, extras={1: 40})
    await harness.dispatcher["publisher"].standings_changed(harness.bot, world.tournament_id)
    live = harness.session.sent_texts(CHAT, edits=True)[-1]
    assert "hidden until it ends" in live  # D17: the group sees games played only
    return world


async def finish_with_the_card(harness: BotHarness, *, anyway: bool = False) -> None:
    """The chief judge finishes the tournament with /tournament: asked once when every
    entrant played the final's games, else ``anyway`` past the list of who did not."""
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    card = harness.session.last_message(CHAT)
    assert card is not None
    await harness.press(chief, card, text="🏁 Finish")
    await harness.press(
        chief,
        harness.session.message(CHAT, card.message_id),
        text="Finish anyway" if anyway else "Yes, finish",
    )


def _finals(harness: BotHarness) -> list[SendMessage]:
    return [
        m
        for m in harness.session.requests_of(SendMessage, delivered=True)
        if m.chat_id == CHAT and FINAL_LINE in m.text
    ]


def _pictures(harness: BotHarness) -> list[SendPhoto]:
    return [
        m
        for m in harness.session.requests_of(SendPhoto, delivered=True)
        if m.chat_id == CHAT and m.caption == "Spring Cup: the final standings"
    ]


async def test_d16_d17_the_last_stage_ending_posts_and_pins_the_final_standings_once(
    harness: BotHarness, db: Database
) -> None:
    world = await _final_played(db, harness)
    await finish_with_the_card(harness)

    [text] = _finals(harness)
    rows = [row.split() for row in table_rows([text.text])]
    # The final's figures (D15): P4 1.4 of his win and 0.4, plus half of his two wins.
    assert rows[0][:3] == ["1", "P4", "2.40"]
    assert [row[1] for row in rows][-2:] == ["P2", "P7"]  # left after the qualifying
    assert "hidden" not in text.text
    pinned = [m.message_id for m in harness.session.telegram.pinned(CHAT)]
    [message] = [
        m for m in harness.session.telegram.messages(CHAT) if m.message_id in pinned
        and FINAL_LINE in (m.text or "")
    ]
    assert len(_pictures(harness)) == 1
    assert await outbox_kinds(db) == []

    # Posted again (a restart's resume, a later change): nothing twice; a later
    # change edits the pinned final standings.
    publisher = harness.dispatcher["publisher"]
    await publisher.resume(harness.bot)
    await publisher.standings_changed(harness.bot, world.tournament_id)
    assert len(_finals(harness)) == 1 and len(_pictures(harness)) == 1
    assert message.message_id in [m.message_id for m in harness.session.telegram.pinned(CHAT)]


async def test_d16_a_picture_refused_is_sent_later_without_the_text_again(
    harness: BotHarness, db: Database
) -> None:
    world = await _final_played(db, harness)
    failure = TelegramNetworkError(SendPhoto(chat_id=CHAT, photo="x"), "connection reset")
    harness.session.fail_next("sendPhoto", failure)
    await finish_with_the_card(harness)
    assert len(_finals(harness)) == 1 and _pictures(harness) == []
    assert "final" in await outbox_kinds(db)  # the text went out, the picture did not

    await harness.dispatcher["publisher"].publish(harness.bot, world.tournament_id)

    assert len(_finals(harness)) == 1 and len(_pictures(harness)) == 1
    assert await outbox_kinds(db) == []


async def test_d14_finishing_counts_the_final_s_games_of_its_entrants_only(
    harness: BotHarness, db: Database
) -> None:
    """The distance that ends with the tournament is the final's (D14) over its own
    games, and only its entrants (D13) owe them: a final of 2 games with one played
    names the ten entrants with 1 game each, not the players left out at the cut."""
    world = await make_world(db)
    await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, result=Result.BLACK, extras={10: 10})
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages add final games=2 entrants=10", chat_id=CHAT)
    await harness.say(chief, "/stages close")
    await harness.press(chief, harness.session.last_message(CHIEF), text="Close the stage")
    await add_game(db, world, ENTRANTS, round_no=3)
    await harness.say(chief, "/tournament", chat_id=CHAT)
    card = harness.session.last_message(CHAT)
    assert card is not None
    await harness.press(chief, card, text="🏁 Finish")
    text = harness.session.message(CHAT, card.message_id).text or ""
    assert "Players short of the distance (games per player: 2): " in text, text
    short = text.split("(games per player: 2): ", 1)[1].split(".\n", 1)[0]
    assert sorted(name.split(" — ")[0] for name in short.split(", ")) == sorted(
        f"P{n}" for n in ENTRANTS
    )
    assert all(name.endswith(" — 1") for name in short.split(", "))


async def test_d14_the_tournament_card_lists_each_stage_with_its_own_games(
    harness: BotHarness, db: Database
) -> None:
    """D13, D14: the /tournament card of a tournament of stages names each stage with
    its games per player, not only the first stage's distance."""
    await make_world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages add final games=4 entrants=10 hidden=on", chat_id=CHAT)
    await harness.say(chief, "/tournament", chat_id=CHAT)
    text = harness.session.last_text(CHAT) or ""
    assert "Stages (/stages):" in text
    assert "2. <b>final</b>: 4 games a player, top 10" in text, text
