"""Players: /join, the chief judge's Confirm / Reject, the players' invite link, /roster.

A nickname belongs to one account: a nickname linked to someone else is refused, and
an unlinked roster nickname is only linked to whoever claims it after the chief judge
confirms it. The players' link is reusable until revoked (one link for the whole
group, posted once); it only opens an application, which the chief judge confirms.
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass, field
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
    User,
)
from aiogram.utils.deep_linking import create_start_link
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.db import audit, invites, players, staff, tournaments, users
from bot.db.connection import Conn, Database
from bot.db.errors import InvalidNickname, NicknameTaken, PlayerHasGames, UserAlreadyPlayer
from bot.db.players import MAX_NICKNAME, PlayerRow  # one limit for /join, /roster, seating
from bot.db.tournaments import TournamentRow
from bot.i18n import DEFAULT_LOCALE, locale_of_code
from handlers.staff import PLAYER_PAYLOAD, TOKEN_PATTERN, invite_refusal, revoke_markup
from handlers.tournaments import (
    GROUP_TYPES,
    TournamentAction,
    TournamentPick,
    in_group,
    in_private,
    is_conversation_text,
    names_of,
    no_tournament_here,
    only_chief,
    out_of_date,
    quoted_title,
    replies_to_bot,
    resolve_pick,
    resolve_tournament,
)

log = logging.getLogger(__name__)
router = Router(name="players")

MAX_MESSAGE = 4096


class JoinFlow(StatesGroup):
    """Private chat, after the players' invite link: waiting for the nickname."""

    nickname = State()


class RosterFlow(StatesGroup):
    lines = State()


class PlayerDecision(CallbackData, prefix="tp"):
    """Confirm ("ok") or reject ("no") an application; ``many``: on the list of them."""

    action: str
    player_id: int
    many: bool = False


class ClaimDecision(CallbackData, prefix="tc"):
    """Link (``ok``) an unlinked roster player to the account that claimed him, or not."""

    action: str
    player_id: int
    user_id: int


class BadNickname(ValueError):
    pass


def check_nickname(raw: str) -> str:
    """The nickname as stored (trimmed, 1–32 characters), or BadNickname with the reason."""
    try:
        return players.normalize_nickname(raw)
    except InvalidNickname:
        shown = " ".join(raw.split())
        if len(shown) > MAX_NICKNAME:
            raise BadNickname(
                _("A nickname is 1–{max} characters; «{nick}…» has {length}.").format(
                    max=MAX_NICKNAME, nick=html.escape(shown[:MAX_NICKNAME]), length=len(shown)
                )
            ) from None
        if shown:
            raise BadNickname(
                _("This nickname can't be used: 1–{max} visible characters.").format(
                    max=MAX_NICKNAME
                )
            ) from None
        raise BadNickname(_("A nickname can't be empty.")) from None


def nick(text: str) -> str:
    return "<b>" + html.escape(text) + "</b>"


