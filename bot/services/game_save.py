"""Save a game (docs/ARCHITECTURE.md, "A Save"): the judge's card and the live protocol's
page both save through :func:`save`, which does the whole of it.

What it reads it reads at once: the tournament, the saver's role, the ten seated, the
live protocol's game of the card and the corrected game's code. Then, in order: a card
whose game the live protocol saved is told so (:class:`SavedLive`); an out-of-date card,
a saver who may not, a finished tournament are refused; the review (the scoring
engine's checks, every seated player confirmed, every seat's points with Ci over the
tournament, 8.6.1, D1) returns what is left to fix (:class:`Unready`); the group's
result lines are worded by the caller's :class:`GroupLines`; and
``bot.services.games.save_game`` stores the game. The caller renders what it returns.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from bot.db import games, live, players, staff, tournaments
from bot.db.connection import Database
from bot.db.games import GameDraft, GameRecord
from bot.db.live import LiveDraft
from bot.db.players import PlayerRow
from bot.db.scoring_bridge import game_from_draft
from bot.db.tournaments import CHIEF, JUDGE, TournamentRow
from bot.reads.card_reads import tournament_model
from bot.reads.standings import StandingsService
from bot.services import N_, Refusal
from bot.services.games import GameNews, Gone, protocol_refusal, store_game
from bot.services.live import FINISHED, NotReady
from bot.services.notices import Outbox
from bot.services.phrases import ResultLines
from bot.services.refusals import OUT_OF_DATE
from scoring import GameBreakdown, Problem, Tournament, game_breakdown, validate_game
from scoring.judging import CiInfo, first_killed_ci


class SaveRuntime(Protocol):
    """What a Save talks to: the database, the group's outbox, the standings (Ci)."""

    @property
    def db(self) -> Database: ...

    @property
    def publisher(self) -> Outbox: ...

    @property
    def standings(self) -> StandingsService: ...


class GroupLines(Protocol):
    """The caller's words for the group: the game's result lines in ``language``, the
    tournament's (D17)."""

    def __call__(
        self, language: str, draft: GameDraft, breakdown: GameBreakdown
    ) -> ResultLines: ...


@dataclass(frozen=True, slots=True)
class SaveRequest:
    """A Save: ``draft`` is None while the card is not complete. From the card, with
    ``current`` False when its keyboard is out of date; from the live page, with its
    ``live`` draft (marked saved with the game)."""

    tournament_id: int
    draft: GameDraft | None
    actor: int
    correcting: int | None = None  # the corrected game's id (the chief judge only)
    approved: frozenset[int] = frozenset()  # seats whose points above 0.5 hold (D7)
    current: bool = True
    live: LiveDraft | None = None
    draft_id: str = ""  # the card's: the live protocol may have saved its game


@dataclass(frozen=True, slots=True)
class SavedLive:
    """The live protocol saved the card's game: the card closes, nothing is changed."""

    game: GameRecord


@dataclass(frozen=True, slots=True)
class Reviewed:
    """What the review showed: the tournament, the ten seated (by id), the corrected
    game's code, every seat's points and Ci (None while something is left to fix)."""

    tournament: TournamentRow
    players: Mapping[int, PlayerRow]
    replaces: str = ""
    breakdown: GameBreakdown | None = None
    ci: CiInfo | None = None


@dataclass(frozen=True, slots=True)
class Unready(Refusal):
    """Something is left to fix: ``problems``, in order (none: the card is not complete)."""

    problems: tuple[Problem | NotReady, ...] = ()
    reviewed: Reviewed | None = None


@dataclass(frozen=True, slots=True)
class NotSaved(Refusal):
    """Refused once the review passed (the protocol's rule, a table saved meanwhile, the
    stage's entrants changed): ``reviewed`` is what the card shows with the reason."""

    reviewed: Reviewed | None = None


@dataclass(frozen=True, slots=True)
class Saved:
    record: GameRecord
    news: GameNews
    reviewed: Reviewed


FIX_FIRST = N_("Fix the problems on the card first.")
NO_TOURNAMENT = Refusal(N_("This tournament no longer exists."), alert=True)
ONLY_CHIEF_CORRECTS = Refusal(N_("Only the chief judge may correct a game."), alert=True)
NO_LONGER_JUDGE = Refusal(N_("You are no longer a judge of this tournament."), alert=True)
NOT_RUNNING = Refusal(
    N_("The tournament is not running, so no game can be entered."), alert=True
)


