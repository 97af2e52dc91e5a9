"""Tournaments: /new_tournament in a group, the /tournament card, Start and Finish.

Also the helpers the staff and player routers share: which tournament a command acts
on (the group's, or a picker in private), who the sender is in it, and the one-line
refusals.
"""

from __future__ import annotations

import html
import logging
from typing import Literal

from aiogram import Bot, F, Router
from aiogram.exceptions import ClientDecodeError, TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import (
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberOwner,
    ChatMemberRestricted,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    User,
)
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.config import Settings
from bot.db import audit, games, players, staff, tournaments, users
from bot.db.connection import Conn, Database
from bot.db.errors import ChatBusy, InvalidTransition
from bot.db.timeutil import utcnow
from bot.db.tournaments import LANGUAGES, StaffRole, StaffTournament, TournamentRow
from bot.db.users import UserRow
from bot.localtime import valid_timezone, zone_label
from bot.publishing import Publisher
from scoring import b_value

log = logging.getLogger(__name__)
router = Router(name="tournaments")

GROUP_TYPES = frozenset({"group", "supergroup"})
in_group = F.chat.type.in_(GROUP_TYPES)
in_private = F.chat.type == "private"

MAX_TITLE = 100
# 8.6.1: the distance is games per player; no real tournament comes near 100.
MAX_DISTANCE = 100


# -- shared texts -------------------------------------------------------------------------


def only_chief() -> str:
    return _("Only the chief judge of this tournament can do that.")


def only_staff() -> str:
    return _("Only the judges of this tournament can do that.")


def send_in_group() -> str:
    return _("Send this in the tournament's group.")


def send_in_private() -> str:
    return _("Send this to me in a private chat.")


def no_tournament_here() -> str:
    return _(
        "There is no unfinished tournament in this group. "
        "The chief judge starts one with /new_tournament."
    )


def out_of_date() -> str:
    return _("This card is out of date.")


def quoted_title(tournament: TournamentRow) -> str:
    return "«" + html.escape(tournament.title) + "»"


def display_name(user: UserRow | None, user_id: int) -> str:
    """A person as the staff list and notices show him (HTML-escaped)."""
    if user is None or not user.first_name:
        return _("user {id}").format(id=user_id)
    name = html.escape(user.first_name)
    if user.username:
        name += " (@" + html.escape(user.username) + ")"
    return name


async def names_of(conn: Conn, user_ids: list[int]) -> dict[int, str]:
    found = await users.get_users(conn, user_ids)
    return {uid: display_name(found.get(uid), uid) for uid in user_ids}


async def remember_user(conn: Conn, user: User) -> None:
    """Record a person the sender pointed at (a replied-to message), for names later."""
    await users.upsert_user(
        conn,
        user.id,
        first_name=user.first_name,
        username=user.username,
        language_code=user.language_code,
    )


def status_name(status: str) -> str:
    return {
        "registration": _("registration"),
        "running": _("running"),
        "finished": _("finished"),
    }.get(status, status)


async def replies_to_bot(message: Message, bot: Bot) -> bool:
    """In a group a conversation step must answer the bot's question: with privacy mode
    on that is all the bot receives, and as an admin it must not take chatter for input."""
    replied = message.reply_to_message
    return bool(replied and replied.from_user and replied.from_user.id == bot.id)


def is_conversation_text(message: Message) -> bool:
    """Plain text (commands such as /cancel belong to their own handlers)."""
    return bool(message.text) and not (message.text or "").startswith("/")


# -- which tournament a command acts on -----------------------------------------------------


class TournamentPick(CallbackData, prefix="tk"):
    """A staff member with several tournaments picks one for a private command."""

    command: str
    tournament_id: int


def picker(command: str, rows: list[StaffTournament]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=row.tournament.title[:60],
                    callback_data=TournamentPick(
                        command=command, tournament_id=row.tournament.id
                    ).pack(),
                )
            ]
            for row in rows[:30]
        ]
    )


