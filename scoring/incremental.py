"""A tournament scored game by game, for a caller that keeps its games between changes
(the bot's live standings, recomputed after every saved game).

``ScoredGames`` holds games under the caller's keys (database ids, say). Each game is
turned into its record, checked (``validate.check_record``) and tallied
(``standings.game_tally``) once, when it is put; standings, problems and breakdowns
then come from what is kept, so after one changed game they cost that game, the rows
of its players and the ordering, not every game again. Nothing here is a rule: every
rule is the one of ``validate``, ``standings`` and ``points``, and the results equal
``compute_standings``, ``validate_tournament`` and ``tournament_breakdowns`` of the
same games in the same order (the tests hold them to that).

Two things depend on the whole tournament and are computed over it each time: game
ids used twice (rule ``id``, cheap) and each game's Ci (8.6.1, D1), which follows its
first-killed player's deaths in other games; a game's breakdown is kept for as long
as its Ci stays the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Hashable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from .points import GameBreakdown, breakdown_of_record, game_ci
from .problems import Problem
from .record import GameRecord, record_of_game
from .ruleset import Ruleset
from .standings import GameTally, RunningTally, Standings, game_tally
from .typing_shim import TYPE_CHECKING
from .validate import InvalidGameError, check_ids, check_record

if TYPE_CHECKING:
    from .model import Game


class _Scored:
    """One game as it was put, with what the engine made of it."""

    __slots__ = ("breakdown", "game", "problems", "record", "tally")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.record: GameRecord = record_of_game(game)
        self.problems: tuple[Problem, ...] = tuple(check_record(self.record))
        # Only a game without problems counts; its roles are then valid.
        self.tally: GameTally | None = None if self.problems else game_tally(self.record)
        # (the Ci it was computed with, the breakdown)
        self.breakdown: tuple[Fraction, GameBreakdown] | None = None


class ScoredGames:
    """A tournament's games under the caller's keys, each scored once.

    ``put(key, game)`` adds or replaces a game, ``discard(key)`` takes one out. The
    tournament's order of games is the caller's: the methods that depend on it take
    ``order``, every key held, once each, in the order of the tournament's games.
    ``changes`` grows with every put or discard that changed something, so that a
    result computed earlier can tell that it describes other games.
    """

    __slots__ = ("_duplicated", "_games", "_ids", "_invalid", "_pending", "_tally", "changes")

    def __init__(self) -> None:
        self._games: dict[Hashable, _Scored] = {}
        self._tally = RunningTally()  # of the games without problems
        self._invalid: set[Hashable] = set()  # keys of games with problems
        self._pending: set[Hashable] = set()  # keys of games awaiting an approval (D7)
        self._ids: Counter[str] = Counter()  # game ids, for the rule ``id``
        self._duplicated: set[str] = set()
        self.changes = 0

    def __len__(self) -> int:
        return len(self._games)

    def __contains__(self, key: object) -> bool:
        return key in self._games

    def put(self, key: Hashable, game: Game) -> None:
        """Add ``game`` under ``key``, replacing the game held there."""
        held = self._games.get(key)
        if held is not None:
            if held.game == game:  # e.g. reloaded after a change that did not touch it
                return
            self.discard(key)
        scored = self._games[key] = _Scored(game)
        game_id = scored.record.id
        self._ids[game_id] += 1
        if self._ids[game_id] == 2:
            self._duplicated.add(game_id)
        if scored.tally is None:
            self._invalid.add(key)
        else:
            self._tally.add(scored.tally)
            if scored.tally.pending:
                self._pending.add(key)
        self.changes += 1

    def discard(self, key: Hashable) -> None:
        """Take out the game under ``key``, if any."""
        scored = self._games.pop(key, None)
        if scored is None:
            return
        game_id = scored.record.id
        self._ids[game_id] -= 1
        if self._ids[game_id] == 1:
            self._duplicated.discard(game_id)
        elif not self._ids[game_id]:
            del self._ids[game_id]
        if scored.tally is not None:
            self._tally.remove(scored.tally)
        self._invalid.discard(key)
        self._pending.discard(key)
        self.changes += 1

    def first_night_red(self, player: str) -> int | None:
        """i of 8.6.1 (D1) over the games held, as ``judging.first_night_deaths``
        counts it; None while a game breaks a rule (those are not tallied)."""
        return None if self._invalid else self._tally.first_night_red(player)

    def problems(self, order: Sequence[Hashable]) -> list[Problem]:
        """Every problem of every game, then game ids used twice: ``validate_tournament``
        of the games in ``order``."""
        self._check_order(order)
        if not self._invalid and not self._duplicated:
            return []
        games = [self._games[key] for key in order]
        found = [problem for scored in games for problem in scored.problems]
        found.extend(check_ids([scored.record.id for scored in games]))
        return found

    def standings(
        self,
        rules: Ruleset,
        order: Sequence[Hashable],
        lot: Sequence[str] = (),
        *,
        place_of: Callable[[Any], Any] | None = None,
    ) -> Standings:
        """``compute_standings`` of the games in ``order``; raises ``InvalidGameError``
        (with the same problems) if a game breaks a rule. ``place_of``: a key's place
        in ``order`` (anything that sorts as ``order`` goes), to put the games awaiting
        an approval in order without walking every game."""
        problems = self.problems(order)
        if problems:
            raise InvalidGameError(problems)
        pending = self._pending
        games = self._games
        if len(pending) < 2:  # their order matters only with two or more
            ahead: Iterable[Hashable] = pending
        elif place_of is not None:
            ahead = sorted(pending, key=place_of)
        else:
            ahead = order
        waiting = [games[key].record.id for key in ahead if key in pending]
        return self._tally.standings(rules, lot, waiting)

    def breakdowns(
        self, rules: Ruleset, order: Sequence[Hashable], *, only: Container[Hashable] | None = None
    ) -> dict[str, GameBreakdown]:
        """``tournament_breakdowns`` of the games in ``order``: every game's per-seat
        points with the current Ci (D1). A game's breakdown is recomputed only when its
        Ci has changed since the last call. With ``only``, just the games of those keys
        (a player's games: a breakdown is ten seats' points, and a reader who needs a
        few need not keep a whole tournament's)."""
        problems = self.problems(order)
        if problems:
            raise InvalidGameError(problems)
        first_night_red = self._tally.first_night_red
        cis: dict[int, Fraction] = {}
        none = game_ci(False, 0, rules)
        found: dict[str, GameBreakdown] = {}
        for key in order:
            if only is not None and key not in only:
                continue
            scored = self._games[key]
            tally = scored.tally
            assert tally is not None  # no problems: every game is tallied
            ci = none
            first = tally.first_killed
            if tally.compensated and first is not None:
                i = first_night_red(first)
                found_ci = cis.get(i)
                ci = cis[i] = game_ci(True, i, rules) if found_ci is None else found_ci
            kept = scored.breakdown
            if kept is None or kept[0] != ci:
                kept = scored.breakdown = (ci, breakdown_of_record(scored.record, ci))
            found[scored.record.id] = kept[1]
        return found

    def _check_order(self, order: Sequence[Hashable]) -> None:
        if len(order) != len(self._games):
            raise ValueError(f"order has {len(order)} keys for {len(self._games)} games")
