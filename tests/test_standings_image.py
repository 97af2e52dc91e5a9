"""The standings picture: PNG pages readable on a phone, Cyrillic nicknames,
long names cut with an ellipsis, 200 players on several pages."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from bot.texts import standings_image
from bot.texts.standings_image import fit_text, load_font, render_standings

COLUMNS = ("#", "Игрок", "Итог", "Доп.", "Победы", "Ci", "Игры")
LONG = "Александр Длинноименный-Пересветов 40 с."  # 40 characters


def rows(count: int) -> list[tuple[str, ...]]:
    names = ["Ёжик в тумане", LONG, "Bob"] + [f"Игрок №{i}" for i in range(4, count + 1)]
    return [
        (str(i), names[i - 1], f"{10 - i / 100:.2f}", "0.40", "3", "0.13", "10")
        for i in range(1, count + 1)
    ]


def decode(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


@pytest.fixture
def no_system_fonts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(standings_image, "FONT_PATHS", ("/nonexistent/font.ttf",))
    monkeypatch.setattr(standings_image, "BOLD_FONT_PATHS", ())
    load_font.cache_clear()
    yield
    load_font.cache_clear()


def test_200_players_render_as_readable_pages() -> None:
    assert len(LONG) == 40
    pages = render_standings("Весенний кубок «Мафия»", COLUMNS, rows(200), subtitle="12 игр")
    assert len(pages) == 4  # 50 rows a page
    for png in pages:
        image = decode(png)
        assert image.format == "PNG"
        width, height = image.size
        assert width >= 1000
        # Telegram's photo limits: width + height <= 10000, aspect ratio <= 20.
        assert width + height <= 10000 and height / width <= 20
        assert len(png) < 10 * 1024 * 1024
    last = render_standings("Кубок", COLUMNS, rows(210))[-1]
    assert decode(last).size[1] < decode(pages[0]).size[1]  # 10 rows on the last page


def test_one_page_for_a_small_tournament_with_zebra_rows() -> None:
    (png,) = render_standings("Кубок", COLUMNS, rows(10), podium=0)
    image = decode(png).convert("RGB")
    x = standings_image.MARGIN + 5
    top = standings_image.MARGIN + standings_image.TITLE_SIZE + 16
    first = top + standings_image.ROW_HEIGHT + 3  # top of the first row, below the header
    second = first + standings_image.ROW_HEIGHT
    assert near(image.getpixel((x, top + 3)), standings_image.HEADER_BG)
    assert near(image.getpixel((x, first)), standings_image.BACKGROUND)
    assert near(image.getpixel((x, second)), standings_image.ZEBRA)
    assert not near(standings_image.BACKGROUND, standings_image.ZEBRA)


def near(pixel: object, colour: tuple[int, int, int]) -> bool:
    """The picture is stored with a 64-colour palette (and Telegram recompresses it
    anyway): a colour may move by a step or two, never to another colour of the table."""
    assert isinstance(pixel, tuple)
    return all(abs(a - b) <= 3 for a, b in zip(pixel, colour, strict=True))


def test_long_nickname_is_cut_with_an_ellipsis() -> None:
    font = load_font(standings_image.FONT_SIZE)
    cut = fit_text(LONG, font, 300)
    assert cut.endswith("…") and len(cut) < len(LONG)
    assert font.getlength(cut) <= 300
    assert fit_text("Bob", font, 300) == "Bob"


@pytest.mark.skipif(
    not any(Path(p).is_file() for p in standings_image.FONT_PATHS),
    reason="no TrueType font with Cyrillic installed (apt-get install fonts-dejavu-core)",
)
def test_cyrillic_font_is_found_on_this_machine() -> None:
    font = load_font(30)
    # A real TrueType font draws "Ж" wider than a space; the bitmap fallback can't.
    assert font.getlength("Ж") > font.getlength(" ")
    assert hasattr(font, "path")


def test_without_any_font_it_still_draws(no_system_fonts: None) -> None:
    pages = render_standings("Кубок", COLUMNS, rows(5))
    assert decode(pages[0]).size[0] >= 1000


def test_no_rows_still_gives_a_picture_with_the_header() -> None:
    (png,) = render_standings("Кубок", COLUMNS, [])
    assert decode(png).size[1] > standings_image.ROW_HEIGHT


def test_wrong_number_of_columns_is_refused() -> None:
    with pytest.raises(ValueError):
        render_standings("Кубок", COLUMNS[:3], rows(2))
