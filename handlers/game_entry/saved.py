"""A saved game as the card shows it (the chief judge's game menu): its draft and a view
with every seat's points; the text is ``card.saved_text``."""

from __future__ import annotations

from fractions import Fraction

from bot.reads import card_reads
from bot.reads.standings import StandingsService
from bot.services.records import Database, GameRecord, game_from_record
from handlers.game_entry.draft import Draft, draft_from_record
from handlers.game_entry.view import View
from scoring import InvalidGameError, game_breakdown
from scoring.judging import first_killed_ci


async def saved_view(
    db: Database, standings: StandingsService, game: GameRecord
) -> tuple[Draft, View]:
    """A stored game as a draft and a view with its points (current Ci, D1)."""
    d = draft_from_record(game, judge_id=game.judge_id, locale="", card_chat=0, card_id=0)
    view = View(original_code=game.code)
    t = await card_reads.tournament(db, game.tournament_id)
    # The ten seated, not the whole tournament: a Save must stay cheap at 300 players.
    seated = await card_reads.players_of(db, [seat.player_id for seat in game.seats])
    view.players = {p.id: p for p in seated}
    view.title = t.title if t else ""
    model = game_from_record(game)
    if game.status != "annulled":
        tournament = await card_reads.tournament_model(db, standings, game.tournament_id)
        view.ci_info = first_killed_ci(tournament, model, replaces=game.code)
    ci = view.ci_info[2] if view.ci_info else Fraction(0)
    try:
        view.breakdown = game_breakdown(model, ci=ci)
    except InvalidGameError:
        view.breakdown = None
    return d, view
