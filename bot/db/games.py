"""Games as judges record them, corrections, annulment and the chief judge's approvals.

Only the structure of a game is checked here (ten seats, role counts, seat numbers,
known and confirmed players); the scoring rules (8.3–8.5) are the scoring engine's.
Judge's extra points are INTEGER hundredths (exact, D3/D6). Points above 0.5 need
the chief judge's approval (8.4.3, D7): such a game is stored as ``pending`` with
one ``approvals`` row per seat until each is approved or lowered.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, fetch_val, run
from bot.db.errors import (
    AlreadyDecided,
    DuplicateTable,
    GameAnnulled,
    InvalidDraft,
    NotEntrants,
    NotFound,
)
from bot.db.timeutil import from_ts, opt_from_ts, to_ts, ts_or_now
from scoring.judging import APPROVAL_THRESHOLD, needs_approval
from scoring.model import PENALTY_RULES, ROLE_COUNTS, SEAT_NUMBERS, SEATS, Result, Role

GameStatus = Literal["pending", "final", "annulled"]
ApprovalStatus = Literal["pending", "approved", "lowered", "superseded"]

# APPROVAL_THRESHOLD (scoring.judging): hundredths above which judge's points need the
# chief judge (D7: "above 0.5"); he may lower them to it.
MAX_JUDGE_EXTRA = 100
# 8.8.1: a protest no later than 10 minutes after the game's end.
PROTEST_WINDOW = timedelta(minutes=10)


def game_code(round_no: int, table_no: int) -> str:
    """The game id the scoring engine sees, e.g. ``R2-T1`` (unique: one counting game
    per round and table)."""
    return f"R{round_no}-T{table_no}"


def _as_tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@dataclass(frozen=True, slots=True)
class SeatDraft:
    player_id: int
    role: Role
    disqualified: bool = False
    judge_extra: int = 0  # hundredths, 0 = none
    penalties: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Accept values straight from FSM JSON (str roles, lists) and normalise them.
        try:
            object.__setattr__(self, "role", Role(self.role))
        except ValueError:
            raise InvalidDraft(f"unknown role {self.role!r}") from None
        object.__setattr__(self, "penalties", _as_tuple(self.penalties))
        if not isinstance(self.judge_extra, int) or isinstance(self.judge_extra, bool):
            raise InvalidDraft("judge's extra points must be an int of hundredths")
        if not 0 <= self.judge_extra <= MAX_JUDGE_EXTRA:
            raise InvalidDraft(f"judge's extra points {self.judge_extra / 100} out of 0..1")
        bad = [p for p in self.penalties if p not in PENALTY_RULES]
        if bad:
            raise InvalidDraft(f"unknown penalty rules {bad}; known: {', '.join(PENALTY_RULES)}")


@dataclass(frozen=True, slots=True)
class GameDraft:
    """What the judge's conversation produces; ``seats[n - 1]`` is seat ``n``."""

    draft_id: str
    round: int
    table_no: int
    result: Result
    seats: tuple[SeatDraft, ...]
    day1_voted_out: int = 0
    first_killed: int | None = None
    best_move: tuple[int, ...] = ()
    best_move_hint: bool = False

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "result", Result(self.result))
        except ValueError:
            raise InvalidDraft(f"unknown result {self.result!r}") from None
        object.__setattr__(self, "seats", _as_tuple(self.seats))
        object.__setattr__(self, "best_move", _as_tuple(self.best_move))
        if not self.draft_id or len(self.draft_id) > 128:
            raise InvalidDraft("draft_id must be 1..128 characters")
        if self.round < 1 or self.table_no < 1:
            raise InvalidDraft("round and table numbers start at 1")
        if len(self.seats) != SEATS:
            raise InvalidDraft(f"a game has {SEATS} seats, got {len(self.seats)}")
        players = [s.player_id for s in self.seats]
        if len(set(players)) != SEATS:
            raise InvalidDraft("a player sits at two seats")
        roles = Counter(s.role for s in self.seats)
        if roles != Counter(ROLE_COUNTS):
            raise InvalidDraft(
                "roles must be civilian ×6, sheriff ×1, mafia ×2, don ×1; got "
                + ", ".join(f"{role} ×{n}" for role, n in sorted(roles.items()))
            )
        if not 0 <= self.day1_voted_out <= SEATS:
            raise InvalidDraft("day1_voted_out out of 0..10")
        if self.first_killed is not None and self.first_killed not in SEAT_NUMBERS:
            raise InvalidDraft("first_killed is not a seat 1..10")
        if self.best_move:
            if self.first_killed is None:
                raise InvalidDraft("a best move needs the first-killed seat")
            if len(self.best_move) > 3:
                raise InvalidDraft("a best move names at most 3 seats (8.3)")
            if any(n not in SEAT_NUMBERS for n in self.best_move):
                raise InvalidDraft("best move seats must be 1..10")
            # D10; the reason may reach the judge ("Not saved: ..."): no rule id in it.
            if len(set(self.best_move)) != len(self.best_move):
                raise InvalidDraft("best move names a seat twice")
            if self.first_killed in self.best_move:
                raise InvalidDraft("best move names the player's own seat")

    def seat(self, number: int) -> SeatDraft:
        return self.seats[number - 1]


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    player_id: int
    nickname: str
    role: Role
    disqualified: bool
    judge_extra: int  # hundredths
    chief_approved: bool
    penalties: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameRecord:
    id: int
    tournament_id: int
    round: int
    table_no: int
    result: Result
    day1_voted_out: int
    first_killed: int | None
    best_move: tuple[int, ...]
    best_move_hint: bool
    status: GameStatus
    judge_id: int
    draft_id: str
    ended_at: datetime
    created_at: datetime
    updated_at: datetime
    annulled_by: int | None
    annulled_at: datetime | None
    annul_reason: str | None
    seats: tuple[SeatRecord, ...]

    @property
    def code(self) -> str:
        return game_code(self.round, self.table_no)

    @property
    def protest_deadline(self) -> datetime:
        return self.ended_at + PROTEST_WINDOW

    def seat(self, number: int) -> SeatRecord:
        return self.seats[number - 1]

    def seat_of(self, player_id: int) -> SeatRecord | None:
        return next((s for s in self.seats if s.player_id == player_id), None)

    def to_draft(self, draft_id: str | None = None) -> GameDraft:
        """Start a correction from the stored game."""
        return GameDraft(
            draft_id=draft_id or self.draft_id,
            round=self.round,
            table_no=self.table_no,
            result=self.result,
            seats=tuple(
                SeatDraft(s.player_id, s.role, s.disqualified, s.judge_extra, s.penalties)
                for s in self.seats
            ),
            day1_voted_out=self.day1_voted_out,
            first_killed=self.first_killed,
            best_move=self.best_move,
            best_move_hint=self.best_move_hint,
        )


