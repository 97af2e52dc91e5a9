"""/seating: the chief judge makes the tournament's seating plan, in private.

``/seating`` shows the roster and the plan so far, asks how many tables play at once,
generates a plan (in a worker thread: the bot keeps answering meanwhile) and offers it
with its fairness figures and a preview: 🔄 Regenerate (another seed), ✅ Accept,
✖ Cancel. Rounds already played are kept as played, so once round 1 has saved games
the same command re-plans the remaining rounds (a player dropped out or was
replaced). A re-plan keeps the accepted plan's rounds, changed only where they must
(players told their seats keep them); 🆕 Fresh plan asks for a new one, and the offer
says how many players either way moves. The use cases are ``bot.services.seating``;
this module parses and renders.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.publishing import Publisher
from bot.publishing.notices import run_follow_up
from bot.reads.stored_plans import StoredPlan, vacated
from bot.services import Refusal
from bot.services import seating as service
from bot.services.records import Database, TournamentRow
from bot.services.seating import Overview, PlanView, Prepared
from bot.texts.markup import html_text
from bot.texts.phrases import say
from bot.texts.seating_text import (
    MESSAGE_LIMIT,
    plan_preview,
    quality_text,
    substitute_for,
    utf16_len,
)
from bot.texts.standings_text import stage_name
from handlers.callbacks import RowId, Small
from handlers.filters import ChiefJudge, answer_refusal
from seating import Plan

log = logging.getLogger(__name__)
router = Router(name="seating")

GROUP_TYPES = frozenset({"group", "supergroup"})
PICKER_LIMIT = 30
TABLE_BUTTONS = 40  # tables offered at most (400 players)
BUTTONS_A_ROW = 5
NAMES_LISTED = 40  # players whose seats changed, named at most
PREVIEW_MIN = 200  # room below which a message goes without its preview


class SeatingPick(CallbackData, prefix="sp"):
    """A chief judge of several tournaments picks the one to seat."""

    tournament_id: RowId


class SeatingStart(CallbackData, prefix="sn"):
    """Make a new plan, or re-plan the remaining rounds, over an accepted one."""

    tournament_id: RowId


class SeatingTables(CallbackData, prefix="st"):
    """Generate a plan with this many tables."""

    tournament_id: RowId
    tables: Small


OfferVerb = Literal["regen", "accept", "cancel", "fresh", "keep"]


class SeatingOffer(CallbackData, prefix="so"):
    """A button of an offered plan: ``regen``, ``accept`` or ``cancel``."""

    action: OfferVerb
    tournament_id: RowId
    plan_id: RowId


# -- handlers -------------------------------------------------------------------------------


@router.message(Command("seating"), F.chat.type == "private")
async def seating_command(message: Message, db: Database) -> None:
    user = message.from_user
    assert user is not None  # the identity middleware lets only real senders through
    chosen = await service.chief_tournaments(db, user.id)
    if not chosen:
        await message.answer(_("Only a chief judge makes a seating plan, and you are not the "
                               "chief judge of any unfinished tournament."))
        return
    if len(chosen) > 1:
        question = _("Which tournament do you want to seat?")
        await message.answer(question, reply_markup=_picker(chosen))
        return
    found = await service.overview(db, chosen[0].id, user.id)
    text, markup = _overview_reply(found)
    await message.answer(text, reply_markup=markup)


# Every seating button is the chief judge's of the tournament it names; a finished
# tournament's button gets the service's own answer.
SeatingChief = ChiefJudge(finished=True, refusal=service.ONLY_CHIEF)


@router.callback_query(SeatingPick.filter(), SeatingChief)
async def seating_picked(callback: CallbackQuery, callback_data: SeatingPick, db: Database) -> None:
    found = await service.overview(db, callback_data.tournament_id, callback.from_user.id)
    if await _refused(callback, found):
        return
    await callback.answer()
    await _show(callback, *_overview_reply(found))


@router.callback_query(SeatingStart.filter(), SeatingChief)
async def seating_start(callback: CallbackQuery, callback_data: SeatingStart, db: Database) -> None:
    found = await service.overview(db, callback_data.tournament_id, callback.from_user.id)
    if await _refused(callback, found.problem if isinstance(found, Overview) else found):
        return
    assert isinstance(found, Overview)
    await callback.answer()
    await _show(callback, _tables_question(found), _tables_markup(found))


@router.callback_query(SeatingTables.filter(), SeatingChief)
async def tables_chosen(
    callback: CallbackQuery, callback_data: SeatingTables, db: Database
) -> None:
    prepared = await service.prepare_offer(
        db, callback_data.tournament_id, callback.from_user.id, callback_data.tables
    )
    if await _refused(callback, prepared):
        return
    assert isinstance(prepared, Prepared)
    await _generate(callback, db, prepared)


@router.callback_query(SeatingOffer.filter(F.action == "regen"), SeatingChief)
async def regenerate_tapped(
    callback: CallbackQuery, callback_data: SeatingOffer, db: Database
) -> None:
    prepared = await service.prepare_regeneration(
        db, callback_data.tournament_id, callback_data.plan_id, callback.from_user.id
    )
    if await _refused(callback, prepared):
        return
    assert isinstance(prepared, Prepared)
    await _generate(callback, db, prepared)


@router.callback_query(SeatingOffer.filter(F.action.in_({"fresh", "keep"})), SeatingChief)
async def other_way_tapped(
    callback: CallbackQuery, callback_data: SeatingOffer, db: Database
) -> None:
    """A re-plan the other way: a fresh plan, or the accepted plan kept."""
    prepared = await service.prepare_other_way(
        db, callback_data.tournament_id, callback_data.plan_id, callback.from_user.id,
        fresh=callback_data.action == "fresh",
    )
    if await _refused(callback, prepared):
        return
    assert isinstance(prepared, Prepared)
    await _generate(callback, db, prepared)


@router.callback_query(SeatingOffer.filter(F.action == "accept"), SeatingChief)
async def accept_tapped(
    callback: CallbackQuery, callback_data: SeatingOffer, db: Database, bot: Bot,
    publisher: Publisher,
) -> None:
    accepted = await service.accept(
        db,
        callback_data.tournament_id,
        callback_data.plan_id,
        callback.from_user.id,
    )
    if await _refused(callback, accepted):
        return
    assert isinstance(accepted, PlanView)
    await callback.answer(_("Accepted."))
    await _show(callback, _accepted_text(accepted), None)
    await run_follow_up(bot, accepted.follow_up, publisher)  # the seating the accept enqueued


@router.callback_query(SeatingOffer.filter(F.action == "cancel"), SeatingChief)
async def cancel_tapped(callback: CallbackQuery, callback_data: SeatingOffer, db: Database) -> None:
    kept = await service.cancel(
        db, callback_data.tournament_id, callback_data.plan_id, callback.from_user.id
    )
    if await _refused(callback, kept):
        return
    await callback.answer()
    await _show(
        callback,
        _("Cancelled: this plan was not saved. The accepted plan stays as it was.")
        if kept is not None
        else _("Cancelled: this plan was not saved."),
        None,
    )


async def _generate(callback: CallbackQuery, db: Database, prepared: Prepared) -> None:
    """Tell the chief judge it is being made, make it, show it."""
    await callback.answer(_("Generating…"))
    await _show(callback, _generating(prepared.request.tables), None)
    made = await service.make_offer(db, prepared)
    await _show(callback, *_offer_reply(made))


# -- rendering ---------------------------------------------------------------------------------


async def _refused(callback: CallbackQuery, result: object) -> bool:
    """Answer the button with the refusal, if it is one: a stale button changes nothing."""
    if not isinstance(result, Refusal):
        return False
    await answer_refusal(callback, result)
    return True


def _refusal_html(refusal: Refusal) -> str:
    """A refusal in a message: its parameters (nicknames, the generator's words) are
    plain text."""
    return html_text(say(refusal))


async def _show(callback: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None) -> None:
    """The message the button is on becomes ``text`` (a new message if it can't)."""
    message = callback.message
    if isinstance(message, Message):
        try:
            await message.edit_text(text, reply_markup=markup)
            return
        except TelegramBadRequest as exc:
            if "not modified" in str(exc):  # it shows this already
                return
            log.debug("seating message not edited: %s", exc)
        except TelegramAPIError as exc:  # gone or too old: a new message instead
            log.debug("seating message not edited: %s", exc)
    if callback.bot is not None:
        await callback.bot.send_message(callback.from_user.id, text, reply_markup=markup)


def _picker(rows: Sequence[TournamentRow]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=t.title[:60], callback_data=SeatingPick(tournament_id=t.id).pack()
                )
            ]
            for t in rows[:PICKER_LIMIT]
        ]
    )


