"""A club evening end to end (docs/club.md), the real bot process against the fake Bot
API: a group made a club with a host; an evening of 20 seats announced; 25 people tap
"I'm in" (two of them for the last seat at the same moment: one seat, one first place
in the reserve); three drop out and the reserve moves up, each told privately; the host
closes the sign-up, marks who came, starts the evening and seats three games of two
tables, which the owner and the host enter on the judge's card; the close posts the
evening's table, which equals ``python -m scoring standings`` on the evening's export,
and the career ratings equal ``python -m scoring elo`` on its ``ratings-input`` (club
games, K 4/3); ``/season`` sums the evening."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

from scoring import parse_tournament, tournament_breakdowns

from .bot_process import REPO_ROOT, BotFactory, requires_bot
from .fake_telegram import CallbackAnswer, Chat, FakeTelegram, StoredMessage
from .scenario import (
    WAIT,
    Card,
    GameSpec,
    Person,
    chat_table,
    enter_planned_game,
    labels,
    log_problems,
    query,
    save,
    scoring_cli,
    token_leaks,
)
from .test_career_e2e import elo_cli, exported, top_rows

pytestmark = requires_bot

NAMES = (
    "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India",
    "Juliet", "Kilo", "Lima", "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo",
    "Sierra", "Tango", "Uniform", "Victor", "Whiskey", "Xray", "Yankee",
)
SEATS = 20
LEAVING = ("Charlie", "Foxtrot", "Juliet")  # seated, then "Can't come"
# Three games of two tables, entered on the card from the posted seating (the seats'
# names come from the plan; the roles and the protocol by seat number).
GAMES = [
    GameSpec(1, 1, (), sheriff=1, don=2, mafia=(3, 4), result="red", night=5,
             best_move=(2, 3)),
    GameSpec(1, 2, (), sheriff=5, don=6, mafia=(7, 8), result="black", night=1,
             best_move=(6, 7, 8)),
    GameSpec(2, 1, (), sheriff=2, don=9, mafia=(1, 10), result="red", extras={2: "0.5"}),
    GameSpec(2, 2, (), sheriff=3, don=4, mafia=(5, 6), result="black", day1=1),
    GameSpec(3, 1, (), sheriff=7, don=8, mafia=(9, 10), result="red", night=7,
             best_move=(8,)),
    GameSpec(3, 2, (), sheriff=10, don=1, mafia=(2, 3), result="black"),
]
_SEATED = re.compile(r"^\s*(\d+)\.\s+(\S+)\s*$")
_EVENING_ROW = re.compile(
    r"^\s*(\d+(?:–\d+)?)\s+(\S+)\s+(\d+)\s+(\S+)\s+(-?\d+\.\d\d)\s+(-?\d+\.\d\d)$")


def evening_rows(text: str) -> list[tuple[str, ...]]:
    """The close's table: place, player, games, wins, points, best-move points."""
    return [found.groups() for line in text.replace("−", "-").splitlines()
            if (found := _EVENING_ROW.match(line))]