async def resolve_tournament(
    message: Message, db: Database, command: str, *, need: Literal["chief", "staff"]
) -> TournamentRow | None:
    """The tournament the command acts on, with the sender's role checked, or None after
    telling him why not: in a group its unfinished tournament; in private his only one,
    or a picker (``TournamentPick(command=...)``) when he has several."""
    user = message.from_user
    if user is None:
        return None
    if message.chat.type in GROUP_TYPES:
        async with db.read() as conn:
            tournament = await tournaments.running_tournament_for_chat(conn, message.chat.id)
            role = (
                None if tournament is None else await staff.staff_role(conn, tournament.id, user.id)
            )
        if tournament is None:
            await message.reply(no_tournament_here())
            return None
        if not role_allows(role, need):
            await message.reply(only_chief() if need == "chief" else only_staff())
            return None
        return tournament
    async with db.read() as conn:
        rows = await tournaments.tournaments_for_staff(conn, user.id)
    rows = [row for row in rows if role_allows(row.role, need)]
    if not rows:
        if need == "chief":
            await message.answer(_("You are not the chief judge of any unfinished tournament."))
        else:
            await message.answer(_("You are not a judge of any unfinished tournament."))
        return None
    if len(rows) == 1:
        return rows[0].tournament
    await message.answer(_("Which tournament?"), reply_markup=picker(command, rows))
    return None


async def resolve_pick(
    callback: CallbackQuery,
    callback_data: TournamentPick,
    db: Database,
    *,
    need: Literal["chief", "staff"],
) -> TournamentRow | None:
    """The picked tournament, re-checked (a picker's data is never trusted)."""
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, callback_data.tournament_id)
        role = (
            None
            if tournament is None
            else await staff.staff_role(conn, tournament.id, callback.from_user.id)
        )
    if tournament is None or tournament.status == "finished":
        await callback.answer(out_of_date())
        return None
    if not role_allows(role, need):
        await callback.answer(only_chief() if need == "chief" else only_staff())
        return None
    await callback.answer()
    return tournament


def role_allows(role: StaffRole | None, need: Literal["chief", "staff"]) -> bool:
    return role == "chief" if need == "chief" else role is not None


# -- /new_tournament ------------------------------------------------------------------------


class NewTournament(StatesGroup):
    title = State()
    distance = State()


RightsProblem = Literal["cannot_post", "not_admin", "no_pin"]


async def bot_rights(bot: Bot, chat_id: int) -> RightsProblem | None:
    """What the bot lacks in the group (getChatMember for itself), or None."""
    try:
        member = await bot.get_chat_member(chat_id, bot.id)
    except (TelegramAPIError, ClientDecodeError) as exc:
        # ClientDecodeError: an answer aiogram can't read (e.g. a self-hosted Bot API
        # server older than aiogram's types); the tournament is created all the same.
        log.warning("could not check my rights in %s: %s", chat_id, exc)
        return None
    if isinstance(member, ChatMemberLeft | ChatMemberBanned):
        return "cannot_post"
    if isinstance(member, ChatMemberRestricted):
        return "cannot_post" if not member.can_send_messages else "not_admin"
    if isinstance(member, ChatMemberOwner):
        return None
    if isinstance(member, ChatMemberAdministrator):
        return None if member.can_pin_messages is not False else "no_pin"
    return "not_admin"


def rights_warning(problem: str | None) -> str:
    if problem == "not_admin":
        return _(
            "Note: I am not an administrator here, so I can't pin the standings. "
            "Make me an administrator with the right to pin messages."
        )
    if problem == "no_pin":
        return _(
            "Note: I can't pin messages here. Give me the right to pin messages "
            "so the standings stay on top."
        )
    return ""


@router.message(Command("new_tournament"), in_private)
async def new_tournament_private(message: Message) -> None:
    await message.answer(
        _(
            "Send /new_tournament in the tournament's group: add me to the group, "
            "then send the command there. You become its chief judge."
        )
    )


# What /new_tournament's optional arguments may name as the group's language.
LANGUAGE_WORDS = {
    "ru": "ru", "rus": "ru", "russian": "ru", "русский": "ru", "рус": "ru",
    "en": "en", "eng": "en", "english": "en", "английский": "en", "англ": "en",
}
LANGUAGE_NAMES = {"ru": "Русский", "en": "English"}


def parse_new_tournament_args(args: str | None) -> tuple[str | None, str | None, str | None]:
    """(language, time zone, the first word that is neither) of ``/new_tournament en
    Europe/Berlin``; both are optional and may come in any order."""
    language = timezone = None
    for word in (args or "").split():
        if word.casefold() in LANGUAGE_WORDS:
            language = LANGUAGE_WORDS[word.casefold()]
            continue
        found = valid_timezone(word)
        if found is None:
            return language, timezone, word
        timezone = found
    return language, timezone, None


