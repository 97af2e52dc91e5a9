"""Use cases of games (docs/organiser.md): Save a game or its correction, annul a
game, the chief judge's decision on judge's points above 0.5 (8.4.3, D7), and players
a judge adds at his table.

Each owns its transaction with the audit entry and the outbox rows. Save returns the
game with its :class:`GameNews`: who must hear what once the judge has his answer (the
group's outbox, the chief judges' approval requests, changes to the seating plan); its
caller answers the judge, then hands the news to ``bot.publishing.notices.GameTeller``,
which words and sends them and records the approval requests' messages here
(:func:`approval_asked`), to be edited once decided. The other use cases take
``acknowledge``, the handler's reply, and call it right after the commit, before the
caller's ``Teller`` publishes and tells the others.

Who is told what, when and in which language is decided here; the words, the buttons
and the sending are the caller's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.db import audit, games, players, staff, tournaments, users
from bot.db import stages as stages_db
from bot.db.connection import Conn, Database
from bot.db.errors import (
    AlreadyDecided,
    DuplicateTable,
    GameAnnulled,
    InvalidDraft,
    InvalidNickname,
    NicknameTaken,
    NotEntrants,
    NotFound,
    PlayerHasGames,
    UserAlreadyPlayer,
)
from bot.db.games import ApprovalRow, GameDraft, GameRecord
from bot.db.players import PlayerRow
from bot.db.timeutil import utcnow
from bot.db.tournaments import CHIEF
from bot.reads.stored_plans import accepted_plan
from bot.services import N_, Refusal
from bot.services.notices import Notice, Outbox, locale_of_user, notice_to
from bot.services.phrases import Joined, Phrase, ResultLines, StageName, Verbatim, locale_for
from bot.services.seating_rounds import round_saved
from scoring import Role, protocol
from scoring.judging import APPROVAL_THRESHOLD, BEST_MOVE_NUMBERS_MAX


class Runtime(Protocol):
    """What a game use case records in: the database and the group's outbox."""

    @property
    def db(self) -> Database: ...

    @property
    def publisher(self) -> Outbox: ...


# A message sent: (chat id, message id).
Sent = tuple[int, int]


class Teller(Protocol):
    """How the game use cases' news reach people once committed: the caller words and
    sends them (``bot.publishing.notices.GameTeller``), each in the reader's ``locale``,
    with buttons where a chief judge is asked to decide. A message that can't arrive is
    logged, and the rest still go."""

    async def publish(self, tournament_id: int, what: str) -> None:
        """The group's outbox goes out (a failure is logged: the change is saved)."""

    async def tell(self, notice: Notice) -> None: ...

    async def ask_to_confirm(
        self, chief: int, locale: str, judge: str, player: PlayerRow, title: str
    ) -> None:
        """The chief judge is asked to confirm a player the judge added at his table."""

    async def tell_decision(
        self, judge: int, locale: str, approval: ApprovalRow, game: GameRecord
    ) -> None:
        """The game's judge hears the chief judge's decision on his points."""


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
class Saved:
    record: GameRecord
    news: GameNews


@dataclass(frozen=True, slots=True)
class Gone(Refusal):
    """The game was annulled (or deleted) meanwhile: its correction can't be saved."""


# -- Save ----------------------------------------------------------------------------------------


async def save_game(
    rt: Runtime,
    *,
    tournament_id: int,
    draft: GameDraft,
    correcting: int | None,
    actor: int,
    lines: ResultLines,
) -> Saved | Refusal:
    """Save a new game (idempotent by its ``draft_id``; the chat gets its result line,
    without points while its stage is hidden: D17) or, with ``correcting`` (a game id),
    a correction of a stored game (audited with before and after). A new game ends now:
    the protest window opens (8.8.1, D11). Returns the game and its news: the chat's
    update, the chief judges' requests for judge's points above 0.5 (D7), and a
    changed seating plan's notices."""
    refused = protocol_refusal(draft)
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
) -> Saved | Refusal:
    """``save_game`` of a draft the protocol accepted already (``protocol_refusal``)."""
    ended_at = utcnow()
    try:
        async with rt.db.transaction() as conn:
            if correcting is not None:
                record = await _save_correction(rt, conn, correcting, draft, actor)
            else:
                record = await _save_new(rt, conn, tournament_id, draft, actor, ended_at, lines)
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
    approvals, unreached = await _approvals_to_ask(rt.db, record)
    changes = await _plan_change_notices(rt.db, record, actor) if correcting is None else ()
    return Saved(record, GameNews(record, approvals, unreached, changes))


