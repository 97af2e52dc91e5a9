"""Protests (8.8): /protest and its conversation (which game, the reason), /protests
and the chief judge's Uphold / Reject with the decision text. The use cases are in
``bot.services.protests``."""

from __future__ import annotations

import logging
from contextlib import suppress
from dataclasses import dataclass, replace

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import (
    CallbackQuery,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)
from aiogram.utils.i18n import gettext as _

from bot.publishing import Publisher
from bot.publishing.notices import run_follow_up
from bot.services import N_, Refusal
from bot.services import protests as service
from bot.services.protests import Choices, Source, game_name
from bot.services.records import Database, GameRecord, ProtestRow, TournamentRow, from_ts, to_ts
from bot.texts.localtime import clock
from bot.texts.phrases import say
from handlers.callbacks import GameMenu, RowId
from handlers.chats import in_private
from handlers.filters import ChiefJudge, ChiefTournaments, answer_refusal

log = logging.getLogger(__name__)
router = Router(name="protests")

NO_TEXT = "-"
MAX_DECISION = 1000
MAX_LISTED = 20


class ProtestForm(StatesGroup):
    game = State()  # several recent games: which one (buttons)
    reason = State()  # the reason, in the next message


class ProtestDecision(StatesGroup):
    text = State()  # the chief judge's decision text, or "-"


class ProtestGame(CallbackData, prefix="pg"):
    game_id: RowId


class ProtestDecide(CallbackData, prefix="pd"):
    protest_id: RowId
    upheld: bool


def decision_keyboard(protest_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=_("✅ Uphold protest"),
                    callback_data=ProtestDecide(protest_id=protest_id, upheld=True).pack(),
                ),
                InlineKeyboardButton(
                    text=_("❌ Reject protest"),
                    callback_data=ProtestDecide(protest_id=protest_id, upheld=False).pack(),
                ),
            ]
        ]
    )


def busy_text() -> str:
    return _("Finish the current action first, or send /cancel.")


async def busy_elsewhere(state: FSMContext, mine: type[StatesGroup]) -> bool:
    """Another conversation (e.g. entering a game) is in progress in this chat."""
    current = await state.get_state()
    return current is not None and current not in mine


# -- filing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deps:
    """What filing needs besides the protest itself (aiogram's injected objects)."""

    db: Database
    bot: Bot
    publisher: Publisher


@router.message(Command("protest"))
async def protest_command(
    message: Message,
    command: CommandObject,
    state: FSMContext,
    db: Database,
    bot: Bot,
    publisher: Publisher,
) -> None:
    if await busy_elsewhere(state, ProtestForm):
        await message.answer(busy_text())
        return
    await state.clear()
    assert message.from_user is not None  # the identity middleware: only real senders
    source = Source(
        message.chat.id, message.message_id, message.date, (command.args or "").strip()
    )
    choices = await service.protest_choices(
        db,
        message.from_user.id,
        message.chat.id,
        private=message.chat.type == "private",
        sent=source.sent,
    )
    if isinstance(choices, Refusal):
        await message.reply(say(choices))
        return
    # One game left unprotested is filed against straight away only when he protested
    # none of the window's games: otherwise he may well mean the one he protested (one
    # protest per player and game, 8.8), so he is asked, and told which one that was.
    if len(choices.fresh) == 1 and not choices.already:
        deps = Deps(db, bot, publisher)
        await _game_chosen(choices.fresh[0].game.id, source, message.from_user.id, state, deps)
        return
    await ask_which_game(message, state, source, choices)


