"""What the bot's HTTP server answers before any route can (the webhook, /healthz and
the live protocol alike): a request its parser refuses, and a body over the limit.

aiohttp answers a request it cannot parse with 400 and logs the parser's traceback
(``RequestHandler.handle_error``), then closes the connection at once: a client still
sending (a 1 MB header) is reset, often before it reads the answer. The server's
connections here are ``Connection``s instead: a header over the limit (aiohttp's
``max_field_size`` and ``max_line_size``, 8190 bytes) or too many headers get 431, any
other malformed request or body 400, each with one log line and no traceback; then
what the client still sends is read and dropped (until it stops, closes, or ``LINGER``
seconds passed) before the connection closes, so the answer reaches it. A body
declared over ``MAX_BODY`` gets 413 before any handler reads it (``bounded_body``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong

log = logging.getLogger(__name__)

MAX_BODY = 1024**2  # bytes of a request's body (aiohttp's default, said once here)
LINGER = 5.0  # seconds at most of dropping what a refused client still sends
QUIET = 0.5  # ... and once it has sent nothing for this long, it is done


def refusal(exc: BaseException | None) -> tuple[int, str] | None:
    """The status and the log's reason for a request refused by the parser (its head,
    or its body while a handler reads it) or cut short by its client; None for any
    other failure."""
    if isinstance(exc, LineTooLong):
        return 431, f"a request line or header over {exc.args[1]} bytes"
    if isinstance(exc, HttpProcessingError):
        if exc.message.startswith("Too many headers"):
            return 431, "too many headers"
        return 400, f"{type(exc).__name__}: {_first_line(exc.message)}"
    if isinstance(exc, web.RequestPayloadError):
        return 400, f"a malformed body: {_first_line(str(exc))}"
    if isinstance(exc, ConnectionError):  # while its handler read the body
        return 400, "the client left before its request was read"
    return None


def _first_line(text: str) -> str:
    """The start of what the parser says (it quotes what it got: not the whole of it)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:80] + ("…" if len(line) > 80 else "")


class Connection(web.RequestHandler):
    """One connection of the bot's HTTP server: aiohttp's, but for its refusals."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._dropping = False  # refused: what comes next is read and dropped
        self._heard = 0.0  # the loop's time of the last bytes dropped
        self._gone = asyncio.Event()  # the client closed its side

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        refused = refusal(exc)
        if refused is None or request.writer.output_size > 0:
            return super().handle_error(request, status, exc, message)
        status, reason = refused
        log.info("HTTP %d to %s: %s", status, request.remote, reason)
        self._dropping = True
        self._heard = asyncio.get_running_loop().time()
        if self.transport is not None and not self.transport.is_reading():
            self.transport.resume_reading()  # paused by aiohttp's queue of requests
        response = web.Response(status=status, text=f"{status} {HTTPStatus(status).phrase}\n")
        response.force_close()
        return response

    def data_received(self, data: bytes) -> None:
        if self._dropping:
            self._heard = asyncio.get_running_loop().time()
            return
        super().data_received(data)

    def eof_received(self) -> None:
        self._gone.set()
        super().eof_received()

    def connection_lost(self, exc: BaseException | None) -> None:
        self._gone.set()
        super().connection_lost(exc)

    async def finish_response(
        self, request: web.BaseRequest, resp: web.StreamResponse, start_time: float | None
    ) -> tuple[web.StreamResponse, bool]:
        finished = await super().finish_response(request, resp, start_time)
        if self._dropping:
            await self._linger()
        return finished

    async def _linger(self) -> None:
        """Drop what the refused client still sends until it closes, stops for
        ``QUIET`` seconds or ``LINGER`` seconds passed: closed with unread data, the
        connection would be reset under the answer."""
        loop = asyncio.get_running_loop()
        until = loop.time() + LINGER
        while not self._gone.is_set():
            left = min(self._heard + QUIET, until) - loop.time()
            if left <= 0:
                return
            try:
                await asyncio.wait_for(self._gone.wait(), left)
            except TimeoutError:
                continue


class _Server(web.Server):
    """aiohttp's server, its connections ``Connection``s."""

    def __call__(self) -> web.RequestHandler:
        return Connection(self, loop=self._loop, **self._kwargs)


class Runner(web.AppRunner):
    """``web.AppRunner`` serving with ``Connection``s (aiohttp has no setting for the
    connections' class: the application's server is made again as a ``_Server``)."""

    async def _make_server(self) -> web.Server:
        made = await super()._make_server()
        return _Server(made.request_handler, request_factory=made.request_factory,
                       handler_cancellation=made.handler_cancellation, loop=made._loop,
                       **made._kwargs)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def bounded_body(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A body declared over ``MAX_BODY`` is refused (413) before any handler; aiohttp
    reads and drops it after the answer. (A body without its length is held to the
    application's ``client_max_size`` when a handler reads it: 413 as well.)"""
    size = request.content_length
    if size is not None and size > MAX_BODY:
        log.info("HTTP 413 to %s: a body of %d bytes (at most %d)", request.remote, size,
                 MAX_BODY)
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=size)
    return await handler(request)
