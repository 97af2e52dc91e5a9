"""The live protocol's buttons (docs/development.md, "The live protocol"): the card's button to the
Mini App once its round, table and seats are filled, and /game's list of the judge's
live protocols not saved yet. Only in private chats, only while WEBAPP_URL is set."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message, WebAppInfo
from aiogram.utils.i18n import gettext as _

from bot.services import live
from bot.texts.markup import html_text
from handlers.game_entry.draft import DATA_KEY, Draft
from handlers.game_entry.spec import Ctx


def _button(base_url: str, token: str, text: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, web_app=WebAppInfo(url=live.app_url(base_url, token)))


async def with_live_button(
    ctx: Ctx, d: Draft, markup: InlineKeyboardMarkup
) -> InlineKeyboardMarkup:
    """``markup`` with a row "Live protocol" opening this game's live draft (made now,
    or brought up to the card's round, table and seats)."""
    base = ctx.settings.webapp_url
    if (
        not base
        or d.mode != "new"
        or d.card_chat <= 0  # a private chat's id is its user's
        or not d.tid
        or d.round is None
        or d.table is None
        or not d.seats_done
    ):
        return markup
    draft = await live.open_for_card(
        ctx.db,
        draft_id=d.draft_id,
        tournament_id=d.tid,
        round_no=d.round,
        table_no=d.table,
        players=[p for p in d.players if p is not None],
        judge_id=d.judge_id,
    )
    d.live = True  # stored with the card shown: its taps ask whether it was saved live
    if draft.saved:
        return markup
    row = [_button(base, draft.token, "📱 " + _("Live protocol"))]
    return InlineKeyboardMarkup(inline_keyboard=[*markup.inline_keyboard, row])


async def list_live_drafts(ctx: Ctx, message: Message) -> None:
    """The judge's live protocols not saved yet (but the card's own), each with its
    button to resume it."""
    base = ctx.settings.webapp_url
    if not base or message.chat.type != "private":
        return
    current = (await ctx.state.get_data()).get(DATA_KEY)
    own = current.get("draft_id") if isinstance(current, dict) else None
    drafts = [
        (d, title) for d, title in await live.open_drafts(ctx.db, ctx.user_id)
        if d.draft_id != own
    ]
    if not drafts:
        return
    rows = [
        [_button(base, d.token, _("«{title}», round {round}, table {table}").format(
            title=title, round=d.round, table=d.table_no))]
        for d, title in drafts[:10]
    ]
    await message.answer(
        _("Your live protocols not saved yet:") + "\n"
        + "\n".join(html_text(f"{title}: R{d.round}-T{d.table_no}") for d, title in drafts[:10]),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
    )
