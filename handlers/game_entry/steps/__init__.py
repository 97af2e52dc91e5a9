"""The judge's card, assembled: the tournament choice, then steps 1-11 in the order the
card shows and numbers them. One module per step, each with its ``SPEC``
(``handlers.game_entry.spec.StepSpec``); a new step is a new module and a line here."""

from __future__ import annotations

from handlers.game_entry.spec import Card
from handlers.game_entry.steps import (
    best_move,
    common,
    day1,
    disqualify,
    extras,
    night1,
    penalties,
    result,
    review,
    roles,
    round_table,
    seating,
    tournament,
)

CARD = Card(
    prelude=tournament.SPEC,
    steps=(
        round_table.SPEC,  # 1
        seating.SPEC,  # 2
        roles.SPEC,  # 3
        day1.SPEC,  # 4
        night1.SPEC,  # 5
        best_move.SPEC,  # 6 (8.3)
        result.SPEC,  # 7
        disqualify.SPEC,  # 8 (8.2.4)
        penalties.SPEC,  # 9 (8.5)
        extras.SPEC,  # 10 (8.4)
        review.SPEC,  # 11
    ),
    common=common.ACTIONS,
)

__all__ = ["CARD"]