def _title(tournament: TournamentRow) -> str:
    return "«" + html_text(tournament.title) + "»"


def _rounds_label(rounds: Sequence[int]) -> str:
    """1, 2, 3, 5 → "1–3, 5"."""
    parts: list[str] = []
    ordered = sorted(rounds)
    start = 0
    for n in range(1, len(ordered) + 1):
        if n == len(ordered) or ordered[n] != ordered[n - 1] + 1:
            first, last = ordered[start], ordered[n - 1]
            parts.append(str(first) if first == last else f"{first}–{last}")
            start = n
    return ", ".join(parts)


def _header(tournament: TournamentRow, players: int, games: int, stage: str | None) -> str:
    if stage is None:
        return "\n".join(
            [
                _("🪑 <b>Seating plan</b> for {title}").format(title=_title(tournament)),
                _("Confirmed players: {players}; games per player: {games}.").format(
                    players=players, games=games
                ),
            ]
        )
    return "\n".join(  # the current stage's plan (D13): its entrants, its games (D14)
        [
            _("🪑 <b>Seating plan</b> of the {stage} stage of {title}").format(
                stage=html_text(stage_name(stage)), title=_title(tournament)
            ),
            _("Players of the stage: {players}; games per player in it: {games}.").format(
                players=players, games=games
            ),
        ]
    )


