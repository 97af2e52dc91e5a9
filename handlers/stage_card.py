"""The /stages cards and their buttons (docs/rules.md D13-D17).

The stages card lists the tournament's stages: a preset's button adds the next one, ⚙
opens a stage's settings card. There each setting changes in a tap or two, the message
edited in place: games a player and entrants from a few values around the current one,
carry and weight from the usual ones, compensation and hidden by a tap. A tap goes
through the same use case as a typed ``/stages set`` (``bot.services.stages``), so it
is refused alike, with the reason, and changes nothing once the stage's first game is
saved.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Annotated, Literal

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from aiogram.utils.i18n import ngettext
from babel.support import LazyProxy
from pydantic import Field

from bot.publishing import Publisher
from bot.publishing.notices import run_follow_up
from bot.services import N_, Refusal
from bot.services import stages as service
from bot.services.records import Database, StageRow, TournamentRow
from bot.services.refusals import OUT_OF_DATE
from bot.services.stage_settings import WHOLE_MAX
from bot.texts.markup import html_text
from bot.texts.phrases import say
from bot.texts.rating_format import decimal_point
from bot.texts.standings_text import stage_name
from handlers.callbacks import Code, RowId
from handlers.filters import ChiefJudge, answer_refusal

log = logging.getLogger(__name__)
router = Router(name="stage_card")

SETS_STAGES = Refusal(N_("Only the tournament's chief judge sets its stages."))
MAX_STAGES = 99  # a stage number: bounded before it reaches a query

Setting = Literal["", "games", "entrants", "carry", "weight", "compensation", "hidden"]
StageNumber = Annotated[int, Field(ge=1, le=MAX_STAGES)]
# A setting's value as a button sends it: a whole number, a decimal, on or off.
Value = Annotated[str, Field(max_length=8, pattern=r"^([0-9.]*|on|off)$")]


class StageAdd(CallbackData, prefix="sg"):
    tournament_id: RowId
    preset: Code  # a key of service.PRESETS


class StagesView(CallbackData, prefix="sv"):
    """Back to the stages card (the settings card's Done)."""

    tournament_id: RowId


class StageEdit(CallbackData, prefix="se"):
    """A stage's settings card: no setting, the card; a setting, its values; a setting
    and a value, that value set."""

    tournament_id: RowId
    number: StageNumber
    setting: Setting = ""
    value: Value = ""


LABELS: dict[str, LazyProxy] = {
    "games": __("Games a player"),
    "entrants": __("Entrants"),
    "carry": __("Carry"),
    "weight": __("Weight"),
    "compensation": __("Compensation"),
    "hidden": __("Hidden"),
}
# What a setting means, above its values.
MEANINGS: dict[str, LazyProxy] = {
    "games": __("Games a player: how many games each entrant plays in this stage."),
    "entrants": __("Entrants: how many of the best players of the stage before play this one."),
    "carry": __(
        "Carry: the share of his figures from the stage before that each entrant brings "
        "(0: all start afresh, 1: all of them)."
    ),
    "weight": __("Weight: what the points of this stage's own games are multiplied by."),
}
CARRIES = ("0", "0.25", "0.5", "0.75", "1")
WEIGHTS = ("0.5", "1", "1.5", "2")
ROW = 5  # value buttons in a row


def factor(value: str) -> str:
    """A stored decimal (``0.5``) as its reader writes it (``0,5`` in Russian)."""
    return value.replace(".", decimal_point())


def games_a_player(games: int) -> str:
    return ngettext("{games} game a player", "{games} games a player", games).format(
        games=games
    )


def stage_line(row: StageRow) -> str:
    """One stage as the chief judge reads it."""
    parts = [
        games_a_player(row.games_per_player),
        _("all players")
        if row.entrants is None
        else _("top {entrants}").format(entrants=row.entrants),
    ]
    if row.entrants is not None:
        parts.append(
            _("carry {carry}, weight {weight}").format(
                carry=factor(row.carry), weight=factor(row.weight)
            )
        )
    if not row.compensation:
        parts.append(_("no compensation"))
    if row.hidden:
        parts.append(_("hidden"))
    status = {"planned": _("planned"), "running": _("running"), "closed": _("closed")}
    return "{number}. <b>{name}</b>: {parts} · {status}".format(
        number=row.number,
        name=html_text(stage_name(row.name)),
        parts=", ".join(parts),
        status=status[row.status],
    )


def _stage_lines(tournament: TournamentRow, rows: Sequence[StageRow]) -> list[str]:
    lines = [_("<b>{title}</b>: stages").format(title=html_text(tournament.title))]
    if rows:
        return lines + [stage_line(row) for row in rows]
    return [
        *lines,
        _("One stage: {games}, all players.").format(games=games_a_player(tournament.distance)),
    ]


def _button(text: str, data: CallbackData) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def overview(
    tournament: TournamentRow, rows: Sequence[StageRow], changeable: Iterable[StageRow] = ()
) -> tuple[str, InlineKeyboardMarkup]:
    """The tournament's stages, the presets' buttons and ⚙ for each stage that may still
    change."""
    lines = _stage_lines(tournament, rows)
    lines.append(
        _(
            "Add the next stage with a button, then set it on its card; or type:\n"
            "<code>/stages add NAME games=2 entrants=20 carry=0.5 weight=1 "
            "compensation=off hidden=on</code>\n"
            "A stage's settings can change until its first game is saved: ⚙ below, or "
            "<code>/stages set NUMBER carry=0.5</code>"
        )
    )
    titles = {
        "semi20": _("Semifinal: 2 games, top 20"),
        "final2": _("Final: 2 games, one table"),
        "final4": _("Final: 4 games, one table"),
    }
    keyboard = [
        [_button(titles[key], StageAdd(tournament_id=tournament.id, preset=key))]
        for key in service.PRESETS
    ]
    keyboard += [
        [
            _button(
                f"⚙ {row.number}. {stage_name(row.name)}",
                StageEdit(tournament_id=tournament.id, number=row.number),
            )
        ]
        for row in changeable
    ]
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=keyboard)


