"""Forged and clumsy requests against the live protocol's HTTP API (docs/development.md, "The live
protocol"), through aiohttp's test client against the bot's real application and a real
database: what the sender sees, and that the database is left byte for byte as it was
(its domain tables dumped before and after, as the end-to-end scenarios do).

Who may: only a judge or the chief judge of the draft's tournament, checked on every
request; Telegram's initData is the only word for who sends it. What may: nothing once
the game is saved (here or on the card) or its tournament finished; a body is JSON of a
bounded size. The public view shows no role before Save; the API is never cached."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.db import Database, staff, tournaments
from bot.db.games import get_game_by_draft, list_games
from bot.db.games import save_game as store_game
from bot.db.timeutil import utcnow
from bot.services import game_save
from bot.services import live as live_service
from tests.e2e.scenario import domain_dump
from tests.handlers.test_game_entry_support import CHIEF, JUDGE, JUDGE2, OUTSIDER, World
from tests.support import BotHarness
from tests.support.telegram import BOT_TOKEN
from tests.support.webapp import INIT_HEADER, headers, sign_fields, sign_init_data
from tests.web.test_live_api import DRAFT_ID, GAME, MAX_AGE, card_game, events, live_app

Client = TestClient[web.Request, web.Application]

CHIEF_B = 2001
JUDGE_B = 2002
PLAYER = 5000  # Alpha's account (World's PLAYER_USER_BASE + 0), seated at table 1


@pytest.fixture
async def world(harness: BotHarness, db: Database) -> World:
    world = await World.create(harness, db, linked=[0])
    async with db.transaction() as conn:  # tournament B, in another group
        b = await tournaments.create_tournament(
            conn, title="Autumn Cup", distance=10, created_by=CHIEF_B, chat_id=-100888,
            language="en")
        await staff.add_staff(conn, b.id, JUDGE_B, "judge", added_by=CHIEF_B)
    return world


@pytest.fixture
async def token(world: World, db: Database) -> str:
    draft = await live_service.open_for_card(
        db, draft_id=DRAFT_ID, tournament_id=world.tid, round_no=1, table_no=1,
        players=world.pids[:10], judge_id=JUDGE)
    return draft.token


@pytest.fixture
async def client(harness: BotHarness, db: Database, settings: Any) -> AsyncIterator[Client]:
    async with TestClient(TestServer(live_app(harness, db, settings))) as c:
        yield c


async def entered(client: Client, token: str, commands: Any = GAME) -> dict[str, Any]:
    """The judge enters ``commands``: the draft as the page then reads it."""
    answer = await client.post(f"/api/live/{token}/events", json={"events": events(*commands)},
                               headers=headers(BOT_TOKEN, JUDGE))
    assert answer.status == 200, await answer.text()
    read = await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE))
    return dict(await read.json())


async def every_call(client: Client, token: str, sent: dict[str, str]) -> list[Any]:
    """GET, events, review and save with ``sent`` headers: (status, JSON body) each."""
    found = []
    for method, path, body in (
        ("GET", "", None),
        ("POST", "/events", {"events": [{"id": "x1", "command": {"type": "foul", "seat": 7}}]}),
        ("GET", "/review", None),
        ("POST", "/save", None),
    ):
        answer = await client.request(method, f"/api/live/{token}{path}", json=body, headers=sent)
        assert answer.headers["Cache-Control"] == "no-store"
        found.append((answer.status, await answer.json()))
    return found


def games_of(db: Database) -> Any:
    return db.fetchval("SELECT count(*) FROM games")


# -- who may ----------------------------------------------------------------------------------


async def test_nobody_but_the_tournaments_judges_touches_a_draft(
    client: Client, token: str, db: Database
) -> None:
    """A judge and the chief judge of tournament B, a player seated at the table and
    someone unknown: 403 on reading, entering, reviewing and saving the draft of A by
    its token, the protocol's roles unseen, nothing changed."""
    await entered(client, token)
    before = domain_dump(db.path)
    for user in (JUDGE_B, CHIEF_B, PLAYER, OUTSIDER):
        for status, body in await every_call(client, token, headers(BOT_TOKEN, user)):
            assert status == 403
            assert body == {"error": "Only a judge of this tournament can enter its games."}
    assert domain_dump(db.path) == before
    assert await games_of(db) == 0


