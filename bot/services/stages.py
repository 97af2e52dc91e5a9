"""Stages (docs/rules.md D13-D17): the chief judge adds the next stage (a preset or typed
values), changes a stage until its first game is saved, and closes the current one.

A tournament without stages is one stage over its distance; adding the first later
stage also stores that first one (the qualifying, all players, running), so every
game saved before stays in it (games.stage NULL is the first stage).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial

from bot.db import players as players_db
from bot.db import stages as stages_db
from bot.db.audit import record
from bot.db.connection import Conn, Database
from bot.db.games import game_code
from bot.db.stages import Entered, StageRow, StageSpec
from bot.db.tournaments import TournamentRow
from bot.reads.standings import StandingsService
from bot.services import N_, Refusal
from bot.services.notices import FollowUp, Notice, Outbox, notice_to
from bot.services.phrases import Joined, Phrase, StageName, Verbatim, listed
from bot.services.stage_settings import apply_settings
from scoring import InvalidGameError, StandingRow, Standings, cut

FIRST_NAME = "qualifying"  # the implicit first stage, once stored (translated when shown)
NAME_MAX = 32


# The presets' buttons. A final is one table (10 entrants, D13); compensation is off in
# a final of fewer than 4 games (D14: usual) and its standings are hidden (D17: usual).
PRESETS: Mapping[str, StageSpec] = {
    "semi20": StageSpec("semifinal", 2, 20),
    "final2": StageSpec("final", 2, 10, compensation=False, hidden=True),
    "final4": StageSpec("final", 4, 10, hidden=True),
}


@dataclass(frozen=True, slots=True)
class Changed:
    stage: StageRow
    follow_up: FollowUp  # the group's standings name the stages


async def _players_before(conn: Conn, tournament: TournamentRow, rows: Sequence[StageRow]) -> int:
    """How many play the stage before the next one: its entrants, or all confirmed
    players for the first stage (D13)."""
    last = rows[-1] if rows else None
    if last is not None and last.entrants is not None:
        return last.entrants
    return await players_db.count_players(conn, tournament.id, status="confirmed")


def _check(spec: StageSpec, first: bool, before: int, names: Sequence[str]) -> Refusal | None:
    if not 1 <= len(spec.name) <= NAME_MAX:
        return Refusal(N_("A stage's name is 1 to 32 characters."))
    if first and spec.entrants is not None:
        return Refusal(
            N_("The first stage's entrants are all players: it takes no entrants.")
        )
    if not first and spec.entrants is None:
        return Refusal(N_("A later stage needs its entrants: entrants=N."))
    if spec.entrants is not None and spec.entrants > before:
        return Refusal(
            N_("{entrants} entrants, but the stage before has only {players} players."),
            {"entrants": spec.entrants, "players": before},
        )
    if spec.name in names:
        return Refusal(
            N_("The tournament has a stage named {name} already."),
            {"name": Verbatim(spec.name)},
        )
    return None


async def add_stage(
    db: Database,
    publisher: Outbox,
    tournament: TournamentRow,
    spec: StageSpec,
    actor_id: int,
) -> Changed | Refusal:
    """Append the stage ``spec`` after the last one (storing the first stage too when
    the tournament had none)."""
    if tournament.status == "finished":
        return Refusal(N_("The tournament is finished; its stages can't change."))
    async with db.transaction() as conn:
        rows = await stages_db.list_stages(conn, tournament.id)
        current = stages_db.current_stage(rows)
        unsettled = await stages_db.unsettled_games(
            conn, tournament.id, 1 if current is None else current.number
        )
        if unsettled:
            return Refusal(
                N_(
                    "Games of the current stage wait for the chief judge's approval of "
                    "judge's points above 0.5: {games}. Approve or lower them first."
                ),
                {"games": ", ".join(game_code(r, t) for r, t in unsettled)},
            )
        before = await _players_before(conn, tournament, rows)
        refused = _check(spec, False, before, [row.name for row in rows] or [FIRST_NAME])
        if refused is not None:
            return refused
        if not rows:
            spec_1 = StageSpec(FIRST_NAME, tournament.distance, None)
            first = await stages_db.add_stage(conn, tournament.id, spec_1, status="running")
            await record(conn, "stage.add", first.id, tournament.id, actor_id, after=asdict(first))
        row = await stages_db.add_stage(conn, tournament.id, spec)
        await record(conn, "stage.add", row.id, tournament.id, actor_id, after=asdict(row))
        await publisher.enqueue(conn, tournament.id, standings=True)
    return Changed(row, FollowUp(tournament_id=tournament.id))


async def change_stage(
    db: Database,
    publisher: Outbox,
    tournament: TournamentRow,
    number: int,
    settings: Mapping[str, str],
    actor_id: int,
) -> Changed | Refusal:
    """Change stage ``number`` until its first game is saved."""
    if tournament.status == "finished":
        return Refusal(N_("The tournament is finished; its stages can't change."))
    async with db.transaction() as conn:
        rows = await stages_db.list_stages(conn, tournament.id)
        row = await _changeable(conn, tournament, rows, number)
        if isinstance(row, Refusal):
            return row
        spec = apply_settings(row.spec, settings)
        if isinstance(spec, Refusal):
            return spec
        if spec == row.spec:  # a value tapped again: nothing to record or to post
            return Changed(row, FollowUp())
        before = await _players_before(conn, tournament, rows[: number - 1])
        others = [other.name for other in rows if other.id != row.id]
        refused = _check(spec, number == 1, before, others)
        if refused is not None:
            return refused
        if number > 1 and spec.entrants is not None and number < len(rows):
            after = rows[number].entrants
            if after is not None and after > spec.entrants:
                return Refusal(
                    N_("{entrants} entrants, but the stage after takes {after} of them."),
                    {"entrants": spec.entrants, "after": after},
                )
        changed = await stages_db.update_stage(conn, row.id, spec)
        await record(
            conn,
            "stage.change",
            row.id,
            tournament.id,
            actor_id,
            before=asdict(row),
            after=asdict(changed),
        )
        await publisher.enqueue(conn, tournament.id, standings=True)
    return Changed(changed, FollowUp(tournament_id=tournament.id))


async def _changeable(
    conn: Conn, tournament: TournamentRow, rows: Sequence[StageRow], number: int
) -> StageRow | Refusal:
    """Stage ``number``, if it may still change: it exists and no game of it is saved."""
    if not 1 <= number <= len(rows):
        return Refusal(
            N_("The tournament has no stage {number}; /stages lists them."), {"number": number}
        )
    row = rows[number - 1]
    played = await stages_db.games_of_stage(conn, tournament.id, number)
    if played or row.status == "closed":
        return Refusal(
            N_("Stage {number} has games already: it can no longer be changed."),
            {"number": number},
        )
    return row


@dataclass(frozen=True, slots=True)
class Settable:
    """A stage as its settings card shows it."""

    rows: tuple[StageRow, ...]  # every stage, for the card's list
    stage: StageRow
    fixed: Refusal | None  # why it can no longer change; None: it may
    entrants: tuple[int, int]  # the entrants it may take: the stage after's to those before


async def settable(db: Database, tournament: TournamentRow, number: int) -> Settable | Refusal:
    """Stage ``number``'s settings card: what it holds and what it may become."""
    async with db.read() as conn:
        rows = await stages_db.list_stages(conn, tournament.id)
        found = await _changeable(conn, tournament, rows, number)
        if isinstance(found, Refusal) and not 1 <= number <= len(rows):
            return found
        row = rows[number - 1]
        before = await _players_before(conn, tournament, rows[: number - 1])
    after = rows[number].entrants if number < len(rows) else None
    fixed = found if isinstance(found, Refusal) else None
    return Settable(tuple(rows), row, fixed, (min(after or 1, before), before))


