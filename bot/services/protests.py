"""Protests (8.8): a seated player files one within 10 minutes of the game's end, the
chief judge upholds or rejects it, finally (8.8.4).

The window runs from the game's recorded end to the protest message's own Telegram
date (D11): the message that carries the reason counts, whenever the bot reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.db import games, players, protests, staff, tournaments, users
from bot.db.audit import record
from bot.db.connection import Conn, Database
from bot.db.errors import AlreadyDecided, GameAnnulled, NotFound, NotSeated, ProtestTooLate
from bot.db.evening_play import protests_on
from bot.db.games import GameRecord
from bot.db.players import PlayerRow
from bot.db.protests import ProtestRow
from bot.db.tournaments import CHIEF, TournamentRow
from bot.services import N_, Refusal
from bot.services.notices import FollowUp, Notice, Outbox, notice_to
from bot.services.phrases import Clock, Joined, Phrase, ProtestNote, Verbatim, locale_for

MAX_SHOWN_REASON = 1500  # of the stored text, on the chief's card (a message holds 4096)

DECIDES_PROTESTS = Refusal(N_("Only the tournament's chief judge decides protests (8.8.2)."))
GAME_GONE = Refusal(N_("That game no longer exists. Nothing was recorded."))
# A club evening takes no protests unless its club turned them on (docs/club.md).
PROTESTS_OFF = Refusal(
    N_(
        "This club's evenings take no protests: the host's decision is final. The club's "
        "owner can turn protests on with /club_protests on."
    )
)
NOT_SEATED = Refusal(
    N_(
        "You did not sit in a recorded game here, so there is nothing you can protest "
        "(only a player seated in the game may protest it). Nothing was recorded."
    )
)


# -- what is said of them -----------------------------------------------------------------


def game_name(game: GameRecord) -> Phrase:
    return Phrase(N_("round {round}, table {table}"), {"round": game.round, "table": game.table_no})


def card_text(
    protest: ProtestRow, game: GameRecord, tournament: TournamentRow, nickname: str
) -> Phrase:
    """The protest as the chief judge decides it."""
    seat = game.seat_of(protest.player_id)
    reason = protest.text
    if len(reason) > MAX_SHOWN_REASON:
        reason = reason[:MAX_SHOWN_REASON] + "…"
    tz, ended = tournament.timezone, game.ended_at
    return Phrase(
        N_(
            "⚖️ <b>Protest #{id}</b> · {title}\n"
            "Game: {game}; from {nickname} (seat {seat})\n"
            "Filed at {filed}; the deadline was {deadline} (8.8.1)\n"
            "Reason: {reason}"
        ),
        {
            "id": protest.id,
            "title": Verbatim(tournament.title),
            "game": game_name(game),
            "nickname": Verbatim(nickname),
            "seat": seat.seat if seat else "?",
            "filed": Clock(protest.filed_at, tz, ended),
            "deadline": Clock(game.protest_deadline, tz, ended),
            "reason": Verbatim(reason),
        },
    )


def already_protested(game: GameRecord, protest: ProtestRow) -> Refusal:
    return Refusal(
        N_(
            "You have already protested {game}: {protest}. One protest per player and game "
            "(8.8); nothing new was recorded."
        ),
        {"game": game_name(game), "protest": ProtestNote(protest.id, protest.status)},
    )


def decided_already(protest: ProtestRow, tz: str | None) -> Refusal:
    return Refusal(
        N_("Already decided: {protest} at {at}. The decision is final (8.8.4)."),
        {
            "protest": ProtestNote(protest.id, protest.status),
            "at": Clock(protest.decided_at, tz) if protest.decided_at else "?",
        },
    )


# -- which game a protest is about ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Played:
    game: GameRecord
    player: PlayerRow
    tournament: TournamentRow


@dataclass(frozen=True, slots=True)
class Choices:
    """The games of the last 10 minutes the player may protest, and those he did."""

    fresh: list[Played]
    already: list[tuple[Played, ProtestRow]]


async def _players_here(conn: Conn, user_id: int, chat_id: int, private: bool) -> list[PlayerRow]:
    if private:
        return await players.players_of_user(conn, user_id)
    tournament = await tournaments.running_tournament_for_chat(conn, chat_id)
    if tournament is None:
        return []
    player = await players.player_for_user(conn, tournament.id, user_id)
    return [] if player is None else [player]


async def _played(conn: Conn, user_id: int, chat_id: int, private: bool) -> list[Played]:
    found = []
    for player in await _players_here(conn, user_id, chat_id, private):
        tournament = await tournaments.get_tournament(conn, player.tournament_id)
        if tournament is None:
            continue
        for game in await games.games_of_player(conn, player.id):
            found.append(Played(game, player, tournament))
    return found


async def _own_protest(conn: Conn, game_id: int, player_id: int) -> ProtestRow | None:
    for protest in await protests.protests_for_game(conn, game_id):
        if protest.player_id == player_id:
            return protest
    return None


async def protest_choices(
    db: Database, user_id: int, chat_id: int, *, private: bool, sent: datetime
) -> Choices | Refusal:
    """What a /protest sent at ``sent`` may be about: in a group its tournament's games,
    in private any of the player's."""
    async with db.read() as conn:
        everything = await _played(conn, user_id, chat_id, private)
        taking = {
            tid: await protests_on(conn, tid) for tid in {p.tournament.id for p in everything}
        }
        played = [p for p in everything if taking[p.tournament.id]]
        in_window = [p for p in played if sent <= p.game.protest_deadline]
        choices = Choices([], [])
        for item in in_window:
            own = await _own_protest(conn, item.game.id, item.player.id)
            if own is None:
                choices.fresh.append(item)
            else:
                choices.already.append((item, own))
    if not played:
        return PROTESTS_OFF if everything else NOT_SEATED
    if not in_window:
        last = max(played, key=lambda p: (p.game.ended_at, p.game.id))
        return too_late(last.game, sent, last.tournament.timezone)
    if not choices.fresh:
        item, own = choices.already[0]
        return already_protested(item.game, own)
    return choices


