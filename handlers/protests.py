"""Protests (8.8): a seated player files one within 10 minutes of the game's end, the
chief judge upholds or rejects it, finally (8.8.4).

The window runs from the game's recorded end to the protest message's own Telegram
date (D11): the message that carries the reason counts, whenever the bot reads it.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import (
    CallbackQuery,
    Chat,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    User,
)
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.db import games as games_db
from bot.db import players as players_db
from bot.db import protests as protests_db
from bot.db import staff as staff_db
from bot.db import tournaments as tournaments_db
from bot.db import users as users_db
from bot.db.audit import audit
from bot.db.connection import Conn, Database
from bot.db.errors import AlreadyDecided, GameAnnulled, NotFound, NotSeated, ProtestTooLate
from bot.db.games import GameRecord
from bot.db.players import PlayerRow
from bot.db.protests import ProtestRow
from bot.db.timeutil import from_ts, to_ts
from bot.db.tournaments import TournamentRow
from bot.db.users import UserRow
from bot.i18n import DEFAULT_LOCALE
from bot.localtime import clock as local_clock
from bot.publishing import Publisher
from bot.rating_format import esc, protest_note
from handlers.callbacks import GameMenu

log = logging.getLogger(__name__)
router = Router(name="protests")

NO_TEXT = "-"
MAX_SHOWN_REASON = 1500  # of the stored text, on the chief's card (a message holds 4096)
MAX_DECISION = 1000
MAX_LISTED = 20


class ProtestForm(StatesGroup):
    game = State()  # several recent games: which one (buttons)
    reason = State()  # the reason, in the next message


class ProtestDecision(StatesGroup):
    text = State()  # the chief judge's decision text, or "-"


class ProtestGame(CallbackData, prefix="pg"):
    game_id: int


class ProtestDecide(CallbackData, prefix="pd"):
    protest_id: int
    upheld: bool


# ----------------------------------------------------------------------------- texts


def locale_of(row: UserRow | None) -> str:
    code = (row.language_code or "") if row else ""
    return "en" if code.lower().startswith("en") else DEFAULT_LOCALE


def clock(moment: datetime, tz: str | None, reference: datetime | None = None) -> str:
    """``18:10 (UTC+03:00)`` in the tournament's zone ``tz`` (seconds when they matter;
    the date when not the reference's day)."""
    return local_clock(moment, tz, reference)


async def timezone_of(db: Database, tournament_id: int) -> str | None:
    async with db.read() as conn:
        tournament = await tournaments_db.get_tournament(conn, tournament_id)
    return tournament.timezone if tournament else None


def game_name(game: GameRecord) -> str:
    return _("round {round}, table {table}").format(round=game.round, table=game.table_no)


def card_text(
    protest: ProtestRow, game: GameRecord, tournament: TournamentRow, nickname: str
) -> str:
    seat = game.seat_of(protest.player_id)
    reason = protest.text
    if len(reason) > MAX_SHOWN_REASON:
        reason = reason[:MAX_SHOWN_REASON] + "…"
    return _(
        "⚖️ <b>Protest #{id}</b> · {title}\n"
        "Game: {game}; from {nickname} (seat {seat})\n"
        "Filed at {filed}; the deadline was {deadline} (8.8.1)\n"
        "Reason: {reason}"
    ).format(
        id=protest.id,
        title=esc(tournament.title),
        game=game_name(game),
        nickname=esc(nickname),
        seat=seat.seat if seat else "?",
        filed=clock(protest.filed_at, tournament.timezone, game.ended_at),
        deadline=clock(game.protest_deadline, tournament.timezone, game.ended_at),
        reason=esc(reason),
    )


def decision_keyboard(protest_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=_("✅ Uphold protest"),
                    callback_data=ProtestDecide(protest_id=protest_id, upheld=True).pack(),
                ),
                InlineKeyboardButton(
                    text=_("❌ Reject protest"),
                    callback_data=ProtestDecide(protest_id=protest_id, upheld=False).pack(),
                ),
            ]
        ]
    )


