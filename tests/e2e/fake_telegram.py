"""A local fake of the Telegram Bot API server for end-to-end tests.

`FakeTelegram` serves `/bot<token>/<method>` (and `/file/bot<token>/<path>`) on 127.0.0.1
for one bot token. It keeps a simulated Telegram in memory -- users, chats, messages and
the queue of unconfirmed updates -- lets a test act as the users and shows what the bot did:

    fake = FakeTelegram(token)                # or the `fake_telegram` fixture
    await fake.start()                        # base_url -> TELEGRAM_API_URL
    anna = fake.create_user("Anna", "anna")
    chat = fake.start_private(anna)           # Anna pressed Start
    mark = fake.seq
    fake.send_text(anna, chat, "/start")      # queued for the bot's getUpdates
    msg = await fake.wait_for_message(chat, "Hello", after=mark)
    fake.tap(anna, msg, "Join")               # a button the bot really sent
    await fake.wait_for_callback_answer()
    fake.assert_no_errors()

Behaviour follows https://core.telegram.org/bots/api: envelopes and HTTP codes, error
descriptions, getUpdates long polling with confirmation by offset (unconfirmed updates are
redelivered), allowed_updates, privacy mode in groups, flood limits with 429 retry_after.
`hold()` keeps chosen requests waiting (a slow network, a moment to kill the bot in).
Not emulated: inline mode, payments, webhooks' delivery, channels, forum topics, media
other than photos/documents, also in albums (such calls answer 501 and are listed in
`unsupported_calls`; other real methods returning True just answer ok).
"""

# The wait helpers take `timeout=` on purpose: it is the harness API tests call.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import io
import itertools
import json
import math
import mimetypes
import re
import secrets
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import aiogram.methods
from aiohttp import web

from .tg_formatting import EntityParseError, normalize_entities, parse_text, strip_text, utf16_len

JSON = dict[str, Any]
T = TypeVar("T")

__all__ = [
    "ApiError",
    "ApiRequest",
    "CallbackAnswer",
    "Chat",
    "FakeTelegram",
    "FloodEvent",
    "FloodLimits",
    "FloodViolation",
    "Hold",
    "StoredFile",
    "StoredMessage",
    "User",
    "make_token",
]


def _method_table() -> tuple[dict[str, str], frozenset[str]]:
    """Real Bot API method names (lower-case -> canonical) and those returning True."""
    names: dict[str, str] = {}
    returns_bool: set[str] = set()
    for attr in aiogram.methods.__all__:
        cls = getattr(aiogram.methods, attr)
        api = cls.__dict__.get("__api_method__") if isinstance(cls, type) else None
        if isinstance(api, str):
            names[api.lower()] = api
            if cls.__dict__.get("__returning__") is bool:
                returns_bool.add(api)
    return names, frozenset(returns_bool)


API_METHODS, BOOL_METHODS = _method_table()

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
CALLBACK_DATA_LIMIT = 64
CALLBACK_TEXT_LIMIT = 200
DOCUMENT_LIMIT = 50 * 1024 * 1024
EXCLUDED_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
CHAT_ACTIONS = frozenset({
    "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
    "upload_document", "choose_sticker", "find_location", "record_video_note",
    "upload_video_note",
})
_BUTTON_KINDS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)
# Form fields are strings; these are decoded like Telegram decodes them.
_JSON_PARAMS = frozenset({
    "reply_markup", "entities", "caption_entities", "allowed_updates", "commands", "scope",
    "menu_button", "link_preview_options", "reply_parameters", "media", "results",
    "permissions", "rights", "reaction", "message_ids", "explanation_entities", "options",
})
_INT_PARAMS = frozenset({
    "chat_id", "from_chat_id", "message_id", "offset", "limit", "timeout", "user_id",
    "reply_to_message_id", "message_thread_id", "cache_time", "until_date", "width", "height",
    "duration", "sender_chat_id",
})
_BOOL_PARAMS = frozenset({
    "disable_notification", "protect_content", "show_alert", "drop_pending_updates",
    "disable_web_page_preview", "allow_sending_without_reply", "is_personal", "only_if_banned",
    "revoke_messages", "has_spoiler", "show_caption_above_media", "allow_paid_broadcast",
    "disable_content_type_detection", "for_channels", "is_anonymous",
})
_ADMIN_RIGHTS: JSON = {
    "can_be_edited": False, "is_anonymous": False, "can_manage_chat": True,
    "can_delete_messages": True, "can_manage_video_chats": True, "can_restrict_members": True,
    "can_promote_members": False, "can_change_info": True, "can_invite_users": True,
    "can_post_stories": False, "can_edit_stories": False, "can_delete_stories": False,
    "can_send_welcome_messages": False, "can_pin_messages": True, "can_manage_topics": False,
}
_COMMAND_RE = re.compile(r"(?<![\w/@])/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{3,32}))?(?![\w/])")
_MENTION_RE = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}(?!\w)")
_URL_RE = re.compile(r"\bhttps?://[^\s<>\"']+")


ANONYMOUS_ADMIN_ID = 1087968824  # @GroupAnonymousBot, the sender of anonymous admins


def make_token(bot_id: int = 123456) -> str:
    """A well-formed, unique fake token; the part after ':' is the 'secret'."""
    return f"{bot_id}:TEST-TOKEN-{secrets.token_hex(12)}"


def _now() -> float:
    return time.monotonic()


def _unix(date: datetime | int | float | None = None) -> int:
    if date is None:
        return int(time.time())
    if isinstance(date, datetime):
        return int(date.timestamp())
    return int(date)


