"""What the tournament's group chat and its players must still be told, kept until it
was posted.

A change and its announcement are written in ONE transaction (``add`` takes the
caller's connection), so a crash between the commit and the post loses nothing: the
publisher posts what it finds here, at start-up too, and deletes each row once its
message went out (a crash right after a post may repeat that one line, never lose it).

Most rows are for the group. A ``seat`` row is a private message to ``user_id``: the
seat of ``player_id`` in ``round``; a ``seating`` row the group's post of a round's
seating. Both are drawn from the accepted plan when posted (``changed``: a re-plan
changed what was told already). A ``final`` row is the group's post of the final
standings when the last stage ends (D16), a ``cut`` row the picture of a closed
``stage``'s standings with the next stage's entrants marked (D13); both drawn when posted.

What Telegram refuses for good is *set aside* (``set_aside``: the cause, ``detail``:
Telegram's words) instead of being tried again and again: such rows are no longer
pending, and wait for the chief judge's "Post again" (``take_back``). A ``picture`` row
is owed a round's standings picture that went out as text instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.db.connection import Conn, fetch_all, insert, run
from bot.db.timeutil import ts_or_now

RESULT = "result"
NOTE = "note"
STANDINGS = "standings"
SEATING = "seating"  # the group's post of a round's seating
SEAT = "seat"  # a player's own seat in a round, privately
FINAL = "final"  # the group's post of the final standings when the last stage ends (D16)
CUT = "cut"  # the picture of a closed stage's standings, its entrants marked (D13)
PICTURE = "picture"  # a round's standings picture still owed (it went out as text)

_COLUMNS = (
    "id, tournament_id, kind, game_id, text, round, player_id, user_id, changed, text_posted,"
    " stage, set_aside, detail"
)
_LIVE = "set_aside IS NULL"


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    tournament_id: int
    kind: str
    game_id: int | None
    text: str | None
    round: int | None = None
    player_id: int | None = None
    user_id: int | None = None
    changed: bool = False
    text_posted: bool = False  # seating: its text went out, its picture not yet
    stage: int | None = None  # cut: the stage that closed
    set_aside: str | None = None  # the cause Telegram refused it for good, if it did
    detail: str | None = None  # Telegram's words for that


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


async def enqueue(
    conn: Conn,
    tournament_id: int,
    *,
    result: str | None = None,
    game_id: int | None = None,
    note: str | None = None,
    standings: bool = False,
    final: bool = False,
    cut: int | None = None,
) -> None:
    """What the group must be told, in the caller's transaction: a saved game's result
    line (``result`` with ``game_id``; the standings follow it), a ``note``, the final
    standings' post when the last stage ends (``final``: text and picture, the text
    pinned; D16), the picture of stage ``cut`` closed now with the next stage's entrants
    marked (D13), and that the standings must be brought up to date (``standings``, or
    neither of the others given)."""
    if result is not None:
        if game_id is None:
            raise ValueError("a result line needs its game")
        await add(conn, tournament_id, RESULT, text=result, game_id=game_id)
    if note is not None:
        await add(conn, tournament_id, NOTE, text=note)
    if final:
        await add_final(conn, tournament_id)
    if cut is not None:
        await add_cut(conn, tournament_id, cut)
    if standings or (result is None and note is None):
        await add(conn, tournament_id, STANDINGS)


async def add_seating(
    conn: Conn, tournament_id: int, round_no: int, *, changed: bool = False
) -> int:
    """The group is to get the round's seating (text and picture)."""
    return await insert(
        conn,
        "INSERT INTO outbox (tournament_id, kind, round, changed, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (tournament_id, SEATING, round_no, int(changed), ts_or_now(None)),
    )


async def add_final(conn: Conn, tournament_id: int) -> int:
    """The group is to get the final standings (D16), text and picture, the text
    pinned: drawn when posted."""
    return await add(conn, tournament_id, FINAL)


async def add_cut(conn: Conn, tournament_id: int, stage: int) -> int:
    """The group is to get the picture of ``stage``'s standings, closed now, with the
    next stage's entrants marked (D13): drawn when posted."""
    return await insert(
        conn,
        "INSERT INTO outbox (tournament_id, kind, stage, created_at) VALUES (?, ?, ?, ?)",
        (tournament_id, CUT, stage, ts_or_now(None)),
    )


async def add_seat(
    conn: Conn,
    tournament_id: int,
    round_no: int,
    *,
    player_id: int,
    user_id: int,
    changed: bool = False,
) -> int:
    """``user_id`` is to get, privately, where ``player_id`` sits in the round."""
    return await insert(
        conn,
        "INSERT INTO outbox (tournament_id, kind, round, player_id, user_id, changed,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (tournament_id, SEAT, round_no, player_id, user_id, int(changed), ts_or_now(None)),
    )


async def pending(conn: Conn, tournament_id: int) -> list[OutboxRow]:
    """What still goes out, in order (not what was set aside)."""
    rows = await fetch_all(
        conn,
        f"SELECT {_COLUMNS} FROM outbox WHERE tournament_id = ? AND {_LIVE} ORDER BY id",
        (tournament_id,),
    )
    return _rows(rows)


async def set_aside_rows(conn: Conn, tournament_id: int) -> list[OutboxRow]:
    """What Telegram refused for good, oldest first."""
    rows = await fetch_all(
        conn,
        f"SELECT {_COLUMNS} FROM outbox WHERE tournament_id = ? AND NOT {_LIVE} ORDER BY id",
        (tournament_id,),
    )
    return _rows(rows)


