"""The tournament's standings (8.7): totals over all games, ordered and placed.

Per game everything is summed in integer hundredths with the rules of ``rules.py``;
exact ``Fraction``s are built once per player, Ci as k × Ruleset.ci(i) where k is
the number of games that compensate him and i his first-night deaths as a red
player (8.6.1, D1). The order compares exact values (D3).

``Tally`` sums a whole tournament at once (the command line); ``game_tally`` and
``RunningTally`` keep the same totals game by game, with removals (the bot's live
standings). Both take a game's part through ``_adder`` and build rows with ``_row``
and ``_placed``, so each rule is applied in one place.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from itertools import chain
from math import lcm

from .record import GameRecord, record_of_game
from .rules import bonuses, disqualifications, outcome, penalty_points
from .ruleset import Ruleset
from .typing_shim import TYPE_CHECKING, NamedTuple
from .validate import InvalidGameError, check_records

if TYPE_CHECKING:
    from .model import Tournament


Count = int | Fraction


class StandingRow(NamedTuple):
    place: int  # 1-based; players still tied after 8.7.1-8.7.5 share a place
    player: str
    total: Fraction  # main + extra (8.7)
    main: Fraction  # wins + ci
    extra: Fraction  # 8.2.4, 8.3, 8.4, 8.5 (8.7.1)
    ci: Fraction  # compensation over the tournament (8.6)
    # Counts; in a stage with factors other than 0 and 1 they may be fractions (D15).
    wins: Count  # 8.7.2
    wins_don_sheriff: Count  # 8.7.3
    first_night_deaths: Count  # any role (8.7.4)
    games: int  # in a stage: that stage's own games (D15)


class Standings(NamedTuple):
    B: int  # the B of 8.6.1: 40 % of the distance, rounded half up (D2)
    rows: tuple[StandingRow, ...]
    # ids of games with judge's points above 0.5 awaiting approval: not counted yet (D7)
    pending_games: tuple[str, ...] = ()

    def ties(self) -> list[list[str]]:
        """Groups of two or more players sharing a place: each needs a lot (8.7.5, D12)."""
        groups: dict[int, list[str]] = {}
        for row in self.rows:
            groups.setdefault(row.place, []).append(row.player)
        return [players for players in groups.values() if len(players) > 1]


def compute_standings(tournament: Tournament) -> Standings:
    """The standings of a tournament; raises ``InvalidGameError`` if a game breaks a rule."""
    records = [record_of_game(game) for game in tournament.games]
    problems = check_records(records)
    if problems:
        raise InvalidGameError(problems)
    return standings_of_records(tournament.ruleset, tournament.lot, records)


def unresolved_ties(tournament: Tournament) -> list[list[str]]:
    """The groups still tied after 8.7.1-8.7.4 and the lot: what the chief judge must
    draw a lot for (D12), each in standings order."""
    return compute_standings(tournament).ties()


def standings_of_records(
    rules: Ruleset, lot: Sequence[str], records: Iterable[GameRecord]
) -> Standings:
    """The standings of valid records (the caller has validated them)."""
    tally = Tally()
    add = tally.add
    for record in records:
        add(record)
    return tally.standings(rules, lot)


# A row before its place: the fields of ``StandingRow`` after ``place``.
RawRow = tuple[str, Fraction, Fraction, Fraction, Fraction, Count, Count, Count, int]

# What the games add up to, by player name, as ``Tally`` collects it: the seated players
# of each game, each game's winners, the winning sheriffs/dons, the first-killed, those
# of them who were red, those of them a game compensates, extra points in hundredths,
# and the ids of games waiting for an approval.
_Totals = tuple[
    list[tuple[str, ...]],
    list[tuple[str, ...]],
    list[str],
    list[str],
    list[str],
    list[str],
    dict[str, int],
    list[str],
]


def _new_totals() -> _Totals:
    return ([], [], [], [], [], [], {}, [])


def _adder(totals: _Totals) -> Callable[[GameRecord], None]:
    """The function that adds one valid record's points to ``totals``: every rule of a
    game's contribution, applied in this one place (``Tally`` and ``game_tally``)."""
    seated, winners, leaders, deaths, red_deaths, compensations, extra, pending = totals

    def add(record: GameRecord) -> None:
        (
            game_id,
            _,
            players,
            _,
            _,
            _,
            best_move,
            _,
            disqualified,
            judged,
            _,
            penalized,
            teams,
        ) = record
        if teams is None:
            raise InvalidGameError(check_records([record]))
        seated.append(players)
        won, leading, first, first_red, compensating = outcome(record, teams)
        if leading is not None:
            winners.append(won)  # 8.2.1-8.2.2
            leaders.append(leading)  # 8.7.3
        if first is not None:
            deaths.append(first)  # 8.7.4
            if first_red:
                red_deaths.append(first)  # i of 8.6.1 (D1)
                if compensating:
                    compensations.append(first)  # 8.6.2-8.6.3
        if judged or best_move:
            for seat, _best, _judge, _counted, waiting, bonus in bonuses(record, teams):
                if bonus:
                    player = players[seat - 1]
                    extra[player] = extra.get(player, 0) + bonus
                if waiting and (not pending or pending[-1] != game_id):
                    pending.append(game_id)
        if disqualified or penalized:
            for seat, points in chain(disqualifications(record), penalty_points(record)):
                player = players[seat - 1]
                extra[player] = extra.get(player, 0) + points

    return add


