"""The club rows of the access table (handlers.access) walked whole, as
tests/handlers/test_access_matrix.py walks the tournaments': every command and every
button family for the club's owner (``club_owner``) or its hosts (``club_host``), sent
in club A's group by an outsider, a player signed up for A's evening, the host of club
B, and (for the owner's rows) A's own host.

For each forged update: it is answered with the refusal, the database is unchanged,
nobody else's chat gets a message or an edit (a refused button is answered to the
tapper only), and no use case in ``bot/services`` is called by a handler. Then the
one the table allows sends the same: a handler runs and no refusal of who may comes
back. A club row without a sample here fails the walk.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from aiogram.filters.callback_data import CallbackData
from aiogram.methods import AnswerCallbackQuery
from aiogram.types import User

from bot.db.connection import Database
from bot.services import Refusal
from bot.services.clubs import NO_CLUB_HERE, ONLY_HOSTS, ONLY_OWNER
from handlers import access
from handlers.evening_play import NextGame, Presence
from tests.handlers.test_access_matrix import (  # noqa: F401  # kept_readers: a fixture
    Persona,
    db_digest,
    handler_codes,
    kept_readers,
    left_alone,
    watching,
)
from tests.support import BotHarness
from tests.support.club_rows import ClubSetup, club_with_evening

CHAT, CHAT_B = -100_300, -100_301
OWNER, HOST, HOST_B, PLAYER, OUTSIDER = 3001, 3002, 3003, 3004, 3005
CLUB_WHO = ("club_owner", "club_host")
NAMES = ["Pat", *(f"P{n:02}" for n in range(1, 10))]  # ten: enough to start the evening
REFUSALS = {"club_owner": ONLY_OWNER, "club_host": ONLY_HOSTS}
# What filters answer about who may: none of these reaches the one the table allows.
WHO_MAY_TEXTS = {r.msgid for r in (NO_CLUB_HERE, ONLY_HOSTS, ONLY_OWNER)}

# Each club command with arguments that would change something if it got through.
COMMANDS: dict[str, str] = {
    "host": " @nobody_here",
    "unhost": " @nobody_here",
    "club_language": " ru",
    "club_timezone": " Europe/Berlin",
    "season_start": " 09-01",
    "club_protests": " on",
    "club_reminder": " 1",
    "evening": " 12.12.2030 19:30; Cafe Sol; 12",
    "guest": " Mallory",
    "unsign": " Pat",
    "close_signup": "",
    "cancel_evening": "",
    "present": " Mallory",
    "start_evening": "",
    "next_game": "",
    "close_evening": "",
}

# One button of each club family, aimed at club A's evening (keyed by its prefix).
BUTTONS: dict[str, Callable[[ClubSetup], CallbackData]] = {
    "vp": lambda a: Presence(evening_id=a.evening_id, signup_id=a.signups["Pat"]),
    "vn": lambda _a: NextGame(action="post", round=1, seed=1),
}


def club_rows(table: dict[str, access.Access]) -> set[str]:
    return {name for name, row in table.items() if row.who in CLUB_WHO}


OWNER_A = Persona("owner", OWNER, "owner")
HOST_A = Persona("host", HOST, "host")
OTHERS = (
    Persona("outsider", OUTSIDER, "none"),
    Persona("player", PLAYER, "none"),
    Persona("host of B", HOST_B, "none"),
)


def forgers(who: access.Who) -> tuple[Persona, ...]:
    return (*OTHERS, HOST_A) if who == "club_owner" else OTHERS


def allowed(who: access.Who) -> Persona:
    return OWNER_A if who == "club_owner" else HOST_A


async def two_clubs(db: Database) -> ClubSetup:
    """Club A (owner, host, an open evening with the player and nine more signed up and
    present) and club B with its own host."""
    a = await club_with_evening(
        db, chat_id=CHAT, owner=OWNER, hosts=[HOST], signed=NAMES, users={"Pat": PLAYER},
        present=True,
    )
    await club_with_evening(db, chat_id=CHAT_B, owner=HOST_B + 100, hosts=[HOST_B])
    return a


def test_every_club_row_has_a_sample() -> None:
    assert set(COMMANDS) == club_rows(dict(access.COMMANDS)), "club commands without a sample"
    assert set(BUTTONS) == club_rows(dict(access.CALLBACKS)), "club buttons without a sample"


def _user(harness: BotHarness, persona: Persona) -> User:
    return harness.user(persona.user, persona.name.title(), language_code="en")


async def walk(
    harness: BotHarness,
    db: Database,
    where: str,
    who: access.Who,
    send: Callable[[User], Awaitable[object]],
    answer: Callable[[], str | None],
    own_chat: int | None,
) -> list[str]:
    """``send`` from each forger, then from whom the table allows; what went wrong.
    ``answer``: the latest answer (a text in the group, a button's toast); ``own_chat``:
    the only chat that may be sent to (None: none, a tap is answered to the tapper)."""
    refusal: Refusal = REFUSALS[who]
    codes = handler_codes()
    failures: list[str] = []
    for persona in forgers(who):
        before, start = db_digest(db.path), len(harness.session.calls)
        with watching(codes) as reached:
            await send(_user(harness, persona))
        by = f"{where} by {persona.name}"
        if answer() != refusal.msgid:
            failures.append(f"{by}: answered {answer()!r}")
        failures += left_alone(harness, db, by, before, start, own_chat, reached)
    persona = allowed(who)
    with watching(codes) as reached:
        await send(_user(harness, persona))
    if not reached.handlers or "answered_by_a_filter" in reached.handlers:
        failures.append(f"{where} by {persona.name}: no handler ran ({reached.handlers})")
    if answer() in WHO_MAY_TEXTS:
        failures.append(f"{where} by {persona.name}: refused")
    return failures


@pytest.mark.parametrize("command", sorted(COMMANDS))
async def test_a_club_command_only_for_whom_the_table_allows(
    harness: BotHarness, db: Database, command: str
) -> None:
    await two_clubs(db)
    text = "/" + command + COMMANDS[command]

    async def send(user: User) -> None:
        await harness.say(user, text, chat_id=CHAT)

    def answer() -> str | None:
        return next(iter(harness.session.sent_texts(CHAT)[-1:]), None)

    row = access.COMMANDS[command]
    failures = await walk(harness, db, f"/{command}", row.who, send, answer, CHAT)
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("prefix", sorted(BUTTONS))
async def test_a_club_button_only_for_whom_the_table_allows(
    harness: BotHarness, db: Database, prefix: str
) -> None:
    a = await two_clubs(db)
    # A real message in the group to tap under (the host's list).
    await harness.say(_user(harness, HOST_A), "/present", chat_id=CHAT)
    shown = harness.session.last_message(CHAT)
    assert shown is not None
    data = BUTTONS[prefix](a).pack()

    async def send(user: User) -> None:
        await harness.send(harness.updates.callback(user, shown, data))

    def answer() -> str | None:
        answers = harness.session.requests_of(AnswerCallbackQuery)
        return answers[-1].text if answers else None

    row = access.CALLBACKS[prefix]
    failures = await walk(harness, db, prefix, row.who, send, answer, None)
    assert failures == [], "\n".join(failures)
