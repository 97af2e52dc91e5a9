"""The parameters a tournament's scoring depends on, and the penalties of 8.5, each in
one home.

``Ruleset`` is what every computation of points receives: the distance and the B it
gives (8.6.1, D2), whether compensation applies (8.6, D14), and the factors of a
stage (D15). ``PENALTIES`` holds each penalty of 8.5 as one row: its cost, the roles
and results it needs (D8), the name a judge reads and the words that refuse it.

Light on purpose (the command line imports it): named tuples, no data classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from .problems import N_
from .table import Result, Role
from .typing_shim import NamedTuple

CI_MAX = Fraction(2, 5)  # 8.6.1
_ZERO = Fraction(0)


def b_value(distance: int) -> int:
    """B of 8.6.1: 40 % of the distance in games, rounded half up (D2)."""
    if distance < 1:
        raise ValueError(f"distance must be at least 1 game, not {distance}")
    return (4 * distance + 5) // 10  # floor(0.4 × distance + 0.5), in integers


def ci_value(i: int, b: int) -> Fraction:
    """Ci of 8.6.1: i × 0.4 / B when i ≤ B, else 0.4 (B = 0: every i ≥ 1 is above B, D2)."""
    if i > b:
        return CI_MAX
    return Fraction(2 * i, 5 * b) if i else _ZERO


class Ruleset(NamedTuple):
    """How one tournament, or one stage of it, is scored (immutable, exact).

    ``distance``: games per player (the stage's games per player, D14); ``compensation``:
    whether 8.6 applies (a stage may switch it off, D14); ``carry`` and ``weight``: the
    factors of the figures brought from the stage before and of the stage's own (D15).
    A tournament without stages is one stage: carry 0, weight 1.
    """

    distance: int
    compensation: bool = True
    carry: Fraction = _ZERO
    weight: Fraction = Fraction(1)

    @property
    def B(self) -> int:
        """B of 8.6.1 for this distance (D2, D14)."""
        return b_value(self.distance)

    def ci(self, i: int) -> Fraction:
        """Ci of 8.6.1 for a player shot on night 1 as a red player i times (D1); 0 when
        compensation is off (D14)."""
        return ci_value(i, self.B) if self.compensation else _ZERO


class Penalty(NamedTuple):
    """One penalty of 8.5: who may get it (D8) and what it costs."""

    id: str  # the rule id, "8.5.1"…"8.5.4"
    cost: int  # hundredths (8.5: −0.4)
    roles: frozenset[str]  # Role values that may get it (D8)
    results: frozenset[str]  # Result values of the games it may be given in (D8)
    name: str  # what the judge reads, marked with N_() for translation
    needs: str  # the problem when role or result do not allow it (D8), N_() template


_RED = frozenset({Role.CIVILIAN.value, Role.SHERIFF.value})
_BLACK = frozenset({Role.MAFIA.value, Role.DON.value})
_BLACK_WIN = frozenset({Result.BLACK.value})
_RED_WIN = frozenset({Result.RED.value})
_ANY_RESULT = frozenset(result.value for result in Result)
_RED_LOST = N_(
    "penalty {penalty} needs a civilian or the sheriff and a black win; "
    "seat {seat} is {role}, result {result}"
)

# 8.5, D8: 8.5.1 and 8.5.3 a civilian or the sheriff and a black win, 8.5.2 a civilian,
# 8.5.4 mafia or the don and a red win; −0.4 each.
PENALTIES: Mapping[str, Penalty] = {
    penalty.id: penalty
    for penalty in (
        Penalty(
            "8.5.1",
            -40,
            _RED,
            _BLACK_WIN,
            N_("broke into a red player with 10 at the table; red lost"),
            _RED_LOST,
        ),
        Penalty(
            "8.5.2",
            -40,
            frozenset({Role.CIVILIAN.value}),
            _ANY_RESULT,
            N_("broke into a red player with 4 at the table when voting out two would win"),
            N_("penalty {penalty} needs a civilian; seat {seat} is {role}"),
        ),
        Penalty(
            "8.5.3",
            -40,
            _RED,
            _BLACK_WIN,
            N_("claimed a knowingly false check and left it; red lost"),
            _RED_LOST,
        ),
        Penalty(
            "8.5.4",
            -40,
            _BLACK,
            _RED_WIN,
            N_("claimed sheriff with a red check on the real sheriff; black lost"),
            N_(
                "penalty {penalty} needs mafia or the don and a red win; "
                "seat {seat} is {role}, result {result}"
            ),
        ),
    )
}
PENALTY_RULES = tuple(PENALTIES)  # the rule ids, in order
