"""The chief judge confirms or rejects a player a judge added at his table (step 2)."""

from __future__ import annotations

import html
import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery
from aiogram.utils.i18n import gettext as _

from bot.db import audit, players, staff
from bot.db.connection import Database
from bot.db.errors import NicknameTaken, PlayerHasGames, UserAlreadyPlayer
from handlers.game_entry.callbacks import RosterDecision

log = logging.getLogger(__name__)
router = Router(name="game_entry.roster")


@router.callback_query(RosterDecision.filter())
async def decide_player(
    callback: CallbackQuery, callback_data: RosterDecision, bot: Bot, db: Database
) -> None:
    user_id = callback.from_user.id
    async with db.read() as conn:
        row = await players.get_player(conn, callback_data.id)
        role = await staff.staff_role(conn, row.tournament_id, user_id) if row else None
    if row is None:
        await callback.answer(_("There is no such player."))
        return
    if role != "chief":
        await callback.answer(_("Only the chief judge can confirm players."), show_alert=True)
        return
    if row.status != "pending":
        await callback.answer(_("This was decided already."))
        return
    try:
        async with db.transaction() as conn:
            if callback_data.ok:
                after = await players.confirm_player(conn, row.id, decided_by=user_id)
            else:
                after = await players.reject_player(conn, row.id, decided_by=user_id)
            await audit.audit(
                conn,
                action="player.confirm" if callback_data.ok else "player.reject",
                entity="player",
                entity_id=row.id,
                tournament_id=row.tournament_id,
                actor_id=user_id,
                before=row,
                after=after,
            )
    except (NicknameTaken, UserAlreadyPlayer):
        await callback.answer(_("The nickname or account is taken meanwhile."), show_alert=True)
        return
    except PlayerHasGames:
        await callback.answer(_("He has played games; annul them first."), show_alert=True)
        return
    await callback.answer()
    name = f"<b>{html.escape(row.nickname)}</b>"
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
