"""What the live protocol's web modules share (``bot.web.live`` wires them): the runtime
they talk to, under the application's key ``LIVE``, and the API's JSON answers: an
error in the reader's language, a use case's refusal with its HTTP status, the saved
game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import lazy_gettext as __
from aiohttp import web

from bot.publishing import Publisher
from bot.publishing.notices import GameViews
from bot.reads.standings import StandingsService
from bot.services import Refusal
from bot.services import live as use_cases
from bot.services.records import Database, GameRecord
from bot.texts.i18n import use_language
from bot.texts.phrases import say


@dataclass(frozen=True, slots=True)
class LiveRuntime:
    """What the live protocol's handlers talk to (``bot.services.games.Runtime``)."""

    bot: Bot
    db: Database
    publisher: Publisher
    i18n: I18n
    standings: StandingsService
    token: str  # the bot's, to check initData
    max_age: int  # seconds
    base_url: str  # WEBAPP_URL
    # The card's messages to others, so a game saved here reads as one saved on the
    # card (the handlers' own, given by bot.app).
    views: GameViews


LIVE = web.AppKey("live", LiveRuntime)

MALFORMED = __("The request is not understood.")
TOO_BIG = __("The request is too large: send fewer events at a time.")


def error(rt: LiveRuntime, locale: str, status: int, text: Any) -> web.Response:
    """``{"error": text}`` in ``locale``, with ``status``."""
    with use_language(rt.i18n, locale):
        message = str(text)
    return web.json_response({"error": message}, status=status)


def refused(rt: LiveRuntime, locale: str, refusal: Refusal) -> web.Response:
    """A use case's refusal in ``locale``: 404 an unknown draft, 403 not its judge, 409
    saved, finished or in conflict, else 422 (with the rule when it names one)."""
    status = 422
    if isinstance(refusal, use_cases.Unknown):
        status = 404
    elif isinstance(refusal, use_cases.NotStaff):
        status = 403
    elif isinstance(refusal, use_cases.Saved | use_cases.Finished | use_cases.Conflict):
        status = 409
    with use_language(rt.i18n, locale):
        body: dict[str, Any] = {"error": say(refusal)}
    if isinstance(refusal, use_cases.NotReady):
        body["rule"] = refusal.rule
    return web.json_response(body, status=status)


def saved(game: GameRecord | None) -> dict[str, Any] | None:
    """The saved game as the pages name it, or None before Save."""
    return None if game is None else {"game_id": game.id, "code": game.code}
