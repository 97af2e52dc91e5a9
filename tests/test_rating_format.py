"""The text of /rating: numbers (D3), shared places (D12), tables and message splitting."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from bot.texts.i18n import create_i18n
from bot.texts.rating_format import (
    GameView,
    Pages,
    display_width,
    fit,
    game_block,
    place_labels,
    points,
    utf16_len,
)
from bot.texts.standings_text import standings_table
from scoring import Result, Role, SeatPoints, StandingRow

LOCALES = Path(__file__).resolve().parent.parent / "locales"


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    i18n = create_i18n(LOCALES)
    with i18n.context(), i18n.use_locale("en"):
        yield


def row(place: int, player: str, total: str = "1", extra: str = "0", wins: int = 1) -> StandingRow:
    return StandingRow(
        place=place,
        player=player,
        total=Fraction(total),
        main=Fraction(total) - Fraction(extra),
        extra=Fraction(extra),
        ci=Fraction(0),
        wins=wins,
        wins_don_sheriff=0,
        first_night_deaths=0,
        games=1,
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(0), "0.00"),
        (Fraction(2, 15), "0.13"),  # Ci = 0.4 / 3 (D3: exact, shown with 2 decimals)
        (Fraction(1, 8), "0.13"),  # half up
        (Fraction(-1, 2), "−0.50"),  # one minus sign, U+2212
        (Fraction(-1, 1000), "0.00"),  # no "−0.00"
        (Fraction(37, 10), "3.70"),
        (12, "12.00"),
    ],
)
def test_D3_points_show_two_decimals(value: Fraction, shown: str) -> None:
    assert points(value) == shown


def test_D12_tied_players_share_a_place_range() -> None:
    assert place_labels([1, 2, 2, 4, 5, 5, 5, 8]) == [
        "1",
        "2–3",
        "2–3",
        "4",
        "5–7",
        "5–7",
        "5–7",
        "8",
    ]


def test_fit_truncates_by_display_width() -> None:
    assert fit("Вася", 6) == "Вася  "
    assert fit("Константинопольский", 8) == "Констан…"
    assert display_width(fit("東京太郎さん", 7)) == 7  # wide characters count double
    assert display_width(fit("Zoë\u0301", 5)) == 5  # a combining accent takes no column


def test_table_aligns_escapes_and_marks_pending() -> None:
    rows = [
        row(1, "<Boss>&Co", "2.5", "0.5", 2),
        row(2, "Очень-длинный-ник-игрока", "1", "0", 1),
        row(2, "Ann", "1", "0", 1),
    ]
    table = standings_table(rows, pending_players={"Ann"})
    # place 3 wide, nickname 14 + the pending mark's column, then the numbers
    assert table.header == "  # Player" + " " * 10 + "Total Extra Wins   Ci"
    assert table.rows[0].startswith("  1 &lt;Boss&gt;&amp;Co ")
    assert "Очень-длинный…" in table.rows[1]
    assert "2–3 Ann*" in table.rows[2]
    # The numbers line up: every row has the same width before escaping.
    plain = [re.sub("&lt;|&gt;|&amp;", "x", r) for r in [table.header, *table.rows]]
    assert len({display_width(r) for r in plain}) == 1


def test_pages_never_cut_a_row_and_stay_under_the_limit() -> None:
    pages = Pages(limit=300)
    pages.text("<b>Title</b>")
    rows = [f"{n:>3} row-{n:03d}-" + "я" * 20 for n in range(1, 41)]
    pages.table("  # header", rows)
    pages.text("footer note")
    texts = pages.pages()
    assert len(texts) > 3
    assert all(utf16_len(t) <= 300 for t in texts)
    found = []
    for text in texts:
        for block in re.findall(r"<pre>(.*?)</pre>", text, re.S):
            lines = block.split("\n")
            assert lines[0] == "  # header"  # the header repeats on every page
            found += lines[1:]
    assert found == rows
    assert texts[0].startswith("<b>Title</b>") and texts[-1].endswith("footer note")


def test_pages_split_an_enormous_paragraph_outside_entities() -> None:
    pages = Pages(limit=100)
    pages.text("a&amp;b " * 40)
    texts = pages.pages()
    assert all(utf16_len(t) <= 100 for t in texts)
    assert "".join(texts).replace("\n", "") == ("a&amp;b " * 40).rstrip("\n")
    assert all(t.count("&") == t.count("&amp;") for t in texts)


def seat_points(**changes: object) -> SeatPoints:
    base = dict(
        seat=1,
        player="P1",
        role=Role.CIVILIAN,
        win=Fraction(0),
        ci=Fraction(1, 10),
        best_move=Fraction(2, 5),
        judge=Fraction(3, 10),
        judge_counted=False,
        judge_pending=False,
        bonus=Fraction(2, 5),
        disqualification=Fraction(0),
        penalties=Fraction(0),
        main=Fraction(1, 10),
        extra=Fraction(2, 5),
        total=Fraction(1, 2),
    )
    base.update(changes)
    return SeatPoints(**base)  # type: ignore[arg-type]


def test_game_block_lists_every_component() -> None:
    block = game_block(GameView(3, 2, Result.BLACK, seat_points(), protests=((7, "rejected"),)))
    assert block == (
        "<b>Round 3, table 2</b> · seat 1, civilian · your team lost · protest #7 rejected\n"
        "win 0.00 · Ci 0.10 · best move 0.40 · "
        "judge 0.30 (not counted: the best move is not less, 8.4.6) · "
        "penalties 0.00 · disqualification 0.00 · <b>total 0.50</b>"
    )


def test_game_block_of_an_annulled_game() -> None:
    block = game_block(GameView(1, 1, Result.RED, None, protests=((3, "upheld"),)))
    assert block == "<b>Round 1, table 1</b> · annulled, not counted · protest #3 upheld"


def test_D3_russian_readers_get_a_decimal_comma_and_files_a_dot() -> None:
    """0,4 in Russian messages and pictures, 0.4 in English ones and in every file; the
    typographic minus for people, the ASCII one for programs."""
    from bot.texts.rating_format import short_points

    i18n = create_i18n(LOCALES)
    with i18n.context(), i18n.use_locale("ru"):
        assert points(Fraction(2, 5)) == "0,40"
        assert points(Fraction(-1, 2)) == "−0,50"
        assert short_points(Fraction(2, 15)) == "0,13"
        assert points(Fraction(2, 5), point=".", minus="-") == "0.40"
    with i18n.context(), i18n.use_locale("en"):
        assert points(Fraction(2, 5)) == "0.40" and short_points(Fraction(-2, 5)) == "−0.4"


def test_D15_weighted_wins_read_as_decimals_not_fractions() -> None:
    """A final weighted 1.5 gives 3.5 wins: the table says 3.5 (3,5 in Russian), never
    7/2; whole wins stay whole."""
    weighted = row(1, "Anna")._replace(wins=Fraction(7, 2))
    [line] = [ln for ln in standings_table([weighted, row(2, "Boris", wins=2)]).rows
              if "Anna" in ln]
    assert " 3.5 " in line and "7/2" not in line
    i18n = create_i18n(LOCALES)
    with i18n.context(), i18n.use_locale("ru"):
        lines = standings_table([weighted]).rows
    assert any(" 3,5 " in ln for ln in lines), lines
