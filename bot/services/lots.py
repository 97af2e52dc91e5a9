"""Lots (8.7.5, D12): the chief judge draws one for each group still tied after
8.7.1-8.7.4; the draw is recorded once and the standings follow it from then on.

With stages each stage has its own lot (D15): /lot draws for the current stage's
standings (its tie at the cut, say), and once the tournament is finished for the final
standings' ties (D16), each in the stage that places its players."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.db import lots, players
from bot.db.audit import record
from bot.db.connection import Conn, Database
from bot.db.lots import LotRow
from bot.db.tournaments import TournamentRow
from bot.reads.standings import StandingsService, TournamentStandings, lot_due
from bot.services import N_, Refusal
from bot.services.notices import FollowUp, Outbox
from bot.services.phrases import Joined, Phrase, StageName, Verbatim
from scoring import InvalidGameError

DRAWN_ALREADY = N_("The lot for this group was drawn already and is kept.")


@dataclass(frozen=True, slots=True)
class Spent(Refusal):
    """Refused, and the offer's button leads nowhere any more."""


@dataclass(frozen=True, slots=True)
class TiedGroup:
    """Players still tied after 8.7.1-8.7.4, sharing places ``place``.. (``label``)."""

    place: int
    label: str  # e.g. 5–6
    names: list[str]  # in standings order
    ids: list[int]  # their player ids, in the same order
    stage: int = 1  # the number of the stage whose lot this is (1 without stages)
    stage_title: str | None = None  # its name, shown; None without stages
    hidden: bool = False  # its stage hides its figures now (D17): not for the group

    @property
    def digest(self) -> str:
        return group_digest(self.ids, self.stage)


def group_digest(player_ids: Sequence[int], stage: int = 1) -> str:
    """A short fingerprint of a group of a stage (a long id list exceeds callback
    data's 64 bytes)."""
    key = lots.group_key(player_ids)
    if stage != 1:  # the first stage's (and a tournament's without stages) as before
        key = f"{stage}:{key}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


async def _names_to_ids(conn: Conn, tournament_id: int) -> dict[str, int]:
    """Nickname → player id; the standings name players by nickname."""
    found: dict[str, int] = {}
    for player in await players.list_players(conn, tournament_id):
        if player.status != "rejected" or player.nickname not in found:
            found[player.nickname] = player.id
    return found


def _stage_of(ts: TournamentStandings) -> Mapping[str, tuple[int, str]]:
    """Player → the stage (number, name) whose lot orders him in ``ts.standings``: the
    current stage's; in the final standings (D16) the stage that places him."""
    view = ts.stage
    if view is None:
        return {}
    if not view.finished:
        return {row.player: (view.row.number, view.row.name) for row in ts.standings.rows}
    found: dict[str, tuple[int, str]] = {}
    for row, placed in zip(view.rows, view.staged.stages, strict=True):
        for standing in placed.standings.rows:  # later stages overwrite: they place him
            found[standing.player] = (row.number, row.name)
    return found


def _tied(ts: TournamentStandings, ids: Mapping[str, int]) -> list[TiedGroup]:
    by_place: dict[int, list[str]] = {}
    for row in ts.standings.rows:
        by_place.setdefault(row.place, []).append(row.player)
    stage_of = _stage_of(ts)
    # D17: the current stage's ties; once finished, nothing is hidden.
    shut = ts.stage is not None and ts.stage.row.hides_figures
    groups = []
    for place, names in by_place.items():
        if len(names) < 2:
            continue
        label = f"{place}–{place + len(names) - 1}"  # a shared place, as the standings show it
        number, title = stage_of.get(names[0], (1, None))
        found = TiedGroup(place, label, names, [ids.get(n, 0) for n in names], number, title, shut)
        groups.append(found)
    return groups


async def tied_groups(
    db: Database, standings: StandingsService, tournament: TournamentRow
) -> list[TiedGroup] | Refusal:
    """The tournament's groups that a lot would decide."""
    try:
        ts = await standings.get(tournament.id)
    except InvalidGameError:
        return Refusal(
            N_(
                "{title}: the standings can't be computed until a stored game is "
                "corrected; no lot can be drawn."
            ),
            {"title": Verbatim(tournament.title)},
        )
    not_yet = _not_yet(tournament, ts)
    if not_yet is not None:
        return not_yet
    if len({row.place for row in ts.standings.rows}) == len(ts.standings.rows):
        return []
    async with db.read() as conn:
        ids = await _names_to_ids(conn, tournament.id)
    return _tied(ts, ids)