def new_tournament_usage(word: str) -> str:
    return _(
        "I don't know «{word}». /new_tournament takes, if you like, the group's language "
        "(ru or en) and a time zone, e.g. <code>/new_tournament en Europe/Berlin</code>."
    ).format(word=html.escape(word[:40]))


@router.message(Command("new_tournament"), in_group)
async def new_tournament(
    message: Message, command: CommandObject, state: FSMContext, db: Database, bot: Bot
) -> None:
    user = message.from_user
    if user is None:
        return
    language, timezone, unknown = parse_new_tournament_args(command.args)
    if unknown is not None:
        await state.clear()
        await message.reply(new_tournament_usage(unknown))
        return
    async with db.read() as conn:
        busy = await tournaments.running_tournament_for_chat(conn, message.chat.id)
    if busy is not None:
        await state.clear()
        await message.reply(chat_busy_text(busy))
        return
    problem = await bot_rights(bot, message.chat.id)
    if problem == "cannot_post":
        await state.clear()
        try:
            await bot.send_message(
                user.id,
                _(
                    "I can't post in that group, so I can't run a tournament there. "
                    "Allow me to send messages (better: make me an administrator) "
                    "and send /new_tournament again."
                ),
            )
        except TelegramAPIError:
            log.info("cannot tell %s that I can't post in %s", user.id, message.chat.id)
        return
    await state.set_state(NewTournament.title)
    await state.set_data({"rights": problem, "language": language, "timezone": timezone})
    await message.reply(
        _(
            "New tournament. You will be its chief judge.\n"
            "Reply to this message with the tournament's title (up to {max} characters). "
            "/cancel to stop."
        ).format(max=MAX_TITLE),
        reply_markup=ForceReply(selective=True, input_field_placeholder=_("Title")),
    )


def chat_busy_text(busy: TournamentRow) -> str:
    return _(
        "This group already has an unfinished tournament, {title}. One group runs one "
        "tournament at a time: its chief judge finishes it first (/tournament)."
    ).format(title=quoted_title(busy))


def distance_prompt() -> str:
    return _(
        "Reply with the distance: how many games each player plays (8.6.1), "
        "a whole number from 1 to {max}."
    ).format(max=MAX_DISTANCE)


@router.message(NewTournament.title, in_group, is_conversation_text, replies_to_bot)
async def new_tournament_title(message: Message, state: FSMContext) -> None:
    title = " ".join((message.text or "").split())
    if len(title) > MAX_TITLE:
        await message.reply(
            _(
                "The title is too long ({length} character, at most {max}). Send a shorter one.",
                "The title is too long ({length} characters, at most {max}). Send a shorter one.",
                len(title),
            ).format(length=len(title), max=MAX_TITLE),
            reply_markup=ForceReply(selective=True),
        )
        return
    await state.update_data(title=title)
    await state.set_state(NewTournament.distance)
    await message.reply(
        distance_prompt(),
        reply_markup=ForceReply(selective=True, input_field_placeholder="10"),
    )


def parse_distance(text: str) -> int | None:
    text = text.strip()
    if not text.isascii() or not text.isdigit():
        return None
    # Bounded before int(): Python refuses to convert more than 4300 digits.
    if len(text) > len(str(MAX_DISTANCE)):
        return None
    value = int(text)
    return value if 1 <= value <= MAX_DISTANCE else None


