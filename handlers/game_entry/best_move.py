"""Step 6, the best move (8.3): the first-killed player taps his numbers himself in his
private chat, or the judge enters them.

Each number is final once named (8.3.3); "Done" ends the best move early (8.3.2);
after the third number or Done the bot answers "Accepted" (8.3.1). The player's taps
change the JUDGE's draft: it is read and written under the judge's own FSM lock, and
the judge's card is edited in the judge's language.
"""

from __future__ import annotations

import asyncio
import html
import logging
from contextlib import AsyncExitStack

from aiogram import Bot, Dispatcher, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError
from aiogram.fsm.context import FSMContext
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage, StorageKey
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.db import players, tournaments, users
from bot.db.connection import Database
from bot.publishing import Publisher
from bot.standings import StandingsService
from handlers.game_entry.callbacks import PlayerMove, Step
from handlers.game_entry.draft import BEST_MOVE_MAX, DATA_KEY, Draft
from handlers.game_entry.flow import (
    ENTER_HOOKS,
    STATES,
    Ctx,
    action,
    current_draft,
    locale_for_code,
    note,
    show,
)
from scoring import N_, SEAT_NUMBERS

log = logging.getLogger(__name__)
router = Router(name="game_entry.best_move")


def seats_text(seats: list[int]) -> str:
    return ", ".join(str(s) for s in seats) if seats else _("none")


# -- the request to the player ------------------------------------------------------------


def player_markup(d: Draft) -> InlineKeyboardMarkup:
    rows: list[list[InlineKeyboardButton]] = []
    row: list[InlineKeyboardButton] = []
    for n in SEAT_NUMBERS:
        if n == d.first_killed:
            continue  # his own seat can't be named (D10)
        label = f"✓{n}" if n in d.bm else str(n)
        data = PlayerMove(j=d.judge_id, t=d.token, a="s", n=n).pack()
        row.append(InlineKeyboardButton(text=label, callback_data=data))
        if len(row) == 5:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    done = PlayerMove(j=d.judge_id, t=d.token, a="d").pack()
    rows.append(
        [InlineKeyboardButton(text=_("Done ({count} named)").format(count=len(d.bm)),
                              callback_data=done)]
    )
    return InlineKeyboardMarkup(inline_keyboard=rows)


def player_text(d: Draft, title: str) -> str:
    lines = [
        _("«{title}», round {round}, table {table}: you were shot on night 1.").format(
            title=html.escape(title), round=d.round, table=d.table
        )
    ]
    if d.bm_done:
        lines.append(
            "<b>" + _("Accepted") + "</b> (8.3.1): " + seats_text(d.bm)
        )
        return "\n\n".join(lines)
    lines.append(
        _("Your best move (8.3): tap up to three seats you believe black, one number at a "
          "time. Each tap is final (8.3.3); tap Done to stop earlier (8.3.2).")
    )
    if d.bm:
        lines.append(_("Named: {seats}").format(seats=seats_text(d.bm)))
    return "\n\n".join(lines)


async def _title(db: Database, tid: int) -> str:
    async with db.read() as conn:
        t = await tournaments.get_tournament(conn, tid)
    return t.title if t else ""


async def ask_player(ctx: Ctx, d: Draft) -> None:
    """On entering step 6 of a new game: send the first-killed player his buttons, if
    his account is linked and he can be messaged; otherwise the judge enters them."""
    if d.mode != "new" or d.bm_by is not None or d.bm_done or d.first_killed is None:
        return
    player_id = d.players[d.first_killed - 1]
    if player_id is None:
        return
    async with ctx.db.read() as conn:
        row = await players.get_player(conn, player_id)
        profile = await users.get_user(conn, row.user_id) if row and row.user_id else None
    d.bm_by = "judge"
    if row is None or row.user_id is None:
        note(d, N_("{player}'s Telegram account is not linked: enter his numbers yourself."),
             player=row.nickname if row else "?")
        return
    if profile is None or not profile.can_message:
        note(d, N_("{player} has not started the bot, so he can't be asked: enter his numbers "
                   "yourself."), player=row.nickname)
        return
    locale = locale_for_code(profile.language_code)
    title = await _title(ctx.db, d.tid)
    with ctx.i18n.use_locale(locale):
        text, markup = player_text(d, title), player_markup(d)
    try:
        sent = await ctx.bot.send_message(row.user_id, text, reply_markup=markup)
    except (TelegramForbiddenError, TelegramBadRequest) as exc:
        log.info("best move request to %s refused: %s", row.user_id, exc.message)
        async with ctx.db.transaction() as conn:
            await users.set_can_message(conn, row.user_id, False)
        note(d, N_("Telegram refused to deliver the request to {player} (he never started the "
                   "bot or blocked it): enter his numbers yourself."), player=row.nickname)
        return
    d.bm_by = "player"
    d.bm_user = row.user_id
    d.bm_msg = [sent.chat.id, sent.message_id]
    d.bm_locale = locale


