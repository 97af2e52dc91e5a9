"""What a use case says to people, as plain data: a :class:`Phrase` is an English
message id (marked with ``N_`` for ``make messages``) and its parameters.

The use case decides what is said and to whom; the words are the reader's language's,
given by ``bot.texts.phrases.say`` where the phrase is shown (a handler's answer, a
notice ``bot.publishing`` delivers, the group's note the publisher stores in the
tournament's language). A parameter is a plain value (a number, a game's code), a
phrase, or one of the values below, each shown the way the bot's texts show it
(escaped for HTML, a preset stage's name translated ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

# -- the language someone reads ----------------------------------------------------------
# Decided here, where the use cases (which know no texts) choose whom to tell, and the
# texts (which know no repositories) say it: one answer for both.

# Russian, unless his Telegram speaks English (bot.texts.i18n translates into it).
DEFAULT_LOCALE = "ru"


def locale_of_code(code: str | None) -> str:
    """The bot's language for a Telegram language code (an update's user, the users
    table): English for English-speaking users, Russian for everyone else."""
    return "en" if (code or "").lower().startswith("en") else DEFAULT_LOCALE


class Speaker(Protocol):
    """An update's user or his stored profile (``bot.db.users.UserRow``)."""

    @property
    def language_code(self) -> str | None: ...


def locale_for(user: Speaker | None) -> str:
    """``locale_of_code`` of an update's user or a stored profile."""
    return locale_of_code(user.language_code if user else None)



class Profile(Protocol):
    """A Telegram user as last seen (``bot.db.users.UserRow``): what names him."""

    @property
    def first_name(self) -> str: ...

    @property
    def username(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class ResultLines:
    """A game's result line for the group, in the tournament's language: ``shown`` with
    every seat's points, ``hidden`` naming the seats without them, for a stage that hides
    its figures (D17). Which one is posted is decided where the game is stored."""

    shown: str
    hidden: str


@dataclass(frozen=True, slots=True)
class Phrase:
    """An English message id, translated when said, and its parameters."""

    msgid: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Verbatim:
    """Text as someone typed it (a nickname, a reason, a name), shown as written."""

    text: str


@dataclass(frozen=True, slots=True)
class Title:
    """A tournament's title, in quotes."""

    title: str


@dataclass(frozen=True, slots=True)
class Nick:
    """A player's nickname, in bold."""

    nickname: str


@dataclass(frozen=True, slots=True)
class StageName:
    """A stage's name: a preset's (final, semifinal ...) in the reader's language."""

    name: str


@dataclass(frozen=True, slots=True)
class Clock:
    """A moment in the tournament's time zone; its date too when it is not on the day
    of ``near``."""

    at: datetime
    tz: str | None
    near: datetime | None = None


@dataclass(frozen=True, slots=True)
class Person:
    """A Telegram user as the bot last saw him (``user``; None: never seen)."""

    user_id: int
    user: Profile | None


@dataclass(frozen=True, slots=True)
class ProtestNote:
    """A protest and how it stands: ``protest #3 upheld``."""

    protest_id: int
    status: str


@dataclass(frozen=True, slots=True)
class Command:
    """A command of the live protocol (``scoring.protocol``), in words."""

    command: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Joined:
    """Parts said one after the other, ``sep`` between them."""

    parts: tuple[Said, ...]
    sep: str = ", "


# What a use case may say: a phrase, one of the values above, or text worded already
# (bot.publishing's own notices).
Said = (
    Phrase | Joined | Verbatim | Title | Nick | StageName | Clock | Person | ProtestNote | Command
    | str
)


def N_(msgid: str) -> str:
    """Mark an English message id for ``make messages`` without translating it: a
    :class:`Phrase` is translated when said, in the reader's language."""
    return msgid


def listed(names: Iterable[str]) -> Joined:
    """Names as typed, comma-separated."""
    return Joined(tuple(Verbatim(name) for name in names))


__all__ = [
    "N_",
    "Clock",
    "Command",
    "Joined",
    "Nick",
    "Person",
    "Phrase",
    "ProtestNote",
    "Said",
    "StageName",
    "Title",
    "Verbatim",
    "listed",
]