class Tally:
    """Running totals over valid game records: ``add(record)`` each, then ``standings()``.

    Per game only names go into lists and integer hundredths into a dict; everything
    is counted and turned into exact ``Fraction``s once per player at the end.
    """

    __slots__ = ("_totals", "add")
    add: Callable[[GameRecord], None]

    def __init__(self) -> None:
        self._totals = _new_totals()
        self.add = _adder(self._totals)

    def standings(self, rules: Ruleset, lot: Sequence[str] = ()) -> Standings:
        seated, winners, leaders, deaths, red_deaths, compensations, extra, pending = self._totals
        games = Counter(chain.from_iterable(seated))
        wins = Counter(chain.from_iterable(winners))
        wins_leader = Counter(leaders)
        first_night = Counter(deaths)
        i_of = Counter(red_deaths)
        k_of = Counter(compensations)
        rows = [
            _row(
                player,
                rules,
                played,
                wins[player],
                wins_leader[player],
                first_night[player],
                i_of[player],
                k_of[player],
                extra.get(player, 0),
            )
            for player, played in games.items()
        ]
        return Standings(B=rules.B, rows=placed_rows(rows, lot), pending_games=tuple(pending))


def _row(
    player: str,
    rules: Ruleset,
    played: int,
    won: int,
    won_leading: int,
    deaths: int,
    i: int,
    k: int,
    hundredths: int,
) -> RawRow:
    """One player's exact values from his counts over the tournament (8.6.1, 8.7, D1).

    Integer numerators over Ci's denominator (``Fraction`` arithmetic is slow):
    ci = k × Ci(i, B) (8.6.1; 0 with compensation off, D14), main = wins + ci,
    total = main + extra.
    """
    each = rules.ci(i)
    ci_over, over = k * each.numerator, each.denominator
    main_over = won * over + ci_over
    return (
        player,
        Fraction(main_over * 100 + hundredths * over, over * 100),
        Fraction(main_over, over),
        Fraction(hundredths, 100),
        Fraction(ci_over, over),
        won,
        won_leading,
        deaths,
        played,
    )


