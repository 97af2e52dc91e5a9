"""Delivering what a use case leaves to be told (``bot.services.notices``): its notices,
each worded in its reader's language (``bot.texts.phrases.say``) with the caller's
buttons under it, then the group's outbox posted.

A notice that can't arrive (he never started the bot, blocked it) is logged and the
rest still go. The game use cases tell theirs through a :class:`GameTeller`, with the
handlers' words and buttons for what asks the chief judge for a decision.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.types import InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.db.connection import Database
from bot.db.games import ApprovalRow, GameDraft, GameRecord
from bot.db.players import PlayerRow
from bot.services.game_save import GameNews, Sent, approval_asked
from bot.services.notices import FollowUp, Notice
from bot.services.phrases import ResultLines
from bot.texts.phrases import say, spoken
from bot.texts.result_line import result_lines
from scoring import GameBreakdown


class Publisher(Protocol):
    """The group's outbox after a commit (``bot.publishing.publisher.Publisher``, which
    sends its own notices from here: a protocol keeps the two out of a circle)."""

    @property
    def db(self) -> Database: ...

    async def publish(self, bot: Bot, tournament_id: int, *, now: bool = False) -> None: ...

log = logging.getLogger(__name__)

# Buttons under every notice: the same ones, or made for each in its reader's language.
Markup = InlineKeyboardMarkup | Callable[[], InlineKeyboardMarkup] | None


async def run_follow_up(
    bot: Bot, follow_up: FollowUp, publisher: Publisher | None, markup: Markup = None
) -> int:
    """Send the notices (``markup`` under each), then publish the tournament's outbox
    if the use case filled it; how many notices arrived."""
    delivered = await deliver(bot, follow_up.notices, markup)
    if publisher is not None and follow_up.tournament_id is not None:
        await publisher.publish(bot, follow_up.tournament_id, now=follow_up.now)
    return delivered


async def deliver(bot: Bot, notices: Iterable[Notice], markup: Markup = None) -> int:
    """Send each notice; one that can't arrive is logged and the rest still go.
    Returns how many arrived."""
    sent = [await send(bot, notice, markup) for notice in notices]
    return sum(message is not None for message in sent)


async def send(bot: Bot, notice: Notice, markup: Markup = None) -> Message | None:
    """One notice, worded in its reader's language, ``markup`` under it; None when it
    can't arrive."""
    text = say(notice.said, notice.locale)
    if callable(markup):
        with spoken(notice.locale):
            markup = markup()
    try:
        return await bot.send_message(notice.chat_id, text, reply_markup=markup)
    except TelegramForbiddenError as exc:  # blocked the bot, or never started it
        log.info("notice to %s not delivered: %s", notice.chat_id, exc)
    except TelegramAPIError as exc:
        log.warning("notice to %s not delivered: %s", notice.chat_id, exc)
    return None


# -- the game use cases' news ------------------------------------------------------------


class GameViews(Protocol):
    """The handlers' messages about games to others, in the current locale (HTML)."""

    def approval_request(
        self, game: GameRecord, title: str, approval: ApprovalRow, judge: str
    ) -> tuple[str, InlineKeyboardMarkup]: ...

    def approval_decided(self, approval: ApprovalRow, game: GameRecord) -> str: ...

    def player_added(
        self, judge: str, player: PlayerRow, title: str
    ) -> tuple[str, InlineKeyboardMarkup]: ...


@dataclass(frozen=True, slots=True)
class GameTeller:
    """``bot.services.games.Teller``: the game use cases' news, worded by ``views``,
    sent through ``bot``, the group's through ``publisher``; a Save's result lines for
    the group are worded here too."""

    bot: Bot
    publisher: Publisher
    views: GameViews

    async def publish(self, tournament_id: int, what: str) -> None:
        try:
            await self.publisher.publish(self.bot, tournament_id)
        except Exception:  # the chat is the publisher's business; the change is saved
            log.exception("publishing %s failed", what)

    async def tell(self, notice: Notice) -> None:
        await send(self.bot, notice)

    def result_lines(
        self, language: str, draft: GameDraft, breakdown: GameBreakdown
    ) -> ResultLines:
        """``bot.services.game_save.GroupLines``: a Save's result lines for the group, in
        the tournament's ``language`` (D17), the card's and the live page's alike."""
        with spoken(language):
            return result_lines(draft.round, draft.table_no, draft.result, breakdown)

    async def saved(self, news: GameNews) -> None:
        """A saved game's news, once its judge has his answer: the group's outbox, the
        chief judges asked about judge's points above 0.5 (D7; the messages recorded to
        be edited once decided, the judge told when none could be reached), then the
        notices."""
        game = news.game
        await self.publish(game.tournament_id, f"game {game.id}")
        reached = False
        for ask in news.approvals:
            sent = [
                message
                for chief, locale in ask.chiefs
                if (message := await self.ask_approval(
                    chief, locale, game, ask.title, ask.approval, ask.judge
                )) is not None
            ]
            if sent:
                reached = True
                await approval_asked(self.publisher.db, ask.approval.id, sent)
        if news.approvals and not reached:
            await deliver(self.bot, news.unreached)
        await deliver(self.bot, news.notices)

    async def ask_approval(
        self, chief: int, locale: str, game: GameRecord, title: str, approval: ApprovalRow,
        judge: str,
    ) -> Sent | None:
        with spoken(locale):
            text, markup = self.views.approval_request(game, title, approval, judge)
        message = await send(self.bot, Notice(chief, text, locale), markup)
        return None if message is None else (message.chat.id, message.message_id)

    async def ask_to_confirm(
        self, chief: int, locale: str, judge: str, player: PlayerRow, title: str
    ) -> None:
        with spoken(locale):
            text, markup = self.views.player_added(judge, player, title)
        await send(self.bot, Notice(chief, text, locale), markup)

    async def tell_decision(
        self, judge: int, locale: str, approval: ApprovalRow, game: GameRecord
    ) -> None:
        with spoken(locale):
            text = _("The chief judge decided: {decision}").format(
                decision=self.views.approval_decided(approval, game)
            )
            if game.status == "final":
                text += " " + _("The game is final now.")
        await send(self.bot, Notice(judge, text, locale))
