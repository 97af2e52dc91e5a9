"""The live protocol's web side (docs/development.md, "The live protocol"): the Mini
App's page under ``/app/``, its API under ``/api/live/{token}``, and the public live view.

Handlers here parse the request, check who sends it and call the use cases of
``bot.services.live``; they never change anything on an error. A judge is known by
Telegram's signed ``initData`` (header ``X-Telegram-Init-Data``), checked against the
bot's token and ``WEBAPP_INIT_MAX_AGE``: 401 when it is missing, forged or stale, 403
for someone who is not a judge of the draft's tournament, 404 for an unknown token.

Every answer of ``/api/`` is JSON (an error too, never a traceback) and is not cached
(``Cache-Control: no-store``); a body is at most ``MAX_BODY`` bytes (413). The pages
send no referrer (their address holds the draft's token) and may be framed (Telegram
shows the Mini App in a frame).
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from aiogram import Bot
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from aiogram.utils.web_app import WebAppInitData, safe_parse_webapp_init_data
from aiohttp import web

from bot.config import Settings
from bot.publishing import Publisher
from bot.publishing.notices import GameTeller, GameViews
from bot.reads import card_reads
from bot.reads.standings import StandingsService
from bot.services import Refusal
from bot.services import live as use_cases
from bot.services.records import Database, GameRecord
from bot.texts.i18n import DEFAULT_LOCALE, locale_of_code, use_language
from bot.texts.live_words import phase_text
from bot.texts.phrases import say
from bot.texts.rating_format import seat_parts, short_points
from bot.texts.rule_issues import Issue
from bot.texts.vocabulary import RESULT_NAMES, ROLE_NAMES
from scoring import GameBreakdown, Problem, Result, Role
from scoring import protocol as rules

log = logging.getLogger(__name__)

WEBAPP = Path(__file__).resolve().parents[2] / "webapp"
INIT_HEADER = "X-Telegram-Init-Data"
MAX_BODY = 256 * 1024  # bytes of one request's body (MAX_BATCH commands fit many times)
CLOCK_SKEW = 60  # seconds an initData's auth_date may be ahead of our clock


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
    # The card's messages to others and its result line for the group, so a game saved
    # here reads as one saved on the card (the handlers' own, given by bot.app).
    views: GameViews
    summary_line: Callable[[int, int, Result, GameBreakdown | None, bool], str]


LIVE = web.AppKey("live", LiveRuntime)

# The page's words (``texts`` of GET /api/live/{token}), in the judge's language.
TEXTS: Mapping[str, Any] = {
    "live_protocol": __("Live protocol"),
    "seat": __("Seat"),
    "foul": __("Foul"),
    "fouls": __("Fouls"),
    "nominate": __("Nominate"),
    "nominated": __("Nominated"),
    "vote": __("Vote"),
    "vote_out": __("Voted out"),
    "day": __("Day"),
    "night": __("Night"),
    "speeches": __("Speeches"),
    "voting": __("Voting"),
    "shot": __("Shot"),
    "miss": __("Miss"),
    "end_night": __("End the night"),
    "don_check": __("Don's check"),
    "sheriff_check": __("Sheriff's check"),
    "is_sheriff": __("Sheriff"),
    "not_sheriff": __("Not the sheriff"),
    "red": __("Red"),
    "black": __("Black"),
    "best_move": __("Best move"),
    "accepted": __("Accepted"),  # the judge's word for each number named (8.3.1)
    "hint": __("Asked for a hint"),
    "result": __("Result"),
    "red_win": RESULT_NAMES[Result.RED],
    "black_win": RESULT_NAMES[Result.BLACK],
    "draw": RESULT_NAMES[Result.DRAW],
    "disqualify": __("Disqualify"),
    "penalty": __("Penalty"),
    "judge_points": __("Judge's points"),
    "review": __("Review"),
    "save": __("Save"),
    "saved": __("Saved"),
    "undo": __("Undo"),
    "offline": __("Offline: the events wait and are sent when the connection is back"),
    "timer_start": __("Start the timer"),
    "timer_pause": __("Pause the timer"),
    "roles": __("Roles"),
    "alive": __("In the game"),
    "out": __("Out"),
    "public_view": __("Public view"),
    # Phrases with the page's numbers ({n}, {seat}, ... as the page fills them in).
    "day_n": __("Day {n}"),
    "night_n": __("Night {n}"),
    "round_table": __("round {round}, table {table}"),
    "speaker": __("Speech: seat {seat}"),
    "nobody_out": __("Nobody leaves"),
    "revote": __("Re-vote between {seats}"),
    "lift_all": __("Vote to lift all: {seats}"),
    "best_move_of": __("Best move of seat {seat}, {nick}"),
    "best_move_end": __("The best move is over"),
    "best_move_none": __("No best move"),
    "saved_as": __("Saved as game {code}"),
    "civilian": ROLE_NAMES[Role.CIVILIAN],
    "sheriff": ROLE_NAMES[Role.SHERIFF],
    "mafia": ROLE_NAMES[Role.MAFIA],
    "don": ROLE_NAMES[Role.DON],
}

_MISSING = __("Open the live protocol from the bot in Telegram.")
_FORGED = __("Telegram's sign-in of this page is not valid.")
_STALE = __("This page was opened too long ago: open it again from the bot.")
_MALFORMED = __("The request is not understood.")
_TOO_BIG = __("The request is too large: send fewer events at a time.")
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
    app.router.add_get("/app", _to_app)
    app.router.add_get("/app/", index)
    if (WEBAPP / "static").is_dir():
        app.router.add_static("/app/static/", WEBAPP / "static")
    app.router.add_get("/live/{public}", public_page)
    app.router.add_get("/api/live/{token}", get_live)
    app.router.add_post("/api/live/{token}/events", post_events)
    app.router.add_get("/api/live/{token}/review", get_review)
    app.router.add_post("/api/live/{token}/save", post_save)
    app.router.add_get("/api/public/{public}", get_public)


# -- every answer ---------------------------------------------------------------------------


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
        locale = _reader_locale(rt, request)
        if exc.status == 404:
            return _refused(rt, locale, use_cases.UNKNOWN)
        text = _TOO_BIG if exc.status == 413 else _MALFORMED
        return _error(rt, locale, exc.status, text)
    except (ConnectionError, web.RequestPayloadError):
        raise  # the client left, or broke its body: the server's (bot.web.bad_requests)
    except Exception:
        resource = request.match_info.route.resource
        where = resource.canonical if resource is not None else "?"  # not the token
        log.exception("live API %s %s failed", request.method, where)
        return _error(rt, DEFAULT_LOCALE, 500, _FAILED)


async def _headers(request: web.Request, response: web.StreamResponse) -> None:
    """The API's answers are private and current: never stored by a cache. No page
    names its address (the draft's token) to what it loads."""
    if _is_api(request):
        response.headers["Cache-Control"] = "no-store"
    if _is_api(request) or request.path.startswith(("/app", "/live/")):
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"


# -- pages ------------------------------------------------------------------------------------


async def _to_app(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/app/" + (f"?{request.query_string}" if request.query_string else ""))


def _page(name: str) -> web.StreamResponse:
    path = WEBAPP / name
    if not path.is_file():
        raise web.HTTPNotFound()
    return web.FileResponse(path, headers={"Cache-Control": "no-cache"})


async def index(request: web.Request) -> web.StreamResponse:
    return _page("index.html")


async def public_page(request: web.Request) -> web.StreamResponse:
    return _page("live.html")


# -- who asks -------------------------------------------------------------------------------


class _Denied(Exception):
    def __init__(self, response: web.Response) -> None:
        self.response = response


def _error(rt: LiveRuntime, locale: str, status: int, text: Any) -> web.Response:
    with use_language(rt.i18n, locale):
        message = str(text)
    return web.json_response({"error": message}, status=status)


def signed_user(rt: LiveRuntime, request: web.Request) -> WebAppInitData:
    """Telegram's initData of the request, checked; raises ``_Denied`` (401)."""
    raw = request.headers.get(INIT_HEADER, "")
    if not raw:
        raise _Denied(_error(rt, DEFAULT_LOCALE, 401, _MISSING))
    try:
        data = safe_parse_webapp_init_data(rt.token, raw)
    except (ValueError, TypeError):
        raise _Denied(_error(rt, DEFAULT_LOCALE, 401, _FORGED)) from None
    locale = locale_of_code(data.user.language_code if data.user else None)
    if data.user is None or not _whole_user_id(raw):
        raise _Denied(_error(rt, locale, 401, _FORGED))
    age = time.time() - data.auth_date.timestamp()
    if age < -CLOCK_SKEW:  # signed in the future: not Telegram's
        raise _Denied(_error(rt, locale, 401, _FORGED))
    if age > rt.max_age:
        raise _Denied(_error(rt, locale, 401, _STALE))
    return data


def _reader_locale(rt: LiveRuntime, request: web.Request) -> str:
    """The language of whoever signed the request in (refused before a handler knew
    him, e.g. a body over the server's limit); the default one when nobody did."""
    try:
        data = signed_user(rt, request)
    except _Denied:
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
    """The judge and the draft of the request's token; raises ``_Denied``."""
    data = signed_user(rt, request)
    assert data.user is not None
    locale = locale_of_code(data.user.language_code)
    found = await use_cases.judged(rt.db, request.match_info["token"], data.user.id)
    if isinstance(found, Refusal):
        raise _Denied(_refused(rt, locale, found))
    return Caller(data.user.id, locale, found)


JudgeHandler = Callable[[web.Request, LiveRuntime, Caller], Awaitable[web.Response]]


def _for_judge(handler: JudgeHandler) -> Callable[[web.Request], Awaitable[web.Response]]:
    """An API handler for the draft's judge: who asks is checked first (``caller``), and
    a refusal answers before the handler runs."""

    @functools.wraps(handler)
    async def checked(request: web.Request) -> web.Response:
        rt = request.app[LIVE]
        try:
            who = await caller(rt, request)
        except _Denied as denied:
            return denied.response
        return await handler(request, rt, who)

    return checked


def _refused(rt: LiveRuntime, locale: str, refusal: Refusal) -> web.Response:
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


def _protocol_refusal(refusal: rules.Refusal) -> str:
    return _(refusal.text).format(**refusal.params)


# -- the API -------------------------------------------------------------------------------


@_for_judge
async def get_live(request: web.Request, rt: LiveRuntime, who: Caller) -> web.Response:
    s = await use_cases.snapshot(rt.db, who.draft)
    with use_language(rt.i18n, who.locale):
        texts = {key: str(text) for key, text in TEXTS.items()}
    return web.json_response({
        "token": s.draft.token,
        "public": s.draft.public_token,
        "version": s.version,
        "locale": who.locale,
        "tournament": s.tournament.title,
        "round": s.draft.round,
        "table": s.draft.table_no,
        "players": [{"seat": n, "nickname": p.nickname} for n, p in enumerate(s.players, 1)],
        "events": [{"id": e.client_id, "command": e.command} for e in s.events],
        "view": rules.view(s.protocol),
        "texts": texts,
        "saved": _saved(s.game),
    })


def _saved(game: GameRecord | None) -> dict[str, Any] | None:
    return None if game is None else {"game_id": game.id, "code": game.code}


class _TooBig(Exception):
    pass


def _no_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


async def _json_body(request: web.Request) -> Any:
    """The body as JSON, or None when it is not (NaN and Infinity are not JSON, nor is
    nesting deeper than the parser goes); raises ``_TooBig`` over ``MAX_BODY``."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise _TooBig
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise _TooBig from None
    if len(raw) > MAX_BODY:
        raise _TooBig
    try:
        return json.loads(raw.decode(), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


@_for_judge
async def post_events(request: web.Request, rt: LiveRuntime, who: Caller) -> web.Response:
    try:
        body = await _json_body(request)
    except _TooBig:
        return _error(rt, who.locale, 413, _TOO_BIG)
    sent = body.get("events") if isinstance(body, dict) else None
    if use_cases.too_many(sent):
        return _error(rt, who.locale, 413, _TOO_BIG)
    events = use_cases.well_formed(sent)
    if events is None:
        return _error(rt, who.locale, 400, _MALFORMED)
    done = await use_cases.append_events(rt.db, who.draft, events)
    if isinstance(done, Refusal):
        return _refused(rt, who.locale, done)
    refused = None
    if done.refused is not None:
        event_id, why = done.refused
        with use_language(rt.i18n, who.locale):
            refused = {"id": event_id, "rule": why.rule, "text": _protocol_refusal(why)}
    return web.json_response({
        "applied": list(done.applied),
        "refused": refused,
        "version": done.version,
        "view": rules.view(done.protocol),
    })


async def _review(rt: LiveRuntime, s: use_cases.Snapshot) -> use_cases.Review:
    model = await card_reads.tournament_model(rt.db, rt.standings, s.draft.tournament_id)
    return use_cases.review(s, model)


def _problem_text(problem: Problem | use_cases.NotReady) -> str:
    if isinstance(problem, use_cases.NotReady):
        return say(problem)
    return Issue.of(problem).text()


@_for_judge
async def get_review(request: web.Request, rt: LiveRuntime, who: Caller) -> web.Response:
    s = await use_cases.snapshot(rt.db, who.draft)
    reviewed = await _review(rt, s)
    with use_language(rt.i18n, who.locale):
        seats = []
        if reviewed.breakdown is not None:
            seats = [
                {"seat": p.seat, "nickname": p.player, "role": str(ROLE_NAMES[p.role]),
                 "points": short_points(p.total), "parts": " · ".join(seat_parts(p)) or "0"}
                for p in reviewed.breakdown.seats
            ]
        problems = [_problem_text(p) for p in reviewed.problems]
    return web.json_response({"seats": seats, "problems": problems})


@_for_judge
async def post_save(request: web.Request, rt: LiveRuntime, who: Caller) -> web.Response:
    async with use_cases.entering(who.draft):  # no event comes between read and save
        return await _save(rt, who)


async def _save(rt: LiveRuntime, who: Caller) -> web.Response:
    s = await use_cases.snapshot(rt.db, who.draft)
    if s.game is not None:  # sent again (its answer lost), or saved on the card
        return web.json_response(_saved(s.game))
    closed = use_cases.closed(s)
    if closed is not None:
        return _refused(rt, who.locale, closed)
    reviewed = await _review(rt, s)
    if reviewed.draft is None or reviewed.breakdown is None:
        with use_language(rt.i18n, who.locale):
            first = reviewed.problems[0]
            text = _problem_text(first)
        rule = first.rule
        return web.json_response({"error": text, "rule": rule}, status=422)
    draft, breakdown = reviewed.draft, reviewed.breakdown

    def summary(hidden: bool, locale: str) -> str:  # the group's language, the use case's D17
        with rt.i18n.use_locale(locale):
            return rt.summary_line(draft.round, draft.table_no, draft.result, breakdown, hidden)

    teller = GameTeller(rt.bot, rt.publisher, rt.views)
    with use_language(rt.i18n, who.locale):
        saved = await use_cases.save(rt, teller, s, draft, actor=who.user_id, summary=summary)
    if isinstance(saved, Refusal):
        return _refused(rt, who.locale, saved)
    return web.json_response({"game_id": saved.id, "code": saved.code})


async def get_public(request: web.Request) -> web.Response:
    """The public live view's table, in the tournament's language: no role before Save;
    the phase "over" with its result and what ended it as soon as the protocol ends the
    game (``_public_phase``)."""
    rt = request.app[LIVE]
    s = await use_cases.public(rt.db, request.match_info["public"])
    if s is None:
        return web.json_response({"error": "not found"}, status=404)
    view = rules.view(s.protocol)
    roles_shown = s.game is not None
    listed = view.get("seats")
    shown: list[dict[str, Any]] = listed if isinstance(listed, list) else []
    phase = _public_phase(view, s.game)
    with use_language(rt.i18n, s.tournament.language):
        seats = []
        for n, (p, seat) in enumerate(zip(s.players, shown, strict=True), start=1):
            role = seat.get("role") if roles_shown else None
            seats.append({
                "seat": n,
                "nickname": p.nickname,
                "alive": seat.get("alive"),
                "fouls": seat.get("fouls"),
                "out": seat.get("out"),
                "nominated": seat.get("nominated"),
                "role": role,
                "role_name": str(ROLE_NAMES[Role(role)]) if role else None,
            })
        phase_words = phase_text(phase)
        saved_words = (str(TEXTS["saved_as"]).format(code=s.game.code)
                       if s.game is not None else None)
    return web.json_response(
        {
            "tournament": s.tournament.title,
            "locale": s.tournament.language,
            "round": s.draft.round,
            "table": s.draft.table_no,
            "phase": phase,
            "phase_text": phase_words,
            "seats": seats,
            "version": s.version,
            "result": s.game.result.value if s.game is not None else None,
            "saved": _saved(s.game),
            "saved_text": saved_words,
        },
        dumps=lambda data: json.dumps(data, ensure_ascii=False),
    )


def _public_phase(view: Mapping[str, Any], game: GameRecord | None) -> dict[str, Any]:
    """The day or night being played; "over" once the protocol ends the game (the
    events leave a team the winner, or the result is entered) or it is saved: the
    result (the saved game's once saved) and what ended it, if the events did."""
    result = game.result.value if game is not None else view.get("over") or view.get("result")
    if result is None:
        return dict(view.get("phase") or {})
    return {"kind": "over", "result": result, "ended": view.get("ended")}
