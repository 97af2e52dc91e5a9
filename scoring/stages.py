"""A tournament of stages (docs/rules.md D13-D16; docs/formats.md, "Stages").

Each stage is scored by section 8 on its own games with its own ``Ruleset`` (D14: its
games per player give B, i counts its games only, compensation may be off). Its
figures are then ``carry`` × the figures at the end of the stage before + ``weight``
× its own, for the total and every tie-break figure, compounding stage after stage
(D15), and ordered by 8.7.1-8.7.4 and the stage's own lot (8.7.5). Its entrants are
the top N of the stage before, withdrawn entrants replaced (D13); the tournament's
final standings list the last stage's entrants, then those who left after each stage
before, back to the first (D16).

For the bot: ``tournament_standings(stages, games)`` computes everything at once;
``staged_standings(stages, owns)`` the same from each stage's own standings (e.g. from
a ``ScoredGames`` kept per stage), ``stage_standings(stage, own, before)`` one stage;
``cut(standings, n)`` says who enters and who is tied
across the cut, for the chief judge's lot; ``check_entrants`` refuses a game that
seats a non-entrant. Problems are ``Problem``s citing ``D13``: of a game under its id,
of the stages themselves under ``STAGES``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType

from .problems import N_, Problem
from .record import GameRecord, record_of_game, show_given, show_number
from .ruleset import Ruleset
from .standings import Count, RawRow, StandingRow, Standings, Tally, placed_rows
from .typing_shim import TYPE_CHECKING, NamedTuple
from .validate import InvalidGameError, check_records

if TYPE_CHECKING:
    from .model import Game

STAGES = "stages"  # the "game id" of problems of the stages themselves
_EXACT = frozenset({Fraction, int})
RULE = "D13"
_NONE: Mapping[str, str] = MappingProxyType({})


class Stage(NamedTuple):
    """One stage as the chief judge sets it up (D13-D15)."""

    id: str
    rules: Ruleset  # distance: the stage's games per player; compensation, carry, weight
    entrants: int | None = None  # the top N of the stage before; None on the first stage
    replaced: Mapping[str, str] = _NONE  # withdrawn entrant → who takes his place (D13)
    lot: tuple[str, ...] = ()  # the stage's own lot (8.7.5, D12)


class Cut(NamedTuple):
    """The top ``size`` of a stage's standings (D13)."""

    size: int
    entrants: tuple[str, ...]  # in standings order; provisional while ``tied``
    tied: tuple[str, ...]  # the players sharing the place across the cut: a lot must decide

    @property
    def decided(self) -> bool:
        return not self.tied


class StageStandings(NamedTuple):
    stage: Stage
    entrants: tuple[str, ...]  # in the order of the stage before's standings (D13)
    standings: Standings  # the stage's B, its rows by D15 figures, its pending games (D7)
    cut: Cut | None  # how the entrants were taken from the stage before; None: the first


class StagedStandings(NamedTuple):
    stages: tuple[StageStandings, ...]
    # The final standings (D16), the first stage's B, the pending games of all stages.
    final: Standings


def cut(standings: Standings, size: int) -> Cut:
    """Who of ``standings`` enters a stage of ``size`` entrants, and who is tied across
    the cut (8.7.1-8.7.5 of that stage, D12): those need a lot of that stage first."""
    rows = standings.rows
    top = tuple(row.player for row in rows[:size])
    if size >= len(rows) or size < 1 or rows[size - 1].place != rows[size].place:
        return Cut(size, top, ())
    place = rows[size].place
    return Cut(size, top, tuple(row.player for row in rows if row.place == place))


def tournament_standings(
    stages: Sequence[Stage], games: Iterable[tuple[str, Game]]
) -> StagedStandings:
    """Every stage's standings and the final standings of ``games`` ((stage id, game)
    in the tournament's order); raises ``InvalidGameError`` with every problem: the
    games' rules, and D13."""
    records = [(stage_id, record_of_game(game)) for stage_id, game in games]
    found, problems = score_stages(stages, records)
    if found is None or problems:
        raise InvalidGameError(problems)
    return found


def stage_standings(stage: Stage, own: Standings, before: StageStandings | None) -> StageStandings:
    """One stage from ``own``, the standings of its own games alone under
    ``stage.rules``, and the stage before (None for the first); raises
    ``InvalidGameError`` on a D13 problem (a wrong ``replaced``, a player who is no
    entrant, games played while the stage before is tied across the cut)."""
    found, problems = _stage(stage, own, before)
    entrants = frozenset(found.entrants)
    strangers = [row.player for row in own.rows if row.games and row.player not in entrants]
    if found.cut is not None and found.cut.decided and strangers:
        template = N_("stage {stage}: not among its entrants, yet in its games: {players}")
        problems.append(_problem(STAGES, template, stage=stage.id, players=", ".join(strangers)))
    if problems:
        raise InvalidGameError(problems)
    return found


