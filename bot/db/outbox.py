"""What the tournament's group chat must still be told, kept until it was posted.

A change and its announcement are written in ONE transaction (``add`` takes the
caller's connection), so a crash between the commit and the post loses nothing: the
publisher posts what it finds here, at start-up too, and deletes each row once its
message went out (a crash right after a post may repeat that one line, never lose it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.db.connection import Conn, fetch_all, insert, run
from bot.db.timeutil import ts_or_now

RESULT = "result"
NOTE = "note"
STANDINGS = "standings"


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    tournament_id: int
    kind: str
    game_id: int | None
    text: str | None


async def add(
    conn: Conn,
    tournament_id: int,
    kind: str,
    *,
    text: str | None = None,
    game_id: int | None = None,
) -> int:
    return await insert(
        conn,
        "INSERT INTO outbox (tournament_id, kind, game_id, text, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (tournament_id, kind, game_id, text, ts_or_now(None)),
    )


async def pending(conn: Conn, tournament_id: int) -> list[OutboxRow]:
    rows = await fetch_all(
        conn,
        "SELECT id, tournament_id, kind, game_id, text FROM outbox"
        " WHERE tournament_id = ? ORDER BY id",
        (tournament_id,),
    )
    return [OutboxRow(*r) for r in rows]


async def tournaments_waiting(conn: Conn) -> list[int]:
    rows = await fetch_all(conn, "SELECT DISTINCT tournament_id FROM outbox ORDER BY 1")
    return [r[0] for r in rows]


def _ids(ids: Iterable[int]) -> tuple[Sequence[int], str]:
    chosen = sorted(set(ids))
    return chosen, ",".join("?" * len(chosen))


async def remove(conn: Conn, ids: Iterable[int]) -> int:
    chosen, marks = _ids(ids)
    if not chosen:
        return 0
    return await run(conn, f"DELETE FROM outbox WHERE id IN ({marks})", chosen)


async def texts_posted(conn: Conn, ids: Iterable[int]) -> None:
    """The lines of these rows went out: notes are done; results stay for the round's
    picture, without their text."""
    chosen, marks = _ids(ids)
    if not chosen:
        return
    await run(conn, f"DELETE FROM outbox WHERE kind = 'note' AND id IN ({marks})", chosen)
    await run(conn, f"UPDATE outbox SET text = NULL WHERE id IN ({marks})", chosen)


async def pictured_rounds(conn: Conn, tournament_id: int) -> set[int]:
    """Rounds whose standings picture was posted (never twice, restarts included)."""
    rows = await fetch_all(
        conn, "SELECT round FROM round_pictures WHERE tournament_id = ?", (tournament_id,)
    )
    return {r[0] for r in rows}


async def mark_pictured(conn: Conn, tournament_id: int, round_no: int) -> None:
    await run(
        conn,
        "INSERT INTO round_pictures (tournament_id, round, posted_at) VALUES (?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        (tournament_id, round_no, ts_or_now(None)),
    )
