"""An offline Telegram for tests.

* :class:`RecordingSession` - an aiogram ``BaseSession`` that records every request and
  answers it like the Bot API would, without network. Requests go through the session
  middleware chain exactly as with ``AiohttpSession``, and every answer (success or
  error) is rendered as a JSON response and parsed by ``BaseSession.check_response``,
  so handlers get the same bound objects and the same exceptions as in production.
* :class:`ApiError` - scripted error responses (429, migrate, "message is not modified",
  "bot can't initiate conversation", ...) for :meth:`RecordingSession.fail_next`.
* :class:`Limits` - optional server-side flood limits: the session answers 429 when a
  client exceeds them and counts ``violations`` (requests sent before a ``retry_after``
  expired), which is how flood-control tests prove nothing was mishandled.
* :class:`UpdateFactory` - incoming updates with the fields Telegram really sends.
* :func:`buttons` - flatten an inline keyboard to ``(text, callback_data)`` pairs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
import zlib
from collections import deque
from collections.abc import AsyncGenerator, Callable, Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from aiogram.client.session.base import BaseSession
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import TelegramMethod
from aiogram.types import (
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    ChatMemberRestricted,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    TelegramObject,
    Update,
    User,
)

if TYPE_CHECKING:
    from aiogram import Bot

__all__ = [
    "ANONYMOUS_ADMIN_ID",
    "BOT_FIRST_NAME",
    "BOT_ID",
    "BOT_TOKEN",
    "BOT_USERNAME",
    "ApiError",
    "Call",
    "Limits",
    "RecordingSession",
    "UpdateFactory",
    "buttons",
]

BOT_TOKEN = "42:TEST"
BOT_ID = 42
BOT_USERNAME = "mafia_test_bot"
BOT_FIRST_NAME = "Mafia Test Bot"
# Telegram's placeholder sender for messages of anonymous group admins.
ANONYMOUS_ADMIN_ID = 1087968824

ChatId = int | str
Json = dict[str, Any]
M = TypeVar("M", bound=TelegramMethod[Any])
Matcher = str | type[TelegramMethod[Any]] | Callable[[TelegramMethod[Any]], bool] | None


def _utf16_len(text: str) -> int:
    # Telegram measures entity offsets and lengths in UTF-16 code units.
    return len(text.encode("utf-16-le")) // 2


def _dump(obj: TelegramObject) -> Json:
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


def _timestamp(date: datetime | int | None) -> int:
    if date is None:
        return int(time.time())
    if isinstance(date, datetime):
        return int(date.timestamp())
    return date


def _is_group(chat_id: ChatId) -> bool:
    return isinstance(chat_id, str) or chat_id < 0


# ---------------------------------------------------------------------------- errors


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error response as the Bot API sends it; descriptions are Telegram's own."""

    error_code: int
    description: str
    retry_after: int | None = None
    migrate_to_chat_id: int | None = None

    def payload(self) -> Json:
        data: Json = {"ok": False, "error_code": self.error_code, "description": self.description}
        parameters = {
            key: value
            for key, value in (
                ("retry_after", self.retry_after),
                ("migrate_to_chat_id", self.migrate_to_chat_id),
            )
            if value is not None
        }
        if parameters:
            data["parameters"] = parameters
        return data

    @classmethod
    def flood(cls, retry_after: int) -> ApiError:
        """429 -> ``TelegramRetryAfter``."""
        return cls(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)

    @classmethod
    def migrated(cls, new_chat_id: int) -> ApiError:
        """Group upgraded to a supergroup -> ``TelegramMigrateToChat``."""
        return cls(
            400,
            "Bad Request: group chat was upgraded to a supergroup chat",
            migrate_to_chat_id=new_chat_id,
        )

    @classmethod
    def bad_request(cls, reason: str) -> ApiError:
        """400 -> ``TelegramBadRequest``."""
        return cls(400, f"Bad Request: {reason}")

    @classmethod
    def forbidden(cls, reason: str) -> ApiError:
        """403 -> ``TelegramForbiddenError``."""
        return cls(403, f"Forbidden: {reason}")

    @classmethod
    def not_modified(cls) -> ApiError:
        return cls.bad_request(
            "message is not modified: specified new message content and reply markup are "
            "exactly the same as a current content and reply markup of the message"
        )

    @classmethod
    def message_to_edit_not_found(cls) -> ApiError:
        return cls.bad_request("message to edit not found")

    @classmethod
    def chat_not_found(cls) -> ApiError:
        return cls.bad_request("chat not found")

    @classmethod
    def query_too_old(cls) -> ApiError:
        return cls.bad_request(
            "query is too old and response timeout expired or query ID is invalid"
        )

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


# ---------------------------------------------------------------------------- limits


@dataclass(frozen=True, slots=True)
class Limits:
    """Flood limits the fake server enforces, as in Telegram's bot FAQ.

    ``time_scale`` shrinks every period: with 0.02 "a second" lasts 20 ms, so a
    20-per-minute group limit can be exercised in 1.2 s. ``retry_after`` values stay
    whole real seconds (at least 1), as Telegram sends them.
    """

    per_chat_burst: int = 3  # a chat may get this many at once ...
    per_chat_per_second: int = 1  # ... then this many a second
    group_per_minute: int = 20
    global_per_second: int = 30
    time_scale: float = 1.0


# Which requests the fake server counts as messages. Deliberately written apart from
# bot.flood so flood tests check the client against an independent model.
_COUNTED_EXTRA = frozenset(
    {
        "copyMessage",
        "copyMessages",
        "forwardMessage",
        "forwardMessages",
        "pinChatMessage",
        "stopPoll",
        "stopMessageLiveLocation",
    }
)
_BULK = {"sendMediaGroup": "media", "copyMessages": "message_ids", "forwardMessages": "message_ids"}


