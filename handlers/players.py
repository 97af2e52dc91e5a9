"""Players: /join, the chief judge's Confirm / Reject, the players' invite link, /roster,
/withdraw.

A nickname belongs to one account (``bot.services.players``). The players' link is
reusable until revoked (one link for the whole group, posted once); it only opens an
application, which the chief judge confirms.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from functools import partial
from typing import Literal

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.filters.callback_data import CallbackData
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import (
    CallbackQuery,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReactionTypeEmoji,
)
from aiogram.utils.deep_linking import create_start_link
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.publishing.notices import run_follow_up
from bot.services import Refusal
from bot.services import invites as invites_service
from bot.services import players as service
from bot.services.players import Application, RosterReport, TryAgain, Withdrawn, check_nickname
from bot.services.records import (  # one limit for /join, /roster, seating
    MAX_NICKNAME,
    Database,
    PlayerRow,
    TournamentRow,
)
from bot.texts.i18n import locale_for
from bot.texts.names import nick, plain, quoted_title
from bot.texts.phrases import say
from handlers.callbacks import RowId
from handlers.chats import in_group, in_private, is_conversation_text, is_group, replies_to_bot
from handlers.filters import ChiefJudge, GroupTournament, TournamentPick, answer_refusal
from handlers.staff import PLAYER_PAYLOAD, TOKEN_PATTERN, revoke_markup
from handlers.tournaments import TournamentAction

log = logging.getLogger(__name__)
router = Router(name="players")

MAX_MESSAGE = 4096


class JoinFlow(StatesGroup):
    """Private chat, after the players' invite link: waiting for the nickname."""

    nickname = State()


class RosterFlow(StatesGroup):
    lines = State()


class WithdrawFlow(StatesGroup):
    """A chief judge of several tournaments picked one: waiting for the nickname."""

    nickname = State()


class PlayerDecision(CallbackData, prefix="tp"):
    """Confirm ("ok") or reject ("no") an application; ``many``: on the list of them."""

    action: Literal["ok", "no"]
    player_id: RowId
    many: bool = False


class ClaimDecision(CallbackData, prefix="tc"):
    """Link (``ok``) an unlinked roster player to the account that claimed him, or not."""

    action: Literal["ok", "no"]
    player_id: RowId
    user_id: RowId


# -- applying -----------------------------------------------------------------------------


def decision_markup(application: Application, user_id: int) -> InlineKeyboardMarkup:
    ok: CallbackData
    no: CallbackData
    player_id = application.player.id
    if application.claim:
        ok = ClaimDecision(action="ok", player_id=player_id, user_id=user_id)
        no = ClaimDecision(action="no", player_id=player_id, user_id=user_id)
        labels = (_("✅ Link"), _("❌ Reject"))
    else:
        ok = PlayerDecision(action="ok", player_id=player_id)
        no = PlayerDecision(action="no", player_id=player_id)
        labels = (_("✅ Confirm"), _("❌ Reject"))
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text=labels[0], callback_data=ok.pack()),
                InlineKeyboardButton(text=labels[1], callback_data=no.pack()),
            ]
        ]
    )


def applied_text(application: Application) -> str:
    name, title = nick(application.player.nickname), quoted_title(application.tournament)
    if application.claim:
        return _(
            "{nick} is on the roster of {title}. I've asked the chief judge to confirm "
            "that it is you."
        ).format(nick=name, title=title)
    return _(
        "Your application as {nick} to {title} is sent. The chief judge will confirm it."
    ).format(nick=name, title=title)


