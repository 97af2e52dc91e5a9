"""/game, /cancel and every tap and typed text on the judge's card: the handlers load
the draft, check who acts, and hand the tap to the shown step (``steps/``)."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, StateFilter
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.services.records import TournamentRow
from bot.services.staff import staff_tournaments
from bot.telegram import fsm_storage
from bot.texts.markup import html_text
from handlers.filters import AnyStaff
from handlers.game_entry.callbacks import NewGame, Step
from handlers.game_entry.draft import Draft, new_draft_id, new_token
from handlers.game_entry.flow import (
    STALE,
    apply,
    authorize,
    closed_by_live,
    current_draft,
    is_stale,
    persist,
    render,
    retire_card,
    saved_live_text,
    show,
    void_request,
)
from handlers.game_entry.live import list_live_drafts
from handlers.game_entry.meaning import Before, tap_meaning
from handlers.game_entry.spec import Ctx, Desk
from handlers.game_entry.states import GameEntry
from scoring import N_

router = Router(name="game_entry.entry")


# -- /game ----------------------------------------------------------------------------


async def start_game(ctx: Ctx, chat_id: int, *, reply: Message | None = None) -> None:
    """A new draft for the user, or his unfinished one sent again (unless the live
    protocol saved its game meanwhile: then a new one)."""
    existing = await current_draft(ctx.state)
    if existing is not None and await ctx.state.get_state() in ctx.card.state_names:
        saved = await closed_by_live(ctx, existing)
        if saved is None:
            await resend_card(ctx, existing, chat_id)
            return
        await ctx.bot.send_message(chat_id, saved_live_text(saved))
    mine = await staff_tournaments(ctx.db, ctx.user_id)
    running = [m.tournament.id for m in mine if m.tournament.status == "running"]
    if not running:
        text = _not_running_text([m.tournament for m in mine])
        if reply is not None:
            await reply.answer(text)
        else:
            await ctx.bot.send_message(chat_id, text)
        return
    d = Draft(
        token=new_token(),
        draft_id=new_draft_id(),
        judge_id=ctx.user_id,
        locale=ctx.i18n.current_locale,
        card_chat=chat_id,
        live=False,
    )
    if len(running) == 1:
        d.tid, d.step = running[0], ctx.card.first
    else:
        d.choices, d.step = running, ctx.card.prelude.code
    text, markup = await render(ctx, d)
    sent = await ctx.bot.send_message(chat_id, text, reply_markup=markup)
    d.card_id = sent.message_id
    await persist(ctx, d)


def _not_running_text(mine: list[TournamentRow]) -> str:
    """Why no game can be entered: a staff member of a tournament not started yet is
    told who starts it, anyone else that games are entered in running ones only."""
    waiting = [t for t in mine if t.status == "registration"]
    if not waiting:
        return _("Only a judge or the chief judge of a running tournament can enter a game.")
    return _(
        "The tournament «{title}» has not started yet: the chief judge starts it with "
        "/tournament. Games are entered once it is running."
    ).format(title=html_text(waiting[0].title))


async def resend_card(ctx: Ctx, d: Draft, chat_id: int) -> None:
    """The unfinished game's card, sent again below; the old one loses its buttons."""
    old = d.card_id
    text, markup = await render(ctx, d)
    sent = await ctx.bot.send_message(chat_id, text, reply_markup=markup)
    d.card_chat, d.card_id = chat_id, sent.message_id
    await persist(ctx, d)
    await retire_card(ctx.bot, chat_id, old, _("⤵️ This game continues below."))
    await ctx.bot.send_message(
        chat_id, _("You have an unfinished game: its card is above. /cancel discards it.")
    )


@router.message(Command("game"), F.chat.type == "private")
async def cmd_game(
    message: Message,
    bot: Bot,
    desk: Desk,
    state: FSMContext,
) -> None:
    assert message.from_user is not None  # the identity middleware: a real sender
    user_id = message.from_user.id
    ctx = desk.ctx(bot, state, user_id)
    await start_game(ctx, message.chat.id, reply=message)
    await list_live_drafts(ctx, message)