@router.message(NewTournament.distance, in_group, is_conversation_text, replies_to_bot)
async def new_tournament_distance(
    message: Message, state: FSMContext, db: Database, i18n: I18n, settings: Settings
) -> None:
    user = message.from_user
    if user is None:
        return
    distance = parse_distance(message.text or "")
    if distance is None:
        await message.reply(
            _(
                "The distance must be a whole number of games from 1 to {max} (8.6.1); "
                "«{text}» is not. Send it again."
            ).format(max=MAX_DISTANCE, text=html.escape((message.text or "")[:20])),
            reply_markup=ForceReply(selective=True, input_field_placeholder="10"),
        )
        return
    data = await state.get_data()
    title = str(data.get("title") or "")
    if not title:  # the data got lost: start over rather than invent a title
        await state.clear()
        await message.reply(_("Something went wrong. Send /new_tournament again."))
        return
    try:
        async with db.transaction() as conn:
            tournament = await tournaments.create_tournament(
                conn,
                title=title,
                distance=distance,
                created_by=user.id,
                chat_id=message.chat.id,
                language=str(data.get("language") or tournaments.DEFAULT_LANGUAGE),
                timezone=str(data.get("timezone") or settings.timezone),
            )
            await audit.audit(
                conn,
                action="tournament.create",
                entity="tournament",
                entity_id=tournament.id,
                tournament_id=tournament.id,
                actor_id=user.id,
                after=tournament,
            )
            await audit.audit(
                conn,
                action="staff.add",
                entity="staff",
                entity_id=user.id,
                tournament_id=tournament.id,
                actor_id=user.id,
                after=await staff.get_staff(conn, tournament.id, user.id),
            )
    except ChatBusy as exc:
        await state.clear()
        async with db.read() as conn:
            busy = await tournaments.get_tournament(conn, exc.tournament_id)
        await message.reply(chat_busy_text(busy) if busy else no_tournament_here())
        return
    await state.clear()
    asked = not data.get("language")
    rights = str(data.get("rights") or "")
    # The group reads the tournament's language from now on, this reply included.
    with i18n.use_locale(tournament.language):
        text = created_text(tournament, rights, ask_language=asked)
        markup = language_markup(tournament.id, rights) if asked else None
    await message.reply(text, reply_markup=markup)


def created_text(tournament: TournamentRow, rights: str, *, ask_language: bool) -> str:
    """The reply that creates the tournament: what it is, what next, its clock and,
    unless /new_tournament named it, the question of the group's language."""
    distance = tournament.distance
    text = _(
        "Tournament {title} is created: {distance} game per player, B = {b}. "
        "You are its chief judge.\n"
        "Next: /invite_players for players' link, /roster to paste a list of nicknames, "
        "/judge as a reply or /invite_judge to add judges, /tournament to start it.",
        "Tournament {title} is created: {distance} games per player, B = {b}. "
        "You are its chief judge.\n"
        "Next: /invite_players for players' link, /roster to paste a list of nicknames, "
        "/judge as a reply or /invite_judge to add judges, /tournament to start it.",
        distance,
    ).format(title=quoted_title(tournament), distance=distance, b=b_value(distance))
    text += "\n\n" + timezone_line(tournament)
    warning = rights_warning(rights)
    if warning:
        text += "\n\n" + warning
    if ask_language:
        text += "\n\n" + _(
            "Which language shall I write in here? Russian unless the chief judge "
            "chooses English."
        )
    else:
        text += "\n\n" + _("Language of the group: {language}.").format(
            language=LANGUAGE_NAMES[tournament.language]
        )
    return text


def timezone_line(tournament: TournamentRow) -> str:
    return _(
        "Times are shown in {zone}; /timezone changes it, e.g. "
        "<code>/timezone Europe/Berlin</code>."
    ).format(zone=zone_label(tournament.timezone, utcnow()))


class TournamentLanguage(CallbackData, prefix="tl"):
    """The chief judge answers which language the group reads."""

    tournament_id: int
    language: str
    rights: str = ""  # what the bot lacked in the group, to keep the warning on the edit


def language_markup(tournament_id: int, rights: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=LANGUAGE_NAMES[code],
                    callback_data=TournamentLanguage(
                        tournament_id=tournament_id, language=code, rights=rights
                    ).pack(),
                )
                for code in LANGUAGES
            ]
        ]
    )


