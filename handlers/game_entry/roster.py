"""The chief judge confirms or rejects a player a judge added at his table (step 2;
the use case is ``bot.services.games.decide_table_player``)."""

from __future__ import annotations

import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery
from aiogram.utils.i18n import gettext as _

from bot.services import Refusal
from bot.services.games import NO_SUCH_PLAYER, ONLY_CHIEF_CONFIRMS, decide_table_player
from bot.services.records import Database
from bot.texts.markup import html_text
from handlers.filters import ChiefJudge, answer_refusal
from handlers.game_entry.callbacks import RosterDecision

log = logging.getLogger(__name__)
router = Router(name="game_entry.roster")


@router.callback_query(
    RosterDecision.filter(),
    ChiefJudge(via="player", refusal=ONLY_CHIEF_CONFIRMS, missing=NO_SUCH_PLAYER),
)
async def decide_player(
    callback: CallbackQuery, callback_data: RosterDecision, db: Database, bot: Bot
) -> None:
    row = await decide_table_player(
        db, player_id=callback_data.id, actor=callback.from_user.id, confirm=callback_data.ok
    )
    if isinstance(row, Refusal):
        await answer_refusal(callback, row)
        return
    await callback.answer()
    name = f"<b>{html_text(row.nickname)}</b>"
    text = (
        _("{player} is confirmed.").format(player=name)
        if callback_data.ok
        else _("{player} is rejected.").format(player=name)
    )
    if callback.message is not None:
        try:
            await bot.edit_message_text(
                text=text, chat_id=callback.message.chat.id,
                message_id=callback.message.message_id,
            )
        except TelegramAPIError as exc:
            log.debug("roster message not edited: %s", exc)
