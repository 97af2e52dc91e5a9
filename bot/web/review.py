"""The judge's review and Save: ``GET /api/live/{token}/review`` (every seat's points as
the card shows them, or what keeps the game from being saved) and ``POST
/api/live/{token}/save`` (the card's Save: the same game, points, chat line)."""

from __future__ import annotations

from aiohttp import web

from bot.publishing.notices import GameTeller
from bot.reads import card_reads
from bot.services import Refusal
from bot.services import live as use_cases
from bot.services.game_save import Saved, SaveRequest, Unready, save
from bot.texts.i18n import use_language
from bot.texts.phrases import say
from bot.texts.rating_format import seat_parts, short_points
from bot.texts.rule_issues import Issue
from bot.texts.vocabulary import ROLE_NAMES
from bot.web.runtime import LiveRuntime, refused, saved
from bot.web.signin import Caller, for_judge
from scoring import Problem


async def _review(rt: LiveRuntime, s: use_cases.Snapshot) -> use_cases.Review:
    model = await card_reads.tournament_model(rt.db, rt.standings, s.draft.tournament_id)
    return use_cases.review(s, model)


def _problem_text(problem: Problem | use_cases.NotReady) -> str:
    if isinstance(problem, use_cases.NotReady):
        return say(problem)
    return Issue.of(problem).text()


@for_judge
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


@for_judge
async def post_save(request: web.Request, rt: LiveRuntime, who: Caller) -> web.Response:
    async with use_cases.entering(who.draft):  # no event comes between read and save
        return await _save(rt, who)


async def _save(rt: LiveRuntime, who: Caller) -> web.Response:
    s = await use_cases.snapshot(rt.db, who.draft)
    if s.game is not None:  # sent again (its answer lost), or saved on the card
        return web.json_response(saved(s.game))
    draft = use_cases.game_draft(s)
    if isinstance(draft, use_cases.NotReady):
        return _unready(rt, who, draft)
    request = SaveRequest(s.draft.tournament_id, draft, who.user_id, live=s.draft)
    tell = GameTeller(rt.bot, rt.publisher, rt.views)
    with use_language(rt.i18n, who.locale):
        done = await save(rt, request, lines=tell.result_lines)
        if isinstance(done, Unready) and done.problems:
            return _unready(rt, who, done.problems[0])
        if isinstance(done, Refusal):
            return refused(rt, who.locale, done)
        assert isinstance(done, Saved)  # SavedLive is the card's alone
        await tell.saved(done.news)
    return web.json_response({"game_id": done.record.id, "code": done.record.code})


def _unready(rt: LiveRuntime, who: Caller, first: Problem | use_cases.NotReady) -> web.Response:
    """What keeps the game from being saved: the first problem, and its rule."""
    with use_language(rt.i18n, who.locale):
        text = _problem_text(first)
    return web.json_response({"error": text, "rule": first.rule}, status=422)