@router.callback_query(TournamentLanguage.filter())
async def language_chosen(
    callback: CallbackQuery, callback_data: TournamentLanguage, db: Database, i18n: I18n
) -> None:
    if callback_data.language not in LANGUAGES:
        await callback.answer(out_of_date())
        return
    async with db.read() as conn:
        found = await tournaments.get_tournament(conn, callback_data.tournament_id)
        role = (
            None
            if found is None
            else await staff.staff_role(conn, found.id, callback.from_user.id)
        )
    if found is None or found.status == "finished":
        await callback.answer(out_of_date())
        return
    if role != "chief":
        await callback.answer(only_chief())
        return
    async with db.transaction() as conn:
        before = await tournaments.require_tournament(conn, found.id)
        tournament = await tournaments.set_language(conn, found.id, callback_data.language)
        if before.language != tournament.language:
            await audit.audit(
                conn,
                action="tournament.language",
                entity="tournament",
                entity_id=tournament.id,
                tournament_id=tournament.id,
                actor_id=callback.from_user.id,
                before={"language": before.language},
                after={"language": tournament.language},
            )
    with i18n.use_locale(tournament.language):
        await callback.answer(
            _("Language of the group: {language}.").format(
                language=LANGUAGE_NAMES[tournament.language]
            )
        )
        text = created_text(tournament, callback_data.rights, ask_language=False)
    if isinstance(callback.message, Message):
        try:
            await callback.message.edit_text(text, reply_markup=None)
        except TelegramAPIError as exc:  # gone, or the same language tapped twice
            log.debug("creation message not edited: %s", exc)


# -- the /tournament card -----------------------------------------------------------------


class TournamentAction(CallbackData, prefix="ta"):
    """Chief judge's buttons on the card: start, finish (then yes / back), applications."""

    action: str
    tournament_id: int


async def card(
    db: Database, tournament_id: int, viewer_id: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    async with db.read() as conn:
        tournament = await tournaments.require_tournament(conn, tournament_id)
        members = await staff.list_staff(conn, tournament_id)
        names = await names_of(conn, [m.user_id for m in members])
        listed = await players.list_players(conn, tournament_id, status=("confirmed", "pending"))
        saved = await games.count_games(conn, tournament_id)
    chiefs = [names[m.user_id] for m in members if m.role == "chief"]
    judges = [names[m.user_id] for m in members if m.role == "judge"]
    confirmed = sum(1 for p in listed if p.status == "confirmed")
    pending = len(listed) - confirmed
    lines = [
        "🏆 <b>" + html.escape(tournament.title) + "</b>",
        _("Status: {status}").format(status=status_name(tournament.status)),
        _(
            "Distance: {distance} game per player (8.6.1), B = {b} (D2)",
            "Distance: {distance} games per player (8.6.1), B = {b} (D2)",
            tournament.distance,
        ).format(distance=tournament.distance, b=b_value(tournament.distance)),
        _("Chief judge: {names}").format(names=", ".join(chiefs)),
        _("Judges: {names}").format(names=", ".join(judges) if judges else _("none yet")),
        _("Players: {confirmed} confirmed, {pending} waiting for confirmation").format(
            confirmed=confirmed, pending=pending
        ),
        _("Games saved: {count}").format(count=saved),
    ]
    viewer_is_chief = any(m.user_id == viewer_id and m.role == "chief" for m in members)
    rows: list[list[InlineKeyboardButton]] = []
    if viewer_is_chief and tournament.status != "finished":
        buttons = []
        if tournament.status == "registration":
            buttons.append(_button(_("▶️ Start"), "start", tournament_id))
        buttons.append(_button(_("🏁 Finish"), "finish", tournament_id))
        rows.append(buttons)
        if pending:
            rows.append(
                [_button(_("Applications ({count})").format(count=pending), "apps", tournament_id)]
            )
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    return "\n".join(lines), markup


def _button(text: str, action: str, tournament_id: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text=text,
        callback_data=TournamentAction(action=action, tournament_id=tournament_id).pack(),
    )


@router.message(Command("tournament"), in_group)
async def tournament_in_group(message: Message, db: Database) -> None:
    user = message.from_user
    if user is None:
        return
    async with db.read() as conn:
        tournament = await tournaments.running_tournament_for_chat(conn, message.chat.id)
        if tournament is None:  # the group's last one, finished, still has a card
            past = await tournaments.tournaments_for_chat(conn, message.chat.id)
            tournament = past[-1] if past else None
    if tournament is None:
        await message.reply(no_tournament_here())
        return
    text, markup = await card(db, tournament.id, user.id)
    await message.reply(text, reply_markup=markup)


@router.message(Command("tournament"), in_private)
async def tournament_in_private(message: Message, db: Database) -> None:
    user = message.from_user
    if user is None:
        return
    tournament = await resolve_tournament(message, db, "card", need="staff")
    if tournament is None:
        return
    text, markup = await card(db, tournament.id, user.id)
    await message.answer(text, reply_markup=markup)


@router.callback_query(TournamentPick.filter(F.command == "card"))
async def tournament_picked(
    callback: CallbackQuery, callback_data: TournamentPick, db: Database
) -> None:
    tournament = await resolve_pick(callback, callback_data, db, need="staff")
    if tournament is None or callback.message is None:
        return
    text, markup = await card(db, tournament.id, callback.from_user.id)
    await callback.message.answer(text, reply_markup=markup)


async def _chief_tournament(
    callback: CallbackQuery, db: Database, tournament_id: int
) -> TournamentRow | None:
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, tournament_id)
        role = (
            None
            if tournament is None
            else await staff.staff_role(conn, tournament_id, callback.from_user.id)
        )
    if tournament is None:
        await callback.answer(out_of_date())
        return None
    if role != "chief":
        await callback.answer(only_chief())
        return None
    return tournament


