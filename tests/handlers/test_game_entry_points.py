"""Points on the card: Ci (8.6, D1), the best move entered by the judge (8.3), penalties
(8.5, D8), judge's extra points (8.4) and their caps and budget."""

from __future__ import annotations

import pytest

from bot.db import Database
from tests.handlers.test_game_entry_support import JUDGE, JUDGE2, Driver, World
from tests.support import BotHarness

# Roles used throughout: sheriff 1, don 2, mafia 3 and 4, civilians 5–10.
ROLES = (1, 2, (3, 4))


async def review_after(judge: Driver, **kwargs: object) -> str:
    await judge.enter(roles=ROLES, **kwargs)  # type: ignore[arg-type]
    await judge.to_review()
    return judge.text


async def test_8_6_black_win_gives_the_red_first_killed_ci(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, distance=10)  # B = 4 (D2)
    judge = world.judge()
    text = await review_after(judge, night=5, result="Black win")
    assert "5. Echo (civilian): Ci 0.1 = <b>0.1</b>" in text
    assert "B = 4" in text and "depends on the whole tournament" in text and "D1" not in text
    assert "2. Bravo (don): win 1 = <b>1</b>" in text
    await judge.save()
    # Echo shot on night 1 again: i = 2, so Ci = 0.2 in this game (D1).
    second = world.judge()
    text = await review_after(second, round_table="2 1", night=5, result="Black win")
    assert "5. Echo (civilian): Ci 0.2 = <b>0.2</b>" in text
    # A red win compensates nobody (8.6.2).
    await second.tap("7. Result")
    await second.tap("🔴 Red win")
    await second.to_review()
    assert "5. Echo (civilian): win 1 = <b>1</b>" in second.text


@pytest.mark.parametrize(
    ("named", "points"), [((2, 3, 4), "0.4"), ((2, 3, 6), "0.25"), ((2, 6, 7), None)]
)
async def test_8_3_4_best_move_with_three_two_one_blacks(
    harness: BotHarness, db: Database, named: tuple[int, ...], points: str | None
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=5, best_move=None)
    assert "Step 6/11: Best move" in judge.text
    for seat in named[:2]:
        await judge.tap(str(seat))
    assert f"✓{named[0]}" in judge.labels() and "5" not in judge.labels()  # D10: not his own
    await judge.tap(f"✓{named[0]}")
    assert "8.3.3" in (judge.last_answer() or "")
    await judge.tap(str(named[2]))
    assert "<b>Accepted</b> (8.3.1)" in judge.text and "Done (3 named)" not in judge.labels()
    await judge.next()
    await judge.tap("🔴 Red win")
    await judge.to_review()
    if points is None:
        assert "5. Echo (civilian): win 1 = <b>1</b>" in judge.text
    else:
        assert f"5. Echo (civilian): win 1 · best move {points} =" in judge.text
    game = await judge.save()
    assert game.best_move == named


async def test_8_3_2_done_after_one_number(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=5, best_move=(3,))
    await judge.to_review()
    assert "Best move: 3 — <b>Accepted</b>" in judge.text
    game = await judge.save()
    assert game.best_move == (3,)


