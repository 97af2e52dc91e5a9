"""Every rule a game's protocol can break, all reported at once.

``validate_game`` / ``validate_tournament`` return a list of ``Problem``s (empty: the
game is fine); each names the game, the rule id of docs/rules.md and what is wrong in
plain words, as a translatable template with parameters (see ``problems.py``).

Rule ids used: ``seats`` (seat count, player names), ``roles`` (role counts, unknown
roles), ``result``, ``id`` (duplicate game ids), ``8.6`` (first-killed seat),
``8.3``, ``8.3.2``, ``8.3.6``, ``D10`` (best move), ``8.2.4`` (disqualified seats),
``8.4``, ``D6``, ``8.4.1``, ``8.4.2``, ``8.4.3``, ``8.4.4``, ``8.4.7`` (judge's extra
points), ``D7`` (approvals), ``8.5`` and ``8.5.1``-``8.5.4`` (penalties, D8).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

from .problems import N_, Problem
from .record import (
    RESULTS,
    ROLES_BY_VALUE,
    Arrangement,
    GameRecord,
    are_seats,
    exact_number,
    is_seat,
    record_of_game,
    show_given,
    show_number,
)
from .rules import (
    BEST_MOVE_DAY1_LIMIT,
    BEST_MOVE_NUMBERS_MAX,
    JUDGE_LOSER_MAX,
    JUDGE_PLAYERS_MAX,
    JUDGE_SUM_MAX,
    JUDGE_WINNER_MAX,
    bonuses,
    team_seats,
    winning_team,
)
from .ruleset import PENALTIES
from .table import ROLE_COUNTS, Result, Role
from .typing_shim import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Game, Tournament

SEATS = 10
DAY1_VOTED_OUT_MAX = 3
DRAW = Result.DRAW.value


class InvalidGameError(ValueError):
    """Points were asked for games that break rules; ``problems`` lists every one."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(str(problem) for problem in self.problems))


def validate_game(game: Game) -> list[Problem]:
    """Every problem of one game (an empty list: the game is valid)."""
    return check_record(record_of_game(game))


def validate_tournament(tournament: Tournament) -> list[Problem]:
    """Every problem of every game, and game ids used twice (rule ``id``)."""
    return check_records([record_of_game(game) for game in tournament.games])


def check_records(records: Iterable[GameRecord]) -> list[Problem]:
    """Every problem of every record, then game ids used twice."""
    problems: list[Problem] = []
    ids: list[str] = []
    for record in records:
        ids.append(record.id)
        problems.extend(check_record(record))
    problems.extend(check_ids(ids))
    return problems


def check_ids(ids: Sequence[str]) -> list[Problem]:
    """A problem for each game id used by more than one game (rule ``id``)."""
    if len(set(ids)) == len(ids):
        return []
    return [
        _problem(
            game_id, "id", N_("{count} games have this id; each game needs its own"), count=count
        )
        for game_id, count in Counter(ids).items()
        if count > 1
    ]


def check_record(record: GameRecord) -> list[Problem]:
    """Every problem of one game's record, in the order of the protocol."""
    (
        game_id,
        result,
        players,
        roles,
        voted_out,
        first,
        best_move,
        _hint,
        disqualified,
        judge_extras,
        approved,
        penalties,
        teams,
    ) = record
    problems: list[Problem] = []
    add = problems.append
    # Seats and roles; the result.
    if len(players) != SEATS or len(set(players)) != SEATS or not _NAMED.issuperset(players):
        _check_seats(game_id, players, add)
    if teams is None:
        _check_roles(game_id, roles, add)
    result_ok = isinstance(result, str) and result in RESULTS
    if not result_ok:
        template = N_("result {result} is not red, black or draw")
        add(_problem(game_id, "result", template, result=show_given(result)))
    # The first-killed player (8.6) and the day-1 voting (8.3.6).
    first_ok = first is None or is_seat(first)
    if not first_ok:
        template = N_("first-killed seat {seat} is not a seat 1–10")
        add(_problem(game_id, "8.6", template, seat=show_given(first)))
    voted_out_ok = voted_out.__class__ is int and 0 <= voted_out <= DAY1_VOTED_OUT_MAX
    if not voted_out_ok:
        template = N_("players voted out on day 1: {value}; give a whole number 0–3")
        add(_problem(game_id, "8.3.6", template, value=show_given(voted_out)))
    # The best move (8.3, D10) and disqualifications (8.2.4).
    best_ok = True
    if best_move:
        before = len(problems)
        _check_best_move(record, first_ok, voted_out_ok, add)
        best_ok = len(problems) == before
    if disqualified:
        _check_disqualified(game_id, disqualified, add)
    # Judge's extra points (8.4, D4-D7) and the chief judge's approvals (D7).
    if judge_extras:
        # 8.4.2 weighs them against the best move (8.4.6): a broken one counts as none.
        judged = record
        if best_move and not (best_ok and first_ok and voted_out_ok):
            judged = record._replace(best_move=())
        _check_judge(judged, teams if result_ok else None, add)
    if approved:
        _check_approved(game_id, approved, add)
    # Penalties (8.5, D8).
    if penalties:
        _check_penalties(record, teams if result_ok else None, add)
    return problems