class ApiError(Exception):
    """A Bot API error answer: HTTP status = error_code."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> JSON:
        body: JSON = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def _bad(description: str, parameters: JSON | None = None) -> ApiError:
    return ApiError(400, f"Bad Request: {description}", parameters)


def _forbidden(description: str) -> ApiError:
    return ApiError(403, f"Forbidden: {description}")


# ------------------------------------------------------------------------------- world model


@dataclass(eq=False)
class User:
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = "ru"
    is_bot: bool = False
    # Simulation state of the user's private chat with the bot.
    started: bool = False
    blocked_bot: bool = False
    deactivated: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_api(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(eq=False)
class Chat:
    id: int
    type: str  # "private" | "group" | "supergroup"
    title: str | None = None
    username: str | None = None
    user: User | None = None  # the other side of a private chat
    members: dict[int, str] = field(default_factory=dict)  # user id -> status
    bot_status: str = "member"  # member | administrator | left | kicked
    migrated_to: int | None = None
    migrated_from: int | None = None
    chat_instance: str = field(default_factory=lambda: str(secrets.randbits(62)))
    next_message_id: int = 1
    reply_keyboard: JSON | None = None  # last ReplyKeyboardMarkup the bot showed

    @property
    def is_private(self) -> bool:
        return self.type == "private"

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def to_api(self) -> JSON:
        if self.user is not None:
            data: JSON = {"id": self.id, "type": "private"}
            data.update({k: v for k, v in self.user.to_api().items()
                         if k in ("first_name", "last_name", "username")})
            return data
        data = {"id": self.id, "type": self.type, "title": self.title}
        if self.username:
            data["username"] = self.username
        return data


@dataclass(eq=False)
class StoredFile:
    file_id: str
    file_unique_id: str
    kind: str  # "photo" | "document"
    data: bytes | None
    filename: str | None = None
    mime_type: str | None = None
    width: int | None = None
    height: int | None = None
    url: str | None = None  # sent by URL: not downloaded
    path: str = ""

    @property
    def size(self) -> int:
        return len(self.data or b"")

    def to_api(self) -> JSON | list[JSON]:
        if self.kind == "photo":
            return [{"file_id": self.file_id, "file_unique_id": self.file_unique_id,
                     "width": self.width or 0, "height": self.height or 0,
                     "file_size": self.size}]
        data: JSON = {"file_id": self.file_id, "file_unique_id": self.file_unique_id,
                      "file_size": self.size}
        if self.filename:
            data["file_name"] = self.filename
        if self.mime_type:
            data["mime_type"] = self.mime_type
        return data


@dataclass
class Revision:
    """A previous version of an edited message."""

    time: float
    text: str | None
    entities: list[JSON]
    caption: str | None
    reply_markup: JSON | None


@dataclass(eq=False)
class StoredMessage:
    """A message in a chat (sent by the bot or by a simulated user), current state."""

    chat: Chat
    message_id: int
    sender: JSON
    from_bot: bool
    date: int
    seq: int
    updated_seq: int
    text: str | None = None
    entities: list[JSON] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[JSON] = field(default_factory=list)
    reply_markup: JSON | None = None  # current inline keyboard
    keyboard: JSON | None = None  # ReplyKeyboardMarkup / Remove / ForceReply sent with it
    parse_mode: str | None = None
    source: str | None = None  # text/caption exactly as the bot sent it (before parsing)
    photo: StoredFile | None = None
    document: StoredFile | None = None
    reply_to: StoredMessage | None = None
    extra: JSON = field(default_factory=dict)  # service fields, forward_origin, ...
    pinned: bool = False
    deleted: bool = False
    edit_date: int | None = None
    revisions: list[Revision] = field(default_factory=list)

    @property
    def chat_id(self) -> int:
        return self.chat.id

    @property
    def content(self) -> str:
        """Visible text: the text or the caption."""
        return self.text if self.text is not None else (self.caption or "")

    @property
    def buttons(self) -> list[JSON]:
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [copy.deepcopy(b) for row in rows for b in row]

    @property
    def button_rows(self) -> list[list[str]]:
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [[b["text"] for b in row] for row in rows]

    def find_button(self, key: str) -> JSON | None:
        """A button by exact text, else by exact callback_data."""
        buttons = self.buttons
        for b in buttons:
            if b.get("text") == key:
                return b
        for b in buttons:
            if b.get("callback_data") == key:
                return b
        return None

    def to_api(self, *, with_reply: bool = True) -> JSON:
        data: JSON = {"message_id": self.message_id, "from": dict(self.sender),
                      "chat": self.chat.to_api(), "date": self.date}
        if self.reply_to is not None and with_reply:
            data["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = copy.deepcopy(self.entities)
        if self.photo is not None:
            data["photo"] = self.photo.to_api()
        if self.document is not None:
            data["document"] = self.document.to_api()
        if self.caption is not None:
            data["caption"] = self.caption
            if self.caption_entities:
                data["caption_entities"] = copy.deepcopy(self.caption_entities)
        if self.reply_markup is not None:
            data["reply_markup"] = copy.deepcopy(self.reply_markup)
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        data.update(copy.deepcopy(self.extra))
        return data

    def __repr__(self) -> str:
        flags = "".join(f" {f}" for f in ("pinned", "deleted") if getattr(self, f))
        who = "bot" if self.from_bot else self.sender.get("first_name")
        return (f"<Message {self.chat.id}/{self.message_id} from {who}{flags}: "
                f"{self.content[:80]!r} buttons={self.button_rows}>")


@dataclass
class UploadedFile:
    name: str
    filename: str | None
    content_type: str | None
    data: bytes


@dataclass(eq=False)
class ApiRequest:
    """One request the bot made (logged on arrival, completed on answer)."""

    method: str
    params: JSON
    files: dict[str, UploadedFile]
    time: float  # time.monotonic() at arrival
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


@dataclass
class CallbackAnswer:
    query_id: str
    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None
    time: float
    query: JSON


@dataclass
class FloodLimits:
    """Flood control like Telegram's; windows are in seconds before `time_scale`."""

    enabled: bool = True
    chat_burst: int = 3  # per-chat token bucket size ...
    chat_rate: float = 1.0  # ... refilled at this many messages per second
    group_max: int = 20  # messages per group chat ...
    group_window: float = 60.0  # ... per this many seconds
    global_max: int = 30  # messages over all chats ...
    global_window: float = 1.0  # ... per this many seconds
    min_retry_after: int = 1
    # Requests arriving this soon after a 429 were already in flight: not violations.
    violation_grace: float = 0.05


@dataclass
class FloodEvent:
    time: float
    method: str
    chat_id: int
    scope: str  # "chat" | "group" | "global" | "injected"
    retry_after: int


@dataclass
class FloodViolation:
    """The bot sent again before the retry_after it was given had passed."""

    time: float
    method: str
    chat_id: int
    scope: str
    early_by: float  # seconds before the end of the ban


@dataclass
class _Ban:
    until: float
    issued: float
    scope: str


@dataclass
class _PendingCallback:
    query: JSON
    created: float
    answered: bool = False


@dataclass
class _Injected:
    method: str
    chat_id: int | None
    error: ApiError
    times: int


@dataclass(eq=False)
class Hold:
    """Requests the fake keeps waiting before handling them (see ``FakeTelegram.hold``).

    A held request is answered after ``release()``. ``drop()`` instead is what a crash
    of the bot does to its requests in flight: they are never handled nor answered
    (``ApiRequest.cancelled``); a held getUpdates has not confirmed its offset. (After a
    kill, ``release()`` could let a request through before the server has noticed that
    its connection is gone.)
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


class _Params:
    """Decoded request parameters with Telegram-like typed accessors."""

    def __init__(self, data: JSON, files: dict[str, UploadedFile]) -> None:
        self.data = data
        self.files = files

    def has(self, name: str) -> bool:
        return self.data.get(name) not in (None, "")

    def text(self, name: str) -> str | None:
        value = self.data.get(name)
        if value is None:
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def integer(self, name: str) -> int | None:
        value = self.data.get(name)
        if value in (None, ""):
            return None
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        try:
            return int(str(value))
        except ValueError:
            raise _bad(f"invalid {name} specified") from None

    def flag(self, name: str) -> bool:
        value = self.data.get(name)
        return value is True or (isinstance(value, str) and value.lower() in ("true", "1"))

    def obj(self, name: str) -> Any:
        return self.data.get(name)


def _decode_params(raw: JSON) -> JSON:
    data: JSON = {}
    for key, value in raw.items():
        if isinstance(value, str):
            if key in _JSON_PARAMS:
                try:
                    value = json.loads(value)
                except ValueError:
                    what = "reply keyboard markup" if key == "reply_markup" else key
                    raise _bad(f"can't parse {what} JSON object") from None
            elif key in _INT_PARAMS and re.fullmatch(r"-?\d+", value):
                value = int(value)
            elif key in _BOOL_PARAMS:
                value = value.lower() in ("true", "1")
        data[key] = value
    return data


def _image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of an image, or None when it can't be decoded."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - pillow is a project dependency
        return (1, 1)
    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.size
    except Exception:
        return None


def _member(user: User, status: str) -> JSON:
    data: JSON = {"status": status, "user": user.to_api()}
    if status == "creator":
        data["is_anonymous"] = False
    elif status == "administrator":
        data.update(_ADMIN_RIGHTS)
    elif status == "kicked":
        data["until_date"] = 0
    return data


def _markup_key(markup: JSON | None) -> str:
    return json.dumps(markup, sort_keys=True, ensure_ascii=False)


def _auto_entities(text: str) -> list[JSON]:
    """Entities Telegram detects in a user's plain text."""
    found: list[JSON] = []
    for regex, kind in ((_COMMAND_RE, "bot_command"), (_MENTION_RE, "mention"),
                        (_URL_RE, "url")):
        for m in regex.finditer(text):
            found.append({"type": kind, "offset": utf16_len(text[: m.start()]),
                          "length": utf16_len(m.group(0))})
    return sorted(found, key=lambda e: e["offset"])


# ---------------------------------------------------------------------------------- server


