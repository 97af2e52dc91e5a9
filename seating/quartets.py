"""A structured plan for 40 players at 4 tables who all play every round: who meets whom.

The annealing of ``groups`` leaves pairs that meet 4 times at 40 players × 10 games
however long it runs; this construction has every pair meet 1-3 times, at 7, 9 or 10
rounds (``band``: the average number of meetings rounded, give or take one). The
players are ten
quartets (i, λ), λ in GF(4) = {0, 1, 2, 3} with addition ``^``. Round k seats player
(i, λ) at table ``a[i][k] ^ φ_k(λ)``, where φ_k is additive:

* the identity: the quartet spreads over the four tables;
* or of rank one with kernel {0, δ}: the quartet sits as two pairs at two tables, λ with
  λ ^ δ. ``n`` rounds have each kernel δ = 1, 2, 3, so quartet mates meet n times.

Players (i, λ) and (j, μ) of two quartets meet in the rounds where
``a[i][k] ^ a[j][k] == φ_k(λ ^ μ)``: only the difference ``d = a[i] ^ a[j]`` of the
quartets' rows counts, and d is *good* when for each of the four ν the rounds with
``d_k == φ_k(ν)`` number ``lo``-``hi``. A round of kernel δ seats its 40 players ten to
a table when five quartets sit at each of the two table pairs {c, c ^ v} ({0, v} the
image of φ_k); a spreading round always does.

Multiplying by ω (ω² = ω ^ 1) permutes the kernels 1 → ω → ω²; the plan is made
invariant under it, which cuts the search to three rows: quartet 0 is 0, the other nine
come in three orbits (x, T x, T² x), where ``T`` moves a row's round k to the round of
the next kernel (or the next spreading round) and multiplies its entries by a power of
ω. So the search looks for three rows x, y, z whose differences with themselves under
T, with 0 and with each other (under T) are all good, and whose table pairs balance.
Rows are 2R-bit integers (round k in bits 2k, 2k + 1); the count of good differences is
looked up from two half-rows.

The search is bounded by its count of checks and by the deadline, and draws its order
from ``rng``: the same plan for the same seed.

Table numbers (``groups._number``) cannot get these plans to a table spread of 1 at 10
rounds, and no plan with both is known (whether one exists is open). A player at the
tables 3, 3, 2, 2 times shares the table number of one round with another round in
3 + 3 + 1 + 1 = 8 of the 45 pairs of rounds, so the 4 × 4 overlaps of two rounds (players
at number a in one, b in the other) have traces adding up to 40 × 8 = 320. An overlap
with trace D has Σ C(n, 2) ≥ max(32, 40 - D) over its cells (checked over all overlaps),
so Σ over pairs of players of C(meetings, 2) ≥ 1800 - 320 = 1480. With meetings 1-3 that
sum is 1020 + (pairs meeting 3 times), so at least 460 pairs meet 3 times; and at most
500: a player meets the others 90 times in all, so meets an odd number of them twice
(a₂ + 2 a₃ = 51), and at least 20 pairs meet twice. Hence the overlaps' Σ C(n, 2)
exceed 40 - D by at most 40 in all: nearly every pair of rounds must meet the bound
exactly (at trace 7: one 1 on the diagonal, 2s and 3s elsewhere).

The numbering only permutes each round's tables, so a quartet plan needs its overlaps'
least traces (over the 24 numberings) to add up to 320 at most. With one round per
kernel (and 7 spreading rounds) there is no quartet plan at all: two quartets meet s +
2h times over the four ν (s spreading rounds, h rank-one rounds in the same table pair),
at most 12, so no two of the ten quartets may share the table pairs of all three
rank-one rounds, which have only 8 patterns. With two per kernel, every plan found (3000
ω-invariant ones and about 200 others) is out of reach: the ω-invariant ones have 432
pairs meeting 3 times, or 480 with least traces adding up to 348, and the others' least
traces add up to 340 or more. The numbering gets them to spread 4 (a numbering search
leaves at best 18 players with spread 2 or more). Annealing the plan itself (swaps of
two players' tables in a round, on pairs outside 1-3 and table counts outside 2-3)
stalls: with spread ≤ 1 kept, 73 pairs or more meet 0 or 4 times.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from random import Random
from time import perf_counter

PLAYERS = 40
TABLES = 4
# Rounds → rounds per kernel, where this beats the annealing and the search finds a plan
# within a second or two (measured): under 7 rounds the band lets pairs never meet
# anyway, at 8 the search finds none, and past 10 the 4**rounds rows take too long to
# sift in Python.
SHAPES = {7: 1, 9: 1, 10: 2}
CHECKS = 10_000_000  # pair checks (a few seconds in Python), then the annealing instead
TIMES_W = (0, 2, 3, 1)  # multiplication by ω in GF(4): 1 → ω = 2 → ω² = 3 → 1
TIMES_W2 = (0, 3, 1, 2)  # by ω²
# Rank-one maps with kernels 1, ω, ω²: φ_δ(λ) = λ² + δλ, image {0, δ²}.
RANK_ONE = ((0, 0, 1, 1), (0, 3, 0, 3), (0, 2, 2, 0))
SPREAD = (0, 1, 2, 3)


class Quartets:
    """The rounds of one shape: ``kernels`` rounds per kernel, then spreading rounds."""

    def __init__(self, rounds: int, kernels: int, lo: int, hi: int) -> None:
        spread = rounds - 3 * kernels
        self.rounds = rounds
        self.kernels = kernels
        self.phi = [*RANK_ONE * kernels, *[SPREAD] * spread]
        after = []  # round k of x is round after[k] of T x
        for j in range(kernels):
            after += [3 * j + 1, 3 * j + 2, 3 * j]
        base = 3 * kernels
        fixed = spread % 3
        after += range(base, base + fixed)
        for j in range(spread // 3):
            first = base + fixed + 3 * j
            after += [first + 1, first + 2, first]
        times = [TIMES_W2] * (3 * kernels) + [TIMES_W] * spread
        half = rounds // 2
        self.bits = 2 * half
        self.mask = (1 << self.bits) - 1
        self.count_low = self._counts(range(half))
        self.count_high = self._counts(range(half, rounds))
        self.turn_low = self._turns(range(half), after, times)
        self.turn_high = self._turns(range(half, rounds), after, times)
        self.allowed = bytearray(16**4)
        for counts in itertools.product(range(lo, hi + 1), repeat=4):
            self.allowed[sum(c << (4 * nu) for nu, c in enumerate(counts))] = 1
        # the image element of each rank-one round: a row sits in its table pair {0, v}
        self.image = [max(phi) for phi in self.phi[: 3 * kernels]]

    def _counts(self, rounds: range) -> list[int]:
        """For each half-row: how many of its rounds have d_k == φ_k(ν), per ν (4 bits)."""
        table = []
        for code in range(4 ** len(rounds)):
            packed = 0
            for j, k in enumerate(rounds):
                value = (code >> (2 * j)) & 3
                for nu, image in enumerate(self.phi[k]):
                    if image == value:
                        packed += 1 << (4 * nu)
            table.append(packed)
        return table

    def _turns(
        self, rounds: range, after: Sequence[int], times: Sequence[Sequence[int]]
    ) -> list[int]:
        table = []
        for code in range(4 ** len(rounds)):
            out = 0
            for j, k in enumerate(rounds):
                out |= times[k][(code >> (2 * j)) & 3] << (2 * after[k])
            table.append(out)
        return table

    def turn(self, row: int) -> int:
        return self.turn_low[row & self.mask] | self.turn_high[row >> self.bits]

    def _signatures(self) -> list[int]:
        """For each row of the rank-one rounds: per kernel triple of rounds, in how many
        the row sits in the table pair of 0 (hexadecimal digits: sums never carry)."""
        table = []
        for code in range(4 ** (3 * self.kernels)):
            packed = 0
            for k in range(3 * self.kernels):
                if (code >> (2 * k)) & 3 in (0, self.image[k]):
                    packed += 16 ** (k // 3)
            table.append(packed)
        return table

    def search(self, rng: Random, deadline: float) -> tuple[list[int] | None, bool]:
        """The ten quartets' rows (quartet 0 first), or None; and whether the deadline
        stopped the search."""
        allowed, low, high, mask, bits = (
            self.allowed, self.count_low, self.count_high, self.mask, self.bits
        )
        good = bytearray(4**self.rounds)
        for part in range(0, len(good), 1 << 16):
            if perf_counter() > deadline:
                return None, True
            good[part : part + (1 << 16)] = bytes(
                allowed[low[d & mask] + high[d >> bits]]
                for d in range(part, min(part + (1 << 16), len(good)))
            )
        turn = self.turn
        orbits = []  # (x, T x, T² x) for the rows x whose own orbit differs by good rows
        for row in range(1, len(good)):
            if good[row]:
                once = turn(row)
                twice = turn(once)
                if good[row ^ once] and good[row ^ twice]:
                    orbits.append((row, once, twice))
        rng.shuffle(orbits)
        signature = self._signatures()
        rank_one = (1 << (6 * self.kernels)) - 1
        buckets: dict[int, list[tuple[int, int, int]]] = {}
        for orbit in orbits:
            buckets.setdefault(signature[orbit[0] & rank_one], []).append(orbit)
        # with quartet 0, five quartets at each table pair: the three signatures add up to
        # 4 in every digit (a digit of two signatures over 4 borrows into one over 3)
        full = sum(4 * 16**j for j in range(self.kernels))
        checks = 0
        for x, _, _ in orbits:
            if checks > CHECKS:
                return None, False
            if perf_counter() > deadline:
                return None, True
            sx = signature[x & rank_one]
            near: dict[int, list[tuple[int, int, int]]] = {}
            for sy in buckets:
                sz = full - sx - sy
                if sz not in buckets or sz < sy:
                    continue
                for key in (sy, sz):
                    if key not in near:
                        checks += len(buckets[key])
                        near[key] = [
                            orbit
                            for orbit in buckets[key]
                            if good[x ^ orbit[0]] and good[x ^ orbit[1]] and good[x ^ orbit[2]]
                        ]
                for y, _, _ in near[sy]:
                    checks += len(near[sz])
                    for z in near[sz]:
                        if good[y ^ z[0]] and good[y ^ z[1]] and good[y ^ z[2]] and z[0] != y:
                            found = [0]
                            for row in (x, y, z[0]):
                                once = turn(row)
                                found += [row, once, turn(once)]
                            return found, False
        return None, False

    def games(self, found: Sequence[int]) -> list[list[list[int]]]:
        """Each round's four tables of players ``4 i + λ``."""
        plan = []
        for k in range(self.rounds):
            tables: list[list[int]] = [[] for _ in range(TABLES)]
            phi = self.phi[k]
            for i, row in enumerate(found):
                base = (row >> (2 * k)) & 3
                for lam in range(4):
                    tables[base ^ phi[lam]].append(4 * i + lam)
            plan.append(tables)
        return plan