_Add = Callable[[Problem], None]


def _points(value: int) -> str:
    """Hundredths as a short decimal: 35 → 0.35."""
    return show_number(Fraction(value, 100))


def _problem(game_id: str, rule: str, template: str, **params: object) -> Problem:
    return Problem(game_id, rule, template, params)


# Player names known not to be blank (a tournament's ~1,000 names recur 100,000 times).
_NAMED: set[str] = set()


def _check_seats(game_id: str, players: tuple[str, ...], add: _Add) -> None:
    if len(players) != SEATS:
        template = N_("{count} seats; a game has exactly 10")
        add(_problem(game_id, "seats", template, count=len(players)))
    _check_names(game_id, players, add)
    if len(_NAMED) > 100_000:
        _NAMED.clear()
    _NAMED.update(player for player in players if player.strip())


def _check_approved(game_id: str, approved: tuple[object, ...], add: _Add) -> None:
    for seat in approved:
        if not is_seat(seat):
            template = N_("chief judge's approval for seat {seat}, which is not a seat 1–10")
            add(_problem(game_id, "D7", template, seat=show_given(seat)))


def _check_names(game_id: str, players: tuple[str, ...], add: _Add) -> None:
    seats_of: dict[str, list[int]] = {}
    for seat, player in enumerate(players, start=1):
        if not player.strip():
            add(_problem(game_id, "seats", N_("seat {seat} has no player name"), seat=seat))
        else:
            seats_of.setdefault(player, []).append(seat)
    for player, seats in seats_of.items():
        if len(seats) > 1:
            add(
                _problem(
                    game_id,
                    "seats",
                    N_("player {player} sits at seats {seats}; one seat each"),
                    player=player,
                    seats=", ".join(map(str, seats)),
                )
            )


def _check_roles(game_id: str, roles: tuple[object, ...], add: _Add) -> None:
    known: list[Role] = []
    for seat, role in enumerate(roles, start=1):
        if isinstance(role, str) and role in ROLES_BY_VALUE:
            known.append(ROLES_BY_VALUE[role])
        else:
            add(
                _problem(
                    game_id,
                    "roles",
                    N_("seat {seat} has role {role}; roles are civilian, sheriff, mafia, don"),
                    seat=seat,
                    role=show_given(role),
                )
            )
    counts = Counter(known)
    for role, expected in ROLE_COUNTS.items():
        if counts[role] != expected and len(known) == len(roles):
            add(
                _problem(
                    game_id,
                    "roles",
                    N_("role {role} at {count} seats; a game has {expected}"),
                    role=role.value,
                    count=counts[role],
                    expected=expected,
                )
            )


def _check_best_move(record: GameRecord, first_ok: bool, voted_out_ok: bool, add: _Add) -> None:
    game_id, _result, _players, _roles, voted_out, first, named = record[:7]
    if first is None:
        add(_problem(game_id, "8.3", N_("best move recorded, but nobody was killed on night 1")))
    if len(named) > BEST_MOVE_NUMBERS_MAX:
        template = N_("best move names {count} seats; at most 3")
        add(_problem(game_id, "8.3.2", template, count=len(named)))
    seats: tuple[int, ...] = named  # type: ignore[assignment]
    if not are_seats(named):
        for seat in named:
            if not is_seat(seat):
                template = N_("best move names {seat}, which is not a seat 1–10")
                add(_problem(game_id, "D10", template, seat=show_given(seat)))
        seats = tuple(seat for seat in named if is_seat(seat))  # type: ignore[misc]
    if len(set(seats)) != len(seats):
        for seat, times in Counter(seats).items():
            if times > 1:
                template = N_("best move names seat {seat} twice; named numbers stand (8.3.3)")
                add(_problem(game_id, "D10", template, seat=seat))
    if first_ok and first in seats:
        template = N_("best move names the first-killed player's own seat {seat}")
        add(_problem(game_id, "D10", template, seat=first))
    if voted_out_ok and voted_out >= BEST_MOVE_DAY1_LIMIT:  # type: ignore[operator]
        template = N_("best move recorded after {count} players left by the day-1 voting")
        add(_problem(game_id, "8.3.6", template, count=voted_out))


def _check_disqualified(game_id: str, seats: tuple[object, ...], add: _Add) -> None:
    seen: set[object] = set()
    for seat in seats:
        if not is_seat(seat):
            add(
                _problem(
                    game_id,
                    "8.2.4",
                    N_("disqualified seat {seat} is not a seat 1–10"),
                    seat=show_given(seat),
                )
            )
        elif seat in seen:
            add(_problem(game_id, "8.2.4", N_("seat {seat} disqualified twice"), seat=seat))
        else:
            seen.add(seat)


