"""Save: the use case (``bot.services.game_save.save``) checks the tap, reviews the
game and stores it with its audit entry and the chat's result line in one transaction;
the handler renders what it returns: the judge's final card, then the news go out
(``bot.publishing.notices.GameTeller``): the chat and the standings, the chief judges'
approvals (D7), a changed plan's notices.

A new game is stored idempotently by its ``draft_id``; its end time is the Save tap,
which opens the 10-minute protest window (8.8.1, D11). A correction is audited with
before and after.

The draft is dropped only once the news went out: if the bot dies in between, Telegram
delivers the Save again, it finds the game already stored, shows the card and asks
what was not asked yet; the result line waits in the outbox and is posted after the
restart.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.services import Refusal
from bot.services.game_save import Gone, NotSaved, Reviewed, Saved, SavedLive, Unready, save
from bot.services.live import NotReady
from bot.telegram import fsm_storage
from bot.texts.localtime import clock
from bot.texts.phrases import params_of, say
from bot.texts.rule_issues import Issue
from handlers.callbacks import GameMenu
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import saved_text
from handlers.game_entry.draft import Draft, save_request
from handlers.game_entry.flow import (
    STALE,
    close_card,
    current_draft,
    is_stale,
    reshow,
    retire_card,
    saved_live_text,
)
from handlers.game_entry.keyboards import new_game_markup
from handlers.game_entry.spec import Ctx, Desk
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import Problem

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
    """The judge's Save tap on his card: the use case checks, reviews and stores the
    game; the card shows what it returns, then the others are told."""
    # No background: Save waits for its card's edits.
    ctx = desk.ctx(bot, state, callback.from_user.id, waiting=True)
    d = await current_draft(ctx.state)
    if d is None or d.token != callback_data.t:
        await callback.answer(_(STALE))
        return
    current = not is_stale(d, callback_data, callback) and raw_state == GameEntry.review.state
    request = save_request(d, actor=ctx.user_id, complete=ctx.card.complete(d), current=current)

    async def saving() -> None:  # the tap is answered before the game is stored
        await callback.answer(_("Saving…"))

    done = await save(ctx, request, lines=ctx.teller.result_lines, saving=saving)
    if isinstance(done, SavedLive):  # the live protocol saved it: the card closes
        await close_card(ctx, d, done.game)
        await callback.answer(saved_live_text(done.game), show_alert=True)
    elif isinstance(done, Saved):
        # The judge hears first: his card's edit is on its way before the others are
        # told, who don't wait for Telegram's answer to it. The draft goes once both are
        # done (a crash before then: the Save comes again and shows the card).
        card = asyncio.ensure_future(final_card(ctx, d, done))
        try:
            await ctx.teller.saved(done.news)
        finally:
            await card
        await fsm_storage.clear(ctx.state)
    else:
        await _refused(ctx, d, callback, done)


async def _refused(ctx: Ctx, d: Draft, callback: CallbackQuery, refusal: Refusal) -> None:
    """A game annulled meanwhile retires the card; a Save refused once the review passed
    shows the card again with the reason as its note; something left to fix is listed
    on the card, which loses its Save button; any other refusal answers the tap."""
    if isinstance(refusal, Gone):
        await fsm_storage.clear(ctx.state)
        await retire_card(ctx.bot, d.card_chat, d.card_id, say(refusal))
    elif isinstance(refusal, NotSaved) and refusal.reviewed is not None:
        d.set_note(refusal.msgid, **params_of(refusal))
        await reshow(ctx, d, _view(refusal.reviewed), _markup(callback))
    elif isinstance(refusal, Unready) and refusal.reviewed is not None:
        await callback.answer(say(refusal), show_alert=True)
        view = _view(refusal.reviewed, [_issue(p) for p in refusal.problems])
        await reshow(ctx, d, view, _markup(callback, without=callback.data))
    else:
        await callback.answer(say(refusal), show_alert=refusal.alert)


def _view(reviewed: Reviewed, issues: list[Issue] | None = None) -> View:
    """The card's view of what the review showed."""
    return View(
        title=reviewed.tournament.title,
        players=dict(reviewed.players),
        issues=issues or [],
        breakdown=reviewed.breakdown,
        ci_info=reviewed.ci,
        original_code=reviewed.replaces,
    )


def _issue(problem: Problem | NotReady) -> Issue:
    if isinstance(problem, NotReady):
        return Issue(problem.rule, problem.msgid, dict(problem.params))
    return Issue.of(problem)


def _markup(callback: CallbackQuery, *, without: str | None = None) -> InlineKeyboardMarkup | None:
    """The card's buttons as shown (but the one of ``without``'s data)."""
    message = callback.message
    markup = message.reply_markup if isinstance(message, Message) else None
    if markup is None or without is None:
        return markup
    rows = [row for row in markup.inline_keyboard if all(b.callback_data != without for b in row)]
    return InlineKeyboardMarkup(inline_keyboard=rows)


def final_card(ctx: Ctx, d: Draft, saved: Saved) -> Coroutine[Any, Any, None]:
    """The judge's card becomes the saved game's: the points its review showed (the
    game stored is the card's) and what comes next. Rendered now; returns its edit."""
    record, reviewed = saved.record, saved.reviewed
    view = _view(reviewed)
    view.original_code = record.code
    with ctx.i18n.use_locale(d.locale):
        if d.mode == "correct":
            head = "✅ <b>" + _("Correction saved") + "</b>: " + _("game {code}").format(
                code=record.code
            )
        else:
            head = "✅ <b>" + _("Saved") + "</b>: " + _("game {code}").format(code=record.code)
            head += "\n" + _("Protests until {time} (8.8.1).").format(
                time=clock(record.protest_deadline, reviewed.tournament.timezone)
            )
        if view.breakdown is not None and view.breakdown.pending:
            head += "\n⏳ " + _(
                "Judge's points above 0.5 wait for the chief judge's approval (8.4.3); until "
                "then they don't count."
            )
        text = saved_text(d, view, head)
        markup = new_game_markup() if d.mode == "new" else _menu_markup(record.id)
    return _put_final(ctx, d, text, markup)


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