def too_late(game: GameRecord, sent: datetime, tz: str | None) -> Refusal:
    return Refusal(
        N_(
            "Too late: a protest is accepted no later than 10 minutes after the game's end "
            "(8.8.1). Your last game, {game}, ended at {ended}; the deadline was {deadline}, "
            "your message is from {sent}. Nothing was recorded."
        ),
        {
            "game": game_name(game),
            "ended": Clock(game.ended_at, tz, sent),
            "deadline": Clock(game.protest_deadline, tz, sent),
            "sent": Clock(sent, tz),
        },
    )


async def protested_game(db: Database, game_id: int) -> tuple[GameRecord, str | None] | None:
    """The game and its tournament's time zone (None: the game is gone)."""
    async with db.read() as conn:
        game = await games.get_game(conn, game_id)
        tournament = (
            None if game is None else await tournaments.get_tournament(conn, game.tournament_id)
        )
    if game is None:
        return None
    return game, tournament.timezone if tournament else None


# -- filing -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """The user's message that carries (or will carry) the protest."""

    chat_id: int
    message_id: int
    sent: datetime  # its own Telegram date (D11)
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Filed:
    protest: ProtestRow
    game: GameRecord
    follow_up: FollowUp  # the chief judges get its card; the standings mark the game


class _Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.msgid)
        self.refusal = refusal


async def file_protest(
    db: Database, publisher: Outbox, game_id: int, source: Source, user_id: int
) -> Filed | Refusal:
    """Store the protest, or refuse it storing nothing."""
    try:
        async with db.transaction() as conn:
            game = await games.require_game(conn, game_id)
            if not await protests_on(conn, game.tournament_id):
                return PROTESTS_OFF
            protest, nickname = await _add_protest(conn, game, source, user_id)
            tournament = await tournaments.require_tournament(conn, game.tournament_id)
            chiefs = await staff.list_staff(conn, game.tournament_id, role=CHIEF)
            profiles = await users.get_users(conn, [c.user_id for c in chiefs])
            # The game is pending now: the standings mark it.
            await publisher.enqueue(conn, game.tournament_id)
    except _Refused as refused:
        return refused.refusal
    except NotSeated:
        return Refusal(
            N_(
                "You did not sit in that game, so you can't protest it (only a player "
                "seated in the game may). Nothing was recorded."
            )
        )
    except ProtestTooLate as late:
        return await _filed_too_late(db, game, late)
    except GameAnnulled:
        return Refusal(N_("That game was annulled; there is nothing to protest."))
    except NotFound:
        return GAME_GONE
    card = card_text(protest, game, tournament, nickname)
    cards = tuple(
        Notice(chief.user_id, card, locale_for(profiles.get(chief.user_id))) for chief in chiefs
    )
    return Filed(protest, game, FollowUp(cards, game.tournament_id))


