"""The machinery shared by every step: loading the draft, checking who taps, moving
between steps, and showing the card (one message, edited in place)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State
from aiogram.types import CallbackQuery, User
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.background import Background
from bot.db import games, players, tournaments
from bot.db.connection import Database
from bot.db.scoring_bridge import load_scoring_tournament
from bot.db.tournaments import StaffRole, TournamentRow
from bot.fsm_storage import SQLiteStorage
from bot.i18n import locale_for
from bot.publishing import Publisher
from bot.standings import StandingsService
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import Issue, View, render_text
from handlers.game_entry.draft import DATA_KEY, NO_SEAT, Draft, problems, scoring_game
from handlers.game_entry.keyboards import keyboard
from handlers.game_entry.states import GameEntry
from scoring import (
    N_,
    SEAT_NUMBERS,
    Game,
    Tournament,
    b_value,
    ci_value,
    game_breakdown,
)

log = logging.getLogger(__name__)

STATES: dict[str, State] = {
    "tn": GameEntry.tournament,
    "rt": GameEntry.round_table,
    "st": GameEntry.seating,
    "ro": GameEntry.roles,
    "d1": GameEntry.day1,
    "n1": GameEntry.night1,
    "bm": GameEntry.best_move,
    "re": GameEntry.result,
    "dq": GameEntry.disqualify,
    "pe": GameEntry.penalties,
    "ex": GameEntry.extras,
    "rv": GameEntry.review,
}
STATE_NAMES = frozenset(str(s.state) for s in STATES.values())


@dataclass
class Ctx:
    """What a step's action needs, from the handler's keyword arguments."""

    bot: Bot
    db: Database
    standings: StandingsService
    publisher: Publisher
    state: FSMContext
    i18n: I18n
    user_id: int
    # Where the card's edits go without the handler waiting for them (None: it waits).
    background: Background | None = None
    # Slower work (messages to others) run after the callback is answered.
    after: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    async def run_after(self) -> None:
        while self.after:
            await self.after.pop(0)()

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        """The tournament as ``authorize`` read it, unless something changed since."""
        return (await tournament_and_role(self.db, tournament_id, self.user_id))[0]


# An action changes the draft and returns None, or refuses with a one-line reason
# (then nothing is stored).
Action = Callable[[Ctx, Draft, Step], Awaitable[str | None]]
ACTIONS: dict[tuple[str, str], Action] = {}
# Called when a step is entered (e.g. the best move asks the player himself).
ENTER_HOOKS: dict[str, Callable[[Ctx, Draft], Awaitable[None]]] = {}


def action(step: str, name: str) -> Callable[[Action], Action]:
    def register(func: Action) -> Action:
        ACTIONS[(step, name)] = func
        return func

    return register


def locale_for_code(code: str | None) -> str:
    """The bot's language for a stored Telegram language code (as the i18n middleware)."""
    return locale_for(User(id=0, is_bot=False, first_name="-", language_code=code))


def note(d: Draft, msgid: str, **params: Any) -> None:
    d.note = [msgid, params]


async def current_draft(state: FSMContext) -> Draft | None:
    data = await state.get_data()
    raw = data.get(DATA_KEY)
    return Draft.from_dict(raw) if isinstance(raw, dict) else None


async def persist(ctx: Ctx, d: Draft) -> None:
    state, data = STATES[d.step], {DATA_KEY: d.to_dict()}
    storage = ctx.state.storage
    if isinstance(storage, SQLiteStorage):  # one write instead of two, on every tap
        await storage.set_state_and_update_data(ctx.state.key, state, data)
        return
    await ctx.state.set_state(state)
    await ctx.state.update_data(data)


def is_stale(d: Draft | None, data: Step, callback: CallbackQuery) -> bool:
    """An old keyboard: another draft, another step, or another message than the card."""
    if d is None or data.t != d.token or data.s != d.step:
        return True
    message = callback.message
    return message is None or message.message_id != d.card_id or message.chat.id != d.card_chat


async def tournament_and_role(
    db: Database, tournament_id: int, user_id: int
) -> tuple[TournamentRow | None, StaffRole | None]:
    """Read once per change of the database: a judge taps his card dozens of times a
    game; roles change a few times a tournament."""
    return await db.cached(
        ("tournament_and_role", tournament_id, user_id),
        partial(tournaments.tournament_and_role, tournament_id=tournament_id, user_id=user_id),
    )


