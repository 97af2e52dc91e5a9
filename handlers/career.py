"""The career rating (docs/formats.md#rating): /me and /player (a profile with its
picture in private, a short card in a group), /top (the leaderboard, text and picture),
and the chief judge's /link, /career_name, /undo_link and /rating_kind.

The rating is ``bot.reads.career``'s read model (``career`` in the workflow data),
brought up to date when read; the chief judge's changes are ``bot.services.career``'s
use cases.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from typing import Literal

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    BufferedInputFile,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)
from aiogram.utils.i18n import gettext as _

from bot.config import Settings
from bot.reads import career as reads
from bot.reads.career import CareerService, Profile
from bot.reads.standings import StandingsService
from bot.services import N_, Refusal
from bot.services import career as service
from bot.services.records import Database, PlayerRow, TournamentRow
from bot.services.refusals import OUT_OF_DATE
from bot.services.staff import staff_tournaments
from bot.texts import career_text as texts
from bot.texts.markup import html_text
from bot.texts.phrases import say
from bot.texts.rating_format import CAPTION_LIMIT, decimal_point
from handlers.callbacks import RowId
from handlers.chats import is_group
from handlers.filters import ChiefJudge, ChiefTournaments, TournamentPick, answer_refusal

log = logging.getLogger(__name__)
router = Router(name="career")

BUTTONS = 10  # persons offered at once


class CareerPerson(CallbackData, prefix="cp"):
    """One of several persons of a name, for /player."""

    person_id: RowId


class CareerLink(CallbackData, prefix="cl"):
    """The chief judge's player is this person (``bot.services.career.link``)."""

    player_id: RowId
    person_id: RowId


class CareerUndo(CallbackData, prefix="cu"):
    """Take back a link, merge or career name (its audit entry)."""

    tournament_id: RowId
    entry: RowId


class RatingKindPick(CallbackData, prefix="ck"):
    """The tournament's weight in the career rating."""

    tournament_id: RowId
    kind: Literal["tournament", "elite", "unrated"]


NOT_CHIEF = Refusal(N_("You are not the chief judge of any tournament."))


def _escaped(refusal: Refusal) -> Refusal:
    """A use case's refusal with its plain parameters made HTML (names are people's)."""
    params = {k: html_text(v) if isinstance(v, str) else v for k, v in refusal.params.items()}
    return Refusal(refusal.msgid, params, refusal.alert)


def _split(args: str | None) -> tuple[str, str | None]:
    """``NICK`` or ``NICK = NAME``."""
    text = " ".join((args or "").split())
    nickname, equals, name = text.partition("=")
    return nickname.strip(), (name.strip() if equals else None)


# -- /me, /player -----------------------------------------------------------------------------


async def _profile(
    db: Database, career: CareerService, standings: StandingsService, settings: Settings,
    person_id: int, reader: int,
) -> Profile | None:
    staffed = frozenset(row.tournament.id for row in await staff_tournaments(db, reader))
    state = await career.current()
    return await reads.profile(db, state, standings, person_id, settings.top_min_games,
                               reveal=staffed)


async def _show(
    message: Message, bot: Bot, profile: Profile, *, group: bool, command: str
) -> None:
    if group:
        await message.reply(texts.short_card(profile) + "\n" + texts.more_in_private(command))
        return
    for page in texts.profile_pages(profile):
        await message.answer(page)
    if not profile.history:
        return
    caption = texts.history_caption(profile)[:CAPTION_LIMIT]
    title = _("{name}: career rating").format(name=profile.person.name)
    subtitle = texts.place_line(profile)
    values = [point.rating for point in profile.history]
    from bot.texts.career_image import render_history  # Pillow only when drawing

    image = await asyncio.to_thread(
        render_history, title, subtitle, values, point=decimal_point(), axis=_("rated games")
    )
    await bot.send_photo(message.chat.id, BufferedInputFile(image, "rating.png"), caption=caption)


@router.message(Command("me"))
async def me(
    message: Message, bot: Bot, db: Database, career: CareerService,
    standings: StandingsService, settings: Settings,
) -> None:
    assert message.from_user is not None
    person = await reads.person_of_user(db, message.from_user.id)
    found = None if person is None else await _profile(
        db, career, standings, settings, person.id, message.from_user.id)
    if found is None:
        await message.answer(texts.not_played_yet())
        return
    await _show(message, bot, found, group=is_group(message), command="/me")


