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
import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    BufferedInputFile,
    CallbackQuery,
    InputMediaDocument,
    MediaUnion,
    Message,
)
from aiogram.utils.i18n import gettext as _

from bot.publishing import Publisher
from bot.reads.career import CareerService
from bot.reads.export import export_files, load_export, summary_caption
from bot.reads.standings import StandingsService
from bot.services import N_, Refusal
from bot.services.players import is_member, tournaments_of
from bot.services.records import Database, NotFound, TournamentRow
from bot.services.refusals import OUT_OF_DATE
from bot.services.staff import tournament_and_role
from bot.texts.markup import html_text
from bot.texts.phrases import say
from bot.texts.standings_text import hidden
from handlers.callbacks import RowId
from handlers.chats import in_group, in_private
from handlers.filters import ChiefJudge, ChiefTournaments, GroupTournament, picker
from handlers.rating import problem_detail
from scoring import InvalidGameError

log = logging.getLogger(__name__)
router = Router(name="exports")

IMAGE_WORDS = frozenset({"image", "картинка"})


class ExportPick(CallbackData, prefix="xe"):
    """A chief judge of several tournaments picks the one to export."""

    tournament_id: RowId


class ImagePick(CallbackData, prefix="xi"):
    """Someone in several tournaments picks whose standings picture he wants."""

    tournament_id: RowId


def wants_image(message: Message, command: CommandObject) -> bool:
    words = (command.args or "").split()
    return len(words) == 1 and words[0].lower() in IMAGE_WORDS


# -- /export ------------------------------------------------------------------------------


NOT_CHIEF_OF_ANY = Refusal(
    N_("Only a chief judge can export a tournament, and you are not the chief judge of any.")
)


# That is when one exports: finished tournaments too.
@router.message(Command("export"), in_private, ChiefTournaments(NOT_CHIEF_OF_ANY))
async def export_command(
    message: Message, tournaments: list[TournamentRow], bot: Bot, db: Database,
    career: CareerService,
) -> None:
    if len(tournaments) > 1:
        await message.answer(
            _("Which tournament do you want to export?"),
            reply_markup=picker(tournaments, lambda t: ExportPick(tournament_id=t.id)),
        )
        return
    await _send_export(bot, message.chat.id, db, career, tournaments[0])


@router.callback_query(ExportPick.filter(), ChiefJudge(finished=True))
async def export_picked(
    callback: CallbackQuery, tournament: TournamentRow, bot: Bot, db: Database,
    career: CareerService,
) -> None:
    await callback.answer(_("Preparing the files…"))
    await _send_export(bot, callback.from_user.id, db, career, tournament)


async def _send_export(
    bot: Bot, chat_id: int, db: Database, career: CareerService, tournament: TournamentRow
) -> None:
    try:
        data = await load_export(db, tournament.id, career)  # the bot's rating, kept current
        # Writing an XLSX of a big tournament takes a while: not on the event loop.
        files = await asyncio.to_thread(export_files, data)
    except NotFound:
        await bot.send_message(chat_id, say(OUT_OF_DATE))
        return
    except InvalidGameError as error:
        await bot.send_message(
            chat_id,
            _("The tournament can't be exported: a stored game breaks a rule ({detail}). "
              "Correct the game first.").format(detail=html_text(problem_detail(error))),
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


NO_STANDINGS = Refusal(N_("This group has no tournament, so there are no standings to draw."))


@router.message(
    Command("rating"), wants_image, in_group, GroupTournament(latest=True, missing=NO_STANDINGS)
)
async def rating_image_in_group(
    message: Message,
    tournament: TournamentRow,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
) -> None:
    assert message.from_user is not None
    if not await is_member(db, tournament.id, message.from_user.id):
        await message.reply(_("Only the players and judges of the tournament can ask for "
                              "the picture."))
        return
    await _send_image(message, bot, standings, publisher, tournament, message.chat.id)


@router.message(Command("rating"), wants_image)
async def rating_image(
    message: Message,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
) -> None:
    """In private: the picture of the sender's tournament, or a picker of them."""
    assert message.from_user is not None
    chosen = await tournaments_of(db, message.from_user.id)
    if not chosen:
        await message.answer(_("You are not a player or a judge of any tournament."))
        return
    if len(chosen) > 1:
        await message.answer(
            _("Which tournament's standings?"),
            reply_markup=picker(chosen, lambda t: ImagePick(tournament_id=t.id)),
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
    user_id = callback.from_user.id
    tournament, _role = await tournament_and_role(db, callback_data.tournament_id, user_id)
    member = tournament is not None and await is_member(db, tournament.id, user_id)
    if tournament is None or not member or not isinstance(callback.message, Message):
        await callback.answer(say(OUT_OF_DATE))
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
            html_text(tournament.title) + "\n" + _("No games counted yet.")
        )
        return
    if hidden(current.stage):
        await message.answer(
            _("The standings of this stage are hidden until it ends; no picture.")
        )
        return
    try:
        await publisher.send_standings_image(bot, tournament.id, chat_id)
    except TelegramAPIError as error:
        log.warning("standings picture of tournament %s not sent: %s", tournament.id, error)
        await message.answer(_("The picture could not be sent. Try again in a minute."))
