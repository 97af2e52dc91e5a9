"""``kill -9`` of the bot while judges enter games and while a game is being saved.

The FSM lives in SQLite, so after a restart a judge goes on where he was: his card's
buttons still work, or /game sends the card again. Telegram delivers again the
updates the bot had not confirmed, and it confirms none before it is handled and
recorded (bot/telegram/polling.py; in webhook mode, its answer to the POST): those already
handled are skipped (the dedup middleware); those cut short are handled again, and
what they stored is not stored twice (a Save is keyed by its draft's id, a card's tap
by its callback query id; a query Telegram refuses to answer a second time is no
error). Nothing is half-saved or saved twice, nothing the group must be told is lost
(the outbox), and no update in flight is lost: the database file and the chats say so.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from .bot_process import BotFactory, BotProcess, free_port, requires_bot
from .fake_telegram import FakeTelegram, Hold
from .scenario import (
    NICKS,
    QUERY_TOO_OLD,
    WAIT,
    Card,
    GameSpec,
    Person,
    confirmed_below,
    logged_errors,
    processed,
    query,
    seed_draft,
    seed_tournament,
    token_leaks,
    update_of,
)

pytestmark = requires_bot

TABLE1 = GameSpec(1, 1, NICKS[:10], sheriff=1, don=2, mafia=(3, 4), result="red")
ENV = {"STANDINGS_DEBOUNCE": "0.5"}


class World:
    def __init__(self, fake: FakeTelegram, judges: int = 1) -> None:
        self.fake = fake
        self.chief = Person(fake, "Nina", "nina_chief").open_chat()
        self.judges = [Person(fake, name, f"{name.lower()}_judge").open_chat()
                       for name in ("Oleg", "Pavel", "Raisa", "Semyon")[:judges]]
        self.j1 = self.judges[0]
        self.group = fake.create_group("Club", [self.chief.user,
                                                *(j.user for j in self.judges)])


async def one_game_at_review(
    fake: FakeTelegram, bot_factory: BotFactory, db_path: Path
) -> tuple[World, BotProcess, Card]:
    """One judge whose game (TABLE1) waits on its review card; the bot running."""
    w = World(fake)
    seeded = await seed_tournament(db_path, chief=w.chief, judges=[w.j1], chat=w.group)
    await seed_draft(db_path, fake, w.j1, seeded, TABLE1)
    bot = await bot_factory(env=ENV)
    card = Card(w.j1)
    await card.open()
    return w, bot, card


async def crash_and_restart(bot: BotProcess, *holds: Hold) -> None:
    """SIGKILL; what the bot had in flight dies with it; it starts again."""
    assert bot.kill() == -9
    for hold in holds:
        hold.drop()
    await bot.start()


def stored_games(db_path: Path) -> list[tuple[int, int, str, int]]:
    """(round, table, status, seats) of every stored game."""
    return query(db_path, "SELECT g.round, g.table_no, g.status, count(s.seat) FROM games g "
                          "LEFT JOIN game_seats s ON s.game_id = g.id "
                          "GROUP BY g.id ORDER BY g.round, g.table_no")


def draft_of(db_path: Path, judge: Person) -> dict[str, object]:
    """The judge's unfinished game as stored in the FSM table."""
    rows = query(db_path, "SELECT data FROM fsm WHERE key LIKE ?", (f"%:{judge.id}:{judge.id}:%",))
    assert len(rows) == 1, rows
    return json.loads(rows[0][0])["game_draft"]  # type: ignore[no-any-return]


