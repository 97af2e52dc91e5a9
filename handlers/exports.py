"""/export (the chief judge's files) and /rating image (the standings as a picture).

``/export`` works in private: the tournament as the scoring contract's JSON, the
standings as CSV and XLSX, and the game protocols, sent as documents. A chief judge
of several tournaments (finished ones included: that is when one exports) picks one.

``/rating image`` works in the tournament's group and in private for anyone in the
tournament (a player or a judge). This router is included before the rating router,
which leaves ``/rating image`` alone.
"""

from __future__ import annotations

import asyncio
import html
import logging

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    BufferedInputFile,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaDocument,
    MediaUnion,
    Message,
)
from aiogram.utils.i18n import gettext as _

from bot.db import players, staff, tournaments
from bot.db.connection import Conn, Database
from bot.db.errors import NotFound
from bot.db.tournaments import TournamentRow
from bot.export import export_files, load_export, summary_caption
from bot.publishing import Publisher
from bot.standings import StandingsService
from handlers.tournaments import only_chief, out_of_date
from scoring import InvalidGameError

log = logging.getLogger(__name__)
router = Router(name="exports")

GROUP_TYPES = frozenset({"group", "supergroup"})
IMAGE_WORDS = frozenset({"image", "картинка"})
PICKER_LIMIT = 30


class ExportPick(CallbackData, prefix="xe"):
    """A chief judge of several tournaments picks the one to export."""

    tournament_id: int


class ImagePick(CallbackData, prefix="xi"):
    """Someone in several tournaments picks whose standings picture he wants."""

    tournament_id: int


def wants_image(message: Message, command: CommandObject) -> bool:
    words = (command.args or "").split()
    return len(words) == 1 and words[0].lower() in IMAGE_WORDS


def _picker(
    rows: list[TournamentRow], pack: type[ExportPick] | type[ImagePick]
) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=t.title[:60], callback_data=pack(tournament_id=t.id).pack()
                )
            ]
            for t in rows[:PICKER_LIMIT]
        ]
    )


# -- /export ------------------------------------------------------------------------------


async def _chief_tournaments(db: Database, user_id: int) -> list[TournamentRow]:
    async with db.read() as conn:
        rows = await tournaments.tournaments_for_staff(conn, user_id, include_finished=True)
    return [row.tournament for row in rows if row.role == "chief"]


@router.message(Command("export"), F.chat.type.in_(GROUP_TYPES))
async def export_in_group(message: Message) -> None:
    await message.reply(_("Send /export to me in a private chat: the files are for the "
                          "chief judge only."))


@router.message(Command("export"), F.chat.type == "private")
async def export_command(message: Message, bot: Bot, db: Database) -> None:
    user = message.from_user
    assert user is not None  # the identity middleware lets only real senders through
    chosen = await _chief_tournaments(db, user.id)
    if not chosen:
        await message.answer(_("Only a chief judge can export a tournament, and you are not "
                               "the chief judge of any."))
        return
    if len(chosen) > 1:
        await message.answer(
            _("Which tournament do you want to export?"),
            reply_markup=_picker(chosen, ExportPick),
        )
        return
    await _send_export(bot, message.chat.id, db, chosen[0])


@router.callback_query(ExportPick.filter())
async def export_picked(
    callback: CallbackQuery, callback_data: ExportPick, bot: Bot, db: Database
) -> None:
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, callback_data.tournament_id)
        role = (
            None
            if tournament is None
            else await staff.staff_role(conn, tournament.id, callback.from_user.id)
        )
    if tournament is None:
        await callback.answer(out_of_date())
        return
    if role != "chief":
        await callback.answer(only_chief())
        return
    await callback.answer(_("Preparing the files…"))
    await _send_export(bot, callback.from_user.id, db, tournament)


