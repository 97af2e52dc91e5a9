"""Requests too large or malformed, written on a raw socket to the bot's real HTTP server
(``bot.web.server.start_server``: /healthz, the webhook and the live protocol): each gets its
4xx (431 for a header over aiohttp's 8190 bytes, 413 for a body over 1 MiB, 400 for a
malformed request) whole, before the connection closes, and at most one log line,
without a traceback. The webhook and the live API still work on the next request."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

import pytest

from bot.config import Settings
from bot.db import Database
from bot.web.bad_requests import MAX_BODY
from bot.web.server import WebhookHandler, start_server
from tests.support import BotHarness
from tests.support.telegram import BOT_TOKEN
from tests.support.webapp import INIT_HEADER, headers
from tests.web.test_live_api import live_app

HOOK = "/tg/webhook"
SECRET = "s3cret"
ROUTES = ("/healthz", HOOK, "/api/live/NoSuchToken0123456789", "/live/x")


@pytest.fixture
async def port(harness: BotHarness, db: Database, settings: Settings) -> AsyncIterator[int]:
    """The bot's server on a free loopback port, serving the webhook too."""
    app = live_app(harness, db, settings)
    WebhookHandler(harness.dispatcher, harness.bot, secret_token=SECRET).register(app, path=HOOK)
    runner = await start_server(app, "127.0.0.1", 0)
    try:
        yield int(runner.addresses[0][1])
    finally:
        await runner.cleanup()


async def exchange(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """``request`` written whole, as a client does before it reads; the answer's status
    line, headers and body. The connection is closed by the client once it has read."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        fields = dict(line.split(": ", 1) for line in head[1:] if line)
        body = await reader.readexactly(int(fields.get("Content-Length", "0")))
    finally:
        writer.close()
    return head[0], fields, body


def get(path: str, *lines: bytes) -> bytes:
    return b"GET " + path.encode() + b" HTTP/1.1\r\nHost: bot\r\n" + b"".join(
        line + b"\r\n" for line in lines) + b"\r\n"


def logged(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith(("aiohttp", "bot", "aiogram"))]


def one_line_without_traceback(caplog: pytest.LogCaptureFixture, status: int) -> None:
    [record] = logged(caplog)
    assert record.exc_info is None and "Traceback" not in caplog.text, caplog.text
    assert record.getMessage().startswith(f"HTTP {status} to 127.0.0.1: ")
    caplog.clear()


@pytest.mark.parametrize("size", [16 * 1024, 1024**2], ids=["16 kB", "1 MB"])
async def test_a_header_over_the_limit_is_431_on_every_route(
    port: int, size: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    for path in ROUTES:
        status, _fields, body = await exchange(port, get(path, INIT_HEADER.encode() + b": "
                                                         + b"a" * size))
        assert status.endswith(" 431 Request Header Fields Too Large"), (path, status)
        assert body == b"431 Request Header Fields Too Large\n"
        one_line_without_traceback(caplog, 431)
    # Too many headers, and a request line over the limit, alike.
    many = [b"X-%d: 1" % n for n in range(200)]
    assert (await exchange(port, get("/healthz", *many)))[0].endswith(" 431 Request Header "
                                                                      "Fields Too Large")
    one_line_without_traceback(caplog, 431)
    assert " 431 " in (await exchange(port, get("/" + "a" * 9000)))[0]
    one_line_without_traceback(caplog, 431)


async def test_a_malformed_request_is_400(port: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for request in (
        get("/healthz", b"Bad Header"),
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 TLS on the HTTP port\r\n\r\n",
        b"POST " + HOOK.encode() + b" HTTP/1.1\r\nHost: bot\r\nTransfer-Encoding: chunked\r\n"
        b"X-Telegram-Bot-Api-Secret-Token: " + SECRET.encode() + b"\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    ):
        status, _fields, _body = await exchange(port, request)
        assert status.endswith(" 400 Bad Request"), (request[:40], status)
        one_line_without_traceback(caplog, 400)


def post(path: str, body: bytes, *lines: bytes) -> bytes:
    return (b"POST " + path.encode() + b" HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json"
            b"\r\nContent-Length: %d\r\n" % len(body)
            + b"".join(line + b"\r\n" for line in lines) + b"\r\n" + body)


async def test_a_body_over_the_limit_is_413_and_the_api_still_answers_json(
    port: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    body = b"[" + b" " * (2 * MAX_BODY) + b"]"
    secret = b"X-Telegram-Bot-Api-Secret-Token: " + SECRET.encode()
    judge = INIT_HEADER.encode() + b": " + headers(BOT_TOKEN, 1)[INIT_HEADER].encode()
    for path, line in ((HOOK, secret), ("/healthz", secret),
                       ("/api/live/NoSuchToken0123456789/events", judge)):
        status, fields, answer = await exchange(port, post(path, body, line))
        assert status.endswith(" 413 Request Entity Too Large"), (path, status)
        if path.startswith("/api/"):  # every answer of the API is JSON, in his language
            assert fields["Content-Type"].startswith("application/json")
            assert json.loads(answer) == {
                "error": "The request is too large: send fewer events at a time."}
        one_line_without_traceback(caplog, 413)
    # Sent without its length, the webhook's body is held to the same limit.
    chunked = (b"POST " + HOOK.encode() + b" HTTP/1.1\r\nHost: bot\r\n" + secret
               + b"\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(body) + body
               + b"\r\n0\r\n\r\n")
    assert " 413 " in (await exchange(port, chunked))[0]
    assert len(logged(caplog)) <= 1 and "Traceback" not in caplog.text
    # The server goes on: the webhook takes an update, /healthz answers.
    update = json.dumps({"update_id": 1, "message": {
        "message_id": 1, "date": 0, "chat": {"id": 5, "type": "private"},
        "from": {"id": 5, "is_bot": False, "first_name": "A"}, "text": "/help"}}).encode()
    assert (await exchange(port, post(HOOK, update, secret)))[0].endswith(" 200 OK")
    # (Its report: 503 here, as no Telegram has answered this test server.)
    assert (await exchange(port, get("/healthz")))[0].split()[1] in ("200", "503")


async def test_a_client_still_sending_after_the_answer_is_not_reset(port: int) -> None:
    """A slow client's 1 MB header: the server answers 431 after its first part, and
    reads and drops the rest the client still sends instead of resetting the
    connection under it (a browser would report the reset, not the answer)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: bot\r\n" + INIT_HEADER.encode() + b": "
                     + b"a" * (64 * 1024))
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 431 Request Header Fields Too Large\r\n")
        for _ in range(16):  # the rest of the megabyte, as it comes
            writer.write(b"a" * (64 * 1024))
            await writer.drain()
        writer.write(b"\r\n\r\n")
        await writer.drain()
        writer.write_eof()
        assert await reader.read() == b"431 Request Header Fields Too Large\n"
    finally:
        writer.close()