ENTER_HOOKS["bm"] = ask_player


async def void_request(bot: Bot, i18n: I18n, d: Draft, msgid: str) -> None:
    """Take the buttons off the player's request (the judge took over, changed the
    first-killed seat or cancelled)."""
    if d.bm_msg is None:
        return
    chat_id, message_id = d.bm_msg
    with i18n.use_locale(d.bm_locale):
        text = _(msgid)
        if d.bm:
            text += "\n" + _("Named: {seats}").format(seats=seats_text(d.bm))
    try:
        await bot.edit_message_text(text=text, chat_id=chat_id, message_id=message_id)
    except TelegramAPIError as exc:
        log.info("best move request %s/%s not edited: %s", chat_id, message_id, exc)


async def drop(ctx: Ctx, d: Draft) -> None:
    """Forget the best move (another first-killed seat, or 8.3.6)."""
    old = d.copy()
    d.clear_best_move()
    ctx.after.append(
        lambda: void_request(ctx.bot, ctx.i18n, old, N_("This best move request was cancelled "
                                                         "by the judge."))
    )


# -- the judge's buttons ------------------------------------------------------------------


def _accept_if_full(d: Draft) -> None:
    if len(d.bm) >= BEST_MOVE_MAX:
        d.bm_done = True


@action("bm", "seat")
async def judge_names(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.bm_done:
        return _("The best move is accepted; named numbers can't be changed (8.3.3).")
    if d.bm_by == "player":
        return _("The player is tapping his numbers himself. Tap «Take over» to enter them.")
    if data.n not in SEAT_NUMBERS or data.n == d.first_killed:
        return _("He can't name his own seat (D10).")
    if data.n in d.bm:
        return _("Seat {seat} is named already (8.3.3).").format(seat=data.n)
    d.bm_by = "judge"
    d.bm.append(data.n)
    _accept_if_full(d)
    return None


def named_text(seat: int) -> str:
    return _("Seat {seat} is named already; named numbers can't be changed (8.3.3).").format(
        seat=seat
    )


@action("bm", "noop")
async def named_already(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return named_text(data.n)


@action("bm", "done")
async def judge_done(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.bm_done:
        return _("The best move is accepted already.")
    if d.bm_by == "player":
        return _("The player is tapping his numbers himself. Tap «Take over» to enter them.")
    d.bm_by = "judge"
    d.bm_done = True  # 8.3.2: only the numbers named so far count
    return None


@action("bm", "hint")
async def toggle_hint(ctx: Ctx, d: Draft, data: Step) -> str | None:
    d.bm_hint = not d.bm_hint  # 8.3.5
    return None


@action("bm", "take")
async def take_over(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.bm_by != "player" or d.bm_done:
        return _("Nothing to take over.")
    old = d.copy()
    d.bm_by = "judge"
    d.bm_msg = None
    ctx.after.append(
        lambda: void_request(
            ctx.bot, ctx.i18n, old, N_("The judge is entering your best move himself.")
        )
    )
    return None


@action("bm", "clear")
async def clear_in_correction(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.mode != "correct":
        return _("Named numbers can't be changed (8.3.3).")
    d.clear_best_move()
    d.bm_by = "judge"
    return None


# -- the player's taps --------------------------------------------------------------------


# How long a player's tap waits for the judge's card while the judge's own update runs;
# then the tap is refused, nothing changed, and can simply be made again.
JUDGE_WAIT = 5.0


def _judge_key(bot: Bot, judge_id: int) -> StorageKey:
    # The judge's card lives in his private chat: chat id = user id.
    return StorageKey(bot_id=bot.id, chat_id=judge_id, user_id=judge_id)


async def _hold_judge(
    held: AsyncExitStack,
    isolation: BaseEventIsolation,
    key: StorageKey,
    own: FSMContext | None,
) -> bool:
    """Hold the judge's isolation lock until ``held`` closes: his own taps hold it too,
    so his draft changes one update at a time. False: not had in time.

    aiogram's FSM middleware already holds the lock of THIS update's key, and an
    asyncio lock is not re-entrant. So a tap from the judge's own chat (a judge seated
    at his own table and shot first, or forged button data) takes nothing more, and
    another key's lock is waited for at most ``JUDGE_WAIT`` seconds: two chats tapping
    each other's requests at once would otherwise each wait for the other for ever.
    """
    if own is not None and own.key == key:
        return True
    try:
        async with asyncio.timeout(JUDGE_WAIT):
            await held.enter_async_context(isolation.lock(key))
    except TimeoutError:
        return False
    return True


@router.callback_query(PlayerMove.filter())
async def player_taps(
    callback: CallbackQuery,
    callback_data: PlayerMove,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    i18n: I18n,
    dispatcher: Dispatcher,
    fsm_storage: BaseStorage,
    state: FSMContext | None = None,
) -> None:
    key = _judge_key(bot, callback_data.j)
    async with AsyncExitStack() as held:
        if not await _hold_judge(held, dispatcher.fsm.events_isolation, key, state):
            log.info("best move tap of %s: the card of judge %s stayed busy",
                     callback.from_user.id, callback_data.j)
            await callback.answer(
                _("The judge's card is busy; nothing was changed. Tap again in a moment."),
                show_alert=True,
            )
            return
        judge_state = FSMContext(storage=fsm_storage, key=key)
        d = await current_draft(judge_state)
        refusal = await _check_tap(db, d, callback_data, callback)
        if refusal is not None:
            await callback.answer(refusal, show_alert=True)
            return
        assert d is not None and d.bm_msg is not None
        if callback_data.a == "s":
            d.bm.append(callback_data.n)
            _accept_if_full(d)
            answer = _("Seat {seat}: named.").format(seat=callback_data.n)
        else:
            d.bm_done = True
            answer = _("Accepted")
        if d.bm_done:
            answer = _("Accepted") + ": " + seats_text(d.bm)
        await callback.answer(answer)
        await judge_state.update_data({DATA_KEY: d.to_dict()})
        title = await _title(db, d.tid)
        with i18n.use_locale(d.bm_locale):
            text = player_text(d, title)
            markup = None if d.bm_done else player_markup(d)
        try:
            await bot.edit_message_text(
                text=text, chat_id=d.bm_msg[0], message_id=d.bm_msg[1], reply_markup=markup
            )
        except TelegramAPIError as exc:
            log.info("best move message not edited: %s", exc)
        if await judge_state.get_state() == STATES["bm"].state:
            ctx = Ctx(bot, db, standings, publisher, judge_state, i18n, callback_data.j)
            await show(ctx, d)


async def _check_tap(
    db: Database, d: Draft | None, data: PlayerMove, callback: CallbackQuery
) -> str | None:
    message = callback.message
    if (
        d is None
        or d.token != data.t
        or d.bm_msg is None
        or message is None
        or [message.chat.id, message.message_id] != d.bm_msg
    ):
        if d is not None and d.token == data.t and d.bm_done:
            return _("Your best move was accepted already: {seats}.").format(
                seats=seats_text(d.bm)
            )
        return _("This request is out of date; nothing was changed.")
    if callback.from_user.id != d.bm_user:
        return _("This best move is not yours to make.")
    if d.bm_done:
        return _("Your best move was accepted already: {seats}.").format(seats=seats_text(d.bm))
    if d.bm_by != "player":
        return _("The judge is entering your best move himself.")
    # Re-checked against the database: the seat's player is still this account.
    seat = d.first_killed
    pid = d.players[seat - 1] if seat else None
    async with db.read() as conn:
        row = await players.get_player(conn, pid) if pid is not None else None
    if row is None or row.user_id != callback.from_user.id:
        return _("This best move is not yours to make.")
    if data.a == "s":
        if data.n not in SEAT_NUMBERS or data.n == seat:
            return _("You can't name your own seat (D10).")
        if data.n in d.bm:
            return named_text(data.n)
    elif data.a != "d":
        return _("This request is out of date; nothing was changed.")
    return None
