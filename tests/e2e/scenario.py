"""Drivers for the e2e scenarios: people acting through FakeTelegram, the judge's card,
a tournament seeded straight into the bot's database, standings read back from chats
and from ``python -m scoring``, and checks of the database file and the bot's log.

Everybody speaks English here (language_code "en"), so the bot answers with the
English message ids of the code; the tournament's group reads the bot's default
language (Russian), which only the standings tables are parsed from.
"""

# The wait helpers take `timeout=` like the harness they wrap.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from aiogram.fsm.storage.base import StorageKey

from bot.db import Database, games, staff, tournaments, users
from bot.db import players as players_repo
from bot.db.migrations import LATEST, MIGRATIONS
from bot.db.timeutil import utcnow
from bot.telegram.fsm_storage import SQLiteStorage
from handlers.game_entry.draft import DATA_KEY, Draft, new_draft_id, new_token
from handlers.game_entry.states import GameEntry
from scoring import Result, Role

from .bot_process import REPO_ROOT, BotProcess
from .fake_telegram import JSON, CallbackAnswer, Chat, FakeTelegram, StoredMessage, User

# Generous: the bot queues every chat's messages at one a second (bot/telegram/flood.py), so a
# busy chat (the chief judge's, the group) answers several seconds late by design.
WAIT = 30.0
NICKS = (
    "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot",
    "Golf", "Hotel", "India", "Juliet", "Kilo", "Lima",
)
RUNTIME_TABLES = ("processed_updates", "users", "fsm")
RESULT_BUTTONS = {"red": "🔴 Red win", "black": "⚫ Black win", "draw": "🤝 Draw"}
Match = str | re.Pattern[str] | Callable[[StoredMessage], bool] | None
Reply = StoredMessage | JSON | int | None


# --------------------------------------------------------------------------- people


class Person:
    """A simulated Telegram user; his private chat with the bot is ``chat``."""

    def __init__(self, fake: FakeTelegram, name: str, username: str | None = None, *,
                 language: str = "en") -> None:
        self.fake = fake
        self.user: User = fake.create_user(name, username, language)

    def __repr__(self) -> str:
        return f"<Person {self.name}>"

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.first_name

    @property
    def chat(self) -> Chat:
        return self.fake.private_chat(self.user)

    def open_chat(self) -> Person:
        """He pressed Start in his client: the bot may write to him."""
        self.fake.start_private(self.user)
        return self

    # -- writing ------------------------------------------------------------------

    def send(self, text: str, chat: Chat | None = None, *, reply_to: Reply = None,
             date: datetime | int | None = None, forward_from: User | None = None) -> JSON:
        """Write ``text`` (privately by default); no waiting."""
        return self.fake.send_text(self.user, chat or self.chat, text, reply_to=reply_to,
                                   date=date, forward_from=forward_from)

    async def say(self, text: str, match: Match = None, *, date: datetime | int | None = None,
                  timeout: float = WAIT) -> StoredMessage:
        """Write privately and wait for the bot's next message (or edit) there."""
        mark = self.fake.seq
        self.send(text, date=date)
        return await self.fake.wait_for_message(self.chat, match, after=mark, timeout=timeout)

    async def say_in(self, group: Chat, text: str, *, reply_to: Reply = None,
                     date: datetime | int | None = None, timeout: float = WAIT) -> StoredMessage:
        """Write in a group and wait for the bot's reply to that very message."""
        sent = self.send(text, group, reply_to=reply_to, date=date)
        return await self.replied(group, sent, timeout=timeout)

    async def replied(self, chat: Chat, sent: JSON, *, timeout: float = WAIT) -> StoredMessage:
        mid = sent["message_id"]
        return await self.fake.wait_for_message(
            chat, lambda m: m.reply_to is not None and m.reply_to.message_id == mid,
            timeout=timeout)

    # -- buttons ------------------------------------------------------------------

    async def tap(self, message: StoredMessage, button: str, *,
                  timeout: float = WAIT) -> CallbackAnswer:
        """Tap a button the bot sent; returns the bot's answer to the callback query."""
        query = self.fake.tap(self.user, message, button)
        return await self.fake.wait_for_callback_answer(query, timeout=timeout)

    async def tap_raw(self, message: StoredMessage, data: str, *,
                      timeout: float = WAIT) -> CallbackAnswer:
        query = self.fake.tap_raw(self.user, message, data)
        return await self.fake.wait_for_callback_answer(query, timeout=timeout)

    # -- reading ------------------------------------------------------------------

    def latest(self, match: Match = None) -> StoredMessage | None:
        """The bot's latest message in his private chat matching ``match``."""
        for message in reversed(self.fake.messages(self.chat)):
            if _matches(message, match):
                return message
        return None

    async def wait(self, match: Match, *, after: int, timeout: float = WAIT) -> StoredMessage:
        return await self.fake.wait_for_message(self.chat, match, after=after, timeout=timeout)


