"""The live protocol's web side (docs/development.md, "The live protocol"), wired here:
the Mini App's page under ``/app/`` and the public view's (``bot.web.pages``), the
judge's API under ``/api/live/{token}`` (who asks: ``bot.web.signin``; the protocol and
its events: ``bot.web.events``; review and Save: ``bot.web.review``) and the public
view's data (``bot.web.public``), all talking to one ``LiveRuntime``
(``bot.web.runtime``).

Handlers parse the request, check who sends it and call the use cases of
``bot.services.live``; they never change anything on an error. Every answer of
``/api/`` is JSON (an error too, never a traceback) and is not cached
(``Cache-Control: no-store``); a body is at most ``bot.web.events.MAX_BODY`` bytes
(413). The pages send no referrer (their address holds the draft's token) and may be
framed (Telegram shows the Mini App in a frame).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiogram.utils.i18n import lazy_gettext as __
from aiohttp import web

from bot.config import Settings
from bot.services import live as use_cases
from bot.texts.i18n import DEFAULT_LOCALE
from bot.web import events, public, review
from bot.web.pages import add_pages
from bot.web.runtime import LIVE, MALFORMED, TOO_BIG, LiveRuntime, error, refused
from bot.web.signin import reader_locale

__all__ = ["add_live", "webapp_enabled"]

log = logging.getLogger(__name__)

_FAILED = __("Something went wrong on the server; nothing was changed. Try again.")


def webapp_enabled(settings: Settings) -> bool:
    return bool(settings.webapp_url)


def add_live(app: web.Application, rt: LiveRuntime) -> None:
    """The page, its API and the public view."""
    app[LIVE] = rt
    # First: a request the server refuses before any route (a body over its limit,
    # ``bot.web.bad_requests``) is answered in JSON too.
    app.middlewares.insert(0, _api_answers)
    app.on_response_prepare.append(_headers)
    add_pages(app)
    app.router.add_get("/api/live/{token}", events.get_live)
    app.router.add_post("/api/live/{token}/events", events.post_events)
    app.router.add_get("/api/live/{token}/review", review.get_review)
    app.router.add_post("/api/live/{token}/save", review.post_save)
    app.router.add_get("/api/public/{public}", public.get_public)


def _is_api(request: web.Request) -> bool:
    return request.path.startswith("/api/")


@web.middleware
async def _api_answers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """An ``/api/`` error is JSON like the handlers' own: aiohttp's and the server's
    (no such route, a body over the limit) and a failure's (logged; the client sees no
    traceback)."""
    if not _is_api(request):
        return await handler(request)
    rt = request.app[LIVE]
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        locale = reader_locale(rt, request)
        if exc.status == 404:
            return refused(rt, locale, use_cases.UNKNOWN)
        text = TOO_BIG if exc.status == 413 else MALFORMED
        return error(rt, locale, exc.status, text)
    except (ConnectionError, web.RequestPayloadError):
        raise  # the client left, or broke its body: the server's (bot.web.bad_requests)
    except Exception:
        resource = request.match_info.route.resource
        where = resource.canonical if resource is not None else "?"  # not the token
        log.exception("live API %s %s failed", request.method, where)
        return error(rt, DEFAULT_LOCALE, 500, _FAILED)


async def _headers(request: web.Request, response: web.StreamResponse) -> None:
    """The API's answers are private and current: never stored by a cache. No page
    names its address (the draft's token) to what it loads."""
    if _is_api(request):
        response.headers["Cache-Control"] = "no-store"
    if _is_api(request) or request.path.startswith(("/app", "/live/")):
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