async def changeable(db: Database, tournament: TournamentRow) -> list[StageRow]:
    """The stages that may still change: none of their games is saved."""
    async with db.read() as conn:
        rows = await stages_db.list_stages(conn, tournament.id)
        return [
            row
            for row in rows
            if not isinstance(await _changeable(conn, tournament, rows, row.number), Refusal)
        ]


async def stages_of(db: Database, tournament: TournamentRow) -> list[StageRow]:
    """The tournament's stages in order; [] while it is one stage."""
    async with db.read() as conn:
        return await stages_db.list_stages(conn, tournament.id)


# -- closing a stage (D13) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Preview:
    """Who enters the next stage if the current one closes now (D13)."""

    current: StageRow
    following: StageRow
    entrants: tuple[str, ...]  # in the current stage's order
    tied: tuple[str, ...]  # sharing the place across the cut: a lot must decide (8.7.5)


@dataclass(frozen=True, slots=True)
class Closed:
    preview: Preview
    follow_up: FollowUp  # the group's note, each linked entrant's notice


async def _blockers(conn: Conn, tournament_id: int, stage: StageRow) -> Refusal | None:
    """Open protests and games awaiting approval keep a stage from closing: either may
    still change its standings, so its cut."""
    protests = await stages_db.open_protests(conn, tournament_id, stage.number)
    unsettled = await stages_db.unsettled_games(conn, tournament_id, stage.number)
    if not protests and not unsettled:
        return None
    parts = []
    if protests:
        parts.append(Phrase(
            N_("open protests (8.8) on {games}: decide them with /protests"),
            {"games": ", ".join(game_code(r, t) for _id, r, t in protests)},
        ))
    if unsettled:
        parts.append(Phrase(
            N_(
                "judge's points above 0.5 awaiting approval in {games}: approve or "
                "lower them on the requests sent to you, or correct the game with /games"
            ),
            {"games": ", ".join(game_code(r, t) for r, t in unsettled)},
        ))
    return Refusal(
        N_("The {stage} stage can't close yet: {blockers}."),
        {"stage": StageName(stage.name), "blockers": Joined(tuple(parts), "; ")},
    )