class GameTally(NamedTuple):
    """What one valid game adds to the standings, by player name (``game_tally``)."""

    game_id: str
    players: tuple[str, ...]  # each plays one more game
    winners: tuple[str, ...]  # one win each (8.2.1-8.2.2); none in a draw (8.2.3)
    leader: str | None  # the winning sheriff or don (8.7.3)
    first_killed: str | None  # shot on night 1, any role (8.7.4)
    first_killed_red: bool  # ... as a civilian or the sheriff: counts for i (8.6.1, D1)
    compensated: bool  # ... and this game gives him Ci (8.6.2-8.6.3)
    extra: tuple[tuple[str, int], ...]  # hundredths: 8.2.4, 8.3.4, 8.4, 8.5 (D4, D7)
    pending: bool  # judge's points above 0.5 wait for the chief judge's approval (D7)


def game_tally(record: GameRecord) -> GameTally:
    """One valid record's part of the standings, to add to (and later take out of) a
    ``RunningTally``. Raises ``InvalidGameError`` if its roles break the rule (validate
    the record first: ``check_record``)."""
    totals = _new_totals()
    _adder(totals)(record)
    seated, winners, leaders, deaths, red_deaths, compensations, extra, pending = totals
    return GameTally(
        game_id=record.id,
        players=seated[0],
        winners=winners[0] if winners else (),
        leader=leaders[0] if leaders else None,
        first_killed=deaths[0] if deaths else None,
        first_killed_red=bool(red_deaths),
        compensated=bool(compensations),
        extra=tuple(extra.items()),
        pending=bool(pending),
    )


# Per player in a RunningTally: games, wins, wins as sheriff/don, first-night deaths,
# i (8.6.1), games compensating him, extra points in hundredths.
_GAMES, _WINS, _LEADS, _DEATHS, _I, _K, _EXTRA = range(7)


class RunningTally:
    """The standings' totals kept up to date game by game.

    ``add`` and ``remove`` a game's ``GameTally`` as games are saved, corrected or
    annulled; ``standings()`` then gives exactly what ``standings_of_records`` gives for
    the records whose tallies are in it. Only the rows of players whose games changed
    since the last ``standings()`` are recomputed, so that one saved game costs its ten
    players plus the ordering, not the whole tournament.
    """

    __slots__ = ("_changed", "_counts", "_ranking", "_rows", "_rules")

    def __init__(self) -> None:
        self._counts: dict[str, list[int]] = {}
        self._changed: set[str] = set()
        self._rows: dict[str, RawRow] = {}
        self._rules: Ruleset | None = None
        self._ranking = _Ranking()

    def add(self, tally: GameTally) -> None:
        self._apply(tally, 1)

    def remove(self, tally: GameTally) -> None:
        """Take out a tally added before (an unknown one leaves the totals wrong)."""
        self._apply(tally, -1)

    def first_night_red(self, player: str) -> int:
        """i of 8.6.1 (D1): the player's first-night deaths as a civilian or the sheriff."""
        counts = self._counts.get(player)
        return 0 if counts is None else counts[_I]

    def _apply(self, tally: GameTally, sign: int) -> None:
        counts = self._counts
        for player in tally.players:
            mine = counts.get(player)
            if mine is None:
                mine = counts[player] = [0] * 7
            mine[_GAMES] += sign
        # Everyone below is seated in the game, so has his counts now.
        for player in tally.winners:
            counts[player][_WINS] += sign
        if tally.leader is not None:
            counts[tally.leader][_LEADS] += sign
        first = tally.first_killed
        if first is not None:
            mine = counts[first]
            mine[_DEATHS] += sign
            if tally.first_killed_red:
                mine[_I] += sign
                if tally.compensated:
                    mine[_K] += sign
        for player, hundredths in tally.extra:
            counts[player][_EXTRA] += sign * hundredths
        self._changed.update(tally.players)

    def standings(
        self, rules: Ruleset, lot: Sequence[str] = (), pending_games: Sequence[str] = ()
    ) -> Standings:
        """The standings of the games in the tally. ``pending_games`` are the ids of its
        games that wait for an approval (``GameTally.pending``), in the tournament's order:
        the tally keeps no order of games."""
        rows = self._rows
        changed: Iterable[str] = self._changed
        everything = rules != self._rules
        if everything:  # every Ci changes with B (8.6.1, D2) or compensation (D14)
            rows.clear()
            changed = list(self._counts)
            self._rules = rules
        counts = self._counts
        for player in changed:
            mine = counts.get(player)
            if mine is None or not mine[_GAMES]:
                counts.pop(player, None)
                rows.pop(player, None)
            else:
                rows[player] = _row(player, rules, *mine)
        placed = self._ranking.placed(rows, changed, tuple(lot), everything=everything)
        self._changed.clear()
        return Standings(B=rules.B, rows=placed, pending_games=tuple(pending_games))


