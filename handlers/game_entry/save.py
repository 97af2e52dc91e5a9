"""Save: one transaction (the game, its audit entry and the chat's result line in the
outbox), then the judge's final card, the chat and the standings.

A new game is stored with ``save_game`` (idempotent by ``draft_id``; DuplicateTable
when its round and table were saved meanwhile); its end time is the Save tap, which
opens the 10-minute protest window (8.8.1, D11). A correction goes through
``update_game`` with before/after in the audit log.

The draft is dropped only after the final card is shown: if the bot dies in between,
Telegram delivers the Save again, it finds the game already stored and just shows the
card; the result line waits in the outbox and is posted after the restart.
"""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, InlineKeyboardMarkup
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.db import audit, games
from bot.db.connection import Database
from bot.db.errors import DuplicateTable, GameAnnulled, InvalidDraft, NotFound
from bot.db.timeutil import utcnow
from bot.i18n import DEFAULT_LOCALE
from bot.localtime import clock
from bot.publishing import Publisher
from bot.standings import StandingsService
from handlers.callbacks import GameMenu
from handlers.game_entry import approvals
from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft, to_game_draft
from handlers.game_entry.flow import (
    STALE,
    Ctx,
    authorize,
    current_draft,
    is_stale,
    load_view,
    note,
    retire_card,
    show,
)
from handlers.game_entry.keyboards import new_game_markup
from handlers.game_entry.review import saved_text, saved_view, summary_line
from handlers.game_entry.states import GameEntry
from scoring import N_

log = logging.getLogger(__name__)
router = Router(name="game_entry.save")


@router.callback_query(Step.filter(F.a == "save"))
async def on_save(
    callback: CallbackQuery,
    callback_data: Step,
    state: FSMContext,
    raw_state: str | None,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    i18n: I18n,
) -> None:
    d = await current_draft(state)
    if d is None or is_stale(d, callback_data, callback) or raw_state != GameEntry.review.state:
        await callback.answer(_(STALE))
        return
    user_id = callback.from_user.id
    ctx = Ctx(bot, db, standings, publisher, state, i18n, user_id)
    refusal = await authorize(ctx, d)
    if refusal is not None:
        await callback.answer(refusal, show_alert=True)
        return
    view = await load_view(ctx, d)
    if view.issues or view.breakdown is None or not d.complete:
        await callback.answer(_("Fix the problems on the card first."), show_alert=True)
        await show(ctx, d)
        return
    try:
        draft = to_game_draft(d)
    except InvalidDraft as exc:  # the engine's checks passed, so this is structure
        await callback.answer(str(exc)[:190], show_alert=True)
        return
    await callback.answer(_("Saving…"))
    ended_at = utcnow()  # the Save tap: the protest window opens now (8.8.1, D11)
    tournament = await ctx.tournament(d.tid)
    # The chat reads the tournament's language.
    with i18n.use_locale(tournament.language if tournament else DEFAULT_LOCALE):
        summary = summary_line(draft.round, draft.table_no, draft.result, view.breakdown)
    try:
        async with db.transaction() as conn:
            if d.mode == "correct" and d.game_id is not None:
                before = await games.require_game(conn, d.game_id)
                record = await games.update_game(conn, d.game_id, draft)
                await audit.audit(
                    conn,
                    action="game.update",
                    entity="game",
                    entity_id=record.id,
                    tournament_id=record.tournament_id,
                    actor_id=user_id,
                    before=before,
                    after=record,
                )
                await publisher.enqueue(conn, record.tournament_id)
            else:
                fresh = await games.get_game_by_draft(conn, d.draft_id) is None
                game_id = await games.save_game(conn, d.tid, draft, user_id, ended_at)
                record = await games.require_game(conn, game_id)
                if fresh:
                    await audit.audit(
                        conn,
                        action="game.save",
                        entity="game",
                        entity_id=record.id,
                        tournament_id=record.tournament_id,
                        actor_id=user_id,
                        after=record,
                    )
                    await publisher.enqueue(
                        conn, record.tournament_id, result=summary, game_id=record.id
                    )
    except DuplicateTable as exc:
        note(d, N_("Round {round}, table {table} was saved meanwhile (game #{id}). Nothing was "
                   "saved: change the round or table (step 1)."),
             round=exc.round, table=exc.table_no, id=exc.game_id)
        await show(ctx, d)
        return
    except (GameAnnulled, NotFound):
        await state.clear()
        await retire_card(
            bot, d.card_chat, d.card_id, _("This game was annulled meanwhile; the correction "
                                           "was not saved.")
        )
        return
    except InvalidDraft as exc:
        note(d, N_("Not saved: {reason}"), reason=str(exc))
        await show(ctx, d)
        return
    await finish(ctx, d, record)
    await state.clear()


async def finish(ctx: Ctx, d: Draft, record: games.GameRecord) -> None:
    """The judge's final card, the chat's result line and standings, the approvals (D7)."""
    saved_d, view = await saved_view(ctx.db, ctx.standings, record)
    tournament = await ctx.tournament(record.tournament_id)
    with ctx.i18n.use_locale(d.locale):
        if d.mode == "correct":
            head = "✅ <b>" + _("Correction saved") + "</b>: " + _("game {code}").format(
                code=record.code
            )
        else:
            head = "✅ <b>" + _("Saved") + "</b>: " + _("game {code}").format(code=record.code)
            head += "\n" + _("Protests until {time} (8.8.1).").format(
                time=clock(record.protest_deadline, tournament.timezone if tournament else None)
            )
        if view.breakdown is not None and view.breakdown.pending:
            head += "\n⏳ " + _(
                "Judge's points above 0.5 wait for the chief judge's approval (D7); until "
                "then they don't count."
            )
        text = saved_text(saved_d, view, head)
        markup: InlineKeyboardMarkup = (
            new_game_markup() if d.mode == "new" else _menu_markup(record.id)
        )
    try:
        await ctx.bot.edit_message_text(
            text=text, chat_id=d.card_chat, message_id=d.card_id, reply_markup=markup
        )
    except Exception as exc:  # the game is saved; a lost card is not worth failing for
        log.info("final card not edited: %s", exc)
        try:
            await ctx.bot.send_message(d.card_chat, text, reply_markup=markup)
        except TelegramAPIError as error:  # e.g. 403: the group still gets its result
            log.info("final card not sent to %s: %s", d.card_chat, error)
    try:
        await ctx.publisher.publish(ctx.bot, record.tournament_id)
    except Exception:  # the chat is the publisher's business; the game is saved
        log.exception("publishing game %s failed", record.id)
    await approvals.request_approvals(ctx, record)


def _menu_markup(game_id: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text=_("Open the game"), callback_data=GameMenu(game_id=game_id))
    return builder.as_markup()
