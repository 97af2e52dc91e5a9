"""The career rating end to end: two tournaments in one bot (the real process against
the fake Bot API), their players one person wherever their Telegram account plays, a
roster nickname of the second linked by its chief judge to a player of the first, a
game saved on the card after that; /me, /top and the public page agree with
``python -m scoring elo`` run on the games of both tournaments' exports
(``ratings-input-N.json``), merged in the order the bot counts them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp

from .bot_process import REPO_ROOT, BotFactory, free_port, requires_bot
from .fake_telegram import Chat, FakeTelegram, StoredMessage
from .scenario import (
    NICKS,
    WAIT,
    Card,
    GameSpec,
    Person,
    enter_game,
    log_problems,
    query,
    save,
    seed_game,
    seed_tournament,
    token_leaks,
)

pytestmark = requires_bot

SPRING = [
    GameSpec(1, 1, NICKS[0:10], sheriff=1, don=2, mafia=(3, 4), result="red"),
    GameSpec(1, 2, NICKS[2:12], sheriff=5, don=6, mafia=(7, 8), result="black"),
    GameSpec(2, 1, [*NICKS[6:12], *NICKS[0:4]], sheriff=2, don=9, mafia=(1, 10),
             result="red"),
]
AUTUMN_PLAYERS = [*NICKS[0:8], "Kilo2", "Mike"]
AUTUMN_SEEDED = GameSpec(1, 1, AUTUMN_PLAYERS, sheriff=3, don=9, mafia=(1, 10),
                         result="black")
# Entered on the card once Kilo2 is Kilo: his rating moves with the new game.
AUTUMN_ON_CARD = GameSpec(2, 1, [*AUTUMN_PLAYERS[2:], *AUTUMN_PLAYERS[:2]], sheriff=7,
                          don=1, mafia=(2, 5), result="red")
_TOP_ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(\d+\.\d\d)\s+(\d+)$")


def elo_cli(documents: list[dict[str, Any]], tmp_path: Path) -> dict[str, dict[str, Any]]:
    """``python -m scoring elo`` on the exports' games merged in the bot's order (the
    time of the Save, then the game's number), from no sums."""
    games = sorted((g for d in documents for g in d["games"]),
                   key=lambda g: (g["saved_at"], g["seq"]))
    path = tmp_path / "career.json"
    path.write_text(json.dumps({"games": games}), "utf-8")
    done = subprocess.run([sys.executable, "-m", "scoring", "elo", str(path)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    players = json.loads(done.stdout)["players"]
    return {row["player"].rsplit(" #", 1)[0]: row for row in players if row["games"]}


async def exported(fake: FakeTelegram, chief: Person) -> dict[str, Any]:
    mark = fake.seq
    chief.send("/export")
    message = await fake.wait_for_message(
        chief.chat, lambda m: m.document is not None
        and (m.document.filename or "").startswith("ratings-input-"), after=mark, timeout=WAIT)
    assert message.document is not None and message.document.data
    document: dict[str, Any] = json.loads(message.document.data)
    return document


def top_rows(text: str) -> list[tuple[str, str, str, str]]:
    return [m.groups() for line in text.splitlines() if (m := _TOP_ROW.match(line))]


async def test_two_tournaments_make_one_career(
    fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path, bot_token: str
) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    nina = Person(fake, "Nina", "nina_chief").open_chat()
    pavel = Person(fake, "Pavel", "pavel_chief").open_chat()
    oleg = Person(fake, "Oleg", "oleg_judge").open_chat()
    olga = Person(fake, "Olga", "olga_judge").open_chat()
    people = {nick: Person(fake, nick, f"{nick.lower()}_plays").open_chat() for nick in NICKS}
    spring_group: Chat = fake.create_group("Spring club", [nina.user, oleg.user,
                                                           *(p.user for p in people.values())])
    autumn_group: Chat = fake.create_group("Autumn club", [pavel.user, olga.user])
    spring = await seed_tournament(db_path, chief=nina, judges=[oleg], linked=people,
                                   chat=spring_group, title="Spring Cup", language="en")
    autumn = await seed_tournament(
        db_path, chief=pavel, judges=[olga], players=AUTUMN_PLAYERS,
        linked={nick: people[nick] for nick in NICKS[0:8]}, chat=autumn_group,
        title="Autumn Cup", language="en")
    for game in SPRING:
        await seed_game(db_path, spring, oleg, game)
    await seed_game(db_path, autumn, olga, AUTUMN_SEEDED)
    # One Telegram account, one person: Alpha..Hotel play both tournaments as one each.
    persons = dict(query(db_path, "SELECT tournament_id || nickname, person_id FROM players"))
    assert persons[f"{spring.tournament_id}Alpha"] == persons[f"{autumn.tournament_id}Alpha"]
    assert persons[f"{autumn.tournament_id}Kilo2"] != persons[f"{spring.tournament_id}Kilo"]

    port = free_port()
    bot = await bot_factory(env={"WEB_PORT": str(port), "TOP_MIN_GAMES": "1"})

    # Autumn's chief judge: his roster's Kilo2 is Spring's Kilo.
    question = await pavel.say("/link Kilo2 = Kilo", "Who is Kilo2")
    answer = await pavel.tap(question, "Kilo (Spring Cup)")
    assert answer.text == "Linked."
    linked = await pavel.wait("is Kilo now", after=0)
    assert "↩ Undo" in [b["text"] for b in linked.buttons]
    kilos = query(db_path, "SELECT person_id FROM players WHERE nickname LIKE 'Kilo%'")
    assert len(kilos) == 2 and len(set(kilos)) == 1

    # A game saved on the card now: the rating follows it.
    card = Card(olga)
    await enter_game(card, AUTUMN_ON_CARD)
    await save(card)

    # Everyone's view, and the rule's on both exports.
    documents = [await exported(fake, nina), await exported(fake, pavel)]
    expected = elo_cli(documents, tmp_path)
    assert set(expected) == {*NICKS, "Mike"}  # Kilo2 is Kilo's: one row

    mark = fake.seq
    people["Alpha"].send("/top", spring_group)
    listed = await fake.wait_for_message(spring_group, "players with at least 1 game rated",
                                         after=mark, timeout=WAIT)
    picture: StoredMessage = await fake.wait_for_message(
        spring_group, lambda m: m.photo is not None, after=mark, timeout=WAIT)
    rows = top_rows(listed.content)
    ranked = sorted(expected.values(), key=lambda r: -r["rating"])
    assert [(name, float(rating)) for _place, name, rating, _games in rows] == [
        (r["player"].rsplit(" #", 1)[0], round(r["rating"], 2)) for r in ranked]
    assert {name: int(games) for _p, name, _r, games in rows} == {
        name: row["games"] for name, row in expected.items()}
    assert picture.photo is not None and picture.photo.data
    (tmp_path / "top.png").write_bytes(picture.photo.data)

    alpha = people["Alpha"]
    mark = fake.seq
    alpha.send("/me")
    profile = await alpha.wait("career rating", after=mark)
    chart = await fake.wait_for_message(alpha.chat, lambda m: m.photo is not None, after=mark,
                                        timeout=WAIT)
    shown = f"{expected['Alpha']['rating']:.2f}"
    assert f"Rating: {shown}" in profile.content, profile.content
    assert f"Rated games: {expected['Alpha']['games']}" in profile.content
    assert "«Spring Cup» as Alpha" in profile.content
    assert "«Autumn Cup» as Alpha" in profile.content
    assert chart.photo is not None and chart.photo.data
    (tmp_path / "alpha.png").write_bytes(chart.photo.data)

    # The public page: the same leaderboard, no Telegram id on it.
    async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
        async with http.get("/top?lang=en") as page:
            assert page.status == 200
            html = await page.text()
        names = re.findall(r'href="/player/\d+\?lang=en">([^<]+)</a>', html)
        assert names == [r["player"].rsplit(" #", 1)[0] for r in ranked]
        assert all(str(p.id) not in html for p in people.values())
        kilo = persons[f"{spring.tournament_id}Kilo"]
        async with http.get(f"/player/{kilo}?lang=en") as page:
            text = await page.text()
        assert f"Rating: <b>{expected['Kilo']['rating']:.2f}</b>" in text
        assert "«Autumn Cup» as <b>Kilo2</b>" in text

    await fake.wait_idle(timeout=WAIT)
    assert fake.flood_violations == []
    assert token_leaks(bot, bot_token) == []
    assert log_problems(bot) == []
