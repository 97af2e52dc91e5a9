"""/rating in the tournament chat and in private (8.2-8.7, D3, D7, D12)."""

from __future__ import annotations

from bot.db.connection import Database
from bot.db.protests import add_protest
from bot.texts.rating_format import MESSAGE_LIMIT, utf16_len
from scoring.model import Result, Role
from tests.handlers.rating_fixtures import (
    CHAT,
    ENDED,
    USER_BASE,
    add_game,
    make_world,
    table_rows,
    tied_world,
)
from tests.support import BotHarness


def cells(row: str) -> list[str]:
    """A table row's cells split on the column gaps (nicknames here have no spaces)."""
    return row.split()


async def test_8_7_group_rating_shows_shared_places_for_ties(
    harness: BotHarness, db: Database
) -> None:
    await tied_world(db)
    someone = harness.user(777, "Guest", language_code="en")
    await harness.say(someone, "/rating", chat_id=CHAT)
    text = harness.session.last_text(CHAT)
    assert text is not None and "<b>Spring Cup</b>" in text
    rows = [cells(r) for r in table_rows([text])]
    assert rows[0] == ["1", "P3", "1.30", "0.30", "1", "0.00"]
    assert [r[:2] for r in rows] == [
        ["1", "P3"],
        ["2", "P4"],
        ["3", "P10"],
        ["4", "P5"],
        ["5–6", "P1"],
        ["5–6", "P6"],
        ["7", "P8"],
        ["8", "P7"],
        ["9–10", "P2"],
        ["9–10", "P9"],
    ]
    assert rows[6] == ["7", "P8", "0.50", "−0.50", "1", "0.00"]  # 8.2.4, D9
    assert "8.7.5" in text  # shared places are explained: a lot decides them


async def test_group_without_tournament_gets_one_line(harness: BotHarness) -> None:
    someone = harness.user(778, "Guest", language_code="en")
    await harness.say(someone, "/rating", chat_id=-100999)
    text = harness.session.last_text(-100999)
    assert text is not None and "no tournament" in text and "\n" not in text


async def test_user_in_no_tournament_gets_one_line(harness: BotHarness) -> None:
    someone = harness.user(779, "Guest", language_code="en")
    await harness.say(someone, "/rating")
    text = harness.session.last_text(779)
    assert text is not None and "not in any tournament" in text and "\n" not in text


async def test_rating_image_is_left_to_the_picture_router(
    harness: BotHarness, db: Database
) -> None:
    await tied_world(db)
    someone = harness.user(780, "Guest", language_code="en")
    await harness.say(someone, "/rating image", chat_id=CHAT)
    texts = harness.session.sent_texts(CHAT)
    assert not any("<pre>" in t for t in texts)


async def test_unknown_argument_is_explained(harness: BotHarness, db: Database) -> None:
    await tied_world(db)
    someone = harness.user(781, "Guest", language_code="en")
    await harness.say(someone, "/rating foo", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "Send /rating for the top 20, or /rating all for everyone."
    )


async def test_rating_in_russian_by_default(harness: BotHarness, db: Database) -> None:
    await tied_world(db, language="ru")  # the tournament's language, Russian by default
    someone = harness.user(782, "Гость", language_code="ru")
    await harness.say(someone, "/rating", chat_id=CHAT)
    text = harness.session.last_text(CHAT)
    assert text is not None and "Игрок" in text and "жреби" in text


async def test_D7_and_protest_pending_games_are_marked_and_counted(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 20)
    await add_game(db, world, range(1, 11), table_no=1)
    # 0.6 for a winner needs the chief judge's approval (8.4.3, D7): pending.
    await add_game(db, world, range(11, 21), table_no=2, extras={3: 60})
    await add_game(db, world, range(1, 11), round_no=2, table_no=1)
    async with db.transaction() as conn:
        game = await add_game(db, world, range(11, 21), round_no=2, table_no=2)
        protest = await add_protest(
            conn, game, world.players[10], world.user_of(11), "count", ENDED
        )
    someone = harness.user(783, "Guest", language_code="en")
    await harness.say(someone, "/rating", chat_id=CHAT)
    text = harness.session.last_text(CHAT)
    assert text is not None
    assert "Pending games included: 2" in text
    assert "round 1, table 2 (judge's points above 0.5 await" in text
    assert f"round 2, table 2 (protest #{protest.id} open, 8.8)" in text
    rows = table_rows([text])
    marked = {cells(r)[1] for r in rows if cells(r)[1].endswith("*")}
    assert marked == {f"P{n}*" for n in range(11, 21)}
    # P13's 0.6 is not counted yet (D7): 2 wins, no extra points.
    p13 = next(cells(r) for r in rows if cells(r)[1] == "P13*")
    assert p13[2:] == ["2.00", "0.00", "2", "0.00"]


