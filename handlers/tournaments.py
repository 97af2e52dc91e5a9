"""Tournaments: /new_tournament in a group, the /tournament card, Start and Finish, and
/timezone."""

from __future__ import annotations

import logging
from typing import Any, Literal

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
)
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.config import Settings
from bot.publishing import Publisher
from bot.publishing.notices import run_follow_up
from bot.publishing.refusals import explained
from bot.services import Refusal
from bot.services import set_aside as set_aside_service
from bot.services import stages as stages_service
from bot.services import tournaments as service
from bot.services.records import (
    CHIEF,
    DEFAULT_LANGUAGE,
    JUDGE,
    LANGUAGES,
    Database,
    StageRow,
    TournamentRow,
    utcnow,
)
from bot.services.refusals import NOT_CHIEF_OF_ANY, OUT_OF_DATE
from bot.services.set_aside import SetAside
from bot.services.tournaments import Unsettled
from bot.texts.i18n import N_
from bot.texts.localtime import valid_timezone, zone_label
from bot.texts.markup import html_text
from bot.texts.names import quoted_title
from bot.texts.phrases import say
from handlers.callbacks import Code, RowId, Zone
from handlers.chats import in_group, in_private, is_conversation_text, replies_to_bot
from handlers.filters import (
    ChiefJudge,
    ChiefTournaments,
    GroupTournament,
    Staff,
    TournamentPick,
    answer_refusal,
    picker,
)
from handlers.stage_card import stage_line
from scoring import b_value

log = logging.getLogger(__name__)
router = Router(name="tournaments")

MAX_TITLE = 100
# 8.6.1: the distance is games per player; no real tournament comes near 100.
MAX_DISTANCE = 100


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
    ).format(word=html_text(word[:40]))


@router.message(Command("new_tournament"), in_group)
async def new_tournament(
    message: Message, command: CommandObject, state: FSMContext, db: Database, bot: Bot
) -> None:
    language, timezone, unknown = parse_new_tournament_args(command.args)
    busy = await service.chat_tournament(db, message.chat.id)
    problem = None if unknown or busy else await bot_rights(bot, message.chat.id)
    if unknown is not None or busy is not None or problem == "cannot_post":
        await state.clear()
        if unknown is not None:
            await message.reply(new_tournament_usage(unknown))
        elif busy is not None:
            await message.reply(say(service.chat_busy(busy)))
        else:
            await cannot_post_there(bot, message)
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


async def cannot_post_there(bot: Bot, message: Message) -> None:
    """Privately: the bot can't post in the group, so it runs no tournament there."""
    assert message.from_user is not None
    try:
        await bot.send_message(
            message.from_user.id,
            _(
                "I can't post in that group, so I can't run a tournament there. "
                "Allow me to send messages (better: make me an administrator) "
                "and send /new_tournament again."
            ),
        )
    except TelegramAPIError:
        log.info("cannot tell %s that I can't post in %s", message.from_user.id, message.chat.id)


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
    assert message.from_user is not None
    distance = parse_distance(message.text or "")
    if distance is None:
        await message.reply(
            _(
                "The distance must be a whole number of games from 1 to {max} (8.6.1); "
                "«{text}» is not. Send it again."
            ).format(max=MAX_DISTANCE, text=html_text((message.text or "")[:20])),
            reply_markup=ForceReply(selective=True, input_field_placeholder="10"),
        )
        return
    data = await state.get_data()
    await state.clear()
    title = str(data.get("title") or "")
    if not title:  # the data got lost: start over rather than invent a title
        await message.reply(_("Something went wrong. Send /new_tournament again."))
        return
    language = str(data.get("language") or DEFAULT_LANGUAGE)
    timezone = str(data.get("timezone") or settings.timezone)
    new = service.NewTournament(title, distance, message.chat.id, language, timezone)
    tournament = await service.create(db, new, message.from_user.id)
    if isinstance(tournament, Refusal):
        await message.reply(say(tournament))
        return
    await reply_created(message, i18n, tournament, data)


