"""/stages (docs/rules.md D13-D17): the chief judge sees the tournament's stages, adds the
next one (a preset's button, or typed values), changes a stage until its first game is
saved (the stage's settings card, ``handlers.stage_card``, or typed values), closes the
current one and replaces an entrant who withdrew (``bot.services.stages``).

    /stages                         the stages, the presets' buttons, ⚙ for each stage
    /stages add NAME games=N entrants=N [carry=0.5] [weight=1] [compensation=off] [hidden=on]
    /stages set NUMBER SETTING=VALUE ...
    /stages close                   who enters the next stage (D13), and a button to close
    /stages replace NICKNAME        the next one takes a withdrawn entrant's place (D13)

The words may be Russian too (``/stages добавить финал игр=2 участников=10 перенос=0,5
скрыт=да``): ``bot.services.stage_settings`` reads the settings.
"""

from __future__ import annotations

from dataclasses import replace

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.publishing import Publisher
from bot.publishing.notices import run_follow_up
from bot.reads.standings import StandingsService
from bot.services import N_, Refusal
from bot.services import stages as service
from bot.services.records import Database, StageSpec, TournamentRow
from bot.services.stage_settings import apply_settings, setting_of
from bot.texts.markup import html_text
from bot.texts.phrases import say
from bot.texts.standings_text import ask_in_private, stage_name
from handlers.callbacks import RowId
from handlers.chats import is_group
from handlers.filters import ChiefJudge, ChiefTournaments, answer_refusal
from handlers.stage_card import (
    MAX_STAGES,
    SETS_STAGES,
    overview_of,
    settings_card,
)

router = Router(name="stages")

# The verbs of /stages, as typed in English or in Russian.
VERBS = {
    "add": "add",
    "добавить": "add",
    "set": "set",
    "изменить": "set",
    "close": "close",
    "закрыть": "close",
    "replace": "replace",
    "заменить": "replace",
}


class StageClose(CallbackData, prefix="sc"):
    tournament_id: RowId
    number: RowId  # the stage to close: the current one when the card was sent


def _settings(words: list[str]) -> dict[str, str] | None:
    """``key=value`` words as a dict; None if a word is not one."""
    found: dict[str, str] = {}
    for word in words:
        key, sign, value = word.partition("=")
        if not sign or not key or not value:
            return None
        found[key.lower()] = value
    return found


USAGE = N_(
    "Send /stages to see the stages and set them with buttons; or type "
    "<code>/stages add NAME games=N entrants=N</code> (also carry=, weight=, "
    "compensation=on|off, hidden=on|off) to add the next one; "
    "<code>/stages set NUMBER SETTING=VALUE</code> to change one; "
    "<code>/stages close</code> to close the current one; "
    "<code>/stages replace NICKNAME</code> for an entrant who withdrew."
)


@router.message(Command("stages"), ChiefTournaments(SETS_STAGES, finished=False))
async def stages_command(
    message: Message,
    command: CommandObject,
    tournaments: list[TournamentRow],
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    bot: Bot,
) -> None:
    user = message.from_user
    assert user is not None  # the identity middleware lets only real senders through
    words = (command.args or "").split()
    if not words:
        for tournament in tournaments:
            text, markup = await overview_of(db, tournament)
            await message.answer(text, reply_markup=markup)
        return
    if len(tournaments) > 1:
        await message.answer(
            _("You are the chief judge of several tournaments: send this in its group.")
        )
        return
    tournament = tournaments[0]
    verb = VERBS.get(words[0].lower())
    if verb == "close" and len(words) == 1:
        await _close_card(message, db, standings, tournament)
        return
    if verb == "replace" and len(words) >= 2:
        nickname = (command.args or "").split(maxsplit=1)[1].strip()  # may hold spaces
        await _replace(message, bot, db, standings, publisher, tournament, nickname)
        return
    done = await _add_or_set(verb, words, db, publisher, tournament, user.id)
    if done is None:
        await message.answer(_(USAGE))
    elif isinstance(done, Refusal):
        await message.answer(say(done))
    else:
        found = await service.settable(db, tournament, done.stage.number)
        if not isinstance(found, Refusal):
            text, markup = settings_card(tournament, found)
            await message.answer(text, reply_markup=markup)
        await run_follow_up(bot, done.follow_up, publisher)


