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
from dataclasses import dataclass

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, User
from aiogram.utils.deep_linking import create_start_link
from aiogram.utils.i18n import gettext as _

from bot.db import audit, invites, staff, tournaments
from bot.db.connection import Database
from bot.db.errors import InviteInvalid, LastChief
from bot.db.invites import InviteRow
from bot.db.tournaments import TournamentRow
from handlers.tournaments import (
    GROUP_TYPES,
    TournamentPick,
    in_group,
    in_private,
    names_of,
    no_tournament_here,
    only_chief,
    out_of_date,
    quoted_title,
    remember_user,
    resolve_pick,
    resolve_tournament,
    send_in_group,
)

log = logging.getLogger(__name__)
router = Router(name="staff")

JUDGE_PAYLOAD = "tj_"
PLAYER_PAYLOAD = "tp_"
TOKEN_PATTERN = r"[A-Za-z0-9_-]{8,64}"


class StaffRemove(CallbackData, prefix="ts"):
    tournament_id: int
    user_id: int


class InviteRevoke(CallbackData, prefix="tr"):
    token: str


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
    async with db.read() as conn:
        tournament = await tournaments.require_tournament(conn, tournament_id)
        members = await staff.list_staff(conn, tournament_id)
        names = await names_of(conn, [m.user_id for m in members])
    chiefs = [m for m in members if m.role == "chief"]
    judges = [m for m in members if m.role == "judge"]
    lines = [
        _("Staff of {title}").format(title=quoted_title(tournament)),
        _("Chief judge: {names}").format(names=", ".join(names[m.user_id] for m in chiefs)),
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
    viewer_is_chief = any(m.user_id == viewer_id for m in chiefs)
    if not viewer_is_chief or tournament.status == "finished":
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


@router.message(Command("staff"), in_group)
async def staff_in_group(message: Message, db: Database) -> None:
    user = message.from_user
    if user is None:
        return
    async with db.read() as conn:
        tournament = await tournaments.running_tournament_for_chat(conn, message.chat.id)
    if tournament is None:
        await message.reply(no_tournament_here())
        return
    text, markup = await staff_card(db, tournament.id, user.id)
    await message.reply(text, reply_markup=markup)


@router.message(Command("staff"), in_private)
async def staff_in_private(message: Message, db: Database) -> None:
    user = message.from_user
    tournament = await resolve_tournament(message, db, "staff", need="staff")
    if tournament is None or user is None:
        return
    text, markup = await staff_card(db, tournament.id, user.id)
    await message.answer(text, reply_markup=markup)


@router.callback_query(TournamentPick.filter(F.command == "staff"))
async def staff_picked(
    callback: CallbackQuery, callback_data: TournamentPick, db: Database
) -> None:
    tournament = await resolve_pick(callback, callback_data, db, need="staff")
    if tournament is None or callback.message is None:
        return
    text, markup = await staff_card(db, tournament.id, callback.from_user.id)
    await callback.message.answer(text, reply_markup=markup)


@router.callback_query(StaffRemove.filter())
async def remove_pressed(
    callback: CallbackQuery, callback_data: StaffRemove, db: Database, bot: Bot
) -> None:
    tid, target = callback_data.tournament_id, callback_data.user_id
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, tid)
        role = await staff.staff_role(conn, tid, callback.from_user.id)
    if tournament is None or tournament.status == "finished":
        await callback.answer(out_of_date())
        return
    if role != "chief":
        await callback.answer(only_chief())
        return
    outcome = await remove_judge(db, tournament, target, actor_id=callback.from_user.id)
    await callback.answer(outcome.text, show_alert=False)
    if isinstance(callback.message, Message):
        text, markup = await staff_card(db, tid, callback.from_user.id)
        try:
            await callback.message.edit_text(text, reply_markup=markup)
        except TelegramAPIError as exc:
            log.debug("staff card not refreshed: %s", exc)
    if outcome.removed:
        await tell_removed(bot, tournament, target)


# -- adding and removing --------------------------------------------------------------------


class Outcome:
    def __init__(self, text: str, *, removed: bool = False) -> None:
        self.text = text
        self.removed = removed


async def remove_judge(
    db: Database, tournament: TournamentRow, target: int, *, actor_id: int
) -> Outcome:
    async with db.transaction() as conn:
        before = await staff.get_staff(conn, tournament.id, target)
        name = (await names_of(conn, [target]))[target]
        if before is None:
            return Outcome(_("{name} is not on the staff.").format(name=name))
        try:
            await staff.remove_staff(conn, tournament.id, target)
        except LastChief:
            return Outcome(
                _("The tournament can't be left without a chief judge; {name} stays.").format(
                    name=name
                )
            )
        await audit.audit(
            conn,
            action="staff.remove",
            entity="staff",
            entity_id=target,
            tournament_id=tournament.id,
            actor_id=actor_id,
            before=before,
        )
    return Outcome(
        _("{name} is no longer a judge of {title}.").format(
            name=name, title=quoted_title(tournament)
        ),
        removed=True,
    )


