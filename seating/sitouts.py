"""Who plays in each round still to plan, and so who sits it out.

Players are indices into ``Request.players``. Each round takes the players with the
most games still to play (Ryser's greedy: it completes every schedule that can be
completed, whatever the order of the rounds), so sit-outs are spread evenly; among
equals, whoever sat out most recently plays now, so a player's rests are far apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from .model import SEATS, Request


def remaining_games(request: Request) -> list[int]:
    """Games each player still has to play after the fixed rounds (none for the
    withdrawn)."""
    index = {name: n for n, name in enumerate(request.players)}
    gone = set(request.withdrawn)
    need = [0 if name in gone else request.total(name) for name in request.players]
    for fixed in request.fixed_rounds:
        for table in fixed.tables:
            for name in table.seats:
                if name not in gone:
                    need[index[name]] -= 1
    return need


def choose_players(
    need: Sequence[int], rounds: Sequence[tuple[int, int]], rng: Random | None
) -> list[list[int]] | None:
    """For each ``(round number, tables)`` in ``rounds``, the sorted players who play it;
    ``None`` when the rounds cannot give every player exactly ``need`` more games.

    Ties are broken by ``rng`` (or by index without one): any choice among equals keeps a
    completable schedule completable.
    """
    left = list(need)
    count = len(left)
    rested = [0] * count  # the last round each player sat out (0: none yet)
    chosen: list[list[int]] = []
    for number, tables in sorted(rounds):
        seats = tables * SEATS
        order = list(range(count))
        if rng is not None:
            rng.shuffle(order)
        order.sort(key=lambda p: (-left[p], -rested[p]))
        playing = order[:seats]
        if len(playing) < seats or left[playing[-1]] == 0:
            return None
        for player in playing:
            left[player] -= 1
        for player in order[seats:]:
            rested[player] = number
        chosen.append(sorted(playing))
    if any(left):
        return None
    return chosen