@router.message(Command("player"))
async def player(
    message: Message, command: CommandObject, bot: Bot, db: Database, career: CareerService,
    standings: StandingsService, settings: Settings,
) -> None:
    assert message.from_user is not None
    text = " ".join((command.args or "").split())
    if not text:
        await message.answer(texts.player_usage())
        return
    found = await reads.found_with_tournaments(db, text)
    if not found:
        await message.answer(texts.nobody_named(text))
        return
    if len(found) > 1:
        rows = [
            [InlineKeyboardButton(
                text=texts.person_button(person.name, played)[:64],
                callback_data=CareerPerson(person_id=person.id).pack())]
            for person, played in found[:BUTTONS]
        ]
        await message.answer(texts.which_one(text),
                             reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))
        return
    profile = await _profile(db, career, standings, settings, found[0][0].id,
                             message.from_user.id)
    if profile is None:
        await message.answer(texts.nobody_named(text))
        return
    await _show(message, bot, profile, group=is_group(message),
                command=f"/player {profile.person.name}")


@router.callback_query(CareerPerson.filter())
async def person_picked(
    callback: CallbackQuery, callback_data: CareerPerson, bot: Bot, db: Database,
    career: CareerService, standings: StandingsService, settings: Settings,
) -> None:
    profile = await _profile(db, career, standings, settings, callback_data.person_id,
                             callback.from_user.id)
    if profile is None or not isinstance(callback.message, Message):
        await callback.answer(say(OUT_OF_DATE))
        return
    await callback.answer()
    await _show(callback.message, bot, profile, group=is_group(callback.message),
                command=f"/player {profile.person.name}")


# -- /top -------------------------------------------------------------------------------------


@router.message(Command("top"))
async def top(
    message: Message, bot: Bot, db: Database, career: CareerService, settings: Settings,
) -> None:
    state = await career.current()
    rows = await reads.leaderboard(db, state, settings.top_min_games)
    url = f"{settings.webapp_url}/top" if settings.webapp_url else None
    for page in texts.top_pages(rows, settings.top_min_games, url):
        await message.answer(page)
    if not rows:
        return
    from bot.texts.career_image import render_top  # Pillow only when drawing

    images = await asyncio.to_thread(
        render_top, texts.top_title(), texts.top_columns(), texts.top_cells(state, rows),
        subtitle=texts.top_subtitle(len(rows), settings.top_min_games),
        podium=sum(1 for named in rows if named.row.place <= 3),
    )
    await bot.send_photo(message.chat.id, BufferedInputFile(images[0], "top.png"),
                         caption=texts.top_caption(len(rows), settings.top_min_games))


# -- the chief judge: /link ------------------------------------------------------------------------


@router.message(Command("link"), ChiefJudge("link"))
async def link_command(
    message: Message, command: CommandObject, tournament: TournamentRow, db: Database
) -> None:
    assert message.from_user is not None
    nickname, query = _split(command.args)
    if not nickname:
        await message.answer(texts.link_usage())
        return
    choice = await service.link_choices(db, tournament.id, message.from_user.id, nickname, query)
    if isinstance(choice, Refusal):
        await message.answer(say(_escaped(choice)))
        return
    if not choice.found:
        await message.answer(texts.link_found_nobody(choice.player.nickname, choice.query))
        return
    rows = [
        [InlineKeyboardButton(
            text=texts.person_button(seen.person.name, seen.played)[:64],
            callback_data=CareerLink(player_id=choice.player.id,
                                     person_id=seen.person.id).pack())]
        for seen in choice.found[:BUTTONS]
    ]
    await message.answer(
        texts.link_question(choice.player.nickname, choice.tournament.title, choice.mine.played),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
    )


def _undo_markup(tournament_id: int, entry: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(
        text=texts.undo_button(),
        callback_data=CareerUndo(tournament_id=tournament_id, entry=entry).pack())]])


async def _edit(callback: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None) -> None:
    if isinstance(callback.message, Message):
        with suppress(TelegramAPIError):  # the message is too old to edit: the answer says it
            await callback.message.edit_text(text, reply_markup=markup)


