"""The shared Telegram model (``tests/support/tg_model.py``) served over HTTP for e2e tests.

`FakeTelegram` serves `/bot<token>/<method>` on 127.0.0.1 for one bot token: the real bot
process (and `bench/`) talk to it as to api.telegram.org. The model keeps the world --
users, chats, messages and the queue of unconfirmed updates -- lets a test act as the
users and shows what the bot did:

    fake = FakeTelegram(token, time_scale=0.05)  # or the `fake_telegram` fixture
    await fake.start()                        # base_url -> TELEGRAM_API_URL
    anna = fake.create_user("Anna", "anna")
    chat = fake.start_private(anna)           # Anna pressed Start
    mark = fake.seq
    fake.send_text(anna, chat, "/start")      # queued for the bot's getUpdates
    msg = await fake.wait_for_message(chat, "Hello", after=mark)
    fake.tap(anna, msg, "Join")               # a button the bot really sent
    await fake.wait_for_callback_answer()
    fake.assert_no_errors()

Over HTTP come: envelopes and HTTP codes, form/JSON/multipart bodies, getUpdates long
polling with confirmation by offset (unconfirmed updates are redelivered; a newer poll
ends the pending one with 409), a webhook (setWebhook: each update POSTed with the
secret token until the bot answers 200; getUpdates refused meanwhile, as Telegram
does; deleteWebhook goes back), the log of every request, `hold()` to keep chosen
requests waiting (a slow network, a moment to kill the bot in) and `restart()` for an
outage. ``time_scale`` shrinks the flood limits' periods (the bot gets the same
``FLOOD_SCALE``); ``retry_after`` answers stay whole seconds. ``latency`` is the round
trip of a real network (api.telegram.org is about 0.1 s away): half of it passes before
a request is handled (its arrival, when the limits count it), half before its answer.
"""

# The wait helpers take `timeout=` on purpose: it is the harness API tests call.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from tests.support.tg_model import (
    API_METHODS,
    JSON,
    ApiError,
    CallbackAnswer,
    Chat,
    FloodEvent,
    FloodViolation,
    Limits,
    Params,
    Request,
    StoredFile,
    StoredMessage,
    Telegram,
    UploadedFile,
    User,
    decode_params,
)

T = TypeVar("T")

__all__ = [
    "JSON",
    "ApiError",
    "ApiRequest",
    "CallbackAnswer",
    "Chat",
    "FakeTelegram",
    "FloodEvent",
    "FloodViolation",
    "Hold",
    "Limits",
    "StoredFile",
    "StoredMessage",
    "User",
    "WebhookPost",
    "make_token",
]

DOCUMENT_LIMIT = 50 * 1024 * 1024
_DEFAULT_LIMITS = Limits()


def make_token(bot_id: int = 123456) -> str:
    """A well-formed, unique fake token; the part after ':' is the 'secret'."""
    return f"{bot_id}:TEST-TOKEN-{secrets.token_hex(12)}"


@dataclass(eq=False)
class ApiRequest:
    """One request the bot made (logged on arrival, completed on answer)."""

    method: str
    params: JSON
    files: dict[str, UploadedFile]
    time: float  # the model's clock at arrival
    chat_id: int | str | None
    status: int | None = None
    response: JSON | None = None
    finished: float | None = None
    cancelled: bool = False  # the client went away before the answer (e.g. killed bot)

    @property
    def ok(self) -> bool:
        return bool(self.response and self.response.get("ok"))

    @property
    def description(self) -> str | None:
        return None if self.response is None else self.response.get("description")

    def __repr__(self) -> str:
        outcome = "cancelled" if self.cancelled else "pending" if self.response is None else (
            "ok" if self.ok else f"{self.status} {self.description}")
        return f"<{self.method} chat={self.chat_id} -> {outcome}>"


@dataclass(frozen=True)
class WebhookPost:
    """One POST of an update to the bot's webhook: the HTTP status, None if the bot
    did not answer (connection refused or cut)."""

    update_id: int
    status: int | None
    time: float


