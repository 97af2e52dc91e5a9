"""Step 2: seating. A player per seat, tapped (filtered by typing part of a nickname) or
pasted as ten lines; a player missing from the roster is added at the table, pending
the chief judge's confirmation unless the chief adds him.

A table of the accepted seating plan comes filled (step 1): the judge confirms it, or
taps a seat and picks a substitute, who then plays that seat in the record."""

from __future__ import annotations

import re

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __

from bot.reads import card_reads
from bot.reads.stored_plans import elsewhere_in_round
from bot.services import Refusal, stages
from bot.services.games import add_player_at_table, ask_chiefs_to_confirm
from bot.texts.markup import html_text
from bot.texts.standings_text import stage_name
from handlers.game_entry.callbacks import Step
from handlers.game_entry.card import refusal_text
from handlers.game_entry.draft import Draft
from handlers.game_entry.flow import STALE
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.spec import Ctx, StepSpec
from handlers.game_entry.states import GameEntry
from handlers.game_entry.view import View
from scoring import N_, SEAT_NUMBERS, SEATS

PAGE_SIZE = 15
PREFIX = re.compile(r"^\s*(\d{1,2})\s*[.)]?\s+(.+)$")


def prompt(d: Draft, view: View) -> list[str]:
    lines = plan_lines(d, view) if from_plan(d) else []
    if from_plan(d) and d.seats_done:
        lines.append(
            _("To change a seat, tap it and pick the substitute (seat {seat} is selected); "
              "typing part of a nickname filters the players.").format(seat=d.sel)
        )
    else:
        lines.append(
            _("Seat {seat}: tap a player, or type part of a nickname to filter. You can also "
              "paste all ten nicknames at once, one per line, in seat order.").format(
                seat=d.sel
            )
        )
    if d.query:
        lines.append(_("Filter: «{query}»").format(query=html_text(d.query)))
    if any(pid in view.busy for pid in candidates(d, view)):
        lines.append(_("⚠N after a name: he plays this round at table N."))
    return [*lines, *busy_lines(d, view)]


def from_plan(d: Draft) -> bool:
    """The seating was filled from the accepted plan (a draft's ``planned``)."""
    return len(d.planned) == SEATS


def plan_lines(d: Draft, view: View) -> list[str]:
    """Where the seats come from, and every seat that differs from the plan."""
    lines = ["📋 " + _("The seats come from the accepted seating plan.")]
    for n in SEAT_NUMBERS:
        planned, now = d.planned[n - 1], d.players[n - 1]
        if now == planned:
            continue
        row = view.players.get(planned)
        if now is not None:
            line = _("Seat {seat}: {player} plays instead of {planned}.")
        elif row is None or not row.plays_on:
            line = _("Seat {seat}: {planned} is no longer on the roster; pick a player.")
        else:
            line = _("Seat {seat} is empty; the plan has {planned} there.")
        lines.append(
            line.format(seat=n, player=view.nickname(now), planned=view.nickname(planned))
        )
    return lines


def candidates(d: Draft, view: View) -> list[int]:
    """Players who may take the selected seat: confirmed and not withdrawn (or added
    here), not seated, matching the typed filter."""
    seated = {p for p in d.players if p is not None}
    query = d.query.casefold()
    found = [
        row
        for row in view.players.values()
        if (row.plays_on or row.id in d.added)
        and (view.entrants is None or row.id in view.entrants[1])  # D13
        and row.id not in seated
        and query in row.nickname.casefold()
    ]
    # Those who play this round at another table come last (a substitute is free).
    found.sort(key=lambda row: (row.id in view.busy, row.nickname.casefold(), row.id))
    return [row.id for row in found]