def _matches(message: StoredMessage, match: Match) -> bool:
    if match is None:
        return True
    if isinstance(match, str):
        return match in message.content
    if isinstance(match, re.Pattern):
        return match.search(message.content) is not None
    return bool(match(message))


def labels(message: StoredMessage) -> list[str]:
    return [b["text"] for b in message.buttons]


# ----------------------------------------------------------------------- the card


@dataclass
class GameSpec:
    """One game's protocol as the judge enters it on his card."""

    round: int
    table: int
    seats: Sequence[str]  # ten nicknames in seat order
    sheriff: int
    don: int
    mafia: tuple[int, int]
    result: str  # "red" | "black" | "draw"
    day1: int = 0  # left by the day-1 vote
    night: int = 0  # seat shot on night 1; 0 = a miss
    best_move: Sequence[int] = ()  # entered by the judge, when 8.3 applies
    extras: Mapping[int, str] = field(default_factory=dict)  # seat -> points (8.4)

    @property
    def code(self) -> str:
        return f"R{self.round}-T{self.table}"

    @property
    def best_move_applies(self) -> bool:
        return self.night != 0 and self.day1 < 2


class Card:
    """A judge's game card (one message in his private chat, edited in place).

    The helpers name the card's texts in English; ``words`` puts such a text in the
    judge's language (the demo plays in Russian too).
    """

    def __init__(self, judge: Person, words: Callable[[str], str] = str) -> None:
        self.judge = judge
        self.fake = judge.fake
        self.words = words
        self.id = 0

    @property
    def message(self) -> StoredMessage:
        return self.fake.message(self.judge.chat, self.id)

    @property
    def text(self) -> str:
        return self.message.content

    @property
    def labels(self) -> list[str]:
        return labels(self.message)

    async def open(self, command: str = "/game", *, timeout: float = WAIT) -> StoredMessage:
        """/game: the new card (or the unfinished one, sent again)."""
        mark = self.fake.seq
        self.judge.send(command)
        card = await self.fake.wait_for_message(
            self.judge.chat, lambda m: m.seq > mark and m.reply_markup is not None,
            after=mark, timeout=timeout)
        self.id = card.message_id
        return card

    async def edited(self, mark: int, expect: str | None = None, *,
                     timeout: float = WAIT) -> StoredMessage:
        """Wait until the card was edited after ``mark`` (and shows ``expect``)."""
        shown = None if expect is None else self.words(expect)

        def done(m: StoredMessage) -> bool:
            return m.message_id == self.id and (shown is None or shown in m.content)

        return await self.fake.wait_for_message(self.judge.chat, done, after=mark,
                                                timeout=timeout)

    async def type(self, text: str, expect: str | None = None, *,
                   timeout: float = WAIT) -> StoredMessage:
        """Type on the card's step; waits for the card's edit."""
        mark = self.fake.seq
        self.judge.send(text)
        return await self.edited(mark, expect, timeout=timeout)

    async def type_refused(self, text: str, *, timeout: float = WAIT) -> str:
        """Type something the step refuses; returns the bot's one-line answer."""
        mark = self.fake.seq
        self.judge.send(text)
        reply = await self.fake.wait_for_message(
            self.judge.chat, lambda m: m.seq > mark and m.message_id != self.id, after=mark,
            timeout=timeout)
        return reply.content

    async def tap(self, button: str, expect: str | None = None, *,
                  timeout: float = WAIT) -> CallbackAnswer:
        """Tap a button of the card; waits for the answer and the card's edit."""
        mark = self.fake.seq
        answer = await self.judge.tap(self.message, self.words(button), timeout=timeout)
        await self.edited(mark, expect, timeout=timeout)
        return answer


