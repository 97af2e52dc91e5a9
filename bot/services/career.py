"""The career's use cases: the chief judge links a roster nickname of his tournament to a
person of other tournaments (two persons become one), gives a person his career name,
takes either back, and sets his tournament's weight in the rating.

Plain values in, results or :class:`Refusal` out; no Telegram and no texts (the
parameters of a refusal are plain text: whoever shows it escapes them). Each change
is audited in its transaction (``person.link`` when the nickname's person had only it,
``person.merge`` when it had players in other tournaments too, ``person.rename``,
``person.undo``, ``tournament.rating_kind``); a link, merge or rename is taken back
only by the chief judge who made it, while no later change touched those persons.

Only the chief judge of the tournament the nickname belongs to may link it: he is
checked here again from the roles table, as the command names the player by text.
Two persons who play one tournament (so who may have sat in one game) are never
merged: a person plays a tournament as one player. Two persons with a Telegram account
each are two people.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.db import audit, players, staff, tournaments
from bot.db import career as repo
from bot.db.career import LINK, MERGE, RATING_KINDS, RENAME, UNDO, Merged, PersonRow, RatingKind
from bot.db.connection import Conn, Database
from bot.db.errors import InvalidNickname
from bot.db.players import MAX_NICKNAME, PlayerRow
from bot.db.tournaments import CHIEF, TournamentRow
from bot.services import N_, Refusal
from bot.services.refusals import ONLY_CHIEF, OUT_OF_DATE

KIND_ACTION = "tournament.rating_kind"


def _nick(name: str) -> str:
    return name


def _title(title: str) -> str:
    return "«" + title + "»"


async def _chief(conn: Conn, tournament_id: int, actor_id: int) -> TournamentRow | Refusal:
    tournament = await tournaments.get_tournament(conn, tournament_id)
    if tournament is None:
        return OUT_OF_DATE
    if await staff.staff_role(conn, tournament_id, actor_id) != CHIEF:
        return ONLY_CHIEF
    return tournament


async def _player(conn: Conn, tournament: TournamentRow, nickname: str) -> PlayerRow | Refusal:
    found = await players.find_player_by_nickname(conn, tournament.id, nickname)
    if found is None:
        return Refusal(
            N_("{title} has no player {nick}."),
            {"title": _title(tournament.title), "nick": _nick(" ".join(nickname.split()))},
        )
    return found


async def _chiefs_player(
    conn: Conn, tournament_id: int, actor_id: int, nickname: str
) -> tuple[TournamentRow, PlayerRow, PersonRow] | Refusal:
    """The tournament (its chief judge acting), its player ``nickname`` and his person."""
    tournament = await _chief(conn, tournament_id, actor_id)
    if isinstance(tournament, Refusal):
        return tournament
    player = await _player(conn, tournament, nickname)
    if isinstance(player, Refusal):
        return player
    person = await repo.person_of_player(conn, player.id)
    if person is None:
        return OUT_OF_DATE
    return tournament, player, person


# -- who a person is -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seen:
    """A person as the chief judge tells him apart: his career name and where he
    played, by which nickname."""

    person: PersonRow
    played: tuple[tuple[str, str], ...]  # (tournament title, nickname), oldest first


async def _seen(conn: Conn, people: list[PersonRow]) -> list[Seen]:
    rows = await repo.players_of_persons(conn, [p.id for p in people])
    return [
        Seen(person, tuple((r.title, r.nickname) for r in rows if r.person_id == person.id))
        for person in people
    ]


# -- linking ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkChoice:
    """The player to link, his person as it is, and the persons his name finds."""

    tournament: TournamentRow
    player: PlayerRow
    mine: Seen
    found: tuple[Seen, ...]
    query: str


async def link_choices(
    db: Database, tournament_id: int, actor_id: int, nickname: str, query: str | None = None
) -> LinkChoice | Refusal:
    """The persons the chief judge may link his player ``nickname`` to: those named
    ``query`` (the nickname when None), the player's own person left out."""
    nickname = " ".join(nickname.split())
    query = " ".join((query or nickname).split())
    async with db.read() as conn:
        chosen = await _chiefs_player(conn, tournament_id, actor_id, nickname)
        if isinstance(chosen, Refusal):
            return chosen
        tournament, player, mine = chosen
        found = [p for p in await repo.find_persons(conn, query) if p.id != mine.id]
        seen = await _seen(conn, [mine, *found])
    return LinkChoice(tournament, player, seen[0], tuple(seen[1:]), query)


