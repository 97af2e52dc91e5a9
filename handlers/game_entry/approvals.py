"""Judge's points above 0.5 for a winner need the chief judge's approval (8.4.3, D7).

On save every chief judge of the tournament gets a private message with Approve /
Lower to 0.5 (``bot.publishing.notices.GameTeller.saved``); the game stays ``pending``
until a decision. A chief judge who judged the game himself still taps it, so the
approval is recorded explicitly. The decision is audited, recomputes the standings,
and the game's judge is told (``bot.services.games.decide_approval``).
"""

from __future__ import annotations

import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery
from aiogram.utils.i18n import gettext as _

from bot.services import Refusal
from bot.services.games import (
    ONLY_CHIEF_APPROVES,
    STALE_REQUEST,
    Decision,
    decide_approval,
)
from handlers.filters import ChiefJudge, answer_refusal
from handlers.game_entry.callbacks import ApprovalDecision
from handlers.game_entry.notices import NOTICES
from handlers.game_entry.spec import Desk

log = logging.getLogger(__name__)
router = Router(name="game_entry.approvals")


@router.callback_query(
    ApprovalDecision.filter(),
    ChiefJudge(
        via="approval", finished=True, refusal=ONLY_CHIEF_APPROVES, missing=STALE_REQUEST
    ),
)
async def decide(
    callback: CallbackQuery,
    callback_data: ApprovalDecision,
    bot: Bot,
    desk: Desk,
) -> None:
    own = _own_message(callback)

    async def decided(decision: Decision) -> None:
        await callback.answer(_("Approved") if callback_data.a == "ok" else _("Lowered"))
        targets = list(decision.approval.messages)
        if own is not None and own not in targets:
            targets.append(own)
        await _edit(bot, targets, NOTICES.approval_decided(decision.approval, decision.game))

    found = await decide_approval(
        desk,
        desk.teller(bot),
        approval_id=callback_data.id,
        actor=callback.from_user.id,
        lower=callback_data.a == "low",
        acknowledge=decided,
    )
    if isinstance(found, Refusal):
        await answer_refusal(callback, found)
    elif not found.fresh:
        await callback.answer(_("This was decided already."))
        if own is not None:
            await _edit(bot, [own], NOTICES.approval_decided(found.approval, found.game))


def _own_message(callback: CallbackQuery) -> tuple[int, int] | None:
    message = callback.message
    return None if message is None else (message.chat.id, message.message_id)


async def _edit(bot: Bot, targets: list[tuple[int, int]], text: str) -> None:
    for chat_id, message_id in targets:
        try:
            await bot.edit_message_text(text=text, chat_id=chat_id, message_id=message_id)
        except TelegramAPIError as exc:
            log.debug("approval message %s/%s not edited: %s", chat_id, message_id, exc)
