"""What the judge's card shows besides the draft itself: the ``View`` that a step's
prompt, buttons and loader (``spec.StepSpec``) and the card's text (``card``) share.

Plain data, loaded by ``flow.load_view``; it imports nothing of the card's other
modules, so each of them may import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from bot.services.records import PlayerRow
from bot.texts.markup import html_text
from bot.texts.rule_issues import Issue
from scoring import GameBreakdown


@dataclass
class View:
    """What the card shows besides the draft itself (loaded by ``flow.load_view``)."""

    title: str = ""
    players: dict[int, PlayerRow] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    suggestions: list[tuple[int, int]] = field(default_factory=list)
    planned: set[tuple[int, int]] = field(default_factory=set)  # the accepted plan's tables
    # player id -> another table of this round he played at or is planned at: marked
    busy: dict[int, int] = field(default_factory=dict)
    tournaments: dict[int, str] = field(default_factory=dict)
    # seat -> best-move points (8.3.4) the seat would get; for the 8.4.6 budget
    best_move_points: dict[int, Fraction] = field(default_factory=dict)
    breakdown: GameBreakdown | None = None
    # (i, B, Ci) of the first-killed player over the tournament (8.6.1, D1)
    ci_info: tuple[int, int, Fraction] | None = None
    original_code: str = ""
    # The stage being seated and its entrants (D13); None: anybody on the roster may sit.
    entrants: tuple[str, frozenset[int]] | None = None

    def nickname(self, player_id: int | None) -> str:
        if player_id is None:
            return "—"
        row = self.players.get(player_id)
        return html_text(row.nickname) if row else f"#{player_id}"

    def pending(self, player_id: int | None) -> bool:
        row = self.players.get(player_id) if player_id is not None else None
        return row is not None and row.status != "confirmed"

    def names(self) -> dict[int, str]:
        """Player id → nickname (as the engine names the seats)."""
        return {pid: row.nickname for pid, row in self.players.items()}