async def enter_game(card: Card, game: GameSpec, *, ready: asyncio.Event | None = None,
                     player: Person | None = None,
                     best_move_by_player: Sequence[int] = ()) -> None:
    """The whole conversation of a new game up to the review (step 11), Save not tapped.

    ``ready``: waited for before the seating (the players are being confirmed).
    ``player``: the first-killed player, linked and reachable, taps his own best move
    (``best_move_by_player``) in his private chat while the judge's card waits.
    """
    await card.open()
    assert card.words("Step 1/11: Round and table") in card.text, card.text
    await card.type(f"{game.round} {game.table}", "Step 2/11: Seating")
    if ready is not None:
        await ready.wait()
    await card.type("\n".join(game.seats), f"10. {game.seats[9]}")
    await card.tap("Next ▶", "Step 3/11: Roles")
    await play_seated(card, game, player=player, best_move_by_player=best_move_by_player)


async def enter_planned_game(card: Card, game: GameSpec) -> None:
    """A new game whose ten seats come from the posted seating (the card's 📋 button),
    up to the review (Save not tapped); ``game.seats`` is not used."""
    await card.open()
    await card.tap(f"📋 Round {game.round}, table {game.table}", "Step 2/11: Seating")
    assert card.words("✅ Seating as planned") in card.labels, card.text
    await card.tap("✅ Seating as planned", "Step 3/11: Roles")
    await play_seated(card, game)


async def play_seated(card: Card, game: GameSpec, *, player: Person | None = None,
                      best_move_by_player: Sequence[int] = ()) -> None:
    """From the roles (step 3) to the review (step 11) of a seated card."""
    for seat in (game.sheriff, game.don, *game.mafia):
        await card.tap(str(seat))
    await card.tap("Next ▶", "Step 4/11: Day 1")
    await card.tap(str(game.day1), "Step 5/11: Night 1")
    if game.night:
        after_night = "Step 6/11: Best move" if game.best_move_applies else "Step 7/11: Result"
        await card.tap(str(game.night), after_night)
    else:
        await card.tap("Miss (nobody shot)", "Step 7/11: Result")
    if game.best_move_applies:
        if player is not None:
            await player_best_move(card, player, best_move_by_player)
        else:
            for seat in game.best_move:
                await card.tap(str(seat))
            if len(game.best_move) < 3:
                await card.tap(f"Done ({len(game.best_move)} named)")
        assert card.words("Accepted") in card.text, card.text
        await card.tap("Next ▶", "Step 7/11: Result")
    await card.tap(RESULT_BUTTONS[game.result], "Step 8/11: Disqualifications")
    if game.extras:
        await card.tap("Next ▶", "Step 9/11: Penalties")
        await card.tap("Next ▶", "Step 10/11: Judge's extra points")
        for seat, value in game.extras.items():
            await card.type(f"{seat} {value}", f"seat {seat} — {value}")
        await card.tap("Next ▶", "Step 11/11: Review")
    else:
        await card.tap("⏭ Review", "Step 11/11: Review")
    assert card.words("💾 Save") in card.labels, card.text


async def player_best_move(card: Card, player: Person, seats: Sequence[int]) -> None:
    """The first-killed player names his best move himself (8.3)."""
    request = await player.wait(lambda m: bool(m.buttons) and "shot on night 1" in m.content,
                                after=0)
    assert "⏳ Waiting for" in card.text, card.text
    for seat in seats:
        mark = card.fake.seq
        answer = await player.tap(card.fake.message(player.chat, request.message_id), str(seat))
        assert answer.text and str(seat) in answer.text, answer
        await card.edited(mark)  # the judge sees every number as it is named
    if len(seats) < 3:
        mark = card.fake.seq
        await player.tap(card.fake.message(player.chat, request.message_id),
                         f"Done ({len(seats)} named)")
        await card.edited(mark)
    await card.fake.wait_until(
        lambda: "Accepted" in card.fake.message(player.chat, request.message_id).content,
        timeout=WAIT, what="the player's request to say Accepted")


async def save(card: Card) -> CallbackAnswer:
    """💾 Save on the review; waits for the final card."""
    answer = await card.tap("💾 Save", "Saved")
    assert answer.text == card.words("Saving…"), answer
    return answer


# ---------------------------------------------------------------- seeding the database


@dataclass
class Seeded:
    tournament_id: int
    player_ids: dict[str, int]


