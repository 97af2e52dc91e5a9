"""Seating plans over HTTP, as people see them: the chief judge's /seating (tables,
fairness figures, 🔄 Regenerate, ✅ Accept), round 1's seating posted to the group (text
and picture, in the tournament's language) and each linked player's own seat (in his
language); a judge's /game card filled from the plan (one seat given to a spare the
chief judge added after the plan), the round's second table saved as planned, and
round 2's seating told to the group and the players once round 1 is complete.

A small tournament: 20 players, distance 2, 2 tables (two rounds of two tables, nobody
sits out); the group reads Russian, the chief judge and the judge English, one linked
player English and one Russian.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .bot_process import BotFactory, requires_bot
from .fake_telegram import FakeTelegram, StoredMessage
from .scenario import (
    NICKS,
    Card,
    Person,
    labels,
    log_problems,
    query,
    save,
    seed_tournament,
    token_leaks,
)

pytestmark = requires_bot

TITLE = "Spring Cup"
PLAYERS = (*NICKS, "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo", "Sierra", "Tango")
SPARE = "Zulu"  # confirmed by the chief judge after the plan: plays in nobody's planned seat
SEAT_LINE = re.compile(r"^(?:▶ )?(\d{1,2})\. (.+)$", re.M)
PNG = b"\x89PNG\r\n\x1a\n"

Plan = dict[str, Any]


# -- the plan as stored, and what people should see of it -----------------------------------


def accepted(db_path: Path) -> tuple[int, Plan]:
    """The accepted plan's seed and plan (the contract's JSON) from the bot's database."""
    rows = query(db_path, "SELECT json_extract(request, '$.seed'), plan FROM seating_plans "
                          "WHERE status = 'accepted'")
    assert len(rows) == 1, rows
    return int(rows[0][0]), json.loads(rows[0][1])


def tables(plan: Plan, round_no: int) -> dict[int, list[str]]:
    (found,) = [r for r in plan["rounds"] if r["round"] == round_no]
    assert found["sitting_out"] == [], found
    return {t["table"]: t["seats"] for t in found["tables"]}


def seat_of(plan: Plan, round_no: int, nick: str) -> tuple[int, int]:
    for table, seats in tables(plan, round_no).items():
        if nick in seats:
            return table, seats.index(nick) + 1
    raise AssertionError(f"{nick} is not seated in round {round_no}")


def table_lines(word: str, table: int, seats: list[str]) -> list[str]:
    return [f"{word} {table}", *(f"{n}. {nick}" for n, nick in enumerate(seats, start=1))]


def group_seating(plan: Plan, round_no: int) -> str:
    """The round's seating as the group reads it (Russian, the tournament's language)."""
    blocks = ["\n".join([TITLE, f"Тур {round_no}"])]
    blocks += ["\n".join(table_lines("Стол", t, seats))
               for t, seats in sorted(tables(plan, round_no).items())]
    return "\n\n".join(blocks)


def seat_text(plan: Plan, round_no: int, nick: str, language: str) -> str:
    table, seat = seat_of(plan, round_no, nick)
    if language == "ru":
        return f"{TITLE}\nТур {round_no}: стол {table}, место {seat}"
    return f"{TITLE}\nRound {round_no}: table {table}, seat {seat}"


def card_seats(text: str) -> list[str]:
    found = [(int(n), nick) for n, nick in SEAT_LINE.findall(text)]
    assert [n for n, _ in found] == list(range(1, 11)), text
    return [nick for _, nick in found]


# -- the chief judge's /seating ------------------------------------------------------------


async def offered(fake: FakeTelegram, chief: Person, message: StoredMessage, button: str,
                  db_path: Path, old_seed: int | None = None) -> tuple[StoredMessage, int]:
    """Tap a button that generates a plan; returns the offer (the same message, edited)
    and the seed it was made with (stored, not shown: it tells people nothing)."""
    mark = fake.seq
    answer = await chief.tap(message, button)
    assert answer.text == "Generating…", answer

    def offer(m: StoredMessage) -> bool:
        return m.message_id == message.message_id and "✅ Accept" in labels(m)

    shown = await fake.wait_for_message(chief.chat, offer, after=mark)
    assert labels(shown) == ["🔄 Regenerate", "✅ Accept", "✖ Cancel"], labels(shown)
    assert "seed" not in shown.content, shown.content
    [(seed,)] = query(db_path, "SELECT json_extract(request, '$.seed') FROM seating_plans "
                               "WHERE status = 'offered'")
    assert seed != old_seed
    return shown, seed