def check_entrants(
    stage_id: str, records: Iterable[GameRecord], entrants: Iterable[str]
) -> list[Problem]:
    """A problem for each game of the stage that seats a player who is not among its
    entrants (D13: only a stage's entrants play its games)."""
    allowed = frozenset(entrants)
    problems = []
    for record in records:
        strangers = [player for player in record.players if player not in allowed]
        if strangers:
            template = N_("{players} not among the entrants of stage {stage}")
            problems.append(
                _problem(record.id, template, players=", ".join(strangers), stage=stage_id)
            )
    return problems


def check_stages(stages: Sequence[Stage]) -> list[Problem]:
    """The problems of the stages' own settings (D13-D15)."""
    problems: list[Problem] = []
    add = problems.append
    if not stages:
        add(_problem(STAGES, N_("a tournament with stages needs at least one stage")))
    seen: set[str] = set()
    for index, stage in enumerate(stages):
        name = stage.id
        if name in seen:
            add(_problem(STAGES, N_("stage {stage}: two stages have this id"), stage=name))
        seen.add(name)
        rules = stage.rules
        if rules.distance < 1:
            template = N_("stage {stage}: games_per_player must be a whole number, at least 1")
            add(_problem(STAGES, template, stage=name))
        for factor, value in (("carry", rules.carry), ("weight", rules.weight)):
            if value.__class__ not in _EXACT:  # D3: a float would round
                template = N_(
                    "stage {stage}: {factor} {value} is not an exact number: the points "
                    "would be rounded"
                )
                add(_problem(STAGES, template, stage=name, factor=factor, value=repr(value)))
            elif value < 0:
                template = N_("stage {stage}: {factor} is {value}; it may not be negative")
                add(_problem(STAGES, template, stage=name, factor=factor, value=show_number(value)))
        if index == 0:
            if stage.entrants is not None or stage.replaced:
                template = N_(
                    "stage {stage}: entrants and replaced are not allowed on the first stage, "
                    "whose entrants are all players"
                )
                add(_problem(STAGES, template, stage=name))
        elif stage.entrants is None:
            template = N_("stage {stage}: entrants is required after the first stage")
            add(_problem(STAGES, template, stage=name))
        elif stage.entrants < 1:
            template = N_("stage {stage}: entrants must be a whole number, at least 1")
            add(_problem(STAGES, template, stage=name))
    return problems


def score_stages(
    stages: Sequence[Stage], games: Sequence[tuple[object, GameRecord]]
) -> tuple[StagedStandings | None, list[Problem]]:
    """The standings of ``games`` ((stage id as given, record), in the tournament's
    order) and every problem; None while the stages or a game's rules have problems."""
    problems = check_stages(stages)
    by_stage: dict[str, list[GameRecord]] = {stage.id: [] for stage in stages}
    for stage_id, record in games:
        held = by_stage.get(stage_id) if isinstance(stage_id, str) else None
        if held is not None:
            held.append(record)
        elif stage_id is None:
            template = N_("the game names no stage; with stages every game names its stage")
            problems.append(_problem(record.id, template))
        else:
            template = N_("unknown stage {stage}")
            problems.append(_problem(record.id, template, stage=show_given(stage_id)))
    problems.extend(check_records(record for _stage_id, record in games))
    if problems:
        return None, problems
    done: list[StageStandings] = []
    before: StageStandings | None = None
    for stage in stages:
        records = by_stage[stage.id]
        tally = Tally()
        for record in records:
            tally.add(record)
        current, found = _stage(stage, tally.standings(stage.rules), before)
        problems.extend(found)
        if current.cut is not None and current.cut.decided:  # (else: a problem above)
            problems.extend(check_entrants(stage.id, records, current.entrants))
        done.append(current)
        before = current
    pending = frozenset(game for stage in done for game in stage.standings.pending_games)
    in_order = [record.id for _stage_id, record in games if record.id in pending]
    return _staged(done, in_order), problems


def staged_standings(stages: Sequence[Stage], owns: Sequence[Standings]) -> StagedStandings:
    """Every stage's standings and the final ones from each stage's own standings
    (``owns[k]``: stage k's games alone under ``stages[k].rules``, e.g. from a
    ``ScoredGames`` kept per stage); raises ``InvalidGameError`` on a D13 problem (of
    the stages' settings, or of the first stage that has one). Pending games are listed
    stage by stage."""
    problems = check_stages(stages)
    if problems:
        raise InvalidGameError(problems)
    done: list[StageStandings] = []
    for stage, own in zip(stages, owns, strict=True):
        done.append(stage_standings(stage, own, done[-1] if done else None))
    return _staged(done, [game for stage in done for game in stage.standings.pending_games])