@dataclass(frozen=True, slots=True)
class Linked:
    """The player's person merged into ``target``: one person now."""

    entry: int  # the audit entry, to take it back
    tournament: TournamentRow
    player: PlayerRow
    source: PersonRow  # his person before, merged now
    target: Seen  # the one person now, and where he played
    merged: bool  # his person had players in other tournaments too


async def link(db: Database, player_id: int, target_id: int, actor_id: int) -> Linked | Refusal:
    """Make the player's person and ``target_id`` one person (the target keeps its id
    and career name)."""
    async with db.transaction() as conn:
        player = await players.get_player(conn, player_id)
        if player is None or player.status == "rejected":
            return OUT_OF_DATE
        tournament = await _chief(conn, player.tournament_id, actor_id)
        if isinstance(tournament, Refusal):
            return tournament
        source = await repo.person_of_player(conn, player_id)
        target = await repo.get_person(conn, target_id)
        if source is None or target is None or target.merged_into is not None:
            return OUT_OF_DATE
        refused = await _cannot_merge(conn, source, target, player)
        if refused is not None:
            return refused
        moved = await repo.merge_persons(conn, source.id, target.id)
        [after_target] = await _seen(conn, [await repo.require_person(conn, target.id)])
        merged = len(moved.players) > 1
        entry = await audit.audit(
            conn,
            action=MERGE if merged else LINK,
            entity="person",
            entity_id=target.id,
            tournament_id=tournament.id,
            actor_id=actor_id,
            before={"source": _record(source), "target": _record(target)},
            after=_merge_record(moved, player.id),
        )
    return Linked(entry, tournament, player, source, after_target, merged)


def _record(person: PersonRow) -> dict[str, Any]:
    """A person as the audit keeps him: whether he has a Telegram account, never its id
    (the audit log is exported)."""
    return {"id": person.id, "name": person.name, "account": person.user_id is not None}


def _merge_record(moved: Merged, player_id: int) -> dict[str, Any]:
    return {
        "persons": [moved.source, moved.target],
        "source": moved.source,
        "target": moved.target,
        "player": player_id,
        "players": list(moved.players),
        "account_moved": moved.account_moved,
    }


async def _cannot_merge(
    conn: Conn, source: PersonRow, target: PersonRow, player: PlayerRow
) -> Refusal | None:
    params = {"nick": _nick(player.nickname), "name": _nick(target.name)}
    if source.id == target.id:
        return Refusal(N_("{nick} is {name} already: one person."), params)
    if source.user_id is not None and target.user_id is not None:
        return Refusal(
            N_("{nick} and {name} are two Telegram accounts: two people, not linked."), params
        )
    met = await repo.met(conn, source.id, target.id)
    if met is not None and met.game is not None:
        return Refusal(
            N_("{nick} and {name} sat at one table ({game} of {title}): two people, not linked."),
            params | {"game": met.game, "title": _title(met.title)},
        )
    if met is not None:
        return Refusal(
            N_("{nick} and {name} both play {title}: two people, not linked."),
            params | {"title": _title(met.title)},
        )
    return None


# -- the career name -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Renamed:
    entry: int
    tournament: TournamentRow
    player: PlayerRow
    before: PersonRow
    after: PersonRow


async def rename(
    db: Database, tournament_id: int, actor_id: int, nickname: str, name: str
) -> Renamed | Refusal:
    """The career name of the person of the player ``nickname`` of the tournament."""
    async with db.transaction() as conn:
        chosen = await _chiefs_player(conn, tournament_id, actor_id, nickname)
        if isinstance(chosen, Refusal):
            return chosen
        tournament, player, before = chosen
        try:
            shown = players.normalize_nickname(name)
        except InvalidNickname:
            return Refusal(
                N_("A career name is 1–{max} visible characters, as a nickname."),
                {"max": MAX_NICKNAME},
            )
        if shown == before.name:
            return Refusal(N_("{name} is the career name already."), {"name": _nick(shown)})
        after = await repo.rename_person(conn, before.id, shown)
        entry = await audit.audit(
            conn,
            action=RENAME,
            entity="person",
            entity_id=before.id,
            tournament_id=tournament.id,
            actor_id=actor_id,
            before={"name": before.name},
            after={"persons": [before.id], "name": after.name},
        )
    return Renamed(entry, tournament, player, before, after)


