"""Step 1: round and table, tapped from suggestions or typed ("2 3").

With an accepted seating plan the suggestions are the plan's next unplayed tables, and
choosing a table of the plan seats its players (step 2 then confirms or substitutes).
A correction keeps the seating as it was played: the plan fills only new games.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.reads import card_reads
from bot.reads.stored_plans import StoredPlan, accepted_plan
from bot.services import stages
from bot.texts.phrases import say
from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import N_

MAX_NUMBER = 999
ROUND_TABLE = re.compile(r"\s*(\d{1,4})\s*[\s,./:;x×*-]\s*(\d{1,4})\s*")
Pair = tuple[int, int]  # (round, table)


def prompt(d: Draft, view: View) -> list[str]:
    return [
        _("Tap the suggested round and table, or type them, e.g. <code>2 3</code> "
          "(round 2, table 3).")
    ]


def buttons(k: Keys, view: View) -> None:
    for round_no, table in view.suggestions:
        text = _("Round {round}, table {table}").format(round=round_no, table=table)
        if (round_no, table) in view.planned:
            text = "📋 " + text
        if (round_no, table) == (k.d.round, k.d.table):
            text = "✓ " + text
        k.row(k.button(text, "set", round_no, table))


async def load(ctx: Ctx, d: Draft, view: View) -> None:
    """Up to three suggestions: the draft's own; the judge's own table in the round after
    the one he judged last (judges keep their tables, so none takes another's); the
    plan's next unplayed tables; the first free table and the free table of the round
    being played (two judges start at once). The reads are cached until the database
    changes."""
    found: list[Pair] = []
    if d.round is not None and d.table is not None:
        found.append((d.round, d.table))
    stored = await card_reads.tables_played(ctx.db, d.tid)
    last = await card_reads.last_judged(ctx.db, d.tid, d.judge_id)
    view.planned = plan_tables(await accepted_plan(ctx.db, d.tid))
    played = {(round_no, table) for _, round_no, table in stored}
    own = [] if last is None else [(last[0] + 1, last[1])]
    own = [p for p in own if p not in played and (not view.planned or p in view.planned)]
    unplayed = [pair for pair in sorted(view.planned) if pair not in played]
    # A later stage's games take rounds after the earlier stages' (D13).
    first = await stages.first_round(ctx.db, d.tid) if d.mode == "new" else 1
    later = [game for game in stored if game[1] >= first]
    for pair in [*own, *unplayed[:3], *free_tables(later), (first, 1)]:
        if pair not in found and pair[0] >= first:
            found.append(pair)
    view.suggestions = found[:3]


def free_tables(stored: Sequence[tuple[int, int, int]]) -> list[Pair]:
    """The first free table, and the free table of the last round with a game."""
    found = [card_reads.first_free(list(stored))]
    if stored:
        last = max(round_no for _, round_no, _ in stored)
        used = {table for _, round_no, table in stored if round_no == last}
        found.append((last, next(t for t in range(1, len(used) + 2) if t not in used)))
    return found


def plan_tables(plan: StoredPlan | None) -> set[Pair]:
    if plan is None:
        return set()
    return {(r, t) for r, tables in plan.tables_by_round().items() for t in tables}


async def set_round_table(ctx: Ctx, d: Draft, round_no: int, table: int) -> str | None:
    if not (1 <= round_no <= MAX_NUMBER and 1 <= table <= MAX_NUMBER):
        return _("Round and table are numbers from 1 to {max}.").format(max=MAX_NUMBER)
    if d.mode == "new":
        refused = await stages.round_refusal(ctx.db, d.tid, round_no)
        if refused is not None:
            return say(refused)
    plan = await accepted_plan(ctx.db, d.tid) if d.mode == "new" else None
    seats = plan.seats_at(round_no, table) if plan is not None else None
    stored = await card_reads.games_in(ctx.db, d.tid, round_no=round_no)
    confirmed = await _confirmed(ctx, d.tid) if seats is not None else set()
    taken = [g for g in stored if g.table_no == table and g.id != d.game_id]
    if taken:
        return _(
            "Round {round}, table {table} is already saved (game #{id}). Choose another table."
        ).format(round=round_no, table=table, id=taken[0].id)
    changed = (round_no, table) != (d.round, d.table)
    d.round, d.table = round_no, table
    if plan is None:
        d.planned = []
    elif seats is None:
        _not_in_plan(d)
    elif changed or not _seated(d):  # the same table again keeps the judge's substitutes
        _seat_from_plan(d, seats, confirmed)
    ctx.go_on(d)
    return None


async def _confirmed(ctx: Ctx, tid: int) -> set[int]:
    """The roster's confirmed players who play on, not withdrawn (kept in memory while
    the roster is unchanged)."""
    tournament = await ctx.tournament(tid)
    if tournament is None:
        return set()
    return {p.id for p in await card_reads.roster(ctx.db, tournament) if p.plays_on}


def _seated(d: Draft) -> bool:
    return any(p is not None for p in d.players)


def _seat_from_plan(d: Draft, seats: list[int], confirmed: set[int]) -> None:
    """The plan's players in their seats, replacing what was there; one no longer on
    the roster leaves his seat empty for the judge to fill."""
    filled: list[int | None] = [pid if pid in confirmed else None for pid in seats]
    if _seated(d) and d.players != filled:
        d.set_note(
            N_("The seating is replaced by the plan's for round {round}, table {table}."),
            round=d.round, table=d.table,
        )
    d.players = filled
    d.planned = list(seats)
    d.query = ""


def _not_in_plan(d: Draft) -> None:
    """A table the plan does not have: the seating stays as it was, entered by taps."""
    if _seated(d):
        d.set_note(
            N_("The seating plan has no round {round}, table {table}: the seating stays "
               "as it was."),
            round=d.round, table=d.table,
        )
    else:
        d.set_note(
            N_("The seating plan has no round {round}, table {table}: seat the players "
               "by taps."),
            round=d.round, table=d.table,
        )
    d.planned = []


async def tap(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await set_round_table(ctx, d, data.n, data.m)


async def typed(ctx: Ctx, d: Draft, text: str) -> str | None:
    match = ROUND_TABLE.fullmatch(text)
    if match is None:
        return _("Type the round and the table as two numbers, e.g. <code>2 3</code>.")
    return await set_round_table(ctx, d, int(match.group(1)), int(match.group(2)))


SPEC = StepSpec(
    code="rt",
    state=GameEntry.round_table,
    title=__("Round and table"),
    prompt=prompt,
    keyboard=buttons,
    done=lambda d: d.round is not None and d.table is not None,
    load=load,
    actions={"set": tap},
    typed=typed,
)
