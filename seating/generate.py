"""``generate(request) -> Plan``: the whole plan, in three steps.

1. who plays each round (``sitouts``): the sit-outs, spread evenly;
2. who meets whom (``groups``): each round's players split into tables of ten (a
   structured plan, ``quartets``, where it applies); then which physical table each game
   is at;
3. who takes which seat (``seats``).

The fixed rounds are copied as given and every step plans around them. With
``previous_rounds`` (an earlier plan's rounds still to play) the plan is that one
repaired (``repair``) where it can be, and generated as above where it can't. Everything
random comes from ``random.Random(request.seed)``, drawn in a fixed order, and every
search is bounded by its own count of work, so a request always gives the same plan;
only ``time_limit`` reads the clock, to stop the search early (``cut_short``).
"""

from __future__ import annotations

from dataclasses import replace
from random import Random
from time import perf_counter

from .groups import arrange
from .model import Plan, Request, Round, SeatingError, Table
from .quality import measure
from .repair import repair
from .request import check_request
from .seats import seat_games
from .sitouts import choose_players, remaining_games


def generate(request: Request) -> Plan:
    """The seating plan of ``request`` (``SeatingError`` if the request breaks a rule)."""
    start = perf_counter()
    check_request(request)
    if request.previous_rounds:
        kept = repair(request, request.previous_rounds)
        if kept is not None:
            return Plan(kept.rounds, replace(kept.quality, seconds=perf_counter() - start))
    rng = Random(request.seed)
    names = request.players
    index = {name: n for n, name in enumerate(names)}
    fixed = {round_.round: round_ for round_ in request.fixed_rounds}
    free = [n for n in range(1, request.rounds + 1) if n not in fixed]
    tables = [request.tables_in(n) for n in free]
    playing = choose_players(remaining_games(request), list(zip(free, tables, strict=True)), rng)
    if playing is None:  # check_request has ruled this out
        raise SeatingError("the rounds left cannot complete the fixed rounds")
    fixed_games = [
        (table.table, [index[name] for name in table.seats])
        for round_ in request.fixed_rounds
        for table in round_.tables
    ]
    apart = [(index[a], index[b]) for a, b in request.apart]
    arranged = arrange(
        len(names),
        request.tables,
        playing,
        tables,
        fixed_games,
        apart,
        rng,
        start + request.time_limit,
    )
    seated = iter(
        seat_games(
            len(names),
            [group for _number, group in fixed_games],
            [group for round_groups in arranged.groups for group in round_groups],
            rng,
        )
    )
    planned = {}
    on = tuple(name for name in names if name not in request.withdrawn)  # the rest left
    for number, round_numbers in zip(free, arranged.numbers, strict=True):
        games = [(table, tuple(names[p] for p in next(seated))) for table in round_numbers]
        games.sort()
        planned[number] = Round(
            round=number,
            tables=tuple(Table(table=t, seats=seats) for t, seats in games),
            sitting_out=_resting(on, games),
        )
    for number, round_ in fixed.items():
        planned[number] = Round(
            round=number,
            tables=round_.tables,
            sitting_out=_resting(names, [(t.table, t.seats) for t in round_.tables]),
        )
    rounds = tuple(planned[n] for n in sorted(planned))
    figures = measure(rounds, request)
    seconds = perf_counter() - start
    return Plan(rounds, replace(figures, cut_short=arranged.cut_short, seconds=seconds))


def _resting(names: tuple[str, ...], games: list[tuple[int, tuple[str, ...]]]) -> tuple[str, ...]:
    seated = {name for _table, seats in games for name in seats}
    return tuple(name for name in names if name not in seated)
