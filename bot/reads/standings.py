"""The current standings of each tournament, from the database through the scoring engine.

Every reader (/rating, the chat's live standings, the review card) asks here; a save,
a correction, an annulment, a protest decision or a lot calls ``invalidate`` so the
next reader recomputes.

Recomputing is incremental, so that the standings follow a Save within milliseconds
however many games the tournament has. Per tournament the service keeps the games it
has read, scored once by a ``scoring.ScoredGames``, and where it stopped in the
database's change feed of games (``game_changes``: triggers add every write of a game
or its seats, whoever writes them). A recompute reads the distance, the roster's
version, the lots (if any) and the games written since; reads again only those of
them that count, drops those that no longer do (annulled, deleted), and lets the engine
redo only what they touch. A renamed player (names are part of the model) makes it read
every game again; the engine still rescores only the games that differ.
"""

from __future__ import annotations

import asyncio
import json
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.db.connection import Database, fetch_one
from bot.db.errors import NotFound
from bot.db.lots import LotRow, lots_for_tournament
from bot.db.scoring_bridge import StoredGame, load_stored_games, merge_lots, player_names
from bot.db.stages import StageRow, current_stage, game_stages, list_stages, replacements
from bot.db.tournaments import TournamentRow
from scoring import (
    Game,
    GameBreakdown,
    ScoredGames,
    Stage,
    StagedStandings,
    Standings,
    Tournament,
    cut,
    tournament_breakdowns,
    tournament_standings,
)

# In one trip: the tournament's distance and roster version, the newest change of the
# feed and the games written after ``since`` (none when it is NULL), and whether the
# tournament has stages to read.
_HEAD_SQL = """
SELECT distance, roster_version, (SELECT coalesce(max(seq), 0) FROM game_changes),
       (SELECT json_group_array(game_id) FROM game_changes WHERE seq > :since),
       EXISTS (SELECT 1 FROM stages WHERE tournament_id = :id),
       EXISTS (SELECT 1 FROM lots WHERE tournament_id = :id)
FROM tournaments WHERE id = :id
"""


@dataclass(frozen=True, slots=True)
class StageView:
    """The current stage of a tournament of stages (D13-D17), as readers show it."""

    row: StageRow
    count: int  # stages in all
    before: str | None  # the name of the stage before; None for the first
    staged: StagedStandings  # every stage's standings and the final ones (D16)
    rows: tuple[StageRow, ...]  # every stage, in order

    @property
    def finished(self) -> bool:
        """Every stage closed: readers get the final standings (D16)."""
        return all(row.status == "closed" for row in self.rows)

    @property
    def carried(self) -> bool:
        """Whether the figures hold a part brought from the stage before (D15)."""
        return not self.finished and self.before is not None and self.row.rules.carry != 0


@dataclass(frozen=True, slots=True)
class TournamentStandings:
    # The games that count, in round/table order; with stages, the current stage's games
    # under its distance (D14).
    tournament: Tournament
    standings: Standings  # with stages, the current stage's standings (D15)
    stage: StageView | None = field(default=None, kw_only=True)  # None: no stages
    # What computes breakdowns() the first time (by default, from ``tournament``).
    _compute: Callable[[], dict[str, GameBreakdown]] | None = field(
        default=None, repr=False, compare=False, kw_only=True
    )
    _breakdowns: dict[str, GameBreakdown] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    # What computes breakdowns_of() while breakdowns() has not been asked: None when
    # the games have changed since (then from breakdowns()).
    _compute_some: Callable[[Collection[str]], dict[str, GameBreakdown] | None] | None = field(
        default=None, repr=False, compare=False, kw_only=True
    )

    def breakdowns(self) -> dict[str, GameBreakdown]:
        """Every game's per-seat points with the current Ci (D1); for /rating in private.

        Computed once per result; every call gets its own copy of the dict.
        """
        found = self._breakdowns
        if found is None:
            compute = self._compute
            found = compute() if compute is not None else tournament_breakdowns(self.tournament)
            object.__setattr__(self, "_breakdowns", found)  # a cache, not a change of value
        return dict(found)

    def breakdowns_of(self, codes: Iterable[str]) -> dict[str, GameBreakdown]:
        """The breakdowns of the games of ``codes`` (those that count), as ``breakdowns``
        gives them; for a player's games in /rating. Only these are computed: the
        whole tournament's would keep ten seats' points of every game in memory."""
        wanted = set(codes)
        compute = self._compute_some
        if self._breakdowns is None and compute is not None:
            found = compute(wanted)
            if found is not None:
                return found
        every = self.breakdowns()
        return {code: every[code] for code in every if code in wanted}