def plain(text: str) -> str:
    """HTML text as a callback answer shows it (no markup there)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


# -- applying -----------------------------------------------------------------------------


@dataclass
class JoinResult:
    text: str
    # A new application, or the roster player the user claims: the chief judge decides.
    player: PlayerRow | None = None
    claim: PlayerRow | None = None
    tournament: TournamentRow | None = None
    # The user may try another nickname (the conversation goes on).
    retry: bool = False


async def apply(
    db: Database, user: User, tournament_id: int, raw: str, *, invite_token: str | None = None
) -> JoinResult:
    try:
        shown = check_nickname(raw)
    except BadNickname as exc:
        return JoinResult(str(exc) + " " + _("Send another nickname."), retry=True)
    async with db.transaction() as conn:
        tournament = await tournaments.get_tournament(conn, tournament_id)
        if tournament is None or tournament.status == "finished":
            return JoinResult(_("Registration is closed: the tournament is finished."))
        title = quoted_title(tournament)
        if invite_token is not None:
            invite = await invites.get_invite(conn, invite_token)
            if invite is None or not invite.usable or invite.tournament_id != tournament_id:
                return JoinResult(invite_refusal("revoked"))
        mine = await players.player_for_user(conn, tournament_id, user.id)
        if mine is not None:
            return JoinResult(already_text(mine, tournament))
        found = await players.find_player_by_nickname(conn, tournament_id, shown)
        if found is not None and found.user_id is not None:
            return JoinResult(
                _(
                    "The nickname {nick} is taken by another player of {title}. Choose another one."
                ).format(nick=nick(found.nickname), title=title),
                retry=True,
            )
        if found is not None:
            return JoinResult(
                _(
                    "{nick} is on the roster of {title}. I've asked the chief judge to confirm "
                    "that it is you."
                ).format(nick=nick(found.nickname), title=title),
                claim=found,
                tournament=tournament,
            )
        try:
            player = await players.add_player(conn, tournament_id, shown, user_id=user.id)
        except (NicknameTaken, UserAlreadyPlayer):
            return JoinResult(_("Someone was quicker. Send /join again."), retry=True)
        await audit.audit(
            conn,
            action="player.add",
            entity="player",
            entity_id=player.id,
            tournament_id=tournament_id,
            actor_id=user.id,
            after=player,
        )
        if invite_token is not None:
            await audit.audit(
                conn,
                action="invite.use",
                entity="invite",
                entity_id=invite_token,
                tournament_id=tournament_id,
                actor_id=user.id,
                after={"user_id": user.id, "player_id": player.id},
            )
    return JoinResult(
        _("Your application as {nick} to {title} is sent. The chief judge will confirm it.").format(
            nick=nick(player.nickname), title=title
        ),
        player=player,
        tournament=tournament,
    )


def already_text(mine: PlayerRow, tournament: TournamentRow) -> str:
    if mine.status == "confirmed":
        return _("You are registered in {title} as {nick} already.").format(
            title=quoted_title(tournament), nick=nick(mine.nickname)
        )
    return _("Your application as {nick} to {title} is waiting for the chief judge.").format(
        title=quoted_title(tournament), nick=nick(mine.nickname)
    )


def decision_markup(result: JoinResult, user_id: int) -> InlineKeyboardMarkup:
    ok: CallbackData
    no: CallbackData
    if result.claim is not None:
        ok = ClaimDecision(action="ok", player_id=result.claim.id, user_id=user_id)
        no = ClaimDecision(action="no", player_id=result.claim.id, user_id=user_id)
        labels = (_("✅ Link"), _("❌ Reject"))
    else:
        assert result.player is not None
        ok = PlayerDecision(action="ok", player_id=result.player.id)
        no = PlayerDecision(action="no", player_id=result.player.id)
        labels = (_("✅ Confirm"), _("❌ Reject"))
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text=labels[0], callback_data=ok.pack()),
                InlineKeyboardButton(text=labels[1], callback_data=no.pack()),
            ]
        ]
    )


async def request_text(
    db: Database, tournament: TournamentRow, nickname: str, user_id: int, *, claim: bool
) -> str:
    """What the chief judge is asked (rebuilt from the database when he decides)."""
    async with db.read() as conn:
        name = (await names_of(conn, [user_id]))[user_id]
    title = quoted_title(tournament)
    if claim:
        return _(
            "{name} says the roster player {nick} of {title} is them. Link the account?"
        ).format(name=name, nick=nick(nickname), title=title)
    return _("New player for {title}: {nick}, {name}.").format(
        title=title, nick=nick(nickname), name=name
    )


async def tell_chiefs(
    bot: Bot, db: Database, tournament_id: int, text: str, markup: InlineKeyboardMarkup
) -> bool:
    """Send the request to every chief judge privately; False if none could get it."""
    async with db.read() as conn:
        chiefs = await staff.list_staff(conn, tournament_id, role="chief")
    delivered = False
    for chief in chiefs:
        try:
            await bot.send_message(chief.user_id, text, reply_markup=markup)
            delivered = True
        except TelegramAPIError as exc:
            log.info("could not reach chief %s: %s", chief.user_id, exc)
    return delivered


async def answer_join(
    message: Message, db: Database, bot: Bot, user: User, result: JoinResult
) -> None:
    if result.player is None and result.claim is None:
        await message.reply(result.text)
        return
    assert result.tournament is not None
    markup = decision_markup(result, user.id)
    asked = result.claim or result.player
    assert asked is not None
    request = await request_text(
        db, result.tournament, asked.nickname, user.id, claim=result.claim is not None
    )
    if await tell_chiefs(bot, db, result.tournament.id, request, markup):
        await message.reply(result.text)
    elif message.chat.type in GROUP_TYPES:
        # The chief judge never started the bot: he decides here, in the group.
        await message.reply(
            result.text + "\n\n" + request + "\n" + _("Chief judge: decide here."),
            reply_markup=markup,
        )
    else:
        await message.reply(
            result.text + "\n" + _("The chief judge sees it in /tournament under Applications.")
        )


def join_usage() -> str:
    return _("Send /join and your nickname, e.g. /join Alex (1–{max} characters).").format(
        max=MAX_NICKNAME
    )


@router.message(Command("join"), in_group)
async def join_in_group(message: Message, command: CommandObject, db: Database, bot: Bot) -> None:
    user = message.from_user
    if user is None:
        return
    async with db.read() as conn:
        tournament = await tournaments.running_tournament_for_chat(conn, message.chat.id)
    if tournament is None:
        await message.reply(no_tournament_here())
        return
    if not (command.args or "").strip():
        await message.reply(join_usage())
        return
    result = await apply(db, user, tournament.id, command.args or "")
    await answer_join(message, db, bot, user, result)


@router.message(Command("join"), in_private)
async def join_in_private(
    message: Message, command: CommandObject, state: FSMContext, db: Database, bot: Bot
) -> None:
    await private_nickname(message, command.args or "", state, db, bot)


@router.message(JoinFlow.nickname, in_private, is_conversation_text)
async def join_nickname_typed(message: Message, state: FSMContext, db: Database, bot: Bot) -> None:
    await private_nickname(message, message.text or "", state, db, bot)


async def private_nickname(
    message: Message, raw: str, state: FSMContext, db: Database, bot: Bot
) -> None:
    user = message.from_user
    if user is None:
        return
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
    result = await apply(
        db, user, tournament_id, raw, invite_token=invite if isinstance(invite, str) else None
    )
    if not result.retry:
        await state.clear()
    await answer_join(message, db, bot, user, result)


@router.message(
    CommandStart(deep_link=True, magic=F.args.regexp("^" + PLAYER_PAYLOAD + TOKEN_PATTERN + "$")),
    in_private,
)
async def player_invite_opened(
    message: Message, command: CommandObject, state: FSMContext, db: Database
) -> None:
    user = message.from_user
    if user is None:
        return
    token = (command.args or "")[len(PLAYER_PAYLOAD) :]
    async with db.read() as conn:
        invite = await invites.get_invite(conn, token)
        tournament = (
            None if invite is None else await tournaments.get_tournament(conn, invite.tournament_id)
        )
        mine = (
            None
            if tournament is None
            else await players.player_for_user(conn, tournament.id, user.id)
        )
    if invite is None or invite.kind != "player" or tournament is None:
        await message.answer(invite_refusal("unknown"))
        return
    if not invite.usable:
        await message.answer(invite_refusal("revoked"))
        return
    if tournament.status == "finished":
        await message.answer(_("Registration is closed: the tournament is finished."))
        return
    if mine is not None:
        await message.answer(already_text(mine, tournament))
        return
    await state.set_state(JoinFlow.nickname)
    await state.set_data({"tournament_id": tournament.id, "invite": token})
    await message.answer(
        _("You are joining {title}. Send your nickname (1–{max} characters).").format(
            title=quoted_title(tournament), max=MAX_NICKNAME
        )
    )


# -- the chief judge decides ----------------------------------------------------------------


async def _chief_of_player(
    callback: CallbackQuery, db: Database, player_id: int
) -> tuple[PlayerRow, TournamentRow] | None:
    async with db.read() as conn:
        player = await players.get_player(conn, player_id)
        tournament = (
            None if player is None else await tournaments.get_tournament(conn, player.tournament_id)
        )
        role = (
            None
            if tournament is None
            else await staff.staff_role(conn, tournament.id, callback.from_user.id)
        )
    if player is None or tournament is None:
        await callback.answer(out_of_date())
        return None
    if role != "chief":
        await callback.answer(only_chief())
        return None
    if tournament.status == "finished":
        await callback.answer(out_of_date())
        return None
    return player, tournament


def decided_text(player: PlayerRow, applicant: str | None = None) -> str:
    """The decision, naming who applied (``names_of``' HTML) when an account did."""
    if applicant is None:
        if player.status == "confirmed":
            return _("✅ {nick} is confirmed.").format(nick=nick(player.nickname))
        return _("❌ {nick} is rejected.").format(nick=nick(player.nickname))
    if player.status == "confirmed":
        return _("✅ {name} confirmed as {nick}.").format(
            name=applicant, nick=nick(player.nickname)
        )
    return _("❌ {name}: the application as {nick} is rejected.").format(
        name=applicant, nick=nick(player.nickname)
    )


async def applicant_of(db: Database, player: PlayerRow) -> str | None:
    """Who applied as ``player``: his name and @username, or None for a roster line."""
    if player.user_id is None:
        return None
    async with db.read() as conn:
        return (await names_of(conn, [player.user_id]))[player.user_id]


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
    nickname: str,
    user_id: int | None,
    line: str,
    *,
    claim: bool = False,
) -> None:
    """The request, with the decision under it and no buttons."""
    text = line
    if user_id is not None:
        request = await request_text(db, tournament, nickname, user_id, claim=claim)
        text = request + "\n\n" + line
    await _edit(callback, text, None)