async def tell_removed(bot: Bot, tournament: TournamentRow, user_id: int) -> None:
    try:
        await bot.send_message(
            user_id,
            _("You are no longer a judge of {title}.").format(title=quoted_title(tournament)),
        )
    except TelegramAPIError:
        log.info("could not tell %s about the removal", user_id)


async def _group_chief(message: Message, db: Database) -> TournamentRow | None:
    """The group's tournament if the sender is its chief judge (else say why not)."""
    return await resolve_tournament(message, db, "judge", need="chief")


def _replied_person(message: Message) -> User | None:
    replied = message.reply_to_message
    return replied.from_user if replied is not None else None


@router.message(Command("judge", "unjudge"), in_private)
async def judge_in_private(message: Message) -> None:
    await message.answer(
        send_in_group()
        + " "
        + _("Reply /judge to a message of the person there, or use /invite_judge for a link.")
    )


@router.message(Command("judge"), in_group)
async def judge_by_reply(message: Message, db: Database) -> None:
    user = message.from_user
    if user is None:
        return
    tournament = await _group_chief(message, db)
    if tournament is None:
        return
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
    async with db.transaction() as conn:
        await remember_user(conn, target)
        name = (await names_of(conn, [target.id]))[target.id]
        current = await staff.staff_role(conn, tournament.id, target.id)
        if current is None:
            row = await staff.add_staff(conn, tournament.id, target.id, "judge", added_by=user.id)
            await audit.audit(
                conn,
                action="staff.add",
                entity="staff",
                entity_id=target.id,
                tournament_id=tournament.id,
                actor_id=user.id,
                after=row,
            )
    if current == "chief":
        await message.reply(_("{name} is the chief judge already.").format(name=name))
    elif current == "judge":
        await message.reply(_("{name} is a judge already.").format(name=name))
    else:
        await message.reply(
            _("{name} is now a judge of {title}.").format(name=name, title=quoted_title(tournament))
        )


@router.message(Command("unjudge"), in_group)
async def unjudge_by_reply(message: Message, db: Database, bot: Bot) -> None:
    user = message.from_user
    if user is None:
        return
    tournament = await _group_chief(message, db)
    if tournament is None:
        return
    target = _replied_person(message)
    if target is None:
        await message.reply(
            _("Reply /unjudge to a message of the judge to remove, or use the buttons of /staff.")
        )
        return
    outcome = await remove_judge(db, tournament, target.id, actor_id=user.id)
    await message.reply(outcome.text)
    if outcome.removed:
        await tell_removed(bot, tournament, target.id)


# -- invite links ---------------------------------------------------------------------------


@router.message(Command("invite_judge"))
async def invite_judge(message: Message, db: Database, bot: Bot) -> None:
    tournament = await resolve_tournament(message, db, "invite_judge", need="chief")
    if tournament is None:
        return
    await send_judge_invite(message, db, bot, tournament)


@router.callback_query(TournamentPick.filter(F.command == "invite_judge"))
async def invite_judge_picked(
    callback: CallbackQuery, callback_data: TournamentPick, db: Database, bot: Bot
) -> None:
    tournament = await resolve_pick(callback, callback_data, db, need="chief")
    if tournament is None or not isinstance(callback.message, Message):
        return
    await send_judge_invite(callback.message, db, bot, tournament, chief=callback.from_user)


async def send_judge_invite(
    message: Message,
    db: Database,
    bot: Bot,
    tournament: TournamentRow,
    *,
    chief: User | None = None,
) -> None:
    chief = chief or message.from_user
    if chief is None:
        return
    async with db.transaction() as conn:
        invite = await invites.create_invite(conn, tournament.id, "judge", created_by=chief.id)
        await audit.audit(
            conn,
            action="invite.create",
            entity="invite",
            entity_id=invite.token,
            tournament_id=tournament.id,
            actor_id=chief.id,
            after=invite,
        )
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
        async with db.transaction() as conn:
            if await invites.revoke_invite(conn, invite.token):
                await audit.audit(
                    conn,
                    action="invite.revoke",
                    entity="invite",
                    entity_id=invite.token,
                    tournament_id=tournament.id,
                    actor_id=chief.id,  # undeliverable: nobody ever saw the link
                    before=invite,
                    after=await invites.get_invite(conn, invite.token),
                )
        await message.reply(
            _(
                "I can't write to you privately. Open a chat with me, press Start, "
                "and send /invite_judge again."
            )
        )
        return
    if message.chat.type in GROUP_TYPES:
        await message.reply(_("I've sent you a one-time judge invite link privately."))


