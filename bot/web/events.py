"""The judge's protocol: ``GET /api/live/{token}`` (the game as recorded, the page's
words) and ``POST /api/live/{token}/events`` (commands the page sends, each stored once
by its id; the first the protocol refuses stops the batch and is answered with its
rule). The view in both answers is ``scoring.protocol.view``: the game and what the
protocol would accept now, which is all the page offers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from aiohttp import web

from bot.services import Refusal
from bot.services import live as use_cases
from bot.texts.i18n import use_language
from bot.texts.vocabulary import RESULT_NAMES, ROLE_NAMES
from bot.web.runtime import MALFORMED, TOO_BIG, LiveRuntime, error, refused, saved
from bot.web.signin import Caller, for_judge
from scoring import Result, Role
from scoring import protocol as rules

MAX_BODY = 256 * 1024  # bytes of one request's body (MAX_BATCH commands fit many times)

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


@for_judge
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
        "saved": saved(s.game),
    })


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


def _protocol_refusal(refusal: rules.Refusal) -> str:
    return _(refusal.text).format(**refusal.params)


@for_judge
async def post_events(request: web.Request, rt: LiveRuntime, who: Caller) -> web.Response:
    try:
        body = await _json_body(request)
    except _TooBig:
        return error(rt, who.locale, 413, TOO_BIG)
    sent = body.get("events") if isinstance(body, dict) else None
    if use_cases.too_many(sent):
        return error(rt, who.locale, 413, TOO_BIG)
    events = use_cases.well_formed(sent)
    if events is None:
        return error(rt, who.locale, 400, MALFORMED)
    done = await use_cases.append_events(rt.db, who.draft, events)
    if isinstance(done, Refusal):
        return refused(rt, who.locale, done)
    refusal = None
    if done.refused is not None:
        event_id, why = done.refused
        with use_language(rt.i18n, who.locale):
            refusal = {"id": event_id, "rule": why.rule, "text": _protocol_refusal(why)}
    return web.json_response({
        "applied": list(done.applied),
        "refused": refusal,
        "version": done.version,
        "view": rules.view(done.protocol),
    })