async def _refresh_card(callback: CallbackQuery, db: Database, tournament_id: int) -> None:
    if not isinstance(callback.message, Message):
        return
    text, markup = await card(db, tournament_id, callback.from_user.id)
    try:
        await callback.message.edit_text(text, reply_markup=markup)
    except TelegramAPIError as exc:  # e.g. "message is not modified" after a double tap
        log.debug("card not refreshed: %s", exc)


@router.callback_query(TournamentAction.filter(F.action.in_({"start", "finish_yes"})))
async def change_status(
    callback: CallbackQuery,
    callback_data: TournamentAction,
    db: Database,
    bot: Bot,
    publisher: Publisher,
    i18n: I18n,
) -> None:
    tournament = await _chief_tournament(callback, db, callback_data.tournament_id)
    if tournament is None:
        return
    wanted: Literal["running", "finished"] = (
        "running" if callback_data.action == "start" else "finished"
    )
    if tournament.status == wanted or tournament.status == "finished":
        await callback.answer(out_of_date())
        await _refresh_card(callback, db, tournament.id)
        return
    try:
        async with db.transaction() as conn:
            before = await tournaments.require_tournament(conn, tournament.id)
            after = await tournaments.set_status(conn, tournament.id, wanted)
            with i18n.use_locale(after.language):  # the group reads the tournament's
                if wanted == "running":
                    note = _("Tournament {title} has started. Good games!")
                else:
                    note = _("Tournament {title} is finished. The final standings: /rating")
            note = note.format(title=quoted_title(after))
            await publisher.enqueue(conn, tournament.id, note=note)
            await audit.audit(
                conn,
                action="tournament.status",
                entity="tournament",
                entity_id=tournament.id,
                tournament_id=tournament.id,
                actor_id=callback.from_user.id,
                before=before,
                after=after,
            )
    except InvalidTransition:
        await callback.answer(out_of_date())
        await _refresh_card(callback, db, tournament.id)
        return
    if wanted == "running":
        await callback.answer(_("The tournament is running."))
    else:
        await callback.answer(_("The tournament is finished."))
    await _refresh_card(callback, db, tournament.id)
    await publisher.publish(bot, tournament.id, now=True)


@router.callback_query(TournamentAction.filter(F.action == "finish"))
async def finish_asked(
    callback: CallbackQuery, callback_data: TournamentAction, db: Database
) -> None:
    tournament = await _chief_tournament(callback, db, callback_data.tournament_id)
    if tournament is None:
        return
    if tournament.status == "finished":
        await callback.answer(out_of_date())
        await _refresh_card(callback, db, tournament.id)
        return
    await callback.answer()
    if not isinstance(callback.message, Message):
        return
    await callback.message.edit_text(
        _(
            "Finish {title}? After that no games, players or protests can be entered, "
            "and this can't be undone."
        ).format(title=quoted_title(tournament)),
        reply_markup=InlineKeyboardMarkup(
            inline_keyboard=[
                [
                    _button(_("Yes, finish"), "finish_yes", tournament.id),
                    _button(_("Back"), "back", tournament.id),
                ]
            ]
        ),
    )


@router.callback_query(TournamentAction.filter(F.action == "back"))
async def finish_cancelled(
    callback: CallbackQuery, callback_data: TournamentAction, db: Database
) -> None:
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, callback_data.tournament_id)
    if tournament is None:
        await callback.answer(out_of_date())
        return
    await callback.answer()
    await _refresh_card(callback, db, tournament.id)


