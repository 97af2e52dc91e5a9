"""Use cases of the live protocol (docs/development.md, "The live protocol"): a judge enters a game
event by event in the Mini App; the game's rules are ``scoring.protocol``'s.

A live draft is opened for a judge's card once its round, table and seats are filled
(keyed by the card's ``draft_id``: the game it becomes is the card's game, saved once
whichever of the two saves it). Events are appended in one ``BEGIN IMMEDIATE``
transaction: the stored ones replayed through the protocol, the new ones applied in
order, each once by the page's own id, up to the first refusal. Save goes through the
card's use case (``bot.services.game_save.save``) with a ``GameDraft`` made of the
protocol's facts (``game_draft``).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

from bot.db import games, live, players, staff, tournaments
from bot.db.connection import Conn, Database
from bot.db.errors import InvalidDraft
from bot.db.games import GameDraft, GameRecord, SeatDraft
from bot.db.live import LiveDraft, LiveEvent
from bot.db.players import PlayerRow
from bot.db.scoring_bridge import game_from_draft
from bot.db.tournaments import CHIEF, JUDGE, TournamentRow
from bot.services import N_, Refusal
from bot.services.phrases import Command
from scoring import GameBreakdown, Problem, Tournament, game_breakdown, validate_game
from scoring import protocol as rules
from scoring.judging import first_killed_ci
from scoring.model import SEATS, Result, Role

MAX_EVENT_ID = 64
MAX_BATCH = 200  # events in one request (the page sends a few at a time)
MAX_COMMAND = 1000  # characters of one command's JSON (the longest real one is ~150)


@dataclass(frozen=True, slots=True)
class Unknown(Refusal):
    """No live draft of that token (404)."""


@dataclass(frozen=True, slots=True)
class NotStaff(Refusal):
    """Not a judge or chief judge of the draft's tournament (403)."""


@dataclass(frozen=True, slots=True)
class Saved(Refusal):
    """The draft is saved already: nothing more is entered (409)."""


@dataclass(frozen=True, slots=True)
class NotReady(Refusal):
    """The protocol can't be saved yet: ``rule`` is what it breaks (422)."""

    rule: str = "game"


@dataclass(frozen=True, slots=True)
class Finished(Refusal):
    """The draft's tournament is finished: no more events, no save (409)."""


@dataclass(frozen=True, slots=True)
class Conflict(Refusal):
    """An event's id is stored already with another command: the request stores
    nothing (409). Its text names both commands, in the reader's language."""


def _conflict(stored: Mapping[str, Any], sent: Mapping[str, Any]) -> Conflict:
    return Conflict(_CONFLICT, {"stored": Command(stored), "sent": Command(sent)})


UNKNOWN = Unknown(N_("There is no such live protocol."))
NOT_STAFF = NotStaff(N_("Only a judge of this tournament can enter its games."))
SAVED = Saved(N_("This game is saved already; nothing more is entered here."))
FINISHED = Finished(N_("The tournament is finished: its games can't be entered or saved "
                       "any more."))
_CONFLICT = N_("Not stored: this event was recorded already as «{stored}», and now it came "
               "as «{sent}». Nothing was changed; the protocol is shown as recorded.")


class _Locks:
    """One lock per live draft: its events and its Save take turns, so a Save stores
    the protocol of the events stored before it and none is stored after it (the bot
    is one process; the database's own lock keeps each step whole)."""

    def __init__(self) -> None:
        self._held: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    def of(self, draft_id: int) -> asyncio.Lock:
        lock = self._held.get(draft_id)
        if lock is None:
            lock = self._held[draft_id] = asyncio.Lock()
        return lock


LOCKS = _Locks()