async def _tell(bot: Bot, user_id: int | None, text: str) -> None:
    if user_id is None:
        return
    try:
        await bot.send_message(user_id, text)
    except TelegramAPIError:
        log.info("could not tell player %s about the decision", user_id)


async def _locale_of_user(db: Database, user_id: int | None) -> str:
    """The language a player is told the decision in: his own, not the chief's."""
    if user_id is None:
        return DEFAULT_LOCALE
    async with db.read() as conn:
        row = await users.get_user(conn, user_id)
    return locale_of_code(row.language_code if row else None)


@router.callback_query(PlayerDecision.filter())
async def application_decided(
    callback: CallbackQuery, callback_data: PlayerDecision, db: Database, bot: Bot, i18n: I18n
) -> None:
    found = await _chief_of_player(callback, db, callback_data.player_id)
    if found is None:
        return
    player, tournament = found
    wanted: Literal["confirmed", "rejected"] = (
        "confirmed" if callback_data.action == "ok" else "rejected"
    )
    refusal = None
    decided: PlayerRow | None = None
    async with db.transaction() as conn:
        before = await players.require_player(conn, player.id)
        if before.status == "pending":
            try:
                if wanted == "confirmed":
                    decided = await players.confirm_player(
                        conn, player.id, decided_by=callback.from_user.id
                    )
                else:
                    decided = await players.reject_player(
                        conn, player.id, decided_by=callback.from_user.id
                    )
            except (PlayerHasGames, NicknameTaken, UserAlreadyPlayer):
                refusal = _("This can't be changed any more.")
            else:
                await audit.audit(
                    conn,
                    action="player.confirm" if wanted == "confirmed" else "player.reject",
                    entity="player",
                    entity_id=player.id,
                    tournament_id=tournament.id,
                    actor_id=callback.from_user.id,
                    before=before,
                    after=decided,
                )
    if decided is None:
        line = decided_text(before, await applicant_of(db, before))
        await callback.answer(
            refusal or plain(_("Decided already: {status}").format(status=line))
        )
        if callback_data.many:
            await _refresh_applications(callback, db, tournament)
        else:
            await _mark_decided(callback, db, tournament, before.nickname, before.user_id, line)
        return
    line = decided_text(decided, await applicant_of(db, decided))
    await callback.answer(plain(line))
    if callback_data.many:
        # The list drops the decided application; the line keeps who it was.
        await _refresh_applications(callback, db, tournament, line)
    else:
        await _mark_decided(callback, db, tournament, decided.nickname, decided.user_id, line)
    with i18n.use_locale(await _locale_of_user(db, decided.user_id)):
        if decided.status == "confirmed":
            note = _("You are in: {nick} is confirmed for {title}.")
        else:
            note = _("Your application as {nick} to {title} was rejected by the chief judge.")
        note = note.format(nick=nick(decided.nickname), title=quoted_title(tournament))
    await _tell(bot, decided.user_id, note)