def not_seated_text() -> str:
    return _(
        "You did not sit in a recorded game here, so there is nothing you can protest "
        "(D11: only a player seated in the game may protest it). Nothing was recorded."
    )


def too_late_text(game: GameRecord, sent: datetime, tz: str | None) -> str:
    return _(
        "Too late: a protest is accepted no later than 10 minutes after the game's end "
        "(8.8.1). Your last game, {game}, ended at {ended}; the deadline was {deadline}, "
        "your message is from {sent}. Nothing was recorded."
    ).format(
        game=game_name(game),
        ended=clock(game.ended_at, tz, sent),
        deadline=clock(game.protest_deadline, tz, sent),
        sent=clock(sent, tz),
    )


def already_text(game: GameRecord, protest: ProtestRow) -> str:
    return _(
        "You have already protested {game}: {protest}. One protest per player and game "
        "(8.8); nothing new was recorded."
    ).format(game=game_name(game), protest=protest_note(protest.id, protest.status))


def busy_text() -> str:
    return _("Finish the current action first, or send /cancel.")


async def busy_elsewhere(state: FSMContext, mine: type[StatesGroup]) -> bool:
    """Another conversation (e.g. entering a game) is in progress in this chat."""
    current = await state.get_state()
    return current is not None and current not in mine


# ------------------------------------------------------------------- filing: lookups


@dataclass(frozen=True, slots=True)
class Deps:
    """What filing needs besides the protest itself (aiogram's injected objects)."""

    db: Database
    bot: Bot
    i18n: I18n
    publisher: Publisher


@dataclass(frozen=True, slots=True)
class Source:
    """The user's message that carries (or will carry) the protest."""

    chat_id: int
    message_id: int
    sent: datetime  # its own Telegram date (D11)
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Played:
    game: GameRecord
    player: PlayerRow
    tournament: TournamentRow


async def _players_here(conn: Conn, user_id: int, chat: Chat) -> list[PlayerRow]:
    if chat.type == "private":
        return await players_db.players_of_user(conn, user_id)
    tournament = await tournaments_db.running_tournament_for_chat(conn, chat.id)
    if tournament is None:
        return []
    player = await players_db.player_for_user(conn, tournament.id, user_id)
    return [] if player is None else [player]


async def _played(conn: Conn, user_id: int, chat: Chat) -> list[Played]:
    found = []
    for player in await _players_here(conn, user_id, chat):
        tournament = await tournaments_db.get_tournament(conn, player.tournament_id)
        if tournament is None:
            continue
        for game in await games_db.games_of_player(conn, player.id):
            found.append(Played(game, player, tournament))
    return found


async def _own_protest(conn: Conn, game_id: int, player_id: int) -> ProtestRow | None:
    for protest in await protests_db.protests_for_game(conn, game_id):
        if protest.player_id == player_id:
            return protest
    return None


# ------------------------------------------------------------------- filing: handlers


