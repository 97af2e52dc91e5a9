"""Lots (8.7.5, D12): /lot offers a button for each group still tied after 8.7.1-8.7.4;
the chief judge's tap draws it (``bot.services.lots``)."""

from __future__ import annotations

import logging
from dataclasses import replace

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.publishing import Publisher
from bot.publishing.notices import run_follow_up
from bot.reads.standings import StandingsService
from bot.services import N_, Refusal
from bot.services import lots as service
from bot.services.lots import Spent, TiedGroup
from bot.services.records import Database, TournamentRow
from bot.texts.markup import html_text
from bot.texts.phrases import say
from bot.texts.standings_text import ask_in_private, stage_name
from handlers.callbacks import Code, RowId
from handlers.chats import is_group
from handlers.filters import ChiefJudge, ChiefTournaments, answer_refusal

log = logging.getLogger(__name__)
router = Router(name="lots")

DRAWS_LOTS = Refusal(N_("Only the tournament's chief judge draws lots (8.7.5)."))


class LotDraw(CallbackData, prefix="ld"):
    tournament_id: RowId
    group: Code  # service.group_digest of the tied group's player ids


def offer(tournament: TournamentRow, groups: list[TiedGroup]) -> tuple[str, InlineKeyboardMarkup]:
    """The tournament's tied groups, a button to draw each."""
    lines = [
        _(
            "<b>{title}</b>: players still tied after 8.7.1–8.7.4. A lot decides their "
            "order (8.7.5); it is drawn once and kept."
        ).format(title=html_text(tournament.title))
    ]
    keyboard = []
    for group in groups:
        players = ", ".join(html_text(n) for n in group.names)
        if group.stage_title is None:
            line = _("Places {places}: {players}")
        else:  # each stage has its own lot (D15)
            line = _("Places {places}, the {stage} stage's lot: {players}")
        lines.append(
            line.format(
                places=group.label,
                players=players,
                stage=html_text(stage_name(group.stage_title or "")),
            )
        )
        data = LotDraw(tournament_id=tournament.id, group=group.digest)
        keyboard.append(
            [
                InlineKeyboardButton(
                    text=_("Draw for places {places}").format(places=group.label),
                    callback_data=data.pack(),
                )
            ]
        )
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=keyboard)


# In a group its tournament; in private every one he is the chief judge of.
@router.message(Command("lot"), ChiefTournaments(DRAWS_LOTS))
async def lot_command(
    message: Message, tournaments: list[TournamentRow], db: Database, standings: StandingsService
) -> None:
    answered = 0
    for tournament in tournaments:
        groups = await service.tied_groups(db, standings, tournament)
        if isinstance(groups, Refusal):  # not drawable yet, or the standings are broken
            answered += 1
            await message.answer(say(groups))
            continue
        if not groups:
            continue
        answered += 1
        if is_group(message) and groups[0].hidden:  # who is tied tells the order (D17)
            await message.answer(ask_in_private(groups[0].stage_title or "", "/lot"))
            continue
        text, markup = offer(tournament, groups)
        await message.answer(text, reply_markup=markup)
    if not answered:
        await message.answer(_("No players are tied: no lot is needed (8.7.5)."))


@router.callback_query(
    LotDraw.filter(),
    ChiefJudge(
        finished=True,
        refusal=replace(DRAWS_LOTS, alert=True),
        missing=replace(DRAWS_LOTS, alert=True),
    ),
)
async def lot_draw(
    callback: CallbackQuery,
    callback_data: LotDraw,
    tournament: TournamentRow,
    db: Database,
    bot: Bot,
    standings: StandingsService,
    publisher: Publisher,
) -> None:
    drawn = await service.draw_lot(
        db, standings, publisher, tournament, callback_data.group, callback.from_user.id
    )
    if isinstance(drawn, Refusal):
        await answer_refusal(callback, drawn)
        if isinstance(drawn, Spent):
            await _retire_button(callback, callback_data, None)  # it leads nowhere any more
        return
    await callback.answer()
    # In the tournament's group the note is the one announcement of the draw; in private
    # the offer itself tells the chief judge what was drawn.
    in_group = callback.message is not None and callback.message.chat.id == tournament.chat_id
    line = _("Lot drawn for places {places} (8.7.5): {order}. It is recorded and kept.")
    await _retire_button(
        callback,
        callback_data,
        None if in_group else line.format(places=drawn.group.label, order=say(drawn.order)),
    )
    await run_follow_up(bot, drawn.follow_up, publisher)


async def _retire_button(callback: CallbackQuery, data: LotDraw, line: str | None) -> None:
    """The offer loses the button of the group just drawn (the others stay), and gets
    ``line`` under its text."""
    message = callback.message
    if not isinstance(message, Message):
        return
    packed = data.pack()
    rows = [
        kept
        for row in (message.reply_markup.inline_keyboard if message.reply_markup else [])
        if (kept := [b for b in row if b.callback_data != packed])
    ]
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    try:
        if line is None:
            await message.edit_reply_markup(reply_markup=markup)
        else:
            await message.edit_text(f"{message.html_text}\n\n{line}", reply_markup=markup)
    except TelegramAPIError as exc:  # gone or unchanged: the button is refused anyway
        log.debug("lot offer not edited: %s", exc)