async def make_plan(fake: FakeTelegram, chief: Person, db_path: Path) -> Plan:
    ask = await chief.say("/seating", "How many tables play at once?")
    assert f"Seating plan for «{TITLE}»" in ask.content, ask.content
    assert "Confirmed players: 20; games per player: 2." in ask.content, ask.content
    assert labels(ask) == ["1", "2 ✓"], labels(ask)

    first, first_seed = await offered(fake, chief, ask, "2 ✓", db_path)
    offer, seed = await offered(fake, chief, first, "🔄 Regenerate", db_path, first_seed)
    shown = offer.content  # the message is edited on Accept: keep what the offer said
    assert "2 rounds, tables at once: 2." in shown, shown
    assert query(db_path, "SELECT status FROM seating_plans") == [("offered",)]

    mark = fake.seq
    answer = await chief.tap(offer, "✅ Accept")
    assert answer.text == "Accepted.", answer
    done = await fake.wait_for_message(
        chief.chat, lambda m: m.message_id == offer.message_id
        and "✅ The seating plan is accepted." in m.content, after=mark)
    assert done.buttons == [], done.buttons
    assert "/seating shows it again." in done.content

    # What is stored is what the chief judge was shown: its seed, figures and round 1.
    stored_seed, plan = accepted(db_path)
    assert stored_seed == seed
    assert query(db_path, "SELECT count(*) FROM seating_plans") == [(1,)]  # offers gone
    quality = plan["quality"]
    # The figures in plain words: 2 games each, so a seat twice is a spread of 2.
    seats = quality["seat_spread"]
    assert ("Seats: nobody sits in the same seat twice." if seats == 1
            else f"up to {seats} games more than in another") in shown, shown
    tables_spread = quality["table_spread"]
    assert ("Tables: everyone plays at every table about equally often." if tables_spread <= 1
            else f"up to {tables_spread} games more at one table") in shown, shown
    low, high = quality["meetings_min"], quality["meetings_max"]
    assert (f"No pair of players meets more than {high} time" if low == 0
            else f"Every pair of players meets {low}") in shown, shown
    preview = ["Round 1", *(line for t, seats in sorted(tables(plan, 1).items())
                            for line in table_lines("Table", t, seats))]
    assert "\n".join(preview) in shown, shown
    # Every confirmed player plays once a round: 20 names in each of the two rounds.
    for round_no in (1, 2):
        seated = [n for seats in tables(plan, round_no).values() for n in seats]
        assert sorted(seated) == sorted(PLAYERS)
    return plan


# -- the judge's card ---------------------------------------------------------------------


async def play_planned(card: Card, round_no: int, table: int, planned: list[str],
                       substitute: tuple[int, str] | None = None) -> None:
    """A whole game whose seats come from the plan (one seat given to a substitute),
    saved."""
    await card.open()
    assert "Step 1/11: Round and table" in card.text, card.text
    await card.tap(f"📋 Round {round_no}, table {table}", "Step 2/11: Seating")
    # The ten planned players sit already: nothing was tapped.
    assert "📋 The seats come from the accepted seating plan." in card.text, card.text
    assert card_seats(card.text) == planned
    if substitute is None:
        assert labels(card.message)[0] == "✅ Seating as planned", card.labels
        await card.tap("✅ Seating as planned", "Step 3/11: Roles")
    else:
        seat, nick = substitute
        await card.tap(f"{seat}✓", f"▶ {seat}. {planned[seat - 1]}")
        await card.tap(nick, f"Seat {seat}: {nick} plays instead of {planned[seat - 1]}.")
        assert card_seats(card.text) == [*planned[:seat - 1], nick, *planned[seat:]]
        assert card.labels[0] == "✅ Confirm the seating", card.labels
        await card.tap("✅ Confirm the seating", "Step 3/11: Roles")
    for role_seat in (1, 2, 3, 4):  # sheriff, don, two mafia
        await card.tap(str(role_seat))
    await card.tap("Next ▶", "Step 4/11: Day 1")
    await card.tap("0", "Step 5/11: Night 1")
    await card.tap("Miss (nobody shot)", "Step 7/11: Result")
    await card.tap("🔴 Red win", "Step 8/11: Disqualifications")
    await card.tap("⏭ Review", "Step 11/11: Review")
    await save(card)
    assert f"game R{round_no}-T{table}" in card.text, card.text


def stored_seats(db_path: Path, round_no: int, table: int) -> list[str]:
    return [nick for (nick,) in query(
        db_path, "SELECT p.nickname FROM game_seats s JOIN games g ON g.id = s.game_id "
                 "JOIN players p ON p.id = s.player_id WHERE g.round = ? AND g.table_no = ? "
                 "AND g.status = 'final' ORDER BY s.seat", (round_no, table))]


def announced(db_path: Path) -> list[int]:
    return [r for (r,) in query(db_path, "SELECT round FROM seating_announced ORDER BY round")]