@router.callback_query(ClaimDecision.filter())
async def claim_decided(
    callback: CallbackQuery, callback_data: ClaimDecision, db: Database, bot: Bot, i18n: I18n
) -> None:
    found = await _chief_of_player(callback, db, callback_data.player_id)
    if found is None:
        return
    player, tournament = found
    claimant = callback_data.user_id
    title = quoted_title(tournament)
    if callback_data.action != "ok":
        await callback.answer(_("Not linked."))
        await _mark_decided(
            callback,
            db,
            tournament,
            player.nickname,
            claimant,
            _("❌ Not linked to {nick}.").format(nick=nick(player.nickname)),
            claim=True,
        )
        with i18n.use_locale(await _locale_of_user(db, claimant)):
            told = _("The chief judge did not confirm that you are {nick} in {title}.").format(
                nick=nick(player.nickname), title=title
            )
        await _tell(bot, claimant, told)
        return
    answer: str
    linked: PlayerRow | None = None
    async with db.transaction() as conn:
        before = await players.require_player(conn, player.id)
        if before.status == "rejected":
            answer = _("This roster player was removed.")
        elif before.user_id == claimant:
            answer = _("Linked already.")
        elif before.user_id is not None:
            answer = _("This nickname is linked to another account already.")
        else:
            try:
                linked = await players.link_player(conn, player.id, claimant)
            except UserAlreadyPlayer as exc:
                other = await players.require_player(conn, exc.player_id)
                answer = _("That account plays in this tournament as {nick} already.").format(
                    nick=html.escape(other.nickname)
                )
            else:
                await audit.audit(
                    conn,
                    action="player.link",
                    entity="player",
                    entity_id=player.id,
                    tournament_id=tournament.id,
                    actor_id=callback.from_user.id,
                    before=before,
                    after=linked,
                )
                answer = _("Linked.")
    await callback.answer(plain(answer))
    if linked is None:
        await _mark_decided(callback, db, tournament, player.nickname, claimant, answer, claim=True)
        return
    await _mark_decided(
        callback,
        db,
        tournament,
        linked.nickname,
        claimant,
        _("✅ Linked to {nick}.").format(nick=nick(linked.nickname)),
        claim=True,
    )
    with i18n.use_locale(await _locale_of_user(db, claimant)):
        told = _("You are in: {nick} of {title} is now your account.").format(
            nick=nick(linked.nickname), title=title
        )
    await _tell(bot, claimant, told)