# -- /timezone: the clock the tournament's times are shown in -------------------------------


class TimezonePick(CallbackData, prefix="tz"):
    """A chief judge of several tournaments picks the one whose zone changes."""

    tournament_id: int
    zone: str


def unknown_timezone(name: str) -> str:
    return _(
        "«{name}» is not a time zone I know. Use an IANA name such as Europe/Moscow, "
        "Europe/Berlin or Asia/Yekaterinburg, e.g. <code>/timezone Europe/Berlin</code>."
    ).format(name=html.escape(name[:64]))


def current_timezone_text(tournament: TournamentRow) -> str:
    return _(
        "Times of {title} are shown in {zone}. To change it: "
        "<code>/timezone Area/City</code>, e.g. <code>/timezone Europe/Berlin</code>."
    ).format(title=quoted_title(tournament), zone=zone_label(tournament.timezone, utcnow()))


async def set_tournament_timezone(
    db: Database, tournament: TournamentRow, zone: str, actor_id: int
) -> TournamentRow:
    async with db.transaction() as conn:
        after = await tournaments.set_timezone(conn, tournament.id, zone)
        if after.timezone != tournament.timezone:
            await audit.audit(
                conn,
                action="tournament.timezone",
                entity="tournament",
                entity_id=tournament.id,
                tournament_id=tournament.id,
                actor_id=actor_id,
                before={"timezone": tournament.timezone},
                after={"timezone": after.timezone},
            )
    return after


def timezone_set_text(tournament: TournamentRow) -> str:
    return _("Times of {title} are shown in {zone} from now on.").format(
        title=quoted_title(tournament), zone=zone_label(tournament.timezone, utcnow())
    )


@router.message(Command("timezone"))
async def timezone_command(message: Message, command: CommandObject, db: Database) -> None:
    """The chief judge sets the tournament's time zone, in its group or in private."""
    user = message.from_user
    if user is None:
        return
    name = (command.args or "").strip()
    zone = valid_timezone(name) if name else None
    if name and zone is None:
        await message.reply(unknown_timezone(name))
        return
    if message.chat.type in GROUP_TYPES or zone is None:
        tournament = await resolve_tournament(message, db, "timezone", need="chief")
        if tournament is None:
            return
    else:
        async with db.read() as conn:
            rows = await tournaments.tournaments_for_staff(conn, user.id)
        rows = [row for row in rows if row.role == "chief"]
        if not rows:
            await message.answer(_("You are not the chief judge of any unfinished tournament."))
            return
        if len(rows) > 1:
            await message.answer(
                _("Which tournament?"),
                reply_markup=InlineKeyboardMarkup(
                    inline_keyboard=[
                        [
                            InlineKeyboardButton(
                                text=row.tournament.title[:60],
                                callback_data=TimezonePick(
                                    tournament_id=row.tournament.id, zone=zone
                                ).pack(),
                            )
                        ]
                        for row in rows[:30]
                    ]
                ),
            )
            return
        tournament = rows[0].tournament
    if zone is None:
        await message.reply(current_timezone_text(tournament))
        return
    tournament = await set_tournament_timezone(db, tournament, zone, user.id)
    await message.reply(timezone_set_text(tournament))


@router.callback_query(TournamentPick.filter(F.command == "timezone"))
async def timezone_shown(
    callback: CallbackQuery, callback_data: TournamentPick, db: Database
) -> None:
    tournament = await resolve_pick(callback, callback_data, db, need="chief")
    if tournament is None or not isinstance(callback.message, Message):
        return
    await callback.message.answer(current_timezone_text(tournament))


@router.callback_query(TimezonePick.filter())
async def timezone_picked(
    callback: CallbackQuery, callback_data: TimezonePick, db: Database
) -> None:
    zone = valid_timezone(callback_data.zone)
    tournament = await resolve_pick(
        callback,
        TournamentPick(command="timezone", tournament_id=callback_data.tournament_id),
        db,
        need="chief",
    )
    if tournament is None or zone is None or not isinstance(callback.message, Message):
        return
    tournament = await set_tournament_timezone(db, tournament, zone, callback.from_user.id)
    await callback.message.edit_text(timezone_set_text(tournament), reply_markup=None)