async def seed_tournament(
    db_path: Path,
    *,
    chief: Person,
    judges: Sequence[Person] = (),
    players: Sequence[str] = NICKS,
    linked: Mapping[str, Person] | None = None,
    chat: Chat | None = None,
    title: str = "Spring Cup",
    distance: int = 10,
    status: str = "running",
    language: str = "ru",
    schema: int = LATEST,
) -> Seeded:
    """A tournament written with the bot's own repositories before the bot starts:
    ``chief`` and ``judges`` on its staff, ``players`` confirmed (``linked`` ones with
    their Telegram accounts, reachable privately if they opened the chat); in a
    database at schema version ``schema`` (an older one: the bot upgrades it)."""
    linked = dict(linked or {})
    db = await Database.open(db_path, migrations=MIGRATIONS[:schema])
    try:
        async with db.transaction() as conn:
            people = [chief, *judges, *linked.values()]
            for person in people:
                await users.upsert_user(conn, person.id, first_name=person.name,
                                        username=person.user.username,
                                        language_code=person.user.language_code,
                                        can_message=person.user.started)
            t = await tournaments.create_tournament(
                conn, title=title, distance=distance, created_by=chief.id,
                chat_id=chat.id if chat is not None else None, language=language)
            if status != "registration":
                await tournaments.set_status(conn, t.id, status)  # type: ignore[arg-type]
            for judge in judges:
                await staff.add_staff(conn, t.id, judge.id, "judge", added_by=chief.id)
            ids = {}
            for nick in players:
                owner = linked.get(nick)
                row = await players_repo.add_player(
                    conn, t.id, nick, user_id=owner.id if owner else None, status="confirmed",
                    decided_by=chief.id)
                ids[nick] = row.id
    finally:
        await db.close()
    return Seeded(t.id, ids)


async def seed_draft(db_path: Path, fake: FakeTelegram, judge: Person, seeded: Seeded,
                     game: GameSpec, *, step: str = "rv", schema: int = LATEST) -> None:
    """A judge's unfinished game as the card's conversation leaves it in the FSM
    storage: complete up to the review (``step="rv"``), or seated with the roles to tap
    (``step="ro"``). His /game sends its card again."""
    assert not game.best_move_applies and not game.extras, "not needed so far"
    draft = Draft(
        token=new_token(), draft_id=new_draft_id(), judge_id=judge.id, locale="en",
        tid=seeded.tournament_id, card_chat=judge.id, step=step, round=game.round,
        table=game.table, players=[seeded.player_ids[n] for n in game.seats])
    if step == "rv":
        draft.sheriff, draft.don, draft.mafia = game.sheriff, game.don, list(game.mafia)
        draft.day1, draft.night, draft.result = game.day1, game.night, game.result
    else:
        assert step == "ro", step
    db = await Database.open(db_path, migrations=MIGRATIONS[:schema])
    try:
        storage = SQLiteStorage(db)
        key = StorageKey(bot_id=fake.bot_id, chat_id=judge.id, user_id=judge.id)
        await storage.set_state(key, {"rv": GameEntry.review, "ro": GameEntry.roles}[step])
        await storage.set_data(key, {DATA_KEY: draft.to_dict()})
    finally:
        await db.close()


async def seed_game(db_path: Path, seeded: Seeded, judge: Person, game: GameSpec) -> int:
    """A saved game (its protest window open from now), stored as Save stores it."""
    roles = {game.sheriff: Role.SHERIFF, game.don: Role.DON,
             game.mafia[0]: Role.MAFIA, game.mafia[1]: Role.MAFIA}
    draft = games.GameDraft(
        draft_id=new_draft_id(), round=game.round, table_no=game.table,
        result=Result(game.result), day1_voted_out=game.day1,
        first_killed=game.night or None, best_move=tuple(game.best_move),
        seats=tuple(games.SeatDraft(player_id=seeded.player_ids[nick],
                                    role=roles.get(n, Role.CIVILIAN))
                    for n, nick in enumerate(game.seats, start=1)))
    db = await Database.open(db_path)
    try:
        async with db.transaction() as conn:
            return await games.save_game(conn, seeded.tournament_id, draft, judge.id, utcnow())
    finally:
        await db.close()


# ------------------------------------------------------------------------- standings


@dataclass(frozen=True)
class Row:
    """A standings row as people read it: place label ("5–6" if shared), nickname,
    total with two decimals (D3)."""

    place: str
    player: str
    total: str


_TABLE_ROW = re.compile(
    r"^\s*(\d+(?:–\d+)?)\s+(\S(?:.*?\S)?)\s+([-−]?\d+\.\d\d)\s+([-−]?\d+\.\d\d)\s+(\d+(?:\.\d+)?)\s+"
    r"([-−]?\d+\.\d\d)$")