def entering(draft: LiveDraft) -> asyncio.Lock:
    """Hold it around a Save's read, review and save (``append_events`` holds it)."""
    return LOCKS.of(draft.id)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A live draft as the page sees it."""

    draft: LiveDraft
    tournament: TournamentRow
    players: tuple[PlayerRow, ...]  # seat order
    events: tuple[LiveEvent, ...]
    protocol: rules.Protocol
    game: GameRecord | None  # the saved game

    @property
    def version(self) -> int:
        return len(self.events)

    def names(self) -> dict[int, str]:
        return {p.id: p.nickname for p in self.players}


@dataclass(frozen=True, slots=True)
class Appended:
    applied: tuple[str, ...]  # the ids applied now or before
    refused: tuple[str, rules.Refusal] | None  # the id refused and why
    version: int
    protocol: rules.Protocol


def app_url(base_url: str, token: str) -> str:
    """The Mini App's address of a live draft (its web_app buttons)."""
    return f"{base_url}/app/?g={token}"


# -- opening ---------------------------------------------------------------------------------


async def open_for_card(
    db: Database,
    *,
    draft_id: str,
    tournament_id: int,
    round_no: int,
    table_no: int,
    players: Sequence[int],
    judge_id: int,
) -> LiveDraft:
    """The card's live draft, made when it shows its button first; the card's round,
    table and seats follow while it is not saved. Read first: a card shown again
    writes nothing."""
    async with db.read() as conn:
        found = await live.by_draft_id(conn, draft_id)
    if found is not None and (
        found.saved
        or (found.round, found.table_no, found.players) == (round_no, table_no, tuple(players))
    ):
        return found
    async with db.transaction() as conn:
        return await live.open_draft(
            conn,
            draft_id=draft_id,
            tournament_id=tournament_id,
            round_no=round_no,
            table_no=table_no,
            players=players,
            judge_id=judge_id,
        )


async def open_drafts(db: Database, judge_id: int) -> list[tuple[LiveDraft, str]]:
    """The judge's live drafts not saved yet, with their tournaments' titles."""
    async with db.read() as conn:
        drafts = await live.open_drafts_of(conn, judge_id)
        titles = {}
        for d in drafts:
            if d.tournament_id not in titles:
                t = await tournaments.get_tournament(conn, d.tournament_id)
                titles[d.tournament_id] = t.title if t else ""
    return [(d, titles[d.tournament_id]) for d in drafts]


async def saved_live(db: Database, draft_id: str) -> GameRecord | None:
    """The game the live protocol saved of the card's ``draft_id``, if it saved one (the
    card then closes its draft, as a game saved on the card closes the live one).

    Asked on every tap of a card with a live draft: read once and kept until a
    transaction commits (the live Save is one)."""
    return await db.cached(("live.saved", draft_id), partial(_saved_live, draft_id=draft_id))


async def _saved_live(conn: Conn, *, draft_id: str) -> GameRecord | None:
    draft = await live.by_draft_id(conn, draft_id)
    if draft is None or draft.game_id is None:
        return None
    return await games.get_game(conn, draft.game_id)


# -- who may --------------------------------------------------------------------------------


async def judged(db: Database, token: str, user_id: int) -> LiveDraft | Refusal:
    """The draft of ``token`` when ``user_id`` is a judge or chief judge of its
    tournament (else ``UNKNOWN`` or ``NOT_STAFF``)."""
    async with db.read() as conn:
        draft = await live.by_token(conn, token)
        role = None if draft is None else await staff.staff_role(
            conn, draft.tournament_id, user_id)
    if draft is None:
        return UNKNOWN
    if role not in (CHIEF, JUDGE):
        return NOT_STAFF
    return draft


# -- reading --------------------------------------------------------------------------------


def _replay(stored: Sequence[LiveEvent]) -> rules.Protocol:
    replayed = rules.replay([e.command for e in stored])
    if isinstance(replayed, rules.Refusal):  # stored only after the protocol applied them
        raise RuntimeError(f"stored live events no longer replay: {replayed}")
    return replayed


