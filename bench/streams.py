"""Recorded update streams for ``bench/bot_bench.py``: judges entering games, players
naming their best move, ``/rating`` in the group and in private.

A stream is a script of user actions: :class:`Say` (a message) and :class:`Tap` (a
button the bot really sent, found by its label on the bot's newest message in that
chat that carries it). A :class:`Feeder` turns each action into the Update JSON
Telegram would send (increasing update ids; callback data and the tapped message
taken from the keyboard as it is now) and feeds it to a Dispatcher. The card's
tokens are random, so a stream can't be canned JSON: it is resolved against what
the bot sent, exactly like ``tests/handlers/test_game_entry_support.py`` drives it.
Every update fed is kept (``Feeder.recorded``) and can be written out as JSON.

Also here: :class:`InstantSession` (the tests' Telegram model, answering at once) and
:func:`seed_tournament` (a tournament of N realistic games stored through
``bot.db.games.save_game`` in one transaction).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiogram.methods import TelegramMethod

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.scoring_bench import NICKS, make_game  # noqa: E402 - needs ROOT on sys.path
from bot.db import games, players, staff, tournaments, users  # noqa: E402
from bot.db.connection import Database  # noqa: E402
from bot.telegram.background import Background  # noqa: E402
from scoring.model import Role  # noqa: E402
from tests.support.telegram import RecordingSession  # noqa: E402
from tests.support.tg_model import auto_entities  # noqa: E402

if TYPE_CHECKING:
    from aiogram import Bot, Dispatcher

Json = dict[str, Any]

BOT_ID = 424242
BOT_TOKEN = f"{BOT_ID}:BENCH-not-a-real-token-000000000000"
BOT_USERNAME = "mafia_bench_bot"
GROUP = -1001234500001
CHIEF = 900_001
JUDGE_BASE = 900_100  # judge k (1-based): JUDGE_BASE + k
PLAYER_USER_BASE = 800_000  # linked player n: PLAYER_USER_BASE + n

# The judge's card in English (the judges' Telegram language in these streams).
NEXT = "Next ▶"
SAVE = "💾 Save"
NEW_GAME = "➕ New game"
MISS = "Miss (nobody shot)"
REVIEW_STEP = "Step 11/11"
RESULTS = {"red": "🔴 Red win", "black": "⚫ Black win", "draw": "🤝 Draw"}


def done_label(count: int) -> str:
    return f"Done ({count} named)"


# ------------------------------------------------------------------------- people


@dataclass(frozen=True, slots=True)
class Person:
    id: int
    first_name: str
    language_code: str = "ru"

    def json(self) -> Json:
        return {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.language_code,
        }


# ------------------------------------------------------------------------ actions

ButtonMatch = Callable[[str, str], bool]  # (text, callback_data) -> is it this button


@dataclass(frozen=True, slots=True)
class Say:
    """``who`` writes ``text`` in ``chat`` (his private chat when ``chat`` is his id)."""

    who: Person
    chat: int
    text: str
    kind: str = "message"


@dataclass(frozen=True, slots=True)
class Tap:
    """``who`` taps the button labelled ``label`` (or matching it) on the bot's newest
    message in ``chat`` that has it. With ``unless``, nothing is tapped when the bot's
    newest keyboard message already contains that text (e.g. the review is reached)."""

    who: Person
    chat: int
    label: str | ButtonMatch
    kind: str = "tap"
    unless: str | None = None


Action = Say | Tap


class StreamError(AssertionError):
    """The bot did not answer the way the script expects (a missing button)."""


def buttons_of(message: Json) -> list[tuple[str, str]]:
    markup = message.get("reply_markup") or {}
    return [
        (b.get("text", ""), b.get("callback_data", ""))
        for row in markup.get("inline_keyboard", [])
        for b in row
    ]


def find_button(
    messages: Iterable[Json], label: str | ButtonMatch
) -> tuple[Json, str] | None:
    """The newest message (of ``messages``, newest first) with that button, and its data."""
    for message in messages:
        for text, data in buttons_of(message):
            if (text == label) if isinstance(label, str) else label(text, data):
                return message, data
    return None


def describe(label: str | ButtonMatch) -> str:
    return repr(label) if isinstance(label, str) else getattr(label, "__name__", "a matcher")


def player_done(text: str, data: str) -> bool:
    """The player's own "Done" button (its label is in the player's language)."""
    parts = data.split(":")
    return parts[0] == "gb" and len(parts) > 3 and parts[3] == "d"


# ----------------------------------------------------------------------- the world


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    id: int
    nickname: str
    user: Person | None  # his linked Telegram account, or None


@dataclass
class Seeded:
    """A running tournament as :func:`seed_tournament` left it."""

    tid: int
    chat_id: int
    chief: Person
    judges: list[Person]
    players: list[PlayerInfo]
    games: int
    rounds: int  # the last round with a stored game
    tables: int  # tables per round
    seconds: float = 0.0  # how long the seeding took

    @property
    def linked(self) -> list[PlayerInfo]:
        return [p for p in self.players if p.user is not None]


def _hundredths(value: Any) -> int:
    return round(float(value) * 100)


def _draft(spec: Json, round_no: int, table: int, ids: dict[str, int]) -> games.GameDraft:
    """A game of ``bench/scoring_bench.make_game`` (names = player ids) as a GameDraft."""
    extras = {int(k): _hundredths(v) for k, v in spec.get("judge_extras", {}).items()}
    penalties = {int(k): tuple(v) for k, v in spec.get("penalties", {}).items()}
    disqualified = set(spec.get("disqualified", []))
    seats = tuple(
        games.SeatDraft(
            player_id=ids[seat["player"]],
            role=Role(seat["role"]),
            disqualified=n in disqualified,
            judge_extra=extras.get(n, 0),
            penalties=penalties.get(n, ()),
        )
        for n, seat in enumerate(spec["seats"], start=1)
    )
    return games.GameDraft(
        draft_id=f"bench-{round_no}-{table}",
        round=round_no,
        table_no=table,
        result=spec["result"],
        seats=seats,
        day1_voted_out=spec.get("day1_voted_out", 0),
        first_killed=spec.get("first_killed"),
        best_move=tuple(spec.get("best_move", ())),
        best_move_hint=bool(spec.get("best_move_hint", False)),
    )


async def seed_tournament(
    db: Database,
    *,
    games_count: int,
    players_count: int,
    judges: int = 1,
    linked: int | Iterable[int] = 0,
    chat_id: int = GROUP,
    chief: Person | None = None,
    judge_people: list[Person] | None = None,
    player_users: dict[int, Person] | None = None,
    seed: int = 1,
) -> Seeded:
    """A running tournament with ``players_count`` confirmed players (tables of ten),
    ``games_count`` games round by round (every player once per round), stored with
    ``save_game`` in ONE transaction; judge's points above 0.5 that the generator marks
    approved are approved by the chief (8.4.3, D7). ``linked`` players (the first n, or
    these indexes) have a Telegram account that started the bot.

    ``chief``/``judge_people``/``player_users`` give the Telegram accounts (e.g. the
    fake server's users); by default they are made up.
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    tables = max(1, players_count // 10)
    distance = max(1, games_count * 10 // players_count)
    chief = chief or Person(CHIEF, "Chief", "en")
    judge_people = judge_people or [
        Person(JUDGE_BASE + k, f"Judge{k}", "en") for k in range(1, judges + 1)
    ]
    linked_set = set(range(linked)) if isinstance(linked, int) else set(linked)
    accounts = dict(player_users or {})
    for n in linked_set:
        accounts.setdefault(n, Person(PLAYER_USER_BASE + n, f"Player{n}", "ru"))
    nicks = [f"{rng.choice(NICKS)}-{n:04d}" for n in range(players_count)]
    infos: list[PlayerInfo] = []
    stored = 0
    async with db.transaction() as conn:
        for person in (chief, *judge_people, *accounts.values()):
            await users.upsert_user(
                conn,
                person.id,
                first_name=person.first_name,
                language_code=person.language_code,
                can_message=True,
            )
        t = await tournaments.create_tournament(
            conn, title="Bench Cup", distance=distance, created_by=chief.id, chat_id=chat_id
        )
        await tournaments.set_status(conn, t.id, "running")
        for judge in judge_people:
            await staff.add_staff(conn, t.id, judge.id, "judge", added_by=chief.id)
        for n, nick in enumerate(nicks):
            account = accounts.get(n)
            row = await players.add_player(
                conn,
                t.id,
                nick,
                user_id=account.id if account else None,
                status="confirmed",
                decided_by=chief.id,
            )
            infos.append(PlayerInfo(row.id, row.nickname, account))
        ids = {str(p.id): p.id for p in infos}
        ended = datetime.now(UTC) - timedelta(days=1)
        round_no = 0
        while stored < games_count:
            round_no += 1
            order = [str(p.id) for p in infos]
            rng.shuffle(order)
            for table in range(1, tables + 1):
                if stored >= games_count:
                    break
                seated = order[(table - 1) * 10 : table * 10]
                spec = make_game(f"R{round_no}-T{table}", seated, rng)
                draft = _draft(spec, round_no, table, ids)
                judge = judge_people[(table - 1) % len(judge_people)]
                ended += timedelta(minutes=1)
                game_id = await games.save_game(conn, t.id, draft, judge.id, ended, now=ended)
                for seat in spec.get("chief_approved", []):
                    for approval in await games.approvals_for_game(conn, game_id):
                        if approval.seat == seat and approval.status == "pending":
                            await games.decide_approval(
                                conn, approval.id, decided_by=chief.id, now=ended
                            )
                stored += 1
    return Seeded(
        tid=t.id,
        chat_id=chat_id,
        chief=chief,
        judges=judge_people,
        players=infos,
        games=stored,
        rounds=round_no,
        tables=tables,
        seconds=time.perf_counter() - started,
    )


# ------------------------------------------------------------------------ scripts


def game_script(
    judge: Person,
    round_no: int,
    table: int,
    seating: list[PlayerInfo],
    rng: random.Random,
    *,
    first: bool,
) -> Iterator[Action]:
    """One game from /game (or "New game" on the last saved card) to Save, as a judge
    taps it: round and table typed, the ten nicknames pasted, four role taps, day 1,
    night 1, the best move (by the first-killed player in his own chat when his
    account is linked, else by the judge), the result, steps 8–10 passed, Save."""
    me = judge.id
    if first:
        yield Say(judge, me, "/game", kind="game:/game")
    else:
        yield Tap(judge, me, NEW_GAME, kind="game:new")
    yield Say(judge, me, f"{round_no} {table}", kind="game:text")
    yield Say(judge, me, "\n".join(p.nickname for p in seating), kind="game:text")
    yield Tap(judge, me, NEXT)
    sheriff, don, mafia1, mafia2 = rng.sample(range(1, 11), 4)
    for seat in (sheriff, don, mafia1, mafia2):
        yield Tap(judge, me, str(seat))
    yield Tap(judge, me, NEXT)
    day1 = rng.choices([0, 1, 2], weights=[35, 55, 10])[0]
    yield Tap(judge, me, str(day1))
    night = rng.randint(1, 10) if rng.random() < 0.92 else None
    yield Tap(judge, me, str(night) if night else MISS)
    if night and day1 < 2:
        named = rng.sample([n for n in range(1, 11) if n != night], rng.choice([1, 2, 3, 3]))
        shot = seating[night - 1].user
        if shot is not None:  # he names them himself, in his private chat (8.3)
            for seat in named:
                yield Tap(shot, shot.id, str(seat), kind="bestmove:player")
            if len(named) < 3:
                yield Tap(shot, shot.id, player_done, kind="bestmove:player")
        else:
            for seat in named:
                yield Tap(judge, me, str(seat))
            if len(named) < 3:
                yield Tap(judge, me, done_label(len(named)))
        yield Tap(judge, me, NEXT)
    result = rng.choices(["red", "black", "draw"], weights=[46, 46, 8])[0]
    yield Tap(judge, me, RESULTS[result])
    for _ in range(3):  # disqualifications, penalties, judge's points: nothing to add
        yield Tap(judge, me, NEXT, unless=REVIEW_STEP)
    yield Tap(judge, me, SAVE, kind="save")


def rating_script(seated: list[PlayerInfo], chat_id: int, rng: random.Random) -> Iterator[Action]:
    """After a game: a player asks /rating in the group, a linked one in private."""
    someone = rng.choice([p for p in seated if p.user is not None] or seated)
    if someone.user is not None:
        text = "/rating all" if rng.random() < 0.2 else "/rating"
        yield Say(someone.user, chat_id, text, kind="rating:group")
        yield Say(someone.user, someone.user.id, "/rating", kind="rating:private")


def tournament_rounds(world: Seeded, rng: random.Random, *, rounds: int = 10_000) -> Iterator[
    list[Iterator[Action]]
]:
    """Round after round, each table's script (its judge's game, then /rating): the
    scripts of one round run at the same time; a round starts when the previous one is
    saved, so no player sits at two tables at once."""
    judge_at = world.judges
    started: set[int] = set()
    for round_no in range(world.rounds + 1, world.rounds + 1 + rounds):
        order = world.players[:]
        rng.shuffle(order)
        scripts = []
        for table in range(1, world.tables + 1):
            judge = judge_at[(table - 1) % len(judge_at)]
            seating = order[(table - 1) * 10 : table * 10]
            first = judge.id not in started
            started.add(judge.id)
            scripts.append(
                itertools.chain(
                    game_script(judge, round_no, table, seating, rng, first=first),
                    rating_script(seating, world.chat_id, rng),
                )
            )
        yield scripts


def tournament_stream(world: Seeded, rng: random.Random, *, rounds: int = 10_000) -> Iterator[
    Action
]:
    """``tournament_rounds`` one action at a time, the tables' actions interleaved."""
    for scripts in tournament_rounds(world, rng, rounds=rounds):
        while scripts:
            for script in scripts[:]:
                action = next(script, None)
                if action is None:
                    scripts.remove(script)
                else:
                    yield action


# ----------------------------------------------------------------- the offline API


class InstantSession(RecordingSession):
    """The Bot API answered at once, offline: the tests' Telegram model
    (``tests/support/tg_model.py``) behind its in-process session, keeping no record of
    the calls but their counts.

    A request is encoded as ``AiohttpSession.build_form_data`` encodes it
    (``prepare_value`` per field), the model checks and answers it as Telegram would
    (HTML parsed, limits of texts and buttons), and its answer is rendered as JSON and
    parsed by ``BaseSession.check_response``: aiogram does its usual work per call; only
    the network is missing. The bot's messages are kept in their current state (after
    edits) so streams can tap their buttons. A message id never seen (the floor run
    replays another run's calls) is taken for a message sent before.
    """

    def __init__(self, *, bot_username: str = BOT_USERNAME) -> None:
        super().__init__(bot_username=bot_username, bot_first_name="Bench", record=False)
        self.telegram.preexisting_messages = True
        self.request_counts: Counter[str] = Counter()
        # The requests made while each update was fed (set by Feeder.feed), for a bare
        # dispatcher that makes the same calls (the framework's own cost of a stream).
        self.calls_by_update: dict[int, list[TelegramMethod[Any]]] = {}
        self.current_update: int | None = None

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[Any],
        timeout: int | None = None,  # noqa: ASYNC109 - BaseSession's signature
    ) -> Any:
        self.request_counts[method.__api_method__] += 1
        if self.current_update is not None:
            self.calls_by_update.setdefault(self.current_update, []).append(method)
        return await super().make_request(bot, method, timeout)

    @property
    def answers(self) -> Counter[str]:
        """Callback answers by text."""
        return Counter(a.text or "" for a in self.telegram.callback_answers)

    def incoming(self, chat: Json, sender: Json, text: str) -> Json:
        """A user's message in ``chat``, stored (the bot may reply to it), as Telegram
        sends it: commands get their ``bot_command`` entity."""
        tg = self.telegram
        user = tg.add_user(sender["id"], sender["first_name"], sender.get("username"),
                           last_name=sender.get("last_name"),
                           language_code=sender.get("language_code"))
        user.started = True  # everyone in the streams has pressed Start
        where = tg.chats[chat["id"]]
        if where.is_group:
            where.members.setdefault(user.id, "member")
        return tg.post(where, user, text=text, entities=auto_entities(text)).to_api()

    def bot_messages(self, chat_id: int) -> Iterator[Json]:
        """The bot's messages in ``chat_id``, newest first, as they look now."""
        for message in reversed(self.telegram.messages(chat_id)):
            yield message.to_api()


# ------------------------------------------------------------------------- feeding


@dataclass
class Feeder:
    """Resolves actions into Update JSON and feeds them to ``dispatcher`` one by one
    (as polling would, JSON in: ``feed_raw_update``), timing each."""

    dispatcher: Dispatcher
    bot: Bot
    session: InstantSession
    first_update_id: int = 1
    keep: bool = True  # keep every update fed in ``recorded``
    recorded: list[Json] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # seconds, per update
    kinds: list[str] = field(default_factory=list)  # per update
    # Turning actions into updates (``resolve``: the button's message, as Telegram has
    # it now) is the stream's own work, no dispatcher's: its wall and CPU seconds.
    resolving: float = 0.0
    resolving_cpu: float = 0.0
    _ids: Iterator[int] = field(init=False)
    _queries: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self._ids = itertools.count(self.first_update_id)

    # -- building updates -----------------------------------------------------------

    def chat_of(self, who: Person, chat_id: int) -> Json:
        if chat_id == who.id:
            return self.session.register_chat(
                {"id": who.id, "type": "private", "first_name": who.first_name}
            )
        return self.session.register_chat(
            {"id": chat_id, "type": "supergroup", "title": "Bench Cup"}
        )

    def message_update(self, who: Person, chat_id: int, text: str) -> Json:
        message = self.session.incoming(self.chat_of(who, chat_id), who.json(), text)
        return {"update_id": next(self._ids), "message": message}

    def callback_update(self, who: Person, message: Json, data: str) -> Json:
        query = {
            "id": str(7_000_000_000 + next(self._queries)),
            "from": who.json(),
            "message": message,
            "chat_instance": str(message["chat"]["id"]),
            "data": data,
        }
        return {"update_id": next(self._ids), "callback_query": query}

    def resolve(self, action: Action) -> Json | None:
        """The Update for ``action`` now, or None when a ``Tap(unless=...)`` is moot."""
        if isinstance(action, Say):
            return self.message_update(action.who, action.chat, action.text)
        messages = list(itertools.islice(self.session.bot_messages(action.chat), 30))
        if action.unless is not None:
            keyboard = next((m for m in messages if buttons_of(m)), None)
            if keyboard is not None and action.unless in keyboard.get("text", ""):
                return None
        found = find_button(messages, action.label)
        if found is None:
            newest = messages[0] if messages else {}
            raise StreamError(
                f"{action.who.first_name} can't tap {describe(action.label)} in chat "
                f"{action.chat}: the bot's newest message there says "
                f"{newest.get('text', '')[:400]!r} with buttons "
                f"{[t for t, _ in buttons_of(newest)]}"
            )
        message, data = found
        return self.callback_update(action.who, message, data)

    # -- feeding ------------------------------------------------------------------------

    async def feed(self, update: Json, kind: str) -> float:
        self.session.current_update = update["update_id"]
        started = time.perf_counter()
        try:
            # The card's edit runs in the background (bot.telegram.background): an update's cost
            # and the next action's view of the card include it.
            with Background.collect() as spawned:
                await self.dispatcher.feed_raw_update(self.bot, update)
            await asyncio.gather(*spawned, return_exceptions=True)
        finally:
            self.session.current_update = None
        elapsed = time.perf_counter() - started
        self.latencies.append(elapsed)
        self.kinds.append(kind)
        if self.keep:
            self.recorded.append(update)
        return elapsed

    async def play(self, action: Action) -> float | None:
        started, cpu = time.perf_counter(), time.thread_time()
        update = self.resolve(action)  # no await: nothing else runs meanwhile
        self.resolving += time.perf_counter() - started
        self.resolving_cpu += time.thread_time() - cpu
        if update is None:
            return None
        return await self.feed(update, action.kind)

    async def play_rounds(
        self, rounds: Iterable[list[Iterator[Action]]], limit: int
    ) -> int:
        """Each round's scripts at once (one task a table, as polling hands every update
        to a task of its own; a script's next action waits for its previous update),
        until ``limit`` updates were fed."""
        fed = 0

        async def lane(script: Iterator[Action]) -> None:
            nonlocal fed
            for action in script:
                if fed >= limit:
                    return
                fed += 1  # counted before the await: the lanes stop at ``limit``
                if await self.play(action) is None:
                    fed -= 1

        for scripts in rounds:
            if fed >= limit:
                break
            await asyncio.gather(*(lane(script) for script in scripts))
        return fed

    async def play_all(self, actions: Iterable[Action], limit: int | None = None) -> int:
        """Feed actions until ``limit`` updates were fed (or the actions end)."""
        fed = 0
        actions = iter(actions)
        # Check the limit BEFORE taking the next action: a shared stream goes on later.
        while limit is None or fed < limit:
            action = next(actions, None)
            if action is None:
                break
            if await self.play(action) is not None:
                fed += 1
        return fed


async def feed_lanes(feeder: Feeder, updates: list[Json], lanes: int, kind: str) -> None:
    """``updates`` in ``lanes`` concurrent tasks, each feeding its share in order (by
    chat: one chat's updates stay in one lane)."""
    split: list[list[Json]] = [[] for _ in range(lanes)]
    for update in updates:
        chat = (update.get("message") or update["callback_query"]["message"])["chat"]["id"]
        split[hash(chat) % lanes].append(update)

    async def lane(share: list[Json]) -> None:
        for update in share:
            await feeder.feed(update, kind)

    await asyncio.gather(*(lane(share) for share in split))


def as_echo_updates(recorded: Iterable[Json], first_update_id: int = 1) -> list[Json]:
    """The same number of updates for an echo bot: each recorded message as it was, each
    tap as a message from the same user in the same chat (text = the callback data)."""
    ids = itertools.count(first_update_id)
    message_ids: dict[int, Iterator[int]] = {}
    out = []
    for update in recorded:
        if "message" in update:
            message = dict(update["message"])
        else:
            query = update["callback_query"]
            message = {
                "date": int(time.time()),
                "chat": query["message"]["chat"],
                "from": query["from"],
                "text": query["data"],
            }
        chat_id = message["chat"]["id"]
        counter = message_ids.setdefault(chat_id, itertools.count(1_000_000))
        message["message_id"] = next(counter)
        out.append({"update_id": next(ids), "message": message})
    return out
