"""Callback data of the game-entry router (prefixes ``g*``; ``gm`` is handlers.callbacks).

Nothing here is trusted: every handler re-checks seats, players and games against the
database and the sender's role. Draft buttons carry the draft's short token and the
step the card showed, so a tap on an old card is recognised as out of date.
"""

from __future__ import annotations

from typing import Literal

from aiogram.filters.callback_data import CallbackData

from handlers.callbacks import Arg, Code, RowId, Small


class Step(CallbackData, prefix="gs"):
    """A button on the judge's card: ``a`` is the action, ``n``/``m`` its arguments."""

    t: Code  # the draft's token
    s: Code  # the step code the card showed
    a: Code
    n: Arg = 0
    m: Arg = 0


class PlayerMove(CallbackData, prefix="gb"):
    """The first-killed player's own best move (8.3), in his private chat."""

    j: RowId  # the judge whose draft this is
    t: Code  # the draft's token
    a: Literal["s", "d"]  # "s": name seat ``n``; "d": done (8.3.2)
    n: Small = 0


class ApprovalDecision(CallbackData, prefix="ga"):
    """The chief judge approves judge's points above 0.5 or lowers them (8.4.3, D7)."""

    id: RowId
    a: Literal["ok", "low"]


class RosterDecision(CallbackData, prefix="gp"):
    """The chief judge confirms or rejects a player a judge added at the table."""

    id: RowId
    ok: bool


class GameAction(CallbackData, prefix="gc"):
    """The chief judge's actions on a saved game: correct it, annul it (with a yes/no)."""

    id: RowId
    a: Literal["fix", "annul", "yes", "no"]


class GamesPage(CallbackData, prefix="gl"):
    """A page of /games for one tournament."""

    tid: RowId
    page: Small = 0


class NewGame(CallbackData, prefix="gn"):
    """"New game" on a saved game's card: the same as /game."""

    x: Small = 0