def protocol_commands(draft: GameDraft) -> list[dict[str, object]]:
    """The game's protocol commands (``scoring.protocol``) that make ``draft``."""
    seats = {role: [n for n, s in enumerate(draft.seats, start=1) if s.role is role]
             for role in Role}
    commands: list[dict[str, object]] = [
        {"type": "roles", "sheriff": seats[Role.SHERIFF][0], "don": seats[Role.DON][0],
         "mafia": seats[Role.MAFIA]},
        {"type": "day1", "count": draft.day1_voted_out},
        {"type": "night1", "seat": draft.first_killed},
    ]
    commands += [{"type": "best_move", "seat": seat} for seat in draft.best_move]
    if draft.best_move and len(draft.best_move) < BEST_MOVE_NUMBERS_MAX:
        commands.append({"type": "best_move_end"})  # a stored best move is accepted
    if draft.best_move_hint:
        commands.append({"type": "best_move_hint"})
    commands.append({"type": "result", "result": draft.result.value})
    for n, seat in enumerate(draft.seats, start=1):
        if seat.disqualified:
            commands.append({"type": "disqualify", "seat": n})
        commands += [{"type": "penalty", "seat": n, "rule": rule} for rule in seat.penalties]
        if seat.judge_extra:
            commands.append({"type": "extra", "seat": n, "hundredths": seat.judge_extra})
    return commands


def protocol_refusal(draft: GameDraft) -> Refusal | None:
    """Whether the game's protocol accepts ``draft`` (the card's path and any other):
    a draft it refuses is not stored, and the judge learns the rule it breaks."""
    commands = protocol_commands(draft)
    replayed = protocol.replay(commands)
    if not isinstance(replayed, protocol.Refusal):
        return None
    reason = Phrase(replayed.text, replayed.params)
    if not replayed.rule[:1].isdigit():  # the team's own ids (D1-D17) are no judge's business
        return Refusal(N_("Not saved: {reason}"), {"reason": reason})
    return Refusal(N_("Not saved: {rule}: {reason}"), {"rule": replayed.rule, "reason": reason})


async def _plan_change_notices(db: Database, game: GameRecord, actor: int) -> tuple[Notice, ...]:
    """A table of the accepted seating plan played with a substitute: the chief judges
    (but the one who saved it) learn who played instead of whom, and that the remaining
    rounds can be re-planned if a player left."""
    plan = await accepted_plan(db, game.tournament_id)
    planned = plan.seats_at(game.round, game.table_no) if plan else None
    swaps = [
        (seat.seat, seat.nickname, planned[seat.seat - 1])
        for seat in game.seats
        if planned is not None and seat.player_id != planned[seat.seat - 1]
    ]
    if not swaps or plan is None:
        return ()
    names = {pid: name for name, pid in plan.ids.items()}
    async with db.read() as conn:
        chiefs = await staff.list_staff(conn, game.tournament_id, role=CHIEF)
        title = (await tournaments.require_tournament(conn, game.tournament_id)).title

    lines = [
        Phrase(
            N_("Seat {seat}: {player} instead of {planned}."),
            {"seat": seat, "player": Verbatim(nickname),
             "planned": Verbatim(names.get(pid, "?"))},
        )
        for seat, nickname, pid in swaps
    ]
    said = Joined((
        Phrase(
            N_("«{title}», game {code} was played with a change to the seating plan:"),
            {"title": Verbatim(title), "code": game.code},
        ),
        *lines,
        Phrase(N_("If a player left the tournament, re-plan the remaining rounds with /seating.")),
    ), "\n")
    told = [chief.user_id for chief in chiefs if chief.user_id != actor]
    async with db.read() as conn:
        profiles = await users.get_users(conn, told)
    return tuple(Notice(uid, said, locale_for(profiles.get(uid))) for uid in told)