@dataclass(eq=False)
class Hold:
    """Requests the fake keeps waiting before handling them (see ``FakeTelegram.hold``).

    A held request is answered after ``release()``. ``drop()`` instead is what a crash
    of the bot does to its requests in flight: they are never handled nor answered
    (``ApiRequest.cancelled``); a held getUpdates has not confirmed its offset.
    """

    method: str
    chat_id: int | None
    predicate: Callable[[ApiRequest], bool] | None
    held: list[ApiRequest] = field(default_factory=list)
    dropped: bool = False
    _released: asyncio.Event = field(default_factory=asyncio.Event)

    def matches(self, record: ApiRequest) -> bool:
        return (not self._released.is_set() and record.method == self.method
                and self.chat_id in (None, record.chat_id)
                and (self.predicate is None or self.predicate(record)))

    @property
    def released(self) -> bool:
        return self._released.is_set()

    def release(self) -> None:
        """Let the held requests (and any later ones) through."""
        self._released.set()

    def drop(self) -> None:
        """The bot died: its held requests are never handled; later ones pass."""
        self.dropped = True
        self._released.set()


class FakeTelegram(Telegram):
    """The Telegram model behind a local Bot API server for one bot token."""

    def __init__(
        self,
        token: str | None = None,
        *,
        bot_username: str = "fake_test_bot",
        bot_first_name: str = "Test Bot",
        limits: Limits | None = _DEFAULT_LIMITS,
        time_scale: float = 1.0,
        privacy_mode: bool = True,
        callback_query_ttl: float | None = None,
        host: str = "127.0.0.1",
        latency: float = 0.0,
    ) -> None:
        self.token = token or make_token()
        super().__init__(
            bot_id=int(self.token.split(":", 1)[0]), bot_username=bot_username,
            bot_first_name=bot_first_name,
            limits=None if limits is None else replace(limits, time_scale=time_scale),
            privacy_mode=privacy_mode, callback_query_ttl=callback_query_ttl)
        self.host = host
        self.latency = latency
        self.requests: list[ApiRequest] = []
        self.internal_errors: list[str] = []  # bugs of this fake: fixtures fail on them
        self.deliveries: dict[int, int] = {}  # update_id -> times returned by getUpdates
        self._holds: list[Hold] = []
        self._inflight = 0
        self._polling = 0
        self._poll_generation = 0
        self._last_activity = self.clock()
        self._wake = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        # The webhook (setWebhook): where and with which secret updates are POSTed.
        self.webhook_url: str | None = None
        self.webhook_secret: str | None = None
        self.webhook_posts: list[WebhookPost] = []
        # Like Telegram: several updates on their way at once, a failed one sent again.
        self.webhook_connections = 40
        self.webhook_retry = 0.1
        self._webhook_task: asyncio.Task[None] | None = None
        self._webhook_sending: set[int] = set()
        self._webhook_posting: set[asyncio.Task[None]] = set()
        self._client: aiohttp.ClientSession | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeTelegram:
        await self._serve(0)
        return self

    async def _serve(self, port: int) -> None:
        app = web.Application(client_max_size=DOCUMENT_LIMIT + 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        app.router.add_route("*", "/{tail:.*}", self._handle_unknown_path)
        self._runner = web.AppRunner(app, handler_cancellation=True, access_log=None,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, port)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def restart(self, *, down: float = 0.0,
                      until: Callable[[], bool] | None = None) -> None:
        """An outage: the server goes away (connections refused, long polls cut) for
        `down` seconds, or until `until()` says so (e.g. the bot logged a refused
        connection), then serves again on the same port; the world and the unconfirmed
        updates stay."""
        port = self.port
        self._closing = True
        self._wake_pollers()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await asyncio.sleep(down)
        if until is not None:
            await self.wait_until(until, timeout=30, what="the end of the outage")
        self._closing = False
        await self._serve(port)

    async def stop(self) -> None:
        self._closing = True
        for hold in self._holds:
            hold.release()
        self._wake_pollers()
        await self._stop_webhook()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # ------------------------------------------------------------------ HTTP layer

    @staticmethod
    def _json(status: int, body: JSON) -> web.Response:
        return web.json_response(body, status=status)

    async def _handle_unknown_path(self, request: web.Request) -> web.Response:
        return self._json(404, {"ok": False, "error_code": 404, "description": "Not Found"})

    async def _read_params(self, request: web.Request) -> Params:
        raw: JSON = dict(request.query)
        files: dict[str, UploadedFile] = {}
        if request.can_read_body:
            ctype = request.content_type
            try:
                if ctype == "application/json":
                    body = await request.json()
                    if not isinstance(body, dict):
                        raise ApiError.bad_request("parameters must be a JSON object")
                    raw.update(body)
                elif ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
                    form = await request.post()
                    for key, value in form.items():
                        if isinstance(value, web.FileField):
                            files[key] = UploadedFile(key, value.filename, value.content_type,
                                                      value.file.read())
                        else:
                            raw[key] = value
            except web.HTTPRequestEntityTooLarge:
                raise ApiError(413, "Request Entity Too Large") from None
            except (ValueError, UnicodeDecodeError):
                raise ApiError.bad_request("can't parse request body") from None
        return Params(decode_params(raw), files)

    async def _handle_api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return self._json(401, {"ok": False, "error_code": 401,
                                    "description": "Unauthorized"})
        method = API_METHODS.get(request.match_info["method"].lower())
        if method is None:
            return self._json(404, {"ok": False, "error_code": 404, "description": "Not Found"})
        long_poll = method == "getUpdates"
        if not long_poll:
            self._inflight += 1
            self._touch()
        if self.latency:
            try:
                await asyncio.sleep(self.latency / 2)  # on its way here
            except asyncio.CancelledError:
                if not long_poll:
                    self._inflight -= 1
                raise
        record = ApiRequest(method, {}, {}, self.clock(), None)
        self.requests.append(record)
        try:
            try:
                params = await self._read_params(request)
                record.params, record.files = params.data, params.files
                record.chat_id = params.data.get("chat_id")
                status, body = await self._dispatch(method, params, record)
            except ApiError as exc:
                status, body = exc.error_code, exc.body()
        except asyncio.CancelledError:
            record.cancelled, record.finished = True, self.clock()
            raise
        finally:
            if not long_poll:
                self._inflight -= 1
                self._touch()
        record.status, record.response, record.finished = status, body, self.clock()
        if self.latency:
            await asyncio.sleep(self.latency / 2)  # the answer on its way back
        return self._json(status, body)

    async def _dispatch(self, method: str, params: Params,
                        record: ApiRequest) -> tuple[int, JSON]:
        try:
            for hold in list(self._holds):
                if hold.matches(record):
                    hold.held.append(record)
                    await hold._released.wait()
                    if hold.dropped:
                        raise asyncio.CancelledError  # the client is gone: never handled
            if method == "getUpdates":
                if self.webhook_url:
                    raise ApiError(409, "Conflict: can't use getUpdates method while webhook "
                                        "is active; use deleteWebhook to delete the webhook "
                                        "first")
                self.admit(Request(method, params))
                result: Any = await self._long_poll(params)
            else:
                result = self.call(method, params)
            return 200, {"ok": True, "result": result}
        except ApiError as exc:
            return exc.error_code, exc.body()
        except asyncio.CancelledError:
            raise
        except Exception:
            self.internal_errors.append(traceback.format_exc())
            return 500, {"ok": False, "error_code": 500, "description": "Internal Server Error"}

    def _touch(self) -> None:
        self._last_activity = self.clock()

    # ------------------------------------------------------------------ holds

    def hold(self, method: str, *, chat: Chat | int | None = None,
             predicate: Callable[[ApiRequest], bool] | None = None) -> Hold:
        """Keep the bot's next calls of `method` (in `chat`, matching `predicate`) waiting
        until `Hold.release()`: a slow network, or a moment to kill the bot in. Wait for
        them with `wait_held`."""
        canonical = API_METHODS.get(method.lower(), method)
        chat_id = None if chat is None else self._chat_of(chat).id
        hold = Hold(canonical, chat_id, predicate)
        self._holds.append(hold)
        return hold

    async def wait_held(self, hold: Hold, count: int = 1, *,
                        timeout: float = 10.0) -> ApiRequest:
        """Wait until `count` requests are held by `hold`; returns the latest."""
        await self.wait_until(lambda: len(hold.held) >= count, timeout=timeout,
                              what=f"{count} held {hold.method} request(s)")
        return hold.held[-1]

    # ------------------------------------------------------------------ updates: long polling

    def _on_update(self) -> None:
        self._touch()
        self._wake_pollers()

    def _wake_pollers(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    @property
    def is_polling(self) -> bool:
        return self._polling > 0

    def revoke_token(self) -> None:
        """/revoke in @BotFather: every request with the old token is refused, a pending
        long poll at once."""
        self.token = make_token(self.bot_id)
        self._wake_pollers()

    async def _long_poll(self, p: Params) -> list[JSON]:
        """getUpdates: confirm by offset, then wait up to `timeout` s for updates."""
        timeout = max(p.integer("timeout") or 0, 0)
        token = self.token
        batch = self._api_getUpdates(p)
        # Like Telegram, a newer getUpdates terminates the pending one.
        self._poll_generation += 1
        generation = self._poll_generation
        self._wake_pollers()
        deadline = self.clock() + timeout
        self._polling += 1
        try:
            while not batch:
                remaining = deadline - self.clock()
                if self._closing or remaining <= 0:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), remaining)
                if token != self.token:
                    raise ApiError(401, "Unauthorized")
                if generation != self._poll_generation:
                    raise ApiError(409, "Conflict: terminated by other getUpdates request; "
                                        "make sure that only one bot instance is running")
                batch = self._api_getUpdates(Params({"limit": p.integer("limit")}))
        finally:
            self._polling -= 1
        if batch:
            self._touch()
            for update in batch:
                uid = update["update_id"]
                self.deliveries[uid] = self.deliveries.get(uid, 0) + 1
        return batch

    # ------------------------------------------------------------------ updates: webhook

    def _api_setWebhook(self, p: Params) -> bool:
        url = p.text("url") or ""
        if not url:
            return self._api_deleteWebhook(p)
        if not url.startswith(("https://", f"http://{self.host}:")):
            raise ApiError.bad_request("bad webhook: HTTPS url must be provided for webhook")
        allowed = p.obj("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = {str(a) for a in allowed} or None
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        self.webhook_url, self.webhook_secret = url, p.text("secret_token")
        if self._webhook_task is None or self._webhook_task.done():
            self._webhook_task = asyncio.create_task(self._webhook_loop())
        self._wake_pollers()
        return True

    def _api_deleteWebhook(self, p: Params) -> bool:
        self.webhook_url = self.webhook_secret = None
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        self._wake_pollers()
        return True

    def _api_getWebhookInfo(self, p: Params) -> JSON:
        return {"url": self.webhook_url or "", "has_custom_certificate": False,
                "pending_update_count": len(self._updates)}

    async def _webhook_loop(self) -> None:
        self._client = self._client or aiohttp.ClientSession()
        while self.webhook_url and not self._closing:
            free = self.webhook_connections - len(self._webhook_sending)
            waiting = [u for u in self._updates if u["update_id"] not in self._webhook_sending]
            for update in waiting[:max(free, 0)]:
                self._webhook_sending.add(update["update_id"])
                task = asyncio.create_task(self._post_update(self.webhook_url, update))
                self._webhook_posting.add(task)
                task.add_done_callback(self._webhook_posting.discard)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.webhook_retry)

    async def _post_update(self, url: str, update: JSON) -> None:
        uid = update["update_id"]
        headers = {"X-Telegram-Bot-Api-Secret-Token": self.webhook_secret or ""}
        status: int | None = None
        reached = True
        try:
            assert self._client is not None
            async with self._client.post(url, json=update, headers=headers,
                                         timeout=aiohttp.ClientTimeout(total=60)) as answer:
                status, body = answer.status, await answer.read()
            if status == 200 and body.strip() not in (b"", b"{}"):
                self.internal_errors.append(f"webhook answer with a method: {body[:200]!r}")
        except aiohttp.ClientConnectorError:  # nobody listens: the update never left
            reached = False
        except (aiohttp.ClientError, TimeoutError):  # cut off (a killed bot)
            pass
        except Exception:
            self.internal_errors.append(traceback.format_exc())
        try:
            self.webhook_posts.append(WebhookPost(uid, status, self.clock()))
            if reached:
                self.deliveries[uid] = self.deliveries.get(uid, 0) + 1
            if status == 200:
                self._updates = [u for u in self._updates if u["update_id"] != uid]
                self._touch()
            else:
                await asyncio.sleep(self.webhook_retry)
        finally:
            self._webhook_sending.discard(uid)
            self._wake_pollers()

    async def _stop_webhook(self) -> None:
        tasks = [t for t in (self._webhook_task, *self._webhook_posting) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._client is not None:
            await self._client.close()
            self._client = None

    # ------------------------------------------------------------------ assertions API

    def calls(self, method: str | None = None, *,
              chat: Chat | int | None = None) -> list[ApiRequest]:
        """Logged requests, optionally by method (any case) and chat."""
        name = None if method is None else API_METHODS.get(method.lower(), method)
        chat_id = None if chat is None else self._chat_of(chat).id
        return [r for r in self.requests if (name is None or r.method == name)
                and (chat_id is None or r.chat_id == chat_id)]

    def errors(self) -> list[ApiRequest]:
        """Requests answered with an error (429s included)."""
        return [r for r in self.requests if r.response is not None and not r.ok]

    def assert_no_errors(self, *, allow: Iterable[str] = ()) -> None:
        """Fail if the bot got error answers, except descriptions containing an `allow` item."""
        allowed = tuple(allow)
        bad = [r for r in self.errors()
               if not any(a in (r.description or "") for a in allowed)]
        if bad:
            raise AssertionError("the bot got error answers:\n" + "\n".join(map(repr, bad)))

    def delivery_count(self, update: JSON | int) -> int:
        """How many times getUpdates returned this update (>1 means redelivered)."""
        uid = update if isinstance(update, int) else update["update_id"]
        return self.deliveries.get(uid, 0)

    # ------------------------------------------------------------------ waiting

    async def wait_until(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float = 10.0,
        what: str = "condition",
        interval: float = 0.01,
    ) -> T:
        """Poll `predicate` until it returns something truthy; AssertionError on timeout."""
        deadline = self.clock() + timeout
        while True:
            if self.internal_errors:
                raise AssertionError("FakeTelegram internal error:\n" + self.internal_errors[-1])
            result = predicate()
            if result:
                return result
            if self.clock() >= deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            await asyncio.sleep(interval)

    def _describe_chat(self, chat: Chat) -> str:
        lines = [f"bot messages in chat {chat.id}:"]
        lines += [f"  {m!r}" for m in self.messages(chat, include_deleted=True)] or ["  (none)"]
        lines.append(f"pending updates: {len(self._updates)}, bot polling now: "
                     f"{self.is_polling}, dropped by allowed_updates: "
                     f"{len(self.dropped_updates)}")
        errors = self.errors()[-5:]
        if errors:
            lines.append("latest error answers: " + ", ".join(map(repr, errors)))
        return "\n".join(lines)

    async def wait_for_message(
        self,
        chat: Chat | int,
        match: str | re.Pattern[str] | Callable[[StoredMessage], bool] | None = None,
        *,
        timeout: float = 10.0,
        after: int | None = None,
    ) -> StoredMessage:
        """Wait until the bot has sent or edited a message in `chat` matching `match`
        (substring of text/caption, regex, or predicate). With `after=fake.seq` taken
        before an action, only messages sent/edited after it count."""
        chat = self._chat_of(chat)

        def matches(m: StoredMessage) -> bool:
            if after is not None and m.updated_seq <= after:
                return False
            if match is None:
                return True
            if isinstance(match, str):
                return match in m.content
            if isinstance(match, re.Pattern):
                return match.search(m.content) is not None
            return bool(match(m))

        def find() -> StoredMessage | None:
            return next((m for m in reversed(self.messages(chat)) if matches(m)), None)

        try:
            return await self.wait_until(find, timeout=timeout,
                                         what=f"a bot message matching {match!r}")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self._describe_chat(chat)}") from None

    async def wait_for_callback_answer(self, query: JSON | str | None = None, *,
                                       timeout: float = 10.0) -> CallbackAnswer:
        """Wait for answerCallbackQuery of `query` (default: the latest tap)."""
        query_id = query["id"] if isinstance(query, dict) else (query or self._last_tap)
        if query_id is None:
            raise AssertionError("no callback query was sent")
        return await self.wait_until(
            lambda: next((a for a in self.callback_answers if a.query_id == query_id), None),
            timeout=timeout, what=f"answerCallbackQuery for {query_id}")

    async def wait_for_request(self, method: str, *, since: int = 0,
                               predicate: Callable[[ApiRequest], bool] | None = None,
                               timeout: float = 10.0) -> ApiRequest:
        """Wait for a request of `method` logged at index >= since (see len(requests))."""
        name = API_METHODS.get(method.lower(), method)
        return await self.wait_until(
            lambda: next((r for r in self.requests[since:] if r.method == name
                          and (predicate is None or predicate(r))), None),
            timeout=timeout, what=f"a {name} request")

    async def wait_idle(self, idle: float = 0.3, *, timeout: float = 10.0) -> None:
        """Wait until every update is confirmed and the bot made no request for `idle` s."""
        def is_idle() -> bool:
            return (not self._updates and self._inflight == 0
                    and self.clock() - self._last_activity >= idle)

        await self.wait_until(is_idle, timeout=timeout,
                              what=f"the bot to be idle (pending updates: {len(self._updates)})")
