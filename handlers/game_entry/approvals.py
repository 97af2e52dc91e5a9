"""Judge's points above 0.5 for a winner need the chief judge's approval (8.4.3, D7).

On save every chief judge of the tournament gets a private message with Approve /
Lower to 0.5; the game stays ``pending`` until a decision. A chief judge who judged
the game himself still taps it, so the approval is recorded explicitly. The decision
is audited, recomputes the standings, and the game's judge is told.
"""

from __future__ import annotations

import html
import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, InlineKeyboardMarkup
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.db import audit, games, staff, tournaments, users
from bot.db.connection import Database
from bot.db.errors import AlreadyDecided
from bot.db.games import APPROVAL_THRESHOLD, ApprovalRow, GameRecord
from bot.publishing import Publisher
from handlers.game_entry.callbacks import ApprovalDecision
from handlers.game_entry.card import hundredths
from handlers.game_entry.flow import Ctx, locale_for_code

log = logging.getLogger(__name__)
router = Router(name="game_entry.approvals")


def approval_markup(approval_id: int, requested: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(
        text="✅ " + _("Approve {value}").format(value=hundredths(requested)),
        callback_data=ApprovalDecision(id=approval_id, a="ok"),
    )
    builder.button(
        text="⬇ " + _("Lower to {value}").format(value=hundredths(APPROVAL_THRESHOLD)),
        callback_data=ApprovalDecision(id=approval_id, a="low"),
    )
    return builder.as_markup()


def request_text(game: GameRecord, title: str, approval: ApprovalRow, judge: str) -> str:
    seat = game.seat(approval.seat)
    return _(
        "«{title}», game {code}: judge {judge} gave seat {seat} ({player}, winning team) "
        "<b>{value}</b> judge's extra points. Above 0.5 needs your approval (8.4.3, D7); "
        "until then they don't count."
    ).format(
        title=html.escape(title),
        code=game.code,
        judge=html.escape(judge),
        seat=approval.seat,
        player=html.escape(seat.nickname),
        value=hundredths(approval.requested),
    )


def decision_text(approval: ApprovalRow, game: GameRecord) -> str:
    seat = game.seat(approval.seat)
    if approval.status == "approved":
        return _("Approved: {value} for seat {seat} ({player}) in game {code}.").format(
            value=hundredths(approval.requested),
            seat=approval.seat,
            player=html.escape(seat.nickname),
            code=game.code,
        )
    if approval.status == "lowered":
        return _("Lowered to {value}: seat {seat} ({player}) in game {code}.").format(
            value=hundredths(approval.granted or 0),
            seat=approval.seat,
            player=html.escape(seat.nickname),
            code=game.code,
        )
    return _("This request no longer applies: game {code} was corrected or annulled.").format(
        code=game.code
    )


async def request_approvals(ctx: Ctx, game: GameRecord) -> None:
    """Ask every chief judge about each pending approval not asked yet."""
    async with ctx.db.read() as conn:
        rows = [
            a
            for a in await games.approvals_for_game(conn, game.id)
            if a.status == "pending" and not a.messages
        ]
        if not rows:
            return
        t = await tournaments.get_tournament(conn, game.tournament_id)
        chiefs = await staff.list_staff(conn, game.tournament_id, role="chief")
        profiles = await users.get_users(conn, [c.user_id for c in chiefs] + [game.judge_id])
    judge = profiles.get(game.judge_id)
    judge_name = judge.first_name if judge else str(game.judge_id)
    reached = False
    for row in rows:
        sent: list[tuple[int, int]] = []
        for chief in chiefs:
            profile = profiles.get(chief.user_id)
            with ctx.i18n.use_locale(locale_for_code(profile.language_code if profile else None)):
                text = request_text(game, t.title if t else "", row, judge_name)
                markup = approval_markup(row.id, row.requested)
            try:
                message = await ctx.bot.send_message(chief.user_id, text, reply_markup=markup)
            except TelegramAPIError as exc:
                log.info("approval %s not sent to %s: %s", row.id, chief.user_id, exc)
                continue
            sent.append((message.chat.id, message.message_id))
        if sent:
            reached = True
            async with ctx.db.transaction() as conn:
                await games.set_approval_messages(conn, row.id, sent)
    if not reached:
        try:
            await ctx.bot.send_message(
                game.judge_id,
                _("I could not reach the chief judge for the approval (D7). He can decide it "
                  "in /games."),
            )
        except TelegramAPIError as exc:
            log.info("judge %s not told the chief is unreachable: %s", game.judge_id, exc)


@router.callback_query(ApprovalDecision.filter())
async def decide(
    callback: CallbackQuery,
    callback_data: ApprovalDecision,
    bot: Bot,
    db: Database,
    publisher: Publisher,
    i18n: I18n,
) -> None:
    user_id = callback.from_user.id
    async with db.read() as conn:
        row = await games.get_approval(conn, callback_data.id)
        game = await games.get_game(conn, row.game_id) if row else None
        role = await staff.staff_role(conn, game.tournament_id, user_id) if game else None
    if row is None or game is None or callback_data.a not in ("ok", "low"):
        await callback.answer(_("This request is out of date."))
        return
    if role != "chief":
        await callback.answer(_("Only the chief judge can decide this (8.4.3)."), show_alert=True)
        return
    lowered = APPROVAL_THRESHOLD if callback_data.a == "low" else None
    try:
        async with db.transaction() as conn:
            decided = await games.decide_approval(
                conn, row.id, decided_by=user_id, lowered_to=lowered
            )
            after = await games.require_game(conn, game.id)
            await audit.audit(
                conn,
                action="approval.approve" if lowered is None else "approval.lower",
                entity="approval",
                entity_id=row.id,
                tournament_id=game.tournament_id,
                actor_id=user_id,
                before=row,
                after=decided,
            )
            await publisher.enqueue(conn, game.tournament_id)
    except AlreadyDecided as exc:
        await callback.answer(_("This was decided already."))
        if callback.message is not None:
            await _edit(bot, [(callback.message.chat.id, callback.message.message_id)],
                        decision_text(exc.row, game))
        return
    await callback.answer(_("Approved") if lowered is None else _("Lowered"))
    targets = list(decided.messages)
    if callback.message is not None:
        own = (callback.message.chat.id, callback.message.message_id)
        if own not in targets:
            targets.append(own)
    await _edit(bot, targets, decision_text(decided, after))
    try:
        await publisher.publish(bot, game.tournament_id)
    except Exception:
        log.exception("standings after approval %s", row.id)
    await _tell_judge(bot, db, i18n, decided, after)


async def _edit(bot: Bot, targets: list[tuple[int, int]], text: str) -> None:
    for chat_id, message_id in targets:
        try:
            await bot.edit_message_text(text=text, chat_id=chat_id, message_id=message_id)
        except TelegramAPIError as exc:
            log.debug("approval message %s/%s not edited: %s", chat_id, message_id, exc)


async def _tell_judge(
    bot: Bot, db: Database, i18n: I18n, approval: ApprovalRow, game: GameRecord
) -> None:
    async with db.read() as conn:
        profile = await users.get_user(conn, game.judge_id)
    with i18n.use_locale(locale_for_code(profile.language_code if profile else None)):
        text = _("The chief judge decided: {decision}").format(
            decision=decision_text(approval, game)
        )
        if game.status == "final":
            text += " " + _("The game is final now.")
    try:
        await bot.send_message(game.judge_id, text)
    except TelegramAPIError as exc:
        log.info("judge %s not told about approval %s: %s", game.judge_id, approval.id, exc)
