"""Use cases: one function for each thing a user does (save a game, decide a protest,
draw a lot, confirm a player ...).

A use case takes plain values (ids, rows, typed commands), owns its transaction, its
audit entry and the outbox rows of what the group must be told, and returns its
result or a :class:`Refusal`. What it says to people is data (``bot.services.phrases``:
a message id and its parameters); the notices to others it returns
(``bot.services.notices``) are delivered by its caller.

It knows no Telegram, no texts, no web page and no handler (an import contract in
pyproject.toml): the handlers, ``bot.web`` and ``bot.publishing`` import it, parse
what came in, call one use case, then word, send and draw (keyboards) what it
returns. None of them opens a transaction of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.phrases import N_, Phrase


@dataclass(frozen=True, slots=True)
class Refusal(Phrase):
    """Why nothing was changed: an English message id (translated when shown,
    ``bot.texts.phrases.say``) and its parameters. ``alert``: worth a pop-up rather
    than a toast."""

    alert: bool = False


__all__ = ["N_", "Refusal"]