# -- taking a change back -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Undone:
    action: str  # what was taken back: person.link, person.merge or person.rename
    tournament: TournamentRow
    source: PersonRow  # a link's person again apart; a rename's person
    target: PersonRow  # a link's other person; a rename's person


NOTHING_TO_UNDO = Refusal(N_("You have no link or career name to take back."))
NOT_YOURS = Refusal(N_("Only the chief judge who made this change can take it back."))
UNDONE_ALREADY = Refusal(N_("This change was taken back already."))
CHANGED_SINCE = Refusal(
    N_("These persons were changed since: this can't be taken back any more.")
)


async def undo(db: Database, actor_id: int, entry_id: int | None = None) -> Undone | Refusal:
    """Take back the actor's link, merge or rename ``entry_id`` (None: his latest one
    not taken back)."""
    async with db.transaction() as conn:
        if entry_id is None:
            entry = await repo.latest_change_by(conn, actor_id)
            if entry is None:
                return NOTHING_TO_UNDO
        else:
            entry = await repo.audit_entry(conn, entry_id)
            if entry is None or entry.action not in (LINK, MERGE, RENAME):
                return OUT_OF_DATE
        if entry.actor_id != actor_id:
            return NOT_YOURS
        if entry.tournament_id is None:
            return OUT_OF_DATE
        tournament = await _chief(conn, entry.tournament_id, actor_id)
        if isinstance(tournament, Refusal):
            return tournament
        if await repo.undone(conn, entry.id):
            return UNDONE_ALREADY
        persons = [int(p) for p in entry.after["persons"]]
        if await repo.changed_since(conn, entry.id, persons):
            return CHANGED_SINCE
        if entry.action == RENAME:
            done = await _unrename(conn, persons[0], entry.before["name"], entry.after["name"])
        else:
            done = await _unmerge(conn, entry.after)
        if isinstance(done, Refusal):
            return done
        await audit.audit(
            conn,
            action=UNDO,
            entity="person",
            entity_id=entry.id,
            tournament_id=tournament.id,
            actor_id=actor_id,
            before={"action": entry.action},
            after={"persons": persons, "undid": entry.id},
        )
    return Undone(entry.action, tournament, done[0], done[1])


async def _unrename(
    conn: Conn, person_id: int, old: str, new: str
) -> tuple[PersonRow, PersonRow] | Refusal:
    person = await repo.get_person(conn, person_id)
    if person is None or person.name != new:
        return CHANGED_SINCE
    renamed = await repo.rename_person(conn, person_id, old)
    return renamed, renamed


async def _unmerge(conn: Conn, after: dict[str, Any]) -> tuple[PersonRow, PersonRow] | Refusal:
    merged = Merged(int(after["source"]), int(after["target"]),
                    tuple(int(p) for p in after["players"]), bool(after["account_moved"]))
    source = await repo.get_person(conn, merged.source)
    target = await repo.get_person(conn, merged.target)
    if source is None or target is None or source.merged_into != target.id:
        return CHANGED_SINCE
    if target.merged_into is not None:
        return CHANGED_SINCE
    await repo.unmerge_persons(conn, merged)
    return await repo.require_person(conn, source.id), await repo.require_person(conn, target.id)


# -- the tournament's weight ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KindSet:
    tournament: TournamentRow
    kind: RatingKind
    changed: bool


async def rating_kind(db: Database, tournament_id: int) -> RatingKind:
    async with db.read() as conn:
        return await repo.rating_kind(conn, tournament_id)


async def set_rating_kind(
    db: Database, tournament_id: int, actor_id: int, kind: str
) -> KindSet | Refusal:
    """How much the tournament's games move the career rating (docs/formats.md#rating):
    ``tournament``, ``elite``, or ``unrated`` (not at all)."""
    if kind not in RATING_KINDS:
        return OUT_OF_DATE
    chosen: RatingKind = RATING_KINDS[RATING_KINDS.index(kind)]
    async with db.transaction() as conn:
        tournament = await _chief(conn, tournament_id, actor_id)
        if isinstance(tournament, Refusal):
            return tournament
        before = await repo.rating_kind(conn, tournament_id)
        if before == chosen:
            return KindSet(tournament, chosen, changed=False)
        await repo.set_rating_kind(conn, tournament_id, chosen)
        await audit.record(
            conn, KIND_ACTION, tournament_id, tournament_id, actor_id,
            before={"rating_kind": before}, after={"rating_kind": chosen},
        )
    return KindSet(tournament, chosen, changed=True)
