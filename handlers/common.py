"""/start, /help and /cancel: what every user can do anywhere."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandStart
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.db.connection import Database
from bot.names import nick, quoted_title
from bot.services.players import already_registered, registrations

router = Router(name="common")


def help_text() -> str:
    return _(
        "I keep the standings of a sports-mafia tournament by the federation's rules.\n\n"
        "<b>Players</b>: /join NICKNAME to enter a tournament, /rating for the standings, "
        "/protest within 10 minutes of your game's end (8.8.1).\n"
        "<b>Judges</b>: /game to enter a game, /cancel to stop.\n"
        "<b>Chief judge</b>: /new_tournament in the tournament's group, /tournament, "
        "/staff, /roster, /withdraw NICKNAME (a player leaves: his games stay), /seating, "
        "/games, /protests, /lot, /export, /backup."
    )


@router.message(CommandStart(), F.chat.type == "private")
async def start(message: Message, db: Database) -> None:
    lines = [_("Hello! This is the tournament bot.")]
    if message.from_user is not None:
        lines += await who_you_are(db, message.from_user.id)
    await message.answer("\n\n".join([*lines, help_text()]))


async def who_you_are(db: Database, user_id: int) -> list[str]:
    """A player's tournaments (unfinished ones): under which nickname he plays there."""
    found = []
    for tournament, player in await registrations(db, user_id):
        if player.status == "confirmed":
            found.append(
                _("You play in {title} as {nick}.").format(
                    title=quoted_title(tournament), nick=nick(player.nickname)
                )
            )
        else:
            found.append(already_registered(player, tournament).text())
    return found


@router.message(Command("help"))
async def help_command(message: Message) -> None:
    await message.answer(help_text())


@router.message(Command("cancel"))
async def cancel(message: Message, state: FSMContext) -> None:
    if await state.get_state() is None:
        await message.answer(_("Nothing to cancel."))
        return
    await state.clear()
    await message.answer(_("Cancelled. Nothing was saved."))


@router.message(F.chat.type == "private", F.text.startswith("/"))
async def unknown_command(message: Message) -> None:
    # Last handler of the last router: a command nobody else took. In a group an
    # unknown command may be for another bot, so only private chats get an answer.
    await message.answer(_("I don't know this command. /help lists what I can do."))


@router.callback_query()
async def unknown_button(callback: CallbackQuery) -> None:
    # Data no handler knows (a button of an old version of the bot, or forged): the
    # spinner stops with the stale-button answer instead of running until it times out.
    await callback.answer(_("This card is out of date."))