@router.message(
    CommandStart(deep_link=True, magic=F.args.regexp("^" + JUDGE_PAYLOAD + TOKEN_PATTERN + "$"))
)
async def judge_invite_opened(
    message: Message, command: CommandObject, db: Database, bot: Bot
) -> None:
    user = message.from_user
    if user is None or message.chat.type != "private":
        return
    outcome = await accept_judge_invite(db, (command.args or "")[len(JUDGE_PAYLOAD) :], user.id)
    if isinstance(outcome, str):
        await message.answer(outcome)
        return
    title = quoted_title(outcome.tournament)
    await message.answer(
        _("You are now a judge of {title}. Send /game to enter a game, /help for more.").format(
            title=title
        )
    )
    if not outcome.fresh:  # a redelivered /start: the chief was told the first time
        return
    try:
        await bot.send_message(
            outcome.chief_id,
            _("{name} accepted your judge invite and is now a judge of {title}.").format(
                name=outcome.name, title=title
            ),
        )
    except TelegramAPIError:
        log.info("could not tell chief %s about the accepted invite", outcome.chief_id)


@dataclass(frozen=True)
class Accepted:
    tournament: TournamentRow
    chief_id: int  # who made the invite
    name: str  # the new judge, as the staff list shows him
    fresh: bool  # False: the same user's invite again, nothing changed


async def accept_judge_invite(db: Database, token: str, user_id: int) -> Accepted | str:
    """Spend a judge invite for ``user_id``: the result, or the refusal to show."""
    async with db.transaction() as conn:
        invite = await invites.get_invite(conn, token)
        if invite is None or invite.kind != "judge":
            return invite_refusal("unknown")
        tournament = await tournaments.require_tournament(conn, invite.tournament_id)
        current = await staff.staff_role(conn, tournament.id, user_id)
        if tournament.status == "finished":
            return _("{title} is finished; it needs no more judges.").format(
                title=quoted_title(tournament)
            )
        if current is not None and invite.used_by != user_id:
            # Already staff: the link stays unused, for someone else.
            return _("You are on the staff of {title} already.").format(
                title=quoted_title(tournament)
            )
        try:
            used = await invites.use_invite(conn, token, user_id)
        except InviteInvalid as exc:
            return invite_refusal(exc.reason)
        if current is None:
            await audit.audit(
                conn,
                action="invite.use",
                entity="invite",
                entity_id=token,
                tournament_id=tournament.id,
                actor_id=user_id,
                before=invite,
                after=used,
            )
            row = await staff.add_staff(
                conn, tournament.id, user_id, "judge", added_by=invite.created_by
            )
            await audit.audit(
                conn,
                action="staff.add",
                entity="staff",
                entity_id=user_id,
                tournament_id=tournament.id,
                actor_id=user_id,
                after=row,
            )
        name = (await names_of(conn, [user_id]))[user_id]
    return Accepted(tournament, invite.created_by, name, fresh=current is None)


def invite_refusal(reason: str) -> str:
    if reason == "used":
        return _("This invite link has been used already. Ask the chief judge for a new one.")
    if reason == "revoked":
        return _("This invite link was revoked. Ask the chief judge for a new one.")
    return _("This invite link is not valid. Ask the chief judge for a new one.")


# -- revoking -------------------------------------------------------------------------------


async def revoke(db: Database, token: str, user_id: int) -> tuple[str, bool]:
    """Revoke a judge or player invite for its tournament's chief judge.

    Returns the answer, and whether the invite is dead now (its message can say so).
    """
    async with db.transaction() as conn:
        invite = await invites.get_invite(conn, token)
        if invite is None:
            return _("There is no such invite."), False
        if await staff.staff_role(conn, invite.tournament_id, user_id) != "chief":
            return only_chief(), False
        if not await invites.revoke_invite(conn, token):
            return revoke_refusal(invite), True
        await audit.audit(
            conn,
            action="invite.revoke",
            entity="invite",
            entity_id=token,
            tournament_id=invite.tournament_id,
            actor_id=user_id,
            before=invite,
            after=await invites.get_invite(conn, token),
        )
    return _("The invite link is revoked; it no longer works."), True


def revoke_refusal(invite: InviteRow) -> str:
    if invite.revoked_at is not None:
        return _("This invite link was revoked already.")
    return _("This invite link has been used already; remove the judge with /staff instead.")


@router.message(Command("revoke"))
async def revoke_command(message: Message, command: CommandObject, db: Database) -> None:
    user = message.from_user
    if user is None:
        return
    token = token_from(command.args or "")
    if token is None:
        await message.reply(_("Send /revoke followed by the invite's token or link."))
        return
    answer, _dead = await revoke(db, token, user.id)
    await message.reply(answer)


@router.callback_query(InviteRevoke.filter())
async def revoke_pressed(
    callback: CallbackQuery, callback_data: InviteRevoke, db: Database
) -> None:
    answer, dead = await revoke(db, callback_data.token, callback.from_user.id)
    await callback.answer(answer)
    if not dead or not isinstance(callback.message, Message):
        return
    try:
        # The link is dead: the message keeps only what happened to it.
        await callback.message.edit_text(html.escape(answer), reply_markup=None)
    except TelegramAPIError as exc:
        log.debug("invite message not updated: %s", exc)