async def test_a_judge_removed_after_opening_the_page_is_refused(
    client: Client, token: str, db: Database, world: World
) -> None:
    """The role is checked on every request, not when the page was opened."""
    opened = headers(BOT_TOKEN, JUDGE2)
    await entered(client, token)
    assert (await client.get(f"/api/live/{token}", headers=opened)).status == 200
    async with db.transaction() as conn:
        await staff.remove_staff(conn, world.tid, JUDGE2)
    before = domain_dump(db.path)
    assert [status for status, _ in await every_call(client, token, opened)] == [403] * 4
    assert domain_dump(db.path) == before


async def test_a_finished_tournament_takes_no_events_and_no_save(
    client: Client, token: str, db: Database, world: World
) -> None:
    """A complete protocol of a finished tournament: events and Save are refused with a
    clear word (409), nothing stored; the judge can still read and review it."""
    await entered(client, token)
    async with db.transaction() as conn:
        await tournaments.set_status(conn, world.tid, "finished")
    before = domain_dump(db.path)
    (read, _), (events_sent, refused), (review, _), (save, not_saved) = await every_call(
        client, token, headers(BOT_TOKEN, JUDGE))
    assert (read, review) == (200, 200)
    assert events_sent == save == 409
    finished = "The tournament is finished: its games can't be entered or saved any more."
    assert refused == not_saved == {"error": finished}
    russian = await client.post(f"/api/live/{token}/save",
                                headers=headers(BOT_TOKEN, CHIEF, language="ru"))
    assert "турнир завершён" in (await russian.json())["error"].lower()
    assert domain_dump(db.path) == before


# -- initData ---------------------------------------------------------------------------------


def _user(user_id: object = JUDGE) -> str:
    return json.dumps({"id": user_id, "first_name": "J", "language_code": "en"})


def forged_sign_ins() -> dict[str, dict[str, str]]:
    now = str(int(time.time()))
    judge = {"id": JUDGE, "first_name": "J"}
    valid = sign_init_data(BOT_TOKEN, judge)
    outsider = _user(OUTSIDER).replace(" ", "")
    sent = {
        "missing": "",
        "garbage": "not a query string at all",
        "no hash": f"user={_user()}&auth_date={now}",
        "forged hash": valid[: valid.rindex("hash=") + 5] + "0" * 64,
        "another user, same hash": valid.replace(str(JUDGE), str(OUTSIDER)),
        "a second user appended": f"{valid}&user={outsider}",
        "another bot's": sign_init_data("43:OTHER", judge),
        "stale": sign_init_data(BOT_TOKEN, judge, time.time() - MAX_AGE - 60),
        "from the future": sign_init_data(BOT_TOKEN, judge, time.time() + 3600),
        "no user": sign_fields(BOT_TOKEN, {"auth_date": now, "query_id": "AAq"}),
        "user id a string": sign_fields(BOT_TOKEN, {"auth_date": now, "user": _user("1002")}),
        "user id a fraction": sign_fields(BOT_TOKEN, {"auth_date": now, "user": _user(1002.5)}),
        "user id true": sign_fields(BOT_TOKEN, {"auth_date": now, "user": _user(True)}),
        "user not JSON": sign_fields(BOT_TOKEN, {"auth_date": now, "user": "{id: 1002}"}),
        "auth_date not a number": sign_fields(BOT_TOKEN, {"auth_date": "soon", "user": _user()}),
    }
    return {how: {INIT_HEADER: raw} if raw else {} for how, raw in sent.items()}


async def test_no_valid_sign_in_is_401_everywhere_and_changes_nothing(
    client: Client, token: str, db: Database
) -> None:
    await entered(client, token, GAME[:3])
    before = domain_dump(db.path)
    for how, sent in forged_sign_ins().items():
        for status, body in await every_call(client, token, sent):
            assert status == 401, how
            assert set(body) == {"error"} and body["error"], how
    assert domain_dump(db.path) == before