def _not_yet(tournament: TournamentRow, ts: TournamentStandings) -> Refusal | None:
    """Before the distance is played a tie may still break, so no lot decides it yet
    (``bot.reads.standings.lot_due``): when it will. Without games nothing is tied at all."""
    if lot_due(tournament, ts) or not ts.standings.rows:
        return None
    distance = ts.tournament.distance
    return Refusal(
        N_(
            "{title}: a lot (8.7.5) becomes available once every player has played the "
            "distance (games per player: {distance}; players still short of it: {short}), "
            "or once the chief judge finishes the tournament. Until then the next games "
            "may break a tie."
        ),
        {
            "title": Verbatim(tournament.title),
            "distance": distance,
            "short": sum(row.games < distance for row in ts.standings.rows),
        },
    )


@dataclass(frozen=True, slots=True)
class Drawn:
    group: TiedGroup
    order: Joined  # the places as drawn: "5. P6, 6. P1"
    follow_up: FollowUp  # the group is told; the standings follow the lot


def drawn_order(first: int, order: Sequence[int], by_id: Mapping[int, str]) -> Joined:
    return Joined(tuple(
        Joined((f"{first + n}.", Verbatim(by_id[pid])), " ") for n, pid in enumerate(order)
    ))


async def draw_lot(
    db: Database,
    standings: StandingsService,
    publisher: Outbox,
    tournament: TournamentRow,
    digest: str,
    actor_id: int,
) -> Drawn | Refusal:
    """Draw the order of the tied group ``digest`` names, once."""
    group = await _still_tied(db, standings, tournament, digest)
    if isinstance(group, Refusal):
        return group
    order = list(group.ids)
    secrets.SystemRandom().shuffle(order)
    by_id = dict(zip(group.ids, group.names, strict=True))
    async with db.transaction() as conn:
        if await lots.get_lot(conn, tournament.id, order, stage=group.stage) is not None:
            return Spent(DRAWN_ALREADY)  # drawn by another tap meanwhile: that one is kept
        lot = await lots.record_lot(
            conn, tournament.id, order, drawn_by=actor_id, stage=group.stage
        )
        await _record(conn, tournament, group, lot, by_id, actor_id)
        text = drawn_order(group.place, lot.order, by_id)
        if group.hidden:  # D17: neither the places nor who shares them
            note = Phrase(
                N_("🎲 The chief judge drew a lot of the {stage} stage (8.7.5); its places "
                   "are hidden until it ends."),
                {"stage": StageName(group.stage_title or "")},
            )
        elif group.stage_title is None:
            note = Phrase(
                N_("🎲 Lot for places {places} (8.7.5), drawn by the chief judge: {order}."),
                {"places": group.label, "order": text},
            )
        else:
            note = Phrase(
                N_("🎲 Lot of the {stage} stage for places {places} (8.7.5), drawn by the "
                   "chief judge: {order}."),
                {"stage": StageName(group.stage_title), "places": group.label, "order": text},
            )
        await publisher.enqueue(conn, tournament.id, note=note, standings=True)  # the order changes
    return Drawn(group, text, FollowUp(tournament_id=tournament.id, now=True))


async def _still_tied(
    db: Database, standings: StandingsService, tournament: TournamentRow, digest: str
) -> TiedGroup | Refusal:
    """The group ``digest`` names, if its players are still tied."""
    async with db.read() as conn:
        ids = await _names_to_ids(conn, tournament.id)
        drawn = await lots.lots_for_tournament(conn, tournament.id)
    try:
        ts = await standings.get(tournament.id)
    except InvalidGameError:
        return Refusal(N_("The standings can't be computed now; no lot can be drawn."))
    not_yet = _not_yet(tournament, ts)
    if not_yet is not None:
        return Spent(not_yet.msgid, not_yet.params)
    for group in _tied(ts, ids):
        if all(n in ids for n in group.names) and group.digest == digest:
            return group
    if any(group_digest(lot.group, lot.stage) == digest for lot in drawn):
        return Spent(DRAWN_ALREADY)
    return Spent(N_("This card is out of date: the standings changed. Send /lot again."))


async def _record(
    conn: Conn,
    tournament: TournamentRow,
    group: TiedGroup,
    lot: LotRow,
    by_id: Mapping[int, str],
    actor_id: int,
) -> None:
    after = {
        "places": group.label,
        "order": [{"player_id": pid, "nickname": by_id[pid]} for pid in lot.order],
        "drawn_at": lot.drawn_at,
    }
    if group.stage_title is not None:
        after["stage"] = lot.stage
    await record(conn, "lot.draw", lot.id, tournament.id, actor_id, after=after)
