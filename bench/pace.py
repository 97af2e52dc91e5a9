"""The judge's card at a judge's pace: the real bot (``python -m bot``) over HTTP against
the fake Bot API server, one game entered by a judge who taps at a fixed pace.

A judge taps what his card shows: before each action the driver waits for the pace
(one action per ``pace`` seconds at most) and for the card to show the step the bot is
in, and taps a button of that step. Measured for every action:

* **tap -> card**: from the tap (or the typed text) to the first edit of the card that
  shows its effect. At one tap a second the first edit after a tap is its own; the
  contents seen there are the reference. At a faster pace an edit may carry several
  taps (waiting edits coalesce): tap i is shown by the first edit whose content is the
  reference content of a tap j >= i that was made before the edit arrived.
* **answer**: from the tap to its ``answerCallbackQuery``.
* the sends and edits in the judge's chat in any 1 s and any 10 s (Telegram's limits
  as the bot keeps them: at most 3 and 12), and the fake's 429 answers.

Run by ``bench/bot_bench.py`` (``--paces``); alone: ``python -m bench.pace``.

**Many tables** (``python -m bench.pace --tables 30 --rtt 0.1``): one bot, one
tournament, a judge at each table entering ``--games`` games one after another, each
tap once his card shows the previous one and not sooner than a second after it (the
reference way above, at every table at once); with ``--after-card`` a second after his
card showed it (he reads it first: 30 tables then ask about 25 messages a second).
``--rtt`` is the fake server's round trip (``FakeTelegram.latency``): the bot's 30
messages a second bind here, and a card waiting for a slot is what the judges see.
Reported: tap -> card and tap -> answer p50/p95/max over every table's actions, the
429s, the most messages in any second.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.streams import (  # noqa: E402
    SAVE,
    Action,
    Person,
    Say,
    StreamError,
    describe,
    game_script,
    seed_tournament,
)
from bot.db.connection import Database  # noqa: E402

TARGETS = {
    # pace (s) -> (p50, p95, max) seconds from a tap to the card showing it
    1.0: (0.2, 0.6, None),
    0.3: (None, None, 1.3),
}
TARGET_ANSWER_P95 = 0.3
STEP = re.compile(r"^gs:[^:]*:([a-z0-9]+):")

Content = tuple[str, tuple[str, ...]]  # the card's text and its buttons' labels


def _content(params: dict[str, Any]) -> Content:
    rows = (params.get("reply_markup") or {}).get("inline_keyboard", [])
    return str(params.get("text", "")), tuple(b.get("text", "") for row in rows for b in row)


def _step(message: Any) -> str | None:
    for button in message.buttons:
        found = STEP.match(button.get("callback_data", ""))
        if found:
            return found.group(1)
    return None


def most_in_any(stamps: Iterable[float], window: float) -> int:
    ordered = sorted(stamps)
    most = start = 0
    for end, now in enumerate(ordered):
        while ordered[start] <= now - window:
            start += 1
        most = max(most, end - start + 1)
    return most


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class PaceRun:
    pace: float
    sent_at: list[float] = field(default_factory=list)  # per action
    shown_at: list[float | None] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)  # tap -> answerCallbackQuery
    contents: list[Content | None] = field(default_factory=list)  # after each action
    steps: list[str | None] = field(default_factory=list)
    edits: int = 0
    saved: bool = False
    chat_1s: int = 0
    chat_10s: int = 0
    floods: int = 0
    seconds: float = 0.0

    def latencies(self) -> list[float]:
        return [s - t for t, s in zip(self.sent_at, self.shown_at, strict=True) if s is not None]

    def report(self) -> dict[str, Any]:
        shown = self.latencies()
        p50, p95, worst = TARGETS.get(self.pace, (None, None, None))
        answer_p95 = _quantile(self.answers, 0.95)
        checks = {
            "p50": p50 is None or _quantile(shown, 0.5) <= p50,
            "p95": p95 is None or _quantile(shown, 0.95) <= p95,
            "max": worst is None or max(shown, default=0) <= worst,
            "answer_p95": answer_p95 <= TARGET_ANSWER_P95,
            "every_action_shown": len(shown) == len(self.sent_at),
            "saved": self.saved,
            "chat_limits": self.chat_1s <= 3 and self.chat_10s <= 12,
            "no_429": self.floods == 0,
        }
        return {
            "pace_s": self.pace,
            "actions": len(self.sent_at),
            "card_edits": self.edits,
            "tap_to_card_p50_s": round(_quantile(shown, 0.5), 3),
            "tap_to_card_p95_s": round(_quantile(shown, 0.95), 3),
            "tap_to_card_max_s": round(max(shown, default=float("nan")), 3),
            "tap_to_card_mean_s": round(statistics.fmean(shown), 3) if shown else None,
            "answer_p50_s": round(_quantile(self.answers, 0.5), 3),
            "answer_p95_s": round(answer_p95, 3),
            "answer_max_s": round(max(self.answers, default=float("nan")), 3),
            "judge_chat_most_in_1s": self.chat_1s,
            "judge_chat_most_in_10s": self.chat_10s,
            "429s": self.floods,
            "game_saved": self.saved,
            "seconds": round(self.seconds, 1),
            "met": all(checks.values()),
            "checks": checks,
        }


class _Table:
    """One fake server, one bot process, one judge at a fresh tournament."""

    def __init__(self, work: Path, seed: int) -> None:
        self.work = work
        self.seed = seed

    async def __aenter__(self) -> _Table:
        from tests.e2e.bot_process import BotProcess
        from tests.e2e.fake_telegram import FakeTelegram, make_token

        self.fake = fake = FakeTelegram(make_token())
        await fake.start()
        chief = fake.create_user("Chief", "pace_chief", language_code="en")
        self.judge = fake.create_user("Judge", "pace_judge", language_code="en")
        for user in (chief, self.judge):
            fake.start_private(user)
        group = fake.create_group("Pace Cup", [chief, self.judge], supergroup=True)
        self.work.mkdir(parents=True, exist_ok=True)
        path = self.work / "pace.sqlite3"
        db = await Database.open(path)
        try:
            self.world = await seed_tournament(
                db, games_count=10, players_count=10, chat_id=group.id,
                chief=Person(chief.id, "Chief", "en"),
                judge_people=[Person(self.judge.id, "Judge", "en")], seed=self.seed,
            )
        finally:
            await db.close()
        env = {"BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
               "DATABASE_PATH": str(path), "LOG_LEVEL": os.environ.get("PACE_LOG_LEVEL", "WARNING")}
        self.proc = BotProcess(env=env, log_path=self.work / "bot.log", fake=fake)
        await self.proc.start(wait_ready=True, timeout=60)
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.proc.stop(timeout=30)
        finally:
            await self.proc.cleanup()
            await self.fake.stop()

    def script(self) -> list[Action]:
        judge = Person(self.judge.id, "Judge", "en")
        rng = random.Random(self.seed)
        return list(game_script(judge, self.world.rounds + 1, 1, self.world.players[:10], rng,
                                first=True))


def _card(fake: Any, chat: int) -> Any:
    return next((m for m in reversed(fake.messages(chat)) if m.buttons), None)


async def _act(
    fake: Any, user: Any, chat: int, action: Action, step: str | None, not_before: float
) -> tuple[dict[str, Any], float]:
    """Do ``action`` on what the card shows (once it shows ``step``), not before
    ``not_before``; returns the callback query (if a tap) and when it was made."""
    await asyncio.sleep(max(0.0, not_before - time.monotonic()))
    if isinstance(action, Say):
        return fake.send_text(user, chat, action.text), time.monotonic()

    def ready() -> tuple[Any, str] | None:
        card = _card(fake, chat)
        if card is None or (step is not None and _step(card) not in (step, None)):
            return None
        if action.unless is not None and action.unless in card.content:
            return card, ""
        for button in card.buttons:
            text, data = button.get("text", ""), button.get("callback_data", "")
            label = action.label
            if (text == label) if isinstance(label, str) else label(text, data):
                return card, data
        return None

    card, data = await fake.wait_until(ready, timeout=20, interval=0.005,
                                       what=f"button {describe(action.label)}")
    if not data:
        return {}, time.monotonic()
    return fake.tap_raw(user, card, data), time.monotonic()


async def play(pace: float, work: Path, seed: int, reference: PaceRun | None) -> PaceRun:
    """One game at ``pace``; without ``reference`` this run is the reference."""
    run = PaceRun(pace)
    async with _Table(work, seed) as table:
        fake, chat = table.fake, table.judge.id
        script = table.script()
        edits_before = len(fake.calls("editMessageText", chat=chat))
        started = time.monotonic()
        last = 0.0
        skipped: set[int] = set()
        for i, action in enumerate(script):
            step = reference.steps[i - 1] if reference and i else None
            if reference is None and i and i - 1 not in skipped:
                # The reference: wait for the previous action's effect before the next.
                await _shown(fake, chat, run, i - 1, wait=20)
            query, mark = await _act(fake, table.judge, chat, action, step, last + pace)
            last = mark
            run.sent_at.append(mark)
            run.shown_at.append(None)
            run.contents.append(None)
            run.steps.append(None)
            if query.get("id"):
                answer = await fake.wait_for_callback_answer(query, timeout=30)
                run.answers.append(answer.time - mark)
            elif not isinstance(action, Say):  # nothing to tap: the step was passed already
                skipped.add(i)
                run.shown_at[i] = mark
                previous = (reference or run)
                run.contents[i] = previous.contents[i - 1] if i else None
                run.steps[i] = previous.steps[i - 1] if i else None
        if reference is None:
            await _shown(fake, chat, run, len(script) - 1, wait=20)
        else:
            await fake.wait_idle(idle=1.5, timeout=60)
            _match(fake, chat, run, reference, edits_before)
        run.seconds = time.monotonic() - started
        counted = [r.time for r in fake.requests if r.chat_id == chat
                   and fake.counts_as_message(r.method) and r.response is not None]
        run.chat_1s = most_in_any(counted, 1.0)
        run.chat_10s = most_in_any(counted, 10.0)
        run.floods = fake.count_429
        run.edits = len(fake.calls("editMessageText", chat=chat)) - edits_before
        final = fake.last_message(chat)
        run.saved = "Saved" in final.content or any(
            "Saved" in m.content for m in fake.messages(chat)[-3:])
    return run


async def _shown(fake: Any, chat: int, run: PaceRun, i: int, *, wait: float) -> None:
    """The reference: the first card change after action i (sent or edited)."""
    since = run.sent_at[i]

    def first() -> Any:
        for r in fake.requests:
            if r.chat_id == chat and r.time >= since and r.ok and r.method in (
                    "editMessageText", "sendMessage") and r.params.get("reply_markup"):
                return r
        return None

    request = await fake.wait_until(first, timeout=wait, interval=0.005,
                                    what=f"the card after action {i}")
    run.shown_at[i] = request.time
    run.contents[i] = _content(request.params)
    card = _card(fake, chat)
    run.steps[i] = _step(card) if card is not None else None


def _match(fake: Any, chat: int, run: PaceRun, reference: PaceRun, edits_before: int) -> None:
    """When each action's effect was first on the card (see the module's docstring)."""
    changes = [r for r in fake.requests if r.chat_id == chat and r.ok and r.method in (
        "editMessageText", "sendMessage") and r.params.get("reply_markup")]
    last = len(run.sent_at) - 1
    for request in changes:
        content = _content(request.params)
        made = sum(1 for t in run.sent_at if t <= request.time)
        shows = [j for j in range(made) if reference.contents[j] == content]
        if made == last + 1 and content[0].startswith("✅"):
            shows.append(last)  # the saved card: its times and ids are the run's own
        if not shows:
            continue
        newest = max(shows)
        for i in range(newest + 1):
            if run.shown_at[i] is None and request.time >= run.sent_at[i]:
                run.shown_at[i] = request.time


async def pace_bench(paces: list[float], work: Path, seed: int) -> dict[str, Any]:
    reference = await play(1.0, work / "pace-reference", seed, None)
    results = {"1.0": reference.report()} if 1.0 in paces else {}
    for pace in paces:
        if pace == 1.0:
            continue
        run = await play(pace, work / f"pace-{pace}", seed, reference)
        results[str(pace)] = run.report()
    return results


# -- many tables ------------------------------------------------------------------------


def _watched_fake(token: str, latency: float) -> Any:
    """A fake server that notes, per chat, when the card changed and when taps were
    answered, so that many judges wait on an event instead of scanning the request log."""
    from tests.e2e.fake_telegram import FakeTelegram

    class Watched(FakeTelegram):
        def __init__(self) -> None:
            super().__init__(token, latency=latency)
            self.changes: dict[Any, list[float]] = {}  # chat -> card changes (arrival)
            self.answered: dict[str, float] = {}  # callback query id -> its answer
            self.posts: dict[Any, list[float]] = {}  # chat -> messages sent (arrival)
            self.changed = asyncio.Event()

        def call(self, method: str, params: Any, *, source: Any = None) -> Any:
            result = super().call(method, params, source=source)
            data = params.data
            if method in ("editMessageText", "sendMessage") and data.get("reply_markup"):
                self.changes.setdefault(data.get("chat_id"), []).append(self.clock())
            elif method == "answerCallbackQuery":
                self.answered[str(data.get("callback_query_id"))] = self.clock()
            if method in ("sendMessage", "sendPhoto", "sendMediaGroup"):
                self.posts.setdefault(data.get("chat_id"), []).append(self.clock())
            self.changed.set()
            self.changed = asyncio.Event()
            return result

    return Watched()


@dataclass
class TablesRun:
    tables: int
    rtt: float
    games: int
    after_card: bool  # the pace counts from the card showing the last tap, not the tap
    shown: list[float] = field(default_factory=list)  # tap -> card, every table's actions
    answers: list[float] = field(default_factory=list)
    saves: list[float] = field(default_factory=list)  # when each Save was tapped
    # Save tap -> the group's first post after it (with one table: that game's result
    # line; with more, another table's post may come first).
    to_group: list[float] = field(default_factory=list)
    saved: int = 0
    floods: int = 0
    most_in_1s: int = 0
    seconds: float = 0.0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def report(self) -> dict[str, Any]:
        def q(values: list[float], at: float) -> float:
            return round(_quantile(values, at), 3)

        return {
            "tables": self.tables, "rtt_s": self.rtt, "games_per_table": self.games,
            "pace_from": "the card" if self.after_card else "the tap",
            "actions": len(self.shown),
            "tap_to_card_p50_s": q(self.shown, 0.5), "tap_to_card_p95_s": q(self.shown, 0.95),
            "tap_to_card_max_s": round(max(self.shown, default=float("nan")), 3),
            "answer_p50_s": q(self.answers, 0.5), "answer_p95_s": q(self.answers, 0.95),
            "answer_max_s": round(max(self.answers, default=float("nan")), 3),
            "save_to_group_p50_s": q(self.to_group, 0.5),
            "save_to_group_max_s": round(max(self.to_group, default=float("nan")), 3),
            "games_saved": self.saved, "429s": self.floods,
            "messages_most_in_1s": self.most_in_1s, "seconds": round(self.seconds, 1),
            "load_average": self.load,
        }


async def _judge_plays(fake: Any, judge: Any, script: list[Action], pace: float,
                       start: float, run: TablesRun, after_card: bool) -> None:
    chat = judge.id
    last = start - pace
    for action in script:
        if isinstance(action, Say):
            await asyncio.sleep(max(0.0, last + pace - time.monotonic()))
            fake.send_text(judge, chat, action.text)
            query: dict[str, Any] = {}
        else:
            query, _mark = await _act(fake, judge, chat, action, None, last + pace)
            if not query:
                continue  # the step was passed already: nothing to tap
        mark = last = time.monotonic()
        if getattr(action, "label", None) == SAVE:
            run.saves.append(mark)
        seen = len(fake.changes.get(chat, ()))
        while True:
            after = [t for t in fake.changes.get(chat, ())[seen:] if t >= mark]
            if after:
                run.shown.append(after[0] - mark)
                if after_card:
                    last = after[0]
                break
            try:
                await asyncio.wait_for(fake.changed.wait(), timeout=30)
            except TimeoutError:
                raise StreamError(f"no card after {describe(getattr(action, 'label', ''))} "
                                  f"at table of {judge.first_name}") from None
        if query.get("id"):
            answered = await fake.wait_until(lambda q=query: fake.answered.get(q["id"]),
                                             timeout=30, interval=0.02, what="the answer")
            run.answers.append(answered - mark)


async def tables_bench(tables: int, rtt: float, games: int, work: Path, seed: int,
                       pace: float = 1.0, *, after_card: bool = False) -> TablesRun:
    """``tables`` judges at once, each entering ``games`` games at ``pace`` (see above);
    ``work`` is an existing directory."""
    from tests.e2e.bot_process import BotProcess
    from tests.e2e.fake_telegram import make_token

    run = TablesRun(tables, rtt, games, after_card)
    fake = _watched_fake(make_token(), rtt)
    await fake.start()
    try:
        chief = fake.create_user("Chief", "tables_chief", language_code="en")
        judges = [fake.create_user(f"Judge{k}", f"tables_judge{k}", language_code="en")
                  for k in range(1, tables + 1)]
        for user in (chief, *judges):
            fake.start_private(user)
        group = fake.create_group("Tables Cup", [chief, *judges], supergroup=True)
        path = work / "tables.sqlite3"
        db = await Database.open(path)
        try:
            world = await seed_tournament(
                db, games_count=tables, players_count=10 * tables, chat_id=group.id,
                chief=Person(chief.id, "Chief", "en"),
                judge_people=[Person(j.id, j.first_name, "en") for j in judges], seed=seed)
        finally:
            await db.close()
        env = {"BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
               "DATABASE_PATH": str(path),
               "LOG_LEVEL": os.environ.get("PACE_LOG_LEVEL", "WARNING")}
        proc = BotProcess(env=env, log_path=work / "bot.log", fake=fake)
        await proc.start(wait_ready=True, timeout=60)
        try:
            rng = random.Random(seed)
            plays = []
            started = time.monotonic()
            for k, judge in enumerate(judges, start=1):
                person = Person(judge.id, judge.first_name, "en")
                seated = world.players[(k - 1) * 10 : k * 10]
                script = [action for g in range(games) for action in game_script(
                    person, world.rounds + 1 + g, k, seated, rng, first=g == 0)]
                # The judges don't start in the same instant.
                start = started + rng.uniform(0, pace)
                plays.append(_judge_plays(fake, judge, script, pace, start, run, after_card))
            await asyncio.gather(*plays)
            run.seconds = time.monotonic() - started
            run.load = os.getloadavg()
        finally:
            # Not stopped: the group's result lines (20 a minute) would hold a clean stop
            # for minutes, and the outbox keeps them anyway.
            proc.kill()
            await proc.cleanup()
        counted = [r.time for r in fake.requests
                   if fake.counts_as_message(r.method) and r.response is not None]
        run.most_in_1s = most_in_any(counted, 1.0)
        run.floods = fake.count_429
        run.saved = sum(1 for j in judges for m in fake.messages(j.id)
                        if m.content.startswith("✅"))
        posts = fake.posts.get(group.id, [])
        run.to_group = [next(t for t in posts if t >= tap) - tap for tap in run.saves
                        if any(t >= tap for t in posts)]
    finally:
        await fake.stop()
    return run


def main() -> int:
    import argparse
    import json
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m bench.pace",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--paces", default="1.0,0.3")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tables", type=int, default=0,
                        help="judges entering games at once (many tables; see above)")
    parser.add_argument("--rtt", type=float, default=0.0,
                        help="the fake server's round trip in seconds (with --tables)")
    parser.add_argument("--games", type=int, default=2, help="games per table (with --tables)")
    parser.add_argument("--after-card", action="store_true",
                        help="with --tables: a judge taps a second after his card showed his "
                             "last tap (reads it first), not a second after that tap")
    args = parser.parse_args()
    paces = [float(p) for p in args.paces.split(",")]
    with tempfile.TemporaryDirectory(prefix="pace-bench-") as tmp:
        try:
            if args.tables:
                run = asyncio.run(tables_bench(args.tables, args.rtt, args.games,
                                               Path(tmp), args.seed, after_card=args.after_card))
                print(json.dumps(run.report(), indent=2))
                return 0
            results = asyncio.run(pace_bench(paces, Path(tmp), args.seed))
        except StreamError as exc:
            print(f"the game could not be played: {exc}", file=sys.stderr)
            return 2
    print(json.dumps(results, indent=2))
    return 0 if all(r["met"] for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
