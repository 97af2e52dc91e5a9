"""The chief judge's saved games: /games, a game's menu (GameMenu, also sent by other
features such as a protest decision), corrections through the same card, annulment.

Only a chief judge of the game's tournament may open, correct or annul a game; every
change is audited with before and after and recomputes the standings (the use cases
are ``bot.services.games``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.reads import card_reads
from bot.reads.standings import StandingsService
from bot.services.games import (
    NO_SUCH_GAME,
    ONLY_CHIEF_CORRECTS,
    ONLY_CHIEF_LISTS,
    annul_game,
)
from bot.services.records import CHIEF, Database, GameRecord
from bot.services.staff import staff_tournaments
from bot.texts.markup import html_text
from bot.texts.vocabulary import RESULT_NAMES
from handlers.callbacks import GameMenu
from handlers.filters import ChiefJudge
from handlers.game_entry.callbacks import ApprovalDecision, GameAction, GamesPage
from handlers.game_entry.card import saved_text
from handlers.game_entry.draft import draft_from_record
from handlers.game_entry.flow import current_draft, retire_card, show, void_request
from handlers.game_entry.notices import approval_markup
from handlers.game_entry.saved import saved_view
from handlers.game_entry.spec import Ctx, Desk
from scoring import N_

log = logging.getLogger(__name__)
router = Router(name="game_entry.corrections")

PAGE = 10


# -- /games ---------------------------------------------------------------------------------


@router.message(Command("games"), F.chat.type == "private")
async def cmd_games(message: Message, db: Database) -> None:
    assert message.from_user is not None
    mine = await staff_tournaments(db, message.from_user.id, finished=True)
    chief = [m.tournament for m in mine if m.role == CHIEF]
    if not chief:
        await message.answer(_("Only the chief judge can list and correct games."))
        return
    if len(chief) == 1:
        text, markup = await games_page(db, chief[0].id, 0)
        await message.answer(text, reply_markup=markup)
        return
    builder = InlineKeyboardBuilder()
    for t in chief:
        builder.button(text=t.title[:40], callback_data=GamesPage(tid=t.id))
    builder.adjust(1)
    await message.answer(_("Which tournament's games?"), reply_markup=builder.as_markup())




def game_label(game: GameRecord) -> str:
    label = _("R{round} T{table} · {result}").format(
        round=game.round, table=game.table_no, result=RESULT_NAMES[game.result]
    )
    if game.status == "pending":
        label = "⏳ " + label
    elif game.status == "annulled":
        label = "✖ " + label
    return label


async def games_page(db: Database, tid: int, page: int) -> tuple[str, InlineKeyboardMarkup]:
    t = await card_reads.tournament(db, tid)
    found = await card_reads.games_in(db, tid, annulled=True)
    found.sort(key=lambda g: (g.created_at, g.id), reverse=True)  # newest first
    pages = max(1, -(-len(found) // PAGE))
    page = max(0, min(page, pages - 1))
    builder = InlineKeyboardBuilder()
    for game in found[page * PAGE : (page + 1) * PAGE]:
        builder.button(text=game_label(game), callback_data=GameMenu(game_id=game.id))
    builder.adjust(1)
    if pages > 1:
        nav = InlineKeyboardBuilder()
        nav.button(text="◀", callback_data=GamesPage(tid=tid, page=max(0, page - 1)))
        nav.button(text=f"{page + 1}/{pages}", callback_data=GamesPage(tid=tid, page=page))
        nav.button(text="▶", callback_data=GamesPage(tid=tid, page=min(pages - 1, page + 1)))
        builder.attach(nav)
    title = html_text(t.title) if t else ""
    if not found:
        return _("«{title}»: no games yet.").format(title=title), builder.as_markup()
    text = _(
        "«{title}»: {count} game, newest first. Tap one to correct or annul it.",
        "«{title}»: {count} games, newest first. Tap one to correct or annul it.",
        len(found),
    ).format(title=title, count=len(found))
    return text, builder.as_markup()


# The chief judge's of the game (or the tournament) the button names, finished ones too.
GameChief = ChiefJudge(via="game", finished=True, refusal=ONLY_CHIEF_CORRECTS, missing=NO_SUCH_GAME)


@router.callback_query(
    GamesPage.filter(), ChiefJudge(finished=True, refusal=ONLY_CHIEF_LISTS)
)
async def on_games_page(callback: CallbackQuery, callback_data: GamesPage, db: Database) -> None:
    await callback.answer()
    text, markup = await games_page(db, callback_data.tid, callback_data.page)
    if callback.message is None:
        return
    try:
        await bot_edit(callback, text, markup)
    except TelegramAPIError:
        await callback.message.answer(text, reply_markup=markup)


async def bot_edit(callback: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None) -> None:
    message = callback.message
    assert message is not None
    assert callback.bot is not None
    await callback.bot.edit_message_text(
        text=text, chat_id=message.chat.id, message_id=message.message_id, reply_markup=markup
    )


# -- a game's menu ----------------------------------------------------------------------------


async def menu(
    db: Database, standings: StandingsService, game: GameRecord
) -> tuple[str, InlineKeyboardMarkup | None]:
    d, view = await saved_view(db, standings, game)
    head = "🗂 <b>" + _("Game {code}").format(code=game.code) + "</b>"
    if game.status == "annulled":
        head += " — " + _("annulled")
    elif game.status == "pending":
        head += " — " + _("waiting for the chief judge's approval")
    text = saved_text(d, view, head)
    if game.status == "annulled":
        return text, None
    builder = InlineKeyboardBuilder()
    pending = await card_reads.pending_approvals(db, game.id)
    for approval in pending:
        seat_buttons = approval_markup(approval.id, approval.requested).inline_keyboard[0]
        row = InlineKeyboardBuilder()
        for button in seat_buttons:
            row.button(
                text=_("Seat {seat}: {label}").format(seat=approval.seat, label=button.text),
                callback_data=ApprovalDecision.unpack(button.callback_data or ""),
            )
        builder.attach(row)
    actions = InlineKeyboardBuilder()
    actions.button(text="✏️ " + _("Correct"), callback_data=GameAction(id=game.id, a="fix"))
    actions.button(text="🗑 " + _("Annul"), callback_data=GameAction(id=game.id, a="annul"))
    builder.attach(actions)
    return text, builder.as_markup()


@router.callback_query(GameMenu.filter(), GameChief)
async def open_menu(
    callback: CallbackQuery, game: GameRecord, bot: Bot, db: Database, standings: StandingsService
) -> None:
    await callback.answer()
    text, markup = await menu(db, standings, game)
    # A new message: the button may sit on another feature's card (e.g. a protest).
    await bot.send_message(callback.from_user.id, text, reply_markup=markup)


@router.callback_query(GameAction.filter(), GameChief)
async def on_game_action(
    callback: CallbackQuery,
    callback_data: GameAction,
    game: GameRecord,
    bot: Bot,
    desk: Desk,
    state: FSMContext | None = None,
) -> None:
    # No message (so no chat, no FSM context): nothing to edit.
    if callback.message is None or state is None:
        return
    ctx = desk.ctx(bot, state, callback.from_user.id, waiting=True)
    if game.status == "annulled":
        await callback.answer(_("This game is annulled."), show_alert=True)
        return
    act = _ACTIONS.get(callback_data.a)
    if act is None:
        await callback.answer(_("This card is out of date."))
        return
    await act(callback, ctx, game)


async def _correct(callback: CallbackQuery, ctx: Ctx, game: GameRecord) -> None:
    await callback.answer()
    await start_correction(callback, ctx, game)


async def _ask_to_annul(callback: CallbackQuery, ctx: Ctx, game: GameRecord) -> None:
    await callback.answer()
    builder = InlineKeyboardBuilder()
    builder.button(text=_("Yes, annul it"), callback_data=GameAction(id=game.id, a="yes"))
    builder.button(text=_("No"), callback_data=GameAction(id=game.id, a="no"))
    await bot_edit(
        callback,
        _("Annul game {code}? It leaves the standings and its round and table become "
          "free. This can't be undone.").format(code=game.code),
        builder.as_markup(),
    )


async def _annul(callback: CallbackQuery, ctx: Ctx, game: GameRecord) -> None:
    async def annulled(after: GameRecord) -> None:
        await callback.answer(_("Annulled"))
        await bot_edit(callback, "✖ " + _("Game {code} is annulled.").format(code=game.code),
                       None)

    await annul_game(
        ctx, ctx.teller, game=game, actor=callback.from_user.id,
        acknowledge=annulled,
    )


async def _keep(callback: CallbackQuery, ctx: Ctx, game: GameRecord) -> None:
    await callback.answer()
    text, markup = await menu(ctx.db, ctx.standings, game)
    await bot_edit(callback, text, markup)


_ACTIONS: dict[str, Callable[[CallbackQuery, Ctx, GameRecord], Awaitable[None]]] = {
    "fix": _correct,
    "annul": _ask_to_annul,
    "yes": _annul,
    "no": _keep,
}


async def start_correction(callback: CallbackQuery, ctx: Ctx, game: GameRecord) -> None:
    """Load the game into a draft; the menu message becomes the correction's card."""
    message = callback.message
    assert message is not None
    old = await current_draft(ctx.state)
    if old is not None and await ctx.state.get_state() is not None:
        await retire_card(ctx.bot, old.card_chat, old.card_id,
                          _("Discarded: you started correcting game {code}.").format(
                              code=game.code))
        await void_request(ctx.bot, ctx.i18n, old, N_("The judge cancelled this game's entry."))
    d = draft_from_record(
        game,
        judge_id=callback.from_user.id,
        locale=ctx.i18n.current_locale,
        card_chat=message.chat.id,
        card_id=message.message_id,
    )
    await show(ctx.waiting(), d)  # the correction's first card is awaited


__all__ = ["router"]