# -- the list of applications (from the tournament card) -----------------------------------


async def applications(
    db: Database, tournament: TournamentRow
) -> tuple[str, InlineKeyboardMarkup | None]:
    async with db.read() as conn:
        pending = await players.list_players(conn, tournament.id, status="pending")
        names = await names_of(conn, [p.user_id for p in pending if p.user_id is not None])
    if not pending:
        return _("No applications to {title} are waiting.").format(
            title=quoted_title(tournament)
        ), None
    shown = pending[:40]  # 80 buttons; Telegram allows 100 on a message
    lines = [_("Applications to {title}:").format(title=quoted_title(tournament))]
    for n, p in enumerate(shown, 1):
        who = names.get(p.user_id, "") if p.user_id is not None else ""
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


@router.callback_query(TournamentAction.filter(F.action == "apps"))
async def applications_opened(
    callback: CallbackQuery, callback_data: TournamentAction, db: Database, bot: Bot
) -> None:
    async with db.read() as conn:
        tournament = await tournaments.get_tournament(conn, callback_data.tournament_id)
        role = await staff.staff_role(conn, callback_data.tournament_id, callback.from_user.id)
    if tournament is None or tournament.status == "finished":
        await callback.answer(out_of_date())
        return
    if role != "chief":
        await callback.answer(only_chief())
        return
    await callback.answer()
    text, markup = await applications(db, tournament)
    try:
        await bot.send_message(callback.from_user.id, text, reply_markup=markup)
    except TelegramAPIError:
        if isinstance(callback.message, Message):
            await callback.message.answer(text, reply_markup=markup)


# -- the players' invite link ---------------------------------------------------------------


@router.message(Command("invite_players"))
async def invite_players(message: Message, db: Database, bot: Bot) -> None:
    user = message.from_user
    tournament = await resolve_tournament(message, db, "invite_players", need="chief")
    if tournament is None or user is None:
        return
    await send_player_invite(message, db, bot, tournament, user.id)


@router.callback_query(TournamentPick.filter(F.command == "invite_players"))
async def invite_players_picked(
    callback: CallbackQuery, callback_data: TournamentPick, db: Database, bot: Bot
) -> None:
    tournament = await resolve_pick(callback, callback_data, db, need="chief")
    if tournament is None or not isinstance(callback.message, Message):
        return
    await send_player_invite(callback.message, db, bot, tournament, callback.from_user.id)


async def send_player_invite(
    message: Message, db: Database, bot: Bot, tournament: TournamentRow, chief_id: int
) -> None:
    async with db.transaction() as conn:
        open_links = [
            i
            for i in await invites.list_invites(conn, tournament.id, usable_only=True)
            if i.kind == "player"
        ]
        if open_links:  # one link per tournament: the one already posted stays valid
            invite = open_links[-1]
        else:
            invite = await invites.create_invite(conn, tournament.id, "player", created_by=chief_id)
            await audit.audit(
                conn,
                action="invite.create",
                entity="invite",
                entity_id=invite.token,
                tournament_id=tournament.id,
                actor_id=chief_id,
                after=invite,
            )
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