async def join(
    message: Message,
    db: Database,
    bot: Bot,
    i18n: I18n,
    tournament_id: int,
    raw: str,
    invite: str | None,
) -> bool:
    """Apply as ``raw`` and answer; True: the user may send another nickname."""
    assert message.from_user is not None
    shown = check_nickname(raw)
    if isinstance(shown, Refusal):
        await message.reply(say(shown) + " " + _("Send another nickname."))
        return True
    applied = await service.apply(
        db, message.from_user.id, tournament_id, shown, invite_token=invite
    )
    if isinstance(applied, Refusal):
        await message.reply(say(applied))
        return isinstance(applied, TryAgain)
    markup = decision_markup(applied, message.from_user.id)
    text = applied_text(applied)
    # The buttons under each chief judge's request in his language, like its text.
    buttons = partial(decision_markup, applied, message.from_user.id)
    if await run_follow_up(bot, applied.follow_up, None, buttons):  # the chiefs have it
        if not is_group(message) or not await answered_privately(message, bot, i18n, applied):
            await message.reply(text)
    elif is_group(message):
        # The chief judge never started the bot: he decides here, in the group.
        await message.reply(
            text + "\n\n" + say(applied.request) + "\n" + _("Chief judge: decide here."),
            reply_markup=markup,
        )
    else:
        await message.reply(
            text + "\n" + _("The chief judge sees it in /tournament under Applications.")
        )
    return False


async def answered_privately(
    message: Message, bot: Bot, i18n: I18n, applied: Application
) -> bool:
    """A /join in the group answered in the applicant's private chat, in his language,
    with a 👍 on his message: twelve joins then cost the group no messages of its 20 a
    minute. False: he never started the bot (the group gets the answer)."""
    assert message.from_user is not None
    with i18n.use_locale(locale_for(message.from_user)):
        text = applied_text(applied)
    try:
        await bot.send_message(message.from_user.id, text)
    except TelegramAPIError:
        return False
    with suppress(TelegramAPIError):  # a reaction is a courtesy
        await message.react([ReactionTypeEmoji(emoji="👍")])
    return True


def join_usage() -> str:
    return _("Send /join and your nickname, e.g. /join Alex (1–{max} characters).").format(
        max=MAX_NICKNAME
    )


@router.message(Command("join"), in_group, GroupTournament())
async def join_in_group(
    message: Message,
    command: CommandObject,
    tournament: TournamentRow,
    db: Database,
    bot: Bot,
    i18n: I18n,
) -> None:
    if not (command.args or "").strip():
        await message.reply(join_usage())
        return
    await join(message, db, bot, i18n, tournament.id, command.args or "", None)


@router.message(Command("join"), in_private)
async def join_in_private(
    message: Message, command: CommandObject, state: FSMContext, db: Database, bot: Bot, i18n: I18n
) -> None:
    await private_nickname(message, command.args or "", state, db, bot, i18n)


@router.message(JoinFlow.nickname, in_private, is_conversation_text)
async def join_nickname_typed(
    message: Message, state: FSMContext, db: Database, bot: Bot, i18n: I18n
) -> None:
    await private_nickname(message, message.text or "", state, db, bot, i18n)


async def private_nickname(
    message: Message, raw: str, state: FSMContext, db: Database, bot: Bot, i18n: I18n
) -> None:
    data = await state.get_data() if await state.get_state() == JoinFlow.nickname.state else {}
    tournament_id = data.get("tournament_id")
    if not isinstance(tournament_id, int):
        await message.answer(
            _(
                "To join in private, open the tournament's player invite link first; "
                "or send /join NICKNAME in the tournament's group."
            )
        )
        return
    if not raw.strip():
        await message.answer(join_usage())
        return
    invite = data.get("invite")
    token = invite if isinstance(invite, str) else None
    if not await join(message, db, bot, i18n, tournament_id, raw, token):
        await state.clear()


@router.message(
    CommandStart(deep_link=True, magic=F.args.regexp("^" + PLAYER_PAYLOAD + TOKEN_PATTERN + "$")),
    in_private,
)
async def player_invite_opened(
    message: Message, command: CommandObject, state: FSMContext, db: Database
) -> None:
    assert message.from_user is not None
    token = (command.args or "")[len(PLAYER_PAYLOAD) :]
    tournament = await service.joining_by_invite(db, token, message.from_user.id)
    if isinstance(tournament, Refusal):
        await message.answer(say(tournament))
        return
    await state.set_state(JoinFlow.nickname)
    await state.set_data({"tournament_id": tournament.id, "invite": token})
    await message.answer(
        _("You are joining {title}. Send your nickname (1–{max} characters).").format(
            title=quoted_title(tournament), max=MAX_NICKNAME
        )
    )


