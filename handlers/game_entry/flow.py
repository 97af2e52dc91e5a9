"""The machinery shared by every step: loading the draft, checking who taps, applying a
tap, showing the card (one message, edited in place), and closing it: its keyboard and
the first-killed player's request taken off when they no longer lead anywhere, as when
the live protocol saved the card's game (README, "The live protocol")."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.reads import card_reads
from bot.services import live
from bot.services.records import CHIEF, JUDGE, GameRecord
from bot.services.staff import tournament_and_role
from bot.telegram import fsm_storage
from bot.texts.rule_issues import Issue
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import render_text, seats_list
from handlers.game_entry.draft import DATA_KEY, Draft, problems
from handlers.game_entry.keyboards import keyboard
from handlers.game_entry.live import with_live_button
from handlers.game_entry.spec import Ctx
from handlers.game_entry.view import View
from scoring import N_, SEAT_NUMBERS

log = logging.getLogger(__name__)

STALE = N_("This card is out of date. Use the latest card or /game.")
SAVED_LIVE = N_("This game was saved in the live protocol as game {code}; nothing was "
                "changed on this card.")
PLAYER_TOLD = N_("The judge saved this game in the live protocol.")


async def current_draft(state: FSMContext) -> Draft | None:
    data = await state.get_data()
    raw = data.get(DATA_KEY)
    return Draft.from_dict(raw) if isinstance(raw, dict) else None


async def persist(ctx: Ctx, d: Draft) -> None:
    # One write on every tap (the state and the draft together).
    await fsm_storage.set_state_and_update_data(
        ctx.state, ctx.card.state(d.step), {DATA_KEY: d.to_dict()}
    )


def is_stale(d: Draft | None, data: Step, callback: CallbackQuery) -> bool:
    """An old keyboard: another draft, another step, or another message than the card."""
    if d is None or data.t != d.token or data.s != d.step:
        return True
    message = callback.message
    return message is None or message.message_id != d.card_id or message.chat.id != d.card_chat


async def authorize(ctx: Ctx, d: Draft) -> str | None:
    """Checked on every update: a judge or chief of a running tournament enters games,
    only a chief judge corrects them. Returns the refusal, or None."""
    if ctx.card.spec(d.step).prelude:
        return None
    tournament, role = await tournament_and_role(ctx.db, d.tid, ctx.user_id)
    if tournament is None:
        return _("This tournament no longer exists.")
    if d.mode == "correct":
        return None if role == CHIEF else _("Only the chief judge may correct a game.")
    if role not in (CHIEF, JUDGE):
        return _("You are no longer a judge of this tournament.")
    if tournament.status != "running":
        return _("The tournament is not running, so no game can be entered.")
    return None


async def apply(ctx: Ctx, d: Draft, data: Step) -> str | None:
    """The tapped button's action on the draft: None, or the refusal."""
    func = ctx.card.action(d.step, data.a)
    if func is None:
        return _("This card is out of date. Use the latest card.")
    return await func(ctx, d, data)


# -- the card -----------------------------------------------------------------------------


async def load_view(ctx: Ctx, d: Draft) -> View:
    """What the card shows besides the draft: the protocol's players and the rule checks,
    then what the step itself loads (``StepSpec.load``)."""
    spec = ctx.card.spec(d.step)
    view = View()
    if not spec.prelude:
        await _load_protocol(ctx, d, view)
    if spec.load is not None:
        await spec.load(ctx, d, view)
    return view


async def _load_protocol(ctx: Ctx, d: Draft, view: View) -> None:
    t = await ctx.tournament(d.tid)
    view.title = t.title if t else ""
    view.players = {p.id: p for p in await card_reads.roster(ctx.db, t)} if t else {}
    if d.mode == "correct" and d.game_id is not None:
        stored = await card_reads.game(ctx.db, d.game_id)
        view.original_code = stored.code if stored else ""
    view.issues = [Issue.of(p) for p in problems(d, view.names())]
    for n in SEAT_NUMBERS:
        pid = d.players[n - 1]
        if pid is not None and view.pending(pid):
            view.issues.append(
                Issue(
                    "seats",
                    N_("seat {seat}: {player} is not confirmed yet; the chief judge must "
                       "confirm him before the game can be saved"),
                    {"seat": n, "player": view.players[pid].nickname},
                )
            )


async def render(ctx: Ctx, d: Draft) -> tuple[str, Any]:
    with ctx.i18n.use_locale(d.locale):
        view = await load_view(ctx, d)
        text = render_text(ctx.card, d, view)
        markup = await with_live_button(ctx, d, keyboard(ctx.card, d, view))
    return text, markup


async def retire_card(bot: Bot, chat_id: int, message_id: int, text: str) -> None:
    """Take the keyboard off a card that no longer leads anywhere."""
    if not message_id:
        return
    try:
        await bot.edit_message_text(text=text, chat_id=chat_id, message_id=message_id)
    except TelegramAPIError as exc:  # gone or unchanged: nothing to take off
        log.debug("old card %s/%s not edited: %s", chat_id, message_id, exc)