async def authorize(ctx: Ctx, d: Draft) -> str | None:
    """Checked on every update: a judge or chief of a running tournament enters games,
    only a chief judge corrects them. Returns the refusal, or None."""
    if d.step == "tn":
        return None
    tournament, role = await tournament_and_role(ctx.db, d.tid, ctx.user_id)
    if tournament is None:
        return _("This tournament no longer exists.")
    if d.mode == "correct":
        return None if role == "chief" else _("Only the chief judge may correct a game.")
    if role not in ("chief", "judge"):
        return _("You are no longer a judge of this tournament.")
    if tournament.status != "running":
        return _("The tournament is not running, so no game can be entered.")
    return None


# -- moving between steps ----------------------------------------------------------------


async def go(ctx: Ctx, d: Draft, step: str) -> None:
    d.step = step
    d.page = 0
    if step in ("pe", "ex"):
        _select_no_seat(d)
    if step == "st" and (d.sel not in SEAT_NUMBERS or d.players[d.sel - 1] is not None):
        empty = [n for n in SEAT_NUMBERS if d.players[n - 1] is None]
        d.sel = empty[0] if empty else 1
    hook = ENTER_HOOKS.get(step)
    if hook is not None:
        ctx.after.append(lambda: hook(ctx, d))


def _select_no_seat(d: Draft) -> None:
    """The penalties and the judge's points open with no seat selected: a value tapped
    at once must not land on whichever seat was touched last. Seating keeps its cursor:
    it is the seat the next player goes to."""
    d.sel = NO_SEAT


@action("*", "back")
async def back(ctx: Ctx, d: Draft, data: Step) -> str | None:
    previous = d.previous_step(d.step)
    if previous is None:
        if d.step == "rt" and len(d.choices) > 1:
            await go(ctx, d, "tn")
            return None
        return _("This is the first step.")
    await go(ctx, d, previous)
    return None