def quartets_apply(
    players: int, tables: int, playing: Sequence[Sequence[int]], counts: Sequence[int]
) -> bool:
    """Whether ``quartet_plan`` suits the rounds to plan: 40 players, all in every round
    at 4 tables, and a number of rounds it knows."""
    return (
        players == PLAYERS
        and tables == TABLES
        and len(playing) in SHAPES
        and all(count == TABLES for count in counts)
        and all(len(group) == PLAYERS for group in playing)
    )


def band(rounds: int) -> tuple[int, int]:
    """The meetings every pair should get: the average rounded, give or take one."""
    average = rounds * 9 / (PLAYERS - 1)
    middle = round(average)
    return max(0, middle - 1), middle + 1


def quartet_plan(
    rounds: int, rng: Random, deadline: float
) -> tuple[list[list[list[int]]] | None, bool]:
    """Every round's four tables of ten (player indices 0-39), every pair of players
    meeting within ``band(rounds)`` times; or None when the bounded search finds none.
    Also whether the deadline stopped it."""
    if rounds not in SHAPES:
        return None, False
    shape = Quartets(rounds, SHAPES[rounds], *band(rounds))
    found, cut_short = shape.search(rng, deadline)
    if found is None:
        return None, cut_short
    games = shape.games(found)
    rng.shuffle(games)  # the rounds of each kind apart, not in a block
    return games, False