async def _save_correction(
    rt: Runtime, conn: Conn, game_id: int, draft: GameDraft, actor: int
) -> GameRecord:
    """Within the transaction: the stored game replaced, audited with before and after."""
    before = await games.require_game(conn, game_id)
    record = await games.update_game(conn, game_id, draft)
    await audit.record(
        conn,
        "game.update",
        record.id,
        record.tournament_id,
        actor,
        before=before,
        after=record,
    )
    await rt.publisher.enqueue(conn, record.tournament_id)
    await round_saved(conn, record.tournament_id, record.round)  # a moved game may end it
    return record


async def _save_new(
    rt: Runtime,
    conn: Conn,
    tournament_id: int,
    draft: GameDraft,
    actor: int,
    ended_at: datetime,
    lines: ResultLines,
) -> GameRecord:
    """Within the transaction: a Save delivered again finds its game stored and adds
    neither an audit entry nor a second result line. The line's wording follows the
    stage the game was stored in, decided here for the card and the live protocol alike."""
    fresh = await games.get_game_by_draft(conn, draft.draft_id) is None
    game_id = await games.save_game(conn, tournament_id, draft, actor, ended_at)
    record = await games.require_game(conn, game_id)
    if fresh:
        await audit.record(
            conn,
            "game.save",
            record.id,
            record.tournament_id,
            actor,
            after=record,
        )
        hidden = await stages_db.game_hides_figures(conn, record.id)
        line = lines.hidden if hidden else lines.shown
        await rt.publisher.enqueue(conn, record.tournament_id, result=line, game_id=record.id)
        await round_saved(conn, record.tournament_id, record.round)  # the next round's seating
    return record


# -- the chief judge: his games, annulment ---------------------------------------------------


# Why the chief judge's buttons on games are refused (their filters say it too).
NO_SUCH_GAME = Refusal(N_("There is no such game."), alert=True)
ONLY_CHIEF_CORRECTS = Refusal(N_("Only the chief judge can correct or annul a game."), alert=True)
STALE_REQUEST = Refusal(N_("This request is out of date."))
ONLY_CHIEF_APPROVES = Refusal(N_("Only the chief judge can decide this (8.4.3)."), alert=True)
NO_SUCH_PLAYER = Refusal(N_("There is no such player."))
ONLY_CHIEF_CONFIRMS = Refusal(N_("Only the chief judge can confirm players."), alert=True)
ONLY_CHIEF_LISTS = Refusal(N_("Only the chief judge can list and correct games."), alert=True)

async def annul_game(
    rt: Runtime,
    teller: Teller,
    *,
    game: GameRecord,
    actor: int,
    acknowledge: Callable[[GameRecord], Awaitable[None]],
) -> GameRecord:
    """Annul ``game``: it leaves the standings and its round and table become free
    (audited once, however often it is tapped)."""
    async with rt.db.transaction() as conn:
        before = await games.require_game(conn, game.id)
        after = await games.annul_game(conn, game.id, annulled_by=actor)
        if before.status != "annulled":
            await audit.record(
                conn,
                "game.annul",
                game.id,
                game.tournament_id,
                actor,
                before=before,
                after=after,
            )
            await rt.publisher.enqueue(conn, game.tournament_id)
    await acknowledge(after)
    await teller.publish(game.tournament_id, f"annulment of game {game.id}")
    return after