async def test_8_3_6_no_best_move_after_two_left_on_day_1(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.seat()
    await judge.roles(*ROLES)
    await judge.tap("2")
    await judge.tap("5")
    # Straight on to the result: the best move step does not apply.
    assert "Step 7/11: Result" in judge.text and "8.3.6" in judge.text
    await judge.tap_data(judge.step_data("seat", 3, step="bm"))
    assert "out of date" in (judge.last_answer() or "")
    # A best move entered before day 1 was changed to 2 is removed.
    await judge.back()
    await judge.back()
    await judge.tap("1")
    await judge.tap("✓5")
    await judge.tap("3")
    await judge.back()
    await judge.back()
    await judge.tap("2")
    assert "The best move was removed" in judge.text and "8.3.6" in judge.text


async def test_8_3_5_a_hint_voids_the_best_move(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=5, best_move=None)
    await judge.tap("☐ Asked for a hint (8.3.5)")
    for seat in ("2", "3", "4"):
        await judge.tap(seat)
    assert "earns nothing (8.3.5)" in judge.text and "☑ Asked for a hint (8.3.5)" in judge.labels()
    await judge.next()
    await judge.tap("🔴 Red win")
    await judge.to_review()
    assert "5. Echo (civilian): win 1 = <b>1</b>" in judge.text
    game = await judge.save()
    assert game.best_move_hint and game.best_move == (2, 3, 4)


async def test_d10_black_first_killed_best_move_earns_nothing(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=3, best_move=(2, 4, 5), result="Red win")
    assert "recorded but earns nothing (8.3.4)" in judge.text
    await judge.to_review()
    assert "3. Charlie (mafia): 0 = <b>0</b>" in judge.text


# -- penalties (8.5, D8) ------------------------------------------------------------------


async def at_penalties(
    world: World, result: str, user: int = JUDGE, round_table: str = "1 1"
) -> Driver:
    judge = world.judge(user)
    await judge.enter(roles=ROLES, night=None, result=result, round_table=round_table)
    await judge.next()
    assert "Step 9/11: Penalties" in judge.text
    return judge


@pytest.mark.parametrize("rule", ["8.5.1", "8.5.3"])
async def test_8_5_1_and_8_5_3_need_red_and_a_black_win(
    harness: BotHarness, db: Database, rule: str
) -> None:
    world = await World.create(harness, db)
    judge = await at_penalties(world, "Black win")
    await judge.select(1)  # the sheriff
    assert f"☐ {rule}" in judge.labels()
    await judge.tap(f"☐ {rule}")
    assert f"☑ {rule} (tap to remove)" in judge.labels()
    await judge.to_review()
    assert "1. Alpha (sheriff): penalties −0.4 = <b>−0.4</b>" in judge.text
    game = await judge.save()
    assert game.seat(1).penalties == (rule,)
    # With a red win they are not offered, and a crafted tap is refused (D8).
    other = await at_penalties(world, "Red win", round_table="1 2")
    await other.select(5)
    assert f"☐ {rule}" not in other.labels()
    await other.tap_data(other.step_data("rule", 5, int(rule[-1])))
    assert "D8" not in (other.last_answer() or "") and rule in (other.last_answer() or "")
    assert "Penalty" not in other.text


async def test_8_5_2_needs_a_civilian(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = await at_penalties(world, "Red win")
    await judge.select(6)
    assert "☐ 8.5.2" in judge.labels()
    await judge.tap("☐ 8.5.2")
    assert "Penalty (−0.4 each): seat 6 — 8.5.2" in judge.text
    # The sheriff is red but not a civilian.
    await judge.tap_data(judge.step_data("rule", 1, 2))
    assert "needs a civilian;" in (judge.last_answer() or "")


async def test_8_5_4_needs_black_and_a_red_win(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = await at_penalties(world, "Red win")
    await judge.select(2)  # the don
    assert judge.labels().count("☐ 8.5.4") == 1 and "☐ 8.5.1" not in judge.labels()
    await judge.tap("☐ 8.5.4")
    await judge.tap("3")
    await judge.tap("☐ 8.5.4")
    await judge.to_review()
    assert "2. Bravo (don): penalties −0.4" in judge.text
    assert "3. Charlie (mafia): penalties −0.4" in judge.text
    other = await at_penalties(world, "Black win", JUDGE2)
    await other.tap_data(other.step_data("rule", 2, 4))
    assert "8.5.4" in (other.last_answer() or "") and "red win;" in (other.last_answer() or "")


async def test_8_5_d8_a_changed_result_drops_a_penalty_it_no_longer_allows(
    harness: BotHarness, db: Database
) -> None:
    """The protocol's knock-on: the judge is told, and the game stays savable."""
    world = await World.create(harness, db)
    judge = await at_penalties(world, "Red win")
    await judge.select(2)
    await judge.tap("☐ 8.5.4")
    await judge.to_review()
    await judge.tap("7. Result")
    await judge.tap("⚫ Black win")
    assert "Seat 2's penalty 8.5.4 was removed" in judge.text
    await judge.to_review()
    assert "To fix before saving" not in judge.text and "penalties" not in judge.text
    game = await judge.save()
    assert game.seat(2).penalties == ()


async def test_disqualification_8_2_4_keeps_the_win_d9(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=None, result="Red win")
    await judge.tap("7")
    assert "Disqualified (8.2.4): 7" in judge.text
    await judge.to_review()
    assert "7. Golf (civilian): win 1 · disqualification −0.5 = <b>0.5</b>" in judge.text


# -- judge's extra points (8.4) -----------------------------------------------------------


async def at_extras(
    world: World, *, result: str = "Red win", user: int = JUDGE, **kwargs: object
) -> Driver:
    judge = world.judge(user)
    await judge.enter(roles=ROLES, result=result, **kwargs)  # type: ignore[arg-type]
    await judge.next()
    await judge.next()
    assert "Step 10/11: Judge's extra points" in judge.text
    return judge


async def test_8_4_7_a_draw_offers_no_judge_points(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=None, result="Draw")
    await judge.next()
    await judge.next()
    assert "Step 11/11: Review" in judge.text
    assert "10. Judge's extra points" not in judge.labels()
    await judge.back()
    assert "Step 9/11: Penalties" in judge.text
    await judge.tap_data(judge.step_data("val", 6, 30, step="ex"))
    assert "out of date" in (judge.last_answer() or "")
    # Points given before the result became a draw are removed (8.4.7).
    other = await at_extras(world, night=None, user=JUDGE2)
    await other.select(6)
    await other.tap("0.3")
    await other.back()
    await other.back()
    await other.back()
    await other.tap("🤝 Draw")
    assert "removed: a draw gets none (8.4.7)" in other.text and "Judge's points" not in other.text


async def test_8_4_3_winner_up_to_0_7_and_8_4_4_loser_up_to_0_4(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = await at_extras(world, night=None)
    await judge.select(6)  # a civilian of the winning team
    assert "Seat 6 (Foxtrot): up to 0.7 (8.4.3: a winner at most 0.7)." in judge.text
    assert "0.7" in judge.labels() and "0.75" not in judge.labels()
    await judge.select(3)  # mafia: the losing team
    assert "Seat 3 (Charlie): up to 0.4 (8.4.4: a loser at most 0.4)." in judge.text
    assert "0.4" in judge.labels() and "0.45" not in judge.labels()
    await judge.say("0.45")
    assert "8.4.4" in (judge.last_sent() or "") and "Judge's points" not in judge.text
    await judge.say("6 0.75")
    assert "8.4.3" in (judge.last_sent() or "") and "Judge's points" not in judge.text
    await judge.select(6)
    await judge.tap("0.7")
    assert "seat 6 — 0.7 (needs the chief judge's approval)" in judge.text
    await judge.say("3 0.3")
    assert "seat 3 — 0.3" in judge.text
    assert "Budget (8.4.2): 1 of 1.0 counts, 0 free." in judge.text
    await judge.say("0.333")
    assert "two decimals" in (judge.last_sent() or "") and "D6" not in (judge.last_sent() or "")
    await judge.say("abc")
    assert "two decimals" in (judge.last_sent() or "")


async def test_8_4_2_sum_over_1_is_refused(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = await at_extras(world, night=None)
    await judge.say("3 0.4")  # a loser at his cap (8.4.4)
    await judge.say("7 0.4")
    assert "seat 3 — 0.4; seat 7 — 0.4" in judge.text
    assert "Budget (8.4.2): 0.8 of 1.0 counts, 0.2 free." in judge.text
    await judge.select(8)
    assert "0.2" in judge.labels() and "0.25" not in judge.labels()
    await judge.say("0.25")
    assert "8.4.2" in (judge.last_sent() or "")
    await judge.say("0.2")
    assert "0 free" in judge.text


async def test_8_4_1_at_most_four_players(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = await at_extras(world, night=None)
    for seat in (5, 6, 7, 8):
        await judge.say(f"{seat} 0.1")
    await judge.say("9 0.1")
    assert "8.4.1" in (judge.last_sent() or "")
    await judge.select(9)
    assert not any(label.startswith("0.") for label in judge.labels())


async def test_8_4_6_the_best_move_wins_and_frees_the_budget(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = await at_extras(world, night=5, best_move=(2, 3, 4))
    await judge.say("5 0.4")  # equal to his best move: D4, counted as best move
    assert "Seat 5: 0.4 does not count — his best move gives 0.4" in judge.text
    assert "Budget (8.4.2): 0 of 1.0 counts, 1 free." in judge.text
    await judge.say("6 0.5")
    await judge.say("7 0.5")
    assert "Budget (8.4.2): 1 of 1.0 counts, 0 free." in judge.text
    await judge.next()
    assert "5. Echo (civilian): win 1 · best move 0.4 · judge 0.4 (not counted" in judge.text
    assert "6. Foxtrot (civilian): win 1 · judge 0.5 = <b>1.5</b>" in judge.text
    game = await judge.save()
    assert game.seat(5).judge_extra == 40 and game.status == "final"


async def test_D6_judges_points_typed_with_endless_digits_get_a_reply_saying_what_to_type(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = await at_extras(world, night=None)
    # Thousands of digits, and more digits than exact arithmetic keeps: the latter would
    # be rounded to 0.35 before D6's two decimals were checked.
    for endless in ("3 " + "1" * 5000, "3 0." + "0" * 5000 + "1", "3 0.35" + "0" * 24 + "1"):
        await judge.say(endless)
        assert "Type the points as a number with at most two decimals" in (
            judge.last_sent() or ""
        )
        assert "Judge's points" not in judge.text
    await judge.say("3 0.3500")
    assert "seat 3 — 0.35" in judge.text