def lot_due(tournament: TournamentRow, ts: TournamentStandings) -> bool:
    """Whether a lot (8.7.5, D12) decides anything yet: only once the tournament has
    played its distance, that is every player with a counted game has played the
    distance's games (the places are then final but for the lot), or the chief judge
    has finished the tournament. Before that a tie is passing: the next game may
    break it, and a lot drawn for it would decide nothing."""
    if tournament.kind == "evening":
        return False  # a club evening's equal standings share a place (docs/club.md)
    if tournament.status == "finished":
        return True
    rows = ts.standings.rows
    if not rows:
        return False
    distance = ts.tournament.distance
    stage = ts.stage
    if stage is not None:  # D13, D14: the current stage's distance, and its cut
        distance = stage.row.games_per_player
        following = [r for r in stage.rows if r.number == stage.row.number + 1]
        if following and following[0].entrants and cut(ts.standings, following[0].entrants).tied:
            return True  # the lot decides who enters the next stage
    return all(row.games >= distance for row in rows)


class _Loaded:
    """One tournament's games as last read, in round/table order, and their scores."""

    __slots__ = ("games", "held", "ids", "names", "places", "roster", "scored", "seq")

    def __init__(self, roster: int, names: dict[int, str]) -> None:
        self.roster = roster
        self.names = names  # player id → nickname, as in the games held
        self.seq = 0  # the change feed's newest seq when the games were read
        self.held: dict[int, tuple[int, int, int]] = {}  # game id → its place
        # Three lists in round/table order: (round, table_no, game id), the game id,
        # the game; kept sorted by insertion, so a saved game costs no sort.
        self.places: list[tuple[int, int, int]] = []
        self.ids: list[int] = []
        self.games: list[Game] = []
        self.scored = ScoredGames()

    def update(
        self, gone: Iterable[int], read: Sequence[StoredGame], *, everything: bool = False
    ) -> None:
        """Drop the games ``gone`` (annulled); add or replace the games ``read``. With
        ``everything``, ``read`` is every game that counts, in round/table order, and
        the games held that it lacks are gone."""
        if everything:
            kept = {stored.id for stored in read}
            gone = [game_id for game_id in self.held if game_id not in kept]
            # Appended in order below; the engine still rescores only what differs.
            for kept_so_far in (self.held, self.places, self.ids, self.games):
                kept_so_far.clear()
        for game_id in gone:
            self._remove(game_id)
            self.scored.discard(game_id)
        for stored in read:
            self._remove(stored.id)
            place = (stored.round, stored.table_no, stored.id)
            at = bisect_left(self.places, place)
            self.places.insert(at, place)
            self.ids.insert(at, stored.id)
            self.games.insert(at, stored.game)
            self.held[stored.id] = place
            self.scored.put(stored.id, stored.game)

    def _remove(self, game_id: int) -> None:
        place = self.held.pop(game_id, None)
        if place is None:
            return
        at = bisect_left(self.places, place)
        del self.places[at], self.ids[at], self.games[at]


def _renamed(held: Mapping[int, str], now: Mapping[int, str]) -> bool:
    # A player who is gone played no game (his seats would keep him), so only a
    # changed nickname matters.
    return any(now.get(pid, name) != name for pid, name in held.items())


class StandingsService:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._cache: dict[int, TournamentStandings] = {}
        self._versions: dict[int, int] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._loaded: dict[int, _Loaded] = {}

    def invalidate(self, tournament_id: int) -> None:
        self._versions[tournament_id] = self._versions.get(tournament_id, 0) + 1
        self._cache.pop(tournament_id, None)

    async def get(self, tournament_id: int) -> TournamentStandings:
        cached = self._cache.get(tournament_id)
        if cached is not None:
            return cached
        # One recomputation at a time per tournament: ten readers after a save share it.
        lock = self._locks.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            cached = self._cache.get(tournament_id)
            if cached is not None:
                return cached
            version = self._versions.get(tournament_id, 0)
            result = await self._recompute(tournament_id)
            # A save that landed while we computed makes this result stale: don't keep it.
            # (The games kept are not: the change feed says what the next recompute rereads.)
            if self._versions.get(tournament_id, 0) == version:
                self._cache[tournament_id] = result
            return result

    async def _recompute(self, tid: int) -> TournamentStandings:
        loaded = self._loaded.get(tid)
        async with self._db.read() as conn:
            since = None if loaded is None else loaded.seq
            head = await fetch_one(conn, _HEAD_SQL, {"id": tid, "since": since})
            if head is None:
                self._loaded.pop(tid, None)
                raise NotFound("tournament", tid)
            distance, roster, seq = int(head[0]), int(head[1]), int(head[2])
            has_stages = bool(head[4])
            has_lots = bool(head[5])
            everything = loaded is None  # the first time: every game
            if loaded is None:
                loaded = _Loaded(roster, await player_names(conn, tid))
            names = loaded.names
            if loaded.roster != roster:
                names = await player_names(conn, tid)
                everything = everything or _renamed(loaded.names, names)
            gone: list[int] = []
            if everything:
                read = await load_stored_games(conn, tid, names)
            else:
                # The games written since the last read (of any tournament: those not
                # held and not of this one are read as nothing).
                changed = [int(game_id) for game_id in json.loads(head[3])]
                read = await load_stored_games(conn, tid, names, changed) if changed else []
                counted = {stored.id for stored in read}
                gone = [game_id for game_id in changed
                        if game_id in loaded.held and game_id not in counted]
            # Most tournaments draw no lot (8.7.5, D12) until their end: no read then.
            lots = await lots_for_tournament(conn, tid) if has_lots else []
            stage_rows = await list_stages(conn, tid) if has_stages else []
            of_game: dict[int, int] = {}
            replaced: dict[int, dict[str, str]] = {}
            if stage_rows:
                of_game = await game_stages(conn, tid)
                replaced = await replacements(conn, tid, stage_rows)
        # Nothing is changed before everything is read: a failed read leaves the games
        # kept as they were, with the names they were read with.
        self._loaded[tid] = loaded
        try:
            loaded.roster, loaded.names, loaded.seq = roster, names, seq
            loaded.update(gone, read, everything=everything)
        except BaseException:
            del self._loaded[tid]  # half-updated: start afresh next time
            raise
        scored, changes = loaded.scored, loaded.scored.changes

        def first_night_red(player: str) -> int | None:
            # i of 8.6.1 as kept by the engine, while it still describes these games.
            return scored.first_night_red(player) if scored.changes == changes else None

        tournament = Tournament(
            distance=distance, games=tuple(loaded.games), lot=merge_lots(lots, loaded.names),
            first_night_red=None if stage_rows else first_night_red,
        )
        if stage_rows:
            own_lots = stage_lots(lots, loaded.names)
            return _staged(stage_rows, tournament, loaded.ids, of_game, replaced, own_lots)
        order = tuple(loaded.ids)
        standings = scored.standings(  # InvalidGameError
            tournament.ruleset, order, tournament.lot, place_of=loaded.held.__getitem__
        )

        def breakdowns() -> dict[str, GameBreakdown]:
            if scored.changes != changes:  # games changed since: compute from this result's
                return tournament_breakdowns(tournament)
            return scored.breakdowns(tournament.ruleset, order)

        def breakdowns_of(codes: Collection[str]) -> dict[str, GameBreakdown] | None:
            if scored.changes != changes:
                return None
            keys = {key for key, game in zip(order, tournament.games, strict=True)
                    if game.id in codes}
            return scored.breakdowns(tournament.ruleset, order, only=keys)

        return TournamentStandings(
            tournament, standings, _compute=breakdowns, _compute_some=breakdowns_of
        )