# -- the test ----------------------------------------------------------------------------


async def test_seating_plan_is_made_announced_and_played(
        fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path,
        bot_token: str) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    chief = Person(fake, "Nina", "nina_chief").open_chat()
    judge = Person(fake, "Oleg", "oleg_judge").open_chat()
    alpha = Person(fake, "Alpha", "alpha_plays").open_chat()  # reads English
    bravo = Person(fake, "Bravo", "bravo_plays", language="ru").open_chat()
    readers = {"Alpha": (alpha, "en"), "Bravo": (bravo, "ru")}
    group = fake.create_group(f"{TITLE} club", [chief.user, judge.user, alpha.user, bravo.user])
    await seed_tournament(db_path, chief=chief, judges=[judge], players=PLAYERS,
                          linked={"Alpha": alpha, "Bravo": bravo}, chat=group, title=TITLE,
                          distance=2, language="ru")
    bot = await bot_factory(env={"STANDINGS_DEBOUNCE": "0.2"})

    # 1. The chief judge makes the plan: tables, figures, another seed, Accept.
    mark = fake.seq
    plan = await make_plan(fake, chief, db_path)

    # 2. Round 1 is announced: the group's seating in Russian, then its picture; each
    # linked player his own seat, in his own language.
    text = await fake.wait_for_message(group, lambda m: m.text == group_seating(plan, 1),
                                       after=mark)
    picture = await fake.wait_for_message(group, lambda m: m.photo is not None, after=mark)
    assert picture.seq > text.seq
    assert picture.photo is not None and (picture.photo.data or b"").startswith(PNG)
    for nick, (person, language) in readers.items():
        await person.wait(lambda m, n=nick, lang=language: m.text == seat_text(plan, 1, n, lang),
                          after=mark)
    assert announced(db_path) == [1]

    # The chief judge confirms a spare after the plan: he is in no round of it.
    said = await chief.say(f"/roster\n{SPARE}", "1 created")
    assert f"Created: {SPARE}" in said.content, said.content

    # 3. Round 1, table 1: the plan's seats, one given to the spare (not a linked player).
    r1t1 = tables(plan, 1)[1]
    # Not seat 1, where the cursor starts: the judge taps the seat first.
    seat = next(n for n, nick in enumerate(r1t1, start=1) if n > 1 and nick not in readers)
    await play_planned(Card(judge), 1, 1, r1t1, substitute=(seat, SPARE))
    played = [*r1t1[:seat - 1], SPARE, *r1t1[seat:]]
    assert stored_seats(db_path, 1, 1) == played
    assert announced(db_path) == [1]  # round 1 is not complete yet

    # 4. Round 1, table 2, as planned: round 1 is complete, round 2 is announced.
    mark = fake.seq
    r1t2 = tables(plan, 1)[2]
    await play_planned(Card(judge), 1, 2, r1t2)
    assert stored_seats(db_path, 1, 2) == r1t2
    assert announced(db_path) == [1, 2]
    text2 = await fake.wait_for_message(group, lambda m: m.text == group_seating(plan, 2),
                                        after=mark)
    picture2 = await fake.wait_for_message(
        group, lambda m: m.photo is not None and m.seq > text2.seq, after=mark)
    assert picture2.photo is not None and (picture2.photo.data or b"").startswith(PNG)
    for nick, (person, language) in readers.items():
        await person.wait(lambda m, n=nick, lang=language: m.text == seat_text(plan, 2, n, lang),
                          after=mark)

    await fake.wait_idle(timeout=30)
    # The group: each round's seating once (text, then picture), after round 1's results
    # and standings picture.
    posts = fake.messages(group)
    seatings = [m for m in posts if m.photo is not None and not m.caption]
    assert [m.message_id for m in seatings] == [picture.message_id, picture2.message_id]
    assert [m.text for m in posts if m.text and m.text.startswith(f"{TITLE}\nТур ")] == [
        group_seating(plan, 1), group_seating(plan, 2)]
    results = [m for m in posts if m.text and m.text.startswith("Тур 1, стол ")]
    standings = [m for m in posts if m.caption == f"{TITLE}: рейтинг после тура 1"]
    assert results and len(standings) == 1, [m.content[:40] for m in posts]
    assert max(m.seq for m in results) < standings[0].seq < text2.seq
    # Each linked player: his two seats, nothing else.
    for nick, (person, language) in readers.items():
        assert [m.text for m in fake.messages(person.chat)] == [
            seat_text(plan, 1, nick, language), seat_text(plan, 2, nick, language)]

    assert fake.flood_violations == []
    fake.assert_no_errors()
    assert await bot.stop() == 0, bot.tail()
    assert token_leaks(bot, bot_token) == []
    assert log_problems(bot) == []