async def _saved_game(conn: Conn, draft: LiveDraft) -> GameRecord | None:
    """The draft's game: saved here, or on the card (the same draft_id)."""
    if draft.game_id is not None:
        return await games.get_game(conn, draft.game_id)
    return await games.get_game_by_draft(conn, draft.draft_id)


async def snapshot(db: Database, draft: LiveDraft) -> Snapshot:
    async with db.read() as conn:
        stored = tuple(await live.events(conn, draft.id))
        tournament = await tournaments.require_tournament(conn, draft.tournament_id)
        rows = {p.id: p for p in await players.players_by_id(conn, list(draft.players))}
        current = await live.by_token(conn, draft.token)
        game = await _saved_game(conn, current or draft)
    seated = tuple(rows[pid] for pid in draft.players)
    return Snapshot(draft, tournament, seated, stored, _replay(stored), game)


async def public(db: Database, public_token: str) -> Snapshot | None:
    async with db.read() as conn:
        draft = await live.by_public_token(conn, public_token)
    return None if draft is None else await snapshot(db, draft)


# -- entering -------------------------------------------------------------------------------


def too_many(events: object) -> bool:
    """More events than one request may carry (``MAX_BATCH``)."""
    return isinstance(events, list) and len(events) > MAX_BATCH


def well_formed(events: object) -> list[tuple[str, dict[str, Any]]] | None:
    """The request's events as (id, command) pairs, or None when malformed: not a list
    of 1..``MAX_BATCH`` objects, an id not a string of 1..``MAX_EVENT_ID`` characters or
    named twice, a command not an object or longer than ``MAX_COMMAND`` as JSON."""
    if not isinstance(events, list) or not 1 <= len(events) <= MAX_BATCH:
        return None
    found = []
    for item in events:
        if not isinstance(item, dict):
            return None
        event_id, command = item.get("id"), item.get("command")
        if not isinstance(event_id, str) or not 1 <= len(event_id) <= MAX_EVENT_ID:
            return None
        if not isinstance(command, dict) or len(_compact(command)) > MAX_COMMAND:
            return None
        found.append((event_id, command))
    if len({event_id for event_id, _command in found}) != len(found):
        return None
    return found


def _compact(command: Mapping[str, Any]) -> str:
    return json.dumps(command, separators=(",", ":"))


def _same(stored: Mapping[str, Any], sent: Mapping[str, Any]) -> bool:
    """The same command as JSON (the order of its keys aside; 1 and 1.0 or true differ)."""
    return json.dumps(stored, sort_keys=True) == json.dumps(sent, sort_keys=True)


async def append_events(
    db: Database, draft: LiveDraft, events: Sequence[tuple[str, Mapping[str, Any]]]
) -> Appended | Refusal:
    """Apply ``events`` in order, each once; stop at the first refusal (it and what
    follows are not stored). Refused whole (``SAVED``, ``FINISHED``) once the game is
    saved, here or on the card, or its tournament is finished, and (``Conflict``) when
    an event's id is stored with another command: an id sent again with the same
    command is applied already, with another it is not the same event."""
    async with LOCKS.of(draft.id), db.transaction() as conn:
        current = await live.by_token(conn, draft.token)
        if current is None:
            return UNKNOWN
        if current.saved or await games.get_game_by_draft(conn, current.draft_id):
            return SAVED
        tournament = await tournaments.get_tournament(conn, current.tournament_id)
        if tournament is None or tournament.status == "finished":
            return FINISHED
        ids = [event_id for event_id, _command in events]
        known = await live.known_commands(conn, draft.id, ids)
        for event_id, command in events:
            if event_id in known and not _same(known[event_id], command):
                return _conflict(known[event_id], command)
        stored = await live.events(conn, draft.id)
        p = _replay(stored)
        applied: list[str] = []
        fresh: list[tuple[str, Mapping[str, Any]]] = []
        refused: tuple[str, rules.Refusal] | None = None
        for event_id, command in events:
            if event_id in known:  # sent again: applied before
                applied.append(event_id)
                continue
            after = rules.apply(p, command)
            if isinstance(after, rules.Refusal):
                refused = (event_id, after)
                break
            p = after
            applied.append(event_id)
            fresh.append((event_id, command))
        if fresh:
            await live.append(conn, draft.id, len(stored) + 1, fresh)
    return Appended(tuple(applied), refused, len(stored) + len(fresh), p)