@dataclass(frozen=True, slots=True)
class ApprovalRow:
    id: int
    game_id: int
    seat: int
    player_id: int
    requested: int  # hundredths
    status: ApprovalStatus
    granted: int | None
    decided_by: int | None
    decided_at: datetime | None
    created_at: datetime
    # (chat_id, message_id) of the requests sent to chief judges
    messages: tuple[tuple[int, int], ...]


def _json_list(text: str) -> tuple[Any, ...]:
    return () if text == "[]" else tuple(json.loads(text))


def _seat_row(r: sqlite3.Row) -> SeatRecord:
    return SeatRecord(
        seat=r["seat"],
        player_id=r["player_id"],
        nickname=r["nickname"],
        role=Role(r["role"]),
        disqualified=bool(r["disqualified"]),
        judge_extra=r["judge_extra"],
        chief_approved=bool(r["chief_approved"]),
        penalties=_json_list(r["penalties"]),
    )


def _game_row(r: sqlite3.Row, seats: tuple[SeatRecord, ...]) -> GameRecord:
    return GameRecord(
        id=r["id"],
        tournament_id=r["tournament_id"],
        round=r["round"],
        table_no=r["table_no"],
        result=Result(r["result"]),
        day1_voted_out=r["day1_voted_out"],
        first_killed=r["first_killed"],
        best_move=_json_list(r["best_move"]),
        best_move_hint=bool(r["best_move_hint"]),
        status=cast(GameStatus, r["status"]),
        judge_id=r["judge_id"],
        draft_id=r["draft_id"],
        ended_at=from_ts(r["ended_at"]),
        created_at=from_ts(r["created_at"]),
        updated_at=from_ts(r["updated_at"]),
        annulled_by=r["annulled_by"],
        annulled_at=opt_from_ts(r["annulled_at"]),
        annul_reason=r["annul_reason"],
        seats=seats,
    )