def _played_line(played: Sequence[int]) -> str:
    return _("Played rounds are kept as played: {rounds}.").format(rounds=_rounds_label(played))


def _overview_reply(found: Overview | Refusal) -> tuple[str, InlineKeyboardMarkup | None]:
    if isinstance(found, Refusal):
        return _refusal_html(found), None
    if found.accepted is None:
        return _tables_question(found), _tables_markup(found)
    accepted = found.accepted
    left = [r.round for r in accepted.plan.rounds if r.round not in found.played]
    shown = vacated(accepted.plan, left, found.withdrawn, substitute_for)
    lines = [
        _header(found.tournament, found.players, found.games, found.stage),
        _accepted_line(accepted),
    ]
    if found.played:
        lines.append(_played_line(found.played))
    lines += ["", quality_text(accepted.plan, accepted.row.seed)]
    if not left:
        lines.append(_("Every round of it was played."))
        return _fit(lines, accepted.plan, []), None
    if found.problem is not None:  # the plan stands; what to do before re-planning it
        lines += ["", "⚠ " + _refusal_html(found.problem)]
        return _fit(lines, shown, left), None
    label = _("🔁 Re-plan the remaining rounds") if found.played else _("🆕 Make a new plan")
    button = InlineKeyboardButton(
        text=label, callback_data=SeatingStart(tournament_id=found.tournament.id).pack()
    )
    return _fit(lines, shown, left), InlineKeyboardMarkup(inline_keyboard=[[button]])


def _accepted_line(accepted: StoredPlan) -> str:
    rounds = len(accepted.plan.rounds)
    return _(
        "The accepted plan: {rounds} round, tables at once: {tables}.",
        "The accepted plan: {rounds} rounds, tables at once: {tables}.",
        rounds,
    ).format(rounds=rounds, tables=accepted.tables)


def _tables_question(found: Overview) -> str:
    lines = [_header(found.tournament, found.players, found.games, found.stage)]
    if found.played:
        lines.append(_played_line(found.played))
    lines.append(
        _("How many tables play at once? {most} at most; ✓ marks the suggested number.").format(
            most=found.most_tables
        )
    )
    return "\n".join(lines)


def _tables_markup(found: Overview) -> InlineKeyboardMarkup:
    options = range(1, min(found.most_tables, TABLE_BUTTONS) + 1)
    buttons = [
        InlineKeyboardButton(
            text=f"{n} ✓" if n == found.default_tables else str(n),
            callback_data=SeatingTables(tournament_id=found.tournament.id, tables=n).pack(),
        )
        for n in options
    ]
    rows = [buttons[i : i + BUTTONS_A_ROW] for i in range(0, len(buttons), BUTTONS_A_ROW)]
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _generating(tables: int) -> str:
    return _(
        "⏳ Generating a seating plan for {tables} table…",
        "⏳ Generating a seating plan for {tables} tables…",
        tables,
    ).format(tables=tables)


def _offer_lines(view: PlanView, *, offered: bool = True) -> list[str]:
    """The plan's figures and what it changes; ``offered``: with the ways a re-plan can go."""
    rounds = len(view.plan.rounds)
    lines = [
        _header(view.tournament, _players_of(view), view.games, view.stage),
        _(
            "{rounds} round, tables at once: {tables}.",
            "{rounds} rounds, tables at once: {tables}.",
            rounds,
        ).format(rounds=rounds, tables=view.tables),
    ]
    if view.played:
        lines.append(_played_line(view.played))
    lines += ["", quality_text(view.plan, view.seed)]
    if offered:
        lines += _ways_lines(view)
    return lines + _players_lines(view)


