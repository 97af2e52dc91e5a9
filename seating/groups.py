"""Who meets whom, and at which table: each round's players split into tables of ten,
each table given its number in the hall.

The hard part of a plan. Players are indices; ``meetings[p][q]`` counts the games p and
q share and ``visits[p][t]`` the games p plays at table t. A pair costs
``SCALE |m - average|⁴`` for its m meetings: the total of squares is nearly fixed by
how the rounds' tables overlap (any plan of 40 players at 4 tables has a fifth of its
pairs meeting once), so the fourth power is what tells an even plan from one with
pairs that never meet or meet too often. An ``apart`` pair costs ``APART`` per game
shared instead (it should never meet). The table numbers come second (``_number``),
minimising the players' ``Σ visits⁸``.

A greedy construction (each table filled with the players who add the least cost) is
improved by simulated annealing over swaps of two players between tables of one round.
For 40 players all playing 7, 9 or 10 rounds at 4 tables, a structured plan
(``quartets``) replaces both: every pair meets within one of the average there, which
the annealing does not reach. A player swap's cost change takes O(1) sums: with
``more[p][q]`` / ``less[p][q]`` the cost of one more / one fewer shared game, moving a
from table A to B while b goes from B to A changes the meetings' cost by
``Σ_B more[a] - Σ_A less[a] + Σ_A more[b] - Σ_B less[b] - 2 more[a][b]`` (sums over a
table's players, the diagonal 0); those rows are kept up to date as meetings change.

The searches are bounded by their own counts of work (the same plan on every machine);
the clock is read only for ``deadline``, the safety cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp
from operator import itemgetter
from random import Random
from time import perf_counter

from .assignment import cheapest_assignment
from .model import SEATS
from .quartets import quartet_plan, quartets_apply

POWER = 4
SCALE = 10  # integer costs, fine enough to tell 1 meeting from 2 near an average of 1
NEVER = 4  # the cost of a pair that never meets, times, when the average is 1.5 or more
APART = 2_000  # per game an apart pair shares: more than any meeting imbalance it fixes
# A quartet plan (``quartets``) has every pair meet: apart pairs are parted by a cold
# annealing from it (this share of the moves), which keeps the rest of the plan where it
# can.
PARTING_SHARE = 0.2
PARTING_HOT = 3.0
# Then the tables are numbered (``_number``), which leaves the meetings alone: balancing
# the tables by moving players costs far more meetings than it is worth (for 40 players
# × 10 games at 4 tables, table spread 1 needs more pairs meeting 3 times than the quartet
# plans have: see ``quartets``).
TABLE_POWER = 8
PATIENCE = 80  # sweeps without a better numbering before it stops
SHAKEN = 2  # rounds renumbered at random when a sweep is stuck
# Annealing schedule: temperature from HOT to COLD, geometrically, over the moves.
HOT = 30.0
COLD = 1.0
MOVES_PER_SEAT = 700  # moves per player-game to arrange, within MIN_MOVES..MAX_MOVES
MIN_MOVES = 8_000
MAX_MOVES = 700_000
CHUNK = 2_048  # moves between looks at the temperature, the best plan and the clock


class Arrangement:
    """The rounds to plan: ``groups[r]`` the tables of round r (lists of players) and
    ``numbers[r]`` their table numbers (from 1)."""

    __slots__ = ("cut_short", "groups", "numbers")

    def __init__(self, groups: list[list[list[int]]], numbers: list[list[int]], cut_short: bool):
        self.groups = groups
        self.numbers = numbers
        self.cut_short = cut_short  # stopped by the deadline


def arrange(
    players: int,
    tables: int,
    playing: Sequence[Sequence[int]],
    counts: Sequence[int],
    fixed: Sequence[tuple[int, Sequence[int]]],
    apart: Sequence[tuple[int, int]],
    rng: Random,
    deadline: float,
) -> Arrangement:
    """``playing[r]`` split into ``counts[r]`` tables of ten, numbered from 1 to
    ``tables``, around the ``fixed`` games already played (table number, players)."""
    games = sum(counts) + len(fixed)
    top = games + 2
    average = games * (SEATS * (SEATS - 1) // 2) / (players * (players - 1) // 2)
    weight = [round(SCALE * abs(m - average) ** POWER) for m in range(top + 1)]
    if average >= 1.5:  # most pairs meet twice or more: one that never meets is worst
        weight[0] *= NEVER
    inc = [weight[m + 1] - weight[m] for m in range(top)]
    dec = [0, *(weight[m] - weight[m - 1] for m in range(1, top))]
    # an apart pair costs APART per game shared instead of its meetings' cost
    incs = (inc, [APART] * top)
    decs = (dec, [0] + [APART] * (top - 1))
    kind = [[0] * players for _ in range(players)]  # 1: an apart pair
    for a, b in apart:
        kind[a][b] = kind[b][a] = 1
    meetings = [[0] * players for _ in range(players)]
    visits = [[0] * tables for _ in range(players)]
    for number, group in fixed:
        _meet(meetings, group)
        for p in group:
            visits[p][number - 1] += 1
    more = [
        [incs[k][m] for m, k in zip(row, ks, strict=True)]
        for row, ks in zip(meetings, kind, strict=True)
    ]
    for p in range(players):
        more[p][p] = 0
    start, cut_short = None, False
    if not fixed and quartets_apply(players, tables, playing, counts):
        plan, cut_short = quartet_plan(len(playing), rng, deadline)
        if plan is not None:
            start = _place(plan, players, apart, rng)
    groups = []
    for r, (group, count) in enumerate(zip(playing, counts, strict=True)):
        if start is None:
            round_groups = _greedy(list(group), count, meetings, more, incs, kind, rng)
        else:
            round_groups = start[r]
            for g in round_groups:
                _join(g, meetings, more, incs, kind)
        groups.append(round_groups)
    if groups and (tables > 1 or max(counts) > 1) and not cut_short:
        less = [
            [decs[k][m] for m, k in zip(row, ks, strict=True)]
            for row, ks in zip(meetings, kind, strict=True)
        ]
        for p in range(players):
            less[p][p] = 0
        budget = min(MAX_MOVES, max(MIN_MOVES, MOVES_PER_SEAT * sum(map(len, playing))))
        annealing = _Annealing(groups, meetings, more, less, incs, decs, kind)
        if start is None:
            cut_short = annealing.run(budget, rng, deadline, HOT, COLD)
        elif apart:  # a quartet plan has every pair meet: part the apart pairs, gently
            cut_short = annealing.run(int(budget * PARTING_SHARE), rng, deadline, PARTING_HOT, COLD)
    labels, stopped = _number(groups, visits, tables, rng, deadline)
    return Arrangement(
        groups, [[t + 1 for t in numbers] for numbers in labels], cut_short or stopped
    )


def _number(
    groups: list[list[list[int]]],
    visits: list[list[int]],
    tables: int,
    rng: Random,
    deadline: float,
) -> tuple[list[list[int]], bool]:
    """Each round's table numbers (from 0), every player's games spread evenly over the
    tables: ``visits`` holds the fixed games and ends up holding all of them.

    Minimises ``Σ visits⁸`` over the players and tables (for a player's fixed number of
    games, a convex cost is least when the games are spread evenly, and a high power
    weighs the most games at one table the way the spread does, which squares do not).
    Given the other rounds, a round's best numbering is a cheapest assignment (a player's
    cost of one more game at a table does not depend on the rest of the round), so each
    sweep renumbers the rounds one by one; when a sweep changes nothing, ``SHAKEN`` rounds
    are renumbered at random to leave the local minimum. The best numbering seen is
    kept; the search stops after ``PATIENCE`` sweeps without a better one, or at the
    deadline (then also ``True``).
    """
    top = len(groups) + max((sum(row) for row in visits), default=0) + 2
    cost = [v**TABLE_POWER for v in range(top)]
    step = [cost[v + 1] - cost[v] for v in range(top - 1)]

    def best_numbers(round_groups: list[list[int]]) -> list[int]:
        rows = [
            [sum(column) for column in zip(*([step[v] for v in visits[p]] for p in g), strict=True)]
            for g in round_groups
        ]
        return cheapest_assignment(rows)

    labels: list[list[int]] = []
    for round_groups in groups:
        numbers = best_numbers(round_groups)
        _visit(visits, round_groups, numbers, 1)
        labels.append(numbers)
    if len(groups) < 2 or tables < 2:
        return labels, False
    best = sum(cost[v] for row in visits for v in row)
    kept = [numbers[:] for numbers in labels]
    order = list(range(len(groups)))
    stopped = False
    idle = 0
    while idle < PATIENCE:
        if perf_counter() > deadline:
            stopped = True
            break
        rng.shuffle(order)
        changed = False
        for r in order:
            _visit(visits, groups[r], labels[r], -1)
            numbers = best_numbers(groups[r])
            changed = changed or numbers != labels[r]
            labels[r] = numbers
            _visit(visits, groups[r], numbers, 1)
        total = sum(cost[v] for row in visits for v in row)
        idle += 1
        if total < best:
            best, kept, idle = total, [numbers[:] for numbers in labels], 0
        if not changed:
            for r in rng.sample(order, min(SHAKEN, len(order))):
                _visit(visits, groups[r], labels[r], -1)
                labels[r] = rng.sample(range(tables), len(groups[r]))
                _visit(visits, groups[r], labels[r], 1)
    for round_groups, numbers in zip(groups, labels, strict=True):
        _visit(visits, round_groups, numbers, -1)
    for round_groups, numbers in zip(groups, kept, strict=True):
        _visit(visits, round_groups, numbers, 1)
    return kept, stopped


def _visit(
    visits: list[list[int]], round_groups: list[list[int]], numbers: list[int], step: int
) -> None:
    for g, t in zip(round_groups, numbers, strict=True):
        for p in g:
            visits[p][t] += step


def _meet(meetings: list[list[int]], group: Sequence[int]) -> None:
    for i, a in enumerate(group):
        row = meetings[a]
        for b in group[i + 1 :]:
            row[b] += 1
            meetings[b][a] += 1


def _greedy(
    playing: list[int],
    tables: int,
    meetings: list[list[int]],
    more: list[list[int]],
    incs: tuple[list[int], list[int]],
    kind: list[list[int]],
    rng: Random,
) -> list[list[int]]:
    """Tables filled one by one, each time with the player who adds the least cost."""
    rng.shuffle(playing)
    left = playing
    groups = []
    for _ in range(tables):
        group = [left.pop()]
        cost = {q: more[q][group[0]] for q in left}
        while len(group) < SEATS:
            best = min(left, key=cost.__getitem__)
            left.remove(best)
            del cost[best]
            row = more[best]
            for q in left:
                cost[q] += row[q]
            group.append(best)
        groups.append(group)
        _join(group, meetings, more, incs, kind)
    return groups


def _join(
    group: Sequence[int],
    meetings: list[list[int]],
    more: list[list[int]],
    incs: tuple[list[int], list[int]],
    kind: list[list[int]],
) -> None:
    """The meetings (and the costs of one more) after ``group`` plays a game."""
    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            m = meetings[a][b] + 1
            meetings[a][b] = meetings[b][a] = m
            more[a][b] = more[b][a] = incs[kind[a][b]][m]


def _place(
    plan: list[list[list[int]]], players: int, apart: Sequence[tuple[int, int]], rng: Random
) -> list[list[list[int]]]:
    """``plan`` (tables of places 0..players-1) with a player at each place: the apart
    pairs at places that meet least, the others at random."""
    met = [[0] * players for _ in range(players)]
    for round_groups in plan:
        for group in round_groups:
            _meet(met, group)
    place: dict[int, int] = {}
    free = set(range(players))
    for a, b in apart:
        if a in place and b in place:
            continue
        if a in place or b in place:
            fixed, loose = (a, b) if a in place else (b, a)
            row = met[place[fixed]]
            spots = sorted(free)
            fewest = min(row[q] for q in spots)
            spot = rng.choice([q for q in spots if row[q] == fewest])
            place[loose] = spot
            free.discard(spot)
            continue
        spots = sorted(free)
        fewest = min(met[p][q] for p in spots for q in spots if p < q)
        p, q = rng.choice([(p, q) for p in spots for q in spots if p < q and met[p][q] == fewest])
        place[a], place[b] = p, q
        free -= {p, q}
    rest = sorted(free)
    rng.shuffle(rest)
    for player in range(players):
        if player not in place:
            place[player] = rest.pop()
    at = {spot: player for player, spot in place.items()}
    return [[[at[spot] for spot in group] for group in round_groups] for round_groups in plan]


class _Annealing:
    """Simulated annealing of the meetings over the rounds to plan, in place."""

    def __init__(
        self,
        groups: list[list[list[int]]],
        meetings: list[list[int]],
        more: list[list[int]],
        less: list[list[int]],
        incs: tuple[list[int], list[int]],
        decs: tuple[list[int], list[int]],
        kind: list[list[int]],
    ) -> None:
        self.groups = groups
        self.meetings = meetings
        self.more = more
        self.less = less
        self.incs = incs
        self.decs = decs
        self.kind = kind

    def run(self, budget: int, rng: Random, deadline: float, hot: float, cold: float) -> bool:
        """Anneal for ``budget`` swaps from temperature ``hot`` to ``cold``; returns
        whether ``deadline`` stopped it."""
        groups, more, less = self.groups, self.more, self.less
        random = rng.random
        getters = [[itemgetter(*group) for group in round_groups] for round_groups in groups]
        swappable = [r for r, round_groups in enumerate(groups) if len(round_groups) > 1]
        if not swappable:
            return False
        cost = best = 0
        kept = self._snapshot()
        done = 0
        cut_short = False
        while done < budget:
            if perf_counter() > deadline:
                cut_short = True
                break
            beta = 1.0 / (hot * (cold / hot) ** (done / budget))
            for _ in range(min(CHUNK, budget - done)):
                r = swappable[int(random() * len(swappable))]
                round_groups = groups[r]
                count = len(round_groups)
                ia = int(random() * count)
                ib = int(random() * (count - 1))
                if ib >= ia:
                    ib += 1
                group_a = round_groups[ia]
                group_b = round_groups[ib]
                i = int(random() * SEATS)
                j = int(random() * SEATS)
                a = group_a[i]
                b = group_b[j]
                get_a = getters[r][ia]
                get_b = getters[r][ib]
                more_a = more[a]
                delta = (
                    sum(get_b(more_a))
                    - sum(get_a(less[a]))
                    + sum(get_a(more[b]))
                    - sum(get_b(less[b]))
                    - 2 * more_a[b]
                )
                if delta > 0 and random() >= exp(-delta * beta):
                    continue
                cost += delta
                self._swap(group_a, group_b, a, b)
                group_a[i] = b
                group_b[j] = a
                getters[r][ia] = itemgetter(*group_a)
                getters[r][ib] = itemgetter(*group_b)
            done += CHUNK
            if cost < best:
                best = cost
                kept = self._snapshot()
        if cost > best:
            groups[:] = kept
        return cut_short

    def _snapshot(self) -> list[list[list[int]]]:
        return [[group[:] for group in round_groups] for round_groups in self.groups]

    def _swap(self, group_a: list[int], group_b: list[int], a: int, b: int) -> None:
        """Meetings after a goes from ``group_a`` to ``group_b`` and b the other way."""
        meetings, more, less = self.meetings, self.more, self.less
        incs, decs, kind = self.incs, self.decs, self.kind
        for leaving, group, joining in ((a, group_a, b), (b, group_b, a)):
            for x in group:
                if x == leaving:
                    continue
                m = meetings[leaving][x] - 1
                meetings[leaving][x] = meetings[x][leaving] = m
                k = kind[leaving][x]
                more[leaving][x] = more[x][leaving] = incs[k][m]
                less[leaving][x] = less[x][leaving] = decs[k][m]
                m = meetings[joining][x] + 1
                meetings[joining][x] = meetings[x][joining] = m
                k = kind[joining][x]
                more[joining][x] = more[x][joining] = incs[k][m]
                less[joining][x] = less[x][joining] = decs[k][m]