async def _add_protest(
    conn: Conn, game: GameRecord, source: Source, user_id: int
) -> tuple[ProtestRow, str]:
    """The protest, with the nickname of who filed it."""
    player = await players.player_for_user(conn, game.tournament_id, user_id)
    if player is None or game.seat_of(player.id) is None:
        raise NotSeated(game.id, player.id if player else 0)
    own = await _own_protest(conn, game.id, player.id)
    if own is not None:  # one protest per player and game (8.8)
        raise _Refused(already_protested(game, own))
    protest = await protests.add_protest(
        conn,
        game.id,
        player.id,
        user_id,
        source.reason,
        source.sent,
        source_chat_id=source.chat_id,
        source_message_id=source.message_id,
    )
    await record(
        conn, "protest.file", protest.id, game.tournament_id, user_id, after=protest, at=source.sent
    )
    return protest, player.nickname


async def _filed_too_late(db: Database, game: GameRecord, late: ProtestTooLate) -> Refusal:
    tz = await _timezone_of(db, game.tournament_id)
    return Refusal(
        N_(
            "Too late: a protest is accepted no later than 10 minutes after the game's end "
            "(8.8.1); the deadline was {deadline}, your message is from {sent}. "
            "Nothing was recorded."
        ),
        {"deadline": Clock(late.deadline, tz, late.filed_at), "sent": Clock(late.filed_at, tz)},
    )


async def _timezone_of(db: Database, tournament_id: int) -> str | None:
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, tournament_id)
    return tournament.timezone if tournament else None


# -- the chief judge decides ------------------------------------------------------------


async def open_protests(db: Database, chosen: list[TournamentRow]) -> list[tuple[Phrase, int]]:
    """The cards of the tournaments' open protests, with their ids."""
    cards: list[tuple[Phrase, int]] = []
    async with db.read() as conn:
        for tournament in chosen:
            for protest in await protests.open_protests(conn, tournament.id):
                game = await games.get_game(conn, protest.game_id)
                player = await players.get_player(conn, protest.player_id)
                if game is not None and player is not None:
                    text = card_text(protest, game, tournament, player.nickname)
                    cards.append((text, protest.id))
    return cards


@dataclass(frozen=True, slots=True)
class Decided:
    protest: ProtestRow
    game: GameRecord
    follow_up: FollowUp  # the player is told; the group too, and the standings change


async def decide_protest(
    db: Database,
    publisher: Outbox,
    protest_id: int,
    *,
    upheld: bool,
    decision: str | None,
    actor_id: int,
    now: datetime,
) -> Decided | Refusal:
    """Uphold or reject an open protest, finally (8.8.4). The chief judge is checked
    again here: the decision text comes in a conversation, after the tap."""
    tournament_id = 0
    try:
        async with db.transaction() as conn:
            before = await protests.require_protest(conn, protest_id)
            game = await games.require_game(conn, before.game_id)
            tournament_id = game.tournament_id
            if await staff.staff_role(conn, tournament_id, actor_id) != CHIEF:
                return DECIDES_PROTESTS
            decided = await protests.decide_protest(
                conn,
                before.id,
                "upheld" if upheld else "rejected",
                decided_by=actor_id, decision=decision, now=now
            )
            await record(
                conn, "protest.decide", decided.id, tournament_id, actor_id,
                before=before, after=decided, at=now,
            )
            await _tell_group(conn, publisher, decided, game)
            notices = await notice_to(conn, decided.user_id, told(decided, game))
    except AlreadyDecided as error:
        return decided_already(error.row, await _timezone_of(db, tournament_id))
    except NotFound:
        return Refusal(N_("This protest no longer exists."))
    follow_up = FollowUp(notices, tournament_id, now=True)
    return Decided(decided, game, follow_up)


async def _tell_group(
    conn: Conn, publisher: Outbox, decided: ProtestRow, game: GameRecord
) -> None:
    """The group's note of the decision; the game no longer waits for it, so the
    standings change too."""
    if decided.status == "upheld":
        note = N_("⚖️ Protest #{id} against {game} was upheld by the chief judge (8.8.4).")
    else:
        note = N_("⚖️ Protest #{id} against {game} was rejected by the chief judge (8.8.4).")
    said = Phrase(note, {"id": decided.id, "game": game_name(game)})
    await publisher.enqueue(conn, game.tournament_id, note=said, standings=True)


def told(decided: ProtestRow, game: GameRecord) -> Phrase | Joined:
    """The decision as the player who filed the protest is told it."""
    if decided.status == "upheld":
        text = N_(
            "Your protest #{id} against {game} was upheld by the chief judge. "
            "The decision is final (8.8.4)."
        )
    else:
        text = N_(
            "Your protest #{id} against {game} was rejected by the chief judge. "
            "The decision is final (8.8.4)."
        )
    said = Phrase(text, {"id": decided.id, "game": game_name(game)})
    if not decided.decision:
        return said
    return Joined(
        (said, Phrase(N_("Decision: {text}"), {"text": Verbatim(decided.decision)})), "\n"
    )