def _is_message_request(method: TelegramMethod[Any]) -> bool:
    name = method.__api_method__
    if name == "sendChatAction":
        return False
    return (
        name.startswith("send")
        or (name.startswith("edit") and "Message" in name)
        or name in _COUNTED_EXTRA
    )


def _message_count(method: TelegramMethod[Any]) -> int:
    attr = _BULK.get(method.__api_method__)
    items = getattr(method, attr, None) if attr else None
    return len(items) if isinstance(items, list) and items else 1


class _Log:
    """Arrival times of accepted requests within one limit's window."""

    def __init__(self, rate: int, period: float) -> None:
        self.rate = rate
        self.period = period
        self.stamps: deque[float] = deque()

    def wait(self, now: float, count: int) -> float:
        while self.stamps and self.stamps[0] + self.period <= now:
            self.stamps.popleft()
        excess = len(self.stamps) + min(count, self.rate) - self.rate
        return 0.0 if excess <= 0 else self.stamps[excess - 1] + self.period - now

    def add(self, now: float, count: int) -> None:
        self.stamps.extend([now] * min(count, self.rate))


class _Bucket:
    """A chat's allowance as Telegram applies it: a burst, then a steady rate."""

    def __init__(self, burst: int, rate: int, period: float) -> None:
        self.burst = burst
        self.interval = period / rate
        self.tokens = float(burst)
        self.last: float | None = None

    def _refill(self, now: float) -> None:
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.last) / self.interval)
        self.last = now

    def wait(self, now: float, count: int) -> float:
        self._refill(now)
        return 0.0 if self.tokens >= 1 - 1e-9 else (1 - self.tokens) * self.interval

    def add(self, now: float, count: int) -> None:
        self._refill(now)
        self.tokens -= 1


# ---------------------------------------------------------------------------- session


@dataclass(eq=False)
class Call:
    """One request as the session saw it."""

    method: TelegramMethod[Any]
    at: float  # session clock when the request reached the "server"
    done: bool = False
    result: Any = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.done and self.error is None

    @property
    def api_method(self) -> str:
        return self.method.__api_method__


@dataclass(eq=False)
class _Scripted:
    matches: Callable[[TelegramMethod[Any]], bool]
    outcome: ApiError | BaseException
    remaining: int


def _matcher(match: Matcher, chat_id: ChatId | None) -> Callable[[TelegramMethod[Any]], bool]:
    def matches(method: TelegramMethod[Any]) -> bool:
        if chat_id is not None and getattr(method, "chat_id", None) != chat_id:
            return False
        if match is None:
            return True
        if isinstance(match, str):
            return match in (method.__api_method__, type(method).__name__)
        if isinstance(match, type):
            return isinstance(method, match)
        return match(method)

    return matches


# send* methods that carry one file, and the Message field Telegram fills for it.
_MEDIA_KINDS = (
    "photo",
    "document",
    "video",
    "audio",
    "voice",
    "animation",
    "sticker",
    "video_note",
)


