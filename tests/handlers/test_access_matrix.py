"""The access table (handlers.access) walked whole: every command and every callback
family, sent by an outsider, a player, a judge and the chief judge of *another*
tournament, in the right and the wrong kind of chat, against tournament A's data.

For each forged update: the database is unchanged, nobody else's chat gets a message
or an edit (a refused button is answered to the tapper only), and no use case in
``bot/services`` is called by a handler. Each button is then tapped by someone the
table allows, in the right chat, to show the forged one was a real button of that
family (its handler runs). A command or a family the table lacks fails the walk.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest
from aiogram import Router
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData, CallbackQueryFilter
from aiogram.methods import AnswerCallbackQuery, GetMe, TelegramMethod
from aiogram.types import User

import handlers
from bot.config import Settings
from bot.db import invites, players, protests, staff
from bot.db.connection import Database
from bot.db.games import approvals_for_game
from bot.db.tournaments import create_tournament, set_status
from handlers import access
from handlers.callbacks import GameMenu
from handlers.career import CareerLink, CareerPerson, CareerUndo, RatingKindPick
from handlers.evening_play import NextGame, Presence
from handlers.evenings import EveningCb
from handlers.exports import ExportPick, ImagePick
from handlers.filters import TournamentPick
from handlers.game_entry.callbacks import (
    ApprovalDecision,
    GameAction,
    GamesPage,
    NewGame,
    PlayerMove,
    RosterDecision,
    Step,
)
from handlers.lots import LotDraw
from handlers.players import ClaimDecision, PlayerDecision
from handlers.protests import ProtestDecide, ProtestGame
from handlers.seating import SeatingOffer, SeatingPick, SeatingStart, SeatingTables
from handlers.staff import InviteRevoke, StaffRemove
from handlers.stage_card import StageAdd, StageEdit, StagesView
from handlers.stages import StageClose
from handlers.tournaments import TimezonePick, TournamentAction, TournamentLanguage
from tests.handlers.rating_fixtures import CHAT, CHIEF, ENDED, JUDGE, add_game, make_world
from tests.support import BotHarness

ROOT = Path(__file__).resolve().parents[2]
SERVICES = str(ROOT / "bot" / "services")
HANDLERS = str(ROOT / "handlers")
# Where a handler's filters and middlewares look roles up (reads, before any handler).
LOOKUPS = tuple(
    str(ROOT / "handlers" / name)
    for name in ("filters.py", "club_filters.py", "access.py", "errors.py")
)

JUDGE2 = 5003
PLAYER = 10_001  # player 1 of tournament A, linked
CHIEF_B = 6000
CHAT_B = -100_888
OUTSIDER = 9999
# Tables that change for every update whatever it is: the dedup records and the
# profiles of who wrote (names and languages).
VOLATILE = {"processed_updates", "users"}


# -- the two tournaments ------------------------------------------------------------------


@dataclass
class A:
    tid: int
    game: int
    approval: int
    protest: int
    pending: int  # an application
    unlinked: int  # a roster player nobody claimed
    token: str  # an unused judge invite
    card: str = ""  # the judge's card token
    person: int = 0  # the career person of player 2 (linked, of A)
    samples: dict[str, str] = field(default_factory=dict)


async def two_tournaments(harness: BotHarness, db: Database) -> A:
    world = await make_world(db, 12)
    game = await add_game(db, world, range(1, 11), extras={3: 60})  # 0.6: needs approval
    async with db.transaction() as conn:
        await set_status(conn, world.tournament_id, "running")
        await staff.add_staff(conn, world.tournament_id, JUDGE2, "judge", added_by=CHIEF)
        filed = await protests.add_protest(
            conn, game, world.players[0], PLAYER, "unfair", ENDED + timedelta(minutes=1)
        )
        pending = await players.add_player(conn, world.tournament_id, "Newbie", user_id=7777)
        unlinked = await players.add_player(
            conn, world.tournament_id, "Ghost", status="confirmed", decided_by=CHIEF
        )
        issued = await invites.create_invite(
            conn, world.tournament_id, "judge", created_by=CHIEF
        )
        await create_tournament(
            conn, title="Other Cup", distance=10, created_by=CHIEF_B, chat_id=CHAT_B
        )
        [approval] = await approvals_for_game(conn, game)
    a = A(world.tournament_id, game, approval.id, filed.id, pending.id, unlinked.id,
          issued.token)
    judge = harness.user(JUDGE, "Judge", language_code="en")
    await harness.say(judge, "/game")
    card = harness.session.last_message(JUDGE)
    assert card is not None and card.reply_markup is not None
    first = next(b.callback_data for row in card.reply_markup.inline_keyboard for b in row)
    assert first is not None and first.startswith("gs:")
    a.card = first
    async with db.read() as conn:
        person = await conn.execute_fetchall(
            "SELECT person_id FROM players WHERE id = ?", (world.players[1],))
    a.person = int(next(iter(person))[0])
    return a


def samples(a: A) -> dict[str, str]:
    """One button of each family, aimed at tournament A (keyed by its prefix)."""
    made: list[CallbackData] = [
        TournamentPick(command="roster", tournament_id=a.tid),
        ExportPick(tournament_id=a.tid),
        ImagePick(tournament_id=a.tid),
        LotDraw(tournament_id=a.tid, group="0123abcd"),
        PlayerMove(j=JUDGE, t=Step.unpack(a.card).t, a="d"),
        ApprovalDecision(id=a.approval, a="ok"),
        RosterDecision(id=a.pending, ok=False),
        GameAction(id=a.game, a="fix"),
        GamesPage(tid=a.tid),
        NewGame(),
        GameMenu(game_id=a.game),
        PlayerDecision(action="ok", player_id=a.pending),
        ClaimDecision(action="ok", player_id=a.unlinked, user_id=OUTSIDER),
        InviteRevoke(token=a.token),
        TournamentLanguage(tournament_id=a.tid, language="en"),
        TournamentAction(action="back", tournament_id=a.tid),
        TimezonePick(tournament_id=a.tid, zone="Europe/Berlin"),
        ProtestGame(game_id=a.game),
        ProtestDecide(protest_id=a.protest, upheld=False),
        SeatingPick(tournament_id=a.tid),
        SeatingStart(tournament_id=a.tid),
        SeatingTables(tournament_id=a.tid, tables=1),
        SeatingOffer(action="cancel", tournament_id=a.tid, plan_id=1),
        StageAdd(tournament_id=a.tid, preset="final4"),
        StageClose(tournament_id=a.tid, number=1),
        StageEdit(tournament_id=a.tid, number=1, setting="carry", value="0.5"),
        StagesView(tournament_id=a.tid),
        CareerPerson(person_id=a.person),
        CareerLink(player_id=a.unlinked, person_id=a.person),
        CareerUndo(tournament_id=a.tid, entry=1),
        RatingKindPick(tournament_id=a.tid, kind="elite"),
        EveningCb(action="in", evening_id=1),
        Presence(evening_id=1, signup_id=1),
        NextGame(action="again", round=1, seed=1),
        StaffRemove(tournament_id=a.tid, user_id=JUDGE2),  # last: it changes the staff
    ]
    found = {data.__prefix__: data.pack() for data in made}
    found["gs"] = a.card
    return found


# -- what a forged update did ---------------------------------------------------------------


# One reading connection per database file, kept until the test ends: a fresh one
# parses the schema at its first read, most of what a digest cost (~1.5 ms against 0.1).
_readers: dict[Path, sqlite3.Connection] = {}


@pytest.fixture(autouse=True)
def kept_readers() -> Iterator[None]:
    yield
    while _readers:
        _readers.popitem()[1].close()


def db_digest(path: Path) -> str:
    conn = _readers.get(path)
    if conn is None:
        conn = _readers[path] = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")  # every table as of one moment
    try:
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if r[0] not in VOLATILE and not r[0].startswith("sqlite_")
        ]
        digest = hashlib.sha256()
        for table in sorted(tables):
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):  # our table names
                digest.update(repr(row).encode())
        return digest.hexdigest()
    finally:
        conn.execute("COMMIT")


def handler_codes() -> set[CodeType]:
    codes: set[CodeType] = set()

    def walk(router: Router) -> None:
        for observer in router.observers.values():
            for handler in observer.handlers:
                code = getattr(handler.callback, "__code__", None)
                if code is not None:
                    codes.add(code)
        for sub in router.sub_routers:
            walk(sub)

    walk(handlers._root())
    return codes


@dataclass
class Reached:
    handlers: list[str] = field(default_factory=list)
    use_cases: list[str] = field(default_factory=list)


@contextmanager
def watching(codes: set[CodeType]) -> Iterator[Reached]:
    """Which handlers ran, and which functions of bot/services a handler called."""
    reached = Reached()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code in codes:
            reached.handlers.append(code.co_name)
        elif code.co_filename.startswith(SERVICES):
            caller = frame.f_back
            where = "" if caller is None else caller.f_code.co_filename
            if where.startswith(HANDLERS) and not where.startswith(LOOKUPS):
                reached.use_cases.append(code.co_name)

    sys.setprofile(profile)
    try:
        yield reached
    finally:
        sys.setprofile(None)


def foreign_requests(harness: BotHarness, start: int, own_chat: int | None) -> list[str]:
    """Requests since ``start`` that reach a chat other than ``own_chat`` (None: any
    chat at all: a button is answered to the tapper only)."""
    found = []
    for call in harness.session.calls[start:]:
        method: TelegramMethod[Any] = call.method
        if isinstance(method, AnswerCallbackQuery | GetMe):
            continue
        chat = getattr(method, "chat_id", None)
        if own_chat is None or chat != own_chat:
            found.append(f"{type(method).__name__} to {chat}")
    return found


def left_alone(
    harness: BotHarness,
    db: Database,
    where: str,
    before: str,
    start: int,
    own_chat: int | None,
    reached: Reached,
) -> list[str]:
    """What a forged update did that it must not (``before``: the database's digest
    before it, ``start``: the count of calls then; see foreign_requests)."""
    found = []
    if db_digest(db.path) != before:
        found.append(f"{where}: the database changed")
    if told := foreign_requests(harness, start, own_chat):
        found.append(f"{where}: {told}")
    if reached.use_cases:
        found.append(f"{where}: reached {reached.use_cases}")
    return found


# -- the walk -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Persona:
    name: str
    user: int
    role: str  # what he is to tournament A


CHIEF_A = Persona("chief", CHIEF, "chief")
PERSONAS = (
    Persona("outsider", OUTSIDER, "none"),
    Persona("player", PLAYER, "player"),
    Persona("judge", JUDGE, "judge"),
    Persona("chief of B", CHIEF_B, "none"),
)


# Buttons that name no tournament: they act in the tapper's own (his "New game").
UNBOUND = {"gn"}


def allowed(who: access.Who, persona: Persona, *, unbound: bool = False) -> bool:
    """Whether the table lets ``persona`` use a row of ``who`` on tournament A's data
    (or, ``unbound``, on his own tournament's)."""
    if who == "anyone":
        return True
    if who == "operator":
        return False
    if unbound and persona.role == "none" and persona.user == CHIEF_B:
        return True  # the chief judge of B, in B
    roles = {"staff": {"judge", "chief"}, "chief": {"chief"}}.get(who, set())
    return persona.role in roles


def legit_user(who: access.Who) -> int:
    # Group A is no club: a club row's filter refuses anyone there (the club's own
    # roles are walked in tests/handlers/test_club_access.py).
    club = {"club_owner": CHIEF, "club_host": CHIEF}
    return {"chief": CHIEF, "staff": JUDGE, "anyone": PLAYER, **club}[who]


def other_kind(chats: frozenset[access.ChatKind]) -> access.ChatKind | None:
    rest = {"private", "group"} - set(chats)
    return next(iter(rest)) if rest else None


@pytest.fixture
def watched() -> set[CodeType]:
    return handler_codes()


async def press(
    harness: BotHarness, user: User, kind: access.ChatKind, data: str
) -> None:
    """``user`` taps ``data`` on the bot's latest message in his private chat or in A's
    group (one the bot sent before the test, if none)."""
    chat = user.id if kind == "private" else CHAT
    last = harness.session.last_message(chat)
    message_id = 900 if last is None else last.message_id
    await harness.send(harness.updates.callback(user, chat, data, message_id=message_id))


async def test_every_forged_button_changes_nothing_and_tells_no_one(
    harness: BotHarness, db: Database, watched: set[CodeType]
) -> None:
    a = await two_tournaments(harness, db)
    buttons = samples(a)
    assert set(buttons) == set(access.CALLBACKS), "a family without a sample"
    failures: list[str] = []
    for prefix, data in buttons.items():
        row = access.CALLBACKS[prefix]
        home: access.ChatKind = "private" if "private" in row.chats else "group"
        tries = [
            (p, kind)
            for kind in sorted(row.chats)
            for p in PERSONAS
            if not allowed(row.who, p, unbound=prefix in UNBOUND)
        ]
        wrong = other_kind(row.chats)
        if wrong is not None:  # the right person, the wrong kind of chat
            tries += [(CHIEF_A, wrong), (PERSONAS[2], wrong)]
        for persona, kind in tries:
            user = harness.user(persona.user, persona.name.title(), language_code="en")
            before, start = db_digest(db.path), len(harness.session.calls)
            with watching(watched) as reached:
                await press(harness, user, kind, data)
            where = f"{prefix} by {persona.name} in {kind}"
            failures += left_alone(harness, db, where, before, start, None, reached)
            answers = harness.session.requests_of(AnswerCallbackQuery)
            if not answers or answers[-1].callback_query_id is None:
                failures.append(f"{where}: not answered")
        # The same button from someone the table allows, where it is shown: it is real.
        user = harness.user(legit_user(row.who), "Legit", language_code="en")
        with watching(watched) as reached:
            await press(harness, user, home, data)
        if not reached.handlers:
            failures.append(f"{prefix}: no handler ran for its own user (a bad sample)")
    assert failures == [], "\n".join(failures)


COMMAND_ARGS = {
    "join": " Mallory",
    "revoke": " abcdefgh",
    "timezone": " Europe/Berlin",
    "withdraw": " P1",
    "protest": " unfair",
}


async def test_every_forged_command_changes_nothing_and_answers_only_its_sender(
    harness: BotHarness, db: Database
) -> None:
    await two_tournaments(harness, db)
    failures: list[str] = []
    for command, row in access.COMMANDS.items():
        if row.who == "anyone":
            continue
        kinds: list[access.ChatKind] = ["private", "group"]
        for persona in (*PERSONAS, CHIEF_A):
            for kind in kinds:
                # In private a command acts on the sender's own tournaments: the chief
                # judge of B there is no forger.
                if kind in row.chats and allowed(row.who, persona, unbound=kind == "private"):
                    continue
                user = harness.user(persona.user, persona.name.title(), language_code="en")
                chat = user.id if kind == "private" else CHAT
                text = "/" + command + COMMAND_ARGS.get(command, "")
                before, start = db_digest(db.path), len(harness.session.calls)
                await harness.say(user, text, chat_id=None if kind == "private" else chat)
                where = f"/{command} by {persona.name} in {kind}"
                if db_digest(db.path) != before:
                    failures.append(f"{where}: the database changed")
                if told := foreign_requests(harness, start, chat):
                    failures.append(f"{where}: {told}")
                if not harness.session.sent_texts(chat)[-1:]:
                    failures.append(f"{where}: no answer")
    assert failures == [], "\n".join(failures)


def test_every_command_and_button_family_has_a_row() -> None:
    commands: set[str] = set()
    prefixes: set[str] = set()

    def walk(router: Router) -> None:
        for observer in router.observers.values():
            for handler in observer.handlers:
                for flt in handler.filters or ():
                    target = flt.callback
                    if isinstance(target, Command):
                        commands.update(str(c) for c in target.commands)
                    elif isinstance(target, CallbackQueryFilter):
                        prefixes.add(target.callback_data.__prefix__)
        for sub in router.sub_routers:
            walk(sub)

    walk(handlers._root())
    assert commands - set(access.COMMANDS) == set(), "commands without a row"
    assert prefixes - set(access.CALLBACKS) == set(), "button families without a row"
    assert set(access.CALLBACKS) - prefixes == set(), "rows of no family"


def bounded(data: type[CallbackData]) -> list[str]:
    """The fields of a factory that take values no keyboard sends (unbounded)."""
    loose = []
    for name, info in data.model_fields.items():
        kind = info.annotation
        limits = [m for m in info.metadata if hasattr(m, "le") or hasattr(m, "max_length")]
        literal = getattr(kind, "__origin__", None) is not None and "Literal" in str(kind)
        if kind is bool or literal or limits:
            continue
        loose.append(name)
    return loose


def all_factories() -> list[type[CallbackData]]:
    found: list[type[CallbackData]] = []
    stack = list(CallbackData.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("handlers"):
            found.append(cls)
    return found


def test_every_callback_field_is_bounded_where_it_is_parsed() -> None:
    factories = all_factories()
    assert {f.__prefix__ for f in factories} == set(access.CALLBACKS)
    assert {f.__name__: bounded(f) for f in factories if bounded(f)} == {}


@pytest.mark.parametrize(
    "data",
    [
        "ta:start:9223372036854775808",
        "ta:start:" + "1" * 31,
        "gs:abc123:st:pick:3:" + "9" * 30,
        "tp:maybe:1:0",
        "tc:maybe:1:2",
        "gm:-1",
        "so:accept:1:" + "9" * 25,
    ],
)
async def test_an_impossible_value_is_an_out_of_date_tap(
    harness: BotHarness, db: Database, settings: Settings, data: str
) -> None:
    a = await two_tournaments(harness, db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    before = db_digest(db.path)
    await harness.send(harness.updates.callback(chief, CHIEF, data, message_id=1))
    assert harness.session.requests_of(AnswerCallbackQuery)[-1].text == "This card is out of date."
    assert db_digest(db.path) == before and a.tid


def test_operator_ids_are_read_as_people_write_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_IDS", "12345, 67890 42")
    assert Settings(bot_token=None).operator_ids == frozenset({12345, 67890, 42})
    monkeypatch.setenv("OPERATOR_IDS", "")
    assert Settings(bot_token=None).operator_ids == frozenset()


async def test_another_tournaments_chief_gets_no_copy_and_a_copy_opens_no_link(
    harness: BotHarness, db: Database
) -> None:
    """The takeover the sweep found: the chief judge of B took /backup, read A's unused
    judge invite out of it and became a judge of A with /start."""
    a = await two_tournaments(harness, db)
    chief_b = harness.user(CHIEF_B, "Bob", language_code="en")
    await harness.say(chief_b, "/backup")
    assert "for the bot's operators only" in (harness.session.last_text(CHIEF_B) or "")
    with sqlite3.connect(db.path) as conn:
        stored = [r[0] for r in conn.execute("SELECT token FROM invites")]
    assert a.token not in stored  # only its digest
    for read in stored:
        await harness.say(chief_b, f"/start tj_{read[:64]}")
    async with db.read() as conn:
        assert await staff.staff_role(conn, a.tid, CHIEF_B) is None
    await harness.say(chief_b, f"/start tj_{a.token}")  # the link itself still works
    async with db.read() as conn:
        assert await staff.staff_role(conn, a.tid, CHIEF_B) == "judge"
