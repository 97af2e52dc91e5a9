"""Seats evened out around fixed rounds by swapping two players' seats within a game,
moving as few players as it can from where an earlier plan seated them.

A re-plan inherits seats it cannot change: the played rounds. Two players who swapped
tables in round 3 took each other's seat numbers, so each now has one seat twice and
one never unless a later game gives it back; a fresh plan's colouring and annealing
(``seats``) settle one game at a time and leave a few such players. Swapping seats
within a game leaves the meetings and the tables alone, so only the seats are mended.
The meetings are not: in a plan as tight as a quartet plan (``quartets``) a pair that
meets once too often can't be parted by moving players between tables. For 40 players
at 4 tables, two of round 3 swapped (11 pairs meet 4 times), no swap in the rounds
left lowers that count, a search of swaps and a greedy series of exchanges of two
players' places over any set of those rounds stall at 8 or more, and a bounded search
re-seating the two with one or two others in all of them finds nothing. Larger changes
fail too: no placing of the eight players of the two swapped players' quartets in those
rounds keeps every pair within 3 (an exhaustive search), nor new rows of the quartet
construction for up to six of the ten quartets; tabu search, annealing on the meetings
over 3 alone and a search that weighs the pairs it keeps failing to part all stall at
9 or more; and an exact solver, given minutes, finds no rounds 4-10 at all that keep
every pair within 3 around the played rounds, kept or fresh (it proves there are none
on the plan's quartets for some mixes of kernels in those rounds): whether any exist is
open. No quartet plan extends the played rounds either: with the swap they are the
rounds of none (no grouping into quartets and labelling of their tables fits all
three, where the plan's own first three rounds fit 64 ways).

The *excess* of a player with g games: per seat number, how far his games in it are
outside ``floor(g / 10)`` - ``ceil(g / 10)`` (within those, his seat spread is at most
1). A min-conflicts search takes a player in excess at random and the best swap of his
seat with another player's in one of his games: least excess, then fewest players
moved from the ``reference`` seats (the earlier plan's rounds, for a kept plan); a
player just moved is taboo in that game for a few steps, and now and then a random
swap is taken instead, so the search does not circle. It restarts ``ATTEMPTS`` times
from the given seats and keeps the best state seen (least excess, then fewest moved).
Every step is counted, not timed, and drawn from ``rng``: the same seats every time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from .model import SEATS

STEPS = 150  # min-conflicts steps per attempt, from the reference seats
FRESH_STEPS = 4_000  # in one attempt, without reference seats to keep
ATTEMPTS = 24  # restarts from the given seats: the fewest players moved is kept
MOVED = 3  # cost of a player moved off his reference seat, against 10 per unit of excess
EXCESS = 10
NOISE = 0.1  # share of the steps that take a random swap of the chosen player
TABOO = 3  # steps for which a swapped player stays in his new seat of that game


@dataclass(frozen=True, slots=True)
class Mended:
    excess: int  # left (0: every player's seat spread is at most 1, as far as he plays)
    moved: int  # players not in their reference seats (0 without a reference)


def even_seats(
    players: int,
    fixed: Sequence[Sequence[int]],
    games: list[list[int]],
    rng: Random,
    reference: Sequence[Sequence[int] | None] | None = None,
) -> Mended:
    """Mend the seats of ``games`` (each ten players in seat order) in place, around the
    ``fixed`` games; ``reference[g]``: game g as an earlier plan seated it (None: not
    in it), whose seats a player keeps if he can."""
    count = [[0] * SEATS for _ in range(players)]
    for game in (*fixed, *games):
        for s, p in enumerate(game):
            count[p][s] += 1
    total = [sum(row) for row in count]
    lo = [g // SEATS for g in total]
    hi = [-(-g // SEATS) for g in total]
    start = [game[:] for game in games]
    best = _State(count, lo, hi, start, reference).score()
    kept = start
    for _ in range(0 if best[0] == 0 else ATTEMPTS if reference is not None else 1):
        state = _State(count, lo, hi, [game[:] for game in start], reference)
        found, mended = state.search(rng, FRESH_STEPS if reference is None else STEPS)
        if found < best:
            best, kept = found, mended
        if best[0] == 0 and best[1] <= state.needed + 2:
            break  # the least a mend can move: one swap of two players
    for game, seats in zip(games, kept, strict=True):
        game[:] = seats
    return Mended(*best)


class _State:
    def __init__(
        self,
        count: list[list[int]],
        lo: list[int],
        hi: list[int],
        games: list[list[int]],
        reference: Sequence[Sequence[int] | None] | None,
    ) -> None:
        self.count = [row[:] for row in count]
        self.lo, self.hi = lo, hi
        self.games = games
        self.of: dict[int, list[int]] = {}  # player -> the games (indices) he plays
        for g, game in enumerate(games):
            for p in game:
                self.of.setdefault(p, []).append(g)
        self.reference = reference
        self.off = [0] * len(count)  # games in which a player is off his reference seat
        if reference is not None:
            for game, seats in zip(games, reference, strict=True):
                for s, p in enumerate(game):
                    self.off[p] += seats is None or seats[s] != p
        # the players moved already before any swap: the least a search can reach
        self.needed = sum(1 for o in self.off if o)

    def _excess(self, p: int, c: int) -> int:
        lo, hi = self.lo[p], self.hi[p]
        return lo - c if c < lo else c - hi if c > hi else 0

    def excess(self) -> int:
        return sum(self._excess(p, c) for p in self.of for c in self.count[p])

    def moved(self) -> int:
        return sum(1 for o in self.off if o) if self.reference is not None else 0

    def score(self) -> tuple[int, int]:
        return self.excess(), self.moved()

    def troubled(self) -> list[int]:
        return [p for p in self.of if any(self._excess(p, c) for c in self.count[p])]

    def _off(self, g: int, s: int, p: int) -> bool:
        seats = None if self.reference is None else self.reference[g]
        return seats is None or seats[s] != p

    def delta(self, g: int, i: int, j: int) -> tuple[int, int]:
        """Excess and moved players changed by swapping seats i and j of game g."""
        game = self.games[g]
        a, b = game[i], game[j]
        ca, cb, ex = self.count[a], self.count[b], self._excess
        excess = (
            ex(a, ca[i] - 1) - ex(a, ca[i]) + ex(a, ca[j] + 1) - ex(a, ca[j])
            + ex(b, cb[j] - 1) - ex(b, cb[j]) + ex(b, cb[i] + 1) - ex(b, cb[i])
        )
        moved = 0
        if self.reference is not None:
            for p, before, after in ((a, i, j), (b, j, i)):
                off = self.off[p]
                now = off - self._off(g, before, p) + self._off(g, after, p)
                moved += (now > 0) - (off > 0)
        return excess, moved

    def swap(self, g: int, i: int, j: int) -> None:
        game = self.games[g]
        a, b = game[i], game[j]
        self.count[a][i] -= 1
        self.count[a][j] += 1
        self.count[b][j] -= 1
        self.count[b][i] += 1
        if self.reference is not None:
            self.off[a] += self._off(g, j, a) - self._off(g, i, a)
            self.off[b] += self._off(g, i, b) - self._off(g, j, b)
        game[i], game[j] = b, a

    def search(self, rng: Random, steps: int) -> tuple[tuple[int, int], list[list[int]]]:
        """Min-conflicts from the current seats: the best state seen and its seats."""
        random = rng.random
        score = self.score()
        best, kept = score, [game[:] for game in self.games]
        taboo: dict[tuple[int, int], int] = {}
        trouble = self.troubled()
        for step in range(steps):
            if not trouble:
                break
            p = trouble[int(random() * len(trouble))]
            mine = self.count[p]
            # swaps that give up a seat he has too often, or take one he lacks
            options: list[tuple[int, int, int]] = []
            for g in self.of[p]:
                i = self.games[g].index(p)
                surplus = mine[i] > self.hi[p]
                options.extend(
                    (g, i, j)
                    for j in range(SEATS)
                    if j != i and (surplus or mine[j] < self.lo[p])
                )
            if not options:
                trouble = [q for q in trouble if q != p]
                continue
            if random() < NOISE:
                choice = options[int(random() * len(options))]
            else:
                choice, least = options[0], None
                for g, i, j in options:
                    if taboo.get((g, self.games[g][j]), -1) > step:
                        continue
                    excess, moved = self.delta(g, i, j)
                    cost = EXCESS * excess + MOVED * moved + random()
                    if least is None or cost < least:
                        choice, least = (g, i, j), cost
            g, i, j = choice
            excess, moved = self.delta(g, i, j)
            game = self.games[g]
            taboo[(g, game[i])] = taboo[(g, game[j])] = step + TABOO
            self.swap(g, i, j)
            score = (score[0] + excess, score[1] + moved)
            trouble = self.troubled()
            if score < best:
                best, kept = score, [game[:] for game in self.games]
        return best, kept
