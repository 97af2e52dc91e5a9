"""What Telegram refused to post in a tournament's group for good, and posting it again.

The publisher sets such items aside with their cause (``bot.publishing.refusals``) and
tells the chief judges once per cause; the tournament's card lists them, and the chief
judge's "Post again" puts them back in the outbox once he fixed the cause (gave the bot
the right to send photos, shortened a note).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bot.db import outbox
from bot.db.audit import audit
from bot.db.connection import Database
from bot.services.notices import FollowUp
from bot.services.phrases import N_

# What the group missed, as the chief judge is told (translated when told).
RESULT_LINE = N_("a game's result line")
NOTE = N_("a note")
STANDINGS_MESSAGE = N_("the standings message")
FINAL_STANDINGS = N_("the final standings")
PICTURE = N_("a picture of the standings")
SEATING = N_("a round's seating")


def what_of(kind: str) -> str:
    """What an outbox row of ``kind`` is to the group (a message id, translated when
    shown)."""
    return {
        outbox.NOTE: NOTE,
        outbox.STANDINGS: STANDINGS_MESSAGE,
        outbox.FINAL: FINAL_STANDINGS,
        outbox.CUT: PICTURE,
        outbox.PICTURE: PICTURE,
        outbox.SEATING: SEATING,
    }.get(kind, RESULT_LINE)


@dataclass(frozen=True, slots=True)
class SetAside:
    """Items refused for one cause: how many of each kind (``what``: a message id to
    translate, e.g. "a picture of the standings"), and Telegram's words."""

    cause: str
    detail: str
    what: tuple[tuple[str, int], ...]

    @property
    def count(self) -> int:
        return sum(n for _what, n in self.what)


async def set_aside(db: Database, tournament_id: int) -> list[SetAside]:
    """What waits for the chief judge, by cause, oldest cause first."""
    async with db.read() as conn:
        rows = await outbox.set_aside_rows(conn, tournament_id)
    causes: dict[str, tuple[str, Counter[str]]] = {}
    for row in rows:
        assert row.set_aside is not None
        _detail, kinds = causes.setdefault(row.set_aside, (row.detail or "", Counter()))
        kinds[what_of(row.kind)] += 1
    return [
        SetAside(cause, detail, tuple(kinds.items())) for cause, (detail, kinds) in causes.items()
    ]


async def post_again(db: Database, tournament_id: int, by_user: int) -> tuple[int, FollowUp]:
    """Put everything set aside back in the outbox (audited); the follow-up posts it
    now. A second tap finds nothing and changes nothing."""
    async with db.transaction() as conn:
        taken = await outbox.take_back(conn, tournament_id)
        if taken:
            await audit(
                conn, action="post.again", entity="tournament", entity_id=tournament_id,
                tournament_id=tournament_id, actor_id=by_user, after={"items": taken},
            )
    if not taken:
        return 0, FollowUp()
    return taken, FollowUp(tournament_id=tournament_id, now=True)