async def reply_created(
    message: Message, i18n: I18n, tournament: TournamentRow, data: dict[str, Any]
) -> None:
    asked = not data.get("language")
    rights = str(data.get("rights") or "")
    if asked:
        # Until the chief judge answers, in his own language (the question in both).
        text = created_text(tournament, rights, ask_language=True)
        await message.reply(text, reply_markup=language_markup(tournament.id, rights))
        return
    # The group reads the tournament's language from now on, this reply included.
    with i18n.use_locale(tournament.language):
        text = created_text(tournament, rights, ask_language=False)
    await message.reply(text)


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
        text += "\n\n" + "\n".join(in_every_language(LANGUAGE_QUESTION))
    else:
        text += "\n\n" + language_line(tournament)
    return text


LANGUAGE_QUESTION = N_(
    "Which language shall I write in here? Russian unless the chief judge chooses English."
)


def in_every_language(msgid: str) -> list[str]:
    """``msgid`` in the reader's language first, then in each other one: for a question
    a group must understand before it has a language."""
    i18n = I18n.get_current()
    assert i18n is not None  # inside a handler (the i18n middleware)
    first = i18n.current_locale
    others = [code for code in LANGUAGES if code != first]
    texts = [i18n.gettext(msgid, locale=first)]
    return texts + [i18n.gettext(msgid, locale=code) for code in others]


def language_line(tournament: TournamentRow) -> str:
    return _("Language of the group: {language}.").format(
        language=LANGUAGE_NAMES[tournament.language]
    )


def timezone_line(tournament: TournamentRow) -> str:
    return _(
        "Times are shown in {zone}; /timezone changes it: a city, an offset or an IANA "
        "name, e.g. <code>/timezone Berlin</code> or <code>/timezone UTC+3</code>."
    ).format(zone=zone_label(tournament.timezone, utcnow()))


class TournamentLanguage(CallbackData, prefix="tl"):
    """The chief judge answers which language the group reads."""

    tournament_id: RowId
    language: Code  # handled when one of LANGUAGES
    rights: Code = ""  # what the bot lacked in the group, to keep the warning on the edit


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


# A language no catalog has falls through to the stale-button answer (handlers.common).
@router.callback_query(TournamentLanguage.filter(F.language.in_(LANGUAGES)), ChiefJudge())
async def language_chosen(
    callback: CallbackQuery,
    callback_data: TournamentLanguage,
    tournament: TournamentRow,
    db: Database,
    i18n: I18n,
) -> None:
    language = callback_data.language
    tournament = await service.set_language(db, tournament, language, callback.from_user.id)
    with i18n.use_locale(tournament.language):
        await callback.answer(language_line(tournament))
        text = created_text(tournament, callback_data.rights, ask_language=False)
    if isinstance(callback.message, Message):
        try:
            await callback.message.edit_text(text, reply_markup=None)
        except TelegramAPIError as exc:  # gone, or the same language tapped twice
            log.debug("creation message not edited: %s", exc)


# -- the /tournament card -----------------------------------------------------------------


TournamentVerb = Literal[
    "start", "finish", "finish_yes", "finish_anyway", "back", "apps", "repost"
]


class TournamentAction(CallbackData, prefix="ta"):
    """Chief judge's buttons on the card: start, finish (then yes / back), applications,
    post again what the group was refused."""

    action: TournamentVerb
    tournament_id: RowId


def status_name(status: str) -> str:
    return {
        "registration": _("registration"),
        "running": _("running"),
        "finished": _("finished"),
    }.get(status, status)


