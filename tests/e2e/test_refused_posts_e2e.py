"""A group that refuses photos never silences the standings, over HTTP against the real
bot process (docs/development.md, "Reliability and speed").

One table plays three rounds; each Save completes a round, whose picture the group
refuses ("not enough rights to send photos to the chat", as Telegram answers): every
round's result line and standings edit still reach the group before the next game is
entered, the picture comes as the standings' text, the chief judge hears of it once,
and after he gives the right «Post again» on /tournament posts the three pictures.
"""

from __future__ import annotations

from pathlib import Path

from .bot_process import BotFactory, requires_bot
from .fake_telegram import FakeTelegram
from .scenario import (
    NICKS,
    WAIT,
    Card,
    GameSpec,
    Person,
    enter_game,
    labels,
    log_problems,
    save,
    seed_tournament,
)

pytestmark = requires_bot

DEBOUNCE = 0.5
# Well below the first retry's back-off (15 s): a post that waited for one would miss it.
PROMPT = 12.0
ROUNDS = [
    GameSpec(1, 1, list(NICKS[:10]), sheriff=1, don=2, mafia=(3, 4), result="red"),
    GameSpec(2, 1, [*NICKS[5:10], *NICKS[:5]], sheriff=3, don=4, mafia=(5, 6), result="black"),
    GameSpec(3, 1, [*NICKS[3:10], *NICKS[:3]], sheriff=7, don=8, mafia=(9, 10), result="red"),
]


async def test_a_group_without_photos_gets_every_result_and_standings(
    fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path
) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    chief = Person(fake, "Nina", "nina_chief").open_chat()
    judge = Person(fake, "Oleg", "oleg_judge").open_chat()
    group = fake.create_group("Club", [chief.user, judge.user])
    group.photos_allowed = False
    await seed_tournament(db_path, chief=chief, judges=[judge], players=NICKS[:10], chat=group,
                          language="en", title="Spring Cup")
    bot = await bot_factory(env={"STANDINGS_DEBOUNCE": str(DEBOUNCE)})

    card = Card(judge)
    for game in ROUNDS:
        await enter_game(card, game)
        mark = fake.seq
        await save(card)
        r = game.round
        await fake.wait_for_message(group, f"Round {r}, table 1", after=mark, timeout=PROMPT)
        await fake.wait_for_message(
            group, lambda m, r=r: m.pinned and f"after {r} game" in m.content,
            after=mark, timeout=PROMPT)
        await fake.wait_for_message(group, f"standings after round {r}", after=mark,
                                    timeout=PROMPT)

    assert not [m for m in fake.messages(group) if m.photo is not None]
    # The group refused each picture once: nothing was tried again in a loop.
    refused = [r for r in fake.errors() if "rights to send photos" in (r.description or "")]
    assert len(refused) == 3
    told = [m for m in fake.messages(chief.chat) if "did not get" in m.content]
    assert len(told) == 1 and "send photos" in told[0].content

    # The chief judge gives the right; /tournament lists the three pictures.
    group.photos_allowed = True
    tournament_card = await chief.say("/tournament", "Post again")
    assert "a picture of the standings × 3" in tournament_card.content
    answer = await chief.tap(tournament_card, "📤 Post again (3)")
    assert answer.text == "Posting 3 items in the group again."
    await fake.wait_until(
        lambda: len([m for m in fake.messages(group) if m.photo is not None]) == 3,
        timeout=WAIT, what="the three pictures")
    captions = [m.content for m in fake.messages(group) if m.photo is not None]
    assert all(f"after round {r}" in c for r, c in zip((1, 2, 3), captions, strict=True))
    await fake.wait_until(  # the card, refreshed, offers nothing more to post
        lambda: "Post again" not in " ".join(
            labels(fake.message(chief.chat, tournament_card.message_id))),
        timeout=WAIT, what="the card without «Post again»")
    assert log_problems(bot) == []