# -- the chief judge decides ----------------------------------------------------------------

# The chief judge of the player's tournament (a finished one is refused by the use case).
PlayersChief = ChiefJudge(via="player", finished=True)


async def _edit(callback: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None) -> None:
    if not isinstance(callback.message, Message):
        return
    try:
        await callback.message.edit_text(text[:MAX_MESSAGE], reply_markup=markup)
    except TelegramAPIError as exc:
        log.debug("decision message not updated: %s", exc)


async def _mark_decided(
    callback: CallbackQuery,
    db: Database,
    tournament: TournamentRow,
    player: PlayerRow,
    user_id: int | None,
    line: str,
    *,
    claim: bool = False,
) -> None:
    """The request, with the decision under it and no buttons."""
    text = line
    if user_id is not None:
        request = await service.request_of(db, tournament, player.nickname, user_id, claim=claim)
        text = say(request) + "\n\n" + line
    await _edit(callback, text, None)


@router.callback_query(PlayerDecision.filter(), PlayersChief)
async def application_decided(
    callback: CallbackQuery,
    callback_data: PlayerDecision,
    player: PlayerRow,
    tournament: TournamentRow,
    db: Database,
    bot: Bot,
) -> None:
    confirm, chief = callback_data.action == "ok", callback.from_user.id
    decided = await service.decide_application(
        db, player, tournament, confirm=confirm, actor_id=chief
    )
    if isinstance(decided, Refusal):
        await answer_refusal(callback, decided)
        return
    await callback.answer(plain(say(decided.answer)))
    line = say(decided.line)
    if callback_data.many:
        # The list drops the decided application; the line keeps who it was.
        await _refresh_applications(callback, db, tournament, line if decided.changed else "")
    else:
        await _mark_decided(callback, db, tournament, decided.player, decided.player.user_id, line)
    await run_follow_up(bot, decided.follow_up, None)


@router.callback_query(ClaimDecision.filter(), PlayersChief)
async def claim_decided(
    callback: CallbackQuery,
    callback_data: ClaimDecision,
    player: PlayerRow,
    tournament: TournamentRow,
    db: Database,
    bot: Bot,
) -> None:
    claimant = callback_data.user_id
    decided = await service.decide_claim(
        db,
        player,
        tournament,
        claimant=claimant,
        link=callback_data.action == "ok",
        actor_id=callback.from_user.id,
    )
    if isinstance(decided, Refusal):
        await answer_refusal(callback, decided)
        return
    await callback.answer(plain(say(decided.answer)))
    await _mark_decided(
        callback, db, tournament, decided.player, claimant, say(decided.line), claim=True
    )
    await run_follow_up(bot, decided.follow_up, None)


# -- the list of applications (from the tournament card) -----------------------------------


async def applications(
    db: Database, tournament: TournamentRow
) -> tuple[str, InlineKeyboardMarkup | None]:
    pending, names = await service.applications(db, tournament.id)
    title = quoted_title(tournament)
    if not pending:
        return _("No applications to {title} are waiting.").format(title=title), None
    shown = pending[:40]  # 80 buttons; Telegram allows 100 on a message
    lines = [_("Applications to {title}:").format(title=title)]
    for n, p in enumerate(shown, 1):
        who = say(names[p.user_id]) if p.user_id in names else ""
        lines.append(f"{n}. {nick(p.nickname)}" + (f", {who}" if who else ""))
    if len(pending) > len(shown):
        lines.append(_("…and {count} more.").format(count=len(pending) - len(shown)))
    rows = [
        [
            InlineKeyboardButton(
                text="✅ " + p.nickname,
                callback_data=PlayerDecision(action="ok", player_id=p.id, many=True).pack(),
            ),
            InlineKeyboardButton(
                text="❌ " + p.nickname,
                callback_data=PlayerDecision(action="no", player_id=p.id, many=True).pack(),
            ),
        ]
        for p in shown
    ]
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


async def _refresh_applications(
    callback: CallbackQuery, db: Database, tournament: TournamentRow, decided: str = ""
) -> None:
    text, markup = await applications(db, tournament)
    await _edit(callback, (decided + "\n\n" if decided else "") + text, markup)


