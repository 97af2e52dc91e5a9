"""The first-killed player's own best move (8.3): his taps in his private chat.

The player's taps change the JUDGE's draft: it is read and written under the judge's
own FSM lock, and the judge's card is edited in the judge's language. The request
itself, and the judge's side of step 6, are ``steps/best_move.py``.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack

from aiogram import Bot, Dispatcher, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.fsm.context import FSMContext
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage, StorageKey
from aiogram.types import CallbackQuery
from aiogram.utils.i18n import gettext as _

from bot.reads import card_reads
from handlers.game_entry.callbacks import PlayerMove
from handlers.game_entry.commands import attempt, refusal_text
from handlers.game_entry.draft import DATA_KEY, Draft
from handlers.game_entry.flow import closed_by_live, current_draft, store
from handlers.game_entry.spec import Ctx, Desk
from handlers.game_entry.states import GameEntry
from handlers.game_entry.steps.best_move import (
    named_text,
    player_markup,
    player_text,
    seats_text,
    tournament_title,
)
from scoring.protocol import Refusal

log = logging.getLogger(__name__)
router = Router(name="game_entry.best_move")

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
    desk: Desk,
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
        # The judge's card, in his FSM context; no background: the tap waits for its edit.
        judge_state = FSMContext(storage=fsm_storage, key=key)
        judge = desk.ctx(bot, judge_state, callback_data.j, waiting=True)
        d = await current_draft(judge.state)
        if d is not None and d.token == callback_data.t and await closed_by_live(judge, d):
            await callback.answer(_("The judge saved this game in the live protocol; nothing "
                                    "was changed."), show_alert=True)
            return
        refusal = await _check_tap(judge, d, callback_data, callback)
        if refusal is not None:
            await callback.answer(refusal, show_alert=True)
            return
        assert d is not None
        await _apply_tap(judge, d, callback_data, callback)


async def _apply_tap(
    judge: Ctx, d: Draft, data: PlayerMove, callback: CallbackQuery
) -> None:
    """The player's number (or Done) into the judge's draft; his request and the
    judge's card show it."""
    assert d.bm_msg is not None
    if data.a == "s":
        refusal = attempt(d, {"type": "best_move", "seat": data.n})  # 8.3.3, D10
        answer = _("Seat {seat}: named.").format(seat=data.n)
    else:
        refusal = attempt(d, {"type": "best_move_end"})  # 8.3.2
        answer = _("Accepted")
    if refusal is not None:
        await callback.answer(_player_refusal(refusal), show_alert=True)
        return
    if d.bm_done:
        answer = _("Accepted") + ": " + seats_text(d.bm)
    await callback.answer(answer)
    # On the best-move step the card shows the tap too: the draft is stored with it
    # (one write), before the player's request is edited, as it is otherwise.
    if await judge.state.get_state() == GameEntry.best_move.state:
        card = await store(judge, d)
    else:
        card = None
        await judge.state.update_data({DATA_KEY: d.to_dict()})
    title = await tournament_title(judge, d.tid)
    with judge.i18n.use_locale(d.bm_locale):
        text = player_text(d, title)
        markup = None if d.bm_done else player_markup(d)
    try:
        await judge.bot.edit_message_text(
            text=text, chat_id=d.bm_msg[0], message_id=d.bm_msg[1], reply_markup=markup
        )
    except TelegramAPIError as exc:
        log.info("best move message not edited: %s", exc)
    if card is not None:
        await card()


async def _check_tap(
    judge: Ctx, d: Draft | None, data: PlayerMove, callback: CallbackQuery
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
    # Re-checked against the roster as stored now: the seat's player is still this account.
    seat = d.first_killed
    pid = d.players[seat - 1] if seat else None
    tournament = await judge.tournament(d.tid) if pid is not None else None
    row = (await card_reads.roster_player(judge.db, tournament, pid)
           if tournament is not None and pid is not None else None)
    if row is None or row.user_id != callback.from_user.id:
        return _("This best move is not yours to make.")
    if data.a not in ("s", "d"):
        return _("This request is out of date; nothing was changed.")
    return None


def _player_refusal(refusal: Refusal) -> str:
    """The protocol's refusal of his tap, said to the player himself."""
    if refusal.rule == "D10":
        return _("You can't name your own seat.")
    seat = refusal.params.get("seat")
    if refusal.rule == "8.3.3" and isinstance(seat, int):
        return named_text(seat)
    return refusal_text(refusal)
