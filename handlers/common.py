"""/start, /help and /cancel: what every user can do anywhere."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandStart
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.config import Settings
from bot.services.clubs import roles_of_user
from bot.services.players import already_registered, registrations
from bot.services.records import CHIEF, Database
from bot.services.staff import staff_tournaments
from bot.texts.i18n import N_
from bot.texts.names import nick, quoted_title
from bot.texts.phrases import say
from handlers.access import COMMANDS, Who, is_operator

router = Router(name="common")


# The sections of /help, in order: who may use a command (handlers.access) and its title.
SECTIONS: tuple[tuple[Who, str], ...] = (
    ("anyone", N_("Everyone")),
    ("staff", N_("Judges")),
    ("chief", N_("Chief judge")),
    ("club_owner", N_("Club owner")),
    ("club_host", N_("Club hosts")),
    ("operator", N_("Operators")),
)


async def roles_of(db: Database, settings: Settings, user_id: int) -> set[Who]:
    """What the reader is, in any of his tournaments (finished ones too)."""
    held: set[Who] = {"anyone"}
    for row in await staff_tournaments(db, user_id, finished=True):
        held |= {"staff", "chief"} if row.role == CHIEF else {"staff"}
    club_roles = await roles_of_user(db, user_id)
    if club_roles:
        held.add("club_host")
    if "owner" in club_roles:
        held.add("club_owner")
    if is_operator(settings, user_id):
        held.add("operator")
    return held


def help_text(roles: set[Who]) -> str:
    """What the reader's roles let him do: every command of each, from the access table."""
    lines = [_("I keep the standings of a sports-mafia tournament by the federation's rules.")]
    for who, title in SECTIONS:
        if who not in roles:
            continue
        lines.append("\n<b>" + _(title) + "</b>")
        lines += [
            f"/{command} — {_(access.about)}"
            for command, access in COMMANDS.items()
            if access.who == who and access.about
        ]
    return "\n".join(lines)


@router.message(CommandStart(), F.chat.type == "private")
async def start(message: Message, db: Database, settings: Settings) -> None:
    assert message.from_user is not None  # the identity middleware: a real sender
    user_id = message.from_user.id
    lines = [_("Hello! This is the tournament bot."), *await who_you_are(db, user_id)]
    roles = await roles_of(db, settings, user_id)
    await message.answer("\n\n".join([*lines, help_text(roles)]))


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
            found.append(say(already_registered(player, tournament)))
    return found


@router.message(Command("help"))
async def help_command(message: Message, db: Database, settings: Settings) -> None:
    assert message.from_user is not None
    await message.answer(help_text(await roles_of(db, settings, message.from_user.id)))


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


@router.message(F.chat.type == "private")
async def unplaced(message: Message) -> None:
    # Last of all: text (or anything) no conversation of his was waiting for.
    await message.answer(_("I don't know what to do with this here. /help lists what I can do."))


@router.callback_query()
async def unknown_button(callback: CallbackQuery) -> None:
    # Data no handler knows (a button of an old version of the bot, or forged): the
    # spinner stops with the stale-button answer instead of running until it times out.
    await callback.answer(_("This card is out of date."))
