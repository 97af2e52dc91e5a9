"""The standings of a tournament of stages (D13-D17): the service computes every stage
with the engine, readers get the current stage's, a hidden stage shows games only."""

from __future__ import annotations

from fractions import Fraction

from bot.db import Database
from bot.db import stages as stages_db
from bot.db.games import save_game
from bot.db.scoring_bridge import load_scoring_tournament
from bot.db.stages import StageSpec
from bot.db.tournaments import TournamentRow
from bot.reads.standings import StandingsService
from bot.texts.i18n import create_i18n, use_language
from bot.texts.rating_format import Pages
from bot.texts.standings_text import live_message, rating_block
from scoring import Ruleset, Stage, tournament_standings
from scoring.model import Result
from tests.db.helpers import ENDED, JUDGE, make_draft


async def _two_stages(db: Database, tid: int, players: list[int], *, hidden: bool) -> None:
    """Qualifying of 2 games a player (2 games on 12 players), then a final of 2 games
    for all 12 (carry 0.5, compensation off) with one game played."""
    async with db.transaction() as conn:
        first = await stages_db.add_stage(
            conn, tid, StageSpec("qualifying", 2, None), status="running"
        )
        spec = StageSpec("final", 2, 12, carry="0.5", compensation=False, hidden=hidden)
        final = await stages_db.add_stage(conn, tid, spec)
        await save_game(conn, tid, make_draft(players[:10], first_killed=1), JUDGE, ENDED)
        await save_game(
            conn, tid, make_draft(players[2:], round_no=2, result=Result.BLACK), JUDGE, ENDED
        )
        await stages_db.set_status(conn, first.id, "closed")
        await stages_db.set_status(conn, final.id, "running")
        for player in players:
            await stages_db.add_entrant(conn, final.id, player, "cut")
        final_game = make_draft(players[1:11], round_no=3, result=Result.BLACK, first_killed=1)
        await save_game(conn, tid, final_game, JUDGE, ENDED)


async def test_stage_standings_match_the_engine_d15(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    await _two_stages(db, tournament.id, players, hidden=False)
    ts = await StandingsService(db).get(tournament.id)
    async with db.read() as conn:
        model = await load_scoring_tournament(conn, tournament.id)
    stages = [
        Stage("qualifying", Ruleset(2)),
        Stage("final", Ruleset(2, False, Fraction(1, 2)), entrants=12),
    ]
    names = ["qualifying", "qualifying", "final"]
    expected = tournament_standings(stages, zip(names, model.games, strict=True))
    assert ts.stage is not None and ts.stage.row.name == "final"
    assert ts.standings == expected.stages[1].standings  # the current stage's, by D15
    assert ts.stage.staged == expected
    assert len(ts.tournament.games) == 1 and ts.tournament.distance == 2  # D14
    assert ts.stage.carried and ts.stage.before == "qualifying"
    # Every game's points within its stage: the final's red first-killed gets no Ci (D14).
    breakdowns = ts.breakdowns()
    assert sorted(breakdowns) == ["R1-T1", "R2-T1", "R3-T1"]
    assert breakdowns["R3-T1"].seats[0].ci == 0


async def test_a_tournament_without_stages_has_no_stage_view(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    async with db.transaction() as conn:
        await save_game(conn, tournament.id, make_draft(players[:10]), JUDGE, ENDED)
    ts = await StandingsService(db).get(tournament.id)
    assert ts.stage is None and len(ts.standings.rows) == 10


async def test_a_hidden_stage_shows_games_played_only_d17(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    await _two_stages(db, tournament.id, players, hidden=True)
    ts = await StandingsService(db).get(tournament.id)
    with use_language(create_i18n(), "en"):
        text = live_message("Cup", ts.standings, stage=ts.stage)
        group, staff = Pages(), Pages()
        for pages, reveal in ((group, False), (staff, True)):
            rating_block(
                pages,
                "Cup",
                ts.standings,
                games=1,
                show_all=True,
                pending={},
                pending_players=(),
                stage=ts.stage,
                reveal=reveal,
            )
    assert "Stage 2 of 2: final" in text
    assert "hidden until it ends" in text and "Total" not in text
    assert "Total" not in "".join(group.pages()) and "P1 " in "".join(group.pages())
    shown = "".join(staff.pages())
    assert "Total" in shown and "Hidden from the group" in shown
    assert "0.5 × those brought from the qualifying stage" in shown


async def test_an_open_stage_shows_its_figures_and_the_carried_note_d15(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    await _two_stages(db, tournament.id, players, hidden=False)
    ts = await StandingsService(db).get(tournament.id)
    with use_language(create_i18n(), "ru"):
        text = live_message("Cup", ts.standings, stage=ts.stage)
    assert "0,5" in text and "D15" not in text  # our decision ids are not for readers


async def test_a_finished_tournament_of_stages_shows_the_final_standings_d16_d17(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    await _two_stages(db, tournament.id, players, hidden=True)
    async with db.transaction() as conn:
        assert await stages_db.close_all(conn, tournament.id) == 1
    ts = await StandingsService(db).get(tournament.id)
    assert ts.stage is not None and ts.stage.finished
    assert ts.standings == ts.stage.staged.final and len(ts.tournament.games) == 3
    with use_language(create_i18n(), "en"):
        text = live_message("Cup", ts.standings, stage=ts.stage)
    assert "The final standings of all 2 stages" in text
    assert "Total" in text  # the hidden final ended with the tournament
