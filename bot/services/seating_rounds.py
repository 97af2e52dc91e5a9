"""Before each round the group gets its seating and every linked player his seat:
round 1 when a plan is accepted before any game, round r + 1 when a save completes round
r (``round_saved``), what changed when a re-plan changes an announced round.

The rows go into the outbox in the caller's transaction (the accept, a game's save);
the publisher draws them from the plan accepted when it posts (bot.publishing.posting).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.db import games as games_db
from bot.db import outbox
from bot.db import players as players_db
from bot.db.connection import Conn
from bot.db.players import PlayerRow
from bot.reads.stored_plans import StoredPlan, current_row, plan_from_dict, stored_plan

Position = tuple[int, int] | None  # (table, seat); None: he sits the round out
_ABSENT: Position = (0, 0)  # the round doesn't name him


def positions(stored: StoredPlan, round_no: int) -> dict[int, Position]:
    """Player id -> where he sits in the round; players it doesn't name are left out."""
    found: dict[int, Position] = {}
    for round_ in stored.plan.rounds:
        if round_.round != round_no:
            continue
        for table in round_.tables:
            for seat, name in enumerate(table.seats, start=1):
                found[stored.ids[name]] = (table.table, seat)
        found.update((stored.ids[name], None) for name in round_.sitting_out)
    return found


def _linked(everyone: Sequence[PlayerRow]) -> dict[int, int]:
    """Player id -> his Telegram account, for the players who linked one and play on (a
    withdrawn player is told nothing of the rounds he won't play)."""
    return {p.id: p.user_id for p in everyone if p.user_id is not None and p.plays_on}


async def _round_complete(
    conn: Conn, tournament_id: int, planned: set[int], round_no: int
) -> bool:
    """Every table the plan has in the round (``planned``) has a saved game (pending
    approval counts); only the round's games are read."""
    saved = {table for _game, _round, table, _stage in await games_db.round_tables(
        conn, tournament_id, [round_no])}
    return bool(planned) and planned <= saved


async def _announce(
    conn: Conn, tournament_id: int, stored: StoredPlan, round_no: int, users: Mapping[int, int]
) -> None:
    """The group gets the round's seating and each linked player of the round his seat
    (or that he sits out); once per round, whatever saves or accepts come again."""
    if not await outbox.mark_announced(conn, tournament_id, round_no):
        return
    await outbox.add_seating(conn, tournament_id, round_no)
    for player_id in positions(stored, round_no):
        if player_id in users:
            await outbox.add_seat(
                conn, tournament_id, round_no, player_id=player_id, user_id=users[player_id]
            )


async def _tell_changes(
    conn: Conn,
    tournament_id: int,
    round_no: int,
    before: Mapping[int, Position],
    after: Mapping[int, Position],
    users: Mapping[int, int],
) -> None:
    """A re-plan of an announced round: the group gets it again and the players whose
    place changed (moved, added, left out) are told, unless their message still waits
    (it is drawn from the new plan when posted)."""
    moved = sorted(p for p in {*before, *after} if before.get(p, _ABSENT) != after.get(p, _ABSENT))
    if not moved:
        return
    group_waits, players_wait = await outbox.seating_waiting(conn, tournament_id, round_no)
    if not group_waits:
        await outbox.add_seating(conn, tournament_id, round_no, changed=True)
    for player_id in moved:
        if player_id in users and player_id not in players_wait:
            await outbox.add_seat(
                conn, tournament_id, round_no, player_id=player_id, user_id=users[player_id],
                changed=True,
            )


async def tell_seating(
    conn: Conn,
    tournament_id: int,
    played: Sequence[int],
    before: StoredPlan | None,
    new: StoredPlan,
    first: int = 1,
) -> None:
    """Within the accept: the next round to be played (after the played ones). Not
    announced yet, it is announced if it is up next (the plan's first round ``first``:
    round 1, or a later stage's first after the earlier stages' rounds, D13; or the
    round before it complete); announced already, a re-plan tells only what changed in
    it."""
    round_no = max(played, default=first - 1) + 1
    users = _linked(await players_db.list_players(conn, tournament_id))
    if await outbox.is_announced(conn, tournament_id, round_no):
        told = {} if before is None else positions(before, round_no)
        await _tell_changes(conn, tournament_id, round_no, told, positions(new, round_no), users)
        return
    if not positions(new, round_no):
        return  # every round is played: nothing comes next
    if round_no == first or await _round_complete(
        conn, tournament_id, new.tables_by_round().get(round_no - 1, set()), round_no - 1
    ):
        await _announce(conn, tournament_id, new, round_no, users)


async def round_saved(conn: Conn, tournament_id: int, round_no: int) -> bool:
    """A game of the round was saved (in the caller's transaction): when that completes
    the round under the accepted plan's tables, the next round's seating is announced.
    The last round has no successor: nothing is. Returns whether the tournament has an
    accepted plan of the current stage."""
    row = await current_row(conn, tournament_id)
    if row is None:
        return False
    if not any(int(r["round"]) == round_no + 1 for r in row.plan["rounds"]):
        return True
    if await outbox.is_announced(conn, tournament_id, round_no + 1):
        return True
    planned = {t.table for r in plan_from_dict(row.plan).rounds if r.round == round_no
               for t in r.tables}  # the tables need no nicknames: the players wait
    if await _round_complete(conn, tournament_id, planned, round_no):
        everyone = await players_db.list_players(conn, tournament_id)
        stored = stored_plan(row, everyone)
        await _announce(conn, tournament_id, stored, round_no + 1, _linked(everyone))
    return True
