"""Judges of a tournament: /judge and /unjudge as replies, one-time invite links,
/staff with Remove buttons, /revoke.

A judge invite is one-time and secret: its link goes to the chief judge privately
(a link posted in the group could be taken by whoever taps it first), and its token
never travels in a group message's buttons.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, User
from aiogram.utils.deep_linking import create_start_link
from aiogram.utils.i18n import gettext as _

from bot.publishing.notices import run_follow_up
from bot.services import Refusal
from bot.services import invites as invites_service
from bot.services import staff as service
from bot.services.invites import NO_SUCH_INVITE
from bot.services.records import CHIEF, JUDGE, Database, TournamentRow
from bot.texts.markup import html_text
from bot.texts.names import quoted_title
from bot.texts.phrases import say
from handlers.callbacks import Code, RowId
from handlers.chats import in_group, in_private, is_group
from handlers.filters import ChiefJudge, GroupTournament, Staff, TournamentPick

log = logging.getLogger(__name__)
router = Router(name="staff")

JUDGE_PAYLOAD = "tj_"
PLAYER_PAYLOAD = "tp_"
TOKEN_PATTERN = r"[A-Za-z0-9_-]{8,64}"


class StaffRemove(CallbackData, prefix="ts"):
    tournament_id: RowId
    user_id: RowId


class InviteRevoke(CallbackData, prefix="tr"):
    token: Code


def revoke_markup(token: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=_("Revoke the link"), callback_data=InviteRevoke(token=token).pack()
                )
            ]
        ]
    )


def token_from(text: str) -> str | None:
    """The invite token in ``/revoke`` args: the token itself or the whole link."""
    text = text.strip()
    if "start=" in text:
        text = text.split("start=", 1)[1]
    for prefix in (JUDGE_PAYLOAD, PLAYER_PAYLOAD):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return text if re.fullmatch(TOKEN_PATTERN, text) else None


# -- /staff ---------------------------------------------------------------------------------


async def staff_card(
    db: Database, tournament_id: int, viewer_id: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    found = await service.staff_list(db, tournament_id)
    names = {uid: say(name) for uid, name in found.names.items()}
    judges = found.of(JUDGE)
    lines = [
        _("Staff of {title}").format(title=quoted_title(found.tournament)),
        _("Chief judge: {names}").format(
            names=", ".join(names[m.user_id] for m in found.of(CHIEF))
        ),
    ]
    if judges:
        lines.append(_("Judges:"))
        lines.extend("• " + names[m.user_id] for m in judges)
    else:
        lines.append(
            _(
                "No judges yet: the chief judge replies /judge to a person's message, "
                "or sends /invite_judge for a link."
            )
        )
    if not found.is_chief(viewer_id) or found.tournament.status == "finished":
        return "\n".join(lines), None
    rows = [
        [
            InlineKeyboardButton(
                # Button labels are plain text, not HTML.
                text=_("Remove {name}").format(name=html.unescape(names[m.user_id]))[:60],
                callback_data=StaffRemove(tournament_id=tournament_id, user_id=m.user_id).pack(),
            )
        ]
        for m in judges[:50]
    ]
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows) if rows else None


@router.message(Command("staff"), in_group, GroupTournament())
@router.message(Command("staff"), in_private, Staff("staff"))
async def staff_command(message: Message, tournament: TournamentRow, db: Database) -> None:
    assert message.from_user is not None
    text, markup = await staff_card(db, tournament.id, message.from_user.id)
    if is_group(message):
        await message.reply(text, reply_markup=markup)
    else:
        await message.answer(text, reply_markup=markup)


@router.callback_query(TournamentPick.filter(F.command == "staff"), Staff())
async def staff_picked(callback: CallbackQuery, tournament: TournamentRow, db: Database) -> None:
    await callback.answer()
    if callback.message is None:
        return
    text, markup = await staff_card(db, tournament.id, callback.from_user.id)
    await callback.message.answer(text, reply_markup=markup)


@router.callback_query(StaffRemove.filter(), ChiefJudge())
async def remove_pressed(
    callback: CallbackQuery,
    callback_data: StaffRemove,
    tournament: TournamentRow,
    db: Database,
    bot: Bot,
) -> None:
    chief = callback.from_user.id
    removed = await service.remove_judge(db, tournament, callback_data.user_id, chief)
    await callback.answer(removed_text(tournament, removed), show_alert=False)
    if isinstance(callback.message, Message):
        text, markup = await staff_card(db, tournament.id, chief)
        try:
            await callback.message.edit_text(text, reply_markup=markup)
        except TelegramAPIError as exc:
            log.debug("staff card not refreshed: %s", exc)
    if not isinstance(removed, Refusal):
        await run_follow_up(bot, removed.follow_up, None)


def removed_text(tournament: TournamentRow, removed: service.Removed | Refusal) -> str:
    if isinstance(removed, Refusal):
        return say(removed)
    return _("{name} is no longer a judge of {title}.").format(
        name=say(removed.name), title=quoted_title(tournament)
    )


# -- adding and removing by a reply -------------------------------------------------------


def _replied_person(message: Message) -> User | None:
    replied = message.reply_to_message
    return replied.from_user if replied is not None else None


@router.message(Command("judge"), in_group, ChiefJudge("judge"))
async def judge_by_reply(message: Message, tournament: TournamentRow, db: Database) -> None:
    assert message.from_user is not None
    target = _replied_person(message)
    if target is None:
        await message.reply(
            _(
                "Reply /judge to a message of the person who will judge, "
                "or send /invite_judge for a one-time link."
            )
        )
        return
    if target.is_bot:
        await message.reply(_("A bot or an anonymous admin can't be a judge."))
        return
    name = await service.add_judge(db, tournament, target, message.from_user.id)
    if isinstance(name, Refusal):
        await message.reply(say(name))
        return
    await message.reply(
        _("{name} is now a judge of {title}.").format(
            name=say(name), title=quoted_title(tournament)
        )
    )


@router.message(Command("unjudge"), in_group, ChiefJudge("judge"))
async def unjudge_by_reply(
    message: Message, tournament: TournamentRow, db: Database, bot: Bot
) -> None:
    assert message.from_user is not None
    target = _replied_person(message)
    if target is None:
        await message.reply(
            _("Reply /unjudge to a message of the judge to remove, or use the buttons of /staff.")
        )
        return
    removed = await service.remove_judge(db, tournament, target.id, message.from_user.id)
    await message.reply(removed_text(tournament, removed))
    if not isinstance(removed, Refusal):
        await run_follow_up(bot, removed.follow_up, None)


# -- invite links ---------------------------------------------------------------------------


@router.message(Command("invite_judge"), ChiefJudge("invite_judge"))
async def invite_judge(message: Message, tournament: TournamentRow, db: Database, bot: Bot) -> None:
    assert message.from_user is not None
    await send_judge_invite(message, db, bot, tournament, message.from_user)


@router.callback_query(TournamentPick.filter(F.command == "invite_judge"), ChiefJudge())
async def invite_judge_picked(
    callback: CallbackQuery, tournament: TournamentRow, db: Database, bot: Bot
) -> None:
    await callback.answer()
    if isinstance(callback.message, Message):
        await send_judge_invite(callback.message, db, bot, tournament, callback.from_user)


async def send_judge_invite(
    message: Message, db: Database, bot: Bot, tournament: TournamentRow, chief: User
) -> None:
    invite = await invites_service.judge_invite(db, tournament, chief.id)
    link = await create_start_link(bot, JUDGE_PAYLOAD + invite.token)
    text = _(
        "A one-time judge invite for {title}:\n{link}\n\n"
        "Send it to the person who will judge; it works once. "
        "To cancel it: the button below or /revoke {token}"
    ).format(title=quoted_title(tournament), link=link, token=invite.token)
    try:
        # Always privately: whoever opens a one-time link first becomes the judge.
        await bot.send_message(chief.id, text, reply_markup=revoke_markup(invite.token))
    except TelegramAPIError:
        await invites_service.withdraw(db, invite, chief.id)
        await message.reply(
            _(
                "I can't write to you privately. Open a chat with me, press Start, "
                "and send /invite_judge again."
            )
        )
        return
    if is_group(message):
        await message.reply(_("I've sent you a one-time judge invite link privately."))


@router.message(
    CommandStart(deep_link=True, magic=F.args.regexp("^" + JUDGE_PAYLOAD + TOKEN_PATTERN + "$"))
)
async def judge_invite_opened(
    message: Message, command: CommandObject, db: Database, bot: Bot
) -> None:
    if message.from_user is None or message.chat.type != "private":
        return
    token = (command.args or "")[len(JUDGE_PAYLOAD) :]
    accepted = await invites_service.accept_judge_invite(db, token, message.from_user.id)
    if isinstance(accepted, Refusal):
        await message.answer(say(accepted))
        return
    await message.answer(
        _("You are now a judge of {title}. Send /game to enter a game, /help for more.").format(
            title=quoted_title(accepted.tournament)
        )
    )
    await run_follow_up(bot, accepted.follow_up, None)


# -- revoking -------------------------------------------------------------------------------


async def revoke_token(
    message: Message, command: CommandObject
) -> dict[str, Any] | bool:
    """``token``: the invite /revoke names (its token or its whole link)."""
    token = token_from(command.args or "")
    return False if token is None else {"token": token}


def revoked_text(refusal: Refusal | None) -> str:
    if refusal is not None:
        return say(refusal)
    return _("The invite link is revoked; it no longer works.")


# The chief judge of the invite's tournament only; a finished tournament's too.
InviteChief = ChiefJudge(via="invite", finished=True, missing=NO_SUCH_INVITE, reply=True)


@router.message(Command("revoke"), revoke_token, InviteChief)
async def revoke_command(message: Message, token: str, db: Database) -> None:
    assert message.from_user is not None
    refusal = await invites_service.revoke(db, token, message.from_user.id)
    await message.reply(revoked_text(refusal))


@router.message(Command("revoke"))
async def revoke_usage(message: Message) -> None:
    await message.reply(_("Send /revoke followed by the invite's token or link."))


@router.callback_query(InviteRevoke.filter(), InviteChief)
async def revoke_pressed(
    callback: CallbackQuery, callback_data: InviteRevoke, db: Database
) -> None:
    refusal = await invites_service.revoke(db, callback_data.token, callback.from_user.id)
    answer = revoked_text(refusal)
    await callback.answer(answer)
    if refusal is NO_SUCH_INVITE or not isinstance(callback.message, Message):
        return
    try:
        # The link is dead: the message keeps only what happened to it.
        await callback.message.edit_text(html_text(answer), reply_markup=None)
    except TelegramAPIError as exc:
        log.debug("invite message not updated: %s", exc)