# Where a row goes: 8.7 (total), 8.7.1 (extra), 8.7.2 (wins), 8.7.3 (wins as sheriff or
# don), 8.7.4 (first-night deaths), its place in the lot (8.7.5), then its name.
RankKey = tuple[int, int, Count, Count, Count, int, str]


def _drawn(lot: Sequence[str]) -> dict[str, int]:
    """Each player's first position in the lot (8.7.5, D12)."""
    drawn: dict[str, int] = {}
    for position, name in enumerate(lot):
        drawn.setdefault(name, position)
    return drawn


def _rank_key(row: RawRow, scale: int, drawn: dict[str, int]) -> RankKey:
    """``row``'s place in the order (smaller first). ``scale``: a common multiple of the
    denominators of every total and extra, so that they compare exactly as integers."""
    player, total, _main, extra, _ci, won, won_leading, deaths, _games = row
    return (
        -(total.numerator * (scale // total.denominator)),  # 8.7
        -(extra.numerator * (scale // extra.denominator)),  # 8.7.1
        -won,  # 8.7.2
        -won_leading,  # 8.7.3
        -deaths,  # 8.7.4
        drawn.get(player, len(drawn)),  # 8.7.5
        player,  # still tied: listed by name
    )


def _tied(previous: RankKey, row_key: RankKey, drawn: dict[str, int]) -> bool:
    """Whether the row of ``row_key`` shares the place of the row above it, of
    ``previous``: equal by 8.7-8.7.4, and the lot (8.7.5) does not order them."""
    return (
        row_key[0] == previous[0]  # (the totals differ most often: asked first)
        and row_key[1:5] == previous[1:5]
        and row_key[6] not in drawn
        and row_key[5] == previous[5]
    )


def _places(keys: Iterable[RankKey], drawn: dict[str, int]) -> Iterator[int]:
    """The place of each key of ``keys`` (in order): players equal by 8.7-8.7.4 whom the
    lot does not order share a place."""
    previous: RankKey | None = None
    place = 0
    for position, row_key in enumerate(keys, start=1):
        if previous is None or not _tied(previous, row_key, drawn):
            place = position
        previous = row_key
        yield place


def _scale(rows: Iterable[RawRow]) -> int:
    return lcm(*chain.from_iterable((row[1].denominator, row[3].denominator) for row in rows), 1)


def placed_rows(rows: list[RawRow], lot: Sequence[str]) -> tuple[StandingRow, ...]:
    """Order by 8.7-8.7.4, then the lot (8.7.5); players still tied share a place."""
    scale = _scale(rows)
    drawn = _drawn(lot)
    keyed = sorted((_rank_key(row, scale, drawn), row) for row in rows)
    places = _places((row_key for row_key, _row in keyed), drawn)
    return tuple(
        StandingRow(place, *row) for place, (_key, row) in zip(places, keyed, strict=False)
    )


class _Ranking:
    """``placed_rows`` of a ``RunningTally``'s rows, kept in order from one call to the
    next: only the rows that changed move (a bisection each), and only they and the rows
    whose place they shift are made anew (``_replaced``). The same functions as
    ``placed_rows`` decide the order and the places."""

    __slots__ = ("_drawn", "_keys", "_lot", "_order", "_scale", "_shown")

    def __init__(self) -> None:
        self._lot: tuple[str, ...] = ()
        self._drawn: dict[str, int] = {}
        self._scale = 1
        self._keys: dict[str, RankKey] = {}  # player -> his key in ``_order``
        self._order: list[RankKey] = []
        self._shown: list[StandingRow] = []  # the rows placed last, in ``_order``'s order

    def placed(
        self, rows: dict[str, RawRow], changed: Iterable[str], lot: tuple[str, ...],
        *, everything: bool,
    ) -> tuple[StandingRow, ...]:
        """The placed rows of ``rows``, of which ``changed`` (players) changed since the
        last call (all of them with ``everything``)."""
        if lot != self._lot:
            self._lot, self._drawn, everything = lot, _drawn(lot), True
        scale, keys, order, drawn = self._scale, self._keys, self._order, self._drawn
        if not everything:
            for player in changed:
                row = rows.get(player)
                if row is not None and (scale % row[1].denominator or scale % row[3].denominator):
                    everything = True  # a new denominator: every key is scaled anew
                    break
        if everything:
            self._scale = scale = _scale(rows.values())
            keys.clear()
            keys.update((p, _rank_key(row, scale, drawn)) for p, row in rows.items())
            order[:] = sorted(keys.values())
            self._shown = [
                StandingRow(place, *rows[key[6]])
                for place, key in zip(_places(order, drawn), order, strict=False)
            ]
            return tuple(self._shown)
        before = order[:]
        gone: list[int] = []  # where the rows that changed stood in ``before``
        moved: list[RankKey] = []
        for player in changed:
            old = keys.pop(player, None)
            if old is not None:
                gone.append(bisect_left(before, old))
                del order[bisect_left(order, old)]
            row = rows.get(player)
            if row is not None:
                key = keys[player] = _rank_key(row, scale, drawn)
                insort(order, key)
                moved.append(key)
        fresh = sorted(bisect_left(order, key) for key in moved)
        self._shown = _replaced(order, rows, drawn, self._shown, sorted(gone), fresh)
        return tuple(self._shown)


def _replaced(
    order: list[RankKey],
    rows: dict[str, RawRow],
    drawn: dict[str, int],
    before: list[StandingRow],
    gone: list[int],
    fresh: list[int],
) -> list[StandingRow]:
    """The rows placed in ``order``, from the rows placed ``before`` but for the ones at
    ``gone`` there, and the rows that changed, at ``fresh`` in ``order`` (both sorted).

    Between them the rows are those of ``before`` in the same order: a run of them
    keeps its rows when it stands where it stood and its first row keeps its place;
    else its first row's place is counted again (tied to the row above it or not),
    the rows tied to that one share it, and every other row's place moves by as many
    places as the run moved (its ties are the ones it had)."""
    shown: list[StandingRow] = []
    n, f, g, i, o = len(order), 0, 0, 0, 0
    while i < n:
        tied = i > 0 and _tied(order[i - 1], order[i], drawn)
        place = shown[-1].place if tied else i + 1
        if f < len(fresh) and fresh[f] == i:  # a row that changed
            shown.append(StandingRow(place, *rows[order[i][6]]))
            f, i = f + 1, i + 1
            continue
        while g < len(gone) and gone[g] == o:
            g, o = g + 1, o + 1
        length = min(
            (fresh[f] if f < len(fresh) else n) - i, (gone[g] if g < len(gone) else len(before)) - o
        )
        run = before[o : o + length]
        first, shift = run[0].place, i - o
        if shift == 0 and place == first:
            shown.extend(run)
        else:
            shown.extend(
                StandingRow(place if row.place == first else row.place + shift, *row[1:])
                for row in run
            )
        i, o = i + length, o + length
    return shown
