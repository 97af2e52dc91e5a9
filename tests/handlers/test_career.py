"""The career rating in chat: /me, /player, /top, and the chief judge's /link,
/career_name, /undo_link and /rating_kind, through the whole bot (Dispatcher.feed_update)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from aiogram.methods import AnswerCallbackQuery, SendPhoto

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db.audit import audit_entries
from bot.db.connection import Database
from bot.db.players import add_player
from bot.db.tournaments import set_status
from bot.reads.career import CareerService, rating_input
from scoring.elo_file import elo_json, read_elo_file
from scoring.model import Result
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    ENDED,
    JUDGE,
    USER_BASE,
    World,
    add_game,
    make_world,
    table_rows,
)
from tests.support import BotHarness
from tests.support.telegram import buttons

CHIEF_B = 6000
CHAT_B = -100_888


@pytest.fixture
async def harness(db: Database, settings: Settings) -> AsyncIterator[BotHarness]:
    """The bot with a leaderboard of players with at least 2 rated games."""
    settings = settings.model_copy(update={"top_min_games": 2})
    async with BotHarness(build_dispatcher(db, settings)) as h:
        yield h


async def running(db: Database, world: World) -> World:
    async with db.transaction() as conn:
        await set_status(conn, world.tournament_id, "running")
    return world


async def two_tournaments(db: Database) -> tuple[World, World]:
    """A (P1..P12, users USER_BASE+n) with three games; B (its own chief) with the same
    users P1..P10 and two roster nicknames, R11 and R12, with one game."""
    a = await running(db, await make_world(db, 12))
    await add_game(db, a, range(1, 11))
    await add_game(db, a, range(3, 13), round_no=2, result=Result.BLACK,
                   ended_at=ENDED + timedelta(minutes=40))
    await add_game(db, a, [*range(1, 5), *range(7, 13)], round_no=3,
                   ended_at=ENDED + timedelta(minutes=80))
    b = await running(db, await make_world(db, 10, title="Autumn Cup", chat_id=CHAT_B))
    async with db.transaction() as conn:
        await conn.execute("UPDATE staff SET user_id = ? WHERE tournament_id = ? AND user_id = ?",
                           (CHIEF_B, b.tournament_id, CHIEF))
        for nick in ("R11", "R12"):
            row = await add_player(conn, b.tournament_id, nick, status="confirmed",
                                   decided_by=CHIEF_B)
            b.players.append(row.id)
            b.nicks.append(nick)
    await add_game(db, b, [*range(3, 11), 11, 12], ended_at=ENDED + timedelta(hours=3))
    return a, b


async def cli_ratings(db: Database) -> dict[str, float]:
    """``python -m scoring elo`` on every game the bot counts."""
    state = await CareerService(db).current()
    document = json.loads(json.dumps(rating_input(state.games)))
    out = json.loads(elo_json(read_elo_file(document)))
    return {row["player"]: row["rating"] for row in out["players"]}


async def person_of(db: Database, player_id: int) -> int:
    row = await db.fetchone("SELECT person_id FROM players WHERE id = ?", (player_id,))
    assert row is not None
    return int(row[0])


def shown(value: float) -> str:
    return f"{value:.2f}"


# -- /me, /player -------------------------------------------------------------------------------


async def test_me_in_private_is_the_whole_profile_with_its_picture(
    harness: BotHarness, db: Database
) -> None:
    a, _b = await two_tournaments(db)
    p3 = harness.user(USER_BASE + 3, "Three", language_code="en")
    await harness.say(p3, "/me")
    text = "\n".join(harness.session.sent_texts(USER_BASE + 3))
    expected = (await cli_ratings(db))[str(await person_of(db, a.players[2]))]
    assert f"Rating: <b>{shown(expected)}</b>" in text
    assert "Rated games: 4" in text  # three in A, one in B: one person
    assert "«Spring Cup» as <b>P3</b>: place" in text and "«Autumn Cup» as <b>P3</b>" in text
    assert "Killed on the first night: 0 times" in text
    rows = table_rows([text])
    assert [r.split()[0] for r in rows] == ["civilian", "sheriff", "mafia", "don"]
    (photo,) = harness.session.requests_of(SendPhoto)
    assert photo.chat_id == USER_BASE + 3
    assert photo.caption == "P3: rating after each rated game (4)"


async def test_me_in_a_group_is_a_short_card(harness: BotHarness, db: Database) -> None:
    await two_tournaments(db)
    p1 = harness.user(USER_BASE + 1, "One", language_code="en")
    await harness.say(p1, "/me", chat_id=CHAT)
    text = harness.session.last_text(CHAT)
    assert text is not None and text.startswith("<b>P1</b>: rating <b>")
    assert "rated" in text and "/me in a private chat" in text
    assert harness.session.requests_of(SendPhoto) == []


async def test_me_of_someone_who_never_played(harness: BotHarness, db: Database) -> None:
    await two_tournaments(db)
    guest = harness.user(4242, "Guest", language_code="en")
    await harness.say(guest, "/me")
    assert "You have played no game in my tournaments yet" in (
        harness.session.last_text(4242) or "")


async def test_player_unknown_ambiguous_and_without_rated_games(
    harness: BotHarness, db: Database
) -> None:
    _a, b = await two_tournaments(db)
    guest = harness.user(4242, "Guest", language_code="en")
    await harness.say(guest, "/player Nobody")
    assert "Nobody named <b>Nobody</b>" in (harness.session.last_text(4242) or "")

    await harness.say(guest, "/player P1")  # P1, P10, P11, P12 contain it; only P1 is it
    assert any("<b>P1</b> · career rating" in t for t in harness.session.sent_texts(4242))

    await harness.say(guest, "/player R1")  # R11 and R12: which one?
    picker = harness.session.last_message(4242)
    assert picker is not None and "Several players are named <b>R1</b>" in (picker.text or "")
    labels = [label for label, _data in buttons(picker)]
    assert labels == ["R11 (Autumn Cup)", "R12 (Autumn Cup)"]
    await harness.press(guest, picker, text="R12 (Autumn Cup)")
    text = "\n".join(harness.session.sent_texts(4242)[-3:])
    assert "<b>R12</b> · career rating" in text and "Rated games: 1" in text

    async with db.transaction() as conn:  # a roster nickname that never played
        await add_player(conn, b.tournament_id, "Zed", status="confirmed", decided_by=CHIEF_B)
    await harness.say(guest, "/player zed")
    assert "<b>Zed</b> has no rated games yet" in (harness.session.last_text(4242) or "")


# -- /top ---------------------------------------------------------------------------------------


async def test_top_lists_who_has_enough_rated_games_as_the_rule_computes(
    harness: BotHarness, db: Database
) -> None:
    a, b = await two_tournaments(db)
    someone = harness.user(777, "Guest", language_code="en")
    await harness.say(someone, "/top", chat_id=CHAT)
    text = harness.session.sent_texts(CHAT)[-2]  # then the picture's caption
    assert "players with at least 2 games rated: 12" in text
    rows = [row.split() for row in table_rows([text])]
    cli = await cli_ratings(db)
    names = {str(await person_of(db, pid)): nick for pid, nick in zip(a.players, a.nicks,
                                                                      strict=True)}
    # Highest first; an equal rating by who came first (the person's number).
    expected = sorted(((k, v) for k, v in cli.items() if k in names),
                      key=lambda item: (-item[1], int(item[0])))
    assert [(r[1], float(r[2])) for r in rows] == [(names[k], round(v, 2)) for k, v in expected]
    assert "R11" not in text  # one rated game: below the leaderboard's 2
    (photo,) = harness.session.requests_of(SendPhoto)
    assert photo.chat_id == CHAT and "12 with at least 2 games rated" in (photo.caption or "")
    assert b


async def test_top_without_anyone_on_it(harness: BotHarness, db: Database) -> None:
    someone = harness.user(777, "Guest", language_code="en")
    await harness.say(someone, "/top")
    assert "Nobody has 2 games yet" in (harness.session.last_text(777) or "")
    assert harness.session.requests_of(SendPhoto) == []


# -- /link, /career_name, /undo_link ---------------------------------------------------------


async def test_the_chief_links_a_roster_nickname_and_takes_it_back(
    harness: BotHarness, db: Database
) -> None:
    a, b = await two_tournaments(db)
    # P11 and P12 of A have accounts in A only; R11 of B is the same man as A's P11.
    chief_b = harness.user(CHIEF_B, "Bea", language_code="en")
    await harness.say(chief_b, "/link R11 = P")  # no one is P: everyone named with a P
    question = harness.session.last_message(CHIEF_B)
    assert question is not None and "Who is <b>R11</b> of «Autumn Cup»" in (question.text or "")
    labels = [label for label, _data in buttons(question)]
    # P1 plays B too (he met R11 there): offered, refused when tapped.
    assert labels[:4] == ["P1 (Spring Cup, Autumn Cup)", "P10 (Spring Cup, Autumn Cup)",
                          "P11 (Spring Cup)", "P12 (Spring Cup)"]
    assert len(labels) == 10  # the first ten by name

    await harness.press(chief_b, question, text="P1 (Spring Cup, Autumn Cup)")
    answer = harness.session.requests_of(AnswerCallbackQuery)[-1]
    assert answer.text is not None and "both play «Autumn Cup»" in answer.text
    await harness.press(chief_b, question, text="P11 (Spring Cup)")
    confirmed = harness.session.last_message(CHIEF_B)
    assert confirmed is not None
    assert "🔗 <b>R11</b> of «Autumn Cup» is <b>P11</b> now" in (confirmed.text or "")
    assert await person_of(db, b.players[10]) == await person_of(db, a.players[10])
    async with db.read() as conn:
        (entry,) = await audit_entries(conn, b.tournament_id, entity="person")
    assert entry.action == "person.link" and entry.actor_id == CHIEF_B

    # The chief judge of A can't take it back; the one who made it can.
    chief_a = harness.user(CHIEF, "Ann", language_code="en")
    await harness.press(chief_a, confirmed, text="↩ Undo")
    assert harness.session.requests_of(AnswerCallbackQuery)[-1].text == (
        "Only the chief judge of this tournament can do that.")
    await harness.press(chief_b, confirmed, text="↩ Undo")
    assert "two persons again" in (harness.session.last_text(CHIEF_B) or "")
    assert await person_of(db, b.players[10]) != await person_of(db, a.players[10])
    await harness.say(chief_b, "/undo_link")
    assert "no link or career name to take back" in (harness.session.last_text(CHIEF_B) or "")


async def test_persons_who_sat_at_one_table_are_never_merged(
    harness: BotHarness, db: Database
) -> None:
    _a, _b = await two_tournaments(db)
    chief_b = harness.user(CHIEF_B, "Bea", language_code="en")
    await harness.say(chief_b, "/link R11 = R12")
    question = harness.session.last_message(CHIEF_B)
    assert question is not None
    await harness.press(chief_b, question, text="R12 (Autumn Cup)")
    answer = harness.session.requests_of(AnswerCallbackQuery)[-1].text or ""
    assert "sat at one table (R1-T1 of «Autumn Cup»)" in answer


async def test_only_the_chief_of_the_players_tournament_links(
    harness: BotHarness, db: Database
) -> None:
    _a, b = await two_tournaments(db)
    judge = harness.user(JUDGE, "Judge", language_code="en")
    await harness.say(judge, "/link P3", chat_id=CHAT)
    assert "Only the chief judge" in (harness.session.last_text(CHAT) or "")
    chief_a = harness.user(CHIEF, "Ann", language_code="en")
    await harness.say(chief_a, "/link R11")  # his tournament has no R11
    assert "«Spring Cup» has no player R11." in (harness.session.last_text(CHIEF) or "")
    assert b


async def test_career_name_and_undo_link(harness: BotHarness, db: Database) -> None:
    a, _b = await two_tournaments(db)
    chief_a = harness.user(CHIEF, "Ann", language_code="en")
    await harness.say(chief_a, "/career_name P5 = Пятый")
    assert "The career name of <b>P5</b> is <b>Пятый</b> now" in (
        harness.session.last_text(CHIEF) or "")
    guest = harness.user(4242, "Guest", language_code="en")
    await harness.say(guest, "/player пятый")
    assert "<b>Пятый</b> · career rating" in harness.session.sent_texts(4242)[0]
    await harness.say(chief_a, "/undo_link")
    assert "the career name is <b>P5</b> again" in (harness.session.last_text(CHIEF) or "")
    async with db.read() as conn:
        actions = [e.action for e in await audit_entries(conn, a.tournament_id, entity="person")]
    assert actions == ["person.undo", "person.rename"]


# -- /rating_kind --------------------------------------------------------------------------------


async def test_the_chief_makes_his_tournament_elite_or_unrated(
    harness: BotHarness, db: Database
) -> None:
    a, _b = await two_tournaments(db)
    before = await cli_ratings(db)
    chief_a = harness.user(CHIEF, "Ann", language_code="en")
    await harness.say(chief_a, "/rating_kind", chat_id=CHAT)
    card = harness.session.last_message(CHAT)
    assert card is not None and "counts as a tournament (factors 16 and 12)" in (card.text or "")
    await harness.press(chief_a, card, text="Unrated")
    assert "counts in the career rating as unrated" in (harness.session.last_text(CHAT) or "")
    p1 = str(await person_of(db, a.players[0]))
    after = await cli_ratings(db)
    assert after[p1] == 1000.0 != before[p1]  # P1 played only in A's games... and B's
    async with db.read() as conn:
        (entry,) = await audit_entries(conn, a.tournament_id, entity="tournament")
    assert entry.action == "tournament.rating_kind" and entry.after == {"rating_kind": "unrated"}


# -- /join: one account, one person ------------------------------------------------------------

CHAT_C = -100_999


async def test_who_joins_with_his_account_brings_his_career_along(
    harness: BotHarness, db: Database
) -> None:
    a, _b = await two_tournaments(db)
    c = await running(db, await make_world(db, 0, title="Winter Cup", chat_id=CHAT_C))
    async with db.transaction() as conn:
        roster = await add_player(conn, c.tournament_id, "Twelve", status="confirmed",
                                  decided_by=CHIEF)
    chief = harness.user(CHIEF, "Ann", language_code="en")
    # P11 of A applies to C under another nickname; P12 claims C's roster nickname.
    p11 = harness.user(USER_BASE + 11, "Eleven", language_code="en")
    await harness.say(p11, "/join Elf", chat_id=CHAT_C)
    await harness.press(chief, harness.session.last_message(CHIEF), text="✅ Confirm")
    p12 = harness.user(USER_BASE + 12, "Twelve", language_code="en")
    await harness.say(p12, "/join Twelve", chat_id=CHAT_C)
    await harness.press(chief, harness.session.last_message(CHIEF), text="✅ Link")

    elf = await db.fetchone("SELECT id FROM players WHERE nickname = 'Elf'")
    assert elf is not None
    assert await person_of(db, elf[0]) == await person_of(db, a.players[10])
    assert await person_of(db, roster.id) == await person_of(db, a.players[11])
    await harness.say(p12, "/me")
    text = "\n".join(harness.session.sent_texts(USER_BASE + 12))
    assert "«Spring Cup» as <b>P12</b>" in text and "«Winter Cup» as <b>Twelve</b>" in text
