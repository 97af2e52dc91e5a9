"""/game and steps 1–10 of the card: round and table, seating, roles, day 1, night 1,
result, disqualifications, penalties and judge's extra points (the best move is in
``best_move.py``, the review and Save in ``review.py`` / ``save.py``)."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Awaitable, Callable
from decimal import Decimal, InvalidOperation

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, StateFilter
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.background import Background
from bot.db import audit, games, players, staff, tournaments, users
from bot.db.connection import Database
from bot.db.errors import InvalidNickname, NicknameTaken
from bot.publishing import Publisher
from bot.standings import StandingsService
from handlers.game_entry import best_move
from handlers.game_entry.callbacks import NewGame, RosterDecision, Step
from handlers.game_entry.card import WINNER_CAP, Issue, extras_caps, hundredths
from handlers.game_entry.draft import (
    NO_SEAT,
    RESULT_CODES,
    Draft,
    new_draft_id,
    new_token,
    penalty_allowed,
    problems,
)
from handlers.game_entry.flow import (
    STALE,
    STATE_NAMES,
    Ctx,
    action,
    apply,
    authorize,
    current_draft,
    go,
    is_stale,
    locale_for_code,
    note,
    persist,
    render,
    retire_card,
    show,
)
from handlers.game_entry.states import GameEntry
from scoring import N_, PENALTY_RULES, SEAT_NUMBERS, SEATS, Result

log = logging.getLogger(__name__)
router = Router(name="game_entry.steps")

MAX_NUMBER = 999


def make_ctx(
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    state: FSMContext,
    i18n: I18n,
    user_id: int,
    background: Background | None = None,
) -> Ctx:
    return Ctx(bot, db, standings, publisher, state, i18n, user_id, background)


# -- /game ----------------------------------------------------------------------------


async def start_game(ctx: Ctx, chat_id: int, *, reply: Message | None = None) -> None:
    """A new draft for the user, or his unfinished one sent again."""
    existing = await current_draft(ctx.state)
    if existing is not None and await ctx.state.get_state() in STATE_NAMES:
        old = existing.card_id
        text, markup = await render(ctx, existing)
        sent = await ctx.bot.send_message(chat_id, text, reply_markup=markup)
        existing.card_chat, existing.card_id = chat_id, sent.message_id
        await persist(ctx, existing)
        await retire_card(ctx.bot, chat_id, old, _("⤵️ This game continues below."))
        await ctx.bot.send_message(
            chat_id, _("You have an unfinished game: its card is above. /cancel discards it.")
        )
        return
    async with ctx.db.read() as conn:
        mine = await tournaments.tournaments_for_staff(conn, ctx.user_id)
    running = [m.tournament for m in mine if m.tournament.status == "running"]
    if not running:
        text = _("Only a judge or the chief judge of a running tournament can enter a game.")
        if reply is not None:
            await reply.answer(text)
        else:
            await ctx.bot.send_message(chat_id, text)
        return
    d = Draft(
        token=new_token(),
        draft_id=new_draft_id(),
        judge_id=ctx.user_id,
        locale=ctx.i18n.current_locale,
        card_chat=chat_id,
    )
    if len(running) == 1:
        d.tid = running[0].id
        d.step = "rt"
    else:
        d.choices = [t.id for t in running]
        d.step = "tn"
    text, markup = await render(ctx, d)
    sent = await ctx.bot.send_message(chat_id, text, reply_markup=markup)
    d.card_id = sent.message_id
    await persist(ctx, d)


@router.message(Command("game"), F.chat.type == "private")
async def cmd_game(
    message: Message,
    state: FSMContext,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    i18n: I18n,
) -> None:
    assert message.from_user is not None
    ctx = make_ctx(bot, db, standings, publisher, state, i18n, message.from_user.id)
    await start_game(ctx, message.chat.id, reply=message)


@router.message(Command("game"))
async def cmd_game_in_group(message: Message) -> None:
    await message.reply(_("Games are entered in a private chat with me: send /game there."))


@router.callback_query(NewGame.filter())
async def new_game_button(
    callback: CallbackQuery,
    state: FSMContext,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    i18n: I18n,
) -> None:
    await callback.answer()
    if callback.message is None:
        return
    ctx = make_ctx(bot, db, standings, publisher, state, i18n, callback.from_user.id)
    await start_game(ctx, callback.message.chat.id)


@router.message(Command("cancel"), StateFilter(GameEntry))
async def cancel(message: Message, state: FSMContext, bot: Bot, i18n: I18n) -> None:
    d = await current_draft(state)
    await state.clear()
    if d is not None:
        await retire_card(bot, d.card_chat, d.card_id, "✖ " + _("Cancelled. Nothing was saved."))
        await best_move.void_request(bot, i18n, d, N_("The judge cancelled this game's entry."))
    await message.answer(_("Cancelled. Nothing was saved."))


# -- every tap on the card ---------------------------------------------------------------


@router.callback_query(Step.filter())
async def on_step(
    callback: CallbackQuery,
    callback_data: Step,
    state: FSMContext,
    raw_state: str | None,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    i18n: I18n,
    background: Background | None = None,
) -> None:
    d = await current_draft(state)
    ctx = make_ctx(
        bot, db, standings, publisher, state, i18n, callback.from_user.id, background
    )
    if d is not None and d.tap == callback.id and raw_state in STATE_NAMES:
        # This tap again: it was applied and stored, but the bot stopped before the
        # card was shown. Show the card as stored; don't apply the tap twice.
        await callback.answer()
        await show(ctx, d)
        return
    if d is None or is_stale(d, callback_data, callback) or raw_state not in STATE_NAMES:
        await callback.answer(_(STALE))
        return
    refusal = await authorize(ctx, d)
    if refusal is not None:
        await callback.answer(refusal, show_alert=True)
        return
    refusal = await apply(ctx, d, callback_data)
    if refusal is not None:
        await callback.answer(refusal, show_alert=len(refusal) > 60)
        return
    d.tap = callback.id
    await callback.answer()
    await ctx.run_after()
    await show(ctx, d)


# -- typed input -------------------------------------------------------------------------

Typed = Callable[[Ctx, Draft, str], Awaitable[str | None]]
TYPED: dict[str, Typed] = {}


def typed(step: str) -> Callable[[Typed], Typed]:
    def register(func: Typed) -> Typed:
        TYPED[step] = func
        return func

    return register


@router.message(StateFilter(GameEntry), F.chat.type == "private", F.text, ~F.text.startswith("/"))
async def on_text(
    message: Message,
    state: FSMContext,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    i18n: I18n,
    background: Background | None = None,
) -> None:
    assert message.from_user is not None and message.text is not None
    d = await current_draft(state)
    if d is None:
        await state.clear()
        return
    handler = TYPED.get(d.step)
    if handler is None:
        await message.reply(_("Use the buttons on the card above (or /cancel)."))
        return
    ctx = make_ctx(
        bot, db, standings, publisher, state, i18n, message.from_user.id, background
    )
    refusal = await authorize(ctx, d)
    if refusal is None:
        refusal = await handler(ctx, d, message.text.strip())
    if refusal is not None:
        await message.reply(refusal)
        return
    await ctx.run_after()
    await show(ctx, d)


# -- the tournament ----------------------------------------------------------------------


@action("tn", "pick")
async def pick_tournament(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in d.choices:
        return _(STALE)
    async with ctx.db.read() as conn:
        t = await tournaments.get_tournament(conn, data.n)
        role = await staff.staff_role(conn, data.n, ctx.user_id)
    if t is None or t.status != "running" or role not in ("chief", "judge"):
        return _("You can't enter games in this tournament now.")
    if d.tid != data.n:
        d.tid = data.n
        d.round = d.table = None
        d.players = [None] * SEATS
        d.sheriff = d.don = None
        d.mafia = []
    await go(ctx, d, "rt")
    return None


# -- 1. round and table ------------------------------------------------------------------


async def set_round_table(ctx: Ctx, d: Draft, round_no: int, table: int) -> str | None:
    if not (1 <= round_no <= MAX_NUMBER and 1 <= table <= MAX_NUMBER):
        return _("Round and table are numbers from 1 to {max}.").format(max=MAX_NUMBER)
    async with ctx.db.read() as conn:
        stored = await games.list_games(conn, d.tid, round=round_no)
    taken = [g for g in stored if g.table_no == table and g.id != d.game_id]
    if taken:
        return _(
            "Round {round}, table {table} is already saved (game #{id}). Choose another table."
        ).format(round=round_no, table=table, id=taken[0].id)
    d.round, d.table = round_no, table
    await go(ctx, d, d.next_step("rt"))
    return None


@action("rt", "set")
async def tap_round_table(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await set_round_table(ctx, d, data.n, data.m)


ROUND_TABLE = re.compile(r"\s*(\d{1,4})\s*[\s,./:;x×*-]\s*(\d{1,4})\s*")


@typed("rt")
async def type_round_table(ctx: Ctx, d: Draft, text: str) -> str | None:
    match = ROUND_TABLE.fullmatch(text)
    if match is None:
        return _("Type the round and the table as two numbers, e.g. <code>2 3</code>.")
    return await set_round_table(ctx, d, int(match.group(1)), int(match.group(2)))


# -- 2. seating ----------------------------------------------------------------------------


def _next_empty(d: Draft, after: int) -> int:
    order = [*range(after + 1, SEATS + 1), *range(1, after + 1)]
    return next((n for n in order if d.players[n - 1] is None), after)


async def _may_sit(ctx: Ctx, d: Draft, player_id: int) -> tuple[str | None, str]:
    """(refusal, nickname): the player is in this tournament, confirmed (or added here)."""
    async with ctx.db.read() as conn:
        row = await players.get_player(conn, player_id)
    if row is None or row.tournament_id != d.tid or row.status == "rejected":
        return _("This player is not on the tournament's roster."), ""
    if row.status != "confirmed" and row.id not in d.added:
        return _("{player} is not confirmed by the chief judge yet.").format(
            player=html.escape(row.nickname)
        ), row.nickname
    seat = d.seat_of(player_id)
    if seat is not None:
        return _("{player} already sits at seat {seat}; a player sits only once.").format(
            player=html.escape(row.nickname), seat=seat
        ), row.nickname
    return None, row.nickname


async def place(ctx: Ctx, d: Draft, seat: int, player_id: int) -> str | None:
    if seat not in SEAT_NUMBERS:
        return _(STALE)
    refusal, _name = await _may_sit(ctx, d, player_id)
    if refusal is not None:
        return refusal
    d.players[seat - 1] = player_id
    d.query = ""
    d.page = 0
    d.sel = _next_empty(d, seat)
    return None


@action("st", "seat")
async def select_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    d.sel = data.n
    d.page = 0
    return None


@action("st", "pick")
async def pick_player(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await place(ctx, d, data.n, data.m)


@action("st", "page")
async def page(ctx: Ctx, d: Draft, data: Step) -> str | None:
    d.page = max(0, data.n)
    return None


@action("st", "qx")
async def clear_filter(ctx: Ctx, d: Draft, data: Step) -> str | None:
    d.query = ""
    d.page = 0
    return None


@action("st", "clear")
async def empty_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    d.players[data.n - 1] = None
    d.sel = data.n
    return None


@action("st", "add")
async def add_to_roster(ctx: Ctx, d: Draft, data: Step) -> str | None:
    """A player missing from the roster, added at the table: pending the chief judge's
    confirmation (the roster flow), confirmed at once when the chief adds him."""
    if not d.query:
        return _("Type the new player's nickname first.")
    async with ctx.db.transaction() as conn:
        role = await staff.staff_role(conn, d.tid, ctx.user_id)
        existing = await players.find_player_by_nickname(conn, d.tid, d.query)
        if existing is not None:
            row = existing
        else:
            chief = role == "chief"
            try:
                row = await players.add_player(
                    conn,
                    d.tid,
                    d.query,
                    status="confirmed" if chief else "pending",
                    decided_by=ctx.user_id if chief else None,
                )
            except InvalidNickname:
                return _("This nickname can't be used: 1–{max} visible characters.").format(
                    max=players.MAX_NICKNAME
                )
            except NicknameTaken as exc:
                return _("The nickname {name} is taken.").format(name=html.escape(exc.nickname))
            await audit.audit(
                conn,
                action="player.add",
                entity="player",
                entity_id=row.id,
                tournament_id=d.tid,
                actor_id=ctx.user_id,
                after=row,
            )
            if row.status == "pending":
                ctx.after.append(lambda: tell_chiefs_about(ctx, d.tid, row.id))
    if row.id not in d.added and row.status != "confirmed":
        d.added.append(row.id)
    refusal = await place(ctx, d, d.sel, row.id)
    if refusal is not None:
        return refusal
    if row.status != "confirmed":
        note(d, N_("{player} is on the roster now, waiting for the chief judge's "
                   "confirmation; the game can be saved once he is confirmed."),
             player=row.nickname)
    return None


async def tell_chiefs_about(ctx: Ctx, tid: int, player_id: int) -> None:
    """The chief judges are asked to confirm a player a judge added at the table."""
    async with ctx.db.read() as conn:
        row = await players.get_player(conn, player_id)
        t = await tournaments.get_tournament(conn, tid)
        chiefs = await staff.list_staff(conn, tid, role="chief")
        known = await users.get_users(conn, [c.user_id for c in chiefs])
        judge = await users.get_user(conn, ctx.user_id)
    if row is None or t is None:
        return
    for chief in chiefs:
        if chief.user_id == ctx.user_id:
            continue
        profile = known.get(chief.user_id)
        locale = locale_for_code(profile.language_code if profile else None)
        with ctx.i18n.use_locale(locale):
            text = _(
                "Judge {judge} added {player} to the roster of «{title}» at his table. "
                "Confirm him?"
            ).format(
                judge=html.escape(judge.first_name if judge else str(ctx.user_id)),
                player=f"<b>{html.escape(row.nickname)}</b>",
                title=html.escape(t.title),
            )
            markup = roster_markup(player_id)
        try:
            await ctx.bot.send_message(chief.user_id, text, reply_markup=markup)
        except TelegramAPIError as exc:
            log.info("chief %s not told about player %s: %s", chief.user_id, player_id, exc)


def roster_markup(player_id: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text="✅ " + _("Confirm"), callback_data=RosterDecision(id=player_id, ok=True))
    builder.button(text="✖ " + _("Reject"), callback_data=RosterDecision(id=player_id, ok=False))
    return builder.as_markup()


PREFIX = re.compile(r"^\s*(\d{1,2})\s*[.)]?\s+(.+)$")


@typed("st")
async def type_seating(ctx: Ctx, d: Draft, text: str) -> str | None:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        return await paste_seating(ctx, d, lines)
    query = " ".join(text.split())[:64]
    async with ctx.db.read() as conn:
        found = await players.find_player_by_nickname(conn, d.tid, query)
    if found is not None:  # the whole nickname: seat him (or say why not)
        return await place(ctx, d, d.sel, found.id)
    d.query = query
    d.page = 0
    return None


async def paste_seating(ctx: Ctx, d: Draft, lines: list[str]) -> str | None:
    if len(lines) != SEATS:
        return _("Paste exactly ten nicknames, one per line in seat order (got {count}).").format(
            count=len(lines)
        )
    chosen: list[int] = []
    unknown: list[str] = []
    unconfirmed: list[str] = []
    async with ctx.db.read() as conn:
        for number, line in enumerate(lines, start=1):
            row = await players.find_player_by_nickname(conn, d.tid, line)
            prefixed = PREFIX.match(line)
            if row is None and prefixed and int(prefixed.group(1)) == number:
                row = await players.find_player_by_nickname(conn, d.tid, prefixed.group(2))
            if row is None:
                unknown.append(line)
            elif row.status != "confirmed" and row.id not in d.added:
                unconfirmed.append(row.nickname)
            else:
                chosen.append(row.id)
    if unknown:
        return _(
            "Not on the roster: {names}. Nothing was changed. Add them first: tap the seat, "
            "type the nickname, then Add."
        ).format(names=", ".join(html.escape(n) for n in unknown))
    if unconfirmed:
        return _("Not confirmed by the chief judge yet: {names}. Nothing was changed.").format(
            names=", ".join(html.escape(n) for n in unconfirmed)
        )
    if len(set(chosen)) != SEATS:
        return _("A player is listed twice; a player sits only once. Nothing was changed.")
    d.players = list(chosen)
    d.query = ""
    d.sel = 1
    return None


# -- 3. roles --------------------------------------------------------------------------------


@action("ro", "tap")
async def tap_role(ctx: Ctx, d: Draft, data: Step) -> str | None:
    seat = data.n
    if seat not in SEAT_NUMBERS:
        return _(STALE)
    if seat == d.sheriff:
        d.sheriff = None
    elif seat == d.don:
        d.don = None
    elif seat in d.mafia:
        d.mafia.remove(seat)
    elif d.sheriff is None:
        d.sheriff = seat
    elif d.don is None:
        d.don = seat
    elif len(d.mafia) < 2:
        d.mafia.append(seat)
    else:
        return _("All roles are set. Tap a sheriff's, don's or mafia seat to undo it first.")
    return None


@action("ro", "reset")
async def reset_roles(ctx: Ctx, d: Draft, data: Step) -> str | None:
    d.sheriff = d.don = None
    d.mafia = []
    return None


# -- 4. day 1, 5. night 1 ---------------------------------------------------------------------


@action("d1", "set")
async def set_day1(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in range(4):
        return _(STALE)
    d.day1 = data.n
    if not d.best_move_allowed and (d.bm or d.bm_by):
        await best_move.drop(ctx, d)
        note(d, N_("The best move was removed: 2 or more left by the day-1 vote (8.3.6)."))
    await go(ctx, d, d.next_step("d1"))
    return None


@action("n1", "set")
async def set_night1(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in range(SEATS + 1):
        return _(STALE)
    if data.n != d.night and (d.bm or d.bm_by):
        await best_move.drop(ctx, d)
        note(d, N_("The best move was removed: it belonged to another first-killed player."))
    d.night = data.n
    await go(ctx, d, d.next_step("n1"))
    return None


# -- 7. result, 8. disqualifications -------------------------------------------------------------


@action("re", "set")
async def set_result(ctx: Ctx, d: Draft, data: Step) -> str | None:
    result = RESULT_CODES.get(data.n)
    if result is None:
        return _(STALE)
    d.result = result.value
    if result is Result.DRAW and d.extras:
        d.extras = {}
        note(d, N_("Judge's extra points were removed: a draw gets none (8.4.7)."))
    await go(ctx, d, d.next_step("re"))
    return None


@action("dq", "tap")
async def toggle_disqualified(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    if data.n in d.dq:
        d.dq.remove(data.n)
    else:
        d.dq.append(data.n)
        d.dq.sort()
    return None


# -- 9. penalties (8.5, D8) ----------------------------------------------------------------------


def _names(d: Draft) -> dict[int, str]:
    # The engine needs distinct names; the card's own names are loaded separately.
    return {pid: f"#{pid}" for pid in d.players if pid is not None}


def rule_refusal(d: Draft, tentative: Draft, rules: tuple[str, ...]) -> str | None:
    """The engine's sentence for what ``tentative`` breaks among ``rules`` (and ``d``
    does not), or None when it breaks nothing new."""
    names = _names(tentative)
    before = {(p.rule, p.message) for p in problems(d, names)}
    new = [
        p
        for p in problems(tentative, names)
        if (p.rule, p.message) not in before and (p.rule in rules or p.rule.startswith(rules))
    ]
    if not new:
        return None
    return _("Not accepted: {reason}").format(reason=Issue.of(new[0]).text())


@action("pe", "seat")
async def select_penalty_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    d.sel = data.n
    return None


@action("pe", "rule")
async def toggle_penalty(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS or data.m not in range(1, len(PENALTY_RULES) + 1):
        return _(STALE)
    rule = PENALTY_RULES[data.m - 1]
    key = str(data.n)
    given = list(d.penalties.get(key, []))
    if rule in given:
        given.remove(rule)
    else:
        if not penalty_allowed(d.role(data.n), d.result_value, rule):
            tentative = d.copy()
            tentative.penalties[key] = [*given, rule]
            return rule_refusal(d, tentative, ("8.5",)) or _(
                "Penalty {rule} does not apply to seat {seat} (D8)."
            ).format(rule=rule, seat=data.n)
        given.append(rule)
    if given:
        d.penalties[key] = sorted(given)
    else:
        d.penalties.pop(key, None)
    d.sel = data.n
    return None


# -- 10. judge's extra points (8.4) ----------------------------------------------------------------

EXTRA_RULES = ("8.4", "D6")


async def set_extra(ctx: Ctx, d: Draft, seat: int, value: int) -> str | None:
    """Give ``seat`` ``value`` hundredths (0 removes them), if 8.4 allows it; the
    scoring engine's checks decide (8.4.1-8.4.4, 8.4.6, 8.4.7, D6)."""
    caps = extras_caps(d)
    if seat not in caps:
        if d.result_value is Result.DRAW:
            return _("No judge's extra points in a draw (8.4.7).")
        return _(STALE)
    key = str(seat)
    if value == 0:
        d.extras.pop(key, None)
        d.sel = seat
        return None
    if value > caps[seat]:
        rule = "8.4.3" if caps[seat] == WINNER_CAP else "8.4.4"
        return _("Not accepted: {rule}: seat {seat} gets at most {cap}.").format(
            rule=rule, seat=seat, cap=hundredths(caps[seat])
        )
    tentative = d.copy()
    tentative.extras[key] = value
    refusal = rule_refusal(d, tentative, EXTRA_RULES)
    if refusal is not None:
        return refusal
    d.extras[key] = value
    d.sel = seat
    return None