def _approval_row(r: sqlite3.Row) -> ApprovalRow:
    return ApprovalRow(
        id=r["id"],
        game_id=r["game_id"],
        seat=r["seat"],
        player_id=r["player_id"],
        requested=r["requested"],
        status=cast(ApprovalStatus, r["status"]),
        granted=r["granted"],
        decided_by=r["decided_by"],
        decided_at=opt_from_ts(r["decided_at"]),
        created_at=from_ts(r["created_at"]),
        messages=tuple((int(c), int(m)) for c, m in json.loads(r["messages"])),
    )


# `where` below is always one of this module's literals; values are bound parameters.
async def _load_games(conn: Conn, where: str, params: Sequence[Any]) -> list[GameRecord]:
    games = await fetch_all(
        conn, f"SELECT * FROM games g WHERE {where} ORDER BY g.round, g.table_no, g.id", params
    )
    if not games:
        return []
    seat_rows = await fetch_all(
        conn,
        "SELECT s.*, p.nickname FROM game_seats s JOIN players p ON p.id = s.player_id"
        f" WHERE s.game_id IN (SELECT g.id FROM games g WHERE {where})"
        " ORDER BY s.game_id, s.seat",
        params,
    )
    seats: dict[int, list[SeatRecord]] = {}
    for r in seat_rows:
        seats.setdefault(r["game_id"], []).append(_seat_row(r))
    return [_game_row(g, tuple(seats.get(g["id"], ()))) for g in games]


async def get_game(conn: Conn, game_id: int) -> GameRecord | None:
    found = await _load_games(conn, "g.id = ?", (game_id,))
    return found[0] if found else None


async def require_game(conn: Conn, game_id: int) -> GameRecord:
    game = await get_game(conn, game_id)
    if game is None:
        raise NotFound("game", game_id)
    return game


async def get_game_by_draft(conn: Conn, draft_id: str) -> GameRecord | None:
    found = await _load_games(conn, "g.draft_id = ?", (draft_id,))
    return found[0] if found else None


async def list_games(
    conn: Conn, tournament_id: int, *, include_annulled: bool = False, round: int | None = None
) -> list[GameRecord]:
    """Games in round, table order."""
    return await _load_games(
        conn,
        "g.tournament_id = ? AND (? OR g.status <> 'annulled') AND (? IS NULL OR g.round = ?)",
        (tournament_id, include_annulled, round, round),
    )


async def games_of_player(
    conn: Conn, player_id: int, *, include_annulled: bool = False
) -> list[GameRecord]:
    return await _load_games(
        conn,
        "g.id IN (SELECT game_id FROM game_seats WHERE player_id = ?)"
        " AND (? OR g.status <> 'annulled')",
        (player_id, include_annulled),
    )


async def tables_by_round(conn: Conn, tournament_id: int) -> list[tuple[int, int, int]]:
    """(game id, round, table) of every game that counts: the shape of the rounds,
    without loading the games."""
    rows = await fetch_all(
        conn,
        "SELECT id, round, table_no FROM games WHERE tournament_id = ? AND status <> 'annulled'"
        " ORDER BY round, table_no",
        (tournament_id,),
    )
    return [(r[0], r[1], r[2]) for r in rows]