def _staged(done: Sequence[StageStandings], pending: Sequence[str]) -> StagedStandings:
    """The stages and the final standings (D16): the first stage's B, ``pending``."""
    final = Standings(
        B=done[0].standings.B, rows=final_standings(done), pending_games=tuple(pending)
    )
    return StagedStandings(tuple(done), final)


def final_standings(stages: Sequence[StageStandings]) -> tuple[StandingRow, ...]:
    """D16: the last stage's rows, then the rows of those who left after each stage
    before, in its order, back to the first. Numbered 1..n down the list; players who
    share a place in their stage share it here too."""
    rows: list[StandingRow] = []
    going_on: frozenset[str] = frozenset()  # the entrants of the stage after
    for stage in reversed(stages):
        shared = None
        for row in stage.standings.rows:
            if row.player in going_on:
                continue
            place = rows[-1].place if row.place == shared else len(rows) + 1
            shared = row.place
            rows.append(row._replace(place=place))
        going_on = frozenset(stage.entrants)
    return tuple(rows)


def _stage(
    stage: Stage, own: Standings, before: StageStandings | None
) -> tuple[StageStandings, list[Problem]]:
    """The stage's entrants (D13) and rows (D15) from its own standings; the problems of
    its entrants. Rows of players who are no entrants are left out."""
    rules = stage.rules
    mine = {row.player: row for row in own.rows}
    problems: list[Problem] = []
    if before is None:
        taken = None
        players: Sequence[str] = tuple(mine)
        carried: Mapping[str, StandingRow] = {}
    else:
        taken, players, problems = _entrants(stage, before.stage.id, before.standings)
        if not taken.decided and any(row.games for row in own.rows):
            template = N_(
                "stage {stage} has games, but stage {before} is tied across the cut at "
                "{size}: {players}; its lot (8.7.5) must decide"
            )
            problems.append(
                _problem(
                    STAGES,
                    template,
                    stage=stage.id,
                    before=before.stage.id,
                    size=taken.size,
                    players=", ".join(taken.tied),
                )
            )
        carried = {row.player: row for row in before.standings.rows}
    rows = [_figures(player, rules, carried.get(player), mine.get(player)) for player in players]
    placed = placed_rows(rows, stage.lot)
    standings = Standings(B=rules.B, rows=placed, pending_games=own.pending_games)
    entrants = tuple(row.player for row in placed) if before is None else tuple(players)
    return StageStandings(stage, entrants, standings, taken), problems


def _entrants(
    stage: Stage, before_id: str, before: Standings
) -> tuple[Cut, tuple[str, ...], list[Problem]]:
    """The cut of the stage before at ``stage.entrants``, and the entrants once the
    withdrawn are replaced, in the order of the stage before's standings (D13)."""
    size = len(before.rows) if stage.entrants is None else stage.entrants
    taken = cut(before, size)
    order = {row.player: position for position, row in enumerate(before.rows)}
    chosen = set(taken.entrants)
    problems: list[Problem] = []
    for out, into in stage.replaced.items():
        if out not in taken.entrants:
            template = N_(
                "stage {stage}: {player} is replaced but not among the top {size} of {before}"
            )
            problems.append(
                _problem(STAGES, template, stage=stage.id, player=out, size=size, before=before_id)
            )
        elif into not in order or into in taken.entrants:
            template = N_(
                "stage {stage}: {player}, who replaces {out}, is not ranked below the top "
                "{size} of {before}"
            )
            problems.append(
                _problem(
                    STAGES,
                    template,
                    stage=stage.id,
                    player=into,
                    out=out,
                    size=size,
                    before=before_id,
                )
            )
        elif into in chosen:
            template = N_("stage {stage}: {player} replaces two entrants")
            problems.append(_problem(STAGES, template, stage=stage.id, player=into))
        else:
            chosen.discard(out)
            chosen.add(into)
    return taken, tuple(sorted(chosen, key=order.__getitem__)), problems


_NO_ROW = StandingRow(0, "", *(Fraction(0),) * 4, 0, 0, 0, 0)


def _figures(
    player: str, rules: Ruleset, carried: StandingRow | None, own: StandingRow | None
) -> RawRow:
    """D15: carry × the figures brought + weight × the stage's own, each exactly."""
    carry, weight = rules.carry, rules.weight
    a = _NO_ROW if carried is None else carried
    b = _NO_ROW if own is None else own

    def count(brought: Count, played: Count) -> Count:
        value = carry * brought + weight * played
        return value.numerator if value.denominator == 1 else value  # whole: an int

    return (
        player,
        carry * a.total + weight * b.total,
        carry * a.main + weight * b.main,
        carry * a.extra + weight * b.extra,
        carry * a.ci + weight * b.ci,
        count(a.wins, b.wins),
        count(a.wins_don_sheriff, b.wins_don_sheriff),
        count(a.first_night_deaths, b.first_night_deaths),
        b.games,
    )


def _problem(where: str, template: str, **params: object) -> Problem:
    return Problem(where, RULE, template, params)