@router.callback_query(TournamentAction.filter(F.action == "apps"), ChiefJudge())
async def applications_opened(
    callback: CallbackQuery, tournament: TournamentRow, db: Database, bot: Bot
) -> None:
    await callback.answer()
    text, markup = await applications(db, tournament)
    try:
        await bot.send_message(callback.from_user.id, text, reply_markup=markup)
    except TelegramAPIError:
        if isinstance(callback.message, Message):
            await callback.message.answer(text, reply_markup=markup)


# -- the players' invite link ---------------------------------------------------------------


@router.message(Command("invite_players"), ChiefJudge("invite_players"))
async def invite_players(
    message: Message, tournament: TournamentRow, db: Database, bot: Bot
) -> None:
    assert message.from_user is not None
    await send_player_invite(message, db, bot, tournament, message.from_user.id)


@router.callback_query(TournamentPick.filter(F.command == "invite_players"), ChiefJudge())
async def invite_players_picked(
    callback: CallbackQuery, tournament: TournamentRow, db: Database, bot: Bot
) -> None:
    await callback.answer()
    if isinstance(callback.message, Message):
        await send_player_invite(callback.message, db, bot, tournament, callback.from_user.id)


async def send_player_invite(
    message: Message, db: Database, bot: Bot, tournament: TournamentRow, chief_id: int
) -> None:
    invite = await invites_service.players_invite(db, tournament, chief_id)
    link = await create_start_link(bot, PLAYER_PAYLOAD + invite.token)
    await message.answer(
        _(
            "Players' invite link for {title}:\n{link}\n\n"
            "It works for everyone until it is revoked; every application still waits for "
            "the chief judge's confirmation. To stop it: the button below or /revoke {token}"
        ).format(title=quoted_title(tournament), link=link, token=invite.token),
        reply_markup=revoke_markup(invite.token),
    )


# -- /roster --------------------------------------------------------------------------------


def report_text(report: RosterReport) -> str:
    lines = [
        _("Roster of {title}: {created} created, {duplicates} already there, {bad} bad.").format(
            title=quoted_title(report.tournament),
            created=len(report.created),
            duplicates=len(report.duplicates),
            bad=len(report.bad),
        )
    ]
    if report.created:
        lines.append(_("Created: {names}").format(names=", ".join(map(nick, report.created))))
    if report.duplicates:
        lines.append(
            _("Already registered, skipped: {names}").format(
                names=", ".join(map(nick, report.duplicates))
            )
        )
    if report.bad:
        lines.append(_("Bad lines, skipped:"))
        lines.extend(
            _("line {number}: {reason}").format(number=n, reason=say(why))
            for n, why in report.bad
        )
    return "\n".join(lines)