async def _add_or_set(
    verb: str | None,
    words: list[str],
    db: Database,
    publisher: Publisher,
    tournament: TournamentRow,
    actor: int,
) -> service.Changed | Refusal | None:
    """``/stages add NAME …`` or ``/stages set NUMBER …``; None: neither, as typed."""
    settings = _settings(words[2:])
    if verb == "add" and len(words) >= 2 and settings is not None:
        named = {setting_of(word) for word in settings}
        if "games" not in named or "entrants" not in named:
            return Refusal(N_("A new stage needs games=N and entrants=N."))
        spec = apply_settings(StageSpec(words[1], 1, None), settings)
        if isinstance(spec, Refusal):
            return spec
        return await service.add_stage(db, publisher, tournament, spec, actor)
    number = words[1] if len(words) >= 3 else ""
    typed = number.isascii() and number.isdigit() and len(number) <= len(str(MAX_STAGES))
    if verb == "set" and typed and settings:
        return await service.change_stage(db, publisher, tournament, int(number), settings, actor)
    return None


async def _replace(
    message: Message,
    bot: Bot,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    tournament: TournamentRow,
    nickname: str,
) -> None:
    assert message.from_user is not None
    replaced = await service.replace_entrant(
        db, standings, publisher, tournament, nickname, message.from_user.id
    )
    if isinstance(replaced, Refusal):
        await message.answer(say(replaced))
        return
    await message.answer(
        _("{into} takes the place of {out}; recorded.").format(
            into=html_text(replaced.into), out=html_text(replaced.out)
        )
    )
    await run_follow_up(bot, replaced.follow_up, publisher)


async def _close_card(
    message: Message, db: Database, standings: StandingsService, tournament: TournamentRow
) -> None:
    """Who enters the next stage (D13), and the button that closes the current one."""
    preview = await service.close_preview(db, standings, tournament)
    if isinstance(preview, Refusal):
        await message.answer(say(preview))
        return
    if is_group(message) and preview.current.hides_figures:  # the cut tells the order (D17)
        await message.answer(ask_in_private(preview.current.name, "/stages close"))
        return
    names = ", ".join(html_text(name) for name in preview.entrants)
    lines = [
        _("<b>{title}</b>: closing the {stage} stage.").format(
            title=html_text(tournament.title),
            stage=html_text(stage_name(preview.current.name)),
        ),
        _("Entering the {stage} stage ({count}): {players}.").format(
            stage=html_text(stage_name(preview.following.name)),
            count=len(preview.entrants),
            players=names,
        ),
    ]
    markup = None
    if preview.tied:
        tied = ", ".join(html_text(name) for name in preview.tied)
        lines.append(
            _(
                "{players} share the place across the cut: draw their lot with /lot first (8.7.5)."
            ).format(players=tied)
        )
    else:
        data = StageClose(tournament_id=tournament.id, number=preview.current.number)
        button = InlineKeyboardButton(text=_("Close the stage"), callback_data=data.pack())
        markup = InlineKeyboardMarkup(inline_keyboard=[[button]])
    await message.answer("\n".join(lines), reply_markup=markup)


@router.callback_query(StageClose.filter(), ChiefJudge(refusal=SETS_STAGES))
async def stage_close(
    callback: CallbackQuery,
    callback_data: StageClose,
    tournament: TournamentRow,
    db: Database,
    standings: StandingsService,
    publisher: Publisher,
    bot: Bot,
) -> None:
    closed = await service.close_stage(
        db, standings, publisher, tournament, callback_data.number, callback.from_user.id
    )
    if isinstance(closed, Refusal):
        await answer_refusal(callback, replace(closed, alert=True))
        return
    await callback.answer()
    if isinstance(callback.message, Message):
        await callback.message.edit_reply_markup(reply_markup=None)
        await callback.message.answer(
            _("The {stage} stage is closed; its entrants are told.").format(
                stage=html_text(stage_name(closed.preview.current.name))
            )
        )
    await run_follow_up(bot, closed.follow_up, publisher)