@router.message(Command("protest"))
async def protest_command(
    message: Message,
    command: CommandObject,
    state: FSMContext,
    db: Database,
    bot: Bot,
    i18n: I18n,
    publisher: Publisher,
) -> None:
    if await busy_elsewhere(state, ProtestForm):
        await message.answer(busy_text())
        return
    await state.clear()
    user = message.from_user
    assert user is not None  # the identity middleware lets only real senders through
    reason = (command.args or "").strip()
    sent = message.date
    async with db.read() as conn:
        played = await _played(conn, user.id, message.chat)
        in_window = [p for p in played if sent <= p.game.protest_deadline]
        fresh: list[Played] = []
        already: list[tuple[Played, ProtestRow]] = []
        for item in in_window:
            own = await _own_protest(conn, item.game.id, item.player.id)
            if own is None:
                fresh.append(item)
            else:
                already.append((item, own))
    if not played:
        await message.reply(not_seated_text())
        return
    if not in_window:
        last = max(played, key=lambda p: (p.game.ended_at, p.game.id))
        await message.reply(too_late_text(last.game, sent, last.tournament.timezone))
        return
    if not fresh:
        item, own = already[0]
        await message.reply(already_text(item.game, own))
        return
    source = Source(message.chat.id, message.message_id, sent, reason)
    deps = Deps(db, bot, i18n, publisher)
    # One game left unprotested is filed against straight away only when he protested
    # none of the window's games: otherwise he may well mean the one he protested (one
    # protest per player and game, 8.8), so he is asked, and told which one that was.
    if len(fresh) == 1 and not already:
        await _game_chosen(fresh[0].game.id, source, user, state, deps)
        return
    await state.set_state(ProtestForm.game)
    await state.set_data(
        {
            "chat_id": source.chat_id,
            "message_id": source.message_id,
            "sent": to_ts(sent),
            "reason": reason,
            "games": [p.game.id for p in fresh],
        }
    )
    several = len({p.tournament.id for p in fresh}) > 1
    rows = [
        [
            InlineKeyboardButton(
                text=_("{game}, ended {ended}").format(
                    game=game_name(p.game),
                    ended=clock(p.game.ended_at, p.tournament.timezone, sent),
                )
                + (f" · {p.tournament.title}" if several else ""),
                callback_data=ProtestGame(game_id=p.game.id).pack(),
            )
        ]
        for p in sorted(fresh, key=lambda p: p.game.ended_at, reverse=True)
    ]
    question = _("You played several games in the last 10 minutes. Which one do you protest?")
    if already:
        question += "\n" + _("You already protested {games}.").format(
            games="; ".join(game_name(item.game) for item, _own in already)
        )
    await message.reply(question, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


@router.callback_query(ProtestForm.game, ProtestGame.filter())
async def protest_game_chosen(
    callback: CallbackQuery,
    callback_data: ProtestGame,
    state: FSMContext,
    db: Database,
    bot: Bot,
    i18n: I18n,
    publisher: Publisher,
) -> None:
    data = await state.get_data()
    if callback_data.game_id not in data.get("games", []):
        await callback.answer(_("This card is out of date. Send /protest again."))
        return
    await callback.answer()
    if isinstance(callback.message, Message):
        # An old keyboard left in place is harmless: its taps are re-checked.
        with suppress(TelegramAPIError):
            await callback.message.edit_reply_markup(reply_markup=None)
    source = Source(
        int(data["chat_id"]), int(data["message_id"]), from_ts(int(data["sent"])), data["reason"]
    )
    await _game_chosen(
        callback_data.game_id, source, callback.from_user, state, Deps(db, bot, i18n, publisher)
    )


@router.callback_query(ProtestGame.filter())
async def protest_game_stale(callback: CallbackQuery) -> None:
    await callback.answer(_("This card is out of date or not yours. Send /protest again."))


async def _game_chosen(
    game_id: int, source: Source, user: User, state: FSMContext, deps: Deps
) -> None:
    if source.reason:
        await _file(game_id, source, user, state, deps)
        return
    async with deps.db.read() as conn:
        game = await games_db.get_game(conn, game_id)
        tournament = (
            None if game is None else await tournaments_db.get_tournament(conn, game.tournament_id)
        )
    if game is None:
        await state.clear()
        await deps.bot.send_message(
            source.chat_id, _("That game no longer exists. Nothing was recorded.")
        )
        return
    await state.set_state(ProtestForm.reason)
    await state.set_data({"game_id": game_id})
    private = source.chat_id == user.id
    await deps.bot.send_message(
        source.chat_id,
        _(
            "Write the reason of your protest against {game} in one message, before "
            "{deadline} (8.8.1). /cancel to stop."
        ).format(
            game=game_name(game),
            deadline=clock(game.protest_deadline, tournament.timezone if tournament else None),
        ),
        reply_to_message_id=None if private else source.message_id,
        # In a group the bot sees only replies to it (privacy mode): ask for one.
        reply_markup=None if private else ForceReply(selective=True),
    )


@router.message(ProtestForm.reason, F.text, ~F.text.startswith("/"))
async def protest_reason(
    message: Message,
    state: FSMContext,
    db: Database,
    bot: Bot,
    i18n: I18n,
    publisher: Publisher,
) -> None:
    user = message.from_user
    assert user is not None
    data = await state.get_data()
    reason = (message.text or "").strip()
    if not reason:
        await message.answer(_("The reason is empty. Write it in one message, or /cancel."))
        return
    # D11: the reason message's own date is the protest's.
    source = Source(message.chat.id, message.message_id, message.date, reason)
    await _file(int(data["game_id"]), source, user, state, Deps(db, bot, i18n, publisher))


@router.message(ProtestForm.reason, F.chat.type == "private", ~F.text.startswith("/"))
async def protest_reason_not_text(message: Message) -> None:
    await message.answer(_("Write the reason as text, or send /cancel."))


@router.message(ProtestForm.game, F.chat.type == "private", ~F.text.startswith("/"))
async def protest_game_not_chosen(message: Message) -> None:
    await message.answer(_("Choose the game with the buttons above, or send /cancel."))


class _AlreadyFiled(Exception):
    """One protest per player and game: a second one is refused (8.8)."""

    def __init__(self, protest: ProtestRow) -> None:
        super().__init__(f"protest {protest.id} was filed before")
        self.protest = protest


async def _file(game_id: int, source: Source, user: User, state: FSMContext, deps: Deps) -> None:
    """Store the protest (or refuse it, storing nothing), then tell the chief judges."""
    refusal: str | None = None
    try:
        async with deps.db.transaction() as conn:
            game = await games_db.require_game(conn, game_id)
            player = await players_db.player_for_user(conn, game.tournament_id, user.id)
            if player is None or game.seat_of(player.id) is None:
                raise NotSeated(game_id, player.id if player else 0)
            nickname = player.nickname
            own = await _own_protest(conn, game_id, player.id)
            if own is not None:
                raise _AlreadyFiled(own)
            protest = await protests_db.add_protest(
                conn,
                game_id,
                player.id,
                user.id,
                source.reason,
                source.sent,
                source_chat_id=source.chat_id,
                source_message_id=source.message_id,
            )
            await audit(
                conn,
                action="protest.file",
                entity="protest",
                entity_id=protest.id,
                tournament_id=game.tournament_id,
                actor_id=user.id,
                after=protest,
                at=source.sent,
            )
            tournament = await tournaments_db.require_tournament(conn, game.tournament_id)
            chiefs = await staff_db.list_staff(conn, game.tournament_id, role="chief")
            profiles = await users_db.get_users(conn, [c.user_id for c in chiefs])
            # The game is pending now: the standings mark it.
            await deps.publisher.enqueue(conn, game.tournament_id)
    except _AlreadyFiled as filed:
        refusal = already_text(game, filed.protest)
    except NotSeated:
        refusal = _(
            "You did not sit in that game, so you can't protest it (D11: only a player "
            "seated in the game may). Nothing was recorded."
        )
    except ProtestTooLate as late:
        tz = await timezone_of(deps.db, game.tournament_id)
        refusal = _(
            "Too late: a protest is accepted no later than 10 minutes after the game's end "
            "(8.8.1); the deadline was {deadline}, your message is from {sent}. "
            "Nothing was recorded."
        ).format(deadline=clock(late.deadline, tz, late.filed_at), sent=clock(late.filed_at, tz))
    except GameAnnulled:
        refusal = _("That game was annulled; there is nothing to protest.")
    except NotFound:
        refusal = _("That game no longer exists. Nothing was recorded.")
    await state.clear()
    bot = deps.bot
    if refusal is not None:
        await bot.send_message(source.chat_id, refusal, reply_to_message_id=source.message_id)
        return
    try:
        await bot.send_message(
            source.chat_id,
            _(
                "Protest #{id} against {game} is recorded. The chief judge will decide it "
                "(8.8.2), and I will tell you the decision."
            ).format(id=protest.id, game=game_name(game)),
            reply_to_message_id=source.message_id,
        )
    except TelegramAPIError as error:  # e.g. 403: it is recorded, the chiefs still hear
        log.info("protest %s: filer's chat %s not told: %s", protest.id, source.chat_id, error)
    for chief in chiefs:
        with deps.i18n.use_locale(locale_of(profiles.get(chief.user_id))):
            text = card_text(protest, game, tournament, nickname)
            keyboard = decision_keyboard(protest.id)
        try:
            await bot.send_message(chief.user_id, text, reply_markup=keyboard)
        except TelegramAPIError as error:  # he never started the bot: /protests lists it
            log.info("protest %s: chief %s not reached: %s", protest.id, chief.user_id, error)
    await deps.publisher.publish(bot, game.tournament_id)


# ------------------------------------------------------------------ the chief judge


@router.message(Command("protests"))
async def list_protests(message: Message, db: Database) -> None:
    user = message.from_user
    assert user is not None
    if message.chat.type != "private":
        await message.answer(_("Send /protests to me in a private chat."))
        return
    async with db.read() as conn:
        staffed = [
            s.tournament
            for s in await tournaments_db.tournaments_for_staff(
                conn, user.id, include_finished=True
            )
            if s.role == "chief"
        ]
        cards: list[tuple[str, int]] = []
        for tournament in staffed:
            for protest in await protests_db.open_protests(conn, tournament.id):
                game = await games_db.get_game(conn, protest.game_id)
                player = await players_db.get_player(conn, protest.player_id)
                if game is not None and player is not None:
                    text = card_text(protest, game, tournament, player.nickname)
                    cards.append((text, protest.id))
    if not staffed:
        await message.answer(_("Only the tournament's chief judge decides protests (8.8.2)."))
        return
    if not cards:
        await message.answer(_("No open protests."))
        return
    await message.answer(
        _("Open protests: {count}. Decide each with its buttons (8.8.2).").format(count=len(cards))
    )
    for text, protest_id in cards[:MAX_LISTED]:
        await message.answer(text, reply_markup=decision_keyboard(protest_id))
    if len(cards) > MAX_LISTED:
        await message.answer(
            _("…and {more} more: decide these first, then send /protests again.").format(
                more=len(cards) - MAX_LISTED
            )
        )


async def _chief_of(conn: Conn, game: GameRecord, user_id: int) -> bool:
    return await staff_db.staff_role(conn, game.tournament_id, user_id) == "chief"


def decided_text(protest: ProtestRow, tz: str | None) -> str:
    return _("Already decided: {protest} at {at}. The decision is final (8.8.4).").format(
        protest=protest_note(protest.id, protest.status),
        at=clock(protest.decided_at, tz) if protest.decided_at else "?",
    )


@router.callback_query(ProtestDecide.filter())
async def decide_tap(
    callback: CallbackQuery,
    callback_data: ProtestDecide,
    state: FSMContext,
    db: Database,
    bot: Bot,
) -> None:
    async with db.read() as conn:
        protest = await protests_db.get_protest(conn, callback_data.protest_id)
        game = None if protest is None else await games_db.get_game(conn, protest.game_id)
        chief = game is not None and await _chief_of(conn, game, callback.from_user.id)
    if protest is None or game is None:
        await callback.answer(_("This card is out of date: the protest no longer exists."))
        return
    if not chief:
        await callback.answer(
            _("Only the tournament's chief judge decides protests (8.8.2)."), show_alert=True
        )
        return
    if protest.status != "open":
        await callback.answer(decided_text(protest, await timezone_of(db, game.tournament_id)))
        return
    if await busy_elsewhere(state, ProtestDecision):
        await callback.answer(busy_text(), show_alert=True)
        return
    await callback.answer()
    card = callback.message if isinstance(callback.message, Message) else None
    await state.set_state(ProtestDecision.text)
    await state.set_data(
        {
            "protest_id": protest.id,
            "upheld": callback_data.upheld,
            "card": [card.chat.id, card.message_id] if card else None,
        }
    )
    if callback_data.upheld:
        ask = _(
            "Protest #{id} ({game}) will be upheld. Write the decision text for the "
            'player, or "-" for none; it is final once sent (8.8.4). /cancel to go back.'
        )
    else:
        ask = _(
            "Protest #{id} ({game}) will be rejected. Write the decision text for the "
            'player, or "-" for none; it is final once sent (8.8.4). /cancel to go back.'
        )
    await bot.send_message(callback.from_user.id, ask.format(id=protest.id, game=game_name(game)))


@router.message(ProtestDecision.text, F.text, ~F.text.startswith("/"))
async def decision_text(
    message: Message,
    state: FSMContext,
    db: Database,
    bot: Bot,
    i18n: I18n,
    publisher: Publisher,
) -> None:
    user = message.from_user
    assert user is not None
    data = await state.get_data()
    text = (message.text or "").strip()
    decision = None if text in ("", NO_TEXT) else text[:MAX_DECISION]
    upheld = bool(data.get("upheld"))
    refusal: str | None = None
    try:
        async with db.transaction() as conn:
            before = await protests_db.require_protest(conn, int(data["protest_id"]))
            game = await games_db.require_game(conn, before.game_id)
            if not await _chief_of(conn, game, user.id):
                raise PermissionError
            decided = await protests_db.decide_protest(
                conn,
                before.id,
                "upheld" if upheld else "rejected",
                decided_by=user.id,
                decision=decision,
                now=message.date,
            )
            await audit(
                conn,
                action="protest.decide",
                entity="protest",
                entity_id=decided.id,
                tournament_id=game.tournament_id,
                actor_id=user.id,
                before=before,
                after=decided,
                at=message.date,
            )
            player_user = await users_db.get_user(conn, decided.user_id)
            tournament = await tournaments_db.get_tournament(conn, game.tournament_id)
            # The group reads the tournament's language.
            with i18n.use_locale(tournament.language if tournament else DEFAULT_LOCALE):
                if upheld:
                    note = _(
                        "⚖️ Protest #{id} against {game} was upheld by the chief judge (8.8.4)."
                    )
                else:
                    note = _(
                        "⚖️ Protest #{id} against {game} was rejected by the chief judge (8.8.4)."
                    )
                note = note.format(id=decided.id, game=game_name(game))
            # The game no longer waits for the decision: the standings change too.
            await publisher.enqueue(conn, game.tournament_id, note=note, standings=True)
    except AlreadyDecided as error:
        refusal = decided_text(error.row, await timezone_of(db, game.tournament_id))
    except PermissionError:
        refusal = _("Only the tournament's chief judge decides protests (8.8.2).")
    except NotFound:
        refusal = _("This protest no longer exists.")
    await state.clear()
    if refusal is not None:
        await message.answer(refusal)
        return
    card = data.get("card")
    if card:
        # The card may be gone; a tap on it is refused as decided anyway.
        with suppress(TelegramAPIError):
            await bot.edit_message_reply_markup(
                chat_id=card[0], message_id=card[1], reply_markup=None
            )
    if upheld:
        await message.answer(
            _(
                "Protest #{id} upheld; the decision is recorded and final (8.8.4). Now "
                "correct or annul {game} as the decision requires."
            ).format(id=decided.id, game=game_name(game)),
            reply_markup=InlineKeyboardMarkup(
                inline_keyboard=[
                    [
                        InlineKeyboardButton(
                            text=_("Correct or annul the game"),
                            callback_data=GameMenu(game_id=game.id).pack(),
                        )
                    ]
                ]
            ),
        )
    else:
        await message.answer(
            _("Protest #{id} rejected; the decision is recorded and final (8.8.4).").format(
                id=decided.id
            )
        )
    with i18n.use_locale(locale_of(player_user)):
        if upheld:
            told = _(
                "Your protest #{id} against {game} was upheld by the chief judge. "
                "The decision is final (8.8.4)."
            )
        else:
            told = _(
                "Your protest #{id} against {game} was rejected by the chief judge. "
                "The decision is final (8.8.4)."
            )
        told = told.format(id=decided.id, game=game_name(game))
        if decided.decision:
            told += "\n" + _("Decision: {text}").format(text=esc(decided.decision))
    try:
        await bot.send_message(decided.user_id, told)
    except TelegramAPIError as error:
        log.info("protest %s: player %s not reached: %s", decided.id, decided.user_id, error)
    await publisher.publish(bot, game.tournament_id, now=True)


@router.message(ProtestDecision.text, ~F.text.startswith("/"))
async def decision_not_text(message: Message) -> None:
    await message.answer(_('Write the decision as text, "-" for none, or send /cancel.'))
