"""What each person sees, written down as it happens: the Bot API stand-in of the e2e
tests (``FakeTelegram``) reports every message a person writes, every button he taps
and every call of the bot that changes what people see (messages, edits, pop-ups,
pins, reactions); ``Transcript`` prints them chat by chat, in the order they happen.

Texts are plain (Telegram shows the bot's HTML as formatting: the model keeps the plain
text), buttons are ``[Label]``, pictures and files are named.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.e2e.fake_telegram import JSON, Chat, FakeTelegram, StoredMessage, User
from tests.support.tg_model import Params, markup_key

from .words import Words

INDENT = "    "
# A long text already shown (the welcome every player gets) is named, not repeated.
REPEAT_AFTER_LINES = 4


class Transcript:
    """Prints events chat by chat: a heading when the chat changes, then who did what."""

    def __init__(self, words: Words, write: Callable[[str], None]) -> None:
        self.words = words
        self.write = write
        self.lines: list[str] = []
        self._chat: int | None = None
        self._shown: dict[str, str] = {}  # a long text -> the first one it was sent to

    def _out(self, line: str) -> None:
        self.lines.append(line)
        self.write(line)

    def narrate(self, text: str) -> None:
        """The demo's own words: what happens next (between the chats)."""
        self._chat = None
        self._out("")
        self._out(f"▶ {text}")

    def note(self, text: str) -> None:
        """A line of the demo's own, under the last ``narrate``."""
        self._out(f"{INDENT}{text}")

    def _heading(self, chat: Chat) -> None:
        if chat.id == self._chat:
            return
        self._chat = chat.id
        _ = self.words
        if chat.is_group:
            title = _("{title} (the group)").format(title=chat.title)
        else:
            assert chat.user is not None
            title = _("{name}'s private chat with the bot").format(name=chat.user.first_name)
        self._out(f"  ── {title} ──")

    def _block(self, head: str, body: str) -> None:
        """``head`` and a one-line ``body`` on one line; a longer one indented below."""
        lines = body.splitlines()
        if len(lines) <= 1:
            self._out(f"  {head} {body}".rstrip())
            return
        self._out(f"  {head}")
        for line in lines:
            self._out(f"  {INDENT}{line}".rstrip())

    # -- people ------------------------------------------------------------------------

    def wrote(self, user: User, chat: Chat, text: str, reply_to: StoredMessage | None) -> None:
        self._heading(chat)
        _ = self.words
        head = f"{user.first_name}:"
        if reply_to is not None and not chat.is_private:
            head = (_("{name}, replying to the bot:") if reply_to.from_bot
                    else _("{name}, replying to {whom}:")).format(
                name=user.first_name, whom=reply_to.sender.get("first_name", ""))
        self._block(head, text)

    def tapped(self, user: User, message: StoredMessage, label: str) -> None:
        self._heading(message.chat)
        self._out("  " + self.words("{name} taps [{label}]").format(name=user.first_name,
                                                                     label=label))

    # -- the bot -----------------------------------------------------------------------

    def sent(self, message: StoredMessage) -> None:
        self._heading(message.chat)
        _ = self.words
        head = _("Bot:")
        if message.reply_to is not None and not message.chat.is_private:
            head = _("Bot, replying to {name}:").format(name=message.reply_to.sender.get(
                "first_name", ""))
        self._block(head, self._body(message, repeat_ok=True))

    def edited(self, message: StoredMessage, *, buttons_only: bool) -> None:
        self._heading(message.chat)
        _ = self.words
        if buttons_only:
            rows = self._buttons(message)
            self._block(_("Bot changes the buttons of its message:") if rows
                        else _("Bot removes the buttons of its message."), rows)
            return
        self._block(_("Bot edits its message, the new lines:"), self._changes(message))

    def popped_up(self, user: User, chat: Chat, text: str) -> None:
        self._heading(chat)
        self._block(self.words("Bot, a pop-up for {name}:").format(name=user.first_name),
                    text)

    def pinned(self, message: StoredMessage) -> None:
        self._heading(message.chat)
        self._out("  " + self.words("Bot pins its message «{start}…»").format(
            start=_first_line(message)))

    def reacted(self, message: StoredMessage, emoji: str) -> None:
        self._heading(message.chat)
        self._out("  " + self.words("Bot puts {emoji} on {name}'s message").format(
            emoji=emoji, name=message.sender.get("first_name", "")))

    def deleted(self, message: StoredMessage) -> None:
        self._heading(message.chat)
        self._out("  " + self.words("Bot deletes its message «{start}…»").format(
            start=_first_line(message)))

    # -- how a message looks -----------------------------------------------------------

    def _body(self, message: StoredMessage, *, repeat_ok: bool = False) -> str:
        _ = self.words
        lines = []
        if message.photo is not None:
            lines.append("🖼 " + _("a picture ({width}×{height})").format(
                width=message.photo.width, height=message.photo.height))
        if message.document is not None:
            lines.append("📎 " + _("a file: {name}").format(
                name=message.document.filename or "?"))
        text = message.content
        first = self._shown.get(text)
        if first is not None and repeat_ok and text.count("\n") >= REPEAT_AFTER_LINES:
            lines.append(_("(the same text as to {name} above)").format(name=first))
        else:
            if text.count("\n") >= REPEAT_AFTER_LINES:
                self._shown.setdefault(text, _reader(message.chat))
            if text:
                lines.append(text)
        rows = self._buttons(message)
        if rows:
            lines.append(rows)
        return "\n".join(lines)

    def _changes(self, message: StoredMessage) -> str:
        """An edit as its reader notices it: the lines it adds (a card is edited at each
        tap: all of it each time would bury what changed), the buttons if they changed."""
        if not message.revisions:
            return self._body(message)
        before = message.revisions[-1]
        old = set((before.text if before.text is not None else before.caption or "")
                  .splitlines())
        lines = [line for line in message.content.splitlines()
                 if line.strip() and line not in old]
        rows = self._buttons(message)
        if markup_key(message.reply_markup) != markup_key(before.reply_markup):
            lines.append(rows or self.words("(no buttons now)"))
        return "\n".join(lines)

    @staticmethod
    def _buttons(message: StoredMessage) -> str:
        return "\n".join(" ".join(f"[{label}]" for label in row)
                         for row in message.button_rows)