def chat_table(text: str) -> list[Row]:
    """The rows of a standings table in a bot message (the live standings message or
    /rating): place, nickname, total, extra, wins (a fraction in a weighted stage,
    D15), Ci; a trailing * marks pending."""
    rows = []
    for line in text.splitlines():
        found = _TABLE_ROW.match(line.rstrip())
        if found:
            # The bot prints a minus sign (−); the engine's table a hyphen.
            total = found[3].replace("−", "-")
            rows.append(Row(found[1], found[2].rstrip("*").rstrip(), total))
    return rows


def place_labels(places: Sequence[int]) -> list[str]:
    return [f"{p}–{p + places.count(p) - 1}" if places.count(p) > 1 else str(p)
            for p in places]


FINAL_TABLE = "Final standings (D16):"


def scoring_cli(tournament_json: Path) -> list[Row]:
    """``python -m scoring standings FILE`` (the contract) as rows: places and players
    from its JSON, totals with two exact decimals from its table (with stages: the
    final standings, D16, its last table)."""
    def run(*extra: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "scoring", "standings", str(tournament_json), *extra],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    rows = json.loads(run())["standings"]
    totals: dict[str, str] = {}
    table = run("--format", "table")
    lines = table.split(FINAL_TABLE, 1)[1].splitlines()[1:] if FINAL_TABLE in table else (
        table.splitlines())
    for line in lines[2:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        totals[cells[1]] = cells[2]
    places = place_labels([r["place"] for r in rows])
    return [Row(label, r["player"], totals[r["player"]])
            for label, r in zip(places, rows, strict=True)]


# ---------------------------------------------------------------------- crashes


def confirmed_below(fake: FakeTelegram) -> int:
    """The highest offset the bot has asked getUpdates with: every update below it is
    confirmed, and Telegram never sends it again (0: none asked with yet)."""
    return max((int(r.params.get("offset") or 0) for r in fake.calls("getUpdates")),
               default=0)


def processed(db_path: Path, update_id: int) -> bool:
    """The dedup middleware recorded the update as handled."""
    return bool(query(db_path, "SELECT 1 FROM processed_updates WHERE update_id = ?",
                      (update_id,)))


def update_of(fake: FakeTelegram, query_or_message: JSON) -> int:
    """The update id that carried a callback query or a message the test sent."""
    for update in fake.pending_updates:
        if any(payload is query_or_message for payload in update.values()):
            return int(update["update_id"])
    raise AssertionError("not queued (any more)")


# --------------------------------------------------------------------- the database


def query(db_path: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Read the bot's database file directly (SQLite's WAL lets us while it runs)."""
    con = sqlite3.connect(db_path, timeout=10)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def domain_dump(db_path: Path) -> list[str]:
    """The database as SQL, without the bot's runtime tables (update ids, the users
    it has seen, conversations): what refused actions must leave byte-for-byte alone."""
    con = sqlite3.connect(db_path, timeout=10)
    try:
        skip = tuple(f'INSERT INTO "{t}"' for t in RUNTIME_TABLES)
        return [line for line in con.iterdump() if not line.startswith(skip)]
    finally:
        con.close()


# --------------------------------------------------------------------------- the log


def token_leaks(proc: BotProcess, token: str) -> list[str]:
    """Lines of the bot's log that show the token or its secret half, in any form."""
    secret = token.split(":", 1)[1]
    needles = {token, secret, urllib.parse.quote(token), urllib.parse.quote(secret)}
    return [line for line in proc.log_text().splitlines() if any(n in line for n in needles)]


def logged_errors(proc: BotProcess) -> list[str]:
    """Each ERROR/CRITICAL record of the bot's log with the exception it names (the
    line after it): "message | exception"."""
    lines = [line for line in proc.log_text().splitlines() if " DEBUG " not in line]
    found = []
    for n, line in enumerate(lines):
        if " ERROR " in line or " CRITICAL " in line:
            after = lines[n + 1] if n + 1 < len(lines) else ""
            found.append(line.split(": ", 1)[-1] + " | " + after)
    return found


# A callback query Telegram delivers again after a crash was answered the first time;
# answering it again is refused ("query is too old"), and the handler's exception is
# logged with a traceback (reported; nothing is stored twice).
QUERY_TOO_OLD = "query is too old and response timeout expired"


def log_problems(proc: BotProcess) -> list[str]:
    """Tracebacks and ERROR/CRITICAL lines of the bot's log."""
    return [line for line in proc.log_text().splitlines()
            if "Traceback" in line or " ERROR " in line or " CRITICAL " in line]
