"""A re-plan that keeps an earlier plan: its rounds still to play (``previous_rounds``)
stay as they were, and only what no longer fits is repaired.

After round 3 of an accepted plan, a fresh plan moves nearly every player's seats,
including the round already announced; the earlier plan's own rounds, kept, move
nobody and keep its fairness. What can change since: players left (not in
``players`` any more: their seats are freed), players joined, or the played rounds
differ from the plan (a substitute played a seat, so one player is a game ahead and
another behind). The repair frees the seats of departed players and of games a
player has too many, and fills every freed seat with a player who is short of
games and free in that round: a flow problem (rounds ↔ players), solved exactly, the
latest rounds tried first so that announced rounds change least. Each round's freed
seats go to its newcomers by the cheapest assignment on their seat counts, and then
the seats are evened out by swaps within games (``mend``: every player's seat spread
at most 1 where the played rounds allow it), moving as few players as the search
finds. The meetings are left as the plan has them: its rounds are too tight to part a
pair without moving many players (see ``mend``). When
the freed seats can't be filled that way (the numbers of tables or rounds changed,
or a short player is busy in every round with a free seat), there is no repair and
the plan is generated afresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from .assignment import cheapest_assignment
from .mend import even_seats
from .model import SEATS, Plan, Request, Round, Table
from .quality import measure
from .sitouts import remaining_games

Hole = tuple[int, int]  # (table index in the round, seat index)


def repair(request: Request, previous: Sequence[Round]) -> Plan | None:
    """``request``'s plan keeping ``previous`` (an earlier plan's rounds not in
    ``request.fixed_rounds``) where it can; None when it can't be kept."""
    fixed = {r.round for r in request.fixed_rounds}
    free = [n for n in range(1, request.rounds + 1) if n not in fixed]
    by_number = {r.round: r for r in previous}
    if set(by_number) != set(free):
        return None
    index = {name: n for n, name in enumerate(request.players)}
    # seats[r][t][s]: a player index, or -1 for a freed seat
    seats: list[list[list[int]]] = []
    for number in free:
        round_ = by_number[number]
        numbers = [t.table for t in round_.tables]
        if len(numbers) != request.tables_in(number) or len(set(numbers)) != len(numbers):
            return None
        if not all(1 <= t <= request.tables for t in numbers):
            return None
        if any(len(t.seats) != SEATS for t in round_.tables):
            return None
        seats.append([[index.get(name, -1) for name in t.seats] for t in round_.tables])
    need = remaining_games(request)
    have = [0] * len(need)
    for round_seats in seats:
        for table in round_seats:
            for p in table:
                if p >= 0:
                    have[p] += 1
    joining = _fill(seats, need, have)
    if joining is None:
        return None
    _seat(seats, joining, request)
    # The played rounds may have handed players other seat numbers than the plan had
    # them in (two players who swapped tables swapped seats too): mend the seats of
    # the rounds left, keeping as many players as it can where the plan had them.
    even_seats(
        len(request.players),
        [[index[name] for name in t.seats] for r in request.fixed_rounds for t in r.tables],
        [table for round_seats in seats for table in round_seats],
        Random(request.seed),
        [[index.get(name, -1) for name in t.seats] for n in free for t in by_number[n].tables],
    )
    rounds = [_with_resting(r, request.players) for r in request.fixed_rounds]
    on = tuple(name for name in request.players if name not in request.withdrawn)
    for number, round_seats in zip(free, seats, strict=True):
        tables = [
            Table(table=t.table, seats=tuple(request.players[p] for p in table))
            for t, table in zip(by_number[number].tables, round_seats, strict=True)
        ]
        rounds.append(_with_resting(Round(round=number, tables=tuple(tables)), on))
    rounds.sort(key=lambda r: r.round)
    return Plan(tuple(rounds), measure(rounds, request))