def _first_line(message: StoredMessage) -> str:
    return (message.content.splitlines() or [""])[0][:50]


def _reader(chat: Chat) -> str:
    return chat.user.first_name if chat.user is not None else chat.title or ""


class WatchedTelegram(FakeTelegram):
    """The e2e tests' Bot API stand-in, telling ``transcript`` what people see."""

    def __init__(self, token: str, transcript: Transcript, **options: Any) -> None:
        super().__init__(token, **options)
        self.transcript = transcript
        self._tappers: dict[str, tuple[User, Chat]] = {}  # callback query id -> who, where

    def send_text(self, user: User, chat: Chat | int, text: str, **options: Any) -> JSON:
        payload = super().send_text(user, chat, text, **options)
        message = self.message_of(payload)
        self.transcript.wrote(user, message.chat, text, message.reply_to)
        return payload

    def tap(self, user: User, message: StoredMessage | JSON, button: str) -> JSON:
        stored = self.message_of(message)
        found = stored.find_button(button)
        self.transcript.tapped(user, stored, found["text"] if found else button)
        query = super().tap(user, message, button)
        self._tappers[query["id"]] = (user, stored.chat)
        return query

    def call(self, method: str, params: Params, *, source: Any = None) -> Any:
        result = super().call(method, params, source=source)  # refused calls show nothing
        if method in ("sendMessage", "sendPhoto", "sendDocument", "sendMediaGroup"):
            for sent in result if isinstance(result, list) else [result]:
                self.transcript.sent(self.message_of(sent))
        elif method in ("editMessageText", "editMessageCaption",
                        "editMessageReplyMarkup") and isinstance(result, dict):
            self.transcript.edited(self.message_of(result),
                                   buttons_only=method == "editMessageReplyMarkup")
        elif method == "answerCallbackQuery" and params.text("text"):
            tapper = self._tappers.get(params.text("callback_query_id") or "")
            if tapper is not None:
                self.transcript.popped_up(*tapper, params.text("text") or "")
        elif method in ("pinChatMessage", "setMessageReaction", "deleteMessage"):
            self._on_message_call(method, params)
        return result

    def _on_message_call(self, method: str, params: Params) -> None:
        chat = self.chats.get(params.integer("chat_id") or 0)
        message = None if chat is None else self.find(chat, params.integer("message_id"))
        if message is None:
            return
        if method == "pinChatMessage":
            self.transcript.pinned(message)
        elif method == "deleteMessage":
            self.transcript.deleted(message)
        else:
            reactions = params.obj("reaction")
            if isinstance(reactions, str):  # a form field: JSON as text
                reactions = json.loads(reactions)
            for reaction in reactions if isinstance(reactions, list) else []:
                if isinstance(reaction, dict) and reaction.get("emoji"):
                    self.transcript.reacted(message, str(reaction["emoji"]))