async def round_tables(
    conn: Conn, tournament_id: int, rounds: Iterable[int]
) -> list[tuple[int, int, int, int]]:
    """(game id, round, table, stage number) of the games that count in ``rounds``,
    read through the (tournament, round, table) index: whatever the tournament's size."""
    wanted = sorted(set(rounds))
    if not wanted:
        return []
    rows = await fetch_all(
        conn,
        "SELECT id, round, table_no, coalesce(stage, 1) FROM games WHERE tournament_id = ?"
        f" AND status <> 'annulled' AND round IN ({', '.join('?' * len(wanted))})"
        " ORDER BY round, table_no",
        (tournament_id, *wanted),
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


async def places_of(
    conn: Conn, tournament_id: int, game_ids: Iterable[int]
) -> dict[int, tuple[int, int]]:
    """Game id → (round, stage number) of those of ``game_ids`` that count."""
    wanted = sorted(set(game_ids))
    if not wanted:
        return {}
    rows = await fetch_all(
        conn,
        "SELECT id, round, coalesce(stage, 1) FROM games WHERE tournament_id = ?"
        f" AND status <> 'annulled' AND id IN ({', '.join('?' * len(wanted))})",
        (tournament_id, *wanted),
    )
    return {r[0]: (r[1], r[2]) for r in rows}


async def highest_table(conn: Conn, tournament_id: int, stage: int) -> int:
    """The highest table number of the stage's games that count (0: none): one lookup
    of the games_stage_table index, whatever the tournament's size."""
    found = await fetch_val(
        conn,
        "SELECT max(table_no) FROM games WHERE tournament_id = ? AND status <> 'annulled'"
        " AND coalesce(stage, 1) = ?",
        (tournament_id, stage),
    )
    return int(found or 0)


async def last_judged(conn: Conn, tournament_id: int, judge_id: int) -> tuple[int, int] | None:
    """(round, table) of the judge's game that counts in the latest round he judged."""
    row = await fetch_one(
        conn,
        "SELECT round, table_no FROM games WHERE tournament_id = ? AND judge_id = ?"
        " AND status <> 'annulled' ORDER BY round DESC, created_at DESC, id DESC LIMIT 1",
        (tournament_id, judge_id),
    )
    return None if row is None else (row[0], row[1])


async def next_free_round_table(
    conn: Conn, tournament_id: int, *, tables: int | None = None
) -> tuple[int, int]:
    """The first (round, table) without a game that counts.

    ``tables`` is the number of tables per round; by default the most used so far
    (at least 1). Rounds fill up table by table, so a judge's form can propose it.
    """
    return first_free(await tables_by_round(conn, tournament_id), tables=tables)


def first_free(
    stored: Iterable[tuple[int, int, int]], *, tables: int | None = None
) -> tuple[int, int]:
    """``next_free_round_table`` over ``tables_by_round``'s (id, round, table) rows."""
    used = {(r, t) for _, r, t in stored}
    per_round = tables or max((t for _, t in used), default=1)
    last_round = max((r for r, _ in used), default=0)
    for round_no in range(1, last_round + 2):
        for table in range(1, per_round + 1):
            if (round_no, table) not in used:
                return round_no, table
    return last_round + 1, 1  # unreachable: round last_round + 1 is empty


async def played_in_round(
    conn: Conn, tournament_id: int, round_no: int, except_id: int | None = None
) -> dict[int, int]:
    """Player id -> the table of his game that counts in the round, the game
    ``except_id`` left out."""
    rows = await fetch_all(
        conn,
        "SELECT s.player_id, g.table_no FROM games g JOIN game_seats s ON s.game_id = g.id"
        " WHERE g.tournament_id = ? AND g.round = ? AND g.status <> 'annulled'"
        " AND g.id IS NOT ?",
        (tournament_id, round_no, except_id),
    )
    return {r[0]: r[1] for r in rows}


# What is read before a game is written, in one statement: the game stored from the same
# draft (a new game's), another game that counts at the round and table, the ten seated
# of the tournament, and those of them who are not among the entrants of the game's
# stage (D13): the game's own (a correction), else the first not closed (a new game);
# the first stage (no entrants stored) takes all.
_CHECKS_SQL = """
SELECT
  (SELECT json_array(id, tournament_id) FROM games WHERE draft_id = :draft),
  (SELECT id FROM games WHERE tournament_id = :tournament AND round = :round
     AND table_no = :table AND status <> 'annulled' AND id IS NOT :game),
  (SELECT json_group_array(json_array(id, nickname, status)) FROM players
     WHERE tournament_id = :tournament AND id IN (SELECT value FROM json_each(:ids))),
  (SELECT json_group_array(json_array(p.nickname, s.name))
     FROM stages s JOIN players p ON p.tournament_id = s.tournament_id
     WHERE s.tournament_id = :tournament AND s.entrants IS NOT NULL
       AND s.number = coalesce(
         (SELECT coalesce(stage, 1) FROM games WHERE id = :game),
         (SELECT min(number) FROM stages
          WHERE tournament_id = s.tournament_id AND status <> 'closed'))
       AND p.id IN (SELECT value FROM json_each(:ids))
       AND p.id NOT IN (SELECT player_id FROM stage_entrants WHERE stage_id = s.id))
"""


async def _checks(
    conn: Conn, tournament_id: int, draft: GameDraft, *, game_id: int | None = None
) -> tuple[tuple[int, int] | None, dict[int, str]]:
    """The checks before ``draft`` is written (``game_id``: the game it corrects), in
    order: another game at its round and table (DuplicateTable), a seated player who is
    not a confirmed player of the tournament (InvalidDraft), or not an entrant of the
    stage (NotEntrants). Returns the (id, tournament id) of the game stored from the
    same draft, if any and ``game_id`` is None, and the seated players' nicknames."""
    r = await fetch_one(
        conn,
        _CHECKS_SQL,
        {
            "draft": None if game_id is not None else draft.draft_id,
            "tournament": tournament_id,
            "round": draft.round,
            "table": draft.table_no,
            "game": game_id,
            "ids": json.dumps([s.player_id for s in draft.seats]),
        },
    )
    assert r is not None
    stored, taken, seated, strangers = r
    if stored is not None:
        game, tournament = json.loads(stored)
        return (int(game), int(tournament)), {}
    if taken is not None:
        raise DuplicateTable(draft.round, draft.table_no, int(taken))
    status = {pid: (nickname, state) for pid, nickname, state in json.loads(seated)}
    for number, seat in enumerate(draft.seats, start=1):
        found = status.get(seat.player_id)
        if found is None:
            raise InvalidDraft(f"seat {number}: player {seat.player_id} is not in this tournament")
        if found[1] != "confirmed":
            raise InvalidDraft(f"seat {number}: player {found[0]} is not confirmed ({found[1]})")
    outside = sorted(json.loads(strangers))
    if outside:
        raise NotEntrants([str(name) for name, _stage in outside], str(outside[0][1]))
    return None, {pid: str(nickname) for pid, (nickname, _state) in status.items()}


def _game_values(draft: GameDraft) -> tuple[Any, ...]:
    return (
        draft.round,
        draft.table_no,
        draft.result.value,
        draft.day1_voted_out,
        draft.first_killed,
        json.dumps(list(draft.best_move)),
        draft.best_move_hint,
    )


async def _write_seats(
    conn: Conn, game_id: int, tournament_id: int, draft: GameDraft, approved: set[int]
) -> None:
    await conn.executemany(
        "INSERT INTO game_seats (game_id, seat, tournament_id, player_id, role, disqualified,"
        " judge_extra, chief_approved, penalties) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                game_id,
                number,
                tournament_id,
                s.player_id,
                s.role.value,
                s.disqualified,
                s.judge_extra,
                number in approved,
                json.dumps(list(s.penalties)),
            )
            for number, s in enumerate(draft.seats, start=1)
        ],
    )