async def test_a_sign_in_acts_for_the_user_inside_it_only(
    client: Client, token: str, db: Database
) -> None:
    """Whoever sends JUDGE2's initData acts as JUDGE2 (the audit says so), whatever
    else the request claims; a valid initData does not open another draft's tournament
    to its user (JUDGE_B's, sent by anyone)."""
    await entered(client, token)
    claimed = {**headers(BOT_TOKEN, JUDGE2), "X-Telegram-User-Id": str(CHIEF)}
    saved = await client.post(f"/api/live/{token}/save?user_id={CHIEF}", headers=claimed)
    assert saved.status == 200
    actor = await db.fetchval("SELECT actor_id FROM audit_log WHERE action = 'game.save'")
    assert actor == JUDGE2
    other = await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE_B))
    assert other.status == 403


# -- bodies -----------------------------------------------------------------------------------

MALFORMED: dict[str, bytes | str] = {
    "not JSON": "events=please",
    "not UTF-8": b"\xff\xfe{}",
    "a JSON list": "[]",
    "a JSON string": '"events"',
    "no events": "{}",
    "events an object": '{"events": {"id": "a"}}',
    "no event": '{"events": []}',
    "an event not an object": '{"events": ["foul"]}',
    "an id a number": '{"events": [{"id": 1, "command": {"type": "end_night"}}]}',
    "an id empty": '{"events": [{"id": "", "command": {"type": "end_night"}}]}',
    "no id": '{"events": [{"command": {"type": "end_night"}}]}',
    "an id too long": json.dumps({"events": [{"id": "i" * 65, "command": {"type": "foul"}}]}),
    "an id twice": json.dumps({"events": [{"id": "a", "command": {"type": "foul", "seat": 1}},
                                          {"id": "a", "command": {"type": "foul", "seat": 2}}]}),
    "a command a list": '{"events": [{"id": "a", "command": ["foul", 1]}]}',
    "a command of 10 kB": json.dumps(
        {"events": [{"id": "a", "command": {"type": "foul", "seat": 1, "x": "y" * 10_000}}]}),
    "NaN": '{"events": [{"id": "a", "command": {"type": "foul", "seat": NaN}}]}',
    "nested 100,000 deep": '{"events": ' + "[" * 100_000 + "]" * 100_000 + "}",
}


async def test_a_malformed_body_is_400_and_stores_nothing(
    client: Client, token: str, db: Database
) -> None:
    await entered(client, token, GAME[:1])
    before = domain_dump(db.path)
    for how, body in MALFORMED.items():
        answer = await client.post(f"/api/live/{token}/events", data=body,
                                   headers=headers(BOT_TOKEN, JUDGE))
        assert answer.status == 400, how
        assert await answer.json() == {"error": "The request is not understood."}, how
    assert domain_dump(db.path) == before


async def test_too_large_a_request_is_413_and_stores_nothing(
    client: Client, token: str, db: Database
) -> None:
    """10,000 events in one request (the page sends a few), a 10 MB body, a 2 MB body
    sent in chunks without its length: 413, no event stored."""
    before = domain_dump(db.path)
    many = {"events": [{"id": f"e{i}", "command": {"type": "foul", "seat": 1}}
                       for i in range(10_000)]}
    huge = b'{"events": [' + b" " * 10_000_000 + b"]}"

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(32):
            yield b" " * 65_536

    for body in (json.dumps(many), huge, chunks()):
        answer = await client.post(f"/api/live/{token}/events", data=body,
                                   headers=headers(BOT_TOKEN, JUDGE))
        assert answer.status == 413
        assert await answer.json() == {
            "error": "The request is too large: send fewer events at a time."}
    assert domain_dump(db.path) == before


WRONG_COMMANDS: dict[str, Any] = {
    "seat a string": {"type": "foul", "seat": "1"},
    "seat a fraction": {"type": "foul", "seat": 1.5},
    "seat true": {"type": "foul", "seat": True},
    "seat 11": {"type": "foul", "seat": 11},
    "seat 0": {"type": "foul", "seat": 0},
    "seat an object": {"type": "foul", "seat": {"seat": 1}},
    "seat huge": {"type": "foul", "seat": 10**30},
    "votes nested": {"type": "vote", "votes": {"2": {"n": 6}}},
    "mafia an object": {"type": "roles", "sheriff": 1, "don": 2, "mafia": {"3": 4}},
    "no type": {"seat": 1},
    "type a list": {"type": ["foul"], "seat": 1},
    "unknown type": {"type": "drop_table", "seat": 1},
}


