"""Step 1: round and table, tapped from suggestions or typed ("2 3")."""

from __future__ import annotations

import re

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.db import games
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import View
from handlers.game_entry.context import Ctx
from handlers.game_entry.draft import Draft
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import StepSpec
from handlers.game_entry.states import GameEntry

MAX_NUMBER = 999
ROUND_TABLE = re.compile(r"\s*(\d{1,4})\s*[\s,./:;x×*-]\s*(\d{1,4})\s*")


def prompt(d: Draft, view: View) -> list[str]:
    return [
        _("Tap the suggested round and table, or type them, e.g. <code>2 3</code> "
          "(round 2, table 3).")
    ]


def buttons(k: Keys, view: View) -> None:
    for round_no, table in view.suggestions:
        text = _("Round {round}, table {table}").format(round=round_no, table=table)
        if (round_no, table) == (k.d.round, k.d.table):
            text = "✓ " + text
        k.row(k.button(text, "set", round_no, table))


async def load(ctx: Ctx, d: Draft, view: View) -> None:
    """Up to three suggestions: the draft's own, the first free table, and the free
    table of the round being played (two judges start at once)."""
    found: list[tuple[int, int]] = []
    if d.round is not None and d.table is not None:
        found.append((d.round, d.table))
    async with ctx.db.read() as conn:
        stored = await games.tables_by_round(conn, d.tid)
    free = games.first_free(stored)
    if free not in found:
        found.append(free)
    if stored:
        last = max(round_no for _, round_no, _ in stored)
        used = {table for _, round_no, table in stored if round_no == last}
        table = next(t for t in range(1, len(used) + 2) if t not in used)
        if (last, table) not in found:
            found.append((last, table))
    view.suggestions = found[:3]


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
    ctx.go_on(d)
    return None


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