class FakeTelegram:
    """Fake Bot API server + simulated Telegram world for one bot token."""

    def __init__(
        self,
        token: str | None = None,
        *,
        bot_username: str = "fake_test_bot",
        bot_first_name: str = "Test Bot",
        limits: FloodLimits | None = None,
        time_scale: float = 1.0,
        privacy_mode: bool = True,
        callback_query_ttl: float | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.token = token or make_token()
        self.bot_id = int(self.token.split(":", 1)[0])
        self.bot_user = User(self.bot_id, bot_first_name, bot_username, language_code=None,
                             is_bot=True)
        self.limits = limits or FloodLimits()
        self.time_scale = time_scale  # multiplies flood windows (0.1 = ten times faster)
        self.privacy_mode = privacy_mode
        self.callback_query_ttl = callback_query_ttl
        self.host = host

        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self._messages: dict[int, list[StoredMessage]] = {}
        self.files: dict[str, StoredFile] = {}
        self.requests: list[ApiRequest] = []
        self.callback_answers: list[CallbackAnswer] = []
        self.chat_actions: list[tuple[int, str, float]] = []
        self.dropped_updates: list[JSON] = []  # filtered out by allowed_updates
        self.flood_events: list[FloodEvent] = []
        self.flood_violations: list[FloodViolation] = []
        self.internal_errors: list[str] = []  # bugs of this fake: fixtures fail on them
        self.unsupported_calls: list[ApiRequest] = []
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.menu_buttons: dict[int | None, JSON] = {}
        self.bot_info: dict[str, str] = {}
        self.webhook_url = ""
        self.deliveries: dict[int, int] = {}  # update_id -> times returned by getUpdates

        self._updates: list[JSON] = []  # not yet confirmed
        self._update_ids = itertools.count(700_000_001)
        self._allowed_updates: set[str] | None = None
        self._callbacks: dict[str, _PendingCallback] = {}
        self._last_tap: str | None = None
        self._injected: list[_Injected] = []
        self._holds: list[Hold] = []
        self._forced_floods: dict[int, list[int]] = {}
        self._buckets: dict[int, tuple[float, float]] = {}
        self._group_sends: dict[int, deque[float]] = {}
        self._global_sends: deque[float] = deque()
        self._bans: dict[tuple[str, int], _Ban] = {}
        self._seq = 0
        self._ids = itertools.count(1)
        self._inflight = 0
        self._polling = 0
        self._poll_generation = 0
        self._last_activity = _now()
        self._wake = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeTelegram:
        await self._serve(0)
        return self

    async def _serve(self, port: int) -> None:
        app = web.Application(client_max_size=DOCUMENT_LIMIT + 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        app.router.add_route("GET", "/file/bot{token}/{path:.+}", self._handle_file)
        app.router.add_route("*", "/{tail:.*}", self._handle_unknown_path)
        self._runner = web.AppRunner(app, handler_cancellation=True, access_log=None,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, port)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def restart(self, *, down: float = 0.0) -> None:
        """An outage: the server goes away (connections refused, long polls cut) for
        `down` seconds, then serves again on the same port; the simulated world and
        the unconfirmed updates stay."""
        port = self.port
        self._closing = True
        self._wake_pollers()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await asyncio.sleep(down)
        self._closing = False
        await self._serve(port)

    async def stop(self) -> None:
        self._closing = True
        for hold in self._holds:
            hold.release()
        self._wake_pollers()
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

    @property
    def seq(self) -> int:
        """Counter bumped by every message change; pass it as `after=` to wait_for_message."""
        return self._seq

    # ------------------------------------------------------------------ HTTP layer

    @staticmethod
    def _json(status: int, body: JSON) -> web.Response:
        return web.json_response(body, status=status)

    async def _handle_unknown_path(self, request: web.Request) -> web.Response:
        return self._json(404, {"ok": False, "error_code": 404, "description": "Not Found"})

    async def _handle_file(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return self._json(401, {"ok": False, "error_code": 401,
                                    "description": "Unauthorized"})
        path = request.match_info["path"]
        for f in self.files.values():
            if f.path == path and f.data is not None:
                return web.Response(body=f.data,
                                    content_type=f.mime_type or "application/octet-stream")
        return self._json(404, {"ok": False, "error_code": 404, "description": "Not Found"})

    async def _read_params(self, request: web.Request) -> _Params:
        raw: JSON = dict(request.query)
        files: dict[str, UploadedFile] = {}
        if request.can_read_body:
            ctype = request.content_type
            try:
                if ctype == "application/json":
                    body = await request.json()
                    if not isinstance(body, dict):
                        raise _bad("parameters must be a JSON object")
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
                raise _bad("can't parse request body") from None
        return _Params(_decode_params(raw), files)

    async def _handle_api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return self._json(401, {"ok": False, "error_code": 401,
                                    "description": "Unauthorized"})
        method = API_METHODS.get(request.match_info["method"].lower())
        if method is None:
            return self._json(404, {"ok": False, "error_code": 404, "description": "Not Found"})
        arrived = _now()
        long_poll = method == "getUpdates"
        if not long_poll:
            self._inflight += 1
            self._touch()
        record = ApiRequest(method, {}, {}, arrived, None)
        self.requests.append(record)
        try:
            try:
                params = await self._read_params(request)
                record.params, record.files = params.data, params.files
                record.chat_id = params.data.get("chat_id")
                status, body = await self._dispatch(method, params, record)
            except ApiError as exc:
                status, body = exc.code, exc.body()
        except asyncio.CancelledError:
            record.cancelled, record.finished = True, _now()
            raise
        finally:
            if not long_poll:
                self._inflight -= 1
                self._touch()
        record.status, record.response, record.finished = status, body, _now()
        return self._json(status, body)

    async def _dispatch(self, method: str, params: _Params,
                        record: ApiRequest) -> tuple[int, JSON]:
        try:
            for hold in list(self._holds):
                if hold.matches(record):
                    hold.held.append(record)
                    await hold._released.wait()
                    if hold.dropped:
                        raise asyncio.CancelledError  # the client is gone: never handled
            injected = self._pop_injected(method, params)
            if injected is not None:
                raise injected
            handler = getattr(self, f"_api_{method}", None)
            if handler is None:
                if method not in BOOL_METHODS:
                    self.unsupported_calls.append(record)
                    raise ApiError(501, f"Not Implemented: FakeTelegram does not emulate {method}")
                result: Any = True
            else:
                result = handler(params)
                if inspect.isawaitable(result):
                    result = await result
            return 200, {"ok": True, "result": result}
        except ApiError as exc:
            return exc.code, exc.body()
        except asyncio.CancelledError:
            raise
        except Exception:
            self.internal_errors.append(traceback.format_exc())
            return 500, {"ok": False, "error_code": 500, "description": "Internal Server Error"}

    def _touch(self) -> None:
        self._last_activity = _now()

    # ------------------------------------------------------------------ fault injection

    def inject_error(self, method: str, *, error_code: int = 500,
                     description: str = "Internal Server Error",
                     parameters: JSON | None = None, chat: Chat | int | None = None,
                     times: int = 1) -> None:
        """Answer the next `times` calls of `method` (in `chat`) with this error."""
        canonical = API_METHODS.get(method.lower(), method)
        chat_id = None if chat is None else self._chat_of(chat).id
        self._injected.append(_Injected(canonical, chat_id,
                                        ApiError(error_code, description, parameters), times))

    def inject_flood(self, chat: Chat | int, retry_after: int = 1, *, times: int = 1) -> None:
        """The next `times` sends/edits in `chat` get 429 with this retry_after (and a ban)."""
        self._forced_floods.setdefault(self._chat_of(chat).id, []).extend([retry_after] * times)

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

    def _pop_injected(self, method: str, params: _Params) -> ApiError | None:
        chat_id = params.data.get("chat_id")
        for inj in self._injected:
            if inj.method == method and inj.times > 0 and inj.chat_id in (None, chat_id):
                inj.times -= 1
                return inj.error
        return None

    # ------------------------------------------------------------------ flood control

    def reset_flood_state(self) -> None:
        self._buckets.clear()
        self._group_sends.clear()
        self._global_sends.clear()
        self._bans.clear()

    @staticmethod
    def _counts_for_flood(method: str) -> bool:
        return (method.startswith("send") and method != "sendChatAction") or \
            method.startswith("editMessage") or method in ("copyMessage", "forwardMessage")

    def _flood(self, chat: Chat, method: str) -> None:
        """Raise 429 like Telegram when a send/edit in `chat` exceeds the limits."""
        lim = self.limits
        now = _now()
        for key in (("chat", chat.id), ("global", 0)):
            ban = self._bans.get(key)
            if ban is None or now >= ban.until:
                continue
            if now - ban.issued > lim.violation_grace:
                self.flood_violations.append(
                    FloodViolation(now, method, chat.id, ban.scope, ban.until - now))
            self._raise_429(method, chat, ban.scope, max(1, math.ceil(ban.until - now)))
        forced = self._forced_floods.get(chat.id)
        if forced:
            retry = forced.pop(0)
            self._ban(("chat", chat.id), "injected", retry, now)
            self._raise_429(method, chat, "injected", retry)
        if not lim.enabled:
            return
        scale = self.time_scale
        rate = lim.chat_rate / scale
        tokens, last = self._buckets.get(chat.id, (float(lim.chat_burst), now))
        tokens = min(float(lim.chat_burst), tokens + (now - last) * rate)
        waits: list[tuple[float, str, tuple[str, int]]] = []
        if tokens < 1.0:
            waits.append(((1.0 - tokens) / rate, "chat", ("chat", chat.id)))
        group = self._group_sends.setdefault(chat.id, deque())
        if chat.is_group:
            window = lim.group_window * scale
            while group and group[0] <= now - window:
                group.popleft()
            if len(group) >= lim.group_max:
                waits.append((group[0] + window - now, "group", ("chat", chat.id)))
        window = lim.global_window * scale
        sends = self._global_sends
        while sends and sends[0] <= now - window:
            sends.popleft()
        if len(sends) >= lim.global_max:
            waits.append((sends[0] + window - now, "global", ("global", 0)))
        if waits:
            wait, scope, key = max(waits)
            retry = max(lim.min_retry_after, math.ceil(wait))
            self._buckets[chat.id] = (tokens, now)
            self._ban(key, scope, retry, now)
            self._raise_429(method, chat, scope, retry)
        self._buckets[chat.id] = (tokens - 1.0, now)
        if chat.is_group:
            group.append(now)
        sends.append(now)

    def _ban(self, key: tuple[str, int], scope: str, retry: int, now: float) -> None:
        self._bans[key] = _Ban(until=now + retry, issued=now, scope=scope)

    def _raise_429(self, method: str, chat: Chat, scope: str, retry: int) -> None:
        self.flood_events.append(FloodEvent(_now(), method, chat.id, scope, retry))
        raise ApiError(429, f"Too Many Requests: retry after {retry}", {"retry_after": retry})

    @property
    def count_429(self) -> int:
        return len(self.flood_events)

    # ------------------------------------------------------------------ updates queue

    def _wake_pollers(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    def _accepts(self, kind: str) -> bool:
        if self._allowed_updates is None:
            return kind not in EXCLUDED_BY_DEFAULT
        return kind in self._allowed_updates

    def enqueue_update(self, kind: str, payload: JSON) -> JSON | None:
        """Queue a raw update for getUpdates; None if allowed_updates filters it out."""
        if not self._accepts(kind):
            self.dropped_updates.append({kind: payload})
            return None
        update = {"update_id": next(self._update_ids), kind: payload}
        self._updates.append(update)
        self._touch()
        self._wake_pollers()
        return update

    @property
    def pending_updates(self) -> list[JSON]:
        """Updates not yet confirmed by the bot (delivered or not)."""
        return list(self._updates)

    @property
    def is_polling(self) -> bool:
        return self._polling > 0

    def _confirm(self, offset: int | None) -> None:
        if not offset:
            return
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        else:
            self._updates = self._updates[offset:]

    async def _api_getUpdates(self, p: _Params) -> list[JSON]:
        if self.webhook_url:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")
        limit = min(max(p.integer("limit") or 100, 1), 100)
        timeout = max(p.integer("timeout") or 0, 0)
        allowed = p.obj("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = {str(a) for a in allowed} or None
        self._confirm(p.integer("offset"))
        # Like Telegram, a newer getUpdates terminates the pending one.
        self._poll_generation += 1
        generation = self._poll_generation
        self._wake_pollers()
        deadline = _now() + timeout
        batch: list[JSON] = []
        self._polling += 1
        try:
            while True:
                if generation != self._poll_generation:
                    raise ApiError(409, "Conflict: terminated by other getUpdates request; "
                                        "make sure that only one bot instance is running")
                batch = self._updates[:limit]
                remaining = deadline - _now()
                if batch or self._closing or remaining <= 0:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), remaining)
        finally:
            self._polling -= 1
        if batch:
            self._touch()
            for update in batch:
                self.deliveries[update["update_id"]] = self.deliveries.get(update["update_id"],
                                                                           0) + 1
        return copy.deepcopy(batch)

    def _api_deleteWebhook(self, p: _Params) -> bool:
        self.webhook_url = ""
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    def _api_setWebhook(self, p: _Params) -> bool:
        self.webhook_url = p.text("url") or ""
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    def _api_getWebhookInfo(self, p: _Params) -> JSON:
        return {"url": self.webhook_url, "has_custom_certificate": False,
                "pending_update_count": len(self._updates)}

    # ------------------------------------------------------------------ simulation: world

    def _chat_of(self, chat: Chat | int) -> Chat:
        if isinstance(chat, Chat):
            return chat
        try:
            return self.chats[chat]
        except KeyError:
            raise AssertionError(f"unknown chat {chat}") from None

    def create_user(self, first_name: str, username: str | None = None,
                    language_code: str | None = "ru", *, last_name: str | None = None,
                    is_bot: bool = False) -> User:
        """A Telegram user (ids above 2**32 like real ones); has not started the bot yet."""
        user = User(7_100_000_000 + next(self._ids), first_name, username, last_name,
                    language_code, is_bot)
        self.users[user.id] = user
        self.chats[user.id] = Chat(user.id, "private", user=user)
        return user

    def private_chat(self, user: User) -> Chat:
        return self.chats[user.id]

    def start_private(self, user: User) -> Chat:
        """The user pressed Start: the bot may now message him (no update is sent)."""
        user.started = True
        user.blocked_bot = False
        return self.chats[user.id]

    def press_start(self, user: User, payload: str | None = None) -> JSON:
        """start_private + the "/start [payload]" message Telegram sends on Start."""
        chat = self.start_private(user)
        return self.send_text(user, chat, f"/start {payload}" if payload else "/start")

    def block_bot(self, user: User) -> None:
        """The user blocked the bot: sends fail with 403; my_chat_member update."""
        user.blocked_bot = True
        self._my_chat_member(self.chats[user.id], user, "member", "kicked")

    def unblock_bot(self, user: User) -> None:
        user.blocked_bot = False
        user.started = True
        self._my_chat_member(self.chats[user.id], user, "kicked", "member")

    def deactivate_user(self, user: User) -> None:
        user.deactivated = True

    def create_group(self, title: str, members: Iterable[User] = (), bot_is_admin: bool = True,
                     *, admins: Iterable[User] = (), creator: User | None = None,
                     supergroup: bool = False, username: str | None = None,
                     bot_in_group: bool = True) -> Chat:
        """A group with these members (the first one is the creator unless given)."""
        members = list(members)
        n = next(self._ids)
        chat_id = -1_002_100_000_000 - n if supergroup else -4_100_000_000 - n
        chat = Chat(chat_id, "supergroup" if supergroup else "group", title=title,
                    username=username)
        creator = creator or (members[0] if members else None)
        for user in members:
            chat.members[user.id] = "member"
        for user in admins:
            chat.members[user.id] = "administrator"
        if creator is not None:
            chat.members[creator.id] = "creator"
        if bot_in_group:
            chat.bot_status = "administrator" if bot_is_admin else "member"
        else:
            chat.bot_status = "left"
        self.chats[chat.id] = chat
        return chat

    def _my_chat_member(self, chat: Chat, by: User, old: str, new: str) -> JSON | None:
        return self.enqueue_update("my_chat_member", {
            "chat": chat.to_api(), "from": by.to_api(), "date": _unix(),
            "old_chat_member": _member(self.bot_user, old),
            "new_chat_member": _member(self.bot_user, new),
        })

    def _group_actor(self, chat: Chat, by: User | None) -> User:
        if by is not None:
            return by
        for uid, status in chat.members.items():
            if status == "creator":
                return self.users[uid]
        raise AssertionError(f"group {chat.title!r} has no creator: pass by=")

    def add_bot(self, group: Chat, *, by: User | None = None, as_admin: bool = False) -> None:
        """Someone adds the bot to the group: my_chat_member + new_chat_members message."""
        actor = self._group_actor(group, by)
        old = group.bot_status
        group.bot_status = "administrator" if as_admin else "member"
        self._my_chat_member(group, actor, old, group.bot_status)
        self._service(group, actor, {"new_chat_members": [self.bot_user.to_api()]})

    def kick_bot(self, group: Chat, *, by: User | None = None) -> None:
        """The bot is removed from the group: further sends get 403."""
        actor = self._group_actor(group, by)
        old = group.bot_status
        group.bot_status = "kicked"
        self._my_chat_member(group, actor, old, "kicked")

    def promote_bot(self, group: Chat, *, by: User | None = None) -> None:
        old, group.bot_status = group.bot_status, "administrator"
        self._my_chat_member(group, self._group_actor(group, by), old, "administrator")

    def demote_bot(self, group: Chat, *, by: User | None = None) -> None:
        old, group.bot_status = group.bot_status, "member"
        self._my_chat_member(group, self._group_actor(group, by), old, "member")

    def migrate_group(self, group: Chat, *, by: User | None = None) -> int:
        """Upgrade a basic group to a supergroup; returns the new chat id."""
        if group.type != "group" or group.migrated_to is not None:
            raise AssertionError(f"{group.title!r} is not an un-migrated basic group")
        actor = self._group_actor(group, by)
        n = next(self._ids)
        new = Chat(-1_002_100_000_000 - n, "supergroup", title=group.title,
                   members=dict(group.members), bot_status=group.bot_status,
                   migrated_from=group.id)
        self.chats[new.id] = new
        group.migrated_to = new.id
        if group.bot_status in ("member", "administrator"):
            msg = self._store(group, actor, from_bot=False,
                              extra={"migrate_to_chat_id": new.id})
            self.enqueue_update("message", msg.to_api())
            msg = self._store(new, actor, from_bot=False,
                              extra={"migrate_from_chat_id": group.id})
            self.enqueue_update("message", msg.to_api())
        return new.id

    def new_chat_member(self, group: Chat, user: User, *,
                        invited_by: User | None = None) -> JSON:
        """`user` joins (or is added to) the group: service message (+ chat_member)."""
        old = group.members.get(user.id, "left")
        group.members[user.id] = "member"
        actor = invited_by or user
        self.enqueue_update("chat_member", {
            "chat": group.to_api(), "from": actor.to_api(), "date": _unix(),
            "old_chat_member": _member(user, old), "new_chat_member": _member(user, "member"),
        })
        return self._service(group, actor, {"new_chat_members": [user.to_api()]})

    def left_chat_member(self, group: Chat, user: User, *,
                         removed_by: User | None = None) -> JSON:
        old = group.members.get(user.id, "member")
        group.members[user.id] = "kicked" if removed_by else "left"
        actor = removed_by or user
        self.enqueue_update("chat_member", {
            "chat": group.to_api(), "from": actor.to_api(), "date": _unix(),
            "old_chat_member": _member(user, old),
            "new_chat_member": _member(user, group.members[user.id]),
        })
        return self._service(group, actor, {"left_chat_member": user.to_api()})

    def _service(self, chat: Chat, actor: User, extra: JSON) -> JSON:
        msg = self._store(chat, actor, from_bot=False, extra=extra)
        payload = msg.to_api()
        if self._bot_receives(chat, msg, service=True):
            self.enqueue_update("message", payload)
        return payload

    # ------------------------------------------------------------------ simulation: users act

    def _check_can_post(self, user: User, chat: Chat) -> None:
        if chat.is_private:
            if chat.user is not user:
                raise AssertionError(f"{user.first_name} can't write in another user's chat")
            if not user.started:
                raise AssertionError(f"{user.first_name} has not started the bot: "
                                     "call start_private(user) first")
            if user.blocked_bot:
                raise AssertionError(f"{user.first_name} blocked the bot: unblock_bot() first")
            return
        if chat.migrated_to is not None:
            raise AssertionError(f"group {chat.title!r} was migrated to {chat.migrated_to}")
        if chat.members.get(user.id) not in ("creator", "administrator", "member"):
            raise AssertionError(f"{user.first_name} is not a member of {chat.title!r}")

    def _bot_receives(self, chat: Chat, msg: StoredMessage, *, service: bool = False) -> bool:
        if chat.is_private:
            return True
        if chat.bot_status not in ("member", "administrator") or chat.migrated_to is not None:
            return False
        if service or not self.privacy_mode or chat.bot_status == "administrator":
            return True
        # Privacy mode: only commands (not addressed to other bots) and replies to the bot.
        m = _COMMAND_RE.match(msg.content)
        if m:
            target = m.group(2)
            return target is None or target.lower() == (self.bot_user.username or "").lower()
        return msg.reply_to is not None and msg.reply_to.from_bot

    def _store(self, chat: Chat, sender: User, *, from_bot: bool,
               date: datetime | int | None = None, **fields: Any) -> StoredMessage:
        self._seq += 1
        msg = StoredMessage(chat=chat, message_id=chat.next_message_id,
                            sender=sender.to_api() if not from_bot else self._bot_from(),
                            from_bot=from_bot, date=_unix(date), seq=self._seq,
                            updated_seq=self._seq, **fields)
        chat.next_message_id += 1
        self._messages.setdefault(chat.id, []).append(msg)
        return msg

    def _bot_from(self) -> JSON:
        return self.bot_user.to_api()

    def _message_of(self, message: StoredMessage | JSON) -> StoredMessage:
        if isinstance(message, StoredMessage):
            return message
        found = self._find(self._chat_of(message["chat"]["id"]), message["message_id"])
        if found is None:
            raise AssertionError(f"no message {message['message_id']} in chat "
                                 f"{message['chat']['id']}")
        return found

    def send_text(self, user: User, chat: Chat | int, text: str, *,
                  date: datetime | int | None = None,
                  reply_to: StoredMessage | JSON | int | None = None,
                  forward_from: User | None = None,
                  entities: list[JSON] | None = None) -> JSON:
        """`user` writes `text` in `chat`; returns the Message dict (queued as an update
        if the bot can see it). Commands get bot_command entities like on Telegram."""
        chat = self._chat_of(chat)
        self._check_can_post(user, chat)
        target: StoredMessage | None = None
        if isinstance(reply_to, int):
            target = self._find(chat, reply_to)
            if target is None:
                raise AssertionError(f"no message {reply_to} in chat {chat.id}")
        elif reply_to is not None:
            target = self._message_of(reply_to)
        extra: JSON = {}
        if forward_from is not None:
            extra["forward_origin"] = {"type": "user", "sender_user": forward_from.to_api(),
                                       "date": _unix(date)}
        msg = self._store(chat, user, from_bot=False, date=date, text=text,
                          entities=entities if entities is not None else _auto_entities(text),
                          reply_to=target, extra=extra)
        payload = msg.to_api()
        if self._bot_receives(chat, msg):
            self.enqueue_update("message", payload)
        return payload

    def send_anonymous(self, group: Chat | int, text: str) -> JSON:
        """An admin who "remains anonymous" writes in the group: Telegram shows the
        group itself as the sender (``sender_chat``), from @GroupAnonymousBot."""
        chat = self._chat_of(group)
        if not chat.is_group:
            raise AssertionError("only group admins can remain anonymous")
        anonymous = self.users.get(ANONYMOUS_ADMIN_ID)
        if anonymous is None:
            anonymous = self.users[ANONYMOUS_ADMIN_ID] = User(
                ANONYMOUS_ADMIN_ID, "Group", "GroupAnonymousBot", language_code=None,
                is_bot=True)
        msg = self._store(chat, anonymous, from_bot=False, text=text,
                          entities=_auto_entities(text), extra={"sender_chat": chat.to_api()})
        payload = msg.to_api()
        if self._bot_receives(chat, msg):
            self.enqueue_update("message", payload)
        return payload

    def edit_text(self, user: User, message: StoredMessage | JSON, text: str) -> JSON:
        """The user edits his own message: edited_message update."""
        msg = self._message_of(message)
        if msg.from_bot or msg.sender.get("id") != user.id:
            raise AssertionError("users can edit only their own messages")
        self._record_edit(msg, text=text, entities=_auto_entities(text))
        payload = msg.to_api()
        if self._bot_receives(msg.chat, msg):
            self.enqueue_update("edited_message", payload)
        return payload

    def send_document(self, user: User, chat: Chat | int, data: bytes, filename: str, *,
                      mime_type: str | None = None, caption: str | None = None) -> JSON:
        """The user sends a file; the bot can getFile + download it."""
        chat = self._chat_of(chat)
        self._check_can_post(user, chat)
        doc = self._new_file("document", data, filename,
                             mime_type or mimetypes.guess_type(filename)[0])
        msg = self._store(chat, user, from_bot=False, document=doc, caption=caption,
                          caption_entities=_auto_entities(caption or ""))
        payload = msg.to_api()
        if self._bot_receives(chat, msg):
            self.enqueue_update("message", payload)
        return payload

    def press_reply_button(self, user: User, chat: Chat | int, text: str) -> JSON:
        """Press a button of the reply keyboard the bot currently shows in `chat`."""
        chat = self._chat_of(chat)
        rows = (chat.reply_keyboard or {}).get("keyboard", [])
        texts = [b if isinstance(b, str) else b.get("text") for row in rows for b in row]
        if text not in texts:
            raise AssertionError(f"no reply keyboard button {text!r} in chat {chat.id}: {texts}")
        return self.send_text(user, chat, text)

    def tap(self, user: User, message: StoredMessage | JSON, button: str) -> JSON:
        """Press an inline button (by text or callback_data) of a message the bot sent, in
        its current (edited) state; returns the callback_query dict."""
        msg = self._message_of(message)
        if not msg.from_bot:
            raise AssertionError(f"{msg!r} was not sent by the bot")
        if msg.deleted:
            raise AssertionError(f"{msg!r} was deleted")
        found = msg.find_button(button)
        if found is None:
            raise AssertionError(f"no button {button!r} in {msg!r}")
        if "callback_data" not in found:
            raise AssertionError(f"button {found.get('text')!r} is not a callback button: {found}")
        return self._callback(user, msg, found["callback_data"])

    def tap_raw(self, user: User, message: StoredMessage | JSON, data: str) -> JSON:
        """A callback_query with arbitrary (forged) data for an existing message."""
        return self._callback(user, self._message_of(message), data)

    def _callback(self, user: User, msg: StoredMessage, data: str) -> JSON:
        chat = msg.chat
        if chat.is_private and chat.user is not user:
            raise AssertionError(f"{user.first_name} can't see {msg!r}")
        if chat.is_group and chat.members.get(user.id) not in ("creator", "administrator",
                                                                "member"):
            raise AssertionError(f"{user.first_name} is not a member of {chat.title!r}")
        query_id = str(secrets.randbits(62))
        query = {"id": query_id, "from": user.to_api(), "message": msg.to_api(),
                 "chat_instance": chat.chat_instance, "data": data}
        self._callbacks[query_id] = _PendingCallback(query, _now())
        self._last_tap = query_id
        self.enqueue_update("callback_query", query)
        return query

    # ------------------------------------------------------------------ bot-side helpers

    def _chat_arg(self, p: _Params, name: str = "chat_id") -> Chat:
        raw = p.data.get(name)
        if raw in (None, ""):
            raise _bad("chat_id is empty")
        chat: Chat | None = None
        if isinstance(raw, int) and not isinstance(raw, bool):
            chat = self.chats.get(raw)
        elif isinstance(raw, str) and raw.startswith("@"):
            chat = next((c for c in self.chats.values()
                         if c.username and c.username.lower() == raw[1:].lower()
                         and not c.is_private), None)
        if chat is None:
            raise _bad("chat not found")
        return chat

    def _check_access(self, chat: Chat) -> None:
        """Errors Telegram gives when the bot can't write to the chat."""
        if chat.user is not None:
            if chat.user.deactivated:
                raise _forbidden("user is deactivated")
            if chat.user.blocked_bot:
                raise _forbidden("bot was blocked by the user")
            if not chat.user.started:
                raise _forbidden("bot can't initiate conversation with a user")
            return
        if chat.migrated_to is not None:
            raise _bad("group chat was upgraded to a supergroup chat",
                       {"migrate_to_chat_id": chat.migrated_to})
        kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
        if chat.bot_status == "kicked":
            raise _forbidden(f"bot was kicked from the {kind}")
        if chat.bot_status == "left":
            raise _forbidden(f"bot is not a member of the {kind}")

    def _format(self, raw: str | None, parse_mode: str | None, entities: Any, *,
                caption: bool = False) -> tuple[str, list[JSON]]:
        raw = raw or ""
        if entities is not None:
            if not isinstance(entities, list):
                raise _bad("can't parse entities JSON object")
            plain, ents = raw, [e for e in entities if isinstance(e, dict)]
        else:
            try:
                plain, ents = parse_text(raw, parse_mode)
            except EntityParseError as exc:
                raise _bad(f"can't parse entities: {exc}") from None
            except ValueError:
                raise _bad("unsupported parse_mode") from None
        plain, ents = strip_text(plain, ents)
        if caption:
            if len(plain) > CAPTION_LIMIT:
                raise _bad("message caption is too long")
        elif not plain:
            raise _bad("message text is empty")
        elif len(plain) > TEXT_LIMIT:
            raise _bad("message is too long")
        return plain, ents

    def _check_markup(self, markup: Any, *,
                      inline_only: bool = False) -> tuple[JSON | None, JSON | None]:
        """(inline keyboard, reply keyboard) after Telegram's validation."""
        if markup is None:
            return None, None
        if not isinstance(markup, dict):
            raise _bad("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" in markup:
            rows = markup["inline_keyboard"]
            if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                raise _bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an '
                           "Array of Arrays")
            clean_rows: list[list[JSON]] = []
            for row in rows:
                clean: list[JSON] = []
                for button in row:
                    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                        raise _bad("can't parse inline keyboard button: Field \"text\" must "
                                   "be of type String")
                    button = {k: v for k, v in button.items() if v is not None}
                    if not any(k in button for k in _BUTTON_KINDS):
                        raise _bad("can't parse inline keyboard button: Text buttons are "
                                   "unallowed in the inline keyboard")
                    if "callback_data" in button:
                        data = button["callback_data"]
                        if not isinstance(data, str) or not (
                                1 <= len(data.encode("utf-8")) <= CALLBACK_DATA_LIMIT):
                            raise _bad("BUTTON_DATA_INVALID")
                    if "url" in button and not re.match(r"(https?|tg)://\S+$",
                                                        str(button["url"])):
                        raise _bad("BUTTON_URL_INVALID")
                    clean.append(button)
                if clean:
                    clean_rows.append(clean)
            return ({"inline_keyboard": clean_rows} if clean_rows else None), None
        if inline_only:
            raise _bad("inline keyboard expected")
        if "keyboard" in markup or markup.get("remove_keyboard") or markup.get("force_reply"):
            return None, markup
        raise _bad("can't parse reply keyboard markup JSON object")

    def _find(self, chat: Chat, message_id: int | None) -> StoredMessage | None:
        if message_id is None:
            return None
        for msg in self._messages.get(chat.id, []):
            if msg.message_id == message_id:
                return msg
        return None

    def _reply_target(self, chat: Chat, p: _Params) -> StoredMessage | None:
        rp = p.obj("reply_parameters")
        if isinstance(rp, dict):
            mid = rp.get("message_id")
            allow = bool(rp.get("allow_sending_without_reply"))
            if rp.get("chat_id") not in (None, chat.id):
                chat = self._chat_of(rp["chat_id"]) if rp["chat_id"] in self.chats else chat
        else:
            mid = p.integer("reply_to_message_id")
            allow = p.flag("allow_sending_without_reply")
        if mid is None:
            return None
        target = self._find(chat, int(mid))
        if target is None or target.deleted:
            if allow:
                return None
            raise _bad("message to be replied not found")
        return target

    def _new_file(self, kind: str, data: bytes | None, filename: str | None,
                  mime_type: str | None, *, url: str | None = None,
                  size: tuple[int, int] | None = None) -> StoredFile:
        n = next(self._ids)
        ext = "jpg" if kind == "photo" else (filename or "").rsplit(".", 1)[-1] or "bin"
        f = StoredFile(file_id=f"{'AgAC' if kind == 'photo' else 'BQAC'}{secrets.token_hex(16)}",
                       file_unique_id=secrets.token_hex(8), kind=kind, data=data,
                       filename=filename, mime_type=mime_type, url=url,
                       width=size[0] if size else None, height=size[1] if size else None,
                       path=f"{kind}s/file_{n}.{ext}")
        self.files[f.file_id] = f
        return f

    def _input_file(self, p: _Params, name: str, kind: str) -> StoredFile:
        value = p.data.get(name)
        upload = p.files.get(name)
        if upload is None and isinstance(value, str) and value.startswith("attach://"):
            upload = p.files.get(value[len("attach://"):])
            if upload is None:
                raise _bad(f"wrong file identifier/HTTP URL specified: {value} not found")
        if upload is not None:
            if not upload.data:
                raise _bad("file must be non-empty")
            size = None
            mime = upload.content_type
            if kind == "photo":
                size = _image_size(upload.data)
                if size is None:
                    raise _bad("IMAGE_PROCESS_FAILED")
                mime = "image/jpeg"
            elif not mime or mime == "application/octet-stream":
                mime = mimetypes.guess_type(upload.filename or "")[0] or mime
            return self._new_file(kind, upload.data, upload.filename, mime, size=size)
        if value in (None, ""):
            raise _bad(f"there is no {kind} in the request")
        if not isinstance(value, str):
            raise _bad("wrong file identifier/HTTP URL specified")
        existing = self.files.get(value)
        if existing is not None:
            if existing.kind != kind:
                raise _bad(f"can't use file of type {existing.kind.title()} as {kind.title()}")
            return existing
        if re.match(r"https?://", value):
            return self._new_file(kind, None, value.rsplit("/", 1)[-1], None, url=value,
                                  size=(800, 600) if kind == "photo" else None)
        raise _bad("wrong file identifier/HTTP URL specified")

    def _record_edit(self, msg: StoredMessage, **changes: Any) -> None:
        msg.revisions.append(Revision(_now(), msg.text, copy.deepcopy(msg.entities), msg.caption,
                                      copy.deepcopy(msg.reply_markup)))
        for key, value in changes.items():
            setattr(msg, key, value)
        msg.edit_date = _unix()
        self._seq += 1
        msg.updated_seq = self._seq

    def _send_common(self, p: _Params, method: str, **fields: Any) -> JSON:
        """Shared tail of send* methods: markup, reply, flood check, store."""
        chat: Chat = fields.pop("chat")
        inline, keyboard = self._check_markup(p.obj("reply_markup"))
        reply_to = self._reply_target(chat, p)
        self._flood(chat, method)
        msg = self._store(chat, self.bot_user, from_bot=True, reply_markup=inline,
                          keyboard=keyboard, reply_to=reply_to,
                          parse_mode=p.text("parse_mode"), **fields)
        if keyboard is not None:
            chat.reply_keyboard = keyboard if "keyboard" in keyboard else None
        return msg.to_api()

    # ------------------------------------------------------------------ Bot API methods

    def _api_getMe(self, p: _Params) -> JSON:
        return {**self.bot_user.to_api(), "can_join_groups": True,
                "can_read_all_group_messages": not self.privacy_mode,
                "supports_inline_queries": False, "can_connect_to_business": False,
                "has_main_web_app": False}

    def _api_close(self, p: _Params) -> bool:
        return True

    def _api_logOut(self, p: _Params) -> bool:
        return True

    def _api_setMyCommands(self, p: _Params) -> bool:
        commands = p.obj("commands")
        if not isinstance(commands, list):
            raise _bad("can't parse commands JSON object")
        if len(commands) > 100:
            raise _bad("too many commands specified")
        clean: list[JSON] = []
        for cmd in commands:
            name = cmd.get("command") if isinstance(cmd, dict) else None
            desc = cmd.get("description") if isinstance(cmd, dict) else None
            if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                raise _bad("BOT_COMMAND_INVALID")
            if not isinstance(desc, str) or not 1 <= len(desc.strip()) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
            clean.append({"command": name, "description": desc})
        self.commands[self._commands_key(p)] = clean
        return True

    def _commands_key(self, p: _Params) -> tuple[str, str]:
        scope = p.obj("scope") or {"type": "default"}
        return _markup_key(scope), p.text("language_code") or ""

    def _api_deleteMyCommands(self, p: _Params) -> bool:
        self.commands.pop(self._commands_key(p), None)
        return True

    def _api_getMyCommands(self, p: _Params) -> list[JSON]:
        return copy.deepcopy(self.commands.get(self._commands_key(p), []))

    def bot_commands(self, scope: JSON | None = None, language_code: str = "") -> list[str]:
        """Command names the bot registered for a scope (default scope by default)."""
        key = (_markup_key(scope or {"type": "default"}), language_code)
        return [c["command"] for c in self.commands.get(key, [])]

    def _bot_info(self, p: _Params, key: str) -> bool:
        self.bot_info[key] = p.text(key) or ""
        return True

    def _api_setMyName(self, p: _Params) -> bool:
        return self._bot_info(p, "name")

    def _api_setMyDescription(self, p: _Params) -> bool:
        return self._bot_info(p, "description")

    def _api_setMyShortDescription(self, p: _Params) -> bool:
        return self._bot_info(p, "short_description")

    def _api_getMyName(self, p: _Params) -> JSON:
        return {"name": self.bot_info.get("name") or self.bot_user.first_name}

    def _api_getMyDescription(self, p: _Params) -> JSON:
        return {"description": self.bot_info.get("description", "")}

    def _api_getMyShortDescription(self, p: _Params) -> JSON:
        return {"short_description": self.bot_info.get("short_description", "")}

    def _api_setChatMenuButton(self, p: _Params) -> bool:
        chat_id = self._chat_arg(p).id if p.has("chat_id") else None
        self.menu_buttons[chat_id] = p.obj("menu_button") or {"type": "default"}
        return True

    def _api_getChatMenuButton(self, p: _Params) -> JSON:
        chat_id = self._chat_arg(p).id if p.has("chat_id") else None
        return copy.deepcopy(self.menu_buttons.get(chat_id) or self.menu_buttons.get(None)
                             or {"type": "default"})

    def _api_sendChatAction(self, p: _Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        action = p.text("action")
        if action not in CHAT_ACTIONS:
            raise _bad("wrong parameter action in request")
        self.chat_actions.append((chat.id, action, _now()))
        return True

    def _api_sendMessage(self, p: _Params) -> JSON:
        chat = self._chat_arg(p)
        self._check_access(chat)
        text, entities = self._format(p.text("text"), p.text("parse_mode"), p.obj("entities"))
        return self._send_common(p, "sendMessage", chat=chat, text=text, entities=entities,
                                 source=p.text("text"))

    def _send_media(self, p: _Params, method: str, kind: str) -> JSON:
        chat = self._chat_arg(p)
        self._check_access(chat)
        caption, entities = self._format(p.text("caption"), p.text("parse_mode"),
                                         p.obj("caption_entities"), caption=True)
        stored = self._input_file(p, kind, kind)
        return self._send_common(p, method, chat=chat, caption=caption or None,
                                 caption_entities=entities, source=p.text("caption"),
                                 **{kind: stored})

    def _api_sendPhoto(self, p: _Params) -> JSON:
        return self._send_media(p, "sendPhoto", "photo")

    def _api_sendDocument(self, p: _Params) -> JSON:
        return self._send_media(p, "sendDocument", "document")

    def _api_sendMediaGroup(self, p: _Params) -> list[JSON]:
        """An album of 2-10 photos or of 2-10 documents (one flood unit, like the bot's
        FloodControl counts it); each item becomes a message with `media_group_id`."""
        chat = self._chat_arg(p)
        self._check_access(chat)
        media = p.obj("media")
        if not isinstance(media, list) or not all(isinstance(m, dict) for m in media):
            raise _bad("can't parse media JSON object")
        if not 2 <= len(media) <= 10:
            raise _bad("wrong number of media specified: an album has 2-10 items")
        kinds = {str(m.get("type")) for m in media}
        if not kinds <= {"photo", "document"}:
            raise ApiError(501, "Not Implemented: FakeTelegram emulates albums of photos or "
                                "documents only")
        if len(kinds) > 1:
            raise _bad("document can't be mixed with other media types")
        reply_to = self._reply_target(chat, p)
        prepared: list[tuple[str, str | None, list[JSON], StoredFile, JSON]] = []
        for item in media:
            kind = str(item["type"])
            caption, entities = self._format(item.get("caption"), item.get("parse_mode"),
                                             item.get("caption_entities"), caption=True)
            stored = self._input_file(_Params({kind: item.get("media")}, p.files), kind, kind)
            prepared.append((kind, caption or None, entities, stored, item))
        self._flood(chat, "sendMediaGroup")
        group_id = str(secrets.randbits(62))
        sent = []
        for kind, caption, entities, stored, item in prepared:
            msg = self._store(chat, self.bot_user, from_bot=True, reply_to=reply_to,
                              parse_mode=item.get("parse_mode"), caption=caption,
                              caption_entities=entities, source=item.get("caption"),
                              extra={"media_group_id": group_id}, **{kind: stored})
            sent.append(msg.to_api())
        return sent

    def _edit_target(self, p: _Params) -> StoredMessage:
        if p.has("inline_message_id"):
            raise ApiError(501, "Not Implemented: FakeTelegram does not emulate inline messages")
        chat = self._chat_arg(p)
        self._check_access(chat)
        mid = p.integer("message_id")
        if mid is None:
            raise _bad("message identifier is not specified")
        msg = self._find(chat, mid)
        if msg is None or msg.deleted:
            raise _bad("message to edit not found")
        if not msg.from_bot:
            raise _bad("message can't be edited")
        return msg

    @staticmethod
    def _not_modified() -> ApiError:
        return _bad("message is not modified: specified new message content and reply markup "
                    "are exactly the same as a current content and reply markup of message")

    def _api_editMessageText(self, p: _Params) -> JSON:
        msg = self._edit_target(p)
        if msg.text is None:
            raise _bad("there is no text in the message to edit")
        text, entities = self._format(p.text("text"), p.text("parse_mode"), p.obj("entities"))
        inline, _ = self._check_markup(p.obj("reply_markup"), inline_only=True)
        if (text == msg.text and normalize_entities(entities) == normalize_entities(msg.entities)
                and _markup_key(inline) == _markup_key(msg.reply_markup)):
            raise self._not_modified()
        self._flood(msg.chat, "editMessageText")
        self._record_edit(msg, text=text, entities=entities, reply_markup=inline,
                          source=p.text("text"), parse_mode=p.text("parse_mode"))
        return msg.to_api()

    def _api_editMessageCaption(self, p: _Params) -> JSON:
        msg = self._edit_target(p)
        if msg.photo is None and msg.document is None:
            raise _bad("there is no caption in the message to edit")
        caption, entities = self._format(p.text("caption"), p.text("parse_mode"),
                                         p.obj("caption_entities"), caption=True)
        inline, _ = self._check_markup(p.obj("reply_markup"), inline_only=True)
        if ((caption or None) == msg.caption and _markup_key(inline) == _markup_key(
                msg.reply_markup) and normalize_entities(entities) == normalize_entities(
                msg.caption_entities)):
            raise self._not_modified()
        self._flood(msg.chat, "editMessageCaption")
        self._record_edit(msg, caption=caption or None, caption_entities=entities,
                          reply_markup=inline, source=p.text("caption"))
        return msg.to_api()

    def _api_editMessageReplyMarkup(self, p: _Params) -> JSON:
        msg = self._edit_target(p)
        inline, _ = self._check_markup(p.obj("reply_markup"), inline_only=True)
        if _markup_key(inline) == _markup_key(msg.reply_markup):
            raise self._not_modified()
        self._flood(msg.chat, "editMessageReplyMarkup")
        self._record_edit(msg, reply_markup=inline)
        return msg.to_api()

    def _api_deleteMessage(self, p: _Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        msg = self._find(chat, p.integer("message_id"))
        if msg is None or msg.deleted:
            raise _bad("message to delete not found")
        if not msg.from_bot and chat.is_group and chat.bot_status != "administrator":
            raise _bad("message can't be deleted")
        msg.deleted = True
        self._seq += 1
        msg.updated_seq = self._seq
        return True

    def _api_deleteMessages(self, p: _Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        ids = p.obj("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise _bad("message_ids must be a non-empty array of at most 100 identifiers")
        for mid in ids:
            msg = self._find(chat, int(mid))
            if msg is not None and not msg.deleted and (
                    msg.from_bot or not chat.is_group or chat.bot_status == "administrator"):
                msg.deleted = True
                self._seq += 1
                msg.updated_seq = self._seq
        return True

    def _check_pin_rights(self, chat: Chat) -> None:
        if chat.is_group and chat.bot_status != "administrator":
            raise _bad("not enough rights to manage pinned messages in the chat")

    def _api_pinChatMessage(self, p: _Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        msg = self._find(chat, p.integer("message_id"))
        if msg is None or msg.deleted:
            raise _bad("message to pin not found")
        self._check_pin_rights(chat)
        msg.pinned = True
        self._seq += 1
        msg.updated_seq = self._seq
        return True

    def _api_unpinChatMessage(self, p: _Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        self._check_pin_rights(chat)
        if p.has("message_id"):
            msg = self._find(chat, p.integer("message_id"))
            if msg is None or msg.deleted:
                raise _bad("message to unpin not found")
            targets = [msg]
        else:
            pinned = [m for m in self._messages.get(chat.id, []) if m.pinned]
            targets = pinned[-1:]
        for msg in targets:
            msg.pinned = False
            self._seq += 1
            msg.updated_seq = self._seq
        return True

    def _api_unpinAllChatMessages(self, p: _Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        self._check_pin_rights(chat)
        for msg in self._messages.get(chat.id, []):
            msg.pinned = False
        self._seq += 1
        return True

    def _api_answerCallbackQuery(self, p: _Params) -> bool:
        query_id = p.text("callback_query_id") or ""
        pending = self._callbacks.get(query_id)
        ttl = self.callback_query_ttl
        if pending is None or pending.answered or (
                ttl is not None and _now() - pending.created > ttl):
            raise _bad("query is too old and response timeout expired or query ID is invalid")
        text = p.text("text")
        if text is not None and len(text) > CALLBACK_TEXT_LIMIT:
            raise _bad("MESSAGE_TOO_LONG")
        pending.answered = True
        self.callback_answers.append(CallbackAnswer(
            query_id, text, p.flag("show_alert"), p.text("url"), p.integer("cache_time"), _now(),
            pending.query))
        return True

    def _api_getFile(self, p: _Params) -> JSON:
        f = self.files.get(p.text("file_id") or "")
        if f is None:
            raise _bad("invalid file_id")
        if f.data is None:
            raise _bad("file is not available (sent by URL)")
        return {"file_id": f.file_id, "file_unique_id": f.file_unique_id,
                "file_size": f.size, "file_path": f.path}

    def _api_getChat(self, p: _Params) -> JSON:
        chat = self._chat_arg(p)
        if chat.is_group:
            self._check_access(chat)
        info = {**chat.to_api(), "accent_color_id": 0, "max_reaction_count": 11,
                "accepted_gift_types": {"unlimited_gifts": False, "limited_gifts": False,
                                        "unique_gifts": False, "premium_subscription": False,
                                        "gifts_from_channels": False}}
        if chat.migrated_from is not None:
            info["migrated_from_chat_id"] = chat.migrated_from  # not a real field; harmless
        return info

    def _status_in(self, chat: Chat, user_id: int) -> str:
        if user_id == self.bot_id:
            return "member" if chat.is_private else chat.bot_status
        if chat.is_private:
            if chat.user is None or chat.user.id != user_id:
                raise _bad("user not found")
            return "member"
        return chat.members.get(user_id, "left")

    def _api_getChatMember(self, p: _Params) -> JSON:
        chat = self._chat_arg(p)
        if chat.is_group:
            self._check_access(chat)
        user_id = p.integer("user_id")
        if user_id is None:
            raise _bad("invalid user_id specified")
        user = self.bot_user if user_id == self.bot_id else self.users.get(user_id)
        if user is None:
            raise _bad("user not found")
        return _member(user, self._status_in(chat, user_id))

    def _api_getChatAdministrators(self, p: _Params) -> list[JSON]:
        chat = self._chat_arg(p)
        if chat.is_private:
            raise _bad("there are no administrators in the private chat")
        self._check_access(chat)
        admins = [_member(self.users[uid], status) for uid, status in chat.members.items()
                  if status in ("creator", "administrator")]
        if chat.bot_status == "administrator":
            admins.append(_member(self.bot_user, "administrator"))
        return admins

    def _api_getChatMemberCount(self, p: _Params) -> int:
        chat = self._chat_arg(p)
        if chat.is_private:
            return 2
        self._check_access(chat)
        present = ("creator", "administrator", "member", "restricted")
        return sum(s in present for s in chat.members.values()) + (
            chat.bot_status in present)

    def _api_leaveChat(self, p: _Params) -> bool:
        chat = self._chat_arg(p)
        if chat.is_private:
            raise _bad("chat member status can't be changed in private chats")
        self._check_access(chat)
        old, chat.bot_status = chat.bot_status, "left"
        self._my_chat_member(chat, self.bot_user, old, "left")
        return True

    # ------------------------------------------------------------------ assertions API

    def chat(self, chat_id: int) -> Chat:
        return self._chat_of(chat_id)

    def messages(self, chat: Chat | int, *, include_deleted: bool = False,
                 include_user: bool = False) -> list[StoredMessage]:
        """Messages in `chat` in order, current state (bot's only unless include_user)."""
        chat = self._chat_of(chat)
        return [m for m in self._messages.get(chat.id, [])
                if (include_user or m.from_bot) and (include_deleted or not m.deleted)]

    def message(self, chat: Chat | int, message_id: int) -> StoredMessage:
        found = self._find(self._chat_of(chat), message_id)
        if found is None:
            raise AssertionError(f"no message {message_id} in chat {chat}")
        return found

    def last_message(self, chat: Chat | int) -> StoredMessage:
        """The bot's latest not-deleted message in `chat`."""
        sent = self.messages(chat)
        if not sent:
            raise AssertionError(f"the bot sent nothing to chat {self._chat_of(chat).id}")
        return sent[-1]

    def pinned(self, chat: Chat | int) -> list[StoredMessage]:
        return [m for m in self.messages(chat, include_user=True) if m.pinned]

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
        deadline = _now() + timeout
        while True:
            if self.internal_errors:
                raise AssertionError("FakeTelegram internal error:\n" + self.internal_errors[-1])
            result = predicate()
            if result:
                return result
            if _now() >= deadline:
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
                    and _now() - self._last_activity >= idle)

        await self.wait_until(is_idle, timeout=timeout,
                              what=f"the bot to be idle (pending updates: {len(self._updates)})")
