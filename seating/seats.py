"""Seat numbers: who sits in seats 1-10 of each game, every player in every seat
as evenly as possible.

A proper edge colouring of the bipartite graph games × players with the ten seats as
colours seats every game fully. To also spread each player's seats, a player with d
games to seat is split into ⌈d / 10⌉ copies of at most ten games each (their 1st-10th
game, 11th-20th, ...): a copy never takes a seat twice, so each seat number goes to a
player ⌊d / 10⌋ or ⌈d / 10⌉ times (exactly once each at ten games). A bipartite graph
of largest degree 10 always has such a colouring (König); it is built edge by edge,
freeing a colour by swapping the two colours along an alternating path (a Kempe chain).

Seats already taken in fixed rounds are not part of that guarantee: then each game to
plan is re-seated in turn by the cheapest assignment against all the others' seats
(the cost of a seat: what one more game in it adds to the player's ``Σ games²`` over
the seat numbers) until no game changes. That keeps the colouring's balance of the
new games and evens out what the fixed rounds left uneven; a short annealing of seat
swaps within games follows (the re-seating settles one game at a time and can stick),
and a min-conflicts search (``mend``) takes the last players whose seats are still
more than one apart.

One table of the same ten players in every game (a final, docs/rules.md D13), some of its
games played: the games are taken in blocks of ten, and each game to plan gets the
cheapest assignment against the seats taken earlier in its block. Played games in
which nobody took a seat twice are rows of a Latin rectangle, which always extends by
one more row (each player has as many seats left as each seat has players: Hall), so
then nobody takes a seat twice in a block either: with 4 games nobody sits in the same
seat twice, with 10 everyone sits in every seat once.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from math import exp
from random import Random

from .assignment import cheapest_assignment
from .mend import even_seats
from .model import SEATS

PASSES = 30  # at most this many sweeps of re-seating around fixed rounds
MOVES_PER_GAME = 400  # then annealing moves per game, at most MAX_MOVES
MAX_MOVES = 60_000
HOT = 4.0
COLD = 0.2


def seat_games(
    players: int, fixed: Sequence[Sequence[int]], games: Sequence[Sequence[int]], rng: Random
) -> list[list[int]]:
    """Each game of ``games`` (ten players) in seat order, given the ``fixed`` games
    (players in seat order)."""
    seated = _colour(players, games)
    if fixed and seated and _one_table(fixed, seated):
        _rotate(players, fixed, seated)
    elif fixed and seated:
        count = _even_out(players, fixed, seated)
        _anneal(seated, count, rng)
        even_seats(players, fixed, seated, rng)
    return seated


def _one_table(fixed: Sequence[Sequence[int]], seated: Sequence[Sequence[int]]) -> bool:
    """Every game seats the same ten players."""
    first = set(fixed[0])
    return all(set(game) == first for game in (*fixed, *seated))


def _rotate(players: int, fixed: Sequence[Sequence[int]], seated: list[list[int]]) -> None:
    """One table of the same ten players: each game to plan (in order) takes seats its
    players have not had yet in its block of ten games (the fixed games first), or as
    few times as the fixed games allow."""
    count = [[0] * SEATS for _ in range(players)]
    for done, game in enumerate([*fixed, *seated]):
        if done % SEATS == 0:  # a new block: every seat is free again
            count = [[0] * SEATS for _ in range(players)]
        if done >= len(fixed):
            order = cheapest_assignment([[2 * count[p][s] + 1 for s in range(SEATS)] for p in game])
            game = seated[done - len(fixed)]
            for p, s in zip(list(game), order, strict=True):
                game[s] = p
        for s, p in enumerate(game):
            count[p][s] += 1


def _colour(players: int, games: Sequence[Sequence[int]]) -> list[list[int]]:
    copies: dict[tuple[int, int], int] = {}  # (player, copy) -> vertex
    owner: list[int] = []  # copy vertex - len(games) -> player
    played = [0] * players
    edges: list[tuple[int, int]] = []
    for game, group in enumerate(games):
        for p in group:
            key = (p, played[p] // SEATS)
            played[p] += 1
            if key not in copies:
                copies[key] = len(games) + len(owner)
                owner.append(p)
            edges.append((game, copies[key]))
    # at[x][c]: the vertex joined to x by the edge of colour c, or -1
    at = [[-1] * SEATS for _ in range(len(games) + len(owner))]
    for u, v in edges:
        a = at[u].index(-1)
        if at[v][a] != -1:
            b = at[v].index(-1)
            _swap_path(at, v, a, b)
        at[u][a] = v
        at[v][a] = u
    first = len(games)
    return [[owner[at[game][c] - first] for c in range(SEATS)] for game in range(len(games))]


def _swap_path(at: list[list[int]], start: int, a: int, b: int) -> None:
    """Swap colours a and b along the path from ``start`` (free of b) that begins with
    its a-edge: afterwards ``start`` is free of a."""
    path = [start]
    colour = a
    while True:
        nxt = at[path[-1]][colour]
        if nxt == -1:
            break
        path.append(nxt)
        colour = b if colour == a else a
    colour = a
    for x, y in pairwise(path):
        at[x][colour] = at[y][colour] = -1
        colour = b if colour == a else a
    colour = b
    for x, y in pairwise(path):
        at[x][colour] = y
        at[y][colour] = x
        colour = b if colour == a else a


def _even_out(
    players: int, fixed: Sequence[Sequence[int]], seated: list[list[int]]
) -> list[list[int]]:
    count = [[0] * SEATS for _ in range(players)]
    for game in (*fixed, *seated):
        for s, p in enumerate(game):
            count[p][s] += 1
    for _ in range(PASSES):
        changed = False
        for game in seated:
            for s, p in enumerate(game):
                count[p][s] -= 1
            before = sum(2 * count[p][s] + 1 for s, p in enumerate(game))
            order = cheapest_assignment([[2 * count[p][s] + 1 for s in range(SEATS)] for p in game])
            after = sum(2 * count[p][s] + 1 for p, s in zip(game, order, strict=True))
            if after < before:
                new = [0] * SEATS
                for p, s in zip(game, order, strict=True):
                    new[s] = p
                game[:] = new
                changed = True
            for s, p in enumerate(game):
                count[p][s] += 1
        if not changed:
            break
    return count


def _anneal(seated: list[list[int]], count: list[list[int]], rng: Random) -> None:
    """Swaps of two players' seats within a game, on the cost ``Σ count²``: the
    assignments above settle one game at a time and can get stuck."""
    random = rng.random
    moves = min(MAX_MOVES, MOVES_PER_GAME * len(seated))
    games = len(seated)
    for done in range(moves):
        temperature = HOT * (COLD / HOT) ** (done / moves)
        game = seated[int(random() * games)]
        i = int(random() * SEATS)
        j = int(random() * (SEATS - 1))
        if j >= i:
            j += 1
        p, q = game[i], game[j]
        delta = 2 * (count[p][j] - count[p][i] + count[q][i] - count[q][j] + 2)
        if delta > 0 and random() >= exp(-delta / temperature):
            continue
        count[p][i] -= 1
        count[p][j] += 1
        count[q][j] -= 1
        count[q][i] += 1
        game[i], game[j] = q, p
