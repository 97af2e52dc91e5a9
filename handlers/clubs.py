"""A club in a group: /club (create it, or its card), the owner's /host and /unhost,
and his settings: /club_language, /club_timezone, /season_start, /club_protests."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message, User
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.services import Refusal
from bot.services import clubs as service
from bot.services.clubs import LANGUAGES, NO_CLUB_HERE, OWNER, ClubRow
from bot.services.records import Database
from bot.texts.evening_text import reminder_time
from bot.texts.localtime import valid_timezone, zone_label
from bot.texts.names import quoted
from bot.texts.phrases import say
from handlers.chats import in_group
from handlers.club_filters import ClubOwner

router = Router(name="clubs")

ON = frozenset({"on", "yes", "1", "вкл", "да"})
OFF = frozenset({"off", "no", "0", "выкл", "нет"})


async def club_card(db: Database, club_id: int) -> str:
    card = await service.club_card(db, club_id)
    club = card.club
    names = {uid: say(p) for uid, p in card.names.items()}
    owner = ", ".join(names[m.user_id] for m in card.staff if m.role == OWNER)
    hosts = ", ".join(names[m.user_id] for m in card.staff if m.role != OWNER)
    lines = [
        _("Club {title}").format(title=quoted(club.title)),
        _("Owner: {name}").format(name=owner),
        _("Hosts: {names}").format(names=hosts or "—"),
        _("Language: {language}; time zone: {zone}").format(
            language=club.language, zone=zone_label(club.timezone, club.created_at)
        ),
        _("The season starts on {day} (MM-DD); protests at evenings: {protests}.").format(
            day=club.season_start, protests=_("on") if club.protests else _("off")
        ),
        _("Reminders: {when}.").format(when=reminder_time(club.remind_before)),
    ]
    return "\n".join(lines)


@router.message(Command("club"), in_group)
async def club_command(message: Message, command: CommandObject, db: Database, i18n: I18n) -> None:
    assert message.from_user is not None
    title = (command.args or "").strip()
    if not title:
        club, _role = await service.club_and_role(db, message.chat.id, message.from_user.id)
        await message.reply(await club_card(db, club.id) if club else say(NO_CLUB_HERE))
        return
    made = await service.create_club(
        db, message.chat.id, title, message.from_user, language=i18n.current_locale
    )
    if isinstance(made, Refusal):
        await message.reply(say(made))
        return
    await message.reply(
        _(
            "This group is now the club {title}, and you are its owner. Add hosts with "
            "/host (a reply to a message of theirs), set the time zone with /club_timezone, "
            "announce an evening with /evening."
        ).format(title=quoted(made.title))
    )


def _target(message: Message, args: str | None) -> User | str | None:
    """Whom /host or /unhost names: the replied message's sender or an @username."""
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None:
        return replied.from_user
    word = (args or "").strip()
    return word if word.startswith("@") and len(word) > 1 else None


@router.message(Command("host", "unhost"), in_group, ClubOwner)
async def host_command(
    message: Message, command: CommandObject, club: ClubRow, db: Database
) -> None:
    """/host and /unhost: the replied message's sender or an @username."""
    assert message.from_user is not None
    adding = command.command.lower() == "host"
    target = _target(message, command.args)
    if target is None:
        await message.reply(
            _("Reply /host to a message of the person, or send /host @username.")
            if adding
            else _("Reply /unhost to a message of the host, or send /unhost @username.")
        )
        return
    if adding and isinstance(target, User) and target.is_bot:
        await message.reply(_("A bot or an anonymous admin can't be a host."))
        return
    change = service.add_host if adding else service.remove_host
    done = await change(db, club, target, message.from_user.id)
    if isinstance(done, Refusal):
        await message.reply(say(done))
        return
    await message.reply(
        (
            _("{name} is now a host of {club}.")
            if adding
            else _("{name} is no longer a host of {club}.")
        ).format(name=say(done), club=quoted(club.title))
    )


# -- the owner's settings -------------------------------------------------------------------


@router.message(Command("club_language"), in_group, ClubOwner)
async def language_command(
    message: Message, command: CommandObject, club: ClubRow, db: Database
) -> None:
    assert message.from_user is not None
    value = (command.args or "").strip().lower()
    if value not in LANGUAGES:
        await message.reply(_("Send /club_language ru or /club_language en."))
        return
    await service.change(db, club, message.from_user.id, "language", value)
    with I18n.get_current(no_error=False).use_locale(value):
        await message.reply(
            _("The club's language is now English.")
            if value == "en"
            else _("The club's language is now Russian.")
        )


@router.message(Command("club_timezone"), in_group, ClubOwner)
async def timezone_command(
    message: Message, command: CommandObject, club: ClubRow, db: Database
) -> None:
    assert message.from_user is not None
    typed = (command.args or "").strip()
    found = valid_timezone(typed) if typed else None
    if found is None:
        await message.reply(
            _(
                "I don't know the time zone {zone}. Send a city or an offset, e.g. "
                "/club_timezone Moscow or /club_timezone UTC+3."
            ).format(zone=typed or "—")
            if typed
            else _(
                "Send /club_timezone followed by a city or an offset, e.g. /club_timezone Moscow."
            )
        )
        return
    after = await service.change(db, club, message.from_user.id, "timezone", found)
    await message.reply(
        _("The club's time zone is now {zone}.").format(
            zone=zone_label(after.timezone, after.created_at)
        )
    )


@router.message(Command("season_start"), in_group, ClubOwner)
async def season_command(
    message: Message, command: CommandObject, club: ClubRow, db: Database
) -> None:
    assert message.from_user is not None
    day = service.season_start(command.args or "")
    if day is None:
        await message.reply(
            _("Send the season's first day as MM-DD, e.g. /season_start 09-01 for 1 September.")
        )
        return
    await service.change(db, club, message.from_user.id, "season_start", day)
    await message.reply(_("The club's season now starts on {day} (MM-DD).").format(day=day))


@router.message(Command("club_protests"), in_group, ClubOwner)
async def protests_command(
    message: Message, command: CommandObject, club: ClubRow, db: Database
) -> None:
    assert message.from_user is not None
    value = (command.args or "").strip().lower()
    if value not in ON | OFF:
        await message.reply(_("Send /club_protests on or /club_protests off."))
        return
    await service.change(db, club, message.from_user.id, "protests", int(value in ON))
    await message.reply(
        _("Protests at the club's evenings are on now.")
        if value in ON
        else _("Protests at the club's evenings are off now.")
    )


@router.message(Command("club_reminder"), in_group, ClubOwner)
async def reminder_command(
    message: Message, command: CommandObject, club: ClubRow, db: Database
) -> None:
    assert message.from_user is not None
    seconds = service.reminder_before(command.args or "")
    if seconds is None:
        await message.reply(
            _(
                "Send how long before an evening its reminder goes: /club_reminder 3 (hours), "
                "/club_reminder 90m (minutes, at most a week) or /club_reminder off."
            )
        )
        return
    await service.change(db, club, message.from_user.id, "remind_before", seconds)
    await message.reply(
        _("Reminders of the evenings announced from now on: {when}.").format(
            when=reminder_time(seconds)
        )
    )