def _check_judge(record: GameRecord, teams: Arrangement | None, add: _Add) -> None:
    """8.4-8.4.7 with D4-D7. ``teams`` is None when roles or result are broken."""
    game_id = record.id
    given = record.judge_extras
    valid = []
    given_total = 0
    for judged in given:  # one value per seat: JSON object keys and Mapping keys are unique
        seat, value, shown = judged
        seat_ok = is_seat(seat)
        if not seat_ok:
            template = N_("judge's extra points for seat {seat}, which is not a seat 1–10")
            add(_problem(game_id, "8.4", template, seat=show_given(seat)))
        if value is None or value <= 0:
            _judge_value_problem(game_id, seat, value, shown, add)
        elif seat_ok:
            valid.append(judged)
            given_total += value
            if value > JUDGE_LOSER_MAX:  # (at most 0.4 is allowed to winners and losers)
                _check_judge_cap(record, teams, seat, value, add)  # type: ignore[arg-type]
    if len(given) > JUDGE_PLAYERS_MAX:
        add(
            _problem(
                game_id,
                "8.4.1",
                N_("judge's extra points for {count} players; at most 4"),
                count=len(given),
            )
        )
    if record.result == DRAW:
        add(
            _problem(
                game_id,
                "8.4.7",
                N_("judge's extra points in a draw (seats {seats}); a draw gets none"),
                seats=", ".join(show_given(seat) for seat, _value, _shown in given),
            )
        )
    if teams is None or winning_team(record) is None or given_total <= JUDGE_SUM_MAX:
        return  # (what counts is a part of what is given)
    # 8.4.2 counts the judge's points a player gets (8.4.6, D4, D5); values above 0.5
    # count as if approved (D7), so that an approval cannot make a game invalid.
    if len(valid) != len(given):
        record = record._replace(judge_extras=tuple(valid))
    counted = sum(
        judge
        for _seat, _best, judge, counts, _pending, _bonus in bonuses(record, teams, True)
        if counts
    )
    if counted > JUDGE_SUM_MAX:
        add(
            _problem(
                game_id,
                "8.4.2",
                N_("judge's extra points that count sum to {total}; at most 1"),
                total=_points(counted),
            )
        )


def _check_judge_cap(
    record: GameRecord, teams: Arrangement | None, seat: int, value: int, add: _Add
) -> None:
    """8.4.3 (winners: at most 0.7) and 8.4.4 (losers: at most 0.4)."""
    team = winning_team(record)
    if teams is None or team is None:
        return
    if seat in team_seats(teams, team):
        if value > JUDGE_WINNER_MAX:
            template = N_(
                "judge's extra points {value} for seat {seat} of the winning team; at most 0.7"
            )
            add(_problem(record.id, "8.4.3", template, value=_points(value), seat=seat))
    elif value > JUDGE_LOSER_MAX:
        template = N_(
            "judge's extra points {value} for seat {seat} of the losing team; at most 0.4"
        )
        add(_problem(record.id, "8.4.4", template, value=_points(value), seat=seat))


def _judge_value_problem(
    game_id: str, seat: object, value: int | None, shown: object, add: _Add
) -> None:
    if value is not None:
        template = N_("judge's extra points for seat {seat} are {value}; they must be positive")
        add(_problem(game_id, "D6", template, seat=show_given(seat), value=_points(value)))
        return
    if exact_number(shown) is None:
        template = N_("judge's extra points for seat {seat} are {value}: not a number")
    else:
        template = N_("judge's extra points for seat {seat} are {value}; at most two decimals")
    add(_problem(game_id, "D6", template, seat=show_given(seat), value=show_given(shown)))


def _check_penalties(record: GameRecord, teams: Arrangement | None, add: _Add) -> None:
    game_id = record.id
    for seat, rules in record.penalties:
        seat_ok = is_seat(seat)
        if not seat_ok:
            add(
                _problem(
                    game_id,
                    "8.5",
                    N_("penalty for seat {seat}, which is not a seat 1–10"),
                    seat=show_given(seat),
                )
            )
        for rule in rules:
            penalty = PENALTIES.get(rule) if isinstance(rule, str) else None
            if penalty is None:
                add(
                    _problem(
                        game_id,
                        "8.5",
                        N_("penalty {penalty} for seat {seat}; use 8.5.1, 8.5.2, 8.5.3 or 8.5.4"),
                        penalty=show_given(rule),
                        seat=show_given(seat),
                    )
                )
                continue
            if not seat_ok or teams is None:
                continue
            role = record.roles[seat - 1]  # type: ignore[operator]  # is_seat: an int 1-10
            if role not in penalty.roles or record.result not in penalty.results:  # D8
                add(
                    _problem(
                        game_id,
                        penalty.id,
                        penalty.needs,
                        penalty=rule,
                        seat=seat,
                        role=str(role),
                        result=str(record.result),
                    )
                )