async def test_kill_9_mid_entry_and_mid_save(fake_telegram: FakeTelegram,
                                             bot_factory: BotFactory, tmp_path: Path,
                                             bot_token: str) -> None:
    """Four judges at once when the bot is killed, their taps not yet confirmed to
    Telegram: Oleg's role tap is stored but its card edit is still on its way; Pavel's
    role tap was handled completely; Raisa's Save has not stored anything yet ("Saving…"
    is the first thing Save does); Semyon's Save has stored the game."""
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    w = World(fake, judges=4)
    oleg, pavel, raisa, semyon = w.judges
    seeded = await seed_tournament(db_path, chief=w.chief, judges=w.judges, chat=w.group)
    tables = [GameSpec(1, n, NICKS[n - 1:n + 9], sheriff=1, don=2, mafia=(3, 4),
                       result="red") for n in (1, 2, 3)]
    tables.append(GameSpec(1, 4, NICKS[2:], sheriff=5, don=6, mafia=(7, 8), result="black"))
    for judge, game, step in zip(w.judges, tables, ("ro", "ro", "rv", "rv"), strict=True):
        await seed_draft(db_path, fake, judge, seeded, game, step=step)
    bot = await bot_factory(env=ENV)
    cards = [Card(judge) for judge in w.judges]
    await asyncio.gather(*(card.open() for card in cards))
    one, two, three, four = cards
    assert "Step 3/11: Roles" in one.text and "Step 11/11: Review" in four.text
    await fake.wait_idle()

    # The four taps reach the bot in one batch; the holds are in place before it runs.
    mark = fake.seq
    q1 = fake.tap(oleg.user, one.message, "1")
    q2 = fake.tap(pavel.user, two.message, "1")
    q3 = fake.tap(raisa.user, three.message, "💾 Save")
    q4 = fake.tap(semyon.user, four.message, "💾 Save")
    updates = [update_of(fake, q) for q in (q1, q2, q3, q4)]
    oleg_edit = fake.hold("editMessageText", chat=oleg.chat)
    semyon_card = fake.hold("editMessageText", chat=semyon.chat)
    raisa_saving = fake.hold("answerCallbackQuery",
                             predicate=lambda r: r.params.get("callback_query_id") == q3["id"])
    await fake.wait_held(oleg_edit)
    await fake.wait_held(raisa_saving)
    await fake.wait_held(semyon_card)
    await two.edited(mark, "1. Bravo — sheriff")
    await fake.wait_until(lambda: processed(db_path, updates[1]), what="Pavel's tap recorded")
    # The bot polls again once Pavel's tap is done, but confirms nothing from Oleg's
    # on, which is still being handled: Pavel's tap is not confirmed either.
    await fake.wait_for_request("getUpdates", since=len(fake.requests))
    assert confirmed_below(fake) <= updates[0]
    assert stored_games(db_path) == [(1, 4, "final", 10)]
    assert draft_of(db_path, oleg)["sheriff"] == 1

    delivered = [fake.delivery_count(u) for u in updates]
    await crash_and_restart(bot, oleg_edit, raisa_saving, semyon_card)
    await fake.wait_until(lambda: all(processed(db_path, u) for u in updates), timeout=WAIT,
                          what="the four taps handled after the restart")
    # Telegram sent all four again.
    assert all(fake.delivery_count(u) > n for u, n in zip(updates, delivered, strict=True))
    # Raisa's Save came again and saved her game, once; her card and the group say so.
    await three.edited(mark, "✅ Saved")
    await fake.wait_for_message(w.group, "Тур 1, стол 3", timeout=WAIT)
    # Pavel's tap was not handled again (it would have taken his sheriff away); Oleg's
    # was handled again, but only to show his card: his sheriff is still there.
    assert [a.query_id for a in fake.callback_answers].count(q2["id"]) == 1
    await one.edited(mark, "1. Alpha — sheriff")
    # Both go on with their cards' buttons: Oleg's sheriff counted once, too.
    for card in (one, two):
        for seat in (2, 3, 4):
            await card.tap(str(seat))
        assert "All roles are set." in card.text and "— sheriff" in card.text
        await card.tap("Next ▶", "Step 4/11: Day 1")

    await fake.wait_idle(timeout=WAIT)
    assert await bot.stop() == 0
    # The database file: two whole games, each saved and audited once; the two
    # unfinished ones are still there, each at day 1.
    assert stored_games(db_path) == [(1, 3, "final", 10), (1, 4, "final", 10)]
    assert query(db_path, "SELECT count(*), count(DISTINCT draft_id) FROM games") == [(2, 2)]
    assert query(db_path, "SELECT count(*) FROM audit_log WHERE action = 'game.save'") == [(2,)]
    assert query(db_path, "SELECT count(*) FROM game_seats") == [(20,)]
    for judge in (oleg, pavel):
        draft = draft_of(db_path, judge)
        assert (draft["step"], draft["sheriff"], draft["don"]) == ("d1", 1, 2)
    assert fake.flood_violations == []
    assert token_leaks(bot, bot_token) == []
    # The redelivered taps that had been answered the first time (Oleg's, Semyon's):
    # Telegram refuses to answer them again, which is no error.
    assert logged_errors(bot) == []
    assert sum(QUERY_TOO_OLD in line for line in bot.log_text().splitlines()) == 2


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_kill_9_with_20_updates_in_flight_loses_none(
        fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path,
        mode: str) -> None:
    """24 people send /start at once; 20 answers are on their way (held) when the bot is
    killed, 4 went out and were recorded. After the restart each of the 24 has exactly
    one answer: the 20 came again and were handled, the 4 were not handled twice."""
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    env = ENV
    if mode == "webhook":
        port = free_port()
        env = {**ENV, "WEBHOOK_URL": f"http://127.0.0.1:{port}/tg/hook",
               "WEBHOOK_SECRET": "s3cret", "WEB_PORT": str(port)}
    bot = await bot_factory(env=env)
    people = [Person(fake, f"P{n:02}").open_chat() for n in range(24)]
    finished = people[3::6]  # the first in flight comes before every finished one
    in_flight = [p for p in people if p not in finished]
    answers = fake.hold("sendMessage", predicate=lambda r: r.chat_id in {
        p.id for p in in_flight})
    updates = {p.id: update_of(fake, p.send("/start")) for p in people}
    await fake.wait_held(answers, count=20, timeout=WAIT)
    await fake.wait_until(lambda: all(processed(db_path, updates[p.id]) for p in finished),
                          timeout=WAIT, what="the 4 finished updates recorded")
    if mode == "webhook":
        # Recorded is not yet answered: the 4 count as finished once Telegram has its 200.
        await fake.wait_until(
            lambda: {updates[p.id] for p in finished}
            <= {post.update_id for post in fake.webhook_posts if post.status == 200},
            timeout=WAIT, what="the 4 finished updates answered 200")
    if mode == "polling":
        # Nothing confirmed from the first update in flight on (the bot asks again
        # meanwhile: for the new ones, and each time one is done).
        since = len(fake.requests)
        await fake.wait_for_request("getUpdates", since=since)
        assert confirmed_below(fake) <= updates[in_flight[0].id]
    assert [fake.messages(p.chat) != [] for p in people] == [p in finished for p in people]
    delivered = {uid: fake.delivery_count(uid) for uid in updates.values()}

    await crash_and_restart(bot, answers)
    await fake.wait_until(lambda: all(fake.messages(p.chat) for p in people), timeout=WAIT,
                          what="an answer to each of the 24")
    await fake.wait_idle(timeout=WAIT)
    assert await bot.stop() == 0
    assert [len(fake.messages(p.chat)) for p in people] == [1] * 24
    assert all(processed(db_path, uid) for uid in updates.values())
    again = {p.id for p in people if fake.delivery_count(updates[p.id]) > delivered[updates[p.id]]}
    # Telegram sent again what was not confirmed: in webhook mode the 20 unanswered
    # POSTs; in polling mode all 24, the 4 finished ones skipped as handled already.
    assert again == {p.id for p in (people if mode == "polling" else in_flight)}
    assert logged_errors(bot) == []


