"""Use cases: one function for each thing a user does (save a game, decide a protest,
draw a lot, confirm a player ...).

A use case owns its transaction, its audit entry, the outbox rows of what the group
must be told and the notices to other people; it returns its result or a
:class:`Refusal`. Handlers parse the update, call one use case and render what it
returns: they never open a transaction themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiogram.utils.i18n import gettext as _


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why nothing was changed: an English message id (translated when shown) and its
    parameters. ``alert``: worth a pop-up rather than a toast."""

    msgid: str
    params: Mapping[str, Any] = field(default_factory=dict)
    alert: bool = False

    def text(self) -> str:
        return _(self.msgid).format(**self.params)


def N_(msgid: str) -> str:
    """Mark an English message id for ``make messages`` without translating it yet: a
    :class:`Refusal` is translated when shown, in the reader's language."""
    return msgid


__all__ = ["N_", "Refusal"]
