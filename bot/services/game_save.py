"""Save a game (docs/ARCHITECTURE.md, "A Save"): the judge's card and the live protocol's
page both save through :func:`save`, which does the whole of it, here alone.

What it reads it reads at once: the tournament, the saver's role, the ten seated, the
live protocol's game of the card and the corrected game's code. Then, in order: a card
whose game the live protocol saved is told so (:class:`SavedLive`); an out-of-date card,
a saver who may not, a finished tournament are refused; the review (the scoring
engine's checks, every seated player confirmed, every seat's points with Ci over the
tournament, 8.6.1, D1, and the game's protocol, which must accept the game however it
was entered) returns what is left to fix (:class:`Unready`) or what the protocol
refuses (:class:`NotSaved`); the group's result lines are worded by the caller's
:class:`GroupLines`; and one transaction stores the game with its audit entry and the
group's outbox row. A new game is stored idempotently by its ``draft_id`` and ends
now: the protest window opens (8.8.1, D11); a correction is audited with before and
after.

The caller renders what it returns, then hands the :class:`GameNews` to
``bot.publishing.notices.GameTeller``: the group's outbox, the chief judges' approval
requests for judge's points above 0.5 (D7, their messages recorded here by
:func:`approval_asked`, to be edited once decided), a changed seating plan's notices.
Who is told what, and in which language, is decided here; the words, the buttons and
the sending are the caller's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.db import audit, games, live, players, staff, tournaments, users
from bot.db import stages as stages_db
from bot.db.connection import Conn, Database
from bot.db.errors import DuplicateTable, GameAnnulled, InvalidDraft, NotEntrants, NotFound
from bot.db.games import ApprovalRow, GameDraft, GameRecord
from bot.db.live import LiveDraft
from bot.db.players import PlayerRow
from bot.db.scoring_bridge import game_from_draft
from bot.db.timeutil import utcnow
from bot.db.tournaments import CHIEF, JUDGE, TournamentRow
from bot.reads.card_reads import tournament_model
from bot.reads.standings import StandingsService
from bot.reads.stored_plans import accepted_plan
from bot.services import N_, Refusal
from bot.services.games import Runtime
from bot.services.live import FINISHED, NotReady
from bot.services.notices import Notice
from bot.services.phrases import Joined, Phrase, ResultLines, StageName, Verbatim, locale_for
from bot.services.refusals import OUT_OF_DATE
from bot.services.seating_rounds import round_saved
from bot.services.staff import tournament_and_role
from scoring import (
    GameBreakdown,
    Problem,
    Tournament,
    game_breakdown,
    protocol,
    validate_game,
)
from scoring.judging import CiInfo, first_killed_ci


class SaveRuntime(Runtime, Protocol):
    """What a Save talks to: the database, the group's outbox, the standings (Ci)."""

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
class Gone(Refusal):
    """The game was annulled (or deleted) meanwhile: its correction can't be saved."""


# A message sent: (chat id, message id).
Sent = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ApprovalAsk:
    """Judge's points above 0.5 the chief judges are to decide (D7): each of ``chiefs``
    (user id, language) is asked; ``judge`` is who gave them, as the request names him."""

    approval: ApprovalRow
    chiefs: tuple[tuple[int, str], ...]
    title: str
    judge: str


@dataclass(frozen=True, slots=True)
class GameNews:
    """What others must hear once a Save is committed and its judge answered, in order:
    the group's outbox, the approval requests (``unreached``, the judge's notice, when no
    chief judge could be reached), then ``notices``."""

    game: GameRecord
    approvals: tuple[ApprovalAsk, ...] = ()
    unreached: tuple[Notice, ...] = ()
    notices: tuple[Notice, ...] = ()


@dataclass(frozen=True, slots=True)
class Stored:
    """The game as stored, with its news."""

    record: GameRecord
    news: GameNews