class RecordingSession(BaseSession):
    """Records every request and answers like the Bot API, offline.

    :param limits: enforce server-side flood limits (429 + ``violations``); None = unlimited.
    :param clock: monotonic clock for limits and ``retry_after`` penalties.
    :param latency: simulated round trip in seconds (half before the server sees the
        request, half after), or a callable returning one; lets requests overlap.
    :param bot_status: the bot's status in groups for ``getChatMember`` / admin lists.
    :param strict_edits: answer edits of unknown messages with "message to edit not
        found" and no-op edits with "message is not modified", as Telegram does.

    A scripted or limit-triggered 429 starts a ``retry_after`` penalty for that chat
    (or bot-wide for the global limit); requests during it are answered 429 again and
    counted in ``violations``, even without ``limits``.
    """

    def __init__(
        self,
        *,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
        latency: float | Callable[[], float] = 0.0,
        bot_status: str = "administrator",
        strict_edits: bool = False,
        bot_first_name: str = BOT_FIRST_NAME,
        bot_username: str = BOT_USERNAME,
    ) -> None:
        super().__init__()
        self.limits = limits
        self.clock = clock
        self.latency = latency
        self.bot_status = bot_status
        self.strict_edits = strict_edits
        self.bot_first_name = bot_first_name
        self.bot_username = bot_username
        self.closed = False
        self.bot: Bot | None = None  # last bot seen, to bind objects built by helpers

        self.calls: list[Call] = []
        self.violations = 0  # requests made while a retry_after was still running
        self.limit_hits = 0  # 429s answered because ``limits`` were exceeded

        self.chats: dict[ChatId, Json] = {}  # known chats, Telegram JSON
        self.users: dict[int, Json] = {}  # known users, Telegram JSON
        self.members: dict[tuple[int, int], Json] = {}  # (chat_id, user_id) -> ChatMember JSON
        self.commands: dict[tuple[str, str], list[Json]] = {}  # (scope, language) -> commands

        self._scripted: list[_Scripted] = []
        self._results: dict[type[TelegramMethod[Any]], Any] = {}
        self._messages: dict[tuple[int, int], Json] = {}
        self._last_bot_message: dict[int, int] = {}
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._file_ids = itertools.count(1)
        self._penalties: dict[Hashable, float] = {}
        self._chat_logs: dict[Hashable, _Bucket] = {}
        self._group_logs: dict[Hashable, _Log] = {}
        self._global_log: _Log | None = None
        if limits is not None:
            self._global_log = _Log(limits.global_per_second, limits.time_scale)

    # -- BaseSession -------------------------------------------------------------

    async def close(self) -> None:
        self.closed = True

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,  # noqa: ASYNC109 - BaseSession's signature
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        yield b""

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[Any],
        timeout: int | None = None,  # noqa: ASYNC109 - BaseSession's signature
    ) -> Any:
        self.bot = bot
        latency = self.latency() if callable(self.latency) else self.latency
        if latency:
            await asyncio.sleep(latency / 2)
        call = Call(method, self.clock())
        self.calls.append(call)
        try:
            call.result = self._serve(bot, method, call.at)
        except Exception as e:
            call.error = e
        call.done = True
        if latency:
            await asyncio.sleep(latency / 2)
        if call.error is not None:
            raise call.error
        return call.result

    # -- scripting -----------------------------------------------------------------

    def fail_next(
        self,
        match: Matcher,
        error: ApiError | BaseException,
        *,
        times: int = 1,
        chat_id: ChatId | None = None,
    ) -> None:
        """Answer the next ``times`` matching requests with ``error``.

        ``match`` is an API name ("sendMessage"), a method class name or class, a
        predicate, or None for any request; ``chat_id`` narrows it further. An
        :class:`ApiError` goes through ``check_response`` (exactly what aiogram raises);
        an exception instance is raised as is (e.g. ``TelegramNetworkError``).
        """
        self._scripted.append(_Scripted(_matcher(match, chat_id), error, times))

    def set_result(self, method_type: type[TelegramMethod[Any]], result: Any) -> None:
        """Answer every ``method_type`` request with ``result``.

        ``result`` is Telegram JSON, a TelegramObject (or a list of them), or a
        callable taking the method and returning one of those.
        """
        self._results[method_type] = result

    def set_chat_member(
        self, chat_id: int, user: User | int, status: str = "member", **fields: Any
    ) -> None:
        """What ``getChatMember(chat_id, user)`` answers (status: creator, administrator,
        member, restricted, left, kicked); ``fields`` override rights/flags."""
        user_json = self._user_json(user)
        self.members[(chat_id, user_json["id"])] = _member_json(status, user_json, **fields)

    # -- ids and registries (shared with UpdateFactory) -----------------------------

    def next_message_id(self, chat_id: int) -> int:
        """Message ids grow per chat and are shared by incoming and outgoing messages."""
        counter = self._message_ids.setdefault(chat_id, itertools.count(1))
        return next(counter)

    def register_chat(self, chat: Json) -> None:
        self.chats[chat["id"]] = chat
        if chat.get("username"):
            self.chats["@" + chat["username"]] = chat

    def register_user(self, user: Json) -> None:
        self.users[user["id"]] = user

    def store_message(self, message: Json) -> None:
        self._messages[(message["chat"]["id"], message["message_id"])] = message

    def stored_message(self, chat_id: int, message_id: int) -> Json | None:
        return self._messages.get((chat_id, message_id))

    # -- inspection -----------------------------------------------------------------

    @property
    def requests(self) -> list[TelegramMethod[Any]]:
        """Every request that reached the session, including failed attempts and retries."""
        return [call.method for call in self.calls]

    @property
    def delivered(self) -> list[TelegramMethod[Any]]:
        """Requests that succeeded."""
        return [call.method for call in self.calls if call.ok]

    def requests_of(self, method_type: type[M], *, delivered: bool = False) -> list[M]:
        methods = self.delivered if delivered else self.requests
        return [m for m in methods if isinstance(m, method_type)]

    def sent_texts(self, chat_id: ChatId | None = None, *, edits: bool = False) -> list[str]:
        """Texts and captions the bot successfully sent (and edited to, if ``edits``), in order."""
        texts = []
        for method in self.delivered:
            name = method.__api_method__
            if not (name.startswith("send") or (edits and name.startswith("editMessage"))):
                continue
            if chat_id is not None and getattr(method, "chat_id", None) != chat_id:
                continue
            text = _text_of(method)
            if text is not None:
                texts.append(text)
        return texts

    def last_text(self, chat_id: ChatId) -> str | None:
        """Text or caption of the latest successful send or edit in ``chat_id``."""
        for method in reversed(self.delivered):
            if getattr(method, "chat_id", None) == chat_id and (text := _text_of(method)):
                return text
        return None

    def last_markup(self, chat_id: ChatId) -> Any:
        """``reply_markup`` of the latest successful send/edit in ``chat_id`` (or None)."""
        for method in reversed(self.delivered):
            name = method.__api_method__
            if getattr(method, "chat_id", None) == chat_id and (
                name.startswith("send") or name.startswith("editMessage")
            ):
                return getattr(method, "reply_markup", None)
        return None

    def message(self, chat_id: int, message_id: int) -> Message | None:
        """A message as it looks now (after edits), bound to the bot."""
        stored = self._messages.get((chat_id, message_id))
        return None if stored is None else self._bind(Message, stored)

    def last_message(self, chat_id: int) -> Message | None:
        """The bot's most recent message in ``chat_id``, as it looks now."""
        message_id = self._last_bot_message.get(chat_id)
        return None if message_id is None else self.message(chat_id, message_id)

    def clear(self) -> None:
        """Forget recorded calls and counters; chats, messages and scripts stay."""
        self.calls.clear()
        self.violations = 0
        self.limit_hits = 0

    # -- the fake server --------------------------------------------------------------

    def _serve(self, bot: Bot, method: TelegramMethod[Any], now: float) -> Any:
        counted = _is_message_request(method)
        chat = getattr(method, "chat_id", None)
        chat_key: Hashable = chat
        if chat is None:
            chat_key = getattr(method, "inline_message_id", None)
        penalty_keys: list[Hashable] = (
            [("messages", chat_key), ("messages", "*")]
            if counted
            else [(method.__api_method__, chat_key)]
        )
        remaining = max((self._penalties.get(key, 0.0) - now for key in penalty_keys), default=0)
        if remaining > 0:
            self.violations += 1
            self._raise(bot, method, ApiError.flood(max(1, math.ceil(remaining))))

        for scripted in self._scripted:
            if scripted.remaining > 0 and scripted.matches(method):
                scripted.remaining -= 1
                self._scripted = [s for s in self._scripted if s.remaining > 0]
                outcome = scripted.outcome
                retry_after = (
                    outcome.retry_after
                    if isinstance(outcome, ApiError | TelegramRetryAfter)
                    else None
                )
                if retry_after:
                    self._penalties[penalty_keys[0]] = now + retry_after
                if isinstance(outcome, ApiError):
                    self._raise(bot, method, outcome)
                raise outcome

        if counted and self.limits is not None:
            self._enforce_limits(bot, method, chat, now)
        return self._respond(bot, method)

    def _enforce_limits(
        self, bot: Bot, method: TelegramMethod[Any], chat: ChatId | None, now: float
    ) -> None:
        assert self.limits is not None and self._global_log is not None
        limits = self.limits
        count = _message_count(method)
        logs: list[tuple[_Log | _Bucket, Hashable, int]] = []
        if chat is not None:
            chat_log = self._chat_logs.get(chat)
            if chat_log is None:
                chat_log = self._chat_logs[chat] = _Bucket(
                    limits.per_chat_burst, limits.per_chat_per_second, limits.time_scale
                )
            logs.append((chat_log, ("messages", chat), 1))  # an album is one burst
            if _is_group(chat):
                group_log = self._group_logs.get(chat)
                if group_log is None:
                    group_log = self._group_logs[chat] = _Log(
                        limits.group_per_minute, 60 * limits.time_scale
                    )
                logs.append((group_log, ("messages", chat), count))
        logs.append((self._global_log, ("messages", "*"), count))

        for log, key, n in logs:
            if (wait := log.wait(now, n)) > 0:
                self.limit_hits += 1
                retry_after = max(1, math.ceil(wait))
                self._penalties[key] = now + retry_after
                self._raise(bot, method, ApiError.flood(retry_after))
        for log, _, n in logs:
            log.add(now, n)

    def _raise(self, bot: Bot, method: TelegramMethod[Any], error: ApiError) -> NoReturn:
        self.check_response(bot, method, error.error_code, json.dumps(error.payload()))
        raise AssertionError(f"check_response accepted error payload {error}")  # unreachable

    def _ok(self, bot: Bot, method: TelegramMethod[Any], result: Any) -> Any:
        response = self.check_response(bot, method, 200, json.dumps({"ok": True, "result": result}))
        return response.result

    def _bind(self, model: type[TelegramObject], data: Json) -> Any:
        context = {"bot": self.bot} if self.bot is not None else None
        return model.model_validate(data, context=context)

    def _respond(self, bot: Bot, method: TelegramMethod[Any]) -> Any:
        custom = self._results.get(type(method), _MISSING)
        if custom is not _MISSING:
            if callable(custom) and not isinstance(custom, TelegramObject):
                custom = custom(method)
            return self._ok(bot, method, _to_json(custom))

        name = method.__api_method__
        if name in _SIMPLE_SENDS:
            return self._ok(bot, method, self._new_message(bot, method, self._content(method)))
        # Other canned answers are methods named after the API method: _api_getMe ...
        handler = getattr(self, "_api_" + name, None)
        if handler is not None:
            return self._ok(bot, method, handler(bot, method))
        if method.__returning__ is bool:
            return self._ok(bot, method, True)
        raise NotImplementedError(
            f"RecordingSession has no canned answer for {name!r} "
            f"({type(method).__name__}); script one with "
            f"session.set_result({type(method).__name__}, ...) or add it to "
            "tests/support/telegram.py"
        )

    # -- JSON builders ------------------------------------------------------------------

    def _bot_user(self, bot: Bot) -> Json:
        return {
            "id": bot.id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _user_json(self, user: User | int) -> Json:
        if isinstance(user, User):
            return _dump(user)
        return self.users.get(user) or {"id": user, "is_bot": False, "first_name": f"User {user}"}

    def _chat_json(self, chat_id: ChatId) -> Json:
        known = self.chats.get(chat_id)
        if known is not None:
            return known
        chat: Json
        if isinstance(chat_id, str):  # "@channelusername"
            username = chat_id.lstrip("@")
            numeric = -1_000_000_000_000 - zlib.crc32(username.encode())
            chat = {"id": numeric, "type": "channel", "title": username, "username": username}
        elif chat_id > 0:
            user = self._user_json(chat_id)
            chat = {"id": chat_id, "type": "private", "first_name": user["first_name"]}
            for key in ("last_name", "username"):
                if key in user:
                    chat[key] = user[key]
        else:
            chat = {"id": chat_id, "type": "supergroup", "title": f"Test group {chat_id}"}
        self.register_chat(chat)
        return chat

    def _file(self, kind: str, source: Any) -> Json:
        n = next(self._file_ids)
        file_id = source if isinstance(source, str) else f"TEST-{kind}-{n}"
        data: Json = {"file_id": file_id, "file_unique_id": f"U{kind}{n}", "file_size": 1024}
        if isinstance(source, InputFile) and source.filename:
            data["file_name"] = source.filename
        return data

    def _media(self, kind: str, source: Any) -> Any:
        file = self._file(kind, source)
        if kind == "photo":
            small = {**file, "file_unique_id": file["file_unique_id"] + "s", "file_size": 256}
            return [{**small, "width": 90, "height": 90}, {**file, "width": 1280, "height": 720}]
        extra: dict[str, Json] = {
            "document": {},
            "video": {"width": 1280, "height": 720, "duration": 5},
            "audio": {"duration": 5},
            "voice": {"duration": 5},
            "animation": {"width": 320, "height": 240, "duration": 3},
            "sticker": {
                "type": "regular",
                "width": 512,
                "height": 512,
                "is_animated": False,
                "is_video": False,
            },
            "video_note": {"length": 240, "duration": 5},
        }
        return {**file, **extra[kind]}

    def _content(self, method: TelegramMethod[Any]) -> Json:
        """The Message fields a send* request fills."""
        content: Json = {}
        for kind in _MEDIA_KINDS:
            source = getattr(method, kind, None)
            if source is not None:
                content[kind] = self._media(kind, source)
        for text_field, entities_field in (("text", "entities"), ("caption", "caption_entities")):
            value = getattr(method, text_field, None)
            if isinstance(value, str):
                content[text_field] = value
                entities = getattr(method, entities_field, None)
                if entities:
                    content[entities_field] = [_dump(e) for e in entities]
        name = method.__api_method__
        if name == "sendDice":
            emoji = getattr(method, "emoji", None)
            content["dice"] = {"emoji": emoji if isinstance(emoji, str) else "🎲", "value": 1}
        elif name == "sendLocation":
            content["location"] = {
                "latitude": method.latitude,  # type: ignore[attr-defined]
                "longitude": method.longitude,  # type: ignore[attr-defined]
            }
        elif name == "sendContact":
            content["contact"] = {
                "phone_number": method.phone_number,  # type: ignore[attr-defined]
                "first_name": method.first_name,  # type: ignore[attr-defined]
            }
        return content

    def _new_message(self, bot: Bot, method: TelegramMethod[Any], content: Json) -> Json:
        chat = self._chat_json(method.chat_id)  # type: ignore[attr-defined]
        message: Json = {
            "message_id": self.next_message_id(chat["id"]),
            "date": int(time.time()),
            "chat": chat,
        }
        if chat["type"] == "channel":
            message["sender_chat"] = chat
        else:
            message["from"] = self._bot_user(bot)
        thread_id = getattr(method, "message_thread_id", None)
        if isinstance(thread_id, int):
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = True
        reply_params = getattr(method, "reply_parameters", None)
        reply_id = getattr(reply_params, "message_id", None) or getattr(
            method, "reply_to_message_id", None
        )
        if isinstance(reply_id, int) and (replied := self.stored_message(chat["id"], reply_id)):
            message["reply_to_message"] = {
                k: v for k, v in replied.items() if k != "reply_to_message"
            }
        message.update(content)
        markup = getattr(method, "reply_markup", None)
        if isinstance(markup, InlineKeyboardMarkup):  # only inline keyboards come back
            message["reply_markup"] = _dump(markup)
        self.store_message(message)
        self._last_bot_message[chat["id"]] = message["message_id"]
        return message

    # -- canned answers, by API method name ---------------------------------------------

    def _api_getMe(self, bot: Bot, method: TelegramMethod[Any]) -> Json:
        return {
            **self._bot_user(bot),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    def _api_getUpdates(self, bot: Bot, method: TelegramMethod[Any]) -> list[Json]:
        return []

    def _api_sendMediaGroup(self, bot: Bot, method: Any) -> list[Json]:
        group_id = str(next(self._file_ids))
        messages = []
        for item in method.media:
            content: Json = {item.type: self._media(item.type, item.media)}
            if isinstance(item.caption, str):
                content["caption"] = item.caption
            messages.append(self._new_message(bot, method, {**content, "media_group_id": group_id}))
        return messages

    def _api_forwardMessage(self, bot: Bot, method: Any) -> Json:
        source = self._source_message(method.from_chat_id, method.message_id)
        content = {k: v for k, v in source.items() if k in _COPIED_FIELDS}
        origin = (
            {"type": "user", "sender_user": source["from"]}
            if "from" in source
            else {"type": "chat", "sender_chat": source["chat"]}
        )
        content["forward_origin"] = {**origin, "date": source["date"]}
        return self._new_message(bot, method, content)

    def _api_copyMessage(self, bot: Bot, method: Any) -> Json:
        source = self._source_message(method.from_chat_id, method.message_id)
        content = {k: v for k, v in source.items() if k in _COPIED_FIELDS}
        if isinstance(method.caption, str):
            content["caption"] = method.caption
        return {"message_id": self._new_message(bot, method, content)["message_id"]}

    def _api_copyMessages(self, bot: Bot, method: Any) -> list[Json]:
        chat = self._chat_json(method.chat_id)
        return [{"message_id": self.next_message_id(chat["id"])} for _ in method.message_ids]

    _api_forwardMessages = _api_copyMessages

    def _source_message(self, chat_id: ChatId, message_id: int) -> Json:
        chat = self._chat_json(chat_id)
        stored = self.stored_message(chat["id"], message_id)
        return stored or {"message_id": message_id, "date": int(time.time()), "chat": chat}

    def _edit(self, bot: Bot, method: Any, change: Callable[[Json], None]) -> Json | bool:
        if getattr(method, "inline_message_id", None):
            return True  # Telegram answers True for inline messages
        chat = self._chat_json(method.chat_id)
        stored = self.stored_message(chat["id"], method.message_id)
        if stored is None:
            if self.strict_edits:
                self._raise(bot, method, ApiError.message_to_edit_not_found())
            stored = {
                "message_id": method.message_id,
                "date": int(time.time()),
                "chat": chat,
                "from": self._bot_user(bot),
            }
        edited = {k: v for k, v in stored.items() if k != "edit_date"}
        change(edited)
        markup = getattr(method, "reply_markup", None)
        if isinstance(markup, InlineKeyboardMarkup):
            edited["reply_markup"] = _dump(markup)
        else:
            edited.pop("reply_markup", None)  # an edit without markup removes the keyboard
        if self.strict_edits and edited == {k: v for k, v in stored.items() if k != "edit_date"}:
            self._raise(bot, method, ApiError.not_modified())
        edited["edit_date"] = int(time.time())
        self.store_message(edited)
        return edited

    def _api_editMessageText(self, bot: Bot, method: Any) -> Json | bool:
        def change(message: Json) -> None:
            message["text"] = method.text
            message.pop("entities", None)
            if method.entities:
                message["entities"] = [_dump(e) for e in method.entities]

        return self._edit(bot, method, change)

    def _api_editMessageCaption(self, bot: Bot, method: Any) -> Json | bool:
        def change(message: Json) -> None:
            message.pop("caption", None)
            message.pop("caption_entities", None)
            if isinstance(method.caption, str):
                message["caption"] = method.caption

        return self._edit(bot, method, change)

    def _api_editMessageReplyMarkup(self, bot: Bot, method: Any) -> Json | bool:
        return self._edit(bot, method, lambda message: None)

    def _api_editMessageMedia(self, bot: Bot, method: Any) -> Json | bool:
        def change(message: Json) -> None:
            for kind in _MEDIA_KINDS:
                message.pop(kind, None)
            message[method.media.type] = self._media(method.media.type, method.media.media)
            message.pop("caption", None)
            if isinstance(method.media.caption, str):
                message["caption"] = method.media.caption

        return self._edit(bot, method, change)

    def _api_deleteMessage(self, bot: Bot, method: Any) -> bool:
        chat = self._chat_json(method.chat_id)
        self._messages.pop((chat["id"], method.message_id), None)
        return True

    def _api_deleteMessages(self, bot: Bot, method: Any) -> bool:
        chat = self._chat_json(method.chat_id)
        for message_id in method.message_ids:
            self._messages.pop((chat["id"], message_id), None)
        return True

    def _member(self, bot: Bot, chat_id: int, user_id: int) -> Json:
        member = self.members.get((chat_id, user_id))
        if member is not None:
            return member
        if user_id == bot.id:
            status = self.bot_status if _is_group(chat_id) else "member"
            return _member_json(status, self._bot_user(bot))
        return _member_json("member", self._user_json(user_id))

    def _api_getChatMember(self, bot: Bot, method: Any) -> Json:
        chat = self._chat_json(method.chat_id)
        return self._member(bot, chat["id"], method.user_id)

    def _api_getChatAdministrators(self, bot: Bot, method: Any) -> list[Json]:
        chat = self._chat_json(method.chat_id)
        admins = [
            member
            for (chat_id, _), member in self.members.items()
            if chat_id == chat["id"] and member["status"] in ("creator", "administrator")
        ]
        bot_member = self._member(bot, chat["id"], bot.id)
        if bot_member["status"] == "administrator" and bot_member not in admins:
            admins.append(bot_member)
        return admins

    def _api_getChatMemberCount(self, bot: Bot, method: Any) -> int:
        chat = self._chat_json(method.chat_id)
        if chat["type"] == "private":
            return 2
        return max(2, 1 + sum(1 for chat_id, _ in self.members if chat_id == chat["id"]))

    def _api_getChat(self, bot: Bot, method: Any) -> Json:
        return {
            **self._chat_json(method.chat_id),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": True,
                "limited_gifts": True,
                "unique_gifts": True,
                "premium_subscription": True,
                "gifts_from_channels": True,
            },
        }

    @staticmethod
    def _command_key(method: Any) -> tuple[str, str]:
        scope = getattr(method.scope, "type", None) or "default"
        chat_id = getattr(method.scope, "chat_id", None)
        return (f"{scope}:{chat_id}" if chat_id is not None else scope, method.language_code or "")

    def _api_setMyCommands(self, bot: Bot, method: Any) -> bool:
        self.commands[self._command_key(method)] = [_dump(c) for c in method.commands]
        return True

    def _api_deleteMyCommands(self, bot: Bot, method: Any) -> bool:
        self.commands.pop(self._command_key(method), None)
        return True

    def _api_getMyCommands(self, bot: Bot, method: Any) -> list[Json]:
        return self.commands.get(self._command_key(method), [])

    def _api_getWebhookInfo(self, bot: Bot, method: Any) -> Json:
        return {"url": "", "has_custom_certificate": False, "pending_update_count": 0}

    def _api_getFile(self, bot: Bot, method: Any) -> Json:
        return {
            "file_id": method.file_id,
            "file_unique_id": f"U{method.file_id}",
            "file_size": 1024,
            "file_path": f"documents/{method.file_id}",
        }

    def _api_getUserProfilePhotos(self, bot: Bot, method: Any) -> Json:
        return {"total_count": 0, "photos": []}


_MISSING = object()
_SIMPLE_SENDS = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "sendVideo",
        "sendAudio",
        "sendVoice",
        "sendAnimation",
        "sendSticker",
        "sendVideoNote",
        "sendDice",
        "sendLocation",
        "sendContact",
    }
)
_COPIED_FIELDS = frozenset(
    {"text", "entities", "caption", "caption_entities", "dice", "location", "contact"}
    | set(_MEDIA_KINDS)
)