async def test_long_tables_are_split_under_the_limit_without_cutting_rows(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 150, nick="{n:03d}_Очень<длинный>&ник_игрока")
    for table in range(15):
        seated = range(table * 10 + 1, table * 10 + 11)
        await add_game(db, world, seated, table_no=table + 1, result=Result.BLACK)
    someone = harness.user(784, "Guest", language_code="en")
    harness.session.clear()
    await harness.say(someone, "/rating all", chat_id=CHAT)
    texts = harness.session.sent_texts(CHAT)
    assert len(texts) >= 2
    assert all(utf16_len(t) < MESSAGE_LIMIT for t in texts)
    assert all(t.count("<pre>") == t.count("</pre>") for t in texts)
    rows = table_rows(texts)
    assert len(rows) == 150
    # Every row is whole: place, a truncated escaped nickname, four numbers.
    numbers = {f"{n:03d}" for n in range(1, 151)}
    seen = set()
    for row in rows:
        parts = row.split()
        assert len(parts) == 6, row
        assert parts[1].startswith(parts[1][:3]) and parts[1].endswith("…")
        assert "<" not in row and "&lt;" in row  # HTML of nicknames is escaped
        seen.add(parts[1][:3])
    assert seen == numbers
    # The default is the top 20, with a pointer to everyone.
    harness.session.clear()
    await harness.say(someone, "/rating", chat_id=CHAT)
    texts = harness.session.sent_texts(CHAT)
    assert len(texts) == 1 and "top 20 of 150" in texts[0]
    assert len(table_rows(texts)) == 20


async def test_private_rating_shows_own_row_and_game_breakdown(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 12)
    # R1-T1: black wins; P1 (civilian, seat 1) is shot on night 1 and names the three
    # black seats: best move 0.4 (8.3.4); the judge's 0.3 is less, so not counted (8.4.6);
    # red lost, so Ci = 1 × 0.4 / B with B = 4 for distance 10 (8.6.1, D2): 0.1.
    # P3 broke into a red player with 10 at the table: −0.4 (8.5.1).
    await add_game(
        db,
        world,
        range(1, 11),
        result=Result.BLACK,
        first_killed=1,
        best_move=(2, 7, 9),
        extras={1: 30},
        penalties={3: ("8.5.1",)},
    )
    # R2-T1: P1 is the don, black wins (+1), the judge gives 0.3 (counted), but he is
    # disqualified: −0.5 (8.2.4; he keeps the win, D9).
    await add_game(
        db,
        world,
        [11, 12, 3, 4, 5, 6, 1, 8, 9, 10],
        round_no=2,
        result=Result.BLACK,
        extras={7: 30},
        disqualified=(7,),
    )
    player = harness.user(USER_BASE + 1, "Pavel", language_code="en")
    await harness.say(player, "/rating")
    texts = harness.session.sent_texts(player.id)
    text = "\n".join(texts)
    # Own row: 0.5 + 0.8 = 1.3 total; extra 0.4 + 0.3 − 0.5 = 0.2; one win; Ci 0.1.
    assert "total 1.30 · extra 0.20 · wins 1 · Ci 0.10 · games 2" in text
    assert (
        "<b>Round 1, table 1</b> · seat 1, civilian · your team lost\n"
        "win 0.00 · Ci 0.10 · best move 0.40 · "
        "judge 0.30 (not counted: the best move is not less, 8.4.6) · "
        "penalties 0.00 · disqualification 0.00 · <b>total 0.50</b>"
    ) in text
    assert (
        "<b>Round 2, table 1</b> · seat 7, don · your team won\n"
        "win 1.00 · Ci 0.00 · best move 0.00 · judge 0.30 · "
        "penalties 0.00 · disqualification −0.50 · <b>total 0.80</b>"
    ) in text
    assert all(utf16_len(t) < MESSAGE_LIMIT for t in texts)

    other = harness.user(USER_BASE + 3, "Olga", language_code="en")
    await harness.say(other, "/rating")
    text = "\n".join(harness.session.sent_texts(other.id))
    assert "penalties −0.40 (8.5.1)" in text


async def test_private_rating_marks_pending_and_protested_games(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 10)
    game = await add_game(db, world, range(1, 11), extras={5: 70})  # sheriff 0.7: D7
    async with db.transaction() as conn:
        protest = await add_protest(conn, game, world.players[0], world.user_of(1), "x", ENDED)
    player = harness.user(USER_BASE + 5, "Sam", language_code="en")
    await harness.say(player, "/rating")
    text = "\n".join(harness.session.sent_texts(player.id))
    assert "seat 5, sheriff · your team won · awaits approval" in text
    assert f"protest #{protest.id} open" in text
    assert "judge 0.70 (not counted yet: awaits the chief judge's approval)" in text
    assert "<b>total 1.00</b>" in text


async def test_private_rating_of_a_player_without_games(harness: BotHarness, db: Database) -> None:
    world = await make_world(db, 11)
    await add_game(db, world, range(1, 11))
    player = harness.user(USER_BASE + 11, "Late", language_code="en")
    await harness.say(player, "/rating")
    text = "\n".join(harness.session.sent_texts(player.id))
    assert "<pre>" in text and "You (P11) have no games that count yet." in text


async def test_shared_place_cut_by_the_top_keeps_its_range(
    harness: BotHarness, db: Database
) -> None:
    # Three red wins: 3 sheriffs share 1–3 (8.7.3), 18 civilians 4–21, 9 black 22–30.
    # The top 20 lists 17 of the civilians, each still at 4–21 (not 4–20).
    world = await make_world(db, 30)
    roles = (Role.CIVILIAN,) * 6 + (Role.SHERIFF, Role.MAFIA, Role.MAFIA, Role.DON)
    for table in range(3):
        seated = range(table * 10 + 1, table * 10 + 11)
        await add_game(db, world, seated, table_no=table + 1, roles=roles)
    someone = harness.user(785, "Guest", language_code="en")
    await harness.say(someone, "/rating", chat_id=CHAT)
    rows = [cells(r) for r in table_rows([harness.session.last_text(CHAT) or ""])]
    assert len(rows) == 20
    assert rows[0][0] == "1–3"  # the three sheriffs (8.7.3)
    assert rows[3][0] == rows[-1][0] == "4–21"