@action("ex", "seat")
async def select_extra_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in extras_caps(d):
        return _(STALE)
    d.sel = data.n
    return None


@action("ex", "val")
async def tap_extra(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await set_extra(ctx, d, data.n, data.m)


@action("ex", "del")
async def remove_extra(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await set_extra(ctx, d, data.n, 0)


# Digits bounded: Decimal arithmetic keeps 28 digits, so a longer number would be
# rounded (0.35000…001 taken for 0.35) before D6's two decimals are checked.
EXTRA_VALUE = re.compile(r"\s*(?:(\d{1,2})\s+)?([0-9]{1,6}(?:[.,][0-9]{1,12})?)\s*")


@typed("ex")
async def type_extra(ctx: Ctx, d: Draft, text: str) -> str | None:
    match = EXTRA_VALUE.fullmatch(text)
    if match is None:
        return _(
            "Type the points as a number with at most two decimals, e.g. <code>0.35</code> "
            "(or a seat and the points: <code>3 0.35</code>)."
        )
    seat = int(match.group(1)) if match.group(1) else d.sel
    if seat == NO_SEAT:
        return _(
            "Tap a seat first, or type the seat and the points, e.g. <code>3 0.35</code>."
        )
    if seat not in extras_caps(d):
        return _("Seat {seat} can't get judge's points here.").format(seat=seat)
    try:
        number = Decimal(match.group(2).replace(",", "."))
    except InvalidOperation:
        return _("That is not a number.")
    scaled = number * 100
    if scaled != scaled.to_integral_value():
        return _("Not accepted: D6: judge's points have at most two decimals, e.g. 0.35.")
    return await set_extra(ctx, d, seat, int(scaled))