def _staged(
    stage_rows: Sequence[StageRow],
    tournament: Tournament,
    ids: Sequence[int],
    of_game: Mapping[int, int],
    replaced: Mapping[int, Mapping[str, str]],
    lots: Mapping[int, tuple[str, ...]],
) -> TournamentStandings:
    """Every stage by the engine (D13-D16), each ordered by its own lot (``lots`` by
    stage number; D12, D15); the current stage's standings for readers. Recomputed
    whole: a tournament of stages plays its later stages on few tables."""
    stages: list[Stage] = [
        row.stage(replaced.get(row.number, {}), lots.get(row.number, ())) for row in stage_rows
    ]
    by_number = {row.number: row.name for row in stage_rows}
    pairs = [
        (by_number.get(of_game.get(game_id, 1), ""), game)
        for game_id, game in zip(ids, tournament.games, strict=True)
    ]
    staged = tournament_standings(stages, pairs)  # InvalidGameError: a game's rules or D13
    current = current_stage(list(stage_rows))
    assert current is not None
    index = current.number - 1
    own = tuple(game for (name, game) in pairs if name == current.name)
    view = StageView(
        current,
        len(stage_rows),
        stage_rows[index - 1].name if index else None,
        staged,
        tuple(stage_rows),
    )
    if view.finished:  # every stage closed: the tournament's final standings (D16)
        everything = Tournament(
            distance=tournament.distance, games=tournament.games, lot=tournament.lot
        )
        return TournamentStandings(
            everything,
            staged.final,
            stage=view,
            _compute=lambda: stage_breakdowns(stage_rows, pairs),
        )
    model = Tournament(
        distance=current.games_per_player, games=own, lot=lots.get(current.number, ())
    )
    return TournamentStandings(
        model,
        staged.stages[index].standings,
        stage=view,
        _compute=lambda: stage_breakdowns(stage_rows, pairs),
    )


def stage_lots(lots: Iterable[LotRow], names: Mapping[int, str]) -> dict[int, tuple[str, ...]]:
    """Each stage's own lot (8.7.5, D12, D15) by stage number, its draws merged."""
    by_stage: dict[int, list[LotRow]] = {}
    for lot in lots:
        by_stage.setdefault(lot.stage, []).append(lot)
    return {number: merge_lots(drawn, names) for number, drawn in by_stage.items()}


def stage_breakdowns(
    stage_rows: Sequence[StageRow], pairs: Sequence[tuple[str, Game]]
) -> dict[str, GameBreakdown]:
    """Every game's points within its stage ((stage name, game) ``pairs``): Ci by the
    stage's B and its own first-night deaths, none with compensation off (D14)."""
    found: dict[str, GameBreakdown] = {}
    for row in stage_rows:
        scored, order = ScoredGames(), []
        for name, game in pairs:
            if name == row.name:
                scored.put(game.id, game)
                order.append(game.id)
        found |= scored.breakdowns(row.rules, order)
    return found