def _players_lines(view: PlanView) -> list[str]:
    """Whom the plan affects: players with a game fewer, withdrawn players whose seats
    substitutes play, players whose seats change."""
    lines: list[str] = []
    if view.fewer:
        names = ", ".join(html_text(n) for n in view.fewer[:NAMES_LISTED])
        lines += [
            "",
            _(
                "{players} plays fewer games: a withdrawn substitute played his planned seat.",
                "{players} play fewer games: withdrawn substitutes played their planned seats.",
                len(view.fewer),
            ).format(players=names),
        ]
    if view.vacant:
        names = ", ".join(html_text(n) for n in view.vacant[:NAMES_LISTED])
        lines += [
            "",
            _(
                "{players} is withdrawn, but without his games left the others' don't fill "
                "whole tables: substitutes play his seats.",
                "{players} are withdrawn, but without their games left the others' don't fill "
                "whole tables: substitutes play their seats.",
                len(view.vacant),
            ).format(players=names),
        ]
    if view.changed:
        shown = ", ".join(html_text(n) for n in view.changed[:NAMES_LISTED])
        if len(view.changed) > NAMES_LISTED:
            shown += ", …"
        lines += [
            "",
            _(
                "Seats change for {count} player: {players}. Tell them their new seats.",
                "Seats change for {count} players: {players}. Tell them their new seats.",
                len(view.changed),
            ).format(count=len(view.changed), players=shown),
        ]
    elif view.replaces and view.planned:
        lines += ["", _("Nobody's seats in the rounds left change.")]
    return lines


def _ways_lines(view: PlanView) -> list[str]:
    """Over an accepted plan: which way this re-plan goes, and what the other would move."""
    if not view.replaces:
        return []
    others = view.other_moves
    if view.kept and others is not None and view.fresh_not_fairer:
        line = _(
            "The accepted plan is kept, changed only where it must: a fresh plan would move "
            "{count} player and be less fair.",
            "The accepted plan is kept, changed only where it must: a fresh plan would move "
            "{count} players and be less fair.",
            others,
        ).format(count=others)
    elif view.kept and others is not None:
        line = _(
            "The accepted plan is kept, changed only where it must; a fresh plan would move "
            "{count} player.",
            "The accepted plan is kept, changed only where it must; a fresh plan would move "
            "{count} players.",
            others,
        ).format(count=others)
    elif view.kept:
        line = _("The accepted plan is kept, changed only where it must.")
    elif others is not None:
        line = _(
            "A fresh plan; keeping the accepted plan would move {count} player.",
            "A fresh plan; keeping the accepted plan would move {count} players.",
            others,
        ).format(count=others)
    else:
        line = _(
            "A fresh plan: the accepted plan can't be kept (its tables or rounds no longer fit, "
            "or the freed seats can't be filled)."
        )
    return ["", line]


def _players_of(view: PlanView) -> int:
    names = {n for r in view.plan.rounds for t in r.tables for n in t.seats}
    names.update(n for r in view.plan.rounds for n in r.sitting_out)
    return len(names - {*view.withdrawn, *view.vacant})  # who plays on, as /seating counts


def _offer_reply(made: PlanView | Refusal) -> tuple[str, InlineKeyboardMarkup | None]:
    if isinstance(made, Refusal):
        return _refusal_html(made), None
    lines = _offer_lines(made)
    if made.replaces:
        lines.append(_("Accepting it replaces the accepted plan."))

    def button(text: str, action: OfferVerb) -> InlineKeyboardButton:
        data = SeatingOffer(action=action, tournament_id=made.tournament.id, plan_id=made.plan_id)
        return InlineKeyboardButton(text=text, callback_data=data.pack())

    first = [button(_("✅ Accept"), "accept")]
    last = [button(_("✖ Cancel"), "cancel")]
    if made.kept and made.other_moves is not None and not made.fresh_not_fairer:
        last.insert(0, button(_("🆕 Fresh plan"), "fresh"))
    elif not made.kept or made.fresh_not_fairer:  # another seed may be fairer
        first.insert(0, button(_("🔄 Regenerate"), "regen"))
    if not made.kept and made.other_moves is not None:
        last.insert(0, button(_("↩ Keep the accepted plan"), "keep"))
    markup = InlineKeyboardMarkup(inline_keyboard=[first, last])
    return _fit(lines, made.plan, made.planned), markup


def _accepted_text(view: PlanView) -> str:
    lines = [_("✅ The seating plan is accepted."), *_offer_lines(view, offered=False)]
    lines += ["", _("/seating shows it again.")]
    return _fit(lines, view.plan, view.planned)


def _fit(lines: list[str], plan: Plan, rounds: Sequence[int]) -> str:
    """``lines``, then as much of a preview of ``rounds`` as fits in one message."""
    text = "\n".join(lines)
    room = MESSAGE_LIMIT - utf16_len(text) - 2
    if rounds and room >= PREVIEW_MIN:
        text += "\n\n" + plan_preview(plan, rounds, room)
    return text