@action("*", "next")
async def forward(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if not d.step_done(d.step):
        return _("Finish this step first.")
    await go(ctx, d, d.next_step(d.step))
    return None


@action("*", "review")
async def to_review(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if not d.complete:
        return _("Finish the earlier steps first.")
    await go(ctx, d, "rv")
    return None


@action("*", "noop")
async def noop(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return _("Nothing to change here.")


# -- the card -----------------------------------------------------------------------------


async def tournament_model(db: Database, standings: StandingsService, tid: int) -> Tournament:
    """The tournament as the engine sees it (cached standings; a direct read if a stored
    game keeps the standings from being computed)."""
    try:
        return (await standings.get(tid)).tournament
    except Exception:  # an invalid stored game: the model itself is still readable
        async with db.read() as conn:
            return await load_scoring_tournament(conn, tid)


def first_night_count(t: Tournament, player: str, *, skip: str = "") -> int:
    """i of 8.6.1 over the stored games: shot on night 1 as civilian or sheriff (D1)."""
    count = 0
    for game in t.games:
        if game.id == skip or game.first_killed is None:
            continue
        seat = game.seat(game.first_killed)
        if seat.player == player and seat.role.is_red:
            count += 1
    return count


async def game_ci(
    db: Database, standings: StandingsService, tid: int, game: Game, original_code: str
) -> tuple[int, int, Fraction]:
    """(i, B, Ci) of the game's first-killed player, this game included (8.6.1, D1);
    ``original_code`` is the stored game's own id, counted once as this game."""
    t = await tournament_model(db, standings, tid)
    b = b_value(t.distance)
    if game.first_killed is None:
        return 0, b, Fraction(0)
    seat = game.seat(game.first_killed)
    i = first_night_count(t, seat.player, skip=original_code)
    if seat.role.is_red:
        i += 1
    return i, b, ci_value(i, b)


async def load_view(ctx: Ctx, d: Draft) -> View:
    view = View()
    async with ctx.db.read() as conn:
        if d.step == "tn":
            for tid in d.choices:
                t = await tournaments.get_tournament(conn, tid)
                if t is not None:
                    view.tournaments[tid] = t.title
            return view
        t = await ctx.tournament(d.tid)
        view.title = t.title if t else ""
        view.players = {p.id: p for p in await players.roster(conn, t)} if t else {}
        if d.mode == "correct" and d.game_id is not None:
            stored = await games.get_game(conn, d.game_id)
            view.original_code = stored.code if stored else ""
        if d.step == "rt":
            view.suggestions = await suggestions(conn, d)
    names = {pid: row.nickname for pid, row in view.players.items()}
    view.issues = [Issue.of(p) for p in problems(d, names)]
    for n in SEAT_NUMBERS:
        pid = d.players[n - 1]
        if pid is not None and view.pending(pid):
            view.issues.append(
                Issue(
                    "seats",
                    N_("seat {seat}: {player} is not confirmed yet; the chief judge must "
                       "confirm him before the game can be saved"),
                    {"seat": n, "player": view.players[pid].nickname},
                )
            )
    if d.step in ("ex", "rv"):
        game = scoring_game(d, names)
        if game is not None:
            try:
                plain = replace(game, judge_extras={}, chief_approved=frozenset())
                points = game_breakdown(plain, ci=Fraction(0))
                view.best_move_points = {s.seat: s.best_move for s in points.seats if s.best_move}
            except Exception:  # other problems: they are listed; no budget then
                view.best_move_points = {}
            if d.step == "rv" and not view.issues and d.complete:
                view.ci_info = await game_ci(
                    ctx.db, ctx.standings, d.tid, game, view.original_code
                )
                view.breakdown = game_breakdown(game, ci=view.ci_info[2])
    return view


async def suggestions(conn: Any, d: Draft) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    if d.round is not None and d.table is not None:
        found.append((d.round, d.table))
    stored = await games.tables_by_round(conn, d.tid)
    free = games.first_free(stored)
    if free not in found:
        found.append(free)
    # The free table of the round being played (two judges start at once).
    if stored:
        last = max(round_no for _, round_no, _ in stored)
        used = {table for _, round_no, table in stored if round_no == last}
        table = next(t for t in range(1, len(used) + 2) if t not in used)
        if (last, table) not in found:
            found.append((last, table))
    return found[:3]


async def render(ctx: Ctx, d: Draft) -> tuple[str, Any]:
    with ctx.i18n.use_locale(d.locale):
        view = await load_view(ctx, d)
        text = render_text(d, view)
        markup = keyboard(d, view)
    return text, markup


async def retire_card(bot: Bot, chat_id: int, message_id: int, text: str) -> None:
    """Take the keyboard off a card that no longer leads anywhere."""
    if not message_id:
        return
    try:
        await bot.edit_message_text(text=text, chat_id=chat_id, message_id=message_id)
    except TelegramAPIError as exc:  # gone or unchanged: nothing to take off
        log.debug("old card %s/%s not edited: %s", chat_id, message_id, exc)


async def show(ctx: Ctx, d: Draft) -> None:
    """Store the draft, then edit the card in place; a card that is gone is sent again
    (and remembered). A one-shot note is shown now and not stored.

    With ``ctx.background`` the edit goes out without the handler waiting for it: a
    held edit (the chat's pace, see ``bot.flood``) must not hold the judge's next tap,
    and edits still waiting when he taps again coalesce into the newest card.
    """
    text, markup = await render(ctx, d)
    d.note = None
    await persist(ctx, d)
    put = _put_card(ctx, d.card_chat, d.card_id, text, markup)
    if ctx.background is None:
        await put
    else:
        ctx.background.spawn(put, name=f"card {d.card_chat}/{d.card_id}")


async def _put_card(ctx: Ctx, chat_id: int, message_id: int, text: str, markup: Any) -> None:
    try:
        await ctx.bot.edit_message_text(
            text=text, chat_id=chat_id, message_id=message_id, reply_markup=markup
        )
    except TelegramBadRequest as exc:
        if "not modified" in exc.message:
            return
        log.info("card %s/%s could not be edited (%s); sending it again", chat_id,
                 message_id, exc.message)
        sent = await ctx.bot.send_message(chat_id, text, reply_markup=markup)
        await _card_moved(ctx, message_id, sent.message_id)


async def _card_moved(ctx: Ctx, old_id: int, new_id: int) -> None:
    """Remember the card sent anew, unless the draft moved on meanwhile (finished, or
    shown elsewhere): only its card id changes, so no tap stored since is undone."""
    d = await current_draft(ctx.state)
    if d is None or d.card_id != old_id or await ctx.state.get_state() not in STATE_NAMES:
        return
    d.card_id = new_id
    await persist(ctx, d)


async def apply(ctx: Ctx, d: Draft, data: Step) -> str | None:
    func = ACTIONS.get((d.step, data.a)) or ACTIONS.get(("*", data.a))
    if func is None:
        return _("This card is out of date. Use the latest card.")
    return await func(ctx, d, data)


STALE = N_("This card is out of date. Use the latest card or /game.")
