"""One model of Telegram for every test: the world the bot talks to and its Bot API.

:class:`Telegram` keeps users, chats, the messages in them (with their edits), files,
callback queries and their answers, flood limits with ``retry_after`` bans, and the
queue of updates for the bot. It answers Bot API calls given as decoded parameters
(:meth:`Telegram.call`) with Telegram's JSON or an :class:`ApiError` carrying
Telegram's own code and description. Two front ends share it:

* ``tests/support/telegram.py``: :class:`RecordingSession`, an aiogram session that
  encodes each request as aiogram's HTTP session does and asks the model in-process
  (handler tests feed updates with ``Dispatcher.feed_update``);
* ``tests/e2e/fake_telegram.py``: :class:`FakeTelegram`, the same model served over
  HTTP to the real bot process (``getUpdates`` long polling, holds, waits).

Emulated: the methods the bot calls (getMe, setMyCommands, sendMessage, sendPhoto,
sendDocument, sendMediaGroup of photos or documents, editMessageText,
editMessageCaption, editMessageReplyMarkup, deleteMessage, pinChatMessage,
answerCallbackQuery, getChatMember) and their errors: HTML parse errors, the 4096-
and 1024-character limits, 64-byte callback data, "message is not modified",
"message to edit not found", 403 for blocked users, kicked bots and users who never
pressed Start, ``migrate_to_chat_id`` for upgraded groups, and the flood limits of
https://core.telegram.org/bots/faq (a chat: a burst of 3, then about 1 a second -- a
token bucket; a group: 20 a minute; the bot: 30 a second) answered with 429
``retry_after``. Other methods returning True just answer True; anything else is
answered 501 and listed in ``unsupported_calls``.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import mimetypes
import re
import secrets
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import aiogram.methods
from aiogram.types import (
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    ChatMemberRestricted,
    TelegramObject,
)

from .tg_formatting import (
    EntityParseError,
    NotEmulated,
    normalize_entities,
    parse_text,
    strip_text,
    utf16_len,
)

JSON = dict[str, Any]


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars): what ``copy.deepcopy``
    does for it, several times faster (no memo), which the benchmarks' fake needs."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


__all__ = [
    "ANONYMOUS_ADMIN_ID",
    "API_METHODS",
    "JSON",
    "ApiError",
    "CallbackAnswer",
    "Chat",
    "FloodEvent",
    "FloodViolation",
    "Limits",
    "Params",
    "Request",
    "StoredFile",
    "StoredMessage",
    "Telegram",
    "UploadedFile",
    "User",
    "decode_params",
    "member_json",
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
ANONYMOUS_ADMIN_ID = 1087968824  # @GroupAnonymousBot, the sender of anonymous admins
_PRESENT = ("creator", "administrator", "member", "restricted")
_BUTTON_KINDS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)
# Form fields are strings; these are decoded like Telegram decodes them.
_JSON_PARAMS = frozenset({
    "reply_markup", "entities", "caption_entities", "allowed_updates", "commands", "scope",
    "link_preview_options", "reply_parameters", "media", "message_ids",
})
_INT_PARAMS = frozenset({
    "chat_id", "message_id", "offset", "limit", "timeout", "user_id", "reply_to_message_id",
    "message_thread_id", "cache_time",
})
_BOOL_PARAMS = frozenset({
    "disable_notification", "protect_content", "show_alert", "drop_pending_updates",
    "disable_web_page_preview", "allow_sending_without_reply", "has_spoiler",
})
# Methods that post or change a message, and so count toward the flood limits. Written
# apart from bot.telegram.flood on purpose: the bot's pacing is checked against this model.
_COUNTED_EXTRA = frozenset({"copyMessage", "copyMessages", "forwardMessage",
                            "forwardMessages", "pinChatMessage", "stopPoll"})
COMMAND_RE = re.compile(r"(?<![\w/@])/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{3,32}))?(?![\w/])")
_MENTION_RE = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}(?!\w)")
_URL_RE = re.compile(r"\bhttps?://[^\s<>\"']+")


def unix(date: datetime | int | float | None = None) -> int:
    if date is None:
        return int(time.time())
    if isinstance(date, datetime):
        return int(date.timestamp())
    return int(date)


def counts_as_message(method: str) -> bool:
    """Whether a request posts or changes a message (and so is flood limited)."""
    if method == "sendChatAction":
        return False
    return (method.startswith("send") or (method.startswith("edit") and "Message" in method)
            or method in _COUNTED_EXTRA)


# ------------------------------------------------------------------------------- errors


class ApiError(Exception):
    """A Bot API error answer (HTTP status = ``error_code``); descriptions are Telegram's."""

    def __init__(self, error_code: int, description: str,
                 parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters or None

    @property
    def retry_after(self) -> int | None:
        return (self.parameters or {}).get("retry_after")

    @property
    def migrate_to_chat_id(self) -> int | None:
        return (self.parameters or {}).get("migrate_to_chat_id")

    def body(self) -> JSON:
        body: JSON = {"ok": False, "error_code": self.error_code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body

    payload = body

    def __repr__(self) -> str:
        return f"ApiError({self.error_code}, {self.description!r}, {self.parameters!r})"

    @classmethod
    def flood(cls, retry_after: int) -> ApiError:
        """429 -> ``TelegramRetryAfter``."""
        return cls(429, f"Too Many Requests: retry after {retry_after}",
                   {"retry_after": retry_after})

    @classmethod
    def migrated(cls, new_chat_id: int) -> ApiError:
        """Group upgraded to a supergroup -> ``TelegramMigrateToChat``."""
        return cls(400, "Bad Request: group chat was upgraded to a supergroup chat",
                   {"migrate_to_chat_id": new_chat_id})

    @classmethod
    def bad_request(cls, reason: str, parameters: JSON | None = None) -> ApiError:
        """400 -> ``TelegramBadRequest``."""
        return cls(400, f"Bad Request: {reason}", parameters)

    @classmethod
    def forbidden(cls, reason: str) -> ApiError:
        """403 -> ``TelegramForbiddenError``."""
        return cls(403, f"Forbidden: {reason}")

    @classmethod
    def not_modified(cls) -> ApiError:
        return cls.bad_request(
            "message is not modified: specified new message content and reply markup are "
            "exactly the same as a current content and reply markup of the message")

    @classmethod
    def message_to_edit_not_found(cls) -> ApiError:
        return cls.bad_request("message to edit not found")

    @classmethod
    def chat_not_found(cls) -> ApiError:
        return cls.bad_request("chat not found")

    @classmethod
    def query_too_old(cls) -> ApiError:
        return cls.bad_request(
            "query is too old and response timeout expired or query ID is invalid")

    @classmethod
    def cant_initiate(cls) -> ApiError:
        """The user never pressed Start in the bot's private chat."""
        return cls.forbidden("bot can't initiate conversation with a user")

    @classmethod
    def blocked(cls) -> ApiError:
        return cls.forbidden("bot was blocked by the user")

    @classmethod
    def kicked(cls) -> ApiError:
        return cls.forbidden("bot was kicked from the supergroup chat")

    @classmethod
    def not_emulated(cls, what: str) -> ApiError:
        return cls(501, f"Not Implemented: the fake Telegram does not emulate {what}")


_bad = ApiError.bad_request
_forbidden = ApiError.forbidden


def _utf16_len(text: str) -> int:
    """Telegram counts a text's length in UTF-16 code units (an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


# ------------------------------------------------------------------------------- the world


@dataclass(eq=False)
class User:
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = "ru"
    is_bot: bool = False
    is_premium: bool | None = None
    # The user's private chat with the bot.
    started: bool = False
    blocked_bot: bool = False
    deactivated: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_api(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code", "is_premium"):
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
    member_fields: dict[int, JSON] = field(default_factory=dict)  # rights, flags
    bot_status: str = "member"  # member | administrator | left | kicked
    # A group whose permissions (or the bot's restrictions) forbid photos: Telegram
    # answers 400 "not enough rights to send photos to the chat".
    photos_allowed: bool = True
    migrated_to: int | None = None
    migrated_from: int | None = None
    chat_instance: str = field(default_factory=lambda: str(secrets.randbits(62)))
    next_message_id: int = 1
    extra: JSON = field(default_factory=dict)  # more fields of the Chat object

    @property
    def is_private(self) -> bool:
        return self.type == "private"

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def to_api(self) -> JSON:
        if self.user is not None:
            data: JSON = {"id": self.id, "type": "private", "first_name": self.user.first_name}
            for key in ("last_name", "username"):
                if getattr(self.user, key):
                    data[key] = getattr(self.user, key)
            return data
        data = {"id": self.id, "type": self.type, "title": self.title}
        if self.username:
            data["username"] = self.username
        data.update(self.extra)
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
    """A message in a chat (sent by the bot or by a user), as it looks now."""

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
        return [json_copy(b) for row in rows for b in row]

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
                data["entities"] = json_copy(self.entities)
        if self.photo is not None:
            data["photo"] = self.photo.to_api()
        if self.document is not None:
            data["document"] = self.document.to_api()
        if self.caption is not None:
            data["caption"] = self.caption
            if self.caption_entities:
                data["caption_entities"] = json_copy(self.caption_entities)
        if self.reply_markup is not None:
            data["reply_markup"] = json_copy(self.reply_markup)
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        data.update(json_copy(self.extra))
        if not with_reply:
            data.pop("reply_to_message", None)
        return data

    def __repr__(self) -> str:
        flags = "".join(f" {f}" for f in ("pinned", "deleted") if getattr(self, f))
        who = "bot" if self.from_bot else self.sender.get("first_name")
        return (f"<Message {self.chat.id}/{self.message_id} from {who}{flags}: "
                f"{self.content[:80]!r} buttons={self.button_rows}>")


@dataclass
class CallbackAnswer:
    query_id: str
    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None
    time: float
    query: JSON


# ------------------------------------------------------------------------------- flood


@dataclass(frozen=True)
class Limits:
    """Flood limits as in Telegram's bot FAQ.

    ``time_scale`` shrinks every period: with 0.05 "a second" lasts 50 ms, so a
    20-per-minute group limit is exercised in 3 s. ``retry_after`` answers stay whole
    real seconds (at least ``min_retry_after``), as Telegram sends them.
    """

    chat_burst: int = 3  # a chat may get this many at once ...
    chat_per_second: float = 1.0  # ... then this many a second (a token bucket)
    group_per_minute: int = 20
    global_per_second: int = 30
    time_scale: float = 1.0
    min_retry_after: int = 1
    # Requests arriving this soon after a 429 were already in flight: not violations.
    violation_grace: float = 0.05


@dataclass
class FloodEvent:
    time: float
    method: str
    chat_id: int | str | None
    scope: str  # "chat" | "group" | "global" | "injected"
    retry_after: int
    during_ban: bool = False  # answered so because an earlier 429's retry_after runs


@dataclass
class FloodViolation:
    """The bot sent again before the ``retry_after`` it was given had passed."""

    time: float
    method: str
    chat_id: int | str | None
    scope: str
    early_by: float  # seconds before the end of the ban


@dataclass
class _Ban:
    until: float
    issued: float
    scope: str


# ------------------------------------------------------------------------------- requests


class Params:
    """Decoded request parameters with Telegram-like typed accessors."""

    def __init__(self, data: JSON, files: dict[str, Any] | None = None) -> None:
        self.data = data
        self.files: dict[str, UploadedFile] = files or {}

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


def decode_params(raw: JSON) -> JSON:
    """String form fields as Telegram reads them (JSON objects, integers, booleans)."""
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


@dataclass
class UploadedFile:
    """A file uploaded with a request (multipart)."""

    name: str
    filename: str | None
    content_type: str | None
    data: bytes


@dataclass(eq=False)
class Request:
    """A call as the model sees it; ``source`` is the aiogram method in-process."""

    method: str
    params: Params
    source: Any = None

    @property
    def chat_id(self) -> Any:
        return self.params.data.get("chat_id")


@dataclass(eq=False)
class _Scripted:
    matches: Callable[[Request], bool]
    outcome: BaseException
    remaining: int


class _InlineEdit(Exception):
    """Control flow: an edit of an inline message the model takes on trust."""


@dataclass
class _PendingCallback:
    query: JSON
    created: float
    answered: bool = False


# ------------------------------------------------------------------------------- helpers


def _image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of an image, or None when it can't be decoded."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.size
    except Exception:
        return None


_MEMBER_MODELS: dict[str, type[TelegramObject]] = {
    "creator": ChatMemberOwner,
    "administrator": ChatMemberAdministrator,
    "member": ChatMemberMember,
    "restricted": ChatMemberRestricted,
    "left": ChatMemberLeft,
    "kicked": ChatMemberBanned,
}


def member_json(status: str, user: JSON, **fields: Any) -> JSON:
    """ChatMember JSON with every required flag filled, whatever aiogram version adds.

    Admins get every right except ``can_be_edited`` and promoting; restricted members none.
    """
    model = _MEMBER_MODELS[status]
    data: JSON = {"status": status, "user": user}
    for name, info in model.model_fields.items():
        if name in data or not info.is_required():
            continue
        if name == "until_date":
            data[name] = 0
        elif name in ("can_be_edited", "is_anonymous", "can_promote_members"):
            data[name] = False
        else:
            data[name] = status == "administrator" or name == "is_member"
    if status == "administrator":
        data.setdefault("can_pin_messages", True)  # optional in the API, sent for groups
        data.setdefault("can_manage_topics", False)
    data.update(fields)
    return data


def markup_key(markup: JSON | None) -> str:
    return json.dumps(markup, sort_keys=True, ensure_ascii=False)


def auto_entities(text: str) -> list[JSON]:
    """Entities Telegram detects in a user's plain text."""
    found: list[JSON] = []
    for regex, kind in ((COMMAND_RE, "bot_command"), (_MENTION_RE, "mention"),
                        (_URL_RE, "url")):
        for m in regex.finditer(text):
            found.append({"type": kind, "offset": utf16_len(text[: m.start()]),
                          "length": utf16_len(m.group(0))})
    return sorted(found, key=lambda e: e["offset"])


# ------------------------------------------------------------------------------- the model


class Telegram:
    """Telegram as one bot sees it: the world, the Bot API, the updates for the bot.

    :param preexisting: ids the model never issued are taken for things that were
        there before the test began, instead of "chat not found" and the like: a chat
        (a user who pressed Start, a supergroup with the bot as ``bot_status``), a
        callback query (answered once), a file id, an inline message. Handler and flood
        tests use ids they never set up.
    """

    def __init__(
        self,
        *,
        bot_id: int = 42,
        bot_username: str = "fake_test_bot",
        bot_first_name: str = "Test Bot",
        limits: Limits | None = None,
        privacy_mode: bool = True,
        callback_query_ttl: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        preexisting: bool = False,
        bot_status: str = "administrator",
    ) -> None:
        self.bot_user = User(bot_id, bot_first_name, bot_username, language_code=None,
                             is_bot=True)
        self.limits = limits
        self.privacy_mode = privacy_mode
        self.callback_query_ttl = callback_query_ttl
        self.clock = clock
        self.preexisting = preexisting
        # The bench replays calls of another run: message ids never issued are messages
        # sent before (edited, replied to) instead of "not found".
        self.preexisting_messages = False
        self.default_bot_status = bot_status

        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self._messages: dict[int, list[StoredMessage]] = {}
        self._by_id: dict[tuple[int, int], StoredMessage] = {}
        self.files: dict[str, StoredFile] = {}
        self.callback_answers: list[CallbackAnswer] = []
        self.flood_events: list[FloodEvent] = []
        self.flood_violations: list[FloodViolation] = []
        self.unsupported_calls: list[Request] = []
        self.commands: dict[tuple[str, str], list[JSON]] = {}

        self._updates: list[JSON] = []  # not yet confirmed by the bot
        self._update_ids = itertools.count(700_000_001)
        self._allowed_updates: set[str] | None = None
        self.dropped_updates: list[JSON] = []  # filtered out by allowed_updates
        self._callbacks: dict[str, _PendingCallback] = {}
        self._answered_unknown: set[str] = set()
        self._last_tap: str | None = None
        self._scripted: list[_Scripted] = []
        self._buckets: dict[int, tuple[float, float]] = {}
        self._group_sends: dict[int, deque[float]] = {}
        self._global_sends: deque[float] = deque()
        self._bans: dict[tuple[Any, ...], _Ban] = {}
        self._seq = 0
        self._ids = itertools.count(1)

    counts_as_message = staticmethod(counts_as_message)

    @property
    def bot_id(self) -> int:
        return self.bot_user.id

    @property
    def seq(self) -> int:
        """Counter bumped by every message change; pass it as `after=` to wait for news."""
        return self._seq

    @property
    def time_scale(self) -> float:
        return self.limits.time_scale if self.limits is not None else 1.0

    @time_scale.setter
    def time_scale(self, scale: float) -> None:
        self.limits = replace(self.limits or Limits(), time_scale=scale)

    # ------------------------------------------------------------------ the Bot API

    def call(self, method: str, params: Params, *, source: Any = None) -> Any:
        """Answer one Bot API call: the ``result`` JSON, or raise :class:`ApiError`
        (or the exception a test scripted with :meth:`script`)."""
        request = Request(method, params, source)
        self.admit(request)
        handler = getattr(self, f"_api_{method}", None)
        if handler is None:
            if method in BOOL_METHODS:
                return True
            self.unsupported_calls.append(request)
            raise ApiError.not_emulated(method)
        return handler(params)

    def admit(self, request: Request) -> None:
        """What comes before a call is handled: a running ``retry_after`` ban (429 again,
        and a violation unless in flight), then the errors tests scripted."""
        self._check_ban(request)
        method = request.method
        for scripted in self._scripted:
            if scripted.remaining > 0 and scripted.matches(request):
                scripted.remaining -= 1
                self._scripted = [s for s in self._scripted if s.remaining > 0]
                outcome = scripted.outcome
                retry = getattr(outcome, "retry_after", None)
                if isinstance(retry, int) and retry > 0:
                    self._ban(self._ban_keys(request)[0], "injected", retry, self.clock())
                    self.flood_events.append(FloodEvent(self.clock(), method,
                                                        request.chat_id, "injected", retry))
                raise outcome

    def script(self, matches: Callable[[Request], bool], outcome: BaseException, *,
               times: int = 1) -> None:
        """Answer the next ``times`` calls ``matches`` accepts with ``outcome`` (an
        :class:`ApiError`, or any exception to raise as is). A 429 bans like a real one."""
        self._scripted.append(_Scripted(matches, outcome, times))

    def inject_error(self, method: str, *, error_code: int = 500,
                     description: str = "Internal Server Error",
                     parameters: JSON | None = None, chat: Chat | int | None = None,
                     times: int = 1) -> None:
        """Answer the next `times` calls of `method` (in `chat`) with this error."""
        canonical = API_METHODS.get(method.lower(), method)
        chat_id = None if chat is None else self._chat_of(chat).id
        self.script(lambda r: r.method == canonical and chat_id in (None, r.chat_id),
                    ApiError(error_code, description, parameters), times=times)

    def inject_flood(self, chat: Chat | int, retry_after: int = 1, *, times: int = 1) -> None:
        """The next `times` sends/edits in `chat` get 429 with this retry_after (and a ban)."""
        chat_id = self._chat_of(chat).id
        self.script(lambda r: counts_as_message(r.method) and r.chat_id == chat_id,
                    ApiError.flood(retry_after), times=times)

    # ------------------------------------------------------------------ flood control

    def reset_flood_state(self) -> None:
        self._buckets.clear()
        self._group_sends.clear()
        self._global_sends.clear()
        self._bans.clear()

    @property
    def count_429(self) -> int:
        return len(self.flood_events)

    def _chat_key(self, request: Request) -> Any:
        raw = request.chat_id
        if isinstance(raw, str) and raw.startswith("@"):
            chat = self._find_username(raw)
            return chat.id if chat is not None else raw
        return raw

    def _ban_keys(self, request: Request) -> list[tuple[Any, ...]]:
        if counts_as_message(request.method):
            return [("chat", self._chat_key(request)), ("global",)]
        return [(request.method, self._chat_key(request))]

    def _check_ban(self, request: Request) -> None:
        now = self.clock()
        grace = (self.limits or Limits()).violation_grace
        for key in self._ban_keys(request):
            ban = self._bans.get(key)
            if ban is None or now >= ban.until:
                continue
            if now - ban.issued > grace:
                self.flood_violations.append(FloodViolation(
                    now, request.method, request.chat_id, ban.scope, ban.until - now))
            self._raise_429(request.method, request.chat_id, ban.scope,
                            max(1, math.ceil(ban.until - now)), during_ban=True)

    def _flood(self, chat: Chat, method: str, count: int = 1) -> None:
        """429 like Telegram when a message posted or changed in `chat` exceeds a limit."""
        lim = self.limits
        if lim is None:
            return
        now = self.clock()
        scale = lim.time_scale
        rate = lim.chat_per_second / scale
        tokens, last = self._buckets.get(chat.id, (float(lim.chat_burst), now))
        tokens = min(float(lim.chat_burst), tokens + (now - last) * rate)
        waits: list[tuple[float, str, tuple[Any, ...]]] = []
        if tokens < 1.0 - 1e-9:
            waits.append(((1.0 - tokens) / rate, "chat", ("chat", chat.id)))
        group = self._group_sends.setdefault(chat.id, deque())
        if chat.is_group:
            window = 60 * scale
            while group and group[0] <= now - window:
                group.popleft()
            excess = len(group) + min(count, lim.group_per_minute) - lim.group_per_minute
            if excess > 0:
                waits.append((group[excess - 1] + window - now, "group", ("chat", chat.id)))
        window = scale
        sends = self._global_sends
        while sends and sends[0] <= now - window:
            sends.popleft()
        excess = len(sends) + min(count, lim.global_per_second) - lim.global_per_second
        if excess > 0:
            waits.append((sends[excess - 1] + window - now, "global", ("global",)))
        if waits:
            wait, scope, key = max(waits)
            retry = max(lim.min_retry_after, math.ceil(wait))
            self._buckets[chat.id] = (tokens, now)
            self._ban(key, scope, retry, now)
            self._raise_429(method, chat.id, scope, retry)
        self._buckets[chat.id] = (tokens - 1.0, now)  # an album is one burst
        if chat.is_group:
            group.extend([now] * min(count, lim.group_per_minute))
        sends.extend([now] * min(count, lim.global_per_second))

    def _ban(self, key: tuple[Any, ...], scope: str, retry: int, now: float) -> None:
        self._bans[key] = _Ban(until=now + retry, issued=now, scope=scope)

    def _raise_429(self, method: str, chat_id: Any, scope: str, retry: int, *,
                   during_ban: bool = False) -> None:
        self.flood_events.append(FloodEvent(self.clock(), method, chat_id, scope, retry,
                                            during_ban))
        raise ApiError.flood(retry)

    # ------------------------------------------------------------------ updates for the bot

    def _on_update(self) -> None:
        """Called when an update is queued (the HTTP front end wakes its long polls)."""

    def _accepts(self, kind: str) -> bool:
        if self._allowed_updates is None:
            return kind not in ("chat_member", "message_reaction", "message_reaction_count")
        return kind in self._allowed_updates

    def enqueue_update(self, kind: str, payload: JSON) -> JSON | None:
        """Queue an update for the bot; None if allowed_updates filters it out."""
        if not self._accepts(kind):
            self.dropped_updates.append({kind: payload})
            return None
        update = {"update_id": next(self._update_ids), kind: payload}
        self._updates.append(update)
        self._on_update()
        return update

    @property
    def pending_updates(self) -> list[JSON]:
        """Updates not yet confirmed by the bot (delivered or not)."""
        return list(self._updates)

    def _confirm(self, offset: int | None) -> None:
        if not offset:
            return
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        else:
            self._updates = self._updates[offset:]

    def _api_getUpdates(self, p: Params) -> list[JSON]:
        """What is queued, without waiting (the HTTP front end long-polls)."""
        allowed = p.obj("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = {str(a) for a in allowed} or None
        self._confirm(p.integer("offset"))
        limit = min(max(p.integer("limit") or 100, 1), 100)
        return json_copy(self._updates[:limit])

    # ------------------------------------------------------------------ the world

    def _chat_of(self, chat: Chat | int) -> Chat:
        if isinstance(chat, Chat):
            return chat
        try:
            return self.chats[chat]
        except KeyError:
            raise AssertionError(f"unknown chat {chat}") from None

    def _find_username(self, name: str) -> Chat | None:
        return next((c for c in self.chats.values() if c.username and not c.is_private
                     and c.username.lower() == name[1:].lower()), None)

    def add_user(self, user_id: int, first_name: str, username: str | None = None, *,
                 last_name: str | None = None, language_code: str | None = "ru",
                 is_bot: bool = False, is_premium: bool | None = None) -> User:
        """A user with a given id (updated if known); his private chat exists."""
        user = self.users.get(user_id)
        if user is None:
            user = self.users[user_id] = User(user_id, first_name)
            self.chats.setdefault(user_id, Chat(user_id, "private", user=user))
        user.first_name, user.username, user.last_name = first_name, username, last_name
        user.language_code, user.is_bot, user.is_premium = language_code, is_bot, is_premium
        return user

    def create_user(self, first_name: str, username: str | None = None,
                    language_code: str | None = "ru", *, last_name: str | None = None,
                    is_bot: bool = False) -> User:
        """A new user (ids above 2**32 like real ones) who has not started the bot yet."""
        return self.add_user(7_100_000_000 + next(self._ids), first_name, username,
                             last_name=last_name, language_code=language_code, is_bot=is_bot)

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

    def add_group(self, chat_id: int, title: str | None = None, *, type: str | None = None,
                  bot_status: str | None = None, **extra: Any) -> Chat:
        """A group with a given id (title, type and fields updated if given)."""
        chat = self.chats.get(chat_id)
        if chat is None:
            chat = self.chats[chat_id] = Chat(
                chat_id, type or "supergroup", title=title or f"Test group {chat_id}",
                bot_status=bot_status or self.default_bot_status)
        if title is not None:
            chat.title = title
        if type is not None:
            chat.type = type
        if bot_status is not None:
            chat.bot_status = bot_status
        chat.username = extra.pop("username", chat.username)
        chat.extra.update(extra)
        return chat

    def create_group(self, title: str, members: Iterable[User] = (), bot_is_admin: bool = True,
                     *, admins: Iterable[User] = (), creator: User | None = None,
                     supergroup: bool = False, username: str | None = None,
                     bot_in_group: bool = True) -> Chat:
        """A group with these members (the first one is the creator unless given)."""
        members = list(members)
        n = next(self._ids)
        chat_id = -1_002_100_000_000 - n if supergroup else -4_100_000_000 - n
        status = ("administrator" if bot_is_admin else "member") if bot_in_group else "left"
        chat = self.add_group(chat_id, title, type="supergroup" if supergroup else "group",
                              bot_status=status)
        chat.username = username
        creator = creator or (members[0] if members else None)
        for user in members:
            chat.members[user.id] = "member"
        for user in admins:
            chat.members[user.id] = "administrator"
        if creator is not None:
            chat.members[creator.id] = "creator"
        return chat

    def set_member(self, chat: Chat | int, user: User, status: str, **fields: Any) -> None:
        """``user``'s status in a group (creator, administrator, member, restricted,
        left, kicked; the bot's own too); ``fields`` override rights and flags of
        getChatMember's answer."""
        group = self._chat_of(chat)
        if user.id == self.bot_id:
            group.bot_status = status
        else:
            group.members[user.id] = status
        group.member_fields[user.id] = fields

    def _my_chat_member(self, chat: Chat, by: User, old: str, new: str,
                        date: int | None = None, **new_fields: Any) -> JSON | None:
        return self.enqueue_update("my_chat_member", self.my_chat_member_json(
            chat, by, old, new, date=date, **new_fields))

    def my_chat_member_json(self, chat: Chat, by: User, old: str, new: str, *,
                            date: int | None = None, **new_fields: Any) -> JSON:
        if chat.is_group:
            chat.bot_status = new
        elif new == "kicked" and chat.user is not None:
            chat.user.blocked_bot = True
        elif chat.user is not None:
            chat.user.blocked_bot, chat.user.started = False, True
        bot = self.bot_user.to_api()
        return {"chat": chat.to_api(), "from": by.to_api(), "date": date or unix(),
                "old_chat_member": member_json(old, bot),
                "new_chat_member": member_json(new, bot, **new_fields)}

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
        self._my_chat_member(group, actor, group.bot_status,
                             "administrator" if as_admin else "member")
        self._service(group, actor, {"new_chat_members": [self.bot_user.to_api()]})

    def kick_bot(self, group: Chat, *, by: User | None = None) -> None:
        """The bot is removed from the group: further sends get 403."""
        self._my_chat_member(group, self._group_actor(group, by), group.bot_status, "kicked")

    def promote_bot(self, group: Chat, *, by: User | None = None) -> None:
        self._my_chat_member(group, self._group_actor(group, by), group.bot_status,
                             "administrator")

    def demote_bot(self, group: Chat, *, by: User | None = None) -> None:
        self._my_chat_member(group, self._group_actor(group, by), group.bot_status, "member")

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
            msg = self.post(group, actor, extra={"migrate_to_chat_id": new.id})
            self.enqueue_update("message", msg.to_api())
            msg = self.post(new, actor, extra={"migrate_from_chat_id": group.id})
            self.enqueue_update("message", msg.to_api())
        return new.id

    def _service(self, chat: Chat, actor: User, extra: JSON) -> JSON:
        msg = self.post(chat, actor, extra=extra)
        payload = msg.to_api()
        if self._bot_receives(chat, msg, service=True):
            self.enqueue_update("message", payload)
        return payload

    # ------------------------------------------------------------------ users act

    def _check_can_post(self, user: User, chat: Chat) -> None:
        if chat.is_private:
            if chat.user is not user:
                raise AssertionError(f"{user.first_name} can't write in another user's chat")
            if not user.started:
                raise AssertionError(f"{user.first_name} has not started the bot: "
                                     "call start_private(user) first")
            if user.blocked_bot:
                raise AssertionError(f"{user.first_name} blocked the bot")
            return
        if chat.migrated_to is not None:
            raise AssertionError(f"group {chat.title!r} was migrated to {chat.migrated_to}")
        if chat.members.get(user.id) not in _PRESENT:
            raise AssertionError(f"{user.first_name} is not a member of {chat.title!r}")

    def _bot_receives(self, chat: Chat, msg: StoredMessage, *, service: bool = False) -> bool:
        if chat.is_private:
            return True
        if chat.bot_status not in ("member", "administrator") or chat.migrated_to is not None:
            return False
        if service or not self.privacy_mode or chat.bot_status == "administrator":
            return True
        # Privacy mode: only commands (not addressed to other bots) and replies to the bot.
        m = COMMAND_RE.match(msg.content)
        if m:
            target = m.group(2)
            return target is None or target.lower() == (self.bot_user.username or "").lower()
        return msg.reply_to is not None and msg.reply_to.from_bot

    def post(self, chat: Chat, sender: User | None, *, from_bot: bool = False,
             date: datetime | int | None = None, **fields: Any) -> StoredMessage:
        """Store a new message in `chat` (no checks, no update): the world's record."""
        self._seq += 1
        msg = StoredMessage(chat=chat, message_id=chat.next_message_id,
                            sender=self.bot_user.to_api() if from_bot or sender is None
                            else sender.to_api(),
                            from_bot=from_bot, date=unix(date), seq=self._seq,
                            updated_seq=self._seq, **fields)
        chat.next_message_id += 1
        self._messages.setdefault(chat.id, []).append(msg)
        self._by_id[(chat.id, msg.message_id)] = msg
        return msg

    def message_of(self, message: StoredMessage | JSON) -> StoredMessage:
        if isinstance(message, StoredMessage):
            return message
        found = self.find(self._chat_of(message["chat"]["id"]), message["message_id"])
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
            target = self.find(chat, reply_to)
            if target is None:
                raise AssertionError(f"no message {reply_to} in chat {chat.id}")
        elif reply_to is not None:
            target = self.message_of(reply_to)
        extra: JSON = {}
        if forward_from is not None:
            extra["forward_origin"] = {"type": "user", "sender_user": forward_from.to_api(),
                                       "date": unix(date)}
        msg = self.post(chat, user, date=date, text=text,
                        entities=entities if entities is not None else auto_entities(text),
                        reply_to=target, extra=extra)
        payload = msg.to_api()
        if self._bot_receives(chat, msg):
            self.enqueue_update("message", payload)
        return payload

    def anonymous_admin(self) -> User:
        """@GroupAnonymousBot, the sender Telegram shows for anonymous group admins."""
        anonymous = self.users.get(ANONYMOUS_ADMIN_ID)
        if anonymous is None:
            anonymous = self.users[ANONYMOUS_ADMIN_ID] = User(
                ANONYMOUS_ADMIN_ID, "Group", "GroupAnonymousBot", language_code=None,
                is_bot=True)
        return anonymous

    def send_anonymous(self, group: Chat | int, text: str) -> JSON:
        """An admin who "remains anonymous" writes in the group: Telegram shows the
        group itself as the sender (``sender_chat``), from @GroupAnonymousBot."""
        chat = self._chat_of(group)
        if not chat.is_group:
            raise AssertionError("only group admins can remain anonymous")
        msg = self.post(chat, self.anonymous_admin(), text=text, entities=auto_entities(text),
                        extra={"sender_chat": chat.to_api()})
        payload = msg.to_api()
        if self._bot_receives(chat, msg):
            self.enqueue_update("message", payload)
        return payload

    def tap(self, user: User, message: StoredMessage | JSON, button: str) -> JSON:
        """Press an inline button (by text or callback_data) of a message the bot sent, in
        its current (edited) state; returns the callback_query dict."""
        msg = self.message_of(message)
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
        return self._callback(user, self.message_of(message), data)

    def _callback(self, user: User, msg: StoredMessage, data: str) -> JSON:
        chat = msg.chat
        if chat.is_private and chat.user is not user:
            raise AssertionError(f"{user.first_name} can't see {msg!r}")
        if chat.is_group and chat.members.get(user.id) not in _PRESENT:
            raise AssertionError(f"{user.first_name} is not a member of {chat.title!r}")
        query = self.callback_query(user, msg, data)
        self.enqueue_update("callback_query", query)
        return query

    def callback_query(self, user: User, msg: StoredMessage | JSON | None, data: str | None,
                       *, inline_message_id: str | None = None) -> JSON:
        """A pending callback query (the bot may answer it once) as Telegram sends it."""
        query_id = str(secrets.randbits(62))
        query: JSON = {"id": query_id, "from": user.to_api()}
        chat_key: Any = None
        if isinstance(msg, StoredMessage):
            query["message"] = msg.to_api()
            chat_key = msg.chat.chat_instance
        elif msg is not None:
            query["message"] = msg
            chat_key = msg["chat"]["id"]
        if inline_message_id is not None:
            query["inline_message_id"] = inline_message_id
        # An opaque id that is stable per chat.
        query["chat_instance"] = (chat_key if isinstance(chat_key, str) else
                                  str(zlib.crc32(f"{chat_key}:{inline_message_id}".encode())))
        if data is not None:
            query["data"] = data
        self._callbacks[query_id] = _PendingCallback(query, self.clock())
        self._last_tap = query_id
        return query

    # ------------------------------------------------------------------ bot-side helpers

    def _chat_arg(self, p: Params, name: str = "chat_id") -> Chat:
        raw = p.data.get(name)
        if raw in (None, ""):
            raise _bad("chat_id is empty")
        chat: Chat | None = None
        if isinstance(raw, int) and not isinstance(raw, bool):
            chat = self.chats.get(raw)
            if chat is None and self.preexisting:
                chat = self._auto_chat(raw)
        elif isinstance(raw, str) and raw.startswith("@"):
            chat = self._find_username(raw)
        if chat is None:
            raise ApiError.chat_not_found()
        return chat

    def _auto_chat(self, chat_id: int) -> Chat:
        if chat_id > 0:
            user = self.add_user(chat_id, f"User {chat_id}")
            user.started = True
            return self.chats[chat_id]
        return self.add_group(chat_id)

    def _check_access(self, chat: Chat) -> None:
        """Errors Telegram gives when the bot can't write to the chat."""
        if chat.user is not None:
            if chat.user.deactivated:
                raise _forbidden("user is deactivated")
            if chat.user.blocked_bot:
                raise ApiError.blocked()
            if not chat.user.started:
                raise ApiError.cant_initiate()
            return
        if chat.migrated_to is not None:
            raise ApiError.migrated(chat.migrated_to)
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
            except NotEmulated as exc:
                raise ApiError.not_emulated(str(exc)) from None
            except ValueError:
                raise _bad("unsupported parse_mode") from None
        plain, ents = strip_text(plain, ents)
        if caption:
            if _utf16_len(plain) > CAPTION_LIMIT:
                raise _bad("message caption is too long")
        elif not plain:
            raise _bad("message text is empty")
        elif _utf16_len(plain) > TEXT_LIMIT:
            raise _bad("message is too long")
        return plain, ents

    def _check_markup(self, markup: Any) -> JSON | None:
        """The inline keyboard after Telegram's validation (reply keyboards: None)."""
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise _bad("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            if "keyboard" in markup or markup.get("remove_keyboard") or markup.get("force_reply"):
                return None  # shown by the client; the bot never uses them
            raise _bad("can't parse reply keyboard markup JSON object")
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
                if "url" in button and not re.match(r"(https?|tg)://\S+$", str(button["url"])):
                    raise _bad("BUTTON_URL_INVALID")
                clean.append(button)
            if clean:
                clean_rows.append(clean)
        return {"inline_keyboard": clean_rows} if clean_rows else None

    def bot_message_at(self, chat: Chat, message_id: int, text: str = "…") -> StoredMessage:
        """A message the bot sent earlier under a given id (before the test began)."""
        found = self.find(chat, message_id)
        if found is not None:
            return found
        self._seq += 1
        msg = StoredMessage(chat=chat, message_id=message_id, sender=self.bot_user.to_api(),
                            from_bot=True, date=unix(), seq=self._seq, updated_seq=self._seq,
                            text=text)
        chat.next_message_id = max(chat.next_message_id, message_id + 1)
        self._messages.setdefault(chat.id, []).insert(0, msg)
        self._by_id[(chat.id, message_id)] = msg
        return msg

    def find(self, chat: Chat, message_id: int | None) -> StoredMessage | None:
        if message_id is None:
            return None
        return self._by_id.get((chat.id, message_id))

    def _reply_target(self, chat: Chat, p: Params) -> StoredMessage | None:
        rp = p.obj("reply_parameters")
        if isinstance(rp, dict):
            mid = rp.get("message_id")
            allow = bool(rp.get("allow_sending_without_reply"))
        else:
            mid = p.integer("reply_to_message_id")
            allow = p.flag("allow_sending_without_reply")
        if mid is None:
            return None
        target = self.find(chat, int(mid))
        if target is None and self.preexisting_messages:
            target = self.bot_message_at(chat, int(mid))
        if target is None or target.deleted:
            if allow:
                return None
            raise _bad("message to be replied not found")
        return target

    def _new_file(self, kind: str, data: bytes | None, filename: str | None,
                  mime_type: str | None, *, size: tuple[int, int] | None = None) -> StoredFile:
        f = StoredFile(file_id=f"{'AgAC' if kind == 'photo' else 'BQAC'}{secrets.token_hex(16)}",
                       file_unique_id=secrets.token_hex(8), kind=kind, data=data,
                       filename=filename, mime_type=mime_type,
                       width=size[0] if size else None, height=size[1] if size else None)
        self.files[f.file_id] = f
        return f

    def _input_file(self, p: Params, value: Any, kind: str) -> StoredFile:
        upload = p.files.get(kind) if value is None else None  # a multipart field "photo"
        if isinstance(value, str) and value.startswith("attach://"):
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
        existing = self.files.get(value) if isinstance(value, str) else None
        if existing is None and self.preexisting and isinstance(value, str):
            existing = self.files[value] = StoredFile(value, f"U{value}", kind, b"x" * 1024,
                                                      width=1280, height=720)
        if existing is None:
            raise _bad("wrong file identifier/HTTP URL specified")
        if existing.kind != kind:
            raise _bad(f"can't use file of type {existing.kind.title()} as {kind.title()}")
        return existing

    def _record_edit(self, msg: StoredMessage, **changes: Any) -> None:
        msg.revisions.append(Revision(self.clock(), msg.text, json_copy(msg.entities),
                                      msg.caption, json_copy(msg.reply_markup)))
        for key, value in changes.items():
            setattr(msg, key, value)
        msg.edit_date = unix()
        self._changed(msg)

    def _changed(self, msg: StoredMessage) -> None:
        self._seq += 1
        msg.updated_seq = self._seq

    def _send_common(self, p: Params, method: str, chat: Chat, **fields: Any) -> JSON:
        """Shared tail of send* methods: markup, reply, flood check, store."""
        inline = self._check_markup(p.obj("reply_markup"))
        reply_to = self._reply_target(chat, p)
        self._flood(chat, method)
        extra: JSON = {}
        thread = p.integer("message_thread_id")
        if thread is not None and chat.is_group:
            extra.update(message_thread_id=thread, is_topic_message=True)
        msg = self.post(chat, None, from_bot=True, reply_markup=inline, reply_to=reply_to,
                        parse_mode=p.text("parse_mode"), extra=extra, **fields)
        return msg.to_api()

    # ------------------------------------------------------------------ Bot API methods

    def _api_getMe(self, p: Params) -> JSON:
        return {**self.bot_user.to_api(), "can_join_groups": True,
                "can_read_all_group_messages": not self.privacy_mode,
                "supports_inline_queries": False, "can_connect_to_business": False,
                "has_main_web_app": False}

    def _commands_key(self, p: Params) -> tuple[str, str]:
        scope = p.obj("scope") or {"type": "default"}
        return markup_key(scope), p.text("language_code") or ""

    def _api_setMyCommands(self, p: Params) -> bool:
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

    def _api_getMyCommands(self, p: Params) -> list[JSON]:
        return json_copy(self.commands.get(self._commands_key(p), []))

    def bot_commands(self, scope: JSON | None = None, language_code: str = "") -> list[str]:
        """Command names the bot registered for a scope (default scope by default)."""
        key = (markup_key(scope or {"type": "default"}), language_code)
        return [c["command"] for c in self.commands.get(key, [])]

    def _api_sendMessage(self, p: Params) -> JSON:
        chat = self._chat_arg(p)
        self._check_access(chat)
        text, entities = self._format(p.text("text"), p.text("parse_mode"), p.obj("entities"))
        return self._send_common(p, "sendMessage", chat, text=text, entities=entities,
                                 source=p.text("text"))

    @staticmethod
    def _check_photos(chat: Chat) -> None:
        if chat.is_group and not chat.photos_allowed:
            raise _bad("not enough rights to send photos to the chat")

    def _send_media(self, p: Params, method: str, kind: str) -> JSON:
        chat = self._chat_arg(p)
        self._check_access(chat)
        if kind == "photo":
            self._check_photos(chat)
        caption, entities = self._format(p.text("caption"), p.text("parse_mode"),
                                         p.obj("caption_entities"), caption=True)
        stored = self._input_file(p, p.data.get(kind), kind)
        return self._send_common(p, method, chat, caption=caption or None,
                                 caption_entities=entities, source=p.text("caption"),
                                 **{kind: stored})

    def _api_sendPhoto(self, p: Params) -> JSON:
        return self._send_media(p, "sendPhoto", "photo")

    def _api_sendDocument(self, p: Params) -> JSON:
        return self._send_media(p, "sendDocument", "document")

    def _api_sendMediaGroup(self, p: Params) -> list[JSON]:
        """An album of 2-10 photos or of 2-10 documents; each item becomes a message
        with ``media_group_id``."""
        chat = self._chat_arg(p)
        self._check_access(chat)
        media = p.obj("media")
        if not isinstance(media, list) or not all(isinstance(m, dict) for m in media):
            raise _bad("can't parse media JSON object")
        if not 2 <= len(media) <= 10:
            raise _bad("wrong number of media specified: an album has 2-10 items")
        kinds = {str(m.get("type")) for m in media}
        if not kinds <= {"photo", "document"}:
            raise ApiError.not_emulated("albums of other media than photos or documents")
        if len(kinds) > 1:
            raise _bad("document can't be mixed with other media types")
        if "photo" in kinds:
            self._check_photos(chat)
        reply_to = self._reply_target(chat, p)
        prepared: list[tuple[str, str | None, list[JSON], StoredFile, JSON]] = []
        for item in media:
            kind = str(item["type"])
            text, entities = self._format(item.get("caption"), item.get("parse_mode"),
                                          item.get("caption_entities"), caption=True)
            stored = self._input_file(p, item.get("media") or "", kind)
            prepared.append((kind, text or None, entities, stored, item))
        self._flood(chat, "sendMediaGroup", len(media))
        group_id = str(secrets.randbits(62))
        sent = []
        for kind, caption, entities, stored, item in prepared:
            files: dict[str, Any] = {kind: stored}
            msg = self.post(chat, None, from_bot=True, reply_to=reply_to,
                            parse_mode=item.get("parse_mode"), caption=caption,
                            caption_entities=entities, source=item.get("caption"),
                            extra={"media_group_id": group_id}, **files)
            sent.append(msg.to_api())
        return sent

    def _edit_target(self, p: Params) -> StoredMessage:
        if p.has("inline_message_id"):
            if self.preexisting:
                raise _InlineEdit
            raise ApiError.not_emulated("inline messages")
        chat = self._chat_arg(p)
        self._check_access(chat)
        mid = p.integer("message_id")
        if mid is None:
            raise _bad("message identifier is not specified")
        msg = self.find(chat, mid)
        if msg is None and self.preexisting_messages:
            msg = self.bot_message_at(chat, mid)
        if msg is None or msg.deleted:
            raise ApiError.message_to_edit_not_found()
        if not msg.from_bot:
            raise _bad("message can't be edited")
        return msg

    def _api_editMessageText(self, p: Params) -> JSON | bool:
        try:
            msg = self._edit_target(p)
        except _InlineEdit:
            return True  # Telegram answers True for inline messages
        if msg.text is None:
            raise _bad("there is no text in the message to edit")
        text, entities = self._format(p.text("text"), p.text("parse_mode"), p.obj("entities"))
        inline = self._check_markup(p.obj("reply_markup"))
        if (text == msg.text and normalize_entities(entities) == normalize_entities(msg.entities)
                and markup_key(inline) == markup_key(msg.reply_markup)):
            raise ApiError.not_modified()
        self._flood(msg.chat, "editMessageText")
        self._record_edit(msg, text=text, entities=entities, reply_markup=inline,
                          source=p.text("text"), parse_mode=p.text("parse_mode"))
        return msg.to_api()

    def _api_editMessageCaption(self, p: Params) -> JSON | bool:
        try:
            msg = self._edit_target(p)
        except _InlineEdit:
            return True  # Telegram answers True for inline messages
        if msg.photo is None and msg.document is None:
            raise _bad("there is no caption in the message to edit")
        caption, entities = self._format(p.text("caption"), p.text("parse_mode"),
                                         p.obj("caption_entities"), caption=True)
        inline = self._check_markup(p.obj("reply_markup"))
        if ((caption or None) == msg.caption and markup_key(inline) == markup_key(
                msg.reply_markup) and normalize_entities(entities) == normalize_entities(
                msg.caption_entities)):
            raise ApiError.not_modified()
        self._flood(msg.chat, "editMessageCaption")
        self._record_edit(msg, caption=caption or None, caption_entities=entities,
                          reply_markup=inline, source=p.text("caption"))
        return msg.to_api()

    def _api_editMessageReplyMarkup(self, p: Params) -> JSON | bool:
        try:
            msg = self._edit_target(p)
        except _InlineEdit:
            return True  # Telegram answers True for inline messages
        inline = self._check_markup(p.obj("reply_markup"))
        if markup_key(inline) == markup_key(msg.reply_markup):
            raise ApiError.not_modified()
        self._flood(msg.chat, "editMessageReplyMarkup")
        self._record_edit(msg, reply_markup=inline)
        return msg.to_api()

    def _api_deleteMessage(self, p: Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        msg = self.find(chat, p.integer("message_id"))
        if msg is None or msg.deleted:
            raise _bad("message to delete not found")
        if not msg.from_bot and chat.is_group and chat.bot_status != "administrator":
            raise _bad("message can't be deleted")
        msg.deleted = True
        self._changed(msg)
        return True

    def _api_pinChatMessage(self, p: Params) -> bool:
        chat = self._chat_arg(p)
        self._check_access(chat)
        msg = self.find(chat, p.integer("message_id"))
        if msg is None or msg.deleted:
            raise _bad("message to pin not found")
        if chat.is_group and chat.bot_status != "administrator":
            raise _bad("not enough rights to manage pinned messages in the chat")
        self._flood(chat, "pinChatMessage")
        msg.pinned = True
        self._changed(msg)
        return True

    def _api_answerCallbackQuery(self, p: Params) -> bool:
        query_id = p.text("callback_query_id") or ""
        pending = self._callbacks.get(query_id)
        if pending is None and self.preexisting and query_id not in self._answered_unknown:
            self._answered_unknown.add(query_id)
            pending = _PendingCallback({"id": query_id}, self.clock())
        ttl = self.callback_query_ttl
        if pending is None or pending.answered or (
                ttl is not None and self.clock() - pending.created > ttl):
            raise ApiError.query_too_old()
        text = p.text("text")
        if text is not None and len(text) > CALLBACK_TEXT_LIMIT:
            raise _bad("MESSAGE_TOO_LONG")
        pending.answered = True
        self.callback_answers.append(CallbackAnswer(
            query_id, text, p.flag("show_alert"), p.text("url"), p.integer("cache_time"),
            self.clock(), pending.query))
        return True

    def _status_in(self, chat: Chat, user_id: int) -> str:
        if user_id == self.bot_id:
            return "member" if chat.is_private else chat.bot_status
        if chat.is_private:
            if chat.user is None or chat.user.id != user_id:
                raise _bad("user not found")
            return "member"
        return chat.members.get(user_id, "member" if self.preexisting else "left")

    def _api_getChatMember(self, p: Params) -> JSON:
        chat = self._chat_arg(p)
        if chat.is_group:
            self._check_access(chat)
        user_id = p.integer("user_id")
        if user_id is None:
            raise _bad("invalid user_id specified")
        user = self.bot_user if user_id == self.bot_id else self.users.get(user_id)
        if user is None and self.preexisting:
            user = self._auto_chat(user_id).user
        if user is None:
            raise _bad("user not found")
        return member_json(self._status_in(chat, user_id), user.to_api(),
                           **chat.member_fields.get(user_id, {}))

    # ------------------------------------------------------------------ assertions API

    def chat(self, chat_id: int) -> Chat:
        return self._chat_of(chat_id)

    def messages(self, chat: Chat | int, *, include_deleted: bool = False,
                 include_user: bool = False) -> list[StoredMessage]:
        """Messages in `chat` in order, current state (bot's only unless include_user)."""
        chat_id = chat.id if isinstance(chat, Chat) else chat
        return [m for m in self._messages.get(chat_id, [])
                if (include_user or m.from_bot) and (include_deleted or not m.deleted)]

    def message(self, chat: Chat | int, message_id: int) -> StoredMessage:
        found = self.find(self._chat_of(chat), message_id)
        if found is None:
            raise AssertionError(f"no message {message_id} in chat {chat}")
        return found

    def last_message(self, chat: Chat | int) -> StoredMessage:
        """The bot's latest not-deleted message in `chat`."""
        sent = self.messages(chat)
        if not sent:
            raise AssertionError(f"the bot sent nothing to chat {chat}")
        return sent[-1]

    def pinned(self, chat: Chat | int) -> list[StoredMessage]:
        return [m for m in self.messages(chat, include_user=True) if m.pinned]
