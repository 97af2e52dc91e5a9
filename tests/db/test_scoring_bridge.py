"""Stored games → scoring model; checked against the example's standings
(docs/examples/)."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

from bot.db import Database
from bot.db.games import GameDraft, SeatDraft, annul_game, approvals_for_game, decide_approval
from bot.db.games import save_game as store_game
from bot.db.lots import record_lot
from bot.db.players import add_player
from bot.db.scoring_bridge import (
    game_from_draft,
    game_from_record,
    game_stamps,
    load_scoring_tournament,
    load_stored_games,
    player_names,
    stamp_game_id,
)
from bot.db.tournaments import TournamentRow, create_tournament
from scoring.model import Game, Result, Role, Seat, Tournament
from tests.db.helpers import CHIEF, ENDED, JUDGE, ROLES, make_draft

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"


def hundredths(value: Any) -> int:
    exact = Fraction(str(value)) * 100
    assert exact.denominator == 1
    return int(exact)


async def store_example(db: Database, data: dict[str, Any]) -> TournamentRow:
    """The contract's JSON stored through the repositories, as the bot would."""
    async with db.transaction() as conn:
        t = await create_tournament(
            conn, title="Example", distance=data["distance"], created_by=CHIEF
        )
        ids: dict[str, int] = {}
        for game in data["games"]:
            for seat in game["seats"]:
                if seat["player"] not in ids:
                    p = await add_player(conn, t.id, seat["player"], status="confirmed")
                    ids[seat["player"]] = p.id
        for game in data["games"]:
            round_no, table_no = (int(x[1:]) for x in game["id"].split("-"))
            extras = {int(k): hundredths(v) for k, v in game.get("judge_extras", {}).items()}
            penalties = {int(k): tuple(v) for k, v in game.get("penalties", {}).items()}
            draft = GameDraft(
                draft_id=game["id"],
                round=round_no,
                table_no=table_no,
                result=Result(game["result"]),
                seats=tuple(
                    SeatDraft(
                        ids[s["player"]],
                        Role(s["role"]),
                        disqualified=n in game.get("disqualified", []),
                        judge_extra=extras.get(n, 0),
                        penalties=penalties.get(n, ()),
                    )
                    for n, s in enumerate(game["seats"], start=1)
                ),
                day1_voted_out=game.get("day1_voted_out", 0),
                first_killed=game.get("first_killed"),
                best_move=tuple(game.get("best_move", [])),
                best_move_hint=game.get("best_move_hint", False),
            )
            gid = await store_game(conn, t.id, draft, JUDGE, ENDED)
            for approval in await approvals_for_game(conn, gid):
                if approval.seat in game.get("chief_approved", []):
                    await decide_approval(conn, approval.id, decided_by=CHIEF)
        if data.get("lot"):
            await record_lot(conn, t.id, [ids[n] for n in data["lot"]], drawn_by=CHIEF)
    return t


async def test_example_tournament_round_trip(db: Database) -> None:
    data = json.loads((EXAMPLES / "small-tournament.json").read_text(encoding="utf-8"))
    t = await store_example(db, data)
    async with db.read() as conn:
        model = await load_scoring_tournament(conn, t.id)

    assert isinstance(model, Tournament) and model.distance == data["distance"]
    assert [g.id for g in model.games] == [g["id"] for g in data["games"]]
    for game, raw in zip(model.games, data["games"], strict=True):
        assert game.seats == tuple(Seat(s["player"], Role(s["role"])) for s in raw["seats"])
        assert game.result is Result(raw["result"])
        assert game.judge_extras == {
            int(k): Fraction(str(v)) for k, v in raw.get("judge_extras", {}).items()
        }
        assert game.chief_approved == frozenset(raw.get("chief_approved", []))
        assert game.penalties == {int(k): tuple(v) for k, v in raw.get("penalties", {}).items()}
        assert game.disqualified == tuple(raw.get("disqualified", []))
        assert game.best_move == tuple(raw.get("best_move", []))
        assert game.first_killed == raw.get("first_killed")

    try:  # the engine is written concurrently; check it when it is there
        from scoring import compute_standings
    except ImportError:
        return
    expected = json.loads(
        (EXAMPLES / "small-tournament.standings.json").read_text(encoding="utf-8")
    )
    got = compute_standings(model)
    assert expected["B"] == got.B
    assert [(r.place, r.player) for r in got.rows] == [
        (r["place"], r["player"]) for r in expected["standings"]
    ]
    for row, want in zip(got.rows, expected["standings"], strict=True):
        assert abs(float(row.total) - want["total"]) < 1e-9