# -- approvals of judge's points above 0.5 (8.4.3, D7) -------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    approval: ApprovalRow  # as decided
    game: GameRecord  # after the decision (before it, when ``fresh`` is False)
    fresh: bool  # False: it was decided already, nothing changed


async def decide_approval(
    rt: Runtime,
    teller: Teller,
    *,
    approval_id: int,
    actor: int,
    lower: bool,
    acknowledge: Callable[[Decision], Awaitable[None]],
) -> Decision | Refusal:
    """The chief judge approves the requested points or lowers them to 0.5 (D7); the
    standings follow and the game's judge is told."""
    async with rt.db.read() as conn:
        row = await games.get_approval(conn, approval_id)
        game = await games.get_game(conn, row.game_id) if row else None
        role = await staff.staff_role(conn, game.tournament_id, actor) if game else None
    if row is None or game is None:
        return STALE_REQUEST
    if role != CHIEF:
        return ONLY_CHIEF_APPROVES
    try:
        decision = await _decide(rt, row, game, actor, APPROVAL_THRESHOLD if lower else None)
    except AlreadyDecided as exc:
        return Decision(exc.row, game, fresh=False)
    await acknowledge(decision)
    await teller.publish(game.tournament_id, f"standings after approval {row.id}")
    async with rt.db.read() as conn:
        locale = await locale_of_user(conn, game.judge_id)
    await teller.tell_decision(game.judge_id, locale, decision.approval, decision.game)
    return decision


async def _decide(
    rt: Runtime, row: ApprovalRow, game: GameRecord, actor: int, lowered: int | None
) -> Decision:
    """The decision, audited, in one transaction (raises ``AlreadyDecided``)."""
    async with rt.db.transaction() as conn:
        decided = await games.decide_approval(conn, row.id, decided_by=actor, lowered_to=lowered)
        after = await games.require_game(conn, game.id)
        await audit.audit(
            conn,
            action="approval.approve" if lowered is None else "approval.lower",
            entity="approval",
            entity_id=row.id,
            tournament_id=game.tournament_id,
            actor_id=actor,
            before=row,
            after=decided,
        )
        await rt.publisher.enqueue(conn, game.tournament_id)
    return Decision(decided, after, fresh=True)


async def _approvals_to_ask(
    db: Database, game: GameRecord
) -> tuple[tuple[ApprovalAsk, ...], tuple[Notice, ...]]:
    """The approvals of ``game`` no chief judge was asked about yet, whom to ask, and the
    judge's notice for when none of them can be reached."""
    async with db.read() as conn:
        rows = [
            a
            for a in await games.approvals_for_game(conn, game.id)
            if a.status == "pending" and not a.messages
        ]
        if not rows:
            return (), ()
        t = await tournaments.get_tournament(conn, game.tournament_id)
        chiefs = await staff.list_staff(conn, game.tournament_id, role=CHIEF)
        profiles = await users.get_users(conn, [c.user_id for c in chiefs] + [game.judge_id])
    judge = profiles.get(game.judge_id)
    unreached = (Notice(game.judge_id, Phrase(N_(
        "I could not reach the chief judge for the approval. He can decide it in /games."
    )), locale_for(judge)),)
    judge_name = judge.first_name if judge else str(game.judge_id)
    asked = tuple(
        (chief.user_id, locale_for(profiles.get(chief.user_id))) for chief in chiefs
    )
    title = t.title if t else ""
    return tuple(ApprovalAsk(row, asked, title, judge_name) for row in rows), unreached


async def approval_asked(db: Database, approval_id: int, sent: list[Sent]) -> None:
    """The messages an approval request went out as, edited once it is decided."""
    async with db.transaction() as conn:
        await games.set_approval_messages(conn, approval_id, sent)


async def _tell(rt: Runtime, teller: Teller, user_id: int, said: Phrase | Joined) -> None:
    """A notice in his own language (bot.services.notices)."""
    async with rt.db.read() as conn:
        notices = await notice_to(conn, user_id, said)
    for notice in notices:
        await teller.tell(notice)