async def ask_which_game(
    message: Message, state: FSMContext, source: Source, choices: Choices
) -> None:
    fresh = sorted(choices.fresh, key=lambda p: p.game.ended_at, reverse=True)
    await state.set_state(ProtestForm.game)
    await state.set_data(
        {
            "chat_id": source.chat_id,
            "message_id": source.message_id,
            "sent": to_ts(source.sent),
            "reason": source.reason,
            "games": [p.game.id for p in choices.fresh],
        }
    )
    several = len({p.tournament.id for p in fresh}) > 1
    rows = [
        [
            InlineKeyboardButton(
                text=_("{game}, ended {ended}").format(
                    game=say(game_name(p.game)),
                    ended=clock(p.game.ended_at, p.tournament.timezone, source.sent),
                )
                + (f" · {p.tournament.title}" if several else ""),
                callback_data=ProtestGame(game_id=p.game.id).pack(),
            )
        ]
        for p in fresh
    ]
    question = _("You played several games in the last 10 minutes. Which one do you protest?")
    if choices.already:
        question += "\n" + _("You already protested {games}.").format(
            games="; ".join(say(game_name(item.game)) for item, _own in choices.already)
        )
    await message.reply(question, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


@router.callback_query(ProtestForm.game, ProtestGame.filter())
async def protest_game_chosen(
    callback: CallbackQuery,
    callback_data: ProtestGame,
    state: FSMContext,
    db: Database,
    bot: Bot,
    publisher: Publisher,
) -> None:
    data = await state.get_data()
    if callback_data.game_id not in data.get("games", []):
        await callback.answer(_("This card is out of date. Send /protest again."))
        return
    await callback.answer()
    if isinstance(callback.message, Message):
        # An old keyboard left in place is harmless: its taps are re-checked.
        with suppress(TelegramAPIError):
            await callback.message.edit_reply_markup(reply_markup=None)
    source = Source(
        int(data["chat_id"]), int(data["message_id"]), from_ts(int(data["sent"])), data["reason"]
    )
    deps = Deps(db, bot, publisher)
    await _game_chosen(callback_data.game_id, source, callback.from_user.id, state, deps)


@router.callback_query(ProtestGame.filter())
async def protest_game_stale(callback: CallbackQuery) -> None:
    await callback.answer(_("This card is out of date or not yours. Send /protest again."))


async def _game_chosen(
    game_id: int, source: Source, user_id: int, state: FSMContext, deps: Deps
) -> None:
    """File at once when the reason came with /protest; else ask for it."""
    if source.reason:
        await file(game_id, source, user_id, state, deps)
        return
    found = await service.protested_game(deps.db, game_id)
    if found is None:
        await state.clear()
        await deps.bot.send_message(source.chat_id, say(service.GAME_GONE))
        return
    game, tz = found
    await state.set_state(ProtestForm.reason)
    await state.set_data({"game_id": game_id})
    private = source.chat_id == user_id
    await deps.bot.send_message(
        source.chat_id,
        _(
            "Write the reason of your protest against {game} in one message, before "
            "{deadline} (8.8.1). /cancel to stop."
        ).format(game=say(game_name(game)), deadline=clock(game.protest_deadline, tz)),
        reply_to_message_id=None if private else source.message_id,
        # In a group the bot sees only replies to it (privacy mode): ask for one.
        reply_markup=None if private else ForceReply(selective=True),
    )


@router.message(ProtestForm.reason, F.text, ~F.text.startswith("/"))
async def protest_reason(
    message: Message,
    state: FSMContext,
    db: Database,
    bot: Bot,
    publisher: Publisher,
) -> None:
    assert message.from_user is not None
    data = await state.get_data()
    reason = (message.text or "").strip()
    if not reason:
        await message.answer(_("The reason is empty. Write it in one message, or /cancel."))
        return
    # D11: the reason message's own date is the protest's.
    source = Source(message.chat.id, message.message_id, message.date, reason)
    deps = Deps(db, bot, publisher)
    await file(int(data["game_id"]), source, message.from_user.id, state, deps)


@router.message(ProtestForm.reason, in_private, ~F.text.startswith("/"))
async def protest_reason_not_text(message: Message) -> None:
    await message.answer(_("Write the reason as text, or send /cancel."))


@router.message(ProtestForm.game, in_private, ~F.text.startswith("/"))
async def protest_game_not_chosen(message: Message) -> None:
    await message.answer(_("Choose the game with the buttons above, or send /cancel."))


async def file(game_id: int, source: Source, user_id: int, state: FSMContext, deps: Deps) -> None:
    """Store the protest (or refuse it, storing nothing), then tell the chief judges."""
    filed = await service.file_protest(deps.db, deps.publisher, game_id, source, user_id)
    await state.clear()
    bot = deps.bot
    if isinstance(filed, Refusal):
        await bot.send_message(source.chat_id, say(filed), reply_to_message_id=source.message_id)
        return
    try:
        await bot.send_message(
            source.chat_id,
            _(
                "Protest #{id} against {game} is recorded. The chief judge will decide it "
                "(8.8.2), and I will tell you the decision."
            ).format(id=filed.protest.id, game=say(game_name(filed.game))),
            reply_to_message_id=source.message_id,
        )
    except TelegramAPIError as error:  # e.g. 403: it is recorded, the chiefs still hear
        log.info(
            "protest %s: filer's chat %s not told: %s", filed.protest.id, source.chat_id, error
        )
    # A chief judge who never started the bot finds it in /protests.
    await run_follow_up(
        bot, filed.follow_up, deps.publisher, lambda: decision_keyboard(filed.protest.id)
    )


# -- the chief judge ------------------------------------------------------------------------


# The chief judge's tournaments, finished ones too.
@router.message(Command("protests"), in_private, ChiefTournaments(service.DECIDES_PROTESTS))
async def list_protests(message: Message, tournaments: list[TournamentRow], db: Database) -> None:
    cards = await service.open_protests(db, tournaments)
    if not cards:
        await message.answer(_("No open protests."))
        return
    await message.answer(
        _("Open protests: {count}. Decide each with its buttons (8.8.2).").format(count=len(cards))
    )
    for text, protest_id in cards[:MAX_LISTED]:
        await message.answer(say(text), reply_markup=decision_keyboard(protest_id))
    if len(cards) > MAX_LISTED:
        await message.answer(
            _("…and {more} more: decide these first, then send /protests again.").format(
                more=len(cards) - MAX_LISTED
            )
        )


ProtestChief = ChiefJudge(
    via="protest",
    finished=True,
    refusal=replace(service.DECIDES_PROTESTS, alert=True),
    missing=Refusal(N_("This card is out of date: the protest no longer exists.")),
)


@router.callback_query(ProtestDecide.filter(), ProtestChief)
async def decide_tap(
    callback: CallbackQuery,
    callback_data: ProtestDecide,
    protest: ProtestRow,
    game: GameRecord,
    tournament: TournamentRow,
    state: FSMContext,
    bot: Bot,
) -> None:
    if protest.status != "open":
        await answer_refusal(callback, service.decided_already(protest, tournament.timezone))
        return
    if await busy_elsewhere(state, ProtestDecision):
        await callback.answer(busy_text(), show_alert=True)
        return
    await callback.answer()
    card = callback.message if isinstance(callback.message, Message) else None
    await state.set_state(ProtestDecision.text)
    await state.set_data(
        {
            "protest_id": protest.id,
            "upheld": callback_data.upheld,
            "card": [card.chat.id, card.message_id] if card else None,
        }
    )
    if callback_data.upheld:
        ask = _(
            "Protest #{id} ({game}) will be upheld. Write the decision text for the "
            'player, or "-" for none; it is final once sent (8.8.4). /cancel to go back.'
        )
    else:
        ask = _(
            "Protest #{id} ({game}) will be rejected. Write the decision text for the "
            'player, or "-" for none; it is final once sent (8.8.4). /cancel to go back.'
        )
    await bot.send_message(
        callback.from_user.id, ask.format(id=protest.id, game=say(game_name(game)))
    )


@router.message(ProtestDecision.text, F.text, ~F.text.startswith("/"))
async def decision_text(
    message: Message,
    state: FSMContext,
    db: Database,
    bot: Bot,
    publisher: Publisher,
) -> None:
    assert message.from_user is not None
    data = await state.get_data()
    text = (message.text or "").strip()
    decided = await service.decide_protest(
        db,
        publisher,
        int(data["protest_id"]),
        upheld=bool(data.get("upheld")),
        decision=None if text in ("", NO_TEXT) else text[:MAX_DECISION],
        actor_id=message.from_user.id,
        now=message.date,
    )
    await state.clear()
    if isinstance(decided, Refusal):
        await message.answer(say(decided))
        return
    card = data.get("card")
    if card:
        # The card may be gone; a tap on it is refused as decided anyway.
        with suppress(TelegramAPIError):
            await bot.edit_message_reply_markup(
                chat_id=card[0], message_id=card[1], reply_markup=None
            )
    reply, markup = decision_reply(decided)
    await message.answer(reply, reply_markup=markup)
    await run_follow_up(bot, decided.follow_up, publisher)


def decision_reply(decided: service.Decided) -> tuple[str, InlineKeyboardMarkup | None]:
    """What the chief judge is told: an upheld protest leads to the game's correction."""
    protest, game = decided.protest, decided.game
    if protest.status != "upheld":
        return _("Protest #{id} rejected; the decision is recorded and final (8.8.4).").format(
            id=protest.id
        ), None
    button = InlineKeyboardButton(
        text=_("Correct or annul the game"), callback_data=GameMenu(game_id=game.id).pack()
    )
    return _(
        "Protest #{id} upheld; the decision is recorded and final (8.8.4). Now "
        "correct or annul {game} as the decision requires."
    ).format(id=protest.id, game=say(game_name(game))), InlineKeyboardMarkup(
        inline_keyboard=[[button]]
    )


@router.message(ProtestDecision.text, ~F.text.startswith("/"))
async def decision_not_text(message: Message) -> None:
    await message.answer(_('Write the decision as text, "-" for none, or send /cancel.'))