async def save(
    rt: SaveRuntime,
    request: SaveRequest,
    *,
    lines: GroupLines,
    saving: Callable[[], Awaitable[None]] | None = None,
) -> Saved | SavedLive | Refusal:
    """Check, review and store the game; returns it with its news and review, or why
    not. ``saving``: the caller's answer once the review passed, before the game is
    stored (what is refused after it, the card shows as a note)."""
    draft = request.draft
    async with rt.db.read() as conn:
        t = await tournaments.get_tournament(conn, request.tournament_id)
        role = await staff.staff_role(conn, request.tournament_id, request.actor)
        card = await live.by_draft_id(conn, request.draft_id) if request.draft_id else None
        by_live = await games.get_game(conn, card.game_id) if card and card.game_id else None
        seated = [] if draft is None else await players.players_by_id(
            conn, [s.player_id for s in draft.seats])
        stored = await games.get_game(conn, request.correcting) if request.correcting else None
    if by_live is not None:
        return SavedLive(by_live)
    refused = _who_may(request, t, role)
    if refused is not None or t is None:
        return refused or NO_TOURNAMENT
    reviewed = Reviewed(t, {p.id: p for p in seated}, stored.code if stored else "")
    if draft is None:
        return Unready(FIX_FIRST, alert=True, reviewed=reviewed)
    model = await tournament_model(rt.db, rt.standings, t.id)
    reviewed, problems = review(reviewed, draft, request.approved, model)
    if reviewed.breakdown is None:
        return Unready(FIX_FIRST, alert=True, problems=problems, reviewed=reviewed)
    if saving is not None:
        await saving()
    refused = protocol_refusal(draft)  # the card's path and any other (scoring.protocol)
    done = refused if refused is not None else await store_game(
        rt, tournament_id=t.id, draft=draft, correcting=request.correcting,
        actor=request.actor, lines=lines(t.language, draft, reviewed.breakdown),
    )
    if isinstance(done, Gone):
        return done
    if isinstance(done, Refusal):
        return NotSaved(done.msgid, done.params, alert=done.alert, reviewed=reviewed)
    if request.live is not None:
        async with rt.db.transaction() as conn:
            await live.mark_saved(conn, request.live.id, done.record.id)
    return Saved(done.record, done.news, reviewed)


def _who_may(request: SaveRequest, t: TournamentRow | None, role: str | None) -> Refusal | None:
    """A judge or chief judge of a running tournament saves a game on his card, only a
    chief judge a correction; the live page's judge was checked by its token, and takes
    no Save once the tournament is finished."""
    if request.live is not None:
        return FINISHED if t is not None and t.status == "finished" else None
    if not request.current:
        return OUT_OF_DATE
    if t is None:
        return NO_TOURNAMENT
    if request.correcting is not None:
        return None if role == CHIEF else ONLY_CHIEF_CORRECTS
    if role not in (CHIEF, JUDGE):
        return NO_LONGER_JUDGE
    return NOT_RUNNING if t.status != "running" else None


def review(
    reviewed: Reviewed, draft: GameDraft, approved: frozenset[int], model: Tournament
) -> tuple[Reviewed, tuple[Problem | NotReady, ...]]:
    """The scoring engine's checks, then every seated player confirmed; with none left,
    every seat's points with Ci over the tournament ``model`` (8.6.1, D1)."""
    names = {pid: p.nickname for pid, p in reviewed.players.items()}
    game = game_from_draft(draft, names, chief_approved=approved)
    unconfirmed = [
        NotReady(N_("seat {seat}: {player} is not confirmed yet; the chief judge must "
                    "confirm him before the game can be saved"),
                 {"seat": n, "player": p.nickname}, rule="game")
        for n, s in enumerate(draft.seats, start=1)
        if (p := reviewed.players.get(s.player_id)) is not None and p.status != "confirmed"
    ]
    problems: tuple[Problem | NotReady, ...] = (*validate_game(game), *unconfirmed)
    if problems:
        return reviewed, problems
    ci = first_killed_ci(model, game, replaces=reviewed.replaces)
    breakdown = game_breakdown(game, ci=ci.ci)
    return Reviewed(reviewed.tournament, reviewed.players, reviewed.replaces, breakdown, ci), ()