def _shown(row: StageRow, setting: str) -> str:
    """A setting's value as its reader writes it."""
    if setting == "games":
        return str(row.games_per_player)
    if setting == "entrants":
        return str(row.entrants)
    if setting in ("carry", "weight"):
        return factor(row.carry if setting == "carry" else row.weight)
    on = row.compensation if setting == "compensation" else row.hidden
    return _("yes") if on else _("no")


def _settings_of(row: StageRow) -> tuple[Setting, ...]:
    """The settings a stage's card offers: the first stage takes all players and brings
    nothing from before (D13)."""
    if row.entrants is None:
        return ("games", "weight", "compensation", "hidden")
    return ("games", "entrants", "carry", "weight", "compensation", "hidden")


def _card_lines(tournament: TournamentRow, found: service.Settable) -> list[str]:
    row = found.stage
    lines = [*_stage_lines(tournament, found.rows), ""]
    head = _("⚙ Stage {number}, <b>{name}</b>").format(
        number=row.number, name=html_text(stage_name(row.name))
    )
    if found.fixed is not None:
        return [*lines, head + ": " + say(found.fixed)]
    lines.append(
        head
        + ": "
        + _(
            "tap a setting to change it. The settings can change until the stage's first "
            "game is saved."
        )
    )
    lines.append(
        _(
            "Compensation: points for a red player shot on night 1 whose team lost (8.6). "
            "Hidden: the group and the players see the games played only, until the stage "
            "ends."
        )
    )
    return lines


def settings_card(
    tournament: TournamentRow, found: service.Settable
) -> tuple[str, InlineKeyboardMarkup]:
    """A stage's settings card: each setting with its value, a tap to change it."""
    row = found.stage
    done = _button("✅ " + _("Done"), StagesView(tournament_id=tournament.id))
    if found.fixed is not None:
        return "\n".join(_card_lines(tournament, found)), InlineKeyboardMarkup(
            inline_keyboard=[[done]]
        )
    buttons = []
    for setting in _settings_of(row):
        value = ""
        if setting in ("compensation", "hidden"):  # a tap switches it
            on = row.compensation if setting == "compensation" else row.hidden
            value = "off" if on else "on"
        text = f"{LABELS[setting]}: {_shown(row, setting)}"
        edit = StageEdit(
            tournament_id=tournament.id, number=row.number, setting=setting, value=value
        )
        buttons.append(_button(text, edit))
    keyboard = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    keyboard.append([done])
    return "\n".join(_card_lines(tournament, found)), InlineKeyboardMarkup(
        inline_keyboard=keyboard
    )


def _offered(found: service.Settable, setting: str) -> list[str]:
    """The values a setting's buttons offer: the usual ones and the current one's
    neighbours, within what the stage may take."""
    row = found.stage
    if setting == "carry":
        return list(CARRIES)
    if setting == "weight":
        return list(WEIGHTS)
    if setting == "games":
        now, low, high = row.games_per_player, 1, WHOLE_MAX
        usual = {1, 2, 3, 4, 5, 6, 8, 10}
    else:
        now, (low, high) = row.entrants or 1, found.entrants
        usual = {10, 20, 30, high}
    near = {now - 10, now - 1, now, now + 1, now + 10}
    return [str(n) for n in sorted((usual | near) & set(range(low, high + 1)))]


def _current(row: StageRow, setting: str) -> Decimal:
    if setting == "games":
        return Decimal(row.games_per_player)
    if setting == "entrants":
        return Decimal(row.entrants or 0)
    return Decimal(row.carry if setting == "carry" else row.weight)