@dataclass
class RosterReport:
    created: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)


async def import_roster(
    conn: Conn, tournament: TournamentRow, lines: list[str], actor_id: int
) -> RosterReport:
    """Create a confirmed, unlinked player for every good new line (the caller's
    transaction: all good lines or nothing); duplicates and bad lines are skipped."""
    report = RosterReport()
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            shown = check_nickname(line)
        except BadNickname as exc:
            report.bad.append((number, str(exc)))
            continue
        key = players.nickname_key(shown)
        if key in seen or await players.find_player_by_nickname(conn, tournament.id, shown):
            report.duplicates.append(shown)
            continue
        seen.add(key)
        player = await players.add_player(
            conn, tournament.id, shown, status="confirmed", decided_by=actor_id
        )
        await audit.audit(
            conn,
            action="player.add",
            entity="player",
            entity_id=player.id,
            tournament_id=tournament.id,
            actor_id=actor_id,
            after=player,
        )
        report.created.append(player.nickname)
    await audit.audit(
        conn,
        action="roster.import",
        entity="tournament",
        entity_id=tournament.id,
        tournament_id=tournament.id,
        actor_id=actor_id,
        after={"created": report.created, "duplicates": report.duplicates, "bad": report.bad},
    )
    return report


def report_text(tournament: TournamentRow, report: RosterReport) -> str:
    lines = [
        _("Roster of {title}: {created} created, {duplicates} already there, {bad} bad.").format(
            title=quoted_title(tournament),
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
            _("line {number}: {reason}").format(number=n, reason=reason) for n, reason in report.bad
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
    user = message.from_user
    if user is None:
        return
    async with db.transaction() as conn:
        tournament = await tournaments.get_tournament(conn, tournament_id)
        role = await staff.staff_role(conn, tournament_id, user.id)
        if tournament is None or tournament.status == "finished":
            text = _("Registration is closed: the tournament is finished.")
        elif role != "chief":
            text = only_chief()
        else:
            text = report_text(tournament, await import_roster(conn, tournament, lines, user.id))
    for chunk in split_message(text):
        await message.answer(chunk)


def roster_prompt() -> str:
    return _(
        "Reply with the players' nicknames, one a line (1–{max} characters each). /cancel to stop."
    ).format(max=MAX_NICKNAME)


async def start_roster(
    message: Message, state: FSMContext, db: Database, tournament: TournamentRow, text: str
) -> None:
    lines = text.split("\n")[1:]
    if any(line.strip() for line in lines):
        await run_roster(message, db, tournament.id, lines)
        return
    await state.set_state(RosterFlow.lines)
    await state.set_data({"tournament_id": tournament.id})
    if message.chat.type in GROUP_TYPES:
        await message.reply(roster_prompt(), reply_markup=ForceReply(selective=True))
    else:
        await message.answer(roster_prompt())


@router.message(Command("roster"))
async def roster_command(message: Message, state: FSMContext, db: Database) -> None:
    tournament = await resolve_tournament(message, db, "roster", need="chief")
    if tournament is None:
        return
    await start_roster(message, state, db, tournament, message.text or "")


@router.callback_query(TournamentPick.filter(F.command == "roster"))
async def roster_picked(
    callback: CallbackQuery, callback_data: TournamentPick, state: FSMContext, db: Database
) -> None:
    tournament = await resolve_pick(callback, callback_data, db, need="chief")
    if tournament is None or not isinstance(callback.message, Message):
        return
    await state.set_state(RosterFlow.lines)
    await state.set_data({"tournament_id": tournament.id})
    await callback.message.answer(roster_prompt())


async def _roster_lines(message: Message, state: FSMContext, db: Database) -> None:
    tournament_id = (await state.get_data()).get("tournament_id")
    await state.clear()
    if not isinstance(tournament_id, int):
        await message.answer(_("Something went wrong. Send /roster again."))
        return
    await run_roster(message, db, tournament_id, (message.text or "").split("\n"))


@router.message(RosterFlow.lines, in_private, is_conversation_text)
async def roster_lines_private(message: Message, state: FSMContext, db: Database) -> None:
    await _roster_lines(message, state, db)


@router.message(RosterFlow.lines, in_group, is_conversation_text, replies_to_bot)
async def roster_lines_group(message: Message, state: FSMContext, db: Database) -> None:
    await _roster_lines(message, state, db)