@router.callback_query(CareerLink.filter(), ChiefJudge(via="player", finished=True))
async def link_picked(
    callback: CallbackQuery, callback_data: CareerLink, player: PlayerRow, db: Database,
    career: CareerService,
) -> None:
    linked = await service.link(db, player.id, callback_data.person_id, callback.from_user.id)
    if isinstance(linked, Refusal):
        await answer_refusal(callback, _escaped(linked))
        return
    await callback.answer(_("Linked."))
    text = texts.linked_text(linked.player.nickname, linked.tournament.title,
                             linked.target.person.name, linked.target.played, linked.merged)
    await _edit(callback, text + "\n" + texts.undo_hint(),
                _undo_markup(linked.tournament.id, linked.entry))


# -- /career_name -----------------------------------------------------------------------------


@router.message(Command("career_name"), ChiefJudge("career_name"))
async def career_name(
    message: Message, command: CommandObject, tournament: TournamentRow, db: Database
) -> None:
    assert message.from_user is not None
    nickname, name = _split(command.args)
    if not nickname or not name:
        await message.answer(texts.rename_usage())
        return
    renamed = await service.rename(db, tournament.id, message.from_user.id, nickname, name)
    if isinstance(renamed, Refusal):
        await message.answer(say(_escaped(renamed)))
        return
    await message.answer(
        texts.renamed_text(renamed.before.name, renamed.after.name) + "\n" + texts.undo_hint(),
        reply_markup=_undo_markup(renamed.tournament.id, renamed.entry),
    )


# -- taking back -------------------------------------------------------------------------------


def _undone(done: service.Undone) -> str:
    return texts.undone_text(done.action, done.source.name, done.target.name)


@router.message(Command("undo_link"), ChiefTournaments(NOT_CHIEF, finished=True))
async def undo_command(message: Message, db: Database) -> None:
    assert message.from_user is not None
    done = await service.undo(db, message.from_user.id)
    await message.answer(say(_escaped(done)) if isinstance(done, Refusal) else _undone(done))


@router.callback_query(CareerUndo.filter(), ChiefJudge(finished=True))
async def undo_pressed(callback: CallbackQuery, callback_data: CareerUndo, db: Database) -> None:
    done = await service.undo(db, callback.from_user.id, callback_data.entry)
    if isinstance(done, Refusal):
        await answer_refusal(callback, _escaped(done))
        return
    await callback.answer()
    await _edit(callback, _undone(done), None)


# -- /rating_kind -------------------------------------------------------------------------------


KINDS: tuple[Literal["tournament", "elite", "unrated"], ...] = ("tournament", "elite", "unrated")


def _kind_markup(tournament_id: int, current: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(
            text=("• " if kind == current else "") + texts.kind_button(kind),
            callback_data=RatingKindPick(tournament_id=tournament_id, kind=kind).pack())
        for kind in KINDS
    ]])


async def _kind_card(message: Message, db: Database, tournament: TournamentRow) -> None:
    kind = await service.rating_kind(db, tournament.id)
    await message.answer(texts.kind_card(tournament.title, kind),
                         reply_markup=_kind_markup(tournament.id, kind))


@router.message(Command("rating_kind"), ChiefJudge("rating_kind"))
async def rating_kind(message: Message, tournament: TournamentRow, db: Database) -> None:
    await _kind_card(message, db, tournament)


@router.callback_query(TournamentPick.filter(F.command == "rating_kind"), ChiefJudge())
async def rating_kind_tournament(
    callback: CallbackQuery, tournament: TournamentRow, db: Database
) -> None:
    await callback.answer()
    if isinstance(callback.message, Message):
        await _kind_card(callback.message, db, tournament)


@router.callback_query(RatingKindPick.filter(), ChiefJudge(finished=True))
async def rating_kind_picked(
    callback: CallbackQuery, callback_data: RatingKindPick, tournament: TournamentRow,
    db: Database,
) -> None:
    done = await service.set_rating_kind(db, tournament.id, callback.from_user.id,
                                         callback_data.kind)
    if isinstance(done, Refusal):
        await answer_refusal(callback, _escaped(done))
        return
    await callback.answer(texts.kind_name(done.kind)[:200])
    await _edit(callback, texts.kind_set(done.tournament.title, done.kind),
                _kind_markup(done.tournament.id, done.kind))
