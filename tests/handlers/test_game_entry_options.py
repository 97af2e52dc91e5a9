"""The judge's card offers what the engine accepts and refuses what it refuses: for random
drafts, every penalty and judge's points value the card's keyboard offers passes
``validate_game``, and every one it does not offer is refused by ``validate_game`` and
by the card's own action when tapped anyway (D8, 8.4.1-8.4.4, 8.4.6, 8.4.7)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.texts.i18n import create_i18n
from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft, new_draft_id, new_token, problems, scoring_game
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.states import GameEntry
from handlers.game_entry.steps import CARD
from handlers.game_entry.view import View
from scoring import PENALTY_RULES, SEAT_NUMBERS, Result
from scoring.judging import EXTRA_STEP, best_move_points

PIDS = list(range(101, 111))
NAMES = {pid: f"#{pid}" for pid in PIDS}
GRID = range(EXTRA_STEP, 100 + 1, EXTRA_STEP)
SETTINGS = settings(
    max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
I18N = create_i18n(Path(__file__).resolve().parents[2] / "locales")


@st.composite
def drafts(draw: st.DrawFn) -> Draft:
    """A draft entered up to the judge's points without a problem: seats, roles, day 1,
    night 1, a best move, the result, disqualifications, some penalties and points."""
    d = Draft(token=new_token(), draft_id=new_draft_id(), judge_id=1, locale="en", tid=1)
    d.round, d.table, d.players = 1, 1, list(PIDS)
    sheriff, don, *mafia = draw(st.permutations(list(SEAT_NUMBERS)))[:4]
    d.sheriff, d.don, d.mafia = sheriff, don, sorted(mafia)
    d.day1 = draw(st.integers(0, 3))
    d.night = draw(st.integers(0, 10))
    if d.best_move_allowed:
        others = [n for n in SEAT_NUMBERS if n != d.night]
        d.bm = draw(st.lists(st.sampled_from(others), max_size=3, unique=True))
        d.bm_hint = draw(st.booleans())
    d.bm_done = True
    d.result = draw(st.sampled_from(list(Result))).value
    d.dq = sorted(draw(st.lists(st.sampled_from(list(SEAT_NUMBERS)), max_size=2, unique=True)))
    for seat in draw(st.lists(st.sampled_from(list(SEAT_NUMBERS)), max_size=3, unique=True)):
        tried = d.copy()
        tried.penalties[str(seat)] = [draw(st.sampled_from(PENALTY_RULES))]
        if not problems(tried, NAMES):
            d.penalties = tried.penalties
    for seat in draw(st.lists(st.sampled_from(list(SEAT_NUMBERS)), max_size=5, unique=True)):
        tried = d.copy()
        tried.extras[str(seat)] = draw(st.integers(1, 70))
        if not problems(tried, NAMES):
            d.extras = tried.extras
    assume(not problems(d, NAMES))
    return d


def offered(d: Draft, step: str, action: str) -> list[tuple[int, int]]:
    """(n, m) of the buttons of ``action`` the card shows on ``step`` for ``d``."""
    shown = d.copy()
    shown.step = step
    view = View()
    game = scoring_game(shown, NAMES)
    assert game is not None
    view.best_move_points = best_move_points(game)
    keys = Keys(shown, CARD)
    with I18N.context(), I18N.use_locale("en"):
        CARD.spec(step).keyboard(keys, view)
    found = []
    for row in keys.rows:
        for button in row:
            data = Step.unpack(button.callback_data or "")
            if data.a == action:
                found.append((data.n, data.m))
    return found


async def tap(d: Draft, step: str, action: str, n: int, m: int) -> tuple[str | None, Draft]:
    """The card's own action for a button, tapped on a copy of ``d``."""
    tried = d.copy()
    tried.step = step
    func = CARD.action(step, action)
    assert func is not None
    ctx: Any = None  # these actions need no context
    with I18N.context(), I18N.use_locale("en"):
        refusal = await func(ctx, tried, Step(t=d.token, s=step, a=action, n=n, m=m))
    return refusal, tried


@SETTINGS
@given(drafts(), st.sampled_from(list(SEAT_NUMBERS)))
async def test_d8_the_penalties_offered_are_those_the_engine_accepts(d: Draft, seat: int) -> None:
    d.sel = seat
    rules = {PENALTY_RULES[m - 1] for n, m in offered(d, "pe", "rule") if n == seat}
    for index, rule in enumerate(PENALTY_RULES, start=1):
        given_already = rule in d.penalties.get(str(seat), [])
        if given_already:
            assert rule in rules  # offered for removal
            continue
        tried = d.copy()
        tried.penalties[str(seat)] = [*tried.penalties.get(str(seat), []), rule]
        accepted = not problems(tried, NAMES)
        assert (rule in rules) == accepted, (rule, seat, d)
        refusal, after = await tap(d, "pe", "rule", seat, index)
        assert (refusal is None) == accepted, (rule, refusal)
        if refusal is not None:
            assert after.penalties == d.penalties


@SETTINGS
@given(drafts(), st.sampled_from(list(SEAT_NUMBERS)))
async def test_8_4_the_points_offered_are_those_the_engine_accepts(d: Draft, seat: int) -> None:
    d.sel = seat
    seats = {n for n, _m in offered(d, "ex", "seat")}
    values = {m for n, m in offered(d, "ex", "val") if n == seat}
    if seat not in seats:  # no cap: a draw (8.4.7)
        assert d.result == Result.DRAW.value and not values
    for value in GRID:
        tried = d.copy()
        tried.extras[str(seat)] = value
        accepted = not problems(tried, NAMES)
        assert (value in values) == accepted, (value, seat, d)
        refusal, after = await tap(d, "ex", "val", seat, value)
        assert (refusal is None) == accepted, (value, refusal)
        if refusal is not None:
            assert after.extras == d.extras


def test_step_codes_and_states_are_the_stored_ones() -> None:
    """Drafts stored before an upgrade name their step and state so: both stay."""
    assert CARD.prelude.code == "tn"
    assert CARD.order == ("rt", "st", "ro", "d1", "n1", "bm", "re", "dq", "pe", "ex", "rv")
    assert CARD.state_names == {str(state.state) for state in GameEntry.__all_states__}
    assert CARD.state("bm").state == "GameEntry:best_move"
    for number, step in enumerate(CARD.order, start=1):
        assert CARD.number(step) == number and CARD.spec(step).code == step
