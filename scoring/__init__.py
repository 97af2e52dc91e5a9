"""The scoring engine of the tournament bot: pure Python, no Telegram, no database.

The rules are docs/rules.md (sections 8.2-8.7, decisions D1-D16); the command line is
docs/formats.md (``python -m scoring standings FILE``, ``python -m scoring elo FILE``).

* ``model`` — ``Tournament``, ``Game``, ``Seat``, ``Role``, ``Result`` (exact ``Fraction``s);
* ``ruleset`` — ``Ruleset`` (distance and B, compensation, a stage's carry and weight),
  what every computation of points receives; ``b_value(distance)``, ``ci_value(i, b)``;
  ``PENALTIES``, one row per penalty of 8.5;
* ``parse`` — ``parse_tournament(data)``, ``parse_game(data)``, ``load_json(text)``,
  ``InputError`` (a file that is not a tournament);
* ``validate`` — ``validate_game(game)`` / ``validate_tournament(t)`` → ``[Problem]``,
  every broken rule at once (``Problem.template`` / ``.params`` for translation);
* ``points`` — ``game_breakdown(game, ci=...)``, ``tournament_breakdowns(t)``;
* ``standings`` — ``compute_standings(t)``, ``unresolved_ties(t)``; ``game_tally(record)``
  and ``RunningTally``: the standings kept up to date game by game;
* ``stages`` — a tournament of stages (D13-D16): ``tournament_standings(stages, games)``,
  ``staged_standings(stages, owns)``, ``stage_standings(stage, own, before)``,
  ``cut(standings, n)`` (who is tied across the cut, for a lot), ``check_entrants``,
  ``check_stages``, ``final_standings``;
* ``incremental`` — ``ScoredGames``: a tournament's games each scored once, for a caller
  that keeps them between changes (standings, problems and breakdowns after one
  changed game cost that game, not the tournament).
* ``judging`` — the rules as the judge's card needs them while a game is entered:
  penalties allowed (D8), caps and limits of judge's points (8.4), the best move's
  limits (8.3), Ci of the first-killed player (8.6.1), and ``format_points`` /
  ``parse_points``, the one formatter and parser of points (D3, D6).

Every name is importable from ``scoring`` itself; the modules load on first use, so
``import scoring`` (and the command line, which needs no data classes) stays cheap.
"""

from __future__ import annotations

from importlib import import_module

from .typing_shim import TYPE_CHECKING

if TYPE_CHECKING:
    from .elo import (
        EloChange,
        EloGame,
        EloKind,
        EloReplay,
        EloSeat,
        EloSums,
        apply_elo,
        elo_factors,
        red_odds,
        replay_elo,
    )
    from .incremental import ScoredGames
    from .judging import (
        APPROVAL_THRESHOLD,
        BEST_MOVE_NUMBERS_MAX,
        DAY1_CHOICES,
        EXTRA_STEP,
        MINUS,
        POINTS_PATTERN,
        Cap,
        CiInfo,
        ExtraLimit,
        best_move_allowed,
        best_move_points,
        compensated,
        counted_extras,
        extra_limit,
        first_killed_ci,
        first_night_deaths,
        format_points,
        judge_cap,
        judge_points_allowed,
        judge_points_count,
        needs_approval,
        parse_points,
        penalties_allowed,
        penalty_allowed,
        penalty_points,
        points_hundredths,
    )
    from .model import (
        PENALTY_RULES,
        ROLE_COUNTS,
        SEAT_NUMBERS,
        SEATS,
        Game,
        Result,
        Role,
        Seat,
        Tournament,
    )
    from .parse import InputError, load_json, parse_game, parse_tournament
    from .points import (
        GameBreakdown,
        SeatPoints,
        game_breakdown,
        game_ci,
        tournament_breakdowns,
    )
    from .problems import N_, Problem
    from .ruleset import PENALTIES, Penalty, Ruleset, b_value, ci_value
    from .stages import (
        STAGES,
        Cut,
        Stage,
        StagedStandings,
        StageStandings,
        check_entrants,
        check_stages,
        cut,
        final_standings,
        stage_standings,
        staged_standings,
        tournament_standings,
    )
    from .standings import (
        GameTally,
        RunningTally,
        StandingRow,
        Standings,
        compute_standings,
        game_tally,
        unresolved_ties,
    )
    from .validate import InvalidGameError, validate_game, validate_tournament