def _rows(rows: Sequence[Any]) -> list[OutboxRow]:
    return [
        OutboxRow(
            id=r["id"],
            tournament_id=r["tournament_id"],
            kind=r["kind"],
            game_id=r["game_id"],
            text=r["text"],
            round=r["round"],
            player_id=r["player_id"],
            user_id=r["user_id"],
            changed=bool(r["changed"]),
            text_posted=bool(r["text_posted"]),
            stage=r["stage"],
            set_aside=r["set_aside"],
            detail=r["detail"],
        )
        for r in rows
    ]


async def seating_waiting(
    conn: Conn, tournament_id: int, round_no: int
) -> tuple[bool, set[int]]:
    """Whether the group's post of the round's seating still waits, and the players
    whose own seat message of it still waits (drawn from the plan when posted, so a
    re-plan needs no second one)."""
    rows = await fetch_all(
        conn,
        "SELECT kind, player_id FROM outbox WHERE tournament_id = ? AND round = ?",
        (tournament_id, round_no),
    )
    group = any(r[0] == SEATING for r in rows)
    return group, {r[1] for r in rows if r[0] == SEAT}


async def tournaments_waiting(conn: Conn) -> list[int]:
    rows = await fetch_all(
        conn, f"SELECT DISTINCT tournament_id FROM outbox WHERE {_LIVE} ORDER BY 1"
    )
    return [r[0] for r in rows]


async def set_aside(
    conn: Conn, ids: Iterable[int], cause: str, detail: str, at: datetime | None = None
) -> int:
    """Telegram refused these rows for good: kept, no longer pending."""
    chosen, marks = _ids(ids)
    if not chosen:
        return 0
    return await run(
        conn,
        f"UPDATE outbox SET set_aside = ?, detail = ?, set_aside_at = ? WHERE id IN ({marks})",
        (cause, detail[:500], ts_or_now(at), *chosen),
    )


async def add_set_aside(
    conn: Conn, tournament_id: int, kind: str, cause: str, detail: str, *,
    round_no: int | None = None, stage: int | None = None, text_posted: bool = False,
) -> int:
    """A picture that went out in a smaller form (or not at all), owed to the group: a
    ``picture`` of round ``round_no``, a ``cut`` of ``stage``, a ``final`` or ``seating``
    whose text went out (``text_posted``)."""
    now = ts_or_now(None)
    return await insert(
        conn,
        "INSERT INTO outbox (tournament_id, kind, round, stage, text_posted, created_at,"
        " set_aside, detail, set_aside_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (tournament_id, kind, round_no, stage, int(text_posted), now, cause, detail[:500],
         now),
    )


async def add_picture(conn: Conn, tournament_id: int, round_no: int) -> int:
    """The group is to get the standings' picture of round ``round_no`` (owed)."""
    return await insert(
        conn,
        "INSERT INTO outbox (tournament_id, kind, round, created_at) VALUES (?, ?, ?, ?)",
        (tournament_id, PICTURE, round_no, ts_or_now(None)),
    )


async def take_back(conn: Conn, tournament_id: int) -> int:
    """Everything set aside is pending again (the chief judge fixed the cause); the
    causes may be told again. Returns how many rows."""
    taken = await run(
        conn,
        "UPDATE outbox SET set_aside = NULL, detail = NULL, set_aside_at = NULL"
        f" WHERE tournament_id = ? AND NOT {_LIVE}",
        (tournament_id,),
    )
    await run(conn, "DELETE FROM post_failures_told WHERE tournament_id = ?", (tournament_id,))
    return taken


async def first_told(conn: Conn, tournament_id: int, cause: str) -> bool:
    """Record that the chief judges hear of ``cause``; False if they did already."""
    added = await run(
        conn,
        "INSERT INTO post_failures_told (tournament_id, cause, told_at) VALUES (?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        (tournament_id, cause, ts_or_now(None)),
    )
    return added > 0


def _ids(ids: Iterable[int]) -> tuple[Sequence[int], str]:
    chosen = sorted(set(ids))
    return chosen, ",".join("?" * len(chosen))


async def remove(conn: Conn, ids: Iterable[int]) -> int:
    """Rows that went out (those set aside meanwhile stay)."""
    chosen, marks = _ids(ids)
    if not chosen:
        return 0
    return await run(conn, f"DELETE FROM outbox WHERE id IN ({marks}) AND {_LIVE}", chosen)


async def texts_posted(conn: Conn, rows: Iterable[OutboxRow]) -> None:
    """The lines of these rows went out: notes are done; results stay for the round's
    picture, without their text."""
    rows = list(rows)
    notes, marks = _ids(r.id for r in rows if r.kind == NOTE)
    if notes:
        await run(conn, f"DELETE FROM outbox WHERE id IN ({marks})", notes)
    others, marks = _ids(r.id for r in rows if r.kind != NOTE)
    if others:
        await run(conn, f"UPDATE outbox SET text = NULL WHERE id IN ({marks})", others)


async def seating_text_posted(conn: Conn, row_id: int) -> None:
    """A seating (or final) row's text went out; its picture is still to go."""
    await run(conn, "UPDATE outbox SET text_posted = 1 WHERE id = ?", (row_id,))


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


async def is_announced(conn: Conn, tournament_id: int, round_no: int) -> bool:
    """The round's seating went into the outbox once (posted or still waiting)."""
    rows = await fetch_all(
        conn,
        "SELECT 1 FROM seating_announced WHERE tournament_id = ? AND round = ?",
        (tournament_id, round_no),
    )
    return bool(rows)


async def mark_announced(conn: Conn, tournament_id: int, round_no: int) -> bool:
    """Record that the round's seating is announced; False if it was already."""
    added = await run(
        conn,
        "INSERT INTO seating_announced (tournament_id, round, announced_at) VALUES (?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        (tournament_id, round_no, ts_or_now(None)),
    )
    return added > 0
