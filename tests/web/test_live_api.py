"""The live protocol's HTTP API (docs/development.md, "The live protocol") through aiohttp's test
client, against the bot's real application and a real database: who may (Telegram's
signed initData, the tournament's judges), events stored once and in order, a refusal
citing its rule (8.3.3) storing nothing, a restart resuming from the stored events, and
Save storing the game the card would store (8.3, 8.6.1 Ci, the standings)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.app import live_runtime
from bot.config import Settings
from bot.db import Database
from bot.db.games import GameDraft, SeatDraft, get_game_by_draft
from bot.db.scoring_bridge import game_from_draft
from bot.reads import card_reads
from bot.reads.export import load_export, tournament_json
from bot.services import live as live_service
from bot.texts.rating_format import short_points
from bot.web.live import add_live
from bot.web.server import create_app
from scoring import Result, Role, game_breakdown, protocol
from scoring.judging import first_killed_ci
from tests.handlers.test_game_entry_support import CHIEF, JUDGE, JUDGE2, OUTSIDER, World
from tests.support import BotHarness
from tests.support.telegram import BOT_TOKEN
from tests.support.webapp import INIT_HEADER, headers, sign_init_data

MAX_AGE = 3600
DRAFT_ID = "g-live-test-1"

ROLES = {"type": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}
# A whole game the red team wins: the don voted out on day 1, seat 5 shot on night 1
# (his best move 3, 4, 6), the mafia voted out on days 2 and 3.
GAME: tuple[dict[str, Any], ...] = (
    ROLES,
    {"type": "nominate", "seat": 2, "by": 1},
    {"type": "vote", "votes": {"2": 6}},
    {"type": "vote_out", "seats": [2]},
    {"type": "shoot", "seat": 5},
    {"type": "end_night"},
    {"type": "best_move", "seat": 3},
    {"type": "best_move", "seat": 4},
    {"type": "best_move", "seat": 6},
    {"type": "nominate", "seat": 3, "by": 1},
    {"type": "vote", "votes": {"3": 5}},
    {"type": "vote_out", "seats": [3]},
    {"type": "shoot", "seat": None},
    {"type": "end_night"},
    {"type": "nominate", "seat": 4, "by": 1},
    {"type": "vote", "votes": {"4": 5}},
    {"type": "vote_out", "seats": [4]},
    {"type": "result", "result": "red"},
)


def live_app(harness: BotHarness, db: Database, settings: Settings) -> web.Application:
    app = create_app(settings, started=time.monotonic(), mode="polling")
    dp = harness.dispatcher
    add_live(
        app,
        live_runtime(dp, harness.bot, token=BOT_TOKEN, max_age=MAX_AGE,
                     base_url="https://live.example.org"),
    )
    return app


@pytest.fixture
async def world(harness: BotHarness, db: Database) -> World:
    return await World.create(harness, db)


@pytest.fixture
async def token(world: World, db: Database) -> str:
    draft = await live_service.open_for_card(
        db,
        draft_id=DRAFT_ID,
        tournament_id=world.tid,
        round_no=1,
        table_no=1,
        players=world.pids[:10],
        judge_id=JUDGE,
    )
    return draft.token


@pytest.fixture
async def client(
    harness: BotHarness, db: Database, settings: Settings
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    async with TestClient(TestServer(live_app(harness, db, settings))) as c:
        yield c


def events(*commands: dict[str, Any], prefix: str = "e") -> list[dict[str, Any]]:
    return [{"id": f"{prefix}{i}", "command": c} for i, c in enumerate(commands, start=1)]


async def post(
    client: TestClient[web.Request, web.Application],
    token: str,
    batch: Sequence[dict[str, Any]],
    user: int = JUDGE,
) -> Any:
    response = await client.post(
        f"/api/live/{token}/events", json={"events": list(batch)}, headers=headers(BOT_TOKEN, user)
    )
    assert response.status == 200, await response.text()
    return await response.json()


async def stored(db: Database) -> int:
    return int(await db.fetchval("SELECT count(*) FROM live_events"))


async def test_a_judge_reads_the_draft_in_his_language(client: Any, token: str) -> None:
    response = await client.get(
        f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE, language="ru")
    )
    assert response.status == 200
    body = await response.json()
    assert (body["round"], body["table"], body["version"], body["saved"]) == (1, 1, 0, None)
    assert body["tournament"] == "Spring Cup" and body["locale"] == "ru"
    assert [p["nickname"] for p in body["players"]][:2] == ["Alpha", "Bravo"]
    assert body["texts"]["foul"] == "Фол" and body["texts"]["sheriff"] == "шериф"
    assert len(body["view"]["seats"]) == 10
    english = await (
        await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE2))
    ).json()
    assert english["texts"]["foul"] == "Foul" and english["locale"] == "en"


@pytest.mark.parametrize("how", ["missing", "forged", "stale", "other bot"])
async def test_no_valid_sign_in_is_401_and_stores_nothing(
    client: Any, token: str, db: Database, how: str
) -> None:
    user = {"id": JUDGE, "first_name": "J", "language_code": "en"}
    sent = {
        "missing": {},
        "forged": {
            INIT_HEADER: sign_init_data(BOT_TOKEN, user)
            .replace("J", "K", 1)
            .replace("first_name%22%3A%22J", "first_name%22%3A%22K")
        },
        "stale": {INIT_HEADER: sign_init_data(BOT_TOKEN, user, time.time() - MAX_AGE - 60)},
        "other bot": {INIT_HEADER: sign_init_data("43:OTHER", user)},
    }[how]
    body = {"events": events(ROLES)}
    response = await client.post(f"/api/live/{token}/events", json=body, headers=sent)
    assert response.status == 401
    assert (await response.json())["error"]
    assert (await client.get(f"/api/live/{token}", headers=sent)).status == 401
    assert (await client.post(f"/api/live/{token}/save", headers=sent)).status == 401
    assert await stored(db) == 0


async def test_someone_not_judging_the_tournament_is_403(
    client: Any, token: str, db: Database
) -> None:
    response = await client.post(
        f"/api/live/{token}/events",
        json={"events": events(ROLES)},
        headers=headers(BOT_TOKEN, OUTSIDER),
    )
    assert response.status == 403
    assert await stored(db) == 0
    chief = await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, CHIEF))
    assert chief.status == 200


async def test_an_unknown_token_is_404(client: Any, token: str) -> None:
    response = await client.get(
        "/api/live/NoSuchTokenAtAll12345", headers=headers(BOT_TOKEN, JUDGE)
    )
    assert response.status == 404
    assert (await client.get("/api/public/NoSuchTokenAtAll12345")).status == 404


async def test_an_event_sent_twice_is_stored_once(client: Any, token: str, db: Database) -> None:
    first = await post(client, token, events(ROLES))
    again = await post(client, token, events(ROLES))
    assert first["applied"] == again["applied"] == ["e1"]
    assert first["version"] == again["version"] == 1
    assert again["refused"] is None
    assert await stored(db) == 1


async def test_an_id_stored_with_another_command_is_409_naming_both_and_stores_nothing(
    client: Any, token: str, db: Database
) -> None:
    """The page's id names one event: sent again with another command it is not taken
    for the stored one (nor applied as new); the whole request stores nothing and the
    judge reads both commands in his language. The same command again is applied."""
    await post(client, token, events(ROLES, GAME[1]))
    batch = [{"id": "fresh", "command": {"type": "foul", "seat": 7}},
             {"id": "e2", "command": {"type": "foul", "seat": 8}}]
    answer = await client.post(f"/api/live/{token}/events", json={"events": batch},
                               headers=headers(BOT_TOKEN, JUDGE))
    assert answer.status == 409
    assert await answer.json() == {"error": (
        "Not stored: this event was recorded already as «seat 1 nominates seat 2», and now "
        "it came as «a foul to seat 8». Nothing was changed; the protocol is shown as "
        "recorded.")}
    russian = await client.post(f"/api/live/{token}/events", json={"events": batch},
                                headers=headers(BOT_TOKEN, JUDGE, language="ru"))
    assert russian.status == 409
    text = (await russian.json())["error"]
    assert "«место 1 выставляет место 2»" in text and "«фол месту 8»" in text, text
    assert await stored(db) == 2
    same = await post(client, token, [{"id": "e2", "command": dict(reversed(GAME[1].items()))}])
    assert same["applied"] == ["e2"] and same["version"] == 2 and same["refused"] is None
    assert await stored(db) == 2


async def test_a_refusal_names_its_rule_and_stores_nothing_of_it(
    client: Any, token: str, db: Database
) -> None:
    """8.3.3: a best move's number is never removed, so its undo is refused; what came
    before it in the batch is stored, it and what follows are not."""
    await post(client, token, events(*GAME[:6]))
    batch = [
        {"id": "bm", "command": {"type": "best_move", "seat": 3}},
        {"id": "undo", "command": {"type": "undo"}},
        {"id": "after", "command": {"type": "best_move", "seat": 4}},
    ]
    body = await post(client, token, batch)
    assert body["applied"] == ["bm"]
    assert body["refused"]["id"] == "undo" and body["refused"]["rule"] == "8.3.3"
    assert body["refused"]["text"]
    assert body["version"] == 7 == await stored(db)


async def test_a_restarted_bot_resumes_from_the_stored_events(
    harness: BotHarness, db: Database, settings: Settings, token: str
) -> None:
    async with TestClient(TestServer(live_app(harness, db, settings))) as before:
        await post(before, token, events(*GAME[:5]))
    async with TestClient(TestServer(live_app(harness, db, settings))) as after:
        body = await (
            await after.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE))
        ).json()
        assert body["version"] == 5
        assert [e["id"] for e in body["events"]] == ["e1", "e2", "e3", "e4", "e5"]
        assert body["events"][3]["command"] == GAME[3]
        resumed = await post(after, token, [{"id": "e6", "command": GAME[5]}])
        assert resumed["applied"] == ["e6"] and resumed["version"] == 6
        seat5 = resumed["view"]["seats"][4]
        assert seat5["alive"] is False and seat5["out"] == "shot"


def card_game(pids: Sequence[int]) -> GameDraft:
    """The same game as the card enters it."""
    roles = {1: Role.SHERIFF, 2: Role.DON, 3: Role.MAFIA, 4: Role.MAFIA}
    return GameDraft(
        draft_id="g-card",
        round=1,
        table_no=1,
        result=Result.RED,
        seats=tuple(
            SeatDraft(player_id=pids[n - 1], role=roles.get(n, Role.CIVILIAN)) for n in range(1, 11)
        ),
        day1_voted_out=1,
        first_killed=5,
        best_move=(3, 4, 6),
    )


async def test_save_stores_the_game_the_card_would_and_then_takes_no_events(
    client: Any, token: str, db: Database, world: World
) -> None:
    """8.3 (best move), 8.6.1 (Ci): the points are the engine's of the card's game."""
    await post(client, token, events(*GAME))
    review = await (
        await client.get(f"/api/live/{token}/review", headers=headers(BOT_TOKEN, JUDGE))
    ).json()
    assert review["problems"] == []
    expected = card_game(world.pids)
    names = {pid: f"#{pid}" for pid in world.pids}
    game = game_from_draft(expected, names)
    ci = first_killed_ci(await card_reads.scoring_tournament(db, world.tid), game).ci
    engine = game_breakdown(game, ci=ci)
    assert [s["points"] for s in review["seats"]] == [short_points(p.total) for p in engine.seats]
    response = await client.post(f"/api/live/{token}/save", headers=headers(BOT_TOKEN, JUDGE))
    assert response.status == 200, await response.text()
    saved = await response.json()
    assert saved["code"] == "R1-T1"
    async with db.read() as conn:
        record = await get_game_by_draft(conn, DRAFT_ID)
    assert record is not None and record.id == saved["game_id"]
    assert (record.result, record.day1_voted_out, record.first_killed, record.best_move) == (
        expected.result,
        expected.day1_voted_out,
        expected.first_killed,
        expected.best_move,
    )
    assert [(s.player_id, s.role) for s in record.seats] == [
        (s.player_id, s.role) for s in expected.seats
    ]
    assert [(s.disqualified, s.judge_extra, s.penalties) for s in record.seats] == [
        (False, 0, ())
    ] * 10

    again = await client.post(f"/api/live/{token}/save", headers=headers(BOT_TOKEN, JUDGE))
    assert again.status == 200  # sent again: the same game, not a second one
    assert await again.json() == saved
    late = await client.post(
        f"/api/live/{token}/events",
        headers=headers(BOT_TOKEN, JUDGE),
        json={"events": [{"id": "late", "command": {"type": "foul", "seat": 1}}]},
    )
    assert late.status == 409
    assert await stored(db) == len(GAME)
    body = await (await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE))).json()
    assert body["saved"] == {"game_id": record.id, "code": "R1-T1"}
    # The export's game carries its events in order.
    document = json.loads(tournament_json(await load_export(db, world.tid)))
    [exported] = document["games"]
    assert exported["id"] == "R1-T1" and exported["events"] == list(GAME)


async def test_an_incomplete_protocol_is_not_saved(client: Any, token: str, db: Database) -> None:
    await post(client, token, events(ROLES))
    response = await client.post(f"/api/live/{token}/save", headers=headers(BOT_TOKEN, JUDGE))
    assert response.status == 422
    assert (await response.json())["error"]
    async with db.read() as conn:
        assert await get_game_by_draft(conn, DRAFT_ID) is None


async def test_the_public_view_hides_roles_until_saved(client: Any, token: str) -> None:
    draft = await (await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE))).json()
    await post(client, token, events(*GAME[:6]))
    public = await (await client.get(f"/api/public/{draft['public']}")).json()
    assert [s["role"] for s in public["seats"]] == [None] * 10
    assert public["seats"][4]["alive"] is False and public["seats"][1]["out"] == "voted"
    assert public["seats"][0]["nickname"] == "Alpha"
    page = await client.get(f"/live/{draft['public']}")
    assert page.status == 200 and "live.js" in await page.text()
    script = await client.get("/app/static/live.js")
    assert script.status == 200


async def test_the_public_view_says_game_over_with_its_reason_then_the_saved_result(
    client: Any, token: str, world: World
) -> None:
    """The day-3 vote leaves no black: the public view reads "game over" with the result
    and what ended it at once (the roles still hidden), in the tournament's language;
    after Save it names the result and the saved game."""
    draft = await (await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE))).json()
    await post(client, token, events(*GAME[:-2]))
    public = await (await client.get(f"/api/public/{draft['public']}")).json()
    assert public["phase"] == {"kind": "day", "number": 3, "step": "voting"}
    assert public["phase_text"] == "Day 3" and public["locale"] == "en"
    await post(client, token, events(GAME[-2], prefix="out"))
    public = await (await client.get(f"/api/public/{draft['public']}")).json()
    assert public["phase"] == {"kind": "over", "result": "red", "ended": {
        "by": "voted", "kind": "day", "number": 3, "seat": 4}}
    assert public["phase_text"] == "Game over after the day-3 vote: red win"
    assert [s["role"] for s in public["seats"]] == [None] * 10
    assert public["result"] is None and public["saved_text"] is None
    await post(client, token, events(GAME[-1], prefix="result"))
    saved = await client.post(f"/api/live/{token}/save", headers=headers(BOT_TOKEN, JUDGE))
    assert saved.status == 200
    public = await (await client.get(f"/api/public/{draft['public']}")).json()
    assert public["result"] == "red"
    assert public["phase_text"] == "Game over after the day-3 vote: red win"
    assert public["saved_text"] == "Saved as game R1-T1"
    assert [s["role_name"] for s in public["seats"][:5]] == [
        "sheriff", "don", "mafia", "mafia", "civilian"]
    async with world.db.transaction() as conn:  # the group reads Russian
        await conn.execute("UPDATE tournaments SET language = 'ru' WHERE id = ?", (world.tid,))
    public = await (await client.get(f"/api/public/{draft['public']}")).json()
    assert public["phase_text"] == (
        "Игра окончена после голосования 3-го дня: победа красных")
    assert public["saved_text"] == "Сохранено как игра R1-T1"
    assert public["seats"][0]["role_name"] == "шериф"


async def test_the_page_s_view_carries_what_the_protocol_accepts_now(
    client: Any, token: str
) -> None:
    """GET and every POST of events answer with the protocol's view and its "allowed"
    (what the page may offer, scoring.protocol.allowed), of the protocol as stored; the
    public view has none of it. In a draw no seat is offered judge's points (8.4.7)."""
    commands = (ROLES, {"type": "result", "result": "draw"})
    done = await post(client, token, events(*commands))
    drawn = protocol.replay(commands)
    assert isinstance(drawn, protocol.Protocol), drawn
    expected = protocol.view(drawn)
    assert done["view"] == expected
    allowed = done["view"]["allowed"]
    assert allowed["result"] == ["red", "black", "draw"]  # the events ended nothing
    assert all(extra == {"values": [0], "rule": "8.4.7"} for extra in allowed["extra"].values())
    read = await client.get(f"/api/live/{token}", headers=headers(BOT_TOKEN, JUDGE))
    body = await read.json()
    assert body["view"] == expected
    public = await (await client.get(f"/api/public/{body['public']}")).json()
    assert "allowed" not in json.dumps(public)