# "New game" on a saved game's card: a judge's, and the card goes to his own chat.
@router.callback_query(NewGame.filter(), AnyStaff)
async def new_game_button(
    callback: CallbackQuery,
    bot: Bot,
    desk: Desk,
    state: FSMContext | None = None,
) -> None:
    await callback.answer()
    if state is None:  # a button without a chat (an inline message): no card to start
        return
    user_id = callback.from_user.id
    ctx = desk.ctx(bot, state, user_id)
    await start_game(ctx, user_id)


@router.message(Command("cancel"), StateFilter(GameEntry))
async def cancel(
    message: Message,
    bot: Bot,
    desk: Desk,
    state: FSMContext,
) -> None:
    assert message.from_user is not None  # the identity middleware: a real sender
    user_id = message.from_user.id
    ctx = desk.ctx(bot, state, user_id)
    d = await current_draft(ctx.state)
    saved = None if d is None else await closed_by_live(ctx, d)
    if saved is not None:
        await message.answer(saved_live_text(saved))
        return
    await fsm_storage.clear(ctx.state)
    if d is not None:
        await retire_card(
            ctx.bot, d.card_chat, d.card_id, "✖ " + _("Cancelled. Nothing was saved.")
        )
        await void_request(ctx.bot, ctx.i18n, d, N_("The judge cancelled this game's entry."))
    await message.answer(_("Cancelled. Nothing was saved."))


# -- every tap on the card ---------------------------------------------------------------


@router.callback_query(Step.filter())
async def on_step(
    callback: CallbackQuery,
    callback_data: Step,
    raw_state: str | None,
    bot: Bot,
    desk: Desk,
    state: FSMContext,
) -> None:
    user_id = callback.from_user.id
    ctx = desk.ctx(bot, state, user_id)
    d = await current_draft(ctx.state)
    current = raw_state in ctx.card.state_names
    if d is not None and d.tap == callback.id and current:
        # This tap again: it was applied and stored, but the bot stopped before the
        # card was shown. Show the card as stored; don't apply the tap twice.
        await callback.answer()
        await show(ctx, d)
        return
    if d is not None and current and d.token == callback_data.t:
        saved = await closed_by_live(ctx, d)
        if saved is not None:
            await callback.answer(saved_live_text(saved), show_alert=True)
            return
    if d is None or is_stale(d, callback_data, callback) or not current:
        await callback.answer(_(STALE))
        return
    refusal = await authorize(ctx, d)
    if refusal is not None:
        await callback.answer(refusal, show_alert=True)
        return
    before = Before.of(d)
    refusal = await apply(ctx, d, callback_data)
    if refusal is not None:
        await callback.answer(refusal, show_alert=len(refusal) > 60)
        return
    d.tap = callback.id
    with ctx.i18n.use_locale(d.locale):
        meaning = tap_meaning(ctx.card, before, d)
    # The answer says what the tap did; the card goes out beside it, not a round trip
    # after it.
    answer = _answer(callback, meaning)
    if ctx.background is None:
        await answer
    else:
        ctx.background.spawn(answer, name=f"answer {callback.id}")
    await ctx.run_after()
    await show(ctx, d)


async def _answer(callback: CallbackQuery, text: str) -> None:
    await callback.answer(text or None)


# -- typed input -------------------------------------------------------------------------


@router.message(StateFilter(GameEntry), F.chat.type == "private", F.text, ~F.text.startswith("/"))
async def on_text(
    message: Message,
    bot: Bot,
    desk: Desk,
    state: FSMContext,
) -> None:
    assert message.text is not None
    assert message.from_user is not None  # the identity middleware: a real sender
    user_id = message.from_user.id
    ctx = desk.ctx(bot, state, user_id)
    d = await current_draft(ctx.state)
    if d is None:
        await fsm_storage.clear(ctx.state)
        return
    saved = await closed_by_live(ctx, d)
    if saved is not None:
        await message.reply(saved_live_text(saved))
        return
    handler = ctx.card.typed(d.step)
    if handler is None:
        await message.reply(_("Use the buttons on the card above (or /cancel)."))
        return
    refusal = await authorize(ctx, d)
    if refusal is None:
        refusal = await handler(ctx, d, message.text.strip())
    if refusal is not None:
        await message.reply(refusal)
        return
    await ctx.run_after()
    await show(ctx, d)
