"""Who meets whom, and at which table: each round's players split into tables of ten,
each table given its number in the hall.

The hard part of a plan. Players are indices; ``meetings[p][q]`` counts the games p and
q share and ``visits[p][t]`` the games p plays at table t. A pair costs
``SCALE |m - average|⁴`` for its m meetings: the total of squares is nearly fixed by
how the rounds' tables overlap (any plan of 40 players at 4 tables has a fifth of its
pairs meeting once), so the fourth power is what tells an even plan from one with
pairs that never meet or meet too often. An ``apart`` pair costs ``APART`` more per
game shared. The table numbers come second (see ``TABLE_SHARE``), minimising the
players' ``Σ visits²``.

A greedy construction (each table filled with the players who add the least cost,
then numbered by the cheapest assignment) is improved by simulated annealing over
swaps of two players between tables of one round; then another anneals the numbers:
it swaps the numbers of two tables of a round (or moves a table to a number the round
leaves free). A player swap's cost
change takes O(1) sums: with ``more[p][q]`` / ``less[p][q]`` the cost of one more /
one fewer shared game, moving a from table A to B while b goes from B to A changes
the meetings' cost by ``Σ_B more[a] - Σ_A less[a] + Σ_A more[b] - Σ_B less[b] -
2 more[a][b]`` (sums over a table's players, the diagonal 0); those rows are kept up
to date as meetings change.

The search is bounded by its own count of moves (the same plan on every machine); the
clock is read only for ``deadline``, the safety cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp
from operator import itemgetter
from random import Random
from time import perf_counter

from .assignment import cheapest_assignment
from .model import SEATS

POWER = 4
SCALE = 10  # integer costs, fine enough to tell 1 meeting from 2 near an average of 1
NEVER = 4  # the cost of a pair that never meets, times, when the average is 1.5 or more
APART = 2_000  # per game an apart pair shares: more than any meeting imbalance it fixes
# Then the tables are numbered by a second annealing of renumbering moves only, which
# leave the meetings alone: balancing the tables by moving players costs far more
# meetings than it is worth (for 40 players at 4 tables, table spread 1 doubles the
# pairs meeting 4 times and leaves pairs that never meet).
TABLE_SHARE = 0.2  # the second annealing has this share of the first one's moves
TABLE_HOT = 3.0  # in units of Σ visits²
TABLE_COLD = 0.1
# Annealing schedule: temperature from HOT to COLD, geometrically, over the moves.
HOT = 30.0
COLD = 1.0
MOVES_PER_SEAT = 700  # moves per player-game to arrange, within MIN_MOVES..MAX_MOVES
MIN_MOVES = 8_000
MAX_MOVES = 400_000
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
    extra = [[0] * players for _ in range(players)]
    for a, b in apart:
        extra[a][b] = extra[b][a] = APART
    meetings = [[0] * players for _ in range(players)]
    visits = [[0] * tables for _ in range(players)]
    for number, group in fixed:
        _meet(meetings, group)
        for p in group:
            visits[p][number - 1] += 1
    more = [
        [inc[m] + x for m, x in zip(row, xs, strict=True)]
        for row, xs in zip(meetings, extra, strict=True)
    ]
    for p in range(players):
        more[p][p] = 0
    groups = []
    labels = []  # table indices (from 0) of each round's groups
    for group, count in zip(playing, counts, strict=True):
        round_groups = _greedy(list(group), count, meetings, more, inc, extra, rng)
        cost = [
            [sum(2 * visits[p][t] + 1 for p in g) for t in range(tables)] for g in round_groups
        ]
        numbers = cheapest_assignment(cost)
        for g, t in zip(round_groups, numbers, strict=True):
            for p in g:
                visits[p][t] += 1
        groups.append(round_groups)
        labels.append(numbers)
    cut_short = False
    if groups and (tables > 1 or max(counts) > 1):
        less = [
            [dec[m] + x if m else 0 for m, x in zip(row, xs, strict=True)]
            for row, xs in zip(meetings, extra, strict=True)
        ]
        for p in range(players):
            less[p][p] = 0
        budget = min(MAX_MOVES, max(MIN_MOVES, MOVES_PER_SEAT * sum(map(len, playing))))
        annealing = _Annealing(
            groups, labels, tables, meetings, visits, more, less, inc, dec, extra
        )
        cut_short = annealing.run(
            budget, rng, deadline, 0, HOT, COLD, 0.0
        ) or annealing.run(
            int(budget * TABLE_SHARE), rng, deadline, 1, TABLE_HOT, TABLE_COLD, 1.0
        )
    return Arrangement(groups, [[t + 1 for t in numbers] for numbers in labels], cut_short)


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
    inc: list[int],
    extra: list[list[int]],
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
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                m = meetings[a][b] + 1
                meetings[a][b] = meetings[b][a] = m
                more[a][b] = more[b][a] = inc[m] + extra[a][b]
    return groups


class _Annealing:
    """Simulated annealing over the rounds to plan, in place."""

    def __init__(
        self,
        groups: list[list[list[int]]],
        labels: list[list[int]],
        tables: int,
        meetings: list[list[int]],
        visits: list[list[int]],
        more: list[list[int]],
        less: list[list[int]],
        inc: list[int],
        dec: list[int],
        extra: list[list[int]],
    ) -> None:
        self.groups = groups
        self.labels = labels
        self.tables = tables
        self.meetings = meetings
        self.visits = visits
        self.more = more
        self.less = less
        self.inc = inc
        self.dec = dec
        self.extra = extra

    def run(
        self,
        budget: int,
        rng: Random,
        deadline: float,
        weight: int,
        hot: float,
        cold: float,
        renumber: float,
    ) -> bool:
        """Anneal for ``budget`` moves from temperature ``hot`` to ``cold``, a player's
        ``Σ visits²`` weighing ``weight``; returns whether ``deadline`` stopped it."""
        groups, labels, visits, more, less = (
            self.groups,
            self.labels,
            self.visits,
            self.more,
            self.less,
        )
        random = rng.random
        tables = self.tables
        # a table's slot per number: slots[r][t] is the group at number t, or -1
        slots = []
        for numbers in labels:
            at = [-1] * tables
            for g, t in enumerate(numbers):
                at[t] = g
            slots.append(at)
        getters = [[itemgetter(*group) for group in round_groups] for round_groups in groups]
        swappable = [r for r, round_groups in enumerate(groups) if len(round_groups) > 1]
        rounds = len(groups)
        if tables == 1:
            renumber = 0.0
        if not swappable:
            renumber = 1.0
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
                if random() < renumber:
                    r = int(random() * rounds)
                    at = slots[r]
                    s = int(random() * tables)
                    t = int(random() * (tables - 1))
                    if t >= s:
                        t += 1
                    gs, gt = at[s], at[t]
                    if gs < 0 and gt < 0:
                        continue
                    first = groups[r][gs] if gs >= 0 else ()
                    second = groups[r][gt] if gt >= 0 else ()
                    change = len(first) + len(second)
                    for p in first:
                        row = visits[p]
                        change += row[t] - row[s]
                    for p in second:
                        row = visits[p]
                        change += row[s] - row[t]
                    delta = 2 * weight * change
                    if delta > 0 and random() >= exp(-delta * beta):
                        continue
                    cost += delta
                    for p in first:
                        visits[p][s] -= 1
                        visits[p][t] += 1
                    for p in second:
                        visits[p][t] -= 1
                        visits[p][s] += 1
                    at[s], at[t] = gt, gs
                    if gs >= 0:
                        labels[r][gs] = t
                    if gt >= 0:
                        labels[r][gt] = s
                    continue
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
                la = labels[r][ia]
                lb = labels[r][ib]
                va = visits[a]
                vb = visits[b]
                delta = (
                    sum(get_b(more_a))
                    - sum(get_a(less[a]))
                    + sum(get_a(more[b]))
                    - sum(get_b(less[b]))
                    - 2 * more_a[b]
                    + 2 * weight * (va[lb] - va[la] + vb[la] - vb[lb] + 2)
                )
                if delta > 0 and random() >= exp(-delta * beta):
                    continue
                cost += delta
                self._swap(group_a, group_b, a, b)
                group_a[i] = b
                group_b[j] = a
                va[la] -= 1
                va[lb] += 1
                vb[lb] -= 1
                vb[la] += 1
                getters[r][ia] = itemgetter(*group_a)
                getters[r][ib] = itemgetter(*group_b)
            done += CHUNK
            if cost < best:
                best = cost
                kept = self._snapshot()
        if cost > best:
            groups[:], labels[:] = kept
        return cut_short

    def _snapshot(self) -> tuple[list[list[list[int]]], list[list[int]]]:
        return (
            [[group[:] for group in round_groups] for round_groups in self.groups],
            [numbers[:] for numbers in self.labels],
        )

    def _swap(self, group_a: list[int], group_b: list[int], a: int, b: int) -> None:
        """Meetings after a goes from ``group_a`` to ``group_b`` and b the other way."""
        meetings, more, less = self.meetings, self.more, self.less
        inc, dec, extra = self.inc, self.dec, self.extra
        for leaving, group, joining in ((a, group_a, b), (b, group_b, a)):
            for x in group:
                if x == leaving:
                    continue
                m = meetings[leaving][x] - 1
                meetings[leaving][x] = meetings[x][leaving] = m
                more[leaving][x] = more[x][leaving] = inc[m] + extra[leaving][x]
                less[leaving][x] = less[x][leaving] = dec[m] + extra[leaving][x] if m else 0
                m = meetings[joining][x] + 1
                meetings[joining][x] = meetings[x][joining] = m
                more[joining][x] = more[x][joining] = inc[m] + extra[joining][x]
                less[joining][x] = less[x][joining] = dec[m] + extra[joining][x]