@dataclass(frozen=True, slots=True)
class Saved(Stored):
    """A Save done: the game, its news and the review that passed it."""

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
    # As every tap of the card checks them: read once per change of the database.
    t, role = await tournament_and_role(rt.db, request.tournament_id, request.actor)
    async with rt.db.read() as conn:
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
    reviewed, problems, accepted = review(reviewed, draft, request.approved, model)
    if reviewed.breakdown is None:
        return Unready(FIX_FIRST, alert=True, problems=problems, reviewed=reviewed)
    if saving is not None:
        await saving()
    done = protocol_refusal(accepted) or await store_game(
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
) -> tuple[Reviewed, tuple[Problem | NotReady, ...], protocol.Protocol | protocol.Refusal | None]:
    """The scoring engine's checks, then every seated player confirmed; with none left,
    every seat's points with Ci over the tournament ``model`` (8.6.1, D1), and the
    game's protocol (``scoring.protocol.of_game``): the protocol, or what it refuses
    (None while something is left to fix)."""
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
        return reviewed, problems, None
    ci = first_killed_ci(model, game, replaces=reviewed.replaces)
    breakdown = game_breakdown(game, ci=ci.ci)
    passed = Reviewed(reviewed.tournament, reviewed.players, reviewed.replaces, breakdown, ci)
    return passed, (), protocol.of_game(game)


def protocol_refusal(replayed: protocol.Protocol | protocol.Refusal | None) -> Refusal | None:
    """What the game's protocol refused, as the judge reads it: the rule it breaks (the
    team's own ids, D1-D17, are no judge's business); None: it accepts the game."""
    if not isinstance(replayed, protocol.Refusal):
        return None
    reason = Phrase(replayed.text, replayed.params)
    if not replayed.rule[:1].isdigit():
        return Refusal(N_("Not saved: {reason}"), {"reason": reason})
    return Refusal(N_("Not saved: {rule}: {reason}"), {"rule": replayed.rule, "reason": reason})


async def save_game(
    rt: Runtime,
    *,
    tournament_id: int,
    draft: GameDraft,
    correcting: int | None,
    actor: int,
    lines: ResultLines,
) -> Stored | Refusal:
    """Store ``draft`` as it is sent, without the card's review but not without the
    protocol's check: a draft the protocol refuses is not stored, and the sender learns
    the rule it breaks. The rest as :func:`store_game`."""
    names = {s.player_id: "" for s in draft.seats}  # the protocol needs no names
    refused = protocol_refusal(protocol.of_game(game_from_draft(draft, names)))
    if refused is not None:
        return refused
    return await store_game(
        rt, tournament_id=tournament_id, draft=draft, correcting=correcting, actor=actor,
        lines=lines,
    )


async def store_game(
    rt: Runtime,
    *,
    tournament_id: int,
    draft: GameDraft,
    correcting: int | None,
    actor: int,
    lines: ResultLines,
) -> Stored | Refusal:
    """One transaction: a new game (its result line for the chat, without points while
    its stage is hidden: D17) or the correction of a stored one; then its news."""
    ended_at = utcnow()
    planned = correcting is None
    asks: tuple[ApprovalRow, ...] | None = None  # None: read once committed
    try:
        async with rt.db.transaction() as conn:
            if correcting is not None:
                record = await _store_correction(rt, conn, correcting, draft, actor)
            else:
                added, planned = await _store_new(
                    rt, conn, tournament_id, draft, actor, ended_at, lines
                )
                record = added.record
                asks = added.approvals if added.fresh else None
    except DuplicateTable as exc:
        return Refusal(
            N_("Round {round}, table {table} was saved meanwhile (game #{id}). Nothing was "
               "saved: change the round or table (step 1)."),
            {"round": exc.round, "table": exc.table_no, "id": exc.game_id},
        )
    except (GameAnnulled, NotFound):
        return Gone(N_("This game was annulled meanwhile; the correction was not saved."))
    except NotEntrants as exc:
        return Refusal(
            N_("Not saved: not among the entrants of the {stage} stage: {players} (the "
               "chief judge may have just replaced one). Seat the table again on the card."),
            {"players": Verbatim(", ".join(exc.names)), "stage": StageName(exc.stage)},
        )
    except InvalidDraft as exc:
        return Refusal(N_("Not saved: {reason}"), {"reason": str(exc)})
    return Stored(record, await _news(rt.db, record, actor, planned=planned, asks=asks))


async def _store_correction(
    rt: Runtime, conn: Conn, game_id: int, draft: GameDraft, actor: int
) -> GameRecord:
    """Within the transaction: the stored game replaced, audited with before and after."""
    before = await games.require_game(conn, game_id)
    record = await games.update_game(conn, game_id, draft)
    await audit.record(
        conn, "game.update", record.id, record.tournament_id, actor, before=before, after=record
    )
    await rt.publisher.enqueue(conn, record.tournament_id)
    await round_saved(conn, record.tournament_id, record.round)  # a moved game may end it
    return record