async def test_a_command_of_wrong_types_is_refused_and_stores_nothing(
    client: Client, token: str, db: Database
) -> None:
    """Well-formed requests whose command the protocol does not understand: 200 with the
    command refused (nothing applied), nothing stored, the draft as it was."""
    await entered(client, token, GAME[:1])
    before = domain_dump(db.path)
    for how, command in WRONG_COMMANDS.items():
        answer = await client.post(f"/api/live/{token}/events",
                                   json={"events": [{"id": "w", "command": command}]},
                                   headers=headers(BOT_TOKEN, JUDGE))
        assert answer.status == 200, how
        body = await answer.json()
        assert body["applied"] == [] and body["version"] == 1, how
        assert body["refused"] == {"id": "w", "rule": "game",
                                   "text": "This command is not understood."}, how
    assert domain_dump(db.path) == before


# -- the public view, tokens ------------------------------------------------------------------

ROLE_WORDS = ("sheriff", "don", "mafia", "civilian", "шериф", "дон", "мафия")


async def test_the_public_view_shows_no_role_before_save_and_tokens_do_not_cross(
    client: Client, token: str, db: Database
) -> None:
    draft = await entered(client, token, GAME[:-1])  # all but the result: roles entered
    public = draft["public"]
    assert draft["view"]["seats"][0]["role"] == "sheriff"  # the judge sees them
    seen = await client.get(f"/api/public/{public}")
    assert seen.headers["Cache-Control"] == "no-store"
    text = await seen.text()
    assert not any(word in text.lower() for word in ROLE_WORDS)
    assert set(json.loads(text)) == {"tournament", "locale", "round", "table", "phase",
                                      "phase_text", "seats", "version", "result", "saved",
                                      "saved_text"}
    page = await (await client.get(f"/live/{public}")).text()
    assert public not in page and not any(word in page.lower() for word in ROLE_WORDS)
    # Neither token opens the other's side; an unknown one is not echoed back.
    judge = headers(BOT_TOKEN, JUDGE)
    crossed = await client.get(f"/api/live/{public}", headers=judge)
    assert crossed.status == 404
    assert (await client.get(f"/api/public/{token}")).status == 404
    for path in (f"/api/live/{public}/events", f"/api/live/{public}/save"):
        answer = await client.post(path, json={"events": events(GAME[-1])}, headers=judge)
        assert answer.status == 404
    unknown = "ZZunknownTokenZZ0123456"
    for answer in (await client.get(f"/api/live/{unknown}", headers=judge),
                   await client.get(f"/api/public/{unknown}")):
        assert answer.status == 404 and unknown not in await answer.text()
    assert await games_of(db) == 0
    saved = await client.post(f"/api/live/{token}/events", json={"events": events(GAME[-1],
                              prefix="r")}, headers=judge)
    assert (await saved.json())["refused"] is None
    assert (await client.post(f"/api/live/{token}/save", headers=judge)).status == 200
    after = await (await client.get(f"/api/public/{public}")).json()
    assert after["seats"][0]["role"] == "sheriff" and after["result"] == "red"


# -- headers, failures ------------------------------------------------------------------------


