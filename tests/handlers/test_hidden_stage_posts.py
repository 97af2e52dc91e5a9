"""A hidden final (RULES.md D17) as its group reads it, in Russian and in English: from
the qualifying's close to Finish no post to the group carries a figure of the final.
Its games saved on the card and in the live protocol are posted with their seats and
no points, and a correction, an annulment, a protest decided and judge's points above
0.5 approved change nothing the group can read; the judge's own card keeps every
seat's points. A lot of the hidden final names neither places nor players there, and
commands typed in the group that would show a hidden stage's ties answer with a
pointer to the private chat. Finish shows the final standings with their points."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram.methods import (
    EditMessageCaption,
    EditMessageText,
    SendMediaGroup,
    SendMessage,
    SendPhoto,
)
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.config import Settings
from bot.db.connection import Database
from bot.db.tournaments import set_status
from bot.services import live as live_service
from scoring.model import Result
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    JUDGE,
    USER_BASE,
    World,
    add_game,
    make_world,
    table_rows,
)
from tests.handlers.test_game_entry_support import Driver
from tests.handlers.test_game_entry_support import World as CardWorld
from tests.support import BotHarness, buttons
from tests.support.telegram import BOT_TOKEN
from tests.support.webapp import headers
from tests.web.test_live_api import GAME, events, live_app

# The qualifying's top 10 (tests/handlers/test_stage_final_post.py), seated in this order.
ENTRANTS = [4, 5, 9, 1, 3, 6, 8, 10, 11, 12]
SEATS = ", ".join(f"{seat}. P{n}" for seat, n in enumerate(ENTRANTS, start=1))

WORDS = {
    "en": {
        "seats": "Seats: " + SEATS + ". The stage's points are hidden until it ends.",
        "round": "Round {round}, table 1: {result}.",
        "red": "red win",
        "hidden": "The standings of this stage are hidden until it ends. Games played:",
        "finish": "🏁 Finish",
        "yes": "Yes, finish",
        "final": "The final standings of all 2 stages",
        "picture": "Spring Cup: the final standings",
        "protest": "⚖️ Protest #1 against round 4, table 1 was rejected",
        "points": ("Points:", "await the chief judge's approval"),
        "ask": "The standings of the final stage are hidden until it ends: send /lot to me "
        "in a private chat.",
        "lot": "🎲 The chief judge drew a lot of the final stage (8.7.5); its places are "
        "hidden until it ends.",
    },
    "ru": {
        "seats": "Рассадка: " + SEATS + ". Баллы этапа скрыты до его окончания.",
        "round": "Тур {round}, стол 1: {result}.",
        "red": "победа красных",
        "hidden": "Рейтинг этого этапа скрыт до его окончания. Сыграно игр:",
        "finish": "🏁 Завершить",
        "yes": "Да, завершить",
        "final": "Итоговый рейтинг по всем этапам (2)",
        "picture": "Spring Cup: итоговый рейтинг",
        "protest": "⚖️ Протест №1 на игру (тур 4, стол 1) отклонён главным судьёй",
        "points": ("Баллы:", "ждут утверждения"),
        "ask": "Рейтинг этапа «финал» скрыт до его окончания: отправьте /lot мне в личный "
        "чат.",
        "lot": "🎲 Главный судья бросил жребий этапа «финал» (8.7.5); места этапа скрыты до "
        "его окончания.",
    },
}
# A figure: points such as 1.4, 0,6 or 2.40, or a player's 1 (rule ids such as 8.4.3
# are taken out first).
RULE_ID = re.compile(r"\b\d+(?:\.\d+){2,}\b")
FIGURE = re.compile(r"(?<![\d.,])\d+[.,]\d+(?![\d.,])|\bP\d+ \d+\b")
PRE = re.compile(r"<pre>(.*?)</pre>", re.S)


def group_posts(harness: BotHarness, since: int) -> list[str]:
    """What the group read from request ``since`` on: texts, edits, captions."""
    found = []
    for method in harness.session.requests[since:]:
        if getattr(method, "chat_id", None) != CHAT:
            continue
        if isinstance(method, SendMessage | EditMessageText):
            found.append(method.text)
        elif isinstance(method, SendPhoto | EditMessageCaption):
            found.append(method.caption or "")
        elif isinstance(method, SendMediaGroup):
            found += [media.caption or "" for media in method.media]
    return found


def group_pictures(harness: BotHarness, since: int) -> list[Any]:
    return [
        m
        for m in harness.session.requests[since:]
        if isinstance(m, SendPhoto | SendMediaGroup) and m.chat_id == CHAT
    ]


def figures(text: str) -> list[str]:
    """The points ``text`` shows outside its tables (``<pre>``)."""
    return FIGURE.findall(RULE_ID.sub("", PRE.sub("", text)))


@pytest.fixture
async def client(
    harness: BotHarness, db: Database, settings: Settings
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    async with TestClient(TestServer(live_app(harness, db, settings))) as c:
        yield c


async def qualified(
    harness: BotHarness, db: Database, lang: str, *, games: int = 2, carry: str = "0.5"
) -> World:
    """Twelve players, two qualifying games; the hidden final of the top 10 (ENTRANTS)
    entered: the qualifying closed with its figures shown, as it may (D17 hides the
    final only)."""
    world = await make_world(db, language=lang)
    async with db.transaction() as conn:
        await set_status(conn, world.tournament_id, "running")
    await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, result=Result.BLACK, extras={10: 10})
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/start")  # he can be messaged: approvals, protests
    await harness.say(
        chief, f"/stages add final games={games} entrants=10 carry={carry} hidden=on", chat_id=CHAT
    )
    await harness.say(chief, "/stages close")
    await harness.press(chief, harness.session.last_message(CHIEF), text="Close the stage")
    return world


def card_driver(harness: BotHarness, db: Database, world: World, user_id: int) -> Driver:
    card_world = CardWorld(harness, db, tid=world.tournament_id, pids=world.players)
    return Driver(card_world, harness.user(user_id, f"User{user_id}", language_code="en"))


async def open_game(chief: Driver, label: str) -> None:
    """The chief judge's /games, then the game's menu (his card from now on)."""
    await chief.say("/games")
    listing = chief.h.session.last_message(chief.user.id)
    await chief.tap(label, on=listing)
    menu = chief.h.session.last_message(chief.user.id)
    assert menu is not None
    chief.card_id = menu.message_id


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_d17_no_post_to_the_group_carries_a_figure_of_the_hidden_final(
    harness: BotHarness, db: Database, client: Any, lang: str
) -> None:
    words = WORDS[lang]
    world = await qualified(harness, db, lang)
    mark = len(harness.session.requests)
    nicks = [f"P{n}" for n in ENTRANTS]
    judge = card_driver(harness, db, world, JUDGE)
    chief = card_driver(harness, db, world, CHIEF)

    # Round 3 on the card, 0.6 judge's points for seat 6: the chief judge approves (D7).
    await judge.enter(round_table="3 1", nicks=nicks, night=None)
    await judge.next()
    await judge.next()
    await judge.say("6 0.6")
    await judge.next()
    game = await judge.save()
    assert game.status == "pending"
    # The judge's own card: every seat's points (D17 hides the group's, not his).
    assert "Points in this game" in judge.text
    assert "6. P6 (civilian): win 1 · judge 0.6" in judge.text
    request = harness.session.last_message(CHIEF)
    await chief.tap("✅ Approve 0.6", on=request)

    # Round 4 in the live protocol.
    draft = await live_service.open_for_card(
        db, draft_id="g-hidden-final", tournament_id=world.tournament_id, round_no=4,
        table_no=1, players=[world.players[n - 1] for n in ENTRANTS], judge_id=JUDGE,
    )
    response = await client.post(
        f"/api/live/{draft.token}/events", json={"events": events(*GAME)},
        headers=headers(BOT_TOKEN, JUDGE),
    )
    assert response.status == 200, await response.text()
    review = await (
        await client.get(f"/api/live/{draft.token}/review", headers=headers(BOT_TOKEN, JUDGE))
    ).json()
    assert [s["points"] for s in review["seats"]][:2] == ["1", "0"]  # the judge's page: points
    response = await client.post(f"/api/live/{draft.token}/save", headers=headers(BOT_TOKEN, JUDGE))
    assert response.status == 200, await response.text()

    # Its first seat protests in the group; the chief judge rejects it.
    player = harness.user(USER_BASE + ENTRANTS[0], "P4", language_code=lang)
    await harness.say(player, "/protest the vote was miscounted", chat_id=CHAT)
    which = harness.session.last_message(CHAT)  # he played rounds 3 and 4 just now
    [label] = [label for label, _data in buttons(which) if re.search(r"\b4\b", label)]
    await harness.press(player, which, text=label)
    await harness.press(chief.user, harness.session.last_message(CHIEF), text="❌ Reject protest")
    await harness.say(chief.user, "-")

    # Round 3 corrected: black won it.
    await open_game(chief, "R3 T1 · red win")
    await chief.tap("✏️ Correct")
    await chief.tap("7. Result")
    await chief.tap("⚫ Black win")
    await chief.to_review()
    await chief.tap("💾 Save the correction")
    assert "Correction saved" in chief.text

    # A game saved by mistake as round 5, annulled.
    await judge.enter(round_table="5 1", nicks=nicks, night=None)
    await judge.to_review()
    await judge.save()
    await open_game(chief, "R5 T1 · red win")
    await chief.tap("🗑 Annul")
    await chief.tap("Yes, annul it")
    assert [g.status for g in await chief.world.games()][-1] == "annulled"

    hidden = group_posts(harness, mark)
    # Every game's line, card and live alike: its result and seats, no points, no word
    # of approvals (round 3 waited for one).
    posted = "\n".join(hidden)
    for round_no in (3, 4, 5):
        line = words["round"].format(round=round_no, result=words["red"])
        assert f"{line} {words['seats']}" in posted.split("\n"), posted
    assert words["protest"] in posted
    # The standings: games played, by nickname (their order tells nothing).
    assert any(words["hidden"] in text for text in hidden)
    for table in (block for text in hidden for block in PRE.findall(text)):
        rows = table.split("\n")
        assert all(re.fullmatch(r"P\d+ +[0-3]", row) for row in rows), table
        assert rows == sorted(rows, key=str.casefold)
    # Nothing anywhere: no points, no figure, no picture of the final's standings.
    for text in hidden:
        assert not any(word in text for word in words["points"]), text
        assert figures(text) == [], text
    assert group_pictures(harness, mark) == []

    # Finish (D16, D17): the final standings are shown, with their points.
    mark = len(harness.session.requests)
    await harness.say(chief.user, "/tournament", chat_id=CHAT)
    card = harness.session.last_message(CHAT)
    assert card is not None
    await harness.press(chief.user, card, text=words["finish"])
    await harness.press(chief.user, harness.session.message(CHAT, card.message_id),
                        text=words["yes"])
    shown = group_posts(harness, mark)
    [final] = [t for t in shown if words["final"] in t]
    rows = table_rows([final])
    assert len(rows) == 12 and all(figures(row) for row in rows)
    assert words["picture"] in shown


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_d17_a_lot_of_the_hidden_final_tells_the_group_no_places(
    harness: BotHarness, db: Database, lang: str
) -> None:
    """A final of one game, played: its six red civilians tie (8.7.1-8.7.4), so the lot
    is due. /lot in the group points to the private chat; drawn there, the group is
    told a lot was drawn, and neither places nor players."""
    world = await qualified(harness, db, lang, games=1, carry="0")
    await add_game(db, world, ENTRANTS, round_no=3)
    await harness.dispatcher["publisher"].standings_changed(harness.bot, world.tournament_id)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    mark = len(harness.session.requests)
    await harness.say(chief, "/lot", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == WORDS[lang]["ask"]
    assert harness.session.last_markup(CHAT) is None  # no button to draw there
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(CHIEF)
    assert offer is not None and "Places 2–7, the final stage's lot" in (offer.text or "")
    await harness.press(chief, offer, text="Draw for places 2–7")
    assert "Lot drawn for places 2–7 (8.7.5)" in (harness.session.last_text(CHIEF) or "")
    posted = group_posts(harness, mark)
    assert WORDS[lang]["lot"] in posted
    for text in posted:
        assert not re.search(r"\bP\d+\b", text.split("<pre>")[0]), text  # no player named
        assert figures(text) == [], text


async def test_d17_closing_a_hidden_stage_is_previewed_in_private_only(
    harness: BotHarness, db: Database
) -> None:
    """A hidden qualifying: /stages close typed in the group would show who enters the
    next stage in its order; it points to the private chat instead."""
    world = await make_world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/stages add final games=1 entrants=10", chat_id=CHAT)
    await harness.say(chief, "/stages set 1 hidden=on", chat_id=CHAT)
    await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, result=Result.BLACK, extras={10: 10})
    await harness.dispatcher["publisher"].standings_changed(harness.bot, world.tournament_id)
    await harness.say(chief, "/stages close", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "The standings of the qualifying stage are hidden until it ends: send /stages close "
        "to me in a private chat."
    )
    await harness.say(chief, "/stages close")
    assert "Entering the final stage (10): P4, " in (harness.session.last_text(CHIEF) or "")