_HOMES = {
    "model": (
        "PENALTY_RULES",
        "ROLE_COUNTS",
        "SEATS",
        "SEAT_NUMBERS",
        "Game",
        "Result",
        "Role",
        "Seat",
        "Tournament",
    ),
    "parse": ("InputError", "load_json", "parse_game", "parse_tournament"),
    "points": (
        "GameBreakdown",
        "SeatPoints",
        "game_breakdown",
        "game_ci",
        "tournament_breakdowns",
    ),
    "incremental": ("ScoredGames",),
    "elo": (
        "EloChange",
        "EloGame",
        "EloKind",
        "EloReplay",
        "EloSeat",
        "EloSums",
        "apply_elo",
        "elo_factors",
        "red_odds",
        "replay_elo",
    ),
    "judging": (
        "APPROVAL_THRESHOLD",
        "BEST_MOVE_NUMBERS_MAX",
        "DAY1_CHOICES",
        "EXTRA_STEP",
        "MINUS",
        "POINTS_PATTERN",
        "Cap",
        "CiInfo",
        "ExtraLimit",
        "best_move_allowed",
        "best_move_points",
        "compensated",
        "counted_extras",
        "extra_limit",
        "first_killed_ci",
        "first_night_deaths",
        "format_points",
        "judge_cap",
        "judge_points_allowed",
        "judge_points_count",
        "needs_approval",
        "parse_points",
        "penalties_allowed",
        "penalty_allowed",
        "penalty_points",
        "points_hundredths",
    ),
    "problems": ("N_", "Problem"),
    "ruleset": ("PENALTIES", "Penalty", "Ruleset", "b_value", "ci_value"),
    "standings": (
        "GameTally",
        "RunningTally",
        "StandingRow",
        "Standings",
        "compute_standings",
        "game_tally",
        "unresolved_ties",
    ),
    "validate": ("InvalidGameError", "validate_game", "validate_tournament"),
    "stages": (
        "STAGES",
        "Cut",
        "Stage",
        "StageStandings",
        "StagedStandings",
        "check_entrants",
        "check_stages",
        "cut",
        "final_standings",
        "stage_standings",
        "staged_standings",
        "tournament_standings",
    ),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "APPROVAL_THRESHOLD",
    "BEST_MOVE_NUMBERS_MAX",
    "DAY1_CHOICES",
    "EXTRA_STEP",
    "MINUS",
    "N_",
    "PENALTIES",
    "PENALTY_RULES",
    "POINTS_PATTERN",
    "ROLE_COUNTS",
    "SEATS",
    "SEAT_NUMBERS",
    "STAGES",
    "Cap",
    "CiInfo",
    "Cut",
    "EloChange",
    "EloGame",
    "EloKind",
    "EloReplay",
    "EloSeat",
    "EloSums",
    "ExtraLimit",
    "Game",
    "GameBreakdown",
    "GameTally",
    "InputError",
    "InvalidGameError",
    "Penalty",
    "Problem",
    "Result",
    "Role",
    "Ruleset",
    "RunningTally",
    "ScoredGames",
    "Seat",
    "SeatPoints",
    "Stage",
    "StageStandings",
    "StagedStandings",
    "StandingRow",
    "Standings",
    "Tournament",
    "apply_elo",
    "b_value",
    "best_move_allowed",
    "best_move_points",
    "check_entrants",
    "check_stages",
    "ci_value",
    "compensated",
    "compute_standings",
    "counted_extras",
    "cut",
    "elo_factors",
    "extra_limit",
    "final_standings",
    "first_killed_ci",
    "first_night_deaths",
    "format_points",
    "game_breakdown",
    "game_ci",
    "game_tally",
    "judge_cap",
    "judge_points_allowed",
    "judge_points_count",
    "load_json",
    "needs_approval",
    "parse_game",
    "parse_points",
    "parse_tournament",
    "penalties_allowed",
    "penalty_allowed",
    "penalty_points",
    "points_hundredths",
    "red_odds",
    "replay_elo",
    "stage_standings",
    "staged_standings",
    "tournament_breakdowns",
    "tournament_standings",
    "unresolved_ties",
    "validate_game",
    "validate_tournament",
]


_MODULES = frozenset({*_HOMES, "cli", "elo_file", "record", "rules", "table"})


def __getattr__(name: str) -> object:
    if name in _MODULES:  # ``scoring.points`` and the like, after ``import scoring``
        return import_module(f".{name}", __name__)
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module 'scoring' has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