async def test_the_api_is_never_cached_the_pages_can_be_framed_errors_are_json(
    client: Client, token: str, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    judge = headers(BOT_TOKEN, JUDGE)
    for answer in (
        await client.get(f"/api/live/{token}", headers=judge),
        await client.get(f"/api/live/{token}"),
        await client.get("/api/live/nope/nothing/here", headers=judge),
        await client.put(f"/api/live/{token}/save", headers=judge),
    ):
        assert answer.headers["Cache-Control"] == "no-store"
        assert answer.content_type == "application/json"
        assert "error" in await answer.json() or answer.status == 200
    for page in ("/app/", "/live/anything"):
        answer = await client.get(page)
        assert answer.status == 200
        assert "X-Frame-Options" not in answer.headers
        assert "frame-ancestors" not in answer.headers.get("Content-Security-Policy", "")
        assert answer.headers["Referrer-Policy"] == "no-referrer"

    async def broken(*args: Any) -> Any:
        raise RuntimeError("secret internals of the server")

    monkeypatch.setattr(live_service, "snapshot", broken)
    failed = await client.get(f"/api/live/{token}", headers=judge)
    assert failed.status == 500
    text = await failed.text()
    assert "Traceback" not in text and "secret" not in text
    assert json.loads(text) == {  # who asked is not known here: the default language
        "error": "На сервере что-то пошло не так; ничего не изменено. Попробуйте ещё раз."}
    assert token not in caplog.text  # the log names the route, not the draft's token


# -- saving -----------------------------------------------------------------------------------


class ProbeLock(asyncio.Lock):
    """The draft's lock, telling when a request finds it held."""

    def __init__(self) -> None:
        super().__init__()
        self.contended = asyncio.Event()

    async def acquire(self) -> bool:
        if self.locked():
            self.contended.set()
        return await super().acquire()


async def test_events_racing_a_save_wait_for_it_and_are_refused(
    client: Client, token: str, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judge's points (8.4) sent while the Save is storing the game: they wait for it
    and are refused as after a Save, so the game stored is the protocol stored."""
    await entered(client, token)
    probe = ProbeLock()
    monkeypatch.setattr(live_service, "LOCKS", SimpleNamespace(of=lambda draft_id: probe),
                        raising=False)
    real = game_save.store_game
    late: list[asyncio.Task[Any]] = []

    async def racing(*args: Any, **kwargs: Any) -> Any:
        extra = {"events": [{"id": "late", "command": {"type": "extra", "seat": 1,
                                                       "hundredths": 30}}]}
        task = asyncio.ensure_future(client.post(f"/api/live/{token}/events", json=extra,
                                                 headers=headers(BOT_TOKEN, JUDGE2)))
        late.append(task)
        waiting = asyncio.ensure_future(probe.contended.wait())
        await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        return await real(*args, **kwargs)

    monkeypatch.setattr(game_save, "store_game", racing)
    saved = await client.post(f"/api/live/{token}/save", headers=headers(BOT_TOKEN, JUDGE))
    assert saved.status == 200
    [task] = late
    answer = await task
    assert answer.status == 409
    assert (await answer.json())["error"].startswith("This game is saved already")
    assert await db.fetchval("SELECT count(*) FROM live_events") == len(GAME)
    async with db.read() as conn:
        game = await get_game_by_draft(conn, DRAFT_ID)
    assert game is not None and [s.judge_extra for s in game.seats] == [0] * 10


async def test_a_save_sent_twice_or_at_once_is_one_game(
    client: Client, token: str, db: Database, world: World
) -> None:
    await entered(client, token)
    judge = headers(BOT_TOKEN, JUDGE)
    answers = await asyncio.gather(*(client.post(f"/api/live/{token}/save", headers=judge)
                                     for _ in range(3)))
    again = await client.post(f"/api/live/{token}/save", headers=headers(BOT_TOKEN, JUDGE2))
    bodies = [await a.json() for a in (*answers, again)]
    assert [a.status for a in (*answers, again)] == [200] * 4
    assert bodies == [bodies[0]] * 4 and bodies[0]["code"] == "R1-T1"
    assert len(await world.games()) == 1
    assert await db.fetchval("SELECT count(*) FROM audit_log WHERE action = 'game.save'") == 1


async def test_a_game_saved_on_the_card_closes_its_live_draft(
    client: Client, token: str, db: Database, world: World
) -> None:
    """The card saved the same game (its draft_id) meanwhile: the live draft reads as
    saved, takes no more events, and its Save answers the card's game."""
    await entered(client, token, GAME[:3])
    on_card = replace(card_game(world.pids), draft_id=DRAFT_ID)
    async with db.transaction() as conn:
        game_id = await store_game(conn, world.tid, on_card, JUDGE2, utcnow())
    before = domain_dump(db.path)
    judge = headers(BOT_TOKEN, JUDGE)
    read = await (await client.get(f"/api/live/{token}", headers=judge)).json()
    assert read["saved"] == {"game_id": game_id, "code": "R1-T1"}
    late = await client.post(f"/api/live/{token}/events", headers=judge,
                             json={"events": events(GAME[3], prefix="late")})
    assert late.status == 409
    saved = await client.post(f"/api/live/{token}/save", headers=judge)
    assert saved.status == 200 and (await saved.json())["game_id"] == game_id
    assert domain_dump(db.path) == before
    async with db.read() as conn:
        assert len(await list_games(conn, world.tid)) == 1