def split_message(text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Split at line ends into messages Telegram accepts."""
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        pieces = [line[i : i + limit] for i in range(0, len(line), limit)] or [""]
        for piece in pieces:
            candidate = piece if not current else current + "\n" + piece
            if len(candidate) > limit:
                chunks.append(current)
                current = piece
            else:
                current = candidate
    if current:
        chunks.append(current)
    return chunks


async def run_roster(message: Message, db: Database, tournament_id: int, lines: list[str]) -> None:
    assert message.from_user is not None
    report = await service.import_roster(db, tournament_id, lines, message.from_user.id)
    text = say(report) if isinstance(report, Refusal) else report_text(report)
    for chunk in split_message(text):
        await message.answer(chunk)


def roster_prompt() -> str:
    return _(
        "Reply with the players' nicknames, one a line (1–{max} characters each). /cancel to stop."
    ).format(max=MAX_NICKNAME)


@router.message(Command("roster"), ChiefJudge("roster"))
async def roster_command(
    message: Message, tournament: TournamentRow, state: FSMContext, db: Database
) -> None:
    """Nicknames under the command are imported at once; else they are asked for."""
    lines = (message.text or "").split("\n")[1:]
    if any(line.strip() for line in lines):
        await run_roster(message, db, tournament.id, lines)
        return
    await state.set_state(RosterFlow.lines)
    await state.set_data({"tournament_id": tournament.id})
    if is_group(message):
        await message.reply(roster_prompt(), reply_markup=ForceReply(selective=True))
    else:
        await message.answer(roster_prompt())


@router.callback_query(TournamentPick.filter(F.command == "roster"), ChiefJudge())
async def roster_picked(
    callback: CallbackQuery, tournament: TournamentRow, state: FSMContext
) -> None:
    await ask(callback, state, RosterFlow.lines, tournament.id, roster_prompt())


async def ask(
    callback: CallbackQuery, state: FSMContext, wanted: State, tournament_id: int, text: str
) -> None:
    """After a tournament is picked: the conversation waits for ``wanted``, asked by ``text``."""
    await callback.answer()
    if not isinstance(callback.message, Message):
        return
    await state.set_state(wanted)
    await state.set_data({"tournament_id": tournament_id})
    await callback.message.answer(text)


@router.message(RosterFlow.lines, in_private, is_conversation_text)
@router.message(RosterFlow.lines, in_group, is_conversation_text, replies_to_bot)
async def roster_lines(message: Message, state: FSMContext, db: Database) -> None:
    tournament_id = (await state.get_data()).get("tournament_id")
    await state.clear()
    if not isinstance(tournament_id, int):
        await message.answer(_("Something went wrong. Send /roster again."))
        return
    await run_roster(message, db, tournament_id, (message.text or "").split("\n"))


# -- /withdraw ------------------------------------------------------------------------------


def withdrawn_text(done: Withdrawn) -> str:
    if done.games:
        said = _(
            "🚪 {nick} is withdrawn from {title}: the {games} game he played stays in the "
            "standings; he is left out of the games still to play (seating plans, the "
            "judge's card).",
            "🚪 {nick} is withdrawn from {title}: the {games} games he played stay in the "
            "standings; he is left out of the games still to play (seating plans, the "
            "judge's card).",
            done.games,
        )
    else:
        said = _(
            "🚪 {nick} is withdrawn from {title}: he played no games and is left out of the "
            "games still to play (seating plans, the judge's card)."
        )
    title = quoted_title(done.tournament)
    lines = [said.format(nick=nick(done.player.nickname), title=title, games=done.games)]
    if done.planned:
        lines.append(
            _("The accepted seating plan still seats him: re-plan the remaining rounds in "
              "/seating.")
        )
    return "\n".join(lines)


async def withdraw(message: Message, db: Database, tournament_id: int, raw: str) -> None:
    assert message.from_user is not None
    if not raw.strip():
        await message.answer(
            _("Send /withdraw and the player's nickname, e.g. /withdraw Alex. His games stay "
              "in the standings; he plays no more.")
        )
        return
    done = await service.withdraw(db, tournament_id, " ".join(raw.split()), message.from_user.id)
    await message.answer(say(done) if isinstance(done, Refusal) else withdrawn_text(done))


@router.message(Command("withdraw"), ChiefJudge("withdraw"))
async def withdraw_command(
    message: Message, command: CommandObject, tournament: TournamentRow, db: Database
) -> None:
    await withdraw(message, db, tournament.id, command.args or "")


@router.callback_query(TournamentPick.filter(F.command == "withdraw"), ChiefJudge())
async def withdraw_picked(
    callback: CallbackQuery, tournament: TournamentRow, state: FSMContext
) -> None:
    """A chief judge of several tournaments picked one: the nickname comes next."""
    text = _("Send the nickname of the player to withdraw from {title}. /cancel to stop.")
    await ask(callback, state, WithdrawFlow.nickname, tournament.id,
              text.format(title=quoted_title(tournament)))


@router.message(WithdrawFlow.nickname, in_private, is_conversation_text)
async def withdraw_nickname(message: Message, state: FSMContext, db: Database) -> None:
    tournament_id = (await state.get_data()).get("tournament_id")
    await state.clear()
    if not isinstance(tournament_id, int):
        await message.answer(_("Something went wrong. Send /withdraw again."))
        return
    await withdraw(message, db, tournament_id, message.text or "")