def _fill(
    seats: list[list[list[int]]], need: list[int], have: list[int]
) -> list[list[int]] | None:
    """Free the seats of games too many, and choose who fills every freed seat: for
    each round, the players who join it (None: it can't be done)."""
    rounds = len(seats)
    playing = [{p for table in round_seats for p in table if p >= 0} for round_seats in seats]
    holes = [sum(p < 0 for table in round_seats for p in table) for round_seats in seats]
    over = {p: have[p] - need[p] for p in range(len(need)) if have[p] > need[p]}
    short = {p: need[p] - have[p] for p in range(len(need)) if have[p] < need[p]}
    # The network: source → round (its freed seats), source → a player with games too
    # many → a round he plays (he leaves it), round → a short player free in it → sink.
    flow = _Flow()
    for r in range(rounds):
        flow.edge("s", ("r", r), holes[r])
    for p, extra in over.items():
        flow.edge("s", ("o", p), extra)
        for r in reversed(range(rounds)):  # the latest rounds first: not announced yet
            if p in playing[r]:
                flow.edge(("o", p), ("r", r), 1)
    for p, lack in short.items():
        for r in reversed(range(rounds)):
            if p not in playing[r]:
                flow.edge(("r", r), ("u", p), 1)
        flow.edge(("u", p), "t", lack)
    wanted = sum(short.values())
    if wanted != sum(holes) + sum(over.values()) or flow.run("s", "t") != wanted:
        return None
    joining: list[list[int]] = [[] for _ in range(rounds)]
    for r in range(rounds):
        for p in short:
            if flow.used(("r", r), ("u", p)):
                joining[r].append(p)
    for p in over:
        for r in range(rounds):
            if flow.used(("o", p), ("r", r)):
                for table in seats[r]:
                    if p in table:
                        table[table.index(p)] = -1
    return joining


def _seat(seats: list[list[list[int]]], joining: list[list[int]], request: Request) -> None:
    """Each round's freed seats to the players joining it, least often in that seat
    number first (the cheapest assignment on their seat counts)."""
    index = {name: n for n, name in enumerate(request.players)}
    count = [[0] * SEATS for _ in request.players]
    for round_ in request.fixed_rounds:
        for played in round_.tables:
            for s, name in enumerate(played.seats):
                count[index[name]][s] += 1
    for round_seats in seats:
        for table in round_seats:
            for s, p in enumerate(table):
                if p >= 0:
                    count[p][s] += 1
    for round_seats, players in zip(seats, joining, strict=True):
        holes: list[Hole] = [
            (t, s) for t, table in enumerate(round_seats) for s, p in enumerate(table) if p < 0
        ]
        order = cheapest_assignment([[count[p][s] for _t, s in holes] for p in players])
        for p, column in zip(players, order, strict=True):
            t, s = holes[column]
            round_seats[t][s] = p
            count[p][s] += 1


def _with_resting(round_: Round, names: tuple[str, ...]) -> Round:
    seated = {name for table in round_.tables for name in table.seats}
    resting = tuple(name for name in names if name not in seated)
    return Round(round=round_.round, tables=round_.tables, sitting_out=resting)


class _Flow:
    """Max flow by augmenting paths (depth first): small networks, whole capacities."""

    def __init__(self) -> None:
        self.cap: dict[object, dict[object, int]] = {}
        self.given: dict[tuple[object, object], int] = {}

    def edge(self, a: object, b: object, capacity: int) -> None:
        self.cap.setdefault(a, {})[b] = self.cap.get(a, {}).get(b, 0) + capacity
        self.cap.setdefault(b, {}).setdefault(a, 0)
        self.given[(a, b)] = self.given.get((a, b), 0) + capacity

    def used(self, a: object, b: object) -> bool:
        return self.cap.get(a, {}).get(b, 0) < self.given.get((a, b), 0)

    def run(self, source: object, sink: object) -> int:
        total = 0
        while True:
            pushed = self._push(source, sink, set())
            if not pushed:
                return total
            total += pushed

    def _push(self, node: object, sink: object, seen: set[object]) -> int:
        if node == sink:
            return 1
        seen.add(node)
        for nxt, capacity in self.cap.get(node, {}).items():
            if capacity > 0 and nxt not in seen and self._push(nxt, sink, seen):
                self.cap[node][nxt] -= 1
                self.cap[nxt][node] += 1
                return 1
        return 0