async def _sync_approvals(
    conn: Conn, game_id: int, draft: GameDraft, approved: set[int], at: int
) -> None:
    """Keep pending requests that still match their seat, void the rest, add new ones;
    then set the game's status from what is still pending."""
    pending = await fetch_all(
        conn, "SELECT * FROM approvals WHERE game_id = ? AND status = 'pending'", (game_id,)
    )
    still: set[int] = set()
    for r in pending:
        seat = draft.seat(r["seat"])
        if seat.player_id == r["player_id"] and seat.judge_extra == r["requested"]:
            still.add(r["seat"])
        else:
            await run(
                conn,
                "UPDATE approvals SET status = 'superseded', decided_at = ? WHERE id = ?",
                (at, r["id"]),
            )
    await _request_approvals(conn, game_id, _to_ask(draft, approved | still), at)
    await _refresh_status(conn, game_id)


def _to_ask(draft: GameDraft, skip: set[int] | None = None) -> list[tuple[int, SeatDraft]]:
    """(seat number, seat) of the seats whose judge's points wait for the chief judge's
    approval (8.4.3), but those of ``skip``."""
    return [
        (number, s) for number, s in enumerate(draft.seats, start=1)
        if needs_approval(s.judge_extra) and number not in (skip or set())
    ]


async def _request_approvals(
    conn: Conn, game_id: int, asks: list[tuple[int, SeatDraft]], at: int
) -> tuple[ApprovalRow, ...]:
    """A pending request for each seat of ``asks``, in one statement; the rows stored."""
    if not asks:
        return ()
    rows = await fetch_all(
        conn,
        "INSERT INTO approvals (game_id, seat, player_id, requested, created_at) VALUES "
        + ", ".join(["(?, ?, ?, ?, ?)"] * len(asks))
        + " RETURNING *",
        [v for number, s in asks for v in (game_id, number, s.player_id, s.judge_extra, at)],
    )
    return tuple(sorted((_approval_row(a) for a in rows), key=lambda a: a.id))


