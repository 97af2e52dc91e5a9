"""Ten tables finish at once: ten judges have their games on the review card
(left there by the card's conversation: the drafts are seeded, /game shows each card
again), then all ten tap Save within the same moment. The bot stays inside Telegram's limits
(the fake never sees a request inside a ban; a 429 it is given is waited out) and
every message arrives: each judge's final card, every result in the group, the
standings message edited to the ten games, the round's picture."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from .bot_process import BotFactory, requires_bot
from .fake_telegram import FakeTelegram
from .scenario import (
    WAIT,
    Card,
    GameSpec,
    Person,
    log_problems,
    query,
    seed_draft,
    seed_tournament,
    token_leaks,
)

pytestmark = requires_bot

TABLES = 10
NICKS = [f"P{n:03d}" for n in range(1, 10 * TABLES + 1)]


async def test_ten_tables_save_within_one_second(fake_telegram: FakeTelegram,
                                                  bot_factory: BotFactory, tmp_path: Path,
                                                  bot_token: str) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    chief = Person(fake, "Nina", "nina_chief").open_chat()
    judges = [Person(fake, f"Judge{n}", f"judge_{n}").open_chat() for n in range(1, 11)]
    group = fake.create_group("Big club", [chief.user, *(j.user for j in judges)])
    seeded = await seed_tournament(db_path, chief=chief, judges=judges, players=NICKS,
                                   chat=group)
    games = [GameSpec(1, n, NICKS[10 * (n - 1): 10 * n], sheriff=1, don=2, mafia=(3, 4),
                      result="red" if n % 2 else "black") for n in range(1, TABLES + 1)]
    for judge, game in zip(judges, games, strict=True):
        await seed_draft(db_path, fake, judge, seeded, game)
    bot = await bot_factory(env={"STANDINGS_DEBOUNCE": "0.5"})
    cards = [Card(judge) for judge in judges]
    await asyncio.gather(*(card.open() for card in cards))
    assert all("Step 11/11: Review" in card.text and "💾 Save" in card.labels
               for card in cards)
    await fake.wait_idle()
    # The group is told to slow down once, on its next message: waited out, not lost.
    fake.inject_flood(group, retry_after=1)

    mark, tapped = fake.seq, time.monotonic()
    queries = [fake.tap(card.judge.user, card.message, "💾 Save") for card in cards]
    for card in cards:
        await card.edited(mark, "✅ Saved")
    cards_done = time.monotonic() - tapped

    def group_has(text: str) -> bool:
        return any(text in m.content for m in fake.messages(group))

    for n in range(1, TABLES + 1):
        await fake.wait_until(lambda n=n: group_has(f"Тур 1, стол {n}:"), timeout=WAIT,
                              what=f"the result of table {n} in the group")
    standings = await fake.wait_for_message(group, "Рейтинг после 10 игр", timeout=WAIT)
    await fake.wait_until(lambda: any(m.photo is not None for m in fake.messages(group)),
                          timeout=WAIT, what="the round's picture")
    group_done = time.monotonic() - tapped
    await fake.wait_idle(timeout=WAIT)

    assert all(any(a.query_id == q["id"] and a.text == "Saving…" for a in fake.callback_answers)
               for q in queries)
    # One standings message, pinned and edited in place; the results in one message.
    assert standings.pinned and len([m for m in fake.messages(group) if "Рейтинг" in
                                     m.content]) == 1
    assert "…" in standings.content  # 100 players: the top 50 and "/rating all"
    results = [m for m in fake.messages(group) if "Тур 1, стол" in m.content]
    assert len(results) == 1, [m.content[:60] for m in results]
    # Saved within one second of each other, all ten (8.8.1: the Save tap is the end).
    (spread, saved), = query(db_path, "SELECT max(ended_at) - min(ended_at), count(*) "
                                      "FROM games")
    assert saved == TABLES and spread <= 1
    assert fake.flood_violations == []
    assert [e.scope for e in fake.flood_events] == ["injected"]
    fake.assert_no_errors(allow=["Too Many Requests"])
    assert token_leaks(bot, bot_token) == []
    assert log_problems(bot) == []
    print(f"\nten final cards {cards_done:.1f}s, the group {group_done:.1f}s after the taps")