def run_cli(command: str, path: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "scoring", command, str(path)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def listed(text: str) -> tuple[list[str], list[str], list[str]]:
    """The announcement as people read it: the seated in order, the reserve in order,
    those who can't come."""
    seated: list[str] = []
    reserve: list[str] = []
    out: list[str] = []
    section = seated
    for line in text.splitlines():
        if line.startswith("Reserve:"):
            section = reserve
        elif line.startswith("Can't come:"):
            out = [n.strip() for n in line.split(":", 1)[1].split(",")]
        elif found := _SEATED.match(line):
            section.append(found[2])
    return seated, reserve, out


async def in_group(person: Person, group: Chat, text: str, expect: str) -> StoredMessage:
    """``person`` sends ``text`` in the group; the bot answers ``expect``."""
    mark = person.fake.seq
    person.send(text, group)
    return await person.fake.wait_for_message(group, expect, after=mark, timeout=WAIT)


async def tap_in(person: Person, announcement: StoredMessage) -> CallbackAnswer:
    return await person.tap(announcement, "I'm in")


async def test_a_club_evening(fake_telegram: FakeTelegram, bot_factory: BotFactory,
                              tmp_path: Path, bot_token: str) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    owner = Person(fake, "Olga", "olga_owner").open_chat()
    host = Person(fake, "Hugo", "hugo_host").open_chat()
    people = {name: Person(fake, name, f"{name.lower()}_plays").open_chat() for name in NAMES}
    group = fake.create_group("Mafia Friday", [owner.user, host.user,
                                               *(p.user for p in people.values())])
    bot = await bot_factory(env={"STANDINGS_DEBOUNCE": "0.3", "TOP_MIN_GAMES": "1"})

    # The club, its host and its settings.
    await in_group(owner, group, "/club Mafia Friday", "Mafia Friday")
    await in_group(owner, group, "/club_language en", "English")
    await in_group(owner, group, "/club_timezone UTC", "UTC")
    hello = host.send("Hello, I host on Fridays", group)
    await owner.say_in(group, "/host", reply_to=hello)
    assert query(db_path, "SELECT user_id, role FROM club_staff ORDER BY role DESC") == [
        (owner.id, "owner"), (host.id, "host")]

    # The evening: an evening in the past is refused and changes nothing.
    refused = await host.say_in(group, "/evening 01.01.2020 19:30; Café Luna; 20")
    assert "in the past" in refused.content, refused.content
    assert query(db_path, "SELECT count(*) FROM evenings") == [(0,)]
    day = datetime.now(UTC) + timedelta(days=1)
    mark = fake.seq
    host.send(f"/evening {day:%d.%m.%Y} 19:30; Café Luna; {SEATS}; bring cash", group)
    announcement = await fake.wait_for_message(group, "Evening #1", after=mark, timeout=WAIT)
    assert labels(announcement) == ["I'm in", "Can't come"]
    assert f"Seats: 0/{SEATS}" in announcement.content, announcement.content

    def current() -> StoredMessage:
        return fake.message(group, announcement.message_id)

    # 19 sign up one after another: a seat each, numbered.
    for n, name in enumerate(NAMES[:SEATS - 1], start=1):
        answer = await tap_in(people[name], current())
        assert answer.text == f"You are in, #{n}.", answer
    again = await tap_in(people["Alpha"], current())
    assert again.text == "You are already in, #1.", again
    # Two taps for the last seat at the same moment: one seat, one first in the reserve.
    racing = NAMES[SEATS - 1], NAMES[SEATS]
    answers = await asyncio.gather(*(tap_in(people[name], current()) for name in racing))
    assert sorted(a.text or "" for a in answers) == [
        "All seats are taken: you are #1 in the reserve.", f"You are in, #{SEATS}."]
    first_reserve = racing[[a.text for a in answers].index(
        "All seats are taken: you are #1 in the reserve.")]
    for n, name in enumerate(NAMES[SEATS + 1:], start=2):
        answer = await tap_in(people[name], current())
        assert answer.text == f"All seats are taken: you are #{n} in the reserve.", answer
    signed = [name for name in NAMES[:SEATS + 1] if name != first_reserve]
    reserve = [first_reserve, *NAMES[SEATS + 1:]]
    assert len(reserve) == 5

    # Three drop out: the first of the reserve moves up each time and is told privately.
    for name in LEAVING:
        mark = fake.seq
        answer = await people[name].tap(current(), "Can't come")
        assert answer.text, answer
        moved = reserve.pop(0)
        signed.remove(name)
        signed.append(moved)
        told = await people[moved].wait("A seat opened up", after=mark)
        assert "Mafia Friday" in told.content and "Café Luna" in told.content, told.content
    # The announcement follows, in as few edits as the window allows.
    await fake.wait_until(lambda: listed(current().content)[1] == reserve, timeout=WAIT,
                          what="the announcement to show the reserve")
    seated_now, reserve_now, out_now = listed(current().content)
    assert seated_now == signed and len(seated_now) == SEATS
    assert reserve_now == reserve and sorted(out_now) == sorted(LEAVING)
    assert f"Seats: {SEATS}/{SEATS}" in current().content
    edits = [c for c in fake.calls("editMessageText")
             if c.params.get("message_id") == announcement.message_id]
    assert len(edits) < len(NAMES) + len(LEAVING)  # coalesced, not one per tap

    # The sign-up closes: a late tap is refused and changes nothing.
    await in_group(host, group, "/close_signup", "closed")
    await fake.wait_until(lambda: not labels(current()), timeout=WAIT,
                          what="the announcement's buttons to go")

    # Who came: the twenty seated and the first of the reserve.
    came = [*signed, reserve[0]]
    mark = fake.seq
    host.send("/present", group)
    roll = await fake.wait_for_message(group, lambda m: bool(m.buttons), after=mark,
                                       timeout=WAIT)
    for name in came:
        await host.tap(fake.message(group, roll.message_id), f"▫️ {name}")
    await fake.wait_until(
        lambda: f"{len(came)} of {len(signed) + len(reserve)} present"
        in fake.message(group, roll.message_id).content, timeout=WAIT, what="the roll call")

    # The start: the evening is a tournament of its own, the owner its chief judge.
    await in_group(host, group, "/start_evening", f"{len(came)} players")

    # Three games of two tables: 21 present, one sits out each game.
    owner_card, host_card = Card(owner), Card(host)
    for round_no in (1, 2, 3):
        mark = fake.seq
        host.send("/next_game", group)
        offer = await fake.wait_for_message(group, f"Game {round_no}", after=mark, timeout=WAIT)
        await host.tap(offer, "Post")
        await fake.wait_for_message(group, f"Round {round_no}", after=mark, timeout=WAIT)

        async def play(card: Card, game: GameSpec) -> None:
            await enter_planned_game(card, game)
            await save(card)

        await asyncio.gather(play(owner_card, GAMES[2 * round_no - 2]),
                             play(host_card, GAMES[2 * round_no - 1]))
    assert query(db_path, "SELECT count(*) FROM games WHERE status = 'final'") == [(6,)]

    # The close: the evening's table in the group, then its standings with a picture.
    mark = fake.seq
    host.send("/close_evening", group)
    closed = await fake.wait_for_message(group, "The evening's table", after=mark, timeout=WAIT)
    table = await fake.wait_for_message(
        group, lambda m: len(chat_table(m.content)) == len(came), after=mark, timeout=WAIT)
    await fake.wait_for_message(group, lambda m: m.photo is not None, after=mark, timeout=WAIT)

    # The table is the engine's on the evening's export; the ratings the rating rule's.
    (tid,) = query(db_path, "SELECT tournament_id FROM evenings")[0]
    mark = fake.seq
    owner.send("/export")
    document = await fake.wait_for_message(
        owner.chat, lambda m: m.document is not None
        and (m.document.filename or "") == f"tournament-{tid}.json", after=mark, timeout=WAIT)
    assert document.document is not None and document.document.data
    export = tmp_path / "evening.json"
    export.write_bytes(document.document.data)
    engine = scoring_cli(export)
    assert chat_table(table.content) == engine, table.content
    assert "lot" not in table.content  # equal points share a place at an evening
    # The evening's own table: games, wins, points and best moves, each the engine's.
    document = json.loads(export.read_text("utf-8"))
    rows = json.loads(run_cli("standings", export))["standings"]
    best: dict[str, Fraction] = {}
    for game in tournament_breakdowns(parse_tournament(document)).values():
        for seat in game.seats:
            best[seat.player] = best.get(seat.player, Fraction(0)) + seat.best_move
    assert sum(best.values()) > 0  # the protocols named best moves that count
    assert evening_rows(closed.content) == [
        (row.place, row.player, str(r["games"]), str(r["wins"]), row.total,
         f"{float(best[row.player]):.2f}")
        for row, r in zip(engine, rows, strict=True)], closed.content
    ratings_input = await exported(fake, owner)
    assert {g["kind"] for g in ratings_input["games"]} == {"club"}
    expected = elo_cli([ratings_input], tmp_path)
    assert set(expected) == set(came)
    mark = fake.seq
    owner.send("/top")
    top = await owner.wait("players with at least 1 game rated", after=mark)
    ranked = sorted(expected.values(), key=lambda r: -r["rating"])
    assert [(name, float(rating)) for _place, name, rating, _games in top_rows(top.content)] == [
        (r["player"].rsplit(" #", 1)[0], round(r["rating"], 2)) for r in ranked]

    # The club's season: this evening's points, one row each.
    season = await in_group(host, group, "/season", "the season")
    totals = {row.player: row.total for row in scoring_cli(export)}
    for name, total in totals.items():
        line = next(line for line in season.content.splitlines() if f" {name} " in line)
        assert total in line.replace("−", "-"), (name, total, line)

    await fake.wait_idle(timeout=WAIT)
    assert fake.flood_violations == []
    assert document["distance"] == 3  # the most anyone played
    assert token_leaks(bot, bot_token) == []
    assert log_problems(bot) == []