# -- players added at a table ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TablePlayer:
    player: PlayerRow
    ask_chiefs: bool  # added now, pending: the chief judges are to confirm him


async def add_player_at_table(
    db: Database, *, tournament_id: int, nickname: str, actor: int
) -> TablePlayer | Refusal:
    """The player of that nickname, added to the roster if he is not on it: confirmed
    when a chief judge adds him, else pending the chief judge's confirmation."""
    async with db.transaction() as conn:
        existing = await players.find_player_by_nickname(conn, tournament_id, nickname)
        if existing is not None:
            return TablePlayer(existing, ask_chiefs=False)
        chief = await staff.staff_role(conn, tournament_id, actor) == CHIEF
        try:
            row = await players.add_player(
                conn,
                tournament_id,
                nickname,
                status="confirmed" if chief else "pending",
                decided_by=actor if chief else None,
            )
        except InvalidNickname:
            return Refusal(
                N_("This nickname can't be used: 1–{max} visible characters."),
                {"max": players.MAX_NICKNAME},
            )
        except NicknameTaken as exc:
            return Refusal(N_("The nickname {name} is taken."), {"name": exc.nickname})
        await audit.record(
            conn,
            "player.add",
            row.id,
            tournament_id,
            actor,
            after=row,
        )
    return TablePlayer(row, ask_chiefs=row.status == "pending")


async def ask_chiefs_to_confirm(
    rt: Runtime, teller: Teller, *, tournament_id: int, player_id: int, judge: int
) -> None:
    """The chief judges (but the judge himself) are asked to confirm a player the
    judge added at his table."""
    async with rt.db.read() as conn:
        row = await players.get_player(conn, player_id)
        t = await tournaments.get_tournament(conn, tournament_id)
        chiefs = await staff.list_staff(conn, tournament_id, role=CHIEF)
        known = await users.get_users(conn, [c.user_id for c in chiefs])
        profile = await users.get_user(conn, judge)
    if row is None or t is None:
        return
    judge_name = profile.first_name if profile else str(judge)
    for chief in chiefs:
        if chief.user_id == judge:
            continue
        locale = locale_for(known.get(chief.user_id))
        await teller.ask_to_confirm(chief.user_id, locale, judge_name, row, t.title)


async def decide_table_player(
    db: Database, *, player_id: int, actor: int, confirm: bool
) -> PlayerRow | Refusal:
    """The chief judge confirms or rejects a player added at a table; the player as he
    was before."""
    async with db.read() as conn:
        row = await players.get_player(conn, player_id)
        role = await staff.staff_role(conn, row.tournament_id, actor) if row else None
    if row is None:
        return NO_SUCH_PLAYER
    if role != CHIEF:
        return ONLY_CHIEF_CONFIRMS
    if row.status != "pending":
        return Refusal(N_("This was decided already."))
    try:
        async with db.transaction() as conn:
            if confirm:
                after = await players.confirm_player(conn, row.id, decided_by=actor)
            else:
                after = await players.reject_player(conn, row.id, decided_by=actor)
            await audit.audit(
                conn,
                action="player.confirm" if confirm else "player.reject",
                entity="player",
                entity_id=row.id,
                tournament_id=row.tournament_id,
                actor_id=actor,
                before=row,
                after=after,
            )
    except (NicknameTaken, UserAlreadyPlayer):
        return Refusal(N_("The nickname or account is taken meanwhile."), alert=True)
    except PlayerHasGames:
        return Refusal(N_("He has played games; annul them first."), alert=True)
    return row


__all__ = [
    "ApprovalAsk",
    "Decision",
    "GameNews",
    "Gone",
    "ResultLines",
    "Runtime",
    "Saved",
    "Sent",
    "TablePlayer",
    "Teller",
    "add_player_at_table",
    "annul_game",
    "approval_asked",
    "ask_chiefs_to_confirm",
    "decide_approval",
    "decide_table_player",
    "save_game",
    "store_game",
]