def buttons(k: Keys, view: View) -> None:
    d = k.d
    if from_plan(d) and d.seats_done:
        label = _("Seating as planned") if d.players == d.planned else _("Confirm the seating")
        k.row(k.button("✅ " + label, "ok"))
    labels = {}
    for n in SEAT_NUMBERS:
        text = f"{n}✓" if d.players[n - 1] is not None else str(n)
        labels[n] = f"[{text}]" if n == d.sel else text
    k.seats("seat", labels)
    found = candidates(d, view)
    pages = max(1, -(-len(found) // PAGE_SIZE))
    page = min(d.page, pages - 1)
    shown = found[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    k.rows_of([k.button(_candidate_label(view, pid), "pick", d.sel, pid) for pid in shown], 3)
    if pages > 1:
        k.row(
            k.button("◀", "page", max(0, page - 1)),
            k.button(f"{page + 1}/{pages}", "noop"),
            k.button("▶", "page", min(pages - 1, page + 1)),
        )
    extra = []
    if d.query:
        extra.append(k.button("✖ " + _("Clear the filter"), "qx"))
        exact = any(
            row.nickname.casefold() == d.query.casefold() and row.status != "rejected"
            for row in view.players.values()
        )
        if not exact:
            extra.append(k.button("➕ " + _("Add «{name}»").format(name=d.query[:24]), "add"))
    if d.players[d.sel - 1] is not None:
        extra.append(k.button(_("Empty seat {seat}").format(seat=d.sel), "clear", d.sel))
    k.rows_of(extra, 2)


def _candidate_label(view: View, player_id: int) -> str:
    label = view.players[player_id].nickname[:24]
    table = view.busy.get(player_id)
    return label if table is None else f"{label} ⚠{table}"


def busy_lines(d: Draft, view: View) -> list[str]:
    """A warning for each seated player who plays this round at another table."""
    return [
        "⚠ " + _("{player} plays round {round} at table {table} too.").format(
            player=html_text(view.nickname(pid)), round=d.round, table=view.busy[pid]
        )
        for pid in d.players
        if pid is not None and pid in view.busy
    ]


def enter(d: Draft) -> None:
    """The cursor goes to the first empty seat, unless it is on an empty one already."""
    if d.sel not in SEAT_NUMBERS or d.players[d.sel - 1] is not None:
        empty = [n for n in SEAT_NUMBERS if d.players[n - 1] is None]
        d.sel = empty[0] if empty else 1


# -- seating a player -----------------------------------------------------------------------


def _next_empty(d: Draft, after: int) -> int:
    order = [*range(after + 1, SEATS + 1), *range(1, after + 1)]
    return next((n for n in order if d.players[n - 1] is None), after)


async def _may_sit(ctx: Ctx, d: Draft, player_id: int) -> str | None:
    """The refusal, unless the player is in this tournament, confirmed (or added here)
    and not seated yet."""
    row = await card_reads.player(ctx.db, player_id)
    if row is None or row.tournament_id != d.tid or row.status == "rejected":
        return _("This player is not on the tournament's roster.")
    if row.status != "confirmed" and row.id not in d.added:
        return _("{player} is not confirmed by the chief judge yet.").format(
            player=html_text(row.nickname)
        )
    if row.withdrawn_at is not None:
        return _("{player} is withdrawn from the tournament: choose another player.").format(
            player=html_text(row.nickname)
        )
    refusal = await _not_entrant(ctx, d, [row.nickname], [player_id])
    if refusal is not None:
        return refusal
    seat = d.seat_of(player_id)
    if seat is not None:
        return _("{player} already sits at seat {seat}; a player sits only once.").format(
            player=html_text(row.nickname), seat=seat
        )
    return None


async def _not_entrant(
    ctx: Ctx, d: Draft, names: list[str], player_ids: list[int]
) -> str | None:
    """D13: only the stage's entrants play its games."""
    entrants = await stages.seating_entrants(ctx.db, d.tid, d.game_id)
    if entrants is None:
        return None
    stage, allowed = entrants
    strangers = [name for name, pid in zip(names, player_ids, strict=True) if pid not in allowed]
    if not strangers:
        return None
    text = _("Not among the entrants of the {stage} stage: {names}. Nothing was changed.")
    return text.format(
        stage=html_text(stage_name(stage)), names=", ".join(html_text(n) for n in strangers)
    )


async def load(ctx: Ctx, d: Draft, view: View) -> None:
    """Who plays this round at another table: saved there, or planned there by the
    accepted seating plan (read once per change of the database); the stage's entrants."""
    view.entrants = await stages.seating_entrants(ctx.db, d.tid, d.game_id)
    if d.round is not None:
        view.busy.update(await elsewhere_in_round(ctx.db, d.tid, d.round, d.table, d.game_id))


async def place(ctx: Ctx, d: Draft, seat: int, player_id: int) -> str | None:
    if seat not in SEAT_NUMBERS:
        return _(STALE)
    refusal = await _may_sit(ctx, d, player_id)
    if refusal is not None:
        return refusal
    d.players[seat - 1] = player_id
    d.query = ""
    d.page = 0
    d.sel = _next_empty(d, seat)
    return None


async def select_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    d.sel = data.n
    d.page = 0
    return None


async def pick_player(ctx: Ctx, d: Draft, data: Step) -> str | None:
    return await place(ctx, d, data.n, data.m)


async def page(ctx: Ctx, d: Draft, data: Step) -> str | None:
    d.page = max(0, data.n)
    return None


async def clear_filter(ctx: Ctx, d: Draft, data: Step) -> str | None:
    d.query = ""
    d.page = 0
    return None


async def empty_seat(ctx: Ctx, d: Draft, data: Step) -> str | None:
    if data.n not in SEAT_NUMBERS:
        return _(STALE)
    d.players[data.n - 1] = None
    d.sel = data.n
    return None


async def confirm(ctx: Ctx, d: Draft, data: Step) -> str | None:
    """The seating as it stands (the plan's, with any substitutes): on to the roles.
    An old or forged button on an incomplete seating says what is missing."""
    empty = [n for n in SEAT_NUMBERS if d.players[n - 1] is None]
    if empty:
        return _(
            "Seat {seats} is empty: seat a player there first. Nothing was changed.",
            "Seats {seats} are empty: seat players there first. Nothing was changed.",
            len(empty),
        ).format(seats=", ".join(str(n) for n in empty))
    ctx.go_on(d)
    return None


async def add_to_roster(ctx: Ctx, d: Draft, data: Step) -> str | None:
    """A player missing from the roster, added at the table: pending the chief judge's
    confirmation (the roster flow), confirmed at once when the chief adds him."""
    if not d.query:
        return _("Type the new player's nickname first.")
    added = await add_player_at_table(
        ctx.db, tournament_id=d.tid, nickname=d.query, actor=ctx.user_id
    )
    if isinstance(added, Refusal):
        return refusal_text(added)
    row = added.player
    if added.ask_chiefs:
        tid = d.tid
        ctx.after.append(
            lambda: ask_chiefs_to_confirm(
                ctx, ctx.teller, tournament_id=tid, player_id=row.id,
                judge=ctx.user_id,
            )
        )
    if row.id not in d.added and row.status != "confirmed":
        d.added.append(row.id)
    refusal = await place(ctx, d, d.sel, row.id)
    if refusal is not None:
        return refusal
    if row.status != "confirmed":
        d.set_note(N_("{player} is on the roster now, waiting for the chief judge's "
                      "confirmation; the game can be saved once he is confirmed."),
                   player=row.nickname)
    return None


# -- typed: a filter, a whole nickname, or ten pasted lines ------------------------------------


async def typed(ctx: Ctx, d: Draft, text: str) -> str | None:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        return await paste(ctx, d, lines)
    query = " ".join(text.split())[:64]
    [found] = await card_reads.by_nicknames(ctx.db, d.tid, [query])
    if found is not None:  # the whole nickname: seat him (or say why not)
        return await place(ctx, d, d.sel, found.id)
    d.query = query
    d.page = 0
    return None


async def paste(ctx: Ctx, d: Draft, lines: list[str]) -> str | None:
    if len(lines) != SEATS:
        return _("Paste exactly ten nicknames, one per line in seat order (got {count}).").format(
            count=len(lines)
        )
    chosen: list[int] = []
    names: list[str] = []
    unknown: list[str] = []
    unconfirmed: list[str] = []
    # Each line as typed, and without a "3." or "3)" seat number before it.
    prefixed = [PREFIX.match(line) for line in lines]
    bare = [m.group(2) if m and int(m.group(1)) == n else "" for n, m in enumerate(prefixed, 1)]
    found = await card_reads.by_nicknames(ctx.db, d.tid, [*lines, *bare])
    for number, line in enumerate(lines, start=1):
        row = found[number - 1] or (found[SEATS + number - 1] if bare[number - 1] else None)
        if row is None:
            unknown.append(line)
        elif row.status != "confirmed" and row.id not in d.added:
            unconfirmed.append(row.nickname)
        else:
            chosen.append(row.id)
            names.append(row.nickname)
    refusal = _paste_refusal(chosen, unknown, unconfirmed) or await _not_entrant(
        ctx, d, names, chosen
    )
    if refusal is not None:
        return refusal
    d.players = list(chosen)
    d.query = ""
    d.sel = 1
    return None


def _paste_refusal(chosen: list[int], unknown: list[str], unconfirmed: list[str]) -> str | None:
    if unknown:
        return _(
            "Not on the roster: {names}. Nothing was changed. Add them first: tap the seat, "
            "type the nickname, then Add."
        ).format(names=", ".join(html_text(n) for n in unknown))
    if unconfirmed:
        return _("Not confirmed by the chief judge yet: {names}. Nothing was changed.").format(
            names=", ".join(html_text(n) for n in unconfirmed)
        )
    if len(set(chosen)) != SEATS:
        return _("A player is listed twice; a player sits only once. Nothing was changed.")
    return None


SPEC = StepSpec(
    code="st",
    state=GameEntry.seating,
    title=__("Seating"),
    prompt=prompt,
    keyboard=buttons,
    done=lambda d: d.seats_done,
    enter=enter,
    load=load,
    actions={
        "seat": select_seat,
        "pick": pick_player,
        "page": page,
        "qx": clear_filter,
        "clear": empty_seat,
        "add": add_to_roster,
        "ok": confirm,
    },
    typed=typed,
    marks_seat=True,
)
