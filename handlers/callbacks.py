"""Callback data shared between feature routers (each router keeps its own otherwise),
and the bounded field types every ``CallbackData`` factory uses.

Callback data comes from the client and can be anything (docs/development.md, "Who may do what").
Bounding each field where it is parsed makes a value no keyboard can send (an id of
10^30, an action ``maybe``) fail to unpack: the tap is then out of date (handlers.common)
and reaches no filter, no use case and no query (SQLite's integers are 64-bit).
``tests/handlers/test_access_matrix.py`` checks that every factory's fields are bounded.
"""

from __future__ import annotations

from typing import Annotated

from aiogram.filters.callback_data import CallbackData
from pydantic import Field

SQL_MAX = 2**63 - 1

# A row of ours (tournament, player, game, protest, plan ...) or a Telegram user: ≥ 1.
RowId = Annotated[int, Field(ge=1, le=SQL_MAX)]
# A small count or index a keyboard carries: a page, a table count, a seat.
Small = Annotated[int, Field(ge=0, le=10_000)]
# An argument that may be any stored integer (a player id, points in hundredths, a seat).
Arg = Annotated[int, Field(ge=-SQL_MAX - 1, le=SQL_MAX)]
# A short code (a step, a draft's token, a digest prefix): letters, digits, - and _.
Code = Annotated[str, Field(max_length=24, pattern=r"^[A-Za-z0-9_-]*$")]
# A time zone's IANA name (validated again where it is used).
Zone = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_+/-]+$")]


class GameMenu(CallbackData, prefix="gm"):
    """Open a saved game's menu for the chief judge: correct any step or annul it.

    Sent by /games and by an upheld protest (8.8.2); handled by the game-entry router.
    """

    game_id: RowId
