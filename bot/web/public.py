"""The public live view's data: ``GET /api/public/{public}``, a table's game as it is
entered, for anyone with the link, in the tournament's language: no role before Save;
the phase "over" with its result and what ended it as soon as the protocol ends the
game."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from bot.services import live as use_cases
from bot.services.records import GameRecord
from bot.texts.i18n import use_language
from bot.texts.live_words import phase_text
from bot.texts.vocabulary import ROLE_NAMES
from bot.web.events import TEXTS
from bot.web.runtime import LIVE, saved
from scoring import Role
from scoring import protocol as rules


async def get_public(request: web.Request) -> web.Response:
    """The public live view's table (``_public_phase`` says what the phase reads)."""
    rt = request.app[LIVE]
    s = await use_cases.public(rt.db, request.match_info["public"])
    if s is None:
        return web.json_response({"error": "not found"}, status=404)
    view = rules.view(s.protocol, actions=False)
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
            "saved": saved(s.game),
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