async def _send_export(bot: Bot, chat_id: int, db: Database, tournament: TournamentRow) -> None:
    try:
        data = await load_export(db, tournament.id)
        # Writing an XLSX of a big tournament takes a while: not on the event loop.
        files = await asyncio.to_thread(export_files, data)
    except NotFound:
        await bot.send_message(chat_id, out_of_date())
        return
    except InvalidGameError as error:
        problem = error.problems[0] if error.problems else None
        detail = "" if problem is None else (
            f"{problem.rule}: " + _(problem.template).format(**problem.params)
        )
        await bot.send_message(
            chat_id,
            _("The tournament can't be exported: a stored game breaks a rule ({detail}). "
              "Correct the game first.").format(detail=html.escape(detail)),
        )
        return
    media: list[MediaUnion] = [
        InputMediaDocument(media=BufferedInputFile(file.data, filename=file.name))
        for file in files
    ]
    # The caption under the last document stands for the whole album.
    media[-1] = media[-1].model_copy(update={"caption": summary_caption(data)})
    try:
        await bot.send_media_group(chat_id, media)
    except TelegramForbiddenError as error:  # he blocked the bot: nowhere to say so
        log.info("export of tournament %s not sent: %s", tournament.id, error)
    except TelegramAPIError as error:
        log.warning("export of tournament %s not sent: %s", tournament.id, error)
        await bot.send_message(chat_id, _("The files could not be sent. Try /export again."))


# -- /rating image ------------------------------------------------------------------------


async def _in_tournament(conn: Conn, tournament_id: int, user_id: int) -> bool:
    if await staff.staff_role(conn, tournament_id, user_id) is not None:
        return True
    return await players.player_for_user(conn, tournament_id, user_id) is not None


async def _my_tournaments(conn: Conn, user_id: int) -> list[TournamentRow]:
    """Unfinished tournaments the user plays or judges, else his latest one; newest first."""
    found: dict[int, TournamentRow] = {}
    for player in await players.players_of_user(conn, user_id):
        t = await tournaments.get_tournament(conn, player.tournament_id)
        if t is not None:
            found[t.id] = t
    for row in await tournaments.tournaments_for_staff(conn, user_id, include_finished=True):
        found[row.tournament.id] = row.tournament
    ordered = sorted(found.values(), key=lambda t: t.id, reverse=True)
    return [t for t in ordered if t.status != "finished"] or ordered[:1]


@router.message(Command("rating"), wants_image)
async def rating_image(
    message: Message,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
) -> None:
    user = message.from_user
    assert user is not None
    if message.chat.type in GROUP_TYPES:
        async with db.read() as conn:
            tournament = await tournaments.running_tournament_for_chat(conn, message.chat.id)
            if tournament is None:
                known = await tournaments.tournaments_for_chat(conn, message.chat.id)
                tournament = known[-1] if known else None
            member = tournament is not None and await _in_tournament(conn, tournament.id, user.id)
        if tournament is None:
            await message.reply(_("This group has no tournament, so there are no standings "
                                  "to draw."))
            return
        if not member:
            await message.reply(_("Only the players and judges of the tournament can ask for "
                                  "the picture."))
            return
        await _send_image(message, bot, standings, publisher, tournament, message.chat.id)
        return
    async with db.read() as conn:
        chosen = await _my_tournaments(conn, user.id)
    if not chosen:
        await message.answer(_("You are not a player or a judge of any tournament."))
        return
    if len(chosen) > 1:
        await message.answer(
            _("Which tournament's standings?"), reply_markup=_picker(chosen, ImagePick)
        )
        return
    await _send_image(message, bot, standings, publisher, chosen[0], message.chat.id)


@router.callback_query(ImagePick.filter())
async def rating_image_picked(
    callback: CallbackQuery,
    callback_data: ImagePick,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
) -> None:
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, callback_data.tournament_id)
        member = tournament is not None and await _in_tournament(
            conn, tournament.id, callback.from_user.id
        )
    if tournament is None or not member or not isinstance(callback.message, Message):
        await callback.answer(out_of_date())
        return
    await callback.answer()
    await _send_image(
        callback.message, bot, standings, publisher, tournament, callback.from_user.id
    )


async def _send_image(
    message: Message,
    bot: Bot,
    standings: StandingsService,
    publisher: Publisher,
    tournament: TournamentRow,
    chat_id: int,
) -> None:
    try:
        current = await standings.get(tournament.id)
    except InvalidGameError:
        await message.answer(_("The standings can't be computed: a stored game breaks a rule. "
                               "The chief judge must correct it."))
        return
    if not current.standings.rows:
        await message.answer(
            html.escape(tournament.title) + "\n" + _("No games counted yet.")
        )
        return
    try:
        await publisher.send_standings_image(bot, tournament.id, chat_id)
    except TelegramAPIError as error:
        log.warning("standings picture of tournament %s not sent: %s", tournament.id, error)
        await message.answer(_("The picture could not be sent. Try again in a minute."))