def choices(
    tournament: TournamentRow, found: service.Settable, setting: Setting
) -> tuple[str, InlineKeyboardMarkup]:
    """A setting's values to pick from, the current one marked."""
    row = found.stage
    current = _current(row, setting)
    buttons = []
    for value in _offered(found, setting):
        text = factor(value) + (" ✓" if Decimal(value) == current else "")
        edit = StageEdit(
            tournament_id=tournament.id, number=row.number, setting=setting, value=value
        )
        buttons.append(_button(text, edit))
    keyboard = [buttons[i : i + ROW] for i in range(0, len(buttons), ROW)]
    back = StageEdit(tournament_id=tournament.id, number=row.number)
    keyboard.append([_button("◀ " + _("Back"), back)])
    lines = [*_stage_lines(tournament, found.rows), "", str(MEANINGS[setting])]
    lines.append(
        _("Stage {number}, <b>{name}</b>: pick a value.").format(
            number=row.number, name=html_text(stage_name(row.name))
        )
    )
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=keyboard)


async def show(
    callback: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    """The message the button is on becomes ``text`` (a new message if it can't)."""
    message = callback.message
    if isinstance(message, Message):
        try:
            await message.edit_text(text, reply_markup=markup)
            return
        except TelegramBadRequest as exc:
            if "not modified" in str(exc):  # it shows this already (a double tap)
                return
            log.debug("stages card not edited: %s", exc)
        except TelegramAPIError as exc:  # gone or too old: a new message instead
            log.debug("stages card not edited: %s", exc)
    if callback.bot is not None:
        chat = message.chat.id if message is not None else callback.from_user.id
        await callback.bot.send_message(chat, text, reply_markup=markup)


async def overview_of(db: Database, tournament: TournamentRow) -> tuple[str, InlineKeyboardMarkup]:
    rows = await service.stages_of(db, tournament)
    return overview(tournament, rows, await service.changeable(db, tournament))


@router.callback_query(StageAdd.filter(), ChiefJudge(refusal=SETS_STAGES))
async def stage_preset(
    callback: CallbackQuery,
    callback_data: StageAdd,
    tournament: TournamentRow,
    db: Database,
    publisher: Publisher,
    bot: Bot,
) -> None:
    """A preset adds the next stage; the card becomes the new stage's settings."""
    spec = service.PRESETS.get(callback_data.preset)
    if spec is None:
        await callback.answer(say(OUT_OF_DATE))
        return
    done = await service.add_stage(db, publisher, tournament, spec, callback.from_user.id)
    if isinstance(done, Refusal):
        await answer_refusal(callback, replace(done, alert=True))
        return
    await callback.answer()
    found = await service.settable(db, tournament, done.stage.number)
    if not isinstance(found, Refusal):
        await show(callback, *settings_card(tournament, found))
    await run_follow_up(bot, done.follow_up, publisher)


@router.callback_query(StagesView.filter(), ChiefJudge(refusal=SETS_STAGES))
async def stages_view(callback: CallbackQuery, tournament: TournamentRow, db: Database) -> None:
    await callback.answer()
    await show(callback, *await overview_of(db, tournament))


@router.callback_query(StageEdit.filter(), ChiefJudge(refusal=SETS_STAGES))
async def stage_edit(
    callback: CallbackQuery,
    callback_data: StageEdit,
    tournament: TournamentRow,
    db: Database,
    publisher: Publisher,
    bot: Bot,
) -> None:
    number, setting = callback_data.number, callback_data.setting
    found = await service.settable(db, tournament, number)
    if isinstance(found, Refusal):  # the stage is gone
        await answer_refusal(callback, replace(found, alert=True))
        await show(callback, *await overview_of(db, tournament))
        return
    if setting and found.fixed is not None:  # a stale card: its first game is saved
        await answer_refusal(callback, replace(found.fixed, alert=True))
        await show(callback, *settings_card(tournament, found))
        return
    if not setting:
        await callback.answer()
        await show(callback, *settings_card(tournament, found))
        return
    if not callback_data.value:
        await callback.answer()
        if setting in MEANINGS:
            await show(callback, *choices(tournament, found, setting))
        else:  # a switch always carries its value: an old card's
            await show(callback, *settings_card(tournament, found))
        return
    changed = await service.change_stage(
        db, publisher, tournament, number, {setting: callback_data.value}, callback.from_user.id
    )
    if isinstance(changed, Refusal):
        await answer_refusal(callback, replace(changed, alert=True))
    else:
        await callback.answer()
    found = await service.settable(db, tournament, number)
    if not isinstance(found, Refusal):
        await show(callback, *settings_card(tournament, found))
    if not isinstance(changed, Refusal):
        await run_follow_up(bot, changed.follow_up, publisher)