async def _store_new(
    rt: Runtime,
    conn: Conn,
    tournament_id: int,
    draft: GameDraft,
    actor: int,
    ended_at: datetime,
    lines: ResultLines,
) -> tuple[games.AddedGame, bool]:
    """Within the transaction: a Save delivered again finds its game stored and adds
    neither an audit entry nor a second result line. The line's wording follows the
    stage the game was stored in, decided here for the card and the live protocol alike.
    Returns the game, and False when a new game's tournament has no accepted seating
    plan (its news need not look for one)."""
    added = await games.add_game(conn, tournament_id, draft, actor, ended_at)
    record = added.record
    if not added.fresh:
        return added, True
    await audit.record(conn, "game.save", record.id, record.tournament_id, actor, after=record)
    # Without stages nothing hides the figures (D17).
    hidden = added.staged and await stages_db.game_hides_figures(conn, record.id)
    line = lines.hidden if hidden else lines.shown
    await rt.publisher.enqueue(conn, record.tournament_id, result=line, game_id=record.id)
    # The next round's seating.
    return added, await round_saved(conn, record.tournament_id, record.round)


# -- the news -----------------------------------------------------------------------------


async def _news(
    db: Database,
    game: GameRecord,
    actor: int,
    *,
    planned: bool,
    asks: Sequence[ApprovalRow] | None = None,
) -> GameNews:
    """Who hears of the stored ``game`` besides the group, read at once: the chief judges
    about its judge's points above 0.5 no chief judge was asked about yet (D7; the
    judge's notice for when none of them can be reached; ``asks``: those, when the
    Save just requested them) and, when ``planned`` (a new game of a tournament with
    an accepted seating plan), about a table of the plan played with a substitute (but
    the one who saved it): who played instead of whom, and that the remaining rounds
    can be re-planned if a player left."""
    plan = await accepted_plan(db, game.tournament_id) if planned else None
    at_table = plan.seats_at(game.round, game.table_no) if plan else None
    swaps = [
        (seat.seat, seat.nickname, at_table[seat.seat - 1])
        for seat in game.seats
        if at_table is not None and seat.player_id != at_table[seat.seat - 1]
    ]
    if asks is not None and not asks and not swaps:
        return GameNews(game)
    async with db.read() as conn:
        if asks is None:
            asks = [
                a for a in await games.approvals_for_game(conn, game.id)
                if a.status == "pending" and not a.messages
            ]
        if not asks and not swaps:
            return GameNews(game)
        t = await tournaments.get_tournament(conn, game.tournament_id)
        chiefs = [c.user_id for c in await staff.list_staff(conn, game.tournament_id, role=CHIEF)]
        profiles = await users.get_users(conn, [*chiefs, game.judge_id])
    title = t.title if t else ""
    locales = {uid: locale_for(profiles.get(uid)) for uid in (*chiefs, game.judge_id)}
    approvals: tuple[ApprovalAsk, ...] = ()
    unreached: tuple[Notice, ...] = ()
    if asks:
        judge = profiles.get(game.judge_id)
        judge_name = judge.first_name if judge else str(game.judge_id)
        asked = tuple((chief, locales[chief]) for chief in chiefs)
        approvals = tuple(ApprovalAsk(a, asked, title, judge_name) for a in asks)
        unreached = (Notice(game.judge_id, Phrase(N_(
            "I could not reach the chief judge for the approval. He can decide it in /games."
        )), locales[game.judge_id]),)
    notices: tuple[Notice, ...] = ()
    if swaps and plan is not None:
        names = {pid: name for name, pid in plan.ids.items()}
        said = Joined((
            Phrase(
                N_("«{title}», game {code} was played with a change to the seating plan:"),
                {"title": Verbatim(title), "code": game.code},
            ),
            *(
                Phrase(
                    N_("Seat {seat}: {player} instead of {planned}."),
                    {"seat": seat, "player": Verbatim(nickname),
                     "planned": Verbatim(names.get(pid, "?"))},
                )
                for seat, nickname, pid in swaps
            ),
            Phrase(N_("If a player left the tournament, re-plan the remaining rounds with "
                      "/seating.")),
        ), "\n")
        notices = tuple(Notice(uid, said, locales[uid]) for uid in chiefs if uid != actor)
    return GameNews(game, approvals, unreached, notices)


async def approval_asked(db: Database, approval_id: int, sent: list[Sent]) -> None:
    """The messages an approval request went out as, edited once it is decided."""
    async with db.transaction() as conn:
        await games.set_approval_messages(conn, approval_id, sent)
