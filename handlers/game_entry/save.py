"""Save: the use case (``bot.services.games.save_game``) stores the game, its audit entry
and the chat's result line in one transaction and returns it with its news; the judge's
final card is shown, then the news go out (``bot.publishing.notices.GameTeller``): the
chat and the standings, the chief judges' approvals (D7), a changed plan's notices.

A new game is stored idempotently by its ``draft_id``; its end time is the Save tap,
which opens the 10-minute protest window (8.8.1, D11). A correction is audited with
before and after.

The draft is dropped only once the news went out: if the bot dies in between, Telegram
delivers the Save again, it finds the game already stored, shows the card and asks
what was not asked yet; the result line waits in the outbox and is posted after the
restart.
"""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.services import Refusal
from bot.services.games import Gone, ResultLines, save_game
from bot.services.records import GameDraft, GameRecord, InvalidDraft
from bot.texts.i18n import DEFAULT_LOCALE
from bot.texts.localtime import clock
from bot.texts.phrases import params_of, say
from bot.texts.result_line import result_lines
from handlers.callbacks import GameMenu
from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft, to_game_draft
from handlers.game_entry.flow import (
    STALE,
    authorize,
    current_draft,
    is_stale,
    load_view,
    retire_card,
    show,
)
from handlers.game_entry.keyboards import new_game_markup
from handlers.game_entry.notices import teller
from handlers.game_entry.saved import saved_text
from handlers.game_entry.saved_live import closed_by_live, saved_live_text
from handlers.game_entry.spec import Ctx, Desk
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View

log = logging.getLogger(__name__)
router = Router(name="game_entry.save")


@router.callback_query(Step.filter(F.a == "save"))
async def on_save(
    callback: CallbackQuery,
    callback_data: Step,
    raw_state: str | None,
    bot: Bot,
    desk: Desk,
    state: FSMContext,
) -> None:
    # No background: Save waits for its card's edits.
    ctx = desk.ctx(bot, state, callback.from_user.id, waiting=True)
    await save_card(ctx, callback, callback_data, raw_state)


async def save_card(
    ctx: Ctx, callback: CallbackQuery, callback_data: Step, raw_state: str | None
) -> None:
    """The judge's Save tap on his card: checked, stored, shown, then told to others."""
    d = await current_draft(ctx.state)
    if d is not None and d.token == callback_data.t:
        live_game = await closed_by_live(ctx, d)
        if live_game is not None:
            await callback.answer(saved_live_text(live_game), show_alert=True)
            return
    if d is None or is_stale(d, callback_data, callback) or raw_state != GameEntry.review.state:
        await callback.answer(_(STALE))
        return
    refusal = await authorize(ctx, d)
    if refusal is not None:
        await callback.answer(refusal, show_alert=True)
        return
    ready = await _ready(ctx, d, callback)
    if ready is None:
        return
    view, draft, lines = ready
    await callback.answer(_("Saving…"))
    saved = await save_game(
        ctx,
        tournament_id=d.tid,
        draft=draft,
        correcting=d.game_id if d.mode == "correct" else None,
        actor=ctx.user_id,
        lines=lines,
    )
    if isinstance(saved, Gone):
        await ctx.state.clear()
        await retire_card(ctx.bot, d.card_chat, d.card_id, say(saved))
    elif isinstance(saved, Refusal):
        d.set_note(saved.msgid, **params_of(saved))
        await show(ctx, d)
    else:
        await final_card(ctx, d, view, saved.record)  # the judge hears first
        await teller(ctx.bot, ctx.publisher).saved(saved.news)
        await ctx.state.clear()


async def _ready(
    ctx: Ctx, d: Draft, callback: CallbackQuery
) -> tuple[View, GameDraft, ResultLines] | None:
    """The card's view (its points: the saved game's), the game to store and its line
    for the group, or None when there is something to fix first (the judge is told)."""
    view = await load_view(ctx, d)
    if view.issues or view.breakdown is None or not ctx.card.complete(d):
        await callback.answer(_("Fix the problems on the card first."), show_alert=True)
        await show(ctx, d)
        return None
    try:
        draft = to_game_draft(d)
    except InvalidDraft as exc:  # the engine's checks passed, so this is structure
        await callback.answer(str(exc)[:190], show_alert=True)
        return None
    tournament = await ctx.tournament(d.tid)
    # The group reads the tournament's language; the use case picks the line (D17).
    with ctx.i18n.use_locale(tournament.language if tournament else DEFAULT_LOCALE):
        lines = result_lines(draft.round, draft.table_no, draft.result, view.breakdown)
    return view, draft, lines


async def final_card(ctx: Ctx, d: Draft, view: View, record: GameRecord) -> None:
    """The judge's card becomes the saved game's: the points its review showed (the
    game stored is the card's) and what comes next."""
    view.original_code = record.code
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
                "Judge's points above 0.5 wait for the chief judge's approval (8.4.3); until "
                "then they don't count."
            )
        text = saved_text(d, view, head)
        markup = new_game_markup() if d.mode == "new" else _menu_markup(record.id)
    await _put_final(ctx, d, text, markup)


async def _put_final(ctx: Ctx, d: Draft, text: str, markup: InlineKeyboardMarkup) -> None:
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


def _menu_markup(game_id: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text=_("Open the game"), callback_data=GameMenu(game_id=game_id))
    return builder.as_markup()
