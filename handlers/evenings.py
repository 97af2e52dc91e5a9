"""A club evening's sign-up in the group: a host's /evening announces it (the post with
"I'm in" and "Can't come"), /guest, /unsign, /close_signup and /cancel_evening change
it. A host command acts on the club's nearest evening not started yet, or on the one
named ``#ID`` first (``/guest #3 Anna``; the id is in the announcement's title).

A tap is answered at once (to the tapper only); the announcement is edited after, by
the poster (``bot.publishing.club_posts``), once per window for many taps.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import ngettext

from bot.publishing.club_posts import ClubPoster
from bot.services import Refusal
from bot.services import evenings as service
from bot.services.clubs import ClubRow
from bot.services.evenings import EveningRow
from bot.services.records import Database
from bot.texts.evening_text import cant_come_label, im_in_label
from bot.texts.markup import html_text
from bot.texts.phrases import say
from handlers.callbacks import RowId
from handlers.chats import in_group
from handlers.club_filters import ClubHost
from handlers.filters import answer_refusal

router = Router(name="evenings")


class EveningCb(CallbackData, prefix="ev"):
    """ "I'm in" / "Can't come" under an evening's announcement."""

    action: Literal["in", "out"]
    evening_id: RowId


def announcement_keyboard(evening_id: int) -> InlineKeyboardMarkup:
    """The announcement's buttons, in the current (the club's) language."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=im_in_label(),
                    callback_data=EveningCb(action="in", evening_id=evening_id).pack(),
                ),
                InlineKeyboardButton(
                    text=cant_come_label(),
                    callback_data=EveningCb(action="out", evening_id=evening_id).pack(),
                ),
            ]
        ]
    )


def place_text(place: tuple[bool, int] | None) -> str:
    if place is None:
        return ""
    seated, number = place
    return (
        _("You are in, #{number}.")
        if seated
        else _("All seats are taken: you are #{number} in the reserve.")
    ).format(number=number)


# -- the buttons ----------------------------------------------------------------------------


@router.callback_query(EveningCb.filter(F.action.in_({"in", "out"})))
async def signup_tapped(
    callback: CallbackQuery,
    callback_data: EveningCb,
    db: Database,
    bot: Bot,
    club_posts: ClubPoster,
) -> None:
    """ "I'm in" (a seat or a place in the reserve) or "Can't come"."""
    joining = callback_data.action == "in"
    change = service.sign_up if joining else service.cant_come
    done = await change(db, callback_data.evening_id, callback.from_user)
    if isinstance(done, Refusal):
        await answer_refusal(callback, done)
        return
    await callback.answer(place_text(done.place) if joining else _("Noted: you can't come."))
    await club_posts.changed(bot, done.evening.id)


# -- a host's commands ----------------------------------------------------------------------


@router.message(Command("evening"), in_group, ClubHost)
async def evening_command(
    message: Message,
    command: CommandObject,
    club: ClubRow,
    db: Database,
    bot: Bot,
    club_posts: ClubPoster,
) -> None:
    assert message.from_user is not None
    form = service.parse_evening(command.args or "", club.timezone)
    if isinstance(form, Refusal):
        await message.reply(say(form))
        return
    made = await service.announce(db, club, message.from_user.id, form)
    if isinstance(made, Refusal):
        await message.reply(say(made))
        return
    await club_posts.changed(bot, made.id)


async def _guest(db: Database, evening: EveningRow, actor: int, rest: str) -> str | Refusal:
    done = await service.add_guest(db, evening, actor, rest)
    if isinstance(done, Refusal):
        return done
    seated, number = done.place or (True, 0)
    return (
        _("{name} is signed up for evening #{id}, #{number}.")
        if seated
        else _("{name} is signed up for evening #{id}, #{number} in the reserve.")
    ).format(name=html_text(done.signup.name), id=evening.id, number=number)


async def _unsign(db: Database, evening: EveningRow, actor: int, rest: str) -> str | Refusal:
    done = await service.remove(db, evening, actor, rest)
    if isinstance(done, Refusal):
        return done
    text = _("{name} is off the list of evening #{id}.").format(
        name=html_text(done.signup.name), id=evening.id
    )
    if done.moved_up:
        names = ", ".join(html_text(r.name) for r in done.moved_up)
        text += "\n" + _("Moved up from the reserve: {names}.").format(names=names)
    return text


async def _close(db: Database, evening: EveningRow, actor: int, rest: str) -> str | Refusal:
    done = await service.close_signup(db, evening, actor)
    if isinstance(done, Refusal):
        return done
    return _(
        "The sign-up of evening #{id} is closed. Hosts may still add and "
        "remove people with /guest and /unsign."
    ).format(id=done.id)


async def _cancel(db: Database, evening: EveningRow, actor: int, rest: str) -> str | Refusal:
    done = await service.cancel(db, evening, actor)
    if isinstance(done, Refusal):
        return done
    return ngettext(
        "Evening #{id} is cancelled; {count} person signed up is told privately.",
        "Evening #{id} is cancelled; {count} people signed up are told privately.",
        done.told,
    ).format(id=done.evening.id, count=done.told)


HostAction = Callable[[Database, EveningRow, int, str], Awaitable[str | Refusal]]
HOST_ACTIONS: dict[str, HostAction] = {
    "guest": _guest,
    "unsign": _unsign,
    "close_signup": _close,
    "cancel_evening": _cancel,
}


@router.message(Command(*HOST_ACTIONS), in_group, ClubHost)
async def host_command(
    message: Message,
    command: CommandObject,
    club: ClubRow,
    db: Database,
    bot: Bot,
    club_posts: ClubPoster,
) -> None:
    """The host's change of the nearest evening not started yet (or of ``#ID``)."""
    assert message.from_user is not None
    evening_id, rest = service.evening_id_arg(command.args or "")
    evening = await service.pick_evening(db, club, evening_id)
    if isinstance(evening, Refusal):
        await message.reply(say(evening))
        return
    done = await HOST_ACTIONS[command.command.lower()](db, evening, message.from_user.id, rest)
    await message.reply(say(done))
    if not isinstance(done, Refusal):
        await club_posts.changed(bot, evening.id)
