"""One-time deep-link invites (``t.me/bot?start=<token>``) for judges and players.

Only a digest of each token is stored (the ``token`` column holds it): a copy of the
database names no link that works. The token itself exists in the link sent to the
chief judge, once (:class:`IssuedInvite`); every look-up hashes the token it is given.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, run
from bot.db.errors import InviteInvalid
from bot.db.timeutil import from_ts, opt_from_ts, ts_or_now

InviteKind = Literal["judge", "player"]


def digest(token: str) -> str:
    """What is stored of ``token``: its SHA-256, hex (128 random bits need no salt)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class InviteRow:
    digest: str
    tournament_id: int
    kind: InviteKind
    created_by: int
    created_at: datetime
    used_by: int | None
    used_at: datetime | None
    revoked_at: datetime | None

    @property
    def usable(self) -> bool:
        return self.used_at is None and self.revoked_at is None

    @property
    def ref(self) -> str:
        """How the audit log names it: a prefix of the digest, never the token."""
        return self.digest[:12]


@dataclass(frozen=True, slots=True)
class IssuedInvite:
    """A new invite and its token, known only until the link is sent."""

    row: InviteRow
    token: str


def _row(r: sqlite3.Row) -> InviteRow:
    return InviteRow(
        digest=r["token"],
        tournament_id=r["tournament_id"],
        kind=cast(InviteKind, r["kind"]),
        created_by=r["created_by"],
        created_at=from_ts(r["created_at"]),
        used_by=r["used_by"],
        used_at=opt_from_ts(r["used_at"]),
        revoked_at=opt_from_ts(r["revoked_at"]),
    )


def new_token() -> str:
    # 128 random bits; URL-safe alphabet fits Telegram's start payload ([A-Za-z0-9_-], ≤64).
    return secrets.token_urlsafe(16)


async def create_invite(
    conn: Conn,
    tournament_id: int,
    kind: InviteKind,
    *,
    created_by: int,
    now: datetime | None = None,
) -> IssuedInvite:
    token = new_token()
    await run(
        conn,
        "INSERT INTO invites (token, tournament_id, kind, created_by, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (digest(token), tournament_id, kind, created_by, ts_or_now(now)),
    )
    row = await get_invite(conn, token)
    assert row is not None
    return IssuedInvite(row, token)


async def get_invite(conn: Conn, token: str) -> InviteRow | None:
    r = await fetch_one(conn, "SELECT * FROM invites WHERE token = ?", (digest(token),))
    return None if r is None else _row(r)


async def use_invite(
    conn: Conn, token: str, user_id: int, *, now: datetime | None = None
) -> InviteRow:
    """Spend the invite for ``user_id``; the same user using it again gets it back unchanged
    (a redelivered /start), anyone else gets ``InviteInvalid("used")``."""
    await run(
        conn,
        "UPDATE invites SET used_by = ?, used_at = ?"
        " WHERE token = ? AND used_at IS NULL AND revoked_at IS NULL",
        (user_id, ts_or_now(now), digest(token)),
    )
    row = await get_invite(conn, token)
    if row is None:
        raise InviteInvalid(token, "unknown")
    if row.used_by == user_id:
        return row
    if row.revoked_at is not None:
        raise InviteInvalid(token, "revoked")
    raise InviteInvalid(token, "used")


async def revoke_invite(conn: Conn, token: str, *, now: datetime | None = None) -> bool:
    """Revoke an unused invite; False if it was used, revoked or unknown."""
    return (
        await run(
            conn,
            "UPDATE invites SET revoked_at = ?"
            " WHERE token = ? AND used_at IS NULL AND revoked_at IS NULL",
            (ts_or_now(now), digest(token)),
        )
        > 0
    )


async def list_invites(
    conn: Conn, tournament_id: int, *, usable_only: bool = False
) -> list[InviteRow]:
    rows = await fetch_all(
        conn,
        "SELECT * FROM invites WHERE tournament_id = ?"
        " AND (NOT ? OR (used_at IS NULL AND revoked_at IS NULL)) ORDER BY created_at, token",
        (tournament_id, usable_only),
    )
    return [_row(r) for r in rows]