# -- review and save ---------------------------------------------------------------------------


def game_draft(s: Snapshot) -> GameDraft | NotReady:
    """The game to store, made of the protocol's facts and the seated players."""
    facts = rules.facts(s.protocol)
    roles = s.protocol.roles
    if any(role is None for role in roles) or len(roles) != SEATS:
        return NotReady(N_("The roles are not entered yet."), rule="game")
    if facts.result is None:
        return NotReady(N_("The result is not entered yet."), rule="game")
    penalties: Mapping[int, Sequence[str]] = facts.penalties or {}
    extras: Mapping[int, Any] = facts.extras or {}
    seats = tuple(
        SeatDraft(
            player_id=s.draft.players[n - 1],
            role=Role(roles[n - 1]),  # type: ignore[arg-type]
            disqualified=n in facts.disqualified,
            judge_extra=_hundredths(extras.get(n, 0)),
            penalties=tuple(penalties.get(n, ())),
        )
        for n in range(1, SEATS + 1)
    )
    try:
        return GameDraft(
            draft_id=s.draft.draft_id,
            round=s.draft.round,
            table_no=s.draft.table_no,
            result=Result(facts.result),
            seats=seats,
            day1_voted_out=facts.day1_voted_out or 0,
            first_killed=facts.first_killed,
            best_move=tuple(facts.best_move),
            best_move_hint=bool(facts.best_move_hint),
        )
    except InvalidDraft as exc:
        return NotReady(N_("Not saved: {reason}"), {"reason": str(exc)}, rule="game")


def _hundredths(value: object) -> int:
    if isinstance(value, Fraction):
        return int(value * 100)
    return value if isinstance(value, int) else 0


@dataclass(frozen=True, slots=True)
class Review:
    draft: GameDraft | None
    breakdown: GameBreakdown | None
    problems: tuple[Problem | NotReady, ...]


def review(s: Snapshot, tournament: Tournament) -> Review:
    """Every seat's points by the scoring engine (Ci over ``tournament``, as the card's
    review), or what keeps the game from being saved."""
    draft = game_draft(s)
    if isinstance(draft, NotReady):
        return Review(None, None, (draft,))
    unconfirmed = [
        NotReady(N_("seat {seat}: {player} is not confirmed yet; the chief judge must "
                    "confirm him before the game can be saved"),
                 {"seat": n, "player": p.nickname}, rule="game")
        for n, p in enumerate(s.players, start=1)
        if p.status != "confirmed"
    ]
    game = game_from_draft(draft, s.names())
    found: list[Problem | NotReady] = [*validate_game(game), *unconfirmed]
    if found:
        return Review(draft, None, tuple(found))
    ci = first_killed_ci(tournament, game).ci
    return Review(draft, game_breakdown(game, ci=ci), ())


async def events_of_games(db: Database, game_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    """The commands of games saved from live drafts, by game id (the export)."""
    async with db.read() as conn:
        return await live.commands_of_games(conn, game_ids)


__all__ = [
    "FINISHED",
    "LOCKS",
    "NOT_STAFF",
    "SAVED",
    "UNKNOWN",
    "Appended",
    "Conflict",
    "Finished",
    "LiveDraft",
    "NotReady",
    "NotStaff",
    "Review",
    "Saved",
    "Snapshot",
    "Unknown",
    "app_url",
    "append_events",
    "entering",
    "events_of_games",
    "game_draft",
    "judged",
    "open_drafts",
    "open_for_card",
    "public",
    "review",
    "saved_live",
    "snapshot",
    "too_many",
    "well_formed",
]