def _to_json(value: Any) -> Any:
    if isinstance(value, TelegramObject):
        return _dump(value)
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    return value


def _text_of(method: TelegramMethod[Any]) -> str | None:
    for attr in ("text", "caption"):
        value = getattr(method, attr, None)
        if isinstance(value, str):
            return value
    return None


_MEMBER_MODELS: dict[str, type[TelegramObject]] = {
    "creator": ChatMemberOwner,
    "administrator": ChatMemberAdministrator,
    "member": ChatMemberMember,
    "restricted": ChatMemberRestricted,
    "left": ChatMemberLeft,
    "kicked": ChatMemberBanned,
}


def _member_json(status: str, user: Json, **fields: Any) -> Json:
    """ChatMember JSON with every required flag filled, whatever aiogram version adds.

    Admins get every right except ``can_be_edited``; restricted members get none.
    """
    model = _MEMBER_MODELS[status]
    data: Json = {"status": status, "user": user}
    for name, info in model.model_fields.items():
        if name in data or not info.is_required():
            continue
        if name == "until_date":
            data[name] = 0
        elif name in ("can_be_edited", "is_anonymous"):
            data[name] = False
        else:
            data[name] = status == "administrator" or name == "is_member"
    if status == "administrator":
        data.setdefault("can_pin_messages", True)  # optional in the API, sent for groups
        data.setdefault("can_manage_topics", False)
    data.update(fields)
    return data