async def void_request(bot: Bot, i18n: I18n, d: Draft, msgid: str) -> None:
    """Take the buttons off the first-killed player's request (the judge took over,
    changed the first-killed seat or cancelled, the game was saved live)."""
    if d.bm_msg is None:
        return
    chat_id, message_id = d.bm_msg
    with i18n.use_locale(d.bm_locale):
        text = _(msgid)
        if d.bm:
            text += "\n" + _("Named: {seats}").format(seats=seats_list(d.bm))
    try:
        await bot.edit_message_text(text=text, chat_id=chat_id, message_id=message_id)
    except TelegramAPIError as exc:
        log.info("best move request %s/%s not edited: %s", chat_id, message_id, exc)


def saved_live_text(game: GameRecord) -> str:
    """What the judge is told of a card whose game the live protocol saved, in the
    current locale."""
    return _(SAVED_LIVE).format(code=game.code)


async def closed_by_live(ctx: Ctx, d: Draft) -> GameRecord | None:
    """The game, when the live protocol saved the card's game (the Mini App's Save
    stores the card's own game, the same ``draft_id``): the card is then closed
    (``close_card``). None: the card goes on (a live draft exists only once the seats
    are filled and the card showed its button: ``Draft.live``)."""
    if d.mode != "new" or not d.seats_done or not d.live:
        return None
    game = await live.saved_live(ctx.db, d.draft_id)
    if game is None:
        return None
    await close_card(ctx, d, game)
    return game


async def close_card(ctx: Ctx, d: Draft, game: GameRecord) -> None:
    """The card's draft is dropped, so whatever the judge does with the card next finds
    it closed; its message and the player's best-move request say where the game went,
    without buttons, and nothing is changed."""
    await fsm_storage.clear(ctx.state)
    with ctx.i18n.use_locale(d.locale):
        text = "📱 " + saved_live_text(game)
    await retire_card(ctx.bot, d.card_chat, d.card_id, text)
    await void_request(ctx.bot, ctx.i18n, d, PLAYER_TOLD)


async def show(ctx: Ctx, d: Draft) -> None:
    """Store the draft, then edit the card in place; a card that is gone is sent again
    (and remembered). A one-shot note is shown now and not stored.

    With ``ctx.background`` the edit goes out without the handler waiting for it: a
    held edit (the chat's pace, see ``bot.telegram.flood``) must not hold the judge's next tap,
    and edits still waiting when he taps again coalesce into the newest card.
    """
    put = (await store(ctx, d))()
    if ctx.background is None:
        await put
    else:
        ctx.background.spawn(put, name=f"card {d.card_chat}/{d.card_id}")


async def store(ctx: Ctx, d: Draft) -> Callable[[], Coroutine[Any, Any, None]]:
    """``show`` up to its edit: the card rendered and the draft stored (its one-shot
    note shown now, not stored); returns the edit, for the caller to make."""
    text, markup = await render(ctx, d)
    d.note = None
    await persist(ctx, d)
    return partial(_put_card, ctx, d.card_chat, d.card_id, text, markup)


async def reshow(ctx: Ctx, d: Draft, view: View, markup: Any) -> None:
    """The card again with what ``view`` says now and its one-shot note, under ``markup``
    (its buttons as shown, or fewer): its draft is unchanged, so nothing is stored."""
    with ctx.i18n.use_locale(d.locale):
        text = render_text(ctx.card, d, view)
    d.note = None
    try:
        await ctx.bot.edit_message_text(
            text=text, chat_id=d.card_chat, message_id=d.card_id, reply_markup=markup
        )
    except TelegramAPIError as exc:  # gone or unchanged: the judge taps again or /game
        log.info("card %s/%s not shown again: %s", d.card_chat, d.card_id, exc)


async def _put_card(ctx: Ctx, chat_id: int, message_id: int, text: str, markup: Any) -> None:
    try:
        await ctx.bot.edit_message_text(
            text=text, chat_id=chat_id, message_id=message_id, reply_markup=markup
        )
    except TelegramBadRequest as exc:
        if "not modified" in exc.message:
            return
        log.info("card %s/%s could not be edited (%s); sending it again", chat_id,
                 message_id, exc.message)
        sent = await ctx.bot.send_message(chat_id, text, reply_markup=markup)
        await _card_moved(ctx, message_id, sent.message_id)


async def _card_moved(ctx: Ctx, old_id: int, new_id: int) -> None:
    """Remember the card sent anew, unless the draft moved on meanwhile (finished, or
    shown elsewhere): only its card id changes, so no tap stored since is undone."""
    d = await current_draft(ctx.state)
    if d is None or d.card_id != old_id or await ctx.state.get_state() not in ctx.card.state_names:
        return
    d.card_id = new_id
    await persist(ctx, d)