async def test_a_crash_right_after_the_commit_still_announces_the_game(
        fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path) -> None:
    """The game is committed with its result line in the outbox; the bot dies before the
    judge's final card. After the restart the redelivered Save shows the card (the game
    is not stored again) and the result line and the standings reach the group."""
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    w, bot, card = await one_game_at_review(fake, bot_factory, db_path)
    assert "Step 11/11: Review" in card.text
    final_card = fake.hold("editMessageText", chat=w.j1.chat)
    mark = fake.seq
    fake.tap(w.j1.user, card.message, "💾 Save")
    await fake.wait_held(final_card)
    await crash_and_restart(bot, final_card)
    await card.edited(mark, "✅ Saved")
    await fake.wait_for_message(w.group, "Тур 1, стол 1", timeout=WAIT)
    await fake.wait_until(
        lambda: any("<pre>" in (m.source or "") for m in fake.messages(w.group)),
        timeout=WAIT, what="the standings in the group",
    )
    await fake.wait_idle(timeout=WAIT)
    assert await bot.stop() == 0
    assert stored_games(db_path) == [(1, 1, "final", 10)]
    posted = [m.content for m in fake.messages(w.group)]
    assert sum("Тур 1, стол 1" in text for text in posted) == 1, posted
    assert query(db_path, "SELECT count(*) FROM outbox") == [(0,)]
    assert query(db_path, "SELECT count(*) FROM audit_log WHERE action = 'game.save'") == [(1,)]
    assert logged_errors(bot) == []


async def test_sigterm_during_a_save_lets_it_finish(
        fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path) -> None:
    """A graceful stop (a deploy) waits for the Save being handled
    (bot/telegram/middlewares/inflight)."""
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    w, bot, card = await one_game_at_review(fake, bot_factory, db_path)
    slow = fake.hold("editMessageText", chat=w.j1.chat)  # a slow network for the card
    fake.tap(w.j1.user, card.message, "💾 Save")
    await fake.wait_held(slow)
    stopping = asyncio.create_task(bot.stop())
    # The network answers once the bot is stopping (or is gone: then it did not wait).
    await fake.wait_until(lambda: "waiting for 1 update(s) being handled" in bot.log_text()
                          or stopping.done(), timeout=WAIT, what="the bot to stop")
    slow.release()
    assert await stopping == 0
    assert stored_games(db_path) == [(1, 1, "final", 10)]  # this much holds already
    assert "✅ Saved" in card.text
    assert any("Тур 1, стол 1" in m.content for m in fake.messages(w.group))
    assert logged_errors(bot) == []