# ---------------------------------------------------------------------------- buttons


def buttons(source: Any) -> list[tuple[str, str | None]]:
    """``(text, callback_data)`` of every inline button, row by row.

    ``source`` is a Message, an InlineKeyboardMarkup, a request with ``reply_markup``,
    or None (-> ``[]``). URL and other non-callback buttons have ``callback_data=None``.
    """
    markup = source
    if isinstance(source, Message | TelegramMethod):
        markup = getattr(source, "reply_markup", None)
    if not isinstance(markup, InlineKeyboardMarkup):
        return []
    return [(button.text, button.callback_data) for row in markup.inline_keyboard for button in row]


# ---------------------------------------------------------------------------- updates


class UpdateFactory:
    """Builds incoming updates as Telegram sends them (JSON first, then parsed).

    Pass the session so incoming and outgoing messages share per-chat message ids,
    chats and users are known to it, and callbacks can refer to the bot's messages.
    """

    def __init__(
        self,
        session: RecordingSession | None = None,
        *,
        first_update_id: int = 100_000,
        bot_username: str = BOT_USERNAME,
    ) -> None:
        self.session = session
        self.bot_username = bot_username
        self._update_ids = itertools.count(first_update_id)
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._callback_ids = itertools.count(1)

    # -- objects ------------------------------------------------------------------------

    def user(
        self,
        id: int,
        first_name: str = "Test",
        *,
        language_code: str | None = "ru",
        username: str | None = None,
        last_name: str | None = None,
        is_premium: bool | None = None,
    ) -> User:
        data: Json = {"id": id, "is_bot": False, "first_name": first_name}
        for key, value in (
            ("last_name", last_name),
            ("username", username),
            ("language_code", language_code),
            ("is_premium", is_premium),
        ):
            if value is not None:
                data[key] = value
        if self.session is not None:
            self.session.register_user(data)
        return User.model_validate(data)

    def private_chat(self, user: User) -> Json:
        chat: Json = {"id": user.id, "type": "private", "first_name": user.first_name}
        if user.last_name:
            chat["last_name"] = user.last_name
        if user.username:
            chat["username"] = user.username
        return self._register(chat)

    def group_chat(
        self, chat_id: int, title: str | None = None, *, type: str | None = None, **extra: Any
    ) -> Json:
        """A group chat's JSON; a chat already known keeps its title and type."""
        known = self.session.chats.get(chat_id) if self.session else None
        if known is not None and title is None and type is None and not extra:
            return known
        chat: Json = {
            "id": chat_id,
            "type": type or (known or {}).get("type", "supergroup"),
            "title": title or (known or {}).get("title", f"Test group {chat_id}"),
            **extra,
        }
        return self._register(chat)

    # -- messages -----------------------------------------------------------------------

    def message_json(
        self,
        chat: Json,
        user: User | None,
        text: str | None,
        *,
        date: datetime | int | None = None,
        reply_to: Message | int | None = None,
        forward_from: User | None = None,
        sender_chat: Json | None = None,
        message_thread_id: int | None = None,
        **extra: Any,
    ) -> Json:
        """A Message as Telegram JSON; commands get a ``bot_command`` entity."""
        message: Json = {
            "message_id": self._next_message_id(chat["id"]),
            "date": _timestamp(date),
            "chat": chat,
        }
        if user is not None:
            message["from"] = _dump(user)
        if sender_chat is not None:
            message["sender_chat"] = sender_chat
        if message_thread_id is not None:
            message["message_thread_id"] = message_thread_id
            message["is_topic_message"] = True
        if text is not None:
            message["text"] = text
            if text.startswith("/") and len(text) > 1:
                command = text.split(maxsplit=1)[0]
                message["entities"] = [
                    {"type": "bot_command", "offset": 0, "length": _utf16_len(command)}
                ]
        if forward_from is not None:
            message["forward_origin"] = {
                "type": "user",
                "sender_user": _dump(forward_from),
                "date": message["date"] - 60,
            }
        if reply_to is not None:
            message["reply_to_message"] = self._replied(chat, reply_to)
        message.update(extra)
        if self.session is not None:
            self.session.store_message(message)
        return message

    def private_message(
        self,
        user: User,
        text: str | None,
        *,
        date: datetime | int | None = None,
        reply_to: Message | int | None = None,
        forward_from: User | None = None,
        **extra: Any,
    ) -> Update:
        chat = self.private_chat(user)
        message = self.message_json(
            chat,
            user,
            text,
            date=date,
            reply_to=reply_to,
            forward_from=forward_from,
            **extra,
        )
        return self.update(message=message)

    def group_message(
        self,
        user: User,
        chat_id: int,
        text: str | None,
        *,
        title: str | None = None,
        chat_type: str | None = None,
        date: datetime | int | None = None,
        reply_to: Message | int | None = None,
        forward_from: User | None = None,
        message_thread_id: int | None = None,
        **extra: Any,
    ) -> Update:
        chat = self.group_chat(chat_id, title, type=chat_type)
        message = self.message_json(
            chat,
            user,
            text,
            date=date,
            reply_to=reply_to,
            forward_from=forward_from,
            message_thread_id=message_thread_id,
            **extra,
        )
        return self.update(message=message)

    def anonymous_admin_message(
        self,
        chat_id: int,
        text: str | None,
        *,
        author_signature: str | None = None,
        date: datetime | int | None = None,
        **extra: Any,
    ) -> Update:
        """A message from an admin posting "as the group": from GroupAnonymousBot,
        ``sender_chat`` = the group itself."""
        chat = self.group_chat(chat_id)
        anonymous = User(
            id=ANONYMOUS_ADMIN_ID, is_bot=True, first_name="Group", username="GroupAnonymousBot"
        )
        if author_signature is not None:
            extra["author_signature"] = author_signature
        message = self.message_json(chat, anonymous, text, date=date, sender_chat=chat, **extra)
        return self.update(message=message)

    # -- other updates -----------------------------------------------------------------

    def callback(
        self,
        user: User,
        message: Message | int | None,
        data: str | None,
        *,
        message_id: int | None = None,
        inline_message_id: str | None = None,
    ) -> Update:
        """A button press. ``message`` is the bot's Message (e.g. ``session.last_message``)
        or a chat id with ``message_id``; None with ``inline_message_id`` for inline mode."""
        query: Json = {
            "id": str(4_000_000_000_000 + next(self._callback_ids)),
            "from": _dump(user),
            "chat_instance": "",
        }
        chat_id: int | None = None
        if isinstance(message, Message):
            query["message"] = _dump(message)
            chat_id = message.chat.id
        elif isinstance(message, int):
            if message_id is None:
                raise ValueError("callback(user, chat_id, data) needs message_id=")
            chat_id = message
            query["message"] = self._bot_message(chat_id, message_id)
        if inline_message_id is not None:
            query["inline_message_id"] = inline_message_id
        # Telegram sends an opaque id that is stable per chat; derive one the same way.
        query["chat_instance"] = str(zlib.crc32(f"{chat_id}:{inline_message_id}".encode()))
        if data is not None:
            query["data"] = data
        return self.update(callback_query=query)

    def my_chat_member(
        self,
        chat_id: int,
        by: User,
        *,
        old: str = "left",
        new: str = "member",
        date: datetime | int | None = None,
        bot_id: int = BOT_ID,
        **new_fields: Any,
    ) -> Update:
        """The bot's own membership changed (added, promoted, kicked) by user ``by``."""
        chat = self.private_chat(by) if chat_id > 0 else self.group_chat(chat_id)
        bot_user: Json = {
            "id": bot_id,
            "is_bot": True,
            "first_name": self.session.bot_first_name if self.session else BOT_FIRST_NAME,
            "username": self.bot_username,
        }
        event = {
            "chat": chat,
            "from": _dump(by),
            "date": _timestamp(date),
            "old_chat_member": _member_json(old, bot_user),
            "new_chat_member": _member_json(new, bot_user, **new_fields),
        }
        return self.update(my_chat_member=event)

    def update(self, **payload: Any) -> Update:
        """Wrap one update field (``message=``, ``callback_query=`` ...) with a fresh update_id."""
        data = {"update_id": next(self._update_ids), **payload}
        bot = self.session.bot if self.session else None
        return Update.model_validate(data, context={"bot": bot} if bot else None)

    # -- helpers --------------------------------------------------------------------------

    def _register(self, chat: Json) -> Json:
        if self.session is not None:
            self.session.register_chat(chat)
        return chat

    def _next_message_id(self, chat_id: int) -> int:
        if self.session is not None:
            return self.session.next_message_id(chat_id)
        return next(self._message_ids.setdefault(chat_id, itertools.count(1)))

    def _replied(self, chat: Json, reply_to: Message | int) -> Json:
        if isinstance(reply_to, Message):
            replied = _dump(reply_to)
        else:
            stored = self.session.stored_message(chat["id"], reply_to) if self.session else None
            replied = stored or {"message_id": reply_to, "date": _timestamp(None), "chat": chat}
        return {k: v for k, v in replied.items() if k != "reply_to_message"}

    def _bot_message(self, chat_id: int, message_id: int) -> Json:
        stored = self.session.stored_message(chat_id, message_id) if self.session else None
        if stored is not None:
            return stored
        known = self.session.chats.get(chat_id) if self.session else None
        chat = known or self._default_chat(chat_id)
        return {
            "message_id": message_id,
            "date": _timestamp(None),
            "chat": chat,
            "from": {
                "id": self.session.bot.id if self.session and self.session.bot else BOT_ID,
                "is_bot": True,
                "first_name": BOT_FIRST_NAME,
                "username": self.bot_username,
            },
            "text": "…",
        }

    def _default_chat(self, chat_id: int) -> Json:
        if chat_id > 0:
            return {"id": chat_id, "type": "private", "first_name": f"User {chat_id}"}
        return self.group_chat(chat_id)
