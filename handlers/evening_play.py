"""Playing a club evening in its group (docs/club.md, "The evening", "Season"): the
host's ``/present`` list (a tap marks a name), ``/present NICK`` for a latecomer,
``/start_evening``, ``/next_game`` (suggested, then posted or drawn again),
``/close_evening``; anyone's ``/season``.

The club's owner and hosts are let through by ``handlers.club_filters.ClubHost`` before
any use case runs (a command's group, a button's message's group); anyone else is
answered by the filter. A start and a close redraw the evening's announcement in the
group (``bot.publishing.club_posts``): under way, then over, without its buttons.
"""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot.publishing import Publisher
from bot.publishing.club_posts import ClubPoster
from bot.publishing.notices import run_follow_up
from bot.reads.evening_result import evening_lines
from bot.reads.season import season
from bot.reads.standings import StandingsService
from bot.services import Refusal
from bot.services import evening_play as service
from bot.services.clubs import NO_CLUB_HERE, ClubRow, club_and_role
from bot.services.evening_play import Attendance, Suggestion
from bot.services.records import Database
from bot.texts import evening_table as texts
from bot.texts.phrases import say
from handlers.callbacks import Arg, Code, RowId, Small
from handlers.chats import in_group
from handlers.club_filters import ClubHost
from handlers.filters import answer_refusal

router = Router(name="evening_play")


class Presence(CallbackData, prefix="vp"):
    """The host taps a name on the ``/present`` list."""

    evening_id: RowId
    signup_id: RowId


class NextGame(CallbackData, prefix="vn"):
    """The suggested game: post it, or suggest other tables."""

    action: Code  # post, again
    round: Small
    seed: Arg


def _list_text(att: Attendance) -> str:
    return texts.attendance_text(
        att.club.title, att.evening.place, att.present, len(att.people),
        running=att.evening.status == "running",
    )


def _list_markup(att: Attendance) -> InlineKeyboardMarkup:
    buttons = [
        InlineKeyboardButton(
            text=texts.presence_button(a.name, a.presence),
            callback_data=Presence(evening_id=att.evening.id, signup_id=a.id).pack(),
        )
        for a in att.people
    ]
    rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _next_markup(suggestion: Suggestion) -> InlineKeyboardMarkup:
    def button(text: str, action: str) -> InlineKeyboardButton:
        data = NextGame(action=action, round=suggestion.game.round, seed=suggestion.seed)
        return InlineKeyboardButton(text=text, callback_data=data.pack())

    row = [button(texts.post_button(), "post"), button(texts.again_button(), "again")]
    return InlineKeyboardMarkup(inline_keyboard=[row])


@router.message(Command("present"), in_group, ClubHost)
async def present(
    message: Message, command: CommandObject, club: ClubRow, db: Database
) -> None:
    assert message.from_user is not None
    if command.args:
        found = await service.add_latecomer(db, club, message.from_user.id, command.args)
    else:
        found = await service.attendance(db, club)
    if isinstance(found, Refusal):
        await message.answer(say(found))
        return
    await message.answer(_list_text(found), reply_markup=_list_markup(found))


@router.callback_query(Presence.filter(), ClubHost)
async def presence_tapped(
    callback: CallbackQuery, callback_data: Presence, club: ClubRow, db: Database
) -> None:
    found = await service.toggle(
        db, club, callback.from_user.id, callback_data.evening_id, callback_data.signup_id
    )
    if isinstance(found, Refusal):
        await answer_refusal(callback, found)
        return
    await callback.answer()
    if isinstance(callback.message, Message):
        await callback.message.edit_text(
            _list_text(found), reply_markup=_list_markup(found)
        )


@router.message(Command("next_game"), in_group, ClubHost)
async def next_game(message: Message, club: ClubRow, db: Database) -> None:
    shown = await service.suggest_next(db, club)
    if isinstance(shown, Refusal):
        await message.answer(say(shown))
        return
    await message.answer(texts.suggestion_text(shown.game), reply_markup=_next_markup(shown))


@router.callback_query(NextGame.filter(F.action.in_({"post", "again"})), ClubHost)
async def next_game_tapped(
    callback: CallbackQuery,
    callback_data: NextGame,
    club: ClubRow,
    bot: Bot,
    db: Database,
    publisher: Publisher,
) -> None:
    message = callback.message
    if not isinstance(message, Message):
        await callback.answer()
        return
    if callback_data.action == "again":
        shown = await service.suggest_next(db, club)
        if isinstance(shown, Refusal):
            await answer_refusal(callback, shown)
            return
        await callback.answer()
        markup = _next_markup(shown)
        await message.edit_text(texts.suggestion_text(shown.game), reply_markup=markup)
        return
    taken = await service.accept_next(
        db, club, callback.from_user.id, callback_data.round, callback_data.seed
    )
    if isinstance(taken, Refusal):
        await answer_refusal(callback, taken)
        return
    await callback.answer()
    await message.edit_text(texts.posted_text(taken.game))
    if taken.follow_up is not None:
        await run_follow_up(bot, taken.follow_up, publisher)


@router.message(Command("start_evening", "close_evening"), in_group, ClubHost)
async def start_or_close(
    message: Message,
    command: CommandObject,
    club: ClubRow,
    bot: Bot,
    db: Database,
    publisher: Publisher,
    club_posts: ClubPoster,
    standings: StandingsService,
) -> None:
    """The host's answer first, then the group's posts the use case queued, then the
    announcement redrawn (under way, over)."""
    assert message.from_user is not None
    done: service.Started | service.Closed | Refusal
    if command.command.lower() == "start_evening":
        done = await service.start(db, publisher, club, message.from_user.id)
    else:
        done = await service.close(db, publisher, club, message.from_user.id)
    if isinstance(done, Refusal):
        await message.answer(say(done))
        return
    if isinstance(done, service.Started):
        await message.answer(texts.started_text(done.tournament.title, done.players))
    else:
        lines = await evening_lines(standings, done.tournament.id)
        await message.answer(texts.closed_text(done.tournament.title, done.games, lines))
    await run_follow_up(bot, done.follow_up, publisher)
    await club_posts.changed(bot, done.evening.id)


@router.message(Command("season"), in_group)
async def season_table(message: Message, db: Database) -> None:
    sender = 0 if message.from_user is None else message.from_user.id
    club, _role = await club_and_role(db, message.chat.id, sender)
    if club is None:
        await message.answer(say(NO_CLUB_HERE))
        return
    await message.answer(texts.season_text(await season(db, club)))