async def card(
    db: Database, tournament_id: int, viewer_id: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    found = await service.overview(db, tournament_id)
    tournament, staff = found.tournament, found.staff
    judges = [say(staff.names[m.user_id]) for m in staff.of(JUDGE)]
    lines = [
        "🏆 <b>" + html_text(tournament.title) + "</b>",
        _("Status: {status}").format(status=status_name(tournament.status)),
        _(
            "Distance: {distance} game per player (8.6.1), B = {b}",
            "Distance: {distance} games per player (8.6.1), B = {b}",
            tournament.distance,
        ).format(distance=tournament.distance, b=b_value(tournament.distance)),
        *_stage_lines(await stages_service.stages_of(db, tournament)),
        _("Chief judge: {names}").format(
            names=", ".join(say(staff.names[m.user_id]) for m in staff.of(CHIEF))
        ),
        _("Judges: {names}").format(names=", ".join(judges) if judges else _("none yet")),
        _("Players: {confirmed} confirmed, {pending} waiting for confirmation").format(
            confirmed=found.confirmed, pending=found.pending
        ),
        _("Games saved: {count}").format(count=found.saved),
    ]
    refused = await set_aside_service.set_aside(db, tournament_id)
    lines += set_aside_lines(refused)
    chief = staff.is_chief(viewer_id)
    waiting = sum(item.count for item in refused)
    if not chief:
        return "\n".join(lines), None
    if tournament.status == "finished":  # what the group missed can still be posted
        markup = InlineKeyboardMarkup(inline_keyboard=[[_repost(tournament.id, waiting)]])
        return "\n".join(lines), markup if waiting else None
    return "\n".join(lines), card_buttons(tournament, found.pending, waiting)


def set_aside_lines(refused: list[SetAside]) -> list[str]:
    """What Telegram refused to post in the group, by cause, with what fixes it."""
    if not refused:
        return []
    lines = ["", _("⚠️ Not posted in the group (Telegram refused it):")]
    for item in refused:
        reason, fix = explained(item.cause)
        what = ", ".join(f"{_(what)} × {count}" for what, count in item.what)
        lines.append(f"• {what}: {reason} ({html_text(item.detail)}). {fix}")
    lines.append(_("Once it is fixed, tap «Post again»."))
    return lines


def _repost(tournament_id: int, waiting: int) -> InlineKeyboardButton:
    return _button(_("📤 Post again ({count})").format(count=waiting), "repost", tournament_id)


def _stage_lines(rows: list[StageRow]) -> list[str]:
    """A tournament of stages: each with its own games per player (D13, D14); the
    distance above is the first stage's."""
    return [_("Stages (/stages):"), *(stage_line(row) for row in rows)] if rows else []


def card_buttons(
    tournament: TournamentRow, pending: int, waiting: int = 0
) -> InlineKeyboardMarkup:
    """The chief judge's: Start (before it runs), Finish, the applications waiting,
    Post again (what the group was refused)."""
    buttons = []
    if tournament.status == "registration":
        buttons.append(_button(_("▶️ Start"), "start", tournament.id))
    buttons.append(_button(_("🏁 Finish"), "finish", tournament.id))
    rows = [buttons]
    if pending:
        rows.append(
            [_button(_("Applications ({count})").format(count=pending), "apps", tournament.id)]
        )
    if waiting:
        rows.append([_repost(tournament.id, waiting)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _button(text: str, action: TournamentVerb, tournament_id: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text=text,
        callback_data=TournamentAction(action=action, tournament_id=tournament_id).pack(),
    )


# The group's last tournament, finished, still has a card.
@router.message(Command("tournament"), in_group, GroupTournament(latest=True))
async def tournament_in_group(message: Message, tournament: TournamentRow, db: Database) -> None:
    assert message.from_user is not None
    text, markup = await card(db, tournament.id, message.from_user.id)
    await message.reply(text, reply_markup=markup)


@router.message(Command("tournament"), in_private, Staff("card"))
async def tournament_in_private(message: Message, tournament: TournamentRow, db: Database) -> None:
    assert message.from_user is not None
    text, markup = await card(db, tournament.id, message.from_user.id)
    await message.answer(text, reply_markup=markup)


@router.callback_query(TournamentPick.filter(F.command == "card"), Staff())
async def tournament_picked(
    callback: CallbackQuery, tournament: TournamentRow, db: Database
) -> None:
    await callback.answer()
    if callback.message is None:
        return
    text, markup = await card(db, tournament.id, callback.from_user.id)
    await callback.message.answer(text, reply_markup=markup)


async def _refresh_card(callback: CallbackQuery, db: Database, tournament_id: int) -> None:
    if not isinstance(callback.message, Message):
        return
    text, markup = await card(db, tournament_id, callback.from_user.id)
    try:
        await callback.message.edit_text(text, reply_markup=markup)
    except TelegramAPIError as exc:  # e.g. "message is not modified" after a double tap
        log.debug("card not refreshed: %s", exc)


@router.callback_query(
    TournamentAction.filter(F.action.in_({"start", "finish_yes", "finish_anyway"})),
    ChiefJudge(finished=True),
)
async def change_status(
    callback: CallbackQuery,
    callback_data: TournamentAction,
    tournament: TournamentRow,
    db: Database,
    bot: Bot,
    publisher: Publisher,
) -> None:
    wanted: Literal["running", "finished"] = (
        "running" if callback_data.action == "start" else "finished"
    )
    done = await service.set_status(
        db, publisher, tournament, wanted, callback.from_user.id,
        anyway=callback_data.action == "finish_anyway",
    )
    if isinstance(done, Unsettled):  # something came up since he was asked: ask again
        await callback.answer()
        await _ask_finish(callback, tournament, done)
        return
    if isinstance(done, Refusal):
        await answer_refusal(callback, done)
    elif wanted == "running":
        await callback.answer(_("The tournament is running."))
    else:
        await callback.answer(_("The tournament is finished."))
    await _refresh_card(callback, db, tournament.id)
    if not isinstance(done, Refusal):
        await run_follow_up(bot, done.follow_up, publisher)


@router.callback_query(TournamentAction.filter(F.action == "repost"), ChiefJudge(finished=True))
async def post_again(
    callback: CallbackQuery, tournament: TournamentRow, db: Database, bot: Bot,
    publisher: Publisher,
) -> None:
    """What Telegram refused goes to the group again; refused again, it is set aside
    again (and he is told again)."""
    taken, follow_up = await set_aside_service.post_again(db, tournament.id, callback.from_user.id)
    if not taken:
        await callback.answer(_("Nothing waits to be posted in the group."))
    else:
        await callback.answer(_(
            "Posting {count} item in the group again.",
            "Posting {count} items in the group again.", taken,
        ).format(count=taken))
        await run_follow_up(bot, follow_up, publisher)
    await _refresh_card(callback, db, tournament.id)


@router.callback_query(TournamentAction.filter(F.action == "finish"), ChiefJudge(finished=True))
async def finish_asked(callback: CallbackQuery, tournament: TournamentRow, db: Database) -> None:
    if tournament.status == "finished":
        await callback.answer(say(OUT_OF_DATE))
        await _refresh_card(callback, db, tournament.id)
        return
    await callback.answer()
    await _ask_finish(callback, tournament, await service.unsettled(db, tournament.id))


async def _ask_finish(callback: CallbackQuery, tournament: TournamentRow, left: Unsettled) -> None:
    """Finish? With what is still unsettled listed, if anything is (then: anyway?)."""
    if not isinstance(callback.message, Message):
        return
    if left:
        text = unsettled_text(tournament, left)
        yes = _button(_("Finish anyway"), "finish_anyway", tournament.id)
    else:
        text = _(
            "Finish {title}? After that no games, players or protests can be entered, "
            "and this can't be undone."
        ).format(title=quoted_title(tournament))
        yes = _button(_("Yes, finish"), "finish_yes", tournament.id)
    back = _button(_("Back"), "back", tournament.id)
    await callback.message.edit_text(
        text, reply_markup=InlineKeyboardMarkup(inline_keyboard=[[yes, back]])
    )


SHORT_SHOWN = 20  # players short of the distance named; the rest counted


def unsettled_text(tournament: TournamentRow, left: Unsettled) -> str:
    lines = [
        _("Finish {title}? Not everything is settled yet:").format(
            title=quoted_title(tournament)
        )
    ]
    if left.protests:
        found = ", ".join(f"#{pid} ({code})" for pid, code in left.protests)
        lines.append("• " + _("Open protests (8.8): {protests}. Decide them with /protests.")
                     .format(protests=found))
    if left.approvals:
        lines.append(
            "• " + _("Judge's points above 0.5 await your approval (8.4.3): {games}.")
            .format(games=", ".join(left.approvals))
        )
    if left.short:
        named = [f"{html_text(name)} — {count}" for name, count in left.short[:SHORT_SHOWN]]
        if len(left.short) > SHORT_SHOWN:
            named.append(f"… +{len(left.short) - SHORT_SHOWN}")
        lines.append(
            "• " + _("Players short of the distance (games per player: {distance}): {players}.")
            .format(distance=left.distance, players=", ".join(named))
        )
    lines.append(
        _("After finishing no games, players or protests can be entered, and this can't be "
          "undone. Finish anyway?")
    )
    return "\n".join(lines)


# The chief judge's only: anyone else's Back would turn the card into his own view.
@router.callback_query(TournamentAction.filter(F.action == "back"), ChiefJudge(finished=True))
async def finish_cancelled(
    callback: CallbackQuery, tournament: TournamentRow, db: Database
) -> None:
    await callback.answer()
    await _refresh_card(callback, db, tournament.id)


# -- /timezone: the clock the tournament's times are shown in -------------------------------


class TimezonePick(CallbackData, prefix="tz"):
    """A chief judge of several tournaments picks the one whose zone changes."""

    tournament_id: RowId
    zone: Zone


async def timezone_arg(
    message: Message, command: CommandObject
) -> dict[str, Any] | bool:
    """``zone``: the time zone /timezone names (None: it names none); False for a name
    that is no time zone."""
    name = (command.args or "").strip()
    zone = valid_timezone(name) if name else None
    return False if name and zone is None else {"zone": zone}


async def timezone_named(
    message: Message, command: CommandObject
) -> dict[str, Any] | bool:
    found = await timezone_arg(message, command)
    return found if isinstance(found, dict) and found["zone"] else False


def current_timezone_text(tournament: TournamentRow) -> str:
    return _(
        "Times of {title} are shown in {zone}. To change it: /timezone and a city, an "
        "offset or an IANA name, e.g. <code>/timezone Berlin</code> or "
        "<code>/timezone UTC+3</code>."
    ).format(title=quoted_title(tournament), zone=zone_label(tournament.timezone, utcnow()))


def timezone_set_text(tournament: TournamentRow) -> str:
    return _("Times of {title} are shown in {zone} from now on.").format(
        title=quoted_title(tournament), zone=zone_label(tournament.timezone, utcnow())
    )


@router.message(
    Command("timezone"),
    in_private,
    timezone_named,
    ChiefTournaments(NOT_CHIEF_OF_ANY, finished=False),
)
async def timezone_in_private(
    message: Message, zone: str, tournaments: list[TournamentRow], db: Database
) -> None:
    """A zone named in private: for the sender's only tournament, else the one he picks."""
    assert message.from_user is not None
    if len(tournaments) > 1:
        pick = picker(tournaments, lambda t: TimezonePick(tournament_id=t.id, zone=zone))
        await message.answer(_("Which tournament?"), reply_markup=pick)
        return
    tournament = await service.set_timezone(db, tournaments[0], zone, message.from_user.id)
    await message.reply(timezone_set_text(tournament))


@router.message(Command("timezone"), timezone_arg, ChiefJudge("timezone"))
async def timezone_command(
    message: Message, zone: str | None, tournament: TournamentRow, db: Database
) -> None:
    """The group's (or the only) tournament's time zone: shown, or set to ``zone``."""
    assert message.from_user is not None
    if zone is None:
        await message.reply(current_timezone_text(tournament))
        return
    tournament = await service.set_timezone(db, tournament, zone, message.from_user.id)
    await message.reply(timezone_set_text(tournament))


@router.message(Command("timezone"))
async def timezone_unknown(message: Message, command: CommandObject) -> None:
    """/timezone names something that is no time zone (the handlers above take the rest)."""
    await message.reply(
        _(
            "«{name}» is not a time zone I know. Name a city (Moscow, Berlin), an offset "
            "(UTC+3, MSK+2) or an IANA name (Asia/Yekaterinburg), e.g. "
            "<code>/timezone Berlin</code>."
        ).format(name=html_text((command.args or "").strip()[:64]))
    )


@router.callback_query(TournamentPick.filter(F.command == "timezone"), ChiefJudge())
async def timezone_shown(callback: CallbackQuery, tournament: TournamentRow) -> None:
    await callback.answer()
    if isinstance(callback.message, Message):
        await callback.message.answer(current_timezone_text(tournament))


@router.callback_query(TimezonePick.filter(), ChiefJudge())
async def timezone_picked(
    callback: CallbackQuery, callback_data: TimezonePick, tournament: TournamentRow, db: Database
) -> None:
    await callback.answer()
    zone = valid_timezone(callback_data.zone)
    if zone is None or not isinstance(callback.message, Message):
        return
    tournament = await service.set_timezone(db, tournament, zone, callback.from_user.id)
    await callback.message.edit_text(timezone_set_text(tournament), reply_markup=None)