async def test_bridge_details(db: Database, tournament: TournamentRow, players: list[int]) -> None:
    async with db.transaction() as conn:
        kept = await store_game(
            conn, tournament.id, make_draft(players, extras={1: 70, 2: 40}), JUDGE, ENDED
        )
        gone = await store_game(conn, tournament.id, make_draft(players, table_no=2), JUDGE, ENDED)
        await annul_game(conn, gone, annulled_by=CHIEF)
        a, b, c = players[:3]
        await record_lot(conn, tournament.id, [b, a], drawn_by=CHIEF)
        await record_lot(conn, tournament.id, [c, a, b], drawn_by=CHIEF)
        model = await load_scoring_tournament(conn, tournament.id)
        from bot.db.games import require_game

        record = await require_game(conn, kept)
    assert [g.id for g in model.games] == ["R1-T1"]  # annulled games do not count
    game = model.games[0]
    assert game.judge_extras == {1: Fraction(7, 10), 2: Fraction(2, 5)}
    assert game.chief_approved == frozenset()  # 0.7 still waits for the chief (D7)
    async with db.read() as conn:
        again = await load_scoring_tournament(conn, tournament.id)
    assert again.games[0].chief_approved is game.chief_approved  # one empty set, shared
    assert [s.role for s in game.seats] == list(ROLES)
    assert model.lot[:3] == ("P3", "P1", "P2")  # the newer draw of the grown group wins
    assert game_from_record(record) == game


async def test_game_stamps_change_with_the_game_or_its_seats(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        first = await store_game(conn, tournament.id, make_draft(players), JUDGE, ENDED)
        second = await store_game(
            conn, tournament.id, make_draft(players, table_no=2), JUDGE, ENDED
        )
        before = await game_stamps(conn, tournament.id)
        stored = await load_stored_games(
            conn, tournament.id, await player_names(conn, tournament.id)
        )
    assert {stamp_game_id(s) for s in before} == {first, second}
    assert {s.stamp for s in stored} == before  # a game read carries the stamp it was read at
    # Any write to a seat, even by plain SQL, gives the game a new stamp (schema v3 triggers).
    await db.execute(
        "UPDATE game_seats SET judge_extra = 30 WHERE game_id = ? AND seat = 1", (first,)
    )
    async with db.read() as conn:
        after = await game_stamps(conn, tournament.id)
    assert (
        len(after) == 2 and after - before and {stamp_game_id(s) for s in after - before} == {first}
    )
    async with db.transaction() as conn:
        await annul_game(conn, second, annulled_by=CHIEF)
        left = await game_stamps(conn, tournament.id)
    assert {stamp_game_id(s) for s in left} == {first}  # annulled games do not count


def test_game_from_draft() -> None:
    names = {i: f"N{i}" for i in range(1, 11)}
    draft = make_draft(list(range(1, 11)), extras={4: 30}, first_killed=1, best_move=(2,))
    game = game_from_draft(draft, names)
    assert isinstance(game, Game) and game.id == "R1-T1"
    assert game.seat(4) == Seat("N4", ROLES[3]) and game.judge_extras == {4: Fraction(3, 10)}


async def _big_tournament(db: Database, games: int) -> int:
    rng = random.Random(7)
    async with db.transaction() as conn:
        t = await create_tournament(conn, title="Big", distance=10, created_by=CHIEF)
        ids = [
            (await add_player(conn, t.id, f"Player {i}", status="confirmed")).id for i in range(100)
        ]
        for n in range(games):
            seated = rng.sample(ids, 10)
            roles = list(ROLES)
            rng.shuffle(roles)
            extras = {s: rng.choice((0, 0, 20, 30, 40)) for s in rng.sample(range(1, 11), 3)}
            seats = tuple(
                SeatDraft(
                    pid,
                    roles[i],
                    disqualified=rng.random() < 0.02,
                    judge_extra=extras.get(i + 1, 0),
                    penalties=("8.5.1",) if rng.random() < 0.03 else (),
                )
                for i, pid in enumerate(seated)
            )
            first = rng.randint(1, 10)
            draft = GameDraft(
                draft_id=f"big-{n}",
                round=n // 10 + 1,
                table_no=n % 10 + 1,
                result=rng.choice(list(Result)),
                seats=seats,
                first_killed=first,
                best_move=tuple(rng.sample([s for s in range(1, 11) if s != first], 3)),
            )
            await store_game(conn, t.id, draft, JUDGE, ENDED)
    return t.id


async def test_thousand_games_load_whole(db: Database) -> None:
    """A 1000-game tournament loads every game and seat (how fast: bench/standings_bench.py,
    not a wall-clock assert that a loaded machine would break)."""
    tid = await _big_tournament(db, 1000)
    async with db.read() as conn:
        model = await load_scoring_tournament(conn, tid)
    assert len(model.games) == 1000 and all(len(g.seats) == 10 for g in model.games)