async def close_preview(
    db: Database, standings: StandingsService, tournament: TournamentRow
) -> Preview | Refusal:
    """The cut of the current stage at the next stage's entrants (D13)."""
    try:
        ts = await standings.get(tournament.id)
    except InvalidGameError:
        return Refusal(N_("The standings can't be computed until a stored game is corrected."))
    view = ts.stage
    if view is None:
        return Refusal(N_("The tournament has one stage: add the next with /stages first."))
    current = view.row
    if current.number == view.count or current.status == "closed":
        return Refusal(N_("This is the last stage: it ends with the tournament (/tournament)."))
    following = view.rows[current.number]
    assert following.entrants is not None  # a later stage has its entrants (schema)
    async with db.read() as conn:
        refused = await _blockers(conn, tournament.id, current)
    if refused is not None:
        return refused
    taken = cut(ts.standings, following.entrants)
    return Preview(current, following, taken.entrants, taken.tied)


def _entered_by_lot(standings: Standings, size: int) -> frozenset[str]:
    """The entrants level with the first one left out on every figure of 8.7.1-8.7.4:
    the lot (8.7.5) let them in."""
    rows = standings.rows
    if size >= len(rows):
        return frozenset()
    out = rows[size]

    def figures(row: StandingRow) -> tuple[object, ...]:
        return (row.total, row.extra, row.wins, row.wins_don_sheriff, row.first_night_deaths)

    return frozenset(row.player for row in rows[:size] if figures(row) == figures(out))


async def close_stage(
    db: Database,
    standings: StandingsService,
    publisher: Outbox,
    tournament: TournamentRow,
    number: int,
    actor_id: int,
) -> Closed | Refusal:
    """Close stage ``number`` (the current one): store the next stage's entrants (D13),
    tell the group and each linked entrant."""
    preview = await close_preview(db, standings, tournament)
    if isinstance(preview, Refusal):
        return preview
    if preview.current.number != number:
        return Refusal(
            N_("This card is out of date: the stages changed. Send /stages close again.")
        )
    if preview.tied:
        return Refusal(
            N_("{players} share the place across the cut: draw their lot with /lot first (8.7.5)."),
            {"players": listed(preview.tied)},
        )
    ts = await standings.get(tournament.id)
    by_lot = _entered_by_lot(ts.standings, len(preview.entrants))
    notices: list[Notice] = []
    async with db.transaction() as conn:
        current = await stages_db.get_stage(conn, preview.current.id)
        if current is None or current.status == "closed":
            return Refusal(N_("This stage is closed already."))
        refused = await _blockers(conn, tournament.id, current)
        if refused is not None:
            return refused
        ids = {p.nickname: p for p in await players_db.list_players(conn, tournament.id)}
        entering = Phrase(
            N_("{title}: you enter the {stage} stage."),
            {"title": Verbatim(tournament.title), "stage": StageName(preview.following.name)},
        )
        for name in preview.entrants:
            entered: Entered = "lot" if name in by_lot else "cut"
            await stages_db.add_entrant(conn, preview.following.id, ids[name].id, entered)
            notices += await notice_to(conn, ids[name].user_id, entering)
        await stages_db.set_status(conn, current.id, "closed")
        await stages_db.set_status(conn, preview.following.id, "running")
        after = {"entrants": list(preview.entrants), "by_lot": sorted(by_lot)}
        await record(conn, "stage.close", current.id, tournament.id, actor_id, after=after)
        note = Phrase(
            N_("The {stage} stage is closed. Entering the {next} stage: {players}."),
            {
                "stage": StageName(current.name),
                "next": StageName(preview.following.name),
                "players": listed(preview.entrants),
            },
        )
        await publisher.enqueue(
            conn, tournament.id, note=note, standings=True, cut=current.number
        )
    follow_up = FollowUp(tuple(notices), tournament.id, now=True)
    return Closed(preview, follow_up)


@dataclass(frozen=True, slots=True)
class Replaced:
    out: str
    into: str
    follow_up: FollowUp