async def _refresh_status(conn: Conn, game_id: int) -> None:
    await run(
        conn,
        "UPDATE games SET status = CASE WHEN EXISTS (SELECT 1 FROM approvals a"
        " WHERE a.game_id = games.id AND a.status = 'pending') THEN 'pending' ELSE 'final' END"
        " WHERE id = ? AND status <> 'annulled'",
        (game_id,),
    )


@dataclass(frozen=True, slots=True)
class AddedGame:
    """What ``add_game`` stored: the game, and whether it is new (``fresh``; else the
    game stored from the same draft before, as it is now), in a stage of the
    tournament's (``staged``, D13), with the approvals it requested (8.4.3, D7)."""

    record: GameRecord
    fresh: bool
    staged: bool = False
    approvals: tuple[ApprovalRow, ...] = ()


async def save_game(
    conn: Conn,
    tournament_id: int,
    draft: GameDraft,
    judge_id: int,
    ended_at: datetime,
    *,
    now: datetime | None = None,
) -> int:
    """Store a new game with its ten seats; return its id (``add_game``)."""
    added = await add_game(conn, tournament_id, draft, judge_id, ended_at, now=now)
    return added.record.id


async def add_game(
    conn: Conn, tournament_id: int, draft: GameDraft, judge_id: int, ended_at: datetime,
    *, now: datetime | None = None,
) -> AddedGame:
    """Store a new game with its ten seats and its approval requests.

    The same ``draft_id`` saved again finds the game stored (a redelivered Save);
    another game at the same round and table raises DuplicateTable. A new game's
    record is what was written, not read back.
    """
    stored, names = await _checks(conn, tournament_id, draft)
    if stored is not None:
        game_id, owner = stored
        if owner != tournament_id:
            raise InvalidDraft(f"draft {draft.draft_id!r} belongs to another tournament")
        return AddedGame(await require_game(conn, game_id), fresh=False)
    at = ts_or_now(now)
    ended = to_ts(ended_at)
    asks = _to_ask(draft)
    status: GameStatus = "pending" if asks else "final"
    values = _game_values(draft)
    # The game belongs to the current stage (D13): the first one not closed; NULL (the
    # first stage) for a tournament without stages.
    r = await fetch_one(
        conn,
        "INSERT INTO games (tournament_id, round, table_no, result, day1_voted_out,"
        " first_killed, best_move, best_move_hint, judge_id, draft_id, ended_at, created_at,"
        " updated_at, status, stage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " (SELECT number FROM stages WHERE tournament_id = ? AND status <> 'closed'"
        " ORDER BY number LIMIT 1)) RETURNING id, stage",
        (tournament_id, *values, judge_id, draft.draft_id, ended, at, at, status, tournament_id),
    )
    assert r is not None
    game_id = int(r[0])
    await _write_seats(conn, game_id, tournament_id, draft, set())
    approvals = await _request_approvals(conn, game_id, asks, at)
    record = GameRecord(
        id=game_id,
        tournament_id=tournament_id,
        round=draft.round,
        table_no=draft.table_no,
        result=draft.result,
        day1_voted_out=draft.day1_voted_out,
        first_killed=draft.first_killed,
        best_move=_json_list(values[5]),
        best_move_hint=bool(draft.best_move_hint),
        status=status,
        judge_id=judge_id,
        draft_id=draft.draft_id,
        ended_at=from_ts(ended),
        created_at=from_ts(at),
        updated_at=from_ts(at),
        annulled_by=None,
        annulled_at=None,
        annul_reason=None,
        seats=tuple(
            SeatRecord(
                seat=n,
                player_id=s.player_id,
                nickname=names[s.player_id],
                role=s.role,
                disqualified=bool(s.disqualified),
                judge_extra=s.judge_extra,
                chief_approved=False,
                penalties=s.penalties,
            )
            for n, s in enumerate(draft.seats, start=1)
        ),
    )
    return AddedGame(record, fresh=True, staged=r[1] is not None, approvals=approvals)


async def update_game(
    conn: Conn,
    game_id: int,
    draft: GameDraft,
    *,
    ended_at: datetime | None = None,
    now: datetime | None = None,
) -> GameRecord:
    """Correct a stored game: replace its protocol and seats with ``draft``.

    The game keeps its id, judge and ``draft_id`` (``draft.draft_id`` is ignored), and
    its end time unless ``ended_at`` is given. A chief's approval survives only for a
    seat whose player and points did not change. Audit the change with
    ``audit(..., before=old, after=new)``.
    """
    current = await require_game(conn, game_id)
    if current.status == "annulled":
        raise GameAnnulled(game_id)
    tid = current.tournament_id
    await _checks(conn, tid, draft, game_id=game_id)
    at = ts_or_now(now)
    await run(
        conn,
        "UPDATE games SET round = ?, table_no = ?, result = ?, day1_voted_out = ?,"
        " first_killed = ?, best_move = ?, best_move_hint = ?, ended_at = ?, updated_at = ?"
        " WHERE id = ?",
        (
            *_game_values(draft),
            to_ts(ended_at) if ended_at is not None else to_ts(current.ended_at),
            at,
            game_id,
        ),
    )
    approved = {
        old.seat
        for old in current.seats
        if old.chief_approved
        and draft.seat(old.seat).player_id == old.player_id
        and draft.seat(old.seat).judge_extra == old.judge_extra
    }
    await run(conn, "DELETE FROM game_seats WHERE game_id = ?", (game_id,))
    await _write_seats(conn, game_id, tid, draft, approved)
    await _sync_approvals(conn, game_id, draft, approved, at)
    return await require_game(conn, game_id)


async def annul_game(
    conn: Conn,
    game_id: int,
    *,
    annulled_by: int,
    reason: str | None = None,
    now: datetime | None = None,
) -> GameRecord:
    """Take the game out of the standings and free its round/table; idempotent."""
    current = await require_game(conn, game_id)
    if current.status == "annulled":
        return current
    at = ts_or_now(now)
    await run(
        conn,
        "UPDATE games SET status = 'annulled', annulled_by = ?, annulled_at = ?,"
        " annul_reason = ?, updated_at = ? WHERE id = ?",
        (annulled_by, at, reason, at, game_id),
    )
    await run(
        conn,
        "UPDATE approvals SET status = 'superseded', decided_at = ?"
        " WHERE game_id = ? AND status = 'pending'",
        (at, game_id),
    )
    return await require_game(conn, game_id)


# Approvals (8.4.3, D7)


async def get_approval(conn: Conn, approval_id: int) -> ApprovalRow | None:
    r = await fetch_one(conn, "SELECT * FROM approvals WHERE id = ?", (approval_id,))
    return None if r is None else _approval_row(r)


async def approvals_for_game(conn: Conn, game_id: int) -> list[ApprovalRow]:
    rows = await fetch_all(
        conn, "SELECT * FROM approvals WHERE game_id = ? ORDER BY id", (game_id,)
    )
    return [_approval_row(r) for r in rows]


async def pending_approvals(conn: Conn, tournament_id: int) -> list[ApprovalRow]:
    rows = await fetch_all(
        conn,
        "SELECT a.* FROM approvals a JOIN games g ON g.id = a.game_id"
        " WHERE g.tournament_id = ? AND a.status = 'pending' ORDER BY a.id",
        (tournament_id,),
    )
    return [_approval_row(r) for r in rows]


async def set_approval_messages(
    conn: Conn, approval_id: int, messages: Sequence[tuple[int, int]]
) -> None:
    """Remember the (chat_id, message_id) of the requests, to edit them once decided."""
    await run(
        conn,
        "UPDATE approvals SET messages = ? WHERE id = ?",
        (json.dumps([[int(c), int(m)] for c, m in messages]), approval_id),
    )


async def decide_approval(
    conn: Conn,
    approval_id: int,
    *,
    decided_by: int,
    lowered_to: int | None = None,
    now: datetime | None = None,
) -> ApprovalRow:
    """Approve the requested points, or lower them to ``lowered_to`` hundredths (0..50).

    Raises AlreadyDecided (with the row) when it was decided or voided before; the
    game becomes ``final`` once nothing of it is pending.
    """
    row = await get_approval(conn, approval_id)
    if row is None:
        raise NotFound("approval", approval_id)
    if row.status != "pending":
        raise AlreadyDecided("approval", row)
    if lowered_to is not None and not 0 <= lowered_to <= APPROVAL_THRESHOLD:
        raise ValueError(f"lowered points must be 0..{APPROVAL_THRESHOLD} hundredths")
    at = ts_or_now(now)
    if lowered_to is None:
        await run(
            conn,
            "UPDATE approvals SET status = 'approved', granted = requested, decided_by = ?,"
            " decided_at = ? WHERE id = ?",
            (decided_by, at, approval_id),
        )
        await run(
            conn,
            "UPDATE game_seats SET chief_approved = 1 WHERE game_id = ? AND seat = ?",
            (row.game_id, row.seat),
        )
    else:
        await run(
            conn,
            "UPDATE approvals SET status = 'lowered', granted = ?, decided_by = ?,"
            " decided_at = ? WHERE id = ?",
            (lowered_to, decided_by, at, approval_id),
        )
        await run(
            conn,
            "UPDATE game_seats SET judge_extra = ?, chief_approved = 0"
            " WHERE game_id = ? AND seat = ?",
            (lowered_to, row.game_id, row.seat),
        )
    await run(conn, "UPDATE games SET updated_at = ? WHERE id = ?", (at, row.game_id))
    await _refresh_status(conn, row.game_id)
    decided = await get_approval(conn, approval_id)
    assert decided is not None
    return decided


async def count_games(conn: Conn, tournament_id: int) -> int:
    """Games saved in the tournament that count (pending or final, not annulled)."""
    return int(
        await fetch_val(
            conn,
            "SELECT count(*) FROM games WHERE tournament_id = ? AND status <> 'annulled'",
            (tournament_id,),
        )
    )
