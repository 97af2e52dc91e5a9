"""Telegram in-process, for handler tests: the shared model (``tg_model.Telegram``)
behind an aiogram session.

* :class:`RecordingSession` - an aiogram ``BaseSession`` that records every request,
  encodes it as aiogram's HTTP session does (``prepare_value``, files read) and has the
  model answer it; every answer, success or error, is rendered as JSON and parsed by
  ``BaseSession.check_response``, so handlers get the same bound objects and the same
  exceptions as in production. Requests go through the session middleware chain.
* :class:`ApiError` - Telegram's error answers (429, migrate, "message is not
  modified", "bot can't initiate conversation", ...) for :meth:`RecordingSession.fail_next`.
* :class:`Limits` - optional flood limits: 429 ``retry_after`` when a client exceeds
  them, and ``violations`` (requests sent before a ``retry_after`` expired), which is
  how flood-control tests prove nothing was mishandled.
* :class:`UpdateFactory` - incoming updates with the fields Telegram really sends, the
  messages stored in the model (the bot can reply to them, edit its own).
* :func:`buttons` - flatten an inline keyboard to ``(text, callback_data)`` pairs.

The world is lenient where handler tests need it: a chat the bot writes to that was
never set up is found (``Telegram(preexisting=True)``), and users made by the factory
have pressed Start. Everything else is Telegram's behaviour, as over HTTP in e2e tests.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from aiogram.client.session.base import BaseSession
from aiogram.methods import TelegramMethod
from aiogram.types import InlineKeyboardMarkup, InputFile, Message, TelegramObject, Update, User

from .tg_model import (
    ANONYMOUS_ADMIN_ID,
    JSON,
    ApiError,
    Chat,
    Limits,
    Params,
    Request,
    StoredMessage,
    Telegram,
    UploadedFile,
    auto_entities,
    decode_params,
    unix,
)
from .tg_model import User as TgUser

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

ChatId = int | str
M = TypeVar("M", bound=TelegramMethod[Any])
Matcher = str | type[TelegramMethod[Any]] | Callable[[TelegramMethod[Any]], bool] | None
_MISSING = object()


def _dump(obj: TelegramObject) -> JSON:
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


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


class RecordingSession(BaseSession):
    """Records every request and has the shared Telegram model answer it, offline.

    :param limits: flood limits (429 + ``violations``); None = unlimited. A scripted 429
        starts a ``retry_after`` ban all the same: requests during it get 429 again and
        count in ``violations``.
    :param clock: monotonic clock for limits and ``retry_after`` bans.
    :param latency: simulated round trip in seconds (half before the model sees the
        request, half after), or a callable returning one; lets requests overlap.
    :param bot_status: the bot's status in groups nobody set up.
    :param record: keep every call in ``calls`` (the bench turns it off).
    """

    def __init__(
        self,
        *,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
        latency: float | Callable[[], float] = 0.0,
        bot_status: str = "administrator",
        bot_first_name: str = BOT_FIRST_NAME,
        bot_username: str = BOT_USERNAME,
        record: bool = True,
    ) -> None:
        super().__init__()
        self.telegram = Telegram(bot_id=BOT_ID, bot_username=bot_username,
                                 bot_first_name=bot_first_name, limits=limits, clock=clock,
                                 preexisting=True, bot_status=bot_status)
        self.clock = clock
        self.latency = latency
        self.record = record
        self.closed = False
        self.bot: Bot | None = None  # last bot seen, to bind objects built by helpers
        self.calls: list[Call] = []
        self._results: dict[type[TelegramMethod[Any]], Any] = {}
        self._violations_seen = 0
        self._limit_hits_seen = 0

    @property
    def limits(self) -> Limits | None:
        return self.telegram.limits

    @property
    def bot_username(self) -> str:
        return self.telegram.bot_user.username or ""

    @property
    def bot_first_name(self) -> str:
        return self.telegram.bot_user.first_name

    def bind(self, bot: Bot) -> None:
        """Answer as ``bot`` (its id is the model's bot id)."""
        self.bot = bot
        self.telegram.bot_user.id = bot.id

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
        if bot is not self.bot:
            self.bind(bot)
            _warm_up(self, bot)
        latency = self.latency() if callable(self.latency) else self.latency
        if latency:
            await asyncio.sleep(latency / 2)
        params = await self._params(bot, method)
        call = Call(method, self.clock())
        if self.record:
            self.calls.append(call)
        try:
            call.result = self._serve(bot, method, params)
        except Exception as e:
            call.error = e
        call.done = True
        if latency:
            await asyncio.sleep(latency / 2)
        if call.error is not None:
            raise call.error
        return call.result

    async def _params(self, bot: Bot, method: TelegramMethod[Any]) -> Params:
        """The request as aiogram's HTTP session would post it, decoded as Telegram does."""
        files: dict[str, InputFile] = {}
        raw: JSON = {}
        for key, value in method.model_dump(warnings=False).items():
            prepared = self.prepare_value(value, bot=bot, files=files)
            if prepared:
                raw[key] = prepared
        uploads = {}
        for key, file in files.items():
            data = b"".join([chunk async for chunk in file.read(bot)])
            uploads[key] = UploadedFile(key, file.filename or key, None, data)
        return Params(raw, uploads)

    def _serve(self, bot: Bot, method: TelegramMethod[Any], params: Params) -> Any:
        name = method.__api_method__
        try:
            params.data = decode_params(params.data)
            custom = self._results.get(type(method), _MISSING)
            if custom is not _MISSING:
                self.telegram.admit(Request(name, params, method))
                if callable(custom) and not isinstance(custom, TelegramObject):
                    custom = custom(method)
                result = _to_json(custom)
            else:
                result = self.telegram.call(name, params, source=method)
        except ApiError as error:
            if error.error_code == 501 and "does not emulate" in error.description:
                raise NotImplementedError(
                    f"the fake Telegram does not emulate {name!r} ({type(method).__name__}): "
                    f"script an answer with session.set_result({type(method).__name__}, ...) "
                    "or emulate it in tests/support/tg_model.py") from None
            self.check_response(bot, method, error.error_code, json.dumps(error.body()))
            raise AssertionError(f"check_response accepted {error!r}") from None
        content = json.dumps({"ok": True, "result": result})
        return self.check_response(bot, method, 200, content).result

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
        matches = _matcher(match, chat_id)
        self.telegram.script(lambda r: r.source is not None and matches(r.source), error,
                             times=times)

    def set_result(self, method_type: type[TelegramMethod[Any]], result: Any) -> None:
        """Answer every ``method_type`` request with ``result`` (for a method the model
        does not emulate): Telegram JSON, a TelegramObject (or a list of them), or a
        callable taking the method and returning one of those."""
        self._results[method_type] = result

    def set_chat_member(
        self, chat_id: int, user: User | int, status: str = "member", **fields: Any
    ) -> None:
        """What ``getChatMember(chat_id, user)`` answers (status: creator, administrator,
        member, restricted, left, kicked); ``fields`` override rights/flags."""
        tg = self.telegram
        chat = tg.add_group(chat_id) if chat_id < 0 else tg.chats[_model_user(tg, chat_id).id]
        user_id = user if isinstance(user, int) else user.id
        who = tg.bot_user if user_id == tg.bot_id else _model_user(tg, user)
        tg.set_member(chat, who, status, **fields)

    # -- the world (shared with UpdateFactory) ------------------------------------

    @property
    def chats(self) -> dict[int, Chat]:
        """Known chats by id."""
        return self.telegram.chats

    def register_chat(self, chat: JSON) -> JSON:
        """A chat given as Telegram JSON (a user's private chat or a group)."""
        if chat["type"] == "private":
            user = self.telegram.users.get(chat["id"]) or _add_user(
                self.telegram, chat["id"], chat.get("first_name", "Test"),
                username=chat.get("username"), last_name=chat.get("last_name"))
            return self.telegram.chats[user.id].to_api()
        extra = {k: v for k, v in chat.items() if k not in ("id", "type", "title")}
        return self.telegram.add_group(chat["id"], chat.get("title"), type=chat["type"],
                                       **extra).to_api()

    def next_message_id(self, chat_id: int) -> int:
        """The id the next message in ``chat_id`` gets (incoming and outgoing share them)."""
        return self.telegram.chats[chat_id].next_message_id

    def stored_message(self, chat_id: int, message_id: int) -> JSON | None:
        chat = self.telegram.chats.get(chat_id)
        found = self.telegram.find(chat, message_id) if chat is not None else None
        return None if found is None or found.deleted else found.to_api()

    # -- inspection -----------------------------------------------------------------

    @property
    def requests(self) -> list[TelegramMethod[Any]]:
        """Every request that reached the session, including failed attempts and retries."""
        return [call.method for call in self.calls]

    @property
    def delivered(self) -> list[TelegramMethod[Any]]:
        """Requests that succeeded."""
        return [call.method for call in self.calls if call.ok]

    @property
    def violations(self) -> int:
        """Requests made while a ``retry_after`` was still running (since ``clear``)."""
        return len(self.telegram.flood_violations) - self._violations_seen

    @property
    def limit_hits(self) -> int:
        """429s answered because ``limits`` were exceeded (since ``clear``)."""
        return self._limit_hits() - self._limit_hits_seen

    def _limit_hits(self) -> int:
        return sum(e.scope != "injected" and not e.during_ban for e in self.telegram.flood_events)

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
        """Text or caption of the latest successful send or edit in ``chat_id``, as sent."""
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
        chat = self.telegram.chats.get(chat_id)
        found = self.telegram.find(chat, message_id) if chat is not None else None
        return None if found is None or found.deleted else self._bind(found.to_api())

    def last_message(self, chat_id: int) -> Message | None:
        """The bot's most recent message in ``chat_id``, as it looks now."""
        sent = self.telegram.messages(chat_id)
        return self._bind(sent[-1].to_api()) if sent else None

    def clear(self) -> None:
        """Forget recorded calls and counters; chats, messages and scripts stay."""
        self.calls.clear()
        self._violations_seen = len(self.telegram.flood_violations)
        self._limit_hits_seen = self._limit_hits()

    def _bind(self, data: JSON) -> Message:
        context = {"bot": self.bot} if self.bot is not None else None
        return Message.model_validate(data, context=context)


_warm = False


def _warm_up(session: RecordingSession, bot: Bot) -> None:
    """Build aiogram's lazy models of the calls the bot makes, once per process: their
    first use costs tens of milliseconds, which timing tests must not measure."""
    global _warm
    if _warm:
        return
    _warm = True
    from aiogram import methods

    tg = Telegram(bot_id=bot.id, preexisting=True)
    keyboard = '{"inline_keyboard": [[{"text": "a", "callback_data": "a"}]]}'
    sent = tg.call("sendMessage", Params(decode_params(
        {"chat_id": 1, "text": "a", "reply_markup": keyboard})))
    query = tg.callback_query(tg.users[1], None, "a")
    calls: list[tuple[TelegramMethod[Any], Any]] = [
        (methods.GetMe(), tg.call("getMe", Params({}))),
        (methods.SendMessage(chat_id=1, text="a"), sent),
        (methods.EditMessageText(chat_id=1, message_id=1, text="b"), sent),
        (methods.EditMessageReplyMarkup(chat_id=1, message_id=1), sent),
        (methods.EditMessageCaption(chat_id=1, message_id=1), sent),
        (methods.SendPhoto(chat_id=1, photo="a"), sent),
        (methods.SendDocument(chat_id=1, document="a"), sent),
        (methods.SendMediaGroup(chat_id=1, media=[]), [sent]),
        (methods.AnswerCallbackQuery(callback_query_id=query["id"]), True),
        (methods.GetChatMember(chat_id=1, user_id=1),
         tg.call("getChatMember", Params({"chat_id": 1, "user_id": 1}))),
        (methods.PinChatMessage(chat_id=1, message_id=1), True),
        (methods.DeleteMessage(chat_id=1, message_id=1), True),
        (methods.SendChatAction(chat_id=1, action="typing"), True),
        (methods.SetMyCommands(commands=[]), True),
        (methods.GetUpdates(), []),
    ]
    for method, result in calls:
        method.model_dump(warnings=False)
        session.check_response(bot, method, 200, json.dumps({"ok": True, "result": result}))


def _add_user(telegram: Telegram, user_id: int, first_name: str, **fields: Any) -> TgUser:
    """A user of a handler test: known, and he has pressed Start."""
    user = telegram.add_user(user_id, first_name, **fields)
    user.started = True
    return user


def _model_user(telegram: Telegram, user: User | int) -> TgUser:
    if isinstance(user, int):
        return telegram.users.get(user) or _add_user(telegram, user, f"User {user}")
    known = telegram.users.get(user.id)
    if known is not None:
        return known
    return _add_user(telegram, user.id, user.first_name, username=user.username,
                     last_name=user.last_name, language_code=user.language_code,
                     is_bot=user.is_bot, is_premium=user.is_premium)


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

    With the session, incoming and outgoing messages share the session's model: per-chat
    message ids, chats and users, the bot's messages that callbacks refer to. Without
    one the factory keeps a model of its own.
    """

    def __init__(
        self,
        session: RecordingSession | None = None,
        *,
        first_update_id: int = 100_000,
        bot_username: str = BOT_USERNAME,
    ) -> None:
        self.session = session
        self.telegram = session.telegram if session is not None else Telegram(
            bot_id=BOT_ID, bot_username=bot_username, preexisting=True)
        self.bot_username = bot_username
        self._update_ids = itertools.count(first_update_id)

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
        user = _add_user(self.telegram, id, first_name, username=username,
                         last_name=last_name, language_code=language_code,
                         is_premium=is_premium)
        return User.model_validate(user.to_api())

    def private_chat(self, user: User) -> JSON:
        return self.telegram.chats[_model_user(self.telegram, user).id].to_api()

    def group_chat(
        self, chat_id: int, title: str | None = None, *, type: str | None = None, **extra: Any
    ) -> JSON:
        """A group chat's JSON; a chat already known keeps its title and type."""
        return self.telegram.add_group(chat_id, title, type=type, **extra).to_api()

    # -- messages -----------------------------------------------------------------------

    def message_json(
        self,
        chat: JSON,
        user: User | None,
        text: str | None,
        *,
        date: datetime | int | None = None,
        reply_to: Message | int | None = None,
        forward_from: User | None = None,
        sender_chat: JSON | None = None,
        message_thread_id: int | None = None,
        **extra: Any,
    ) -> JSON:
        """A Message as Telegram JSON, stored in the chat; commands get a ``bot_command``
        entity, mentions and links theirs."""
        tg = self.telegram
        where = tg.chats[chat["id"]]
        sender = _model_user(tg, user) if user is not None else None
        if sender is not None and where.is_group:
            where.members.setdefault(sender.id, "member")
        fields: JSON = {"extra": dict(extra)}
        if text is not None:
            fields.update(text=text, entities=auto_entities(text))
        if sender_chat is not None:
            fields["extra"]["sender_chat"] = sender_chat
        if message_thread_id is not None:
            fields["extra"].update(message_thread_id=message_thread_id, is_topic_message=True)
        if forward_from is not None:
            fields["extra"]["forward_origin"] = {
                "type": "user", "sender_user": _dump(forward_from), "date": unix(date) - 60}
        if reply_to is not None:
            replied_id = reply_to if isinstance(reply_to, int) else reply_to.message_id
            target = tg.find(where, replied_id)
            if target is not None:
                fields["reply_to"] = target
            else:
                replied = (_dump(reply_to) if isinstance(reply_to, Message) else
                           {"message_id": reply_to, "date": unix(), "chat": chat})
                replied.pop("reply_to_message", None)
                fields["extra"]["reply_to_message"] = replied
        message = tg.post(where, sender, date=date, **fields)
        return message.to_api()

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
        message = self.message_json(chat, user, text, date=date, reply_to=reply_to,
                                    forward_from=forward_from, **extra)
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
        message = self.message_json(chat, user, text, date=date, reply_to=reply_to,
                                    forward_from=forward_from,
                                    message_thread_id=message_thread_id, **extra)
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
        anonymous = User.model_validate(self.telegram.anonymous_admin().to_api())
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
        """A button press, a callback query the bot may answer once. ``message`` is the
        bot's Message (e.g. ``session.last_message``; the query carries it as it looks
        now) or a chat id with ``message_id``; None with ``inline_message_id``."""
        tg = self.telegram
        target: StoredMessage | JSON | None = None
        if isinstance(message, Message):
            chat = tg.chats.get(message.chat.id)
            target = tg.find(chat, message.message_id) if chat is not None else None
            if target is None:
                target = _dump(message)
        elif isinstance(message, int):
            if message_id is None:
                raise ValueError("callback(user, chat_id, data) needs message_id=")
            chat = tg.chats.get(message) or (
                tg.add_group(message) if message < 0 else tg.chats[
                    _model_user(tg, message).id])
            target = tg.bot_message_at(chat, message_id)
        query = tg.callback_query(_model_user(tg, user), target, data,
                                  inline_message_id=inline_message_id)
        return self.update(callback_query=query)

    def my_chat_member(
        self,
        chat_id: int,
        by: User,
        *,
        old: str = "left",
        new: str = "member",
        date: datetime | int | None = None,
        **new_fields: Any,
    ) -> Update:
        """The bot's own membership changed (added, promoted, kicked) by user ``by``; the
        model's chat follows (a kicked bot gets 403 there)."""
        tg = self.telegram
        actor = _model_user(tg, by)
        chat = tg.chats[actor.id] if chat_id > 0 else tg.add_group(chat_id)
        event = tg.my_chat_member_json(chat, actor, old, new, date=unix(date), **new_fields)
        return self.update(my_chat_member=event)

    def update(self, **payload: Any) -> Update:
        """Wrap one update field (``message=``, ``callback_query=`` ...) with a fresh update_id."""
        data = {"update_id": next(self._update_ids), **payload}
        bot = self.session.bot if self.session else None
        return Update.model_validate(data, context={"bot": bot} if bot else None)