async def replace_entrant(
    db: Database,
    standings: StandingsService,
    publisher: Outbox,
    tournament: TournamentRow,
    nickname: str,
    actor_id: int,
) -> Replaced | Refusal:
    """D13: the withdrawn entrant ``nickname`` of the current stage gives his place to
    the best player of the stage before who is not an entrant."""
    try:
        ts = await standings.get(tournament.id)
    except InvalidGameError:
        return Refusal(N_("The standings can't be computed until a stored game is corrected."))
    view = ts.stage
    if view is None or view.row.entrants is None:
        return Refusal(N_("Only an entrant of a later stage is replaced."))
    done = view.staged.stages
    current, before = done[view.row.number - 1], done[view.row.number - 2]
    if nickname not in current.entrants:
        return Refusal(
            N_("{player} is not an entrant of the current stage."),
            {"player": Verbatim(nickname)},
        )
    row = next(r for r in current.standings.rows if r.player == nickname)
    if row.games:
        return Refusal(
            N_("{player} has played in this stage already; he can't be replaced."),
            {"player": Verbatim(nickname)},
        )
    if nickname in current.stage.replaced.values():
        return Refusal(
            N_("{player} took a withdrawn entrant's place; he can't be replaced in turn."),
            {"player": Verbatim(nickname)},
        )
    taken = set(current.entrants) | set(current.stage.replaced)
    into = next((r.player for r in before.standings.rows if r.player not in taken), None)
    if into is None:
        return Refusal(N_("Nobody of the stage before is left to take his place."))
    async with db.transaction() as conn:
        ids = {p.nickname: p for p in await players_db.list_players(conn, tournament.id)}
        out_id, into_id = ids[nickname].id, ids[into].id
        await stages_db.remove_entrant(conn, view.row.id, out_id)
        await stages_db.add_entrant(conn, view.row.id, into_id, "replacement", out_id)
        after = {"out": nickname, "into": into, "stage": view.row.name}
        await record(conn, "stage.replace", view.row.id, tournament.id, actor_id, after=after)
        stage = StageName(view.row.name)
        told = Phrase(
            N_("{title}: you enter the {stage} stage in place of {player}."),
            {"title": Verbatim(tournament.title), "stage": stage, "player": Verbatim(nickname)},
        )
        notices = await notice_to(conn, ids[into].user_id, told)
        note = Phrase(
            N_("{into} enters the {stage} stage in place of {out}, who withdrew."),
            {"into": Verbatim(into), "out": Verbatim(nickname), "stage": stage},
        )
        await publisher.enqueue(conn, tournament.id, note=note, standings=True)
    return Replaced(nickname, into, FollowUp(notices, tournament.id, now=True))


async def seating_entrants(
    db: Database, tournament_id: int, game_id: int | None
) -> tuple[str, frozenset[int]] | None:
    """Who may sit at a game of the current stage (or of ``game_id``'s stage): its name
    and its entrants' ids (D13); None when anybody may. The card asks on every seating
    tap: kept until a transaction commits (``Database.cached``)."""
    return await db.cached(
        ("stages.seating_entrants", tournament_id, game_id),
        partial(stages_db.seating_entrants, tournament_id=tournament_id, game_id=game_id),
    )


async def _first_round(db: Database, tournament_id: int) -> tuple[StageRow | None, int]:
    """The current stage (None while the tournament is one stage or in its first) and
    the first round its games may take: after every earlier stage's rounds (D13). Kept
    until a transaction commits (a stage or a game stored)."""
    return await db.cached(
        ("stages.first_round", tournament_id),
        partial(_read_first_round, tournament_id=tournament_id),
    )


async def _read_first_round(conn: Conn, *, tournament_id: int) -> tuple[StageRow | None, int]:
    current = stages_db.current_stage(await stages_db.list_stages(conn, tournament_id))
    if current is None or current.number == 1:
        return None, 1
    last = await stages_db.last_rounds(conn, tournament_id)
    return current, max((r for n, r in last.items() if n < current.number), default=0) + 1


async def first_round(db: Database, tournament_id: int) -> int:
    """The first round a new game of the current stage may take (D13)."""
    return (await _first_round(db, tournament_id))[1]


async def round_refusal(db: Database, tournament_id: int, round_no: int) -> Refusal | None:
    """A new game of a later stage can't take a round of an earlier one (D13): the
    stage's rounds come after theirs, as its seating plan numbers them."""
    current, first = await _first_round(db, tournament_id)
    if current is None or round_no >= first:
        return None
    earlier = first - 1
    return Refusal(
        N_(
            "Round {round} belongs to an earlier stage. The {stage} stage's rounds come "
            "after round {last}: type its round, e.g. <code>{next} 1</code>."
        ),
        {
            "round": round_no,
            "stage": StageName(current.name),
            "last": earlier,
            "next": earlier + 1,
        },
    )
