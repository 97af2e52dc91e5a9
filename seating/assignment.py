"""The cheapest assignment of rows to distinct columns (the Hungarian method).

Used for small square-ish problems: a round's tables to table numbers (at most the
number of tables), a game's ten players to seats 1-10.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import inf


def cheapest_assignment(cost: Sequence[Sequence[int]]) -> list[int]:
    """For each row, its column: distinct columns, least total cost (rows ≤ columns).

    The O(n²m) shortest augmenting path form with potentials (integer costs stay exact:
    ``inf`` only marks columns not reached yet).
    """
    rows = len(cost)
    columns = len(cost[0]) if rows else 0
    if rows > columns:
        raise ValueError("more rows than columns")
    u: list[float] = [0] * (rows + 1)
    v: list[float] = [0] * (columns + 1)
    owner = [0] * (columns + 1)  # owner[j]: the row (from 1) holding column j (from 1)
    way = [0] * (columns + 1)
    for i in range(1, rows + 1):
        owner[0] = i
        j0 = 0
        least = [inf] * (columns + 1)
        used = [False] * (columns + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            row = cost[i0 - 1]
            delta = inf
            j1 = 0
            for j in range(1, columns + 1):
                if not used[j]:
                    reduced = row[j - 1] - u[i0] - v[j]
                    if reduced < least[j]:
                        least[j] = reduced
                        way[j] = j0
                    if least[j] < delta:
                        delta = least[j]
                        j1 = j
            for j in range(columns + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    column_of = [0] * rows
    for j in range(1, columns + 1):
        if owner[j]:
            column_of[owner[j] - 1] = j - 1
    return column_of
