"""Step 6, the best move (8.3): the first-killed player taps his numbers himself in his
private chat (``handlers/game_entry/best_move.py`` takes his taps), or the judge enters
them.

Each number is final once named (8.3.3); "Done" ends the best move early (8.3.2);
after the third number or Done the bot answers "Accepted" (8.3.1).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.reads import card_reads
from bot.texts.i18n import locale_for
from bot.texts.markup import html_text
from handlers.game_entry.callbacks import PlayerMove, Step
from handlers.game_entry.commands import run
from handlers.game_entry.draft import Draft
from handlers.game_entry.flow import void_request
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import N_, SEAT_NUMBERS

log = logging.getLogger(__name__)


def seats_text(seats: list[int]) -> str:
    return ", ".join(str(s) for s in seats) if seats else _("none")


def named_text(seat: int) -> str:
    return _("Seat {seat} is named already; named numbers can't be changed (8.3.3).").format(
        seat=seat
    )


# -- the judge's card -------------------------------------------------------------------------


def prompt(d: Draft, view: View) -> list[str]:
    seat = d.first_killed
    assert seat is not None
    who = view.nickname(d.players[seat - 1])
    lines = [
        _("Seat {seat} ({player}) may name up to three seats he believes black (8.3). "
          "Each number is final (8.3.3); he may stop earlier (8.3.2).").format(
            seat=seat, player=who
        )
    ]
    if d.bm_done:
        lines.append(_("The judge answered «Accepted»; tap Next."))
    elif d.bm_by == "player":
        lines.append(
            _("⏳ Waiting for {player} to tap his numbers in his private chat with the bot. "
              "You can take over and enter them yourself.").format(player=who)
        )
    else:
        lines.append(
            _("Tap the seats he names, one per number; Done if he named fewer than three.")
        )
    return lines


def buttons(k: Keys, view: View) -> None:
    d = k.d
    if not d.bm_done and d.bm_by != "player":
        seats = []
        for n in SEAT_NUMBERS:
            if n == d.first_killed:
                continue
            if n in d.bm:
                seats.append(k.button(f"✓{n}", "noop", n))
            else:
                seats.append(k.button(str(n), "seat", n))
        k.rows_of(seats, 5)
        k.row(k.button(_("Done ({count} named)").format(count=len(d.bm)), "done"))
    if d.bm_by == "player" and not d.bm_done:
        k.row(k.button(_("Take over: I enter the numbers"), "take"))
    box = "☑" if d.bm_hint else "☐"
    k.row(k.button(f"{box} " + _("Asked for a hint (8.3.5)"), "hint"))
    if d.mode == "correct" and (d.bm_done or d.bm):
        k.row(k.button("↺ " + _("Clear and enter again"), "clear"))


async def judge_names(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.bm_by == "player" and not d.bm_done:
        return _("The player is tapping his numbers himself. Tap «Take over» to enter them.")
    refusal = run(d, {"type": "best_move", "seat": data.n})  # 8.3, 8.3.3, 8.3.6, D10
    if refusal is None:
        d.bm_by = "judge"
    return refusal


async def named_already(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return named_text(data.n)


async def judge_done(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.bm_by == "player" and not d.bm_done:
        return _("The player is tapping his numbers himself. Tap «Take over» to enter them.")
    refusal = run(d, {"type": "best_move_end"})  # 8.3.2: only the numbers named so far
    if refusal is None:
        d.bm_by = "judge"
    return refusal


async def toggle_hint(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return run(d, {"type": "best_move_hint", "on": not d.bm_hint})  # 8.3.5


async def take_over(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.bm_by != "player" or d.bm_done:
        return _("Nothing to take over.")
    old = d.copy()
    d.bm_by = "judge"
    d.bm_msg = None
    ctx.after.append(
        lambda: void_request(
            ctx.bot, ctx.i18n, old, N_("The judge is entering your best move himself.")
        )
    )
    return None


async def clear_in_correction(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if d.mode != "correct":
        return _("Named numbers can't be changed (8.3.3).")
    d.clear_best_move()
    d.bm_by = "judge"
    return None


async def with_best_move(ctx: Ctx, d: Draft, command: Mapping[str, object]) -> str | None:
    """Day 1 or night 1 entered (``command``), then the next step. The protocol clears a
    best move it voids (8.3.6) or that belonged to another first-killed seat, with a
    note; a request to the player that no longer stands loses its buttons."""
    old = d.copy()
    refusal = run(d, command)
    if refusal is not None:
        return refusal
    if old.bm_by is not None and (
        d.first_killed != old.first_killed or not d.best_move_allowed
    ):
        d.clear_best_move()
        ctx.after.append(
            lambda: void_request(ctx.bot, ctx.i18n, old, N_("This best move request was "
                                                             "cancelled by the judge."))
        )
    ctx.go_on(d)
    return None


# -- the request to the player ------------------------------------------------------------


def player_markup(d: Draft) -> InlineKeyboardMarkup:
    rows: list[list[InlineKeyboardButton]] = []
    row: list[InlineKeyboardButton] = []
    for n in SEAT_NUMBERS:
        if n == d.first_killed:
            continue  # his own seat can't be named (D10)
        label = f"✓{n}" if n in d.bm else str(n)
        data = PlayerMove(j=d.judge_id, t=d.token, a="s", n=n).pack()
        row.append(InlineKeyboardButton(text=label, callback_data=data))
        if len(row) == 5:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    done = PlayerMove(j=d.judge_id, t=d.token, a="d").pack()
    rows.append(
        [InlineKeyboardButton(text=_("Done ({count} named)").format(count=len(d.bm)),
                              callback_data=done)]
    )
    return InlineKeyboardMarkup(inline_keyboard=rows)


def player_text(d: Draft, title: str) -> str:
    lines = [
        _("«{title}», round {round}, table {table}: you were shot on night 1.").format(
            title=html_text(title), round=d.round, table=d.table
        )
    ]
    if d.bm_done:
        lines.append(
            "<b>" + _("Accepted") + "</b> (8.3.1): " + seats_text(d.bm)
        )
        return "\n\n".join(lines)
    lines.append(
        _("Your best move (8.3): tap up to three seats you believe black, one number at a "
          "time. Each tap is final (8.3.3); tap Done to stop earlier (8.3.2).")
    )
    if d.bm:
        lines.append(_("Named: {seats}").format(seats=seats_text(d.bm)))
    return "\n\n".join(lines)


async def tournament_title(ctx: Ctx, tid: int) -> str:
    t = await ctx.tournament(tid)  # as the card read it (Database.cached)
    return t.title if t else ""


async def ask_player(ctx: Ctx, d: Draft) -> None:
    """On entering step 6 of a new game: send the first-killed player his buttons, if
    his account is linked and he can be messaged; otherwise the judge enters them."""
    if d.mode != "new" or d.bm_by is not None or d.bm_done or d.first_killed is None:
        return
    player_id = d.players[d.first_killed - 1]
    if player_id is None:
        return
    row, profile = await card_reads.player_and_profile(ctx.db, player_id)
    d.bm_by = "judge"
    if row is None or row.user_id is None:
        d.set_note(N_("{player}'s Telegram account is not linked: enter his numbers yourself."),
                   player=row.nickname if row else "?")
        return
    if profile is None or not profile.can_message:
        d.set_note(N_("{player} has not started the bot, so he can't be asked: enter his "
                      "numbers yourself."), player=row.nickname)
        return
    await _send_request(ctx, d, row.user_id, row.nickname, locale_for(profile))


async def _send_request(ctx: Ctx, d: Draft, user_id: int, nickname: str, locale: str) -> None:
    title = await tournament_title(ctx, d.tid)
    with ctx.i18n.use_locale(locale):
        text, markup = player_text(d, title), player_markup(d)
    try:
        sent = await ctx.bot.send_message(user_id, text, reply_markup=markup)
    except (TelegramForbiddenError, TelegramBadRequest) as exc:
        log.info("best move request to %s refused: %s", user_id, exc.message)
        await card_reads.unreachable(ctx.db, user_id)
        d.set_note(N_("Telegram refused to deliver the request to {player} (he never started "
                      "the bot or blocked it): enter his numbers yourself."), player=nickname)
        return
    d.bm_by = "player"
    d.bm_user = user_id
    d.bm_msg = [sent.chat.id, sent.message_id]
    d.bm_locale = locale


SPEC = StepSpec(
    code="bm",
    state=GameEntry.best_move,
    title=__("Best move"),
    prompt=prompt,
    keyboard=buttons,
    done=lambda d: d.bm_done or not d.best_move_allowed,
    applies=lambda d: d.best_move_allowed,
    entered=ask_player,
    actions={
        "seat": judge_names,
        "noop": named_already,
        "done": judge_done,
        "hint": toggle_hint,
        "take": take_over,
        "clear": clear_in_correction,
    },
)
