"""Who asks the live API: a judge signed in by Telegram's ``initData`` (header
``X-Telegram-Init-Data``), checked against the bot's token and ``WEBAPP_INIT_MAX_AGE``:
401 when it is missing, forged or stale, 403 for someone who is not a judge of the
draft's tournament, 404 for an unknown token."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from aiogram.utils.i18n import lazy_gettext as __
from aiogram.utils.web_app import WebAppInitData, safe_parse_webapp_init_data
from aiohttp import web

from bot.services import Refusal
from bot.services import live as use_cases
from bot.texts.i18n import DEFAULT_LOCALE, locale_of_code
from bot.web.runtime import LIVE, LiveRuntime, error, refused

INIT_HEADER = "X-Telegram-Init-Data"
CLOCK_SKEW = 60  # seconds an initData's auth_date may be ahead of our clock

_MISSING = __("Open the live protocol from the bot in Telegram.")
_FORGED = __("Telegram's sign-in of this page is not valid.")
_STALE = __("This page was opened too long ago: open it again from the bot.")


class Denied(Exception):
    """The request's answer, when who sends it may not: ``response``."""

    def __init__(self, response: web.Response) -> None:
        self.response = response


def signed_user(rt: LiveRuntime, request: web.Request) -> WebAppInitData:
    """Telegram's initData of the request, checked; raises ``Denied`` (401)."""
    raw = request.headers.get(INIT_HEADER, "")
    if not raw:
        raise Denied(error(rt, DEFAULT_LOCALE, 401, _MISSING))
    try:
        data = safe_parse_webapp_init_data(rt.token, raw)
    except (ValueError, TypeError):
        raise Denied(error(rt, DEFAULT_LOCALE, 401, _FORGED)) from None
    locale = locale_of_code(data.user.language_code if data.user else None)
    if data.user is None or not _whole_user_id(raw):
        raise Denied(error(rt, locale, 401, _FORGED))
    age = time.time() - data.auth_date.timestamp()
    if age < -CLOCK_SKEW:  # signed in the future: not Telegram's
        raise Denied(error(rt, locale, 401, _FORGED))
    if age > rt.max_age:
        raise Denied(error(rt, locale, 401, _STALE))
    return data


def reader_locale(rt: LiveRuntime, request: web.Request) -> str:
    """The language of whoever signed the request in (refused before a handler knew
    him, e.g. a body over the server's limit); the default one when nobody did."""
    try:
        data = signed_user(rt, request)
    except Denied:
        return DEFAULT_LOCALE
    return locale_of_code(data.user.language_code if data.user else None)


def _whole_user_id(raw: str) -> bool:
    """Whether the (signed) initData names its user by a whole number, as Telegram does
    (not "1002", 1002.0 or true, which the parser would take for one)."""
    user = dict(parse_qsl(raw)).get("user", "")
    try:
        found = json.loads(user)
    except (ValueError, RecursionError):
        return False
    user_id = found.get("id") if isinstance(found, dict) else None
    return isinstance(user_id, int) and not isinstance(user_id, bool)


@dataclass(frozen=True, slots=True)
class Caller:
    user_id: int
    locale: str
    draft: use_cases.LiveDraft


async def caller(rt: LiveRuntime, request: web.Request) -> Caller:
    """The judge and the draft of the request's token; raises ``Denied``."""
    data = signed_user(rt, request)
    assert data.user is not None
    locale = locale_of_code(data.user.language_code)
    found = await use_cases.judged(rt.db, request.match_info["token"], data.user.id)
    if isinstance(found, Refusal):
        raise Denied(refused(rt, locale, found))
    return Caller(data.user.id, locale, found)


JudgeHandler = Callable[[web.Request, LiveRuntime, Caller], Awaitable[web.Response]]


def for_judge(handler: JudgeHandler) -> Callable[[web.Request], Awaitable[web.Response]]:
    """An API handler for the draft's judge: who asks is checked first (``caller``), and
    a refusal answers before the handler runs."""

    @functools.wraps(handler)
    async def checked(request: web.Request) -> web.Response:
        rt = request.app[LIVE]
        try:
            who = await caller(rt, request)
        except Denied as denied:
            return denied.response
        return await handler(request, rt, who)

    return checked
