"""A two-stage tournament over HTTP (RULES.md D13-D17): twenty players play a one-game
qualifying at two tables, the chief judge adds a hidden one-table final of two games
(carry 0.5, weight 1.5, no compensation), closes the qualifying, the final is played
and the tournament finished; the final standings the group is shown are those
``python -m scoring standings`` computes from the bot's own export, stage by stage."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from .bot_process import REPO_ROOT, BotFactory, requires_bot
from .fake_telegram import FakeTelegram
from .scenario import (
    WAIT,
    Card,
    GameSpec,
    Person,
    chat_table,
    enter_game,
    log_problems,
    query,
    save,
    scoring_cli,
    seed_tournament,
)

pytestmark = requires_bot

PLAYERS = tuple(f"P{n:02}" for n in range(1, 21))
# Red wins at table 1, black at table 2: the ten with a win are the final's entrants,
# P01's judge's points put him first.
QUALIFYING = [
    GameSpec(1, 1, PLAYERS[:10], sheriff=1, don=2, mafia=(3, 4), result="red",
             extras={1: "0.3"}),
    GameSpec(1, 2, PLAYERS[10:], sheriff=5, don=6, mafia=(7, 8), result="black"),
]


def _entrants() -> list[str]:
    red = [n for i, n in enumerate(PLAYERS[:10], start=1) if i not in (2, 3, 4)]
    black = [PLAYERS[10 + i - 1] for i in (6, 7, 8)]
    return sorted(red + black)


def cli(export: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "scoring", "standings", str(export), *args],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli_stages(export: Path) -> dict[str, list[str]]:
    """Each stage's players in the order the scoring engine ranks them."""
    out = json.loads(cli(export))
    return {s["id"]: [r["player"] for r in s["standings"]] for s in out["stages"]}


async def test_d13_d17_a_qualifying_and_a_hidden_one_table_final(
    fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path
) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    chief = Person(fake, "Nina", "nina_chief").open_chat()
    j1 = Person(fake, "Oleg", "oleg_judge").open_chat()
    j2 = Person(fake, "Pavel", "pavel_judge").open_chat()
    group = fake.create_group("Cup club", [chief.user, j1.user, j2.user])
    await seed_tournament(db_path, chief=chief, judges=[j1, j2], players=PLAYERS,
                          chat=group, title="Cup", distance=1, language="en")
    bot = await bot_factory(env={"STANDINGS_DEBOUNCE": "0.3"})

    # The chief judge adds the final (D15 factors, D14 no compensation, D17 hidden).
    added = await chief.say(
        "/stages add final games=2 entrants=10 carry=0.5 weight=1.5 compensation=off "
        "hidden=on", "stages")
    assert "top 10" in added.content and "hidden" in added.content, added.content

    # The qualifying: two tables at once.
    async def play(judge: Person, game: GameSpec) -> None:
        card = Card(judge)
        await enter_game(card, game)
        await save(card)

    await asyncio.gather(play(j1, QUALIFYING[0]), play(j2, QUALIFYING[1]))
    await fake.wait_for_message(group, "standings after round 1", timeout=WAIT)

    # Closing it: the cut (D13), confirmed, told to the group.
    preview = await chief.say("/stages close", "Entering the final stage")
    entrants = preview.content.split("Entering the final stage (10): ", 1)[1]
    entrants = entrants.split(".", 1)[0].split(", ")
    assert sorted(entrants) == _entrants()
    mark = fake.seq
    await chief.tap(preview, "Close the stage")
    await fake.wait_for_message(group, "The qualifying stage is closed", after=mark, timeout=WAIT)

    # The final's two games, at one table.
    final = [
        GameSpec(2, 1, entrants, sheriff=1, don=2, mafia=(3, 4), result="black"),
        GameSpec(3, 1, entrants[5:] + entrants[:5], sheriff=3, don=4, mafia=(5, 6),
                 result="red", night=7, best_move=(3, 4, 5)),
    ]
    for game in final:
        await play(j1, game)

    # Hidden (D17): the group sees games played, no points, while the final runs.
    await fake.wait_idle(idle=0.5, timeout=WAIT)
    mark = fake.seq
    chief.send("/rating all", group)
    hidden = await fake.wait_for_message(group, "final", after=mark, timeout=WAIT)
    assert chat_table(hidden.content) == [], hidden.content
    # Its games' result lines name the seats, not their points.
    posted = [line for m in fake.messages(group) for line in m.content.split("\n")]
    for game in final:
        seats = ", ".join(f"{n}. {name}" for n, name in enumerate(game.seats, start=1))
        assert (
            f"Round {game.round}, table 1: {game.result} win. Seats: {seats}. The stage's "
            "points are hidden until it ends."
        ) in posted, posted

    # Finish: every stage ends; the final standings (D16) are posted and pinned.
    card = await chief.say_in(group, "/tournament")
    await chief.tap(card, "🏁 Finish")
    confirm = await fake.wait_for_message(
        chief.chat if card.chat_id == chief.id else group,
        lambda m: "Yes, finish" in " ".join(b["text"] for b in m.buttons), after=0,
        timeout=WAIT)
    mark = fake.seq
    await chief.tap(confirm, "Yes, finish")
    await fake.wait_idle(idle=1.0, timeout=WAIT)

    mark = fake.seq
    chief.send("/export")
    exported = await fake.wait_for_message(
        chief.chat, lambda m: m.document is not None
        and (m.document.filename or "").startswith("tournament-"), after=mark, timeout=WAIT)
    assert exported.document is not None and exported.document.data
    export = tmp_path / "export.json"
    export.write_bytes(exported.document.data)
    expected = scoring_cli(export)
    stages = cli_stages(export)
    assert list(stages) == ["qualifying", "final"]
    assert sorted(stages["final"]) == sorted(entrants)
    assert len(expected) == 20 and [r.player for r in expected][:10] == stages["final"]

    # The group's final standings (D16), pinned, are the engine's figures; the picture
    # follows. The hidden final (D17) drew no picture while it ran.
    (live_id,) = query(db_path, "SELECT standings_message_id FROM tournaments")[0]
    live = fake.message(group, live_id)
    assert live.pinned and "The final standings of all 2 stages" in live.content
    assert chat_table(live.content) == expected, live.content
    assert [m.caption for m in fake.messages(group) if m.photo] == [
        "Cup: standings after round 1",
        "Cup: the qualifying stage is closed; the top 10 enter the final stage",
        "Cup: the final standings"]
    assert query(db_path, "SELECT number, status FROM stages ORDER BY number") == [
        (1, "closed"), (2, "closed")]
    assert fake.flood_violations == []
    assert log_problems(bot) == []
