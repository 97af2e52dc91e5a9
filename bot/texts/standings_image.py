"""The standings as a picture (PNG, Pillow): readable on a phone, Cyrillic names included.

Pure drawing: the caller passes translated column titles and already formatted cells
(``bot.texts.standings_text.picture``: no text is made here). A long table is cut into pages
of ``rows_per_image`` rows, one PNG each, so every page stays within Telegram's photo
limits (width + height ≤ 10000 px, aspect ratio ≤ 20) and survives its compression.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

# A TrueType font with Cyrillic; the first that exists wins. Pillow's own default
# font is the last resort (it has no Cyrillic, but it never fails).
FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/local/share/fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/Library/Fonts/Arial Unicode.ttf",
    "C:/Windows/Fonts/arial.ttf",
)
BOLD_FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf",
)

WIDTH = 1200  # at least; wider only if the number columns need it
MARGIN = 40
ROW_HEIGHT = 52
FONT_SIZE = 30
TITLE_SIZE = 40
HEADER_SIZE = 26
ROWS_PER_IMAGE = 50

BACKGROUND = (255, 255, 255)
TEXT = (25, 25, 35)
MUTED = (110, 110, 125)
HEADER_BG = (38, 70, 120)
HEADER_TEXT = (255, 255, 255)
ZEBRA = (236, 241, 250)
PODIUM = (255, 244, 214)  # places 1-3 stand out
ELLIPSIS = "…"

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# Alignment of the 7 columns: place, nickname, total, extra, wins, Ci, games. Number
# columns are as wide as their widest cell and right-aligned so decimals line up; the
# nickname takes the rest.
_ALIGN = ("center", "left", "right", "right", "right", "right", "right")
_NAME = 1
PAD = 12
MIN_NAME_WIDTH = 420


@lru_cache(maxsize=8)
def load_font(size: int, *, bold: bool = False) -> Font:
    for path in (BOLD_FONT_PATHS if bold else ()) + FONT_PATHS:
        if Path(path).is_file():
            try:
                return ImageFont.truetype(path, size)
            except OSError:
                continue
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=4096)
def _text_width(font: Font, text: str) -> float:
    # Each cell is measured for the layout, to fit it and to place it: once is enough
    # (and a table repeats most of its numbers).
    return float(font.getlength(text))


def fit_text(text: str, font: Font, width: float) -> str:
    """``text`` cut with an ellipsis so that it is at most ``width`` pixels wide."""
    if _text_width(font, text) <= width:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits with the ellipsis
        middle = (low + high + 1) // 2
        if _text_width(font, text[:middle].rstrip() + ELLIPSIS) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + ELLIPSIS


def _layout(
    columns: Sequence[str], rows: Sequence[Sequence[str]], font: Font, bold: Font
) -> tuple[int, list[tuple[int, int, str]]]:
    """The image width and each column's (left, right, alignment)."""
    widths = []
    for index, title in enumerate(columns):
        cells = [_text_width(font, row[index]) for row in rows] if index != _NAME else []
        widths.append(max([_text_width(bold, title), *cells]) + 2 * PAD + 2)  # + rounding
    fixed = sum(w for i, w in enumerate(widths) if i != _NAME)
    width = max(WIDTH, round(fixed + MIN_NAME_WIDTH + 2 * MARGIN))
    widths[_NAME] = width - 2 * MARGIN - fixed
    bounds = []
    x = float(MARGIN)
    for w, align in zip(widths, _ALIGN, strict=True):
        bounds.append((round(x), round(x + w), align))
        x += w
    return width, bounds


def _draw_cell(
    draw: ImageDraw.ImageDraw,
    text: str,
    bounds: tuple[int, int, str],
    y: int,
    font: Font,
    fill: tuple[int, int, int],
) -> None:
    left, right, align = bounds
    text = fit_text(text, font, right - left - 2 * PAD)
    width = _text_width(font, text)
    x: float
    if align == "left":
        x = left + PAD
    elif align == "right":
        x = right - PAD - width
    else:
        x = left + (right - left - width) / 2
    draw.text((x, y + ROW_HEIGHT / 2), text, font=font, fill=fill, anchor="lm")


def _page(
    title: str,
    subtitle: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    first_row: int,
    podium: int,
    layout: tuple[int, list[tuple[int, int, str]]],
) -> bytes:
    title_font = load_font(TITLE_SIZE, bold=True)
    font = load_font(FONT_SIZE)
    bold = load_font(HEADER_SIZE, bold=True)
    small = load_font(FONT_SIZE - 6)
    width, bounds = layout
    top = MARGIN + TITLE_SIZE + 16 + (FONT_SIZE + 10 if subtitle else 0)
    height = top + ROW_HEIGHT * (len(rows) + 1) + MARGIN
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text(
        (MARGIN, MARGIN),
        fit_text(title, title_font, width - 2 * MARGIN),
        font=title_font,
        fill=TEXT,
    )
    if subtitle:
        draw.text(
            (MARGIN, MARGIN + TITLE_SIZE + 12),
            fit_text(subtitle, small, width - 2 * MARGIN),
            font=small,
            fill=MUTED,
        )
    draw.rectangle((MARGIN, top, width - MARGIN, top + ROW_HEIGHT), fill=HEADER_BG)
    for text, cell in zip(columns, bounds, strict=True):
        _draw_cell(draw, text, cell, top, bold, HEADER_TEXT)
    for index, row in enumerate(rows):
        y = top + ROW_HEIGHT * (index + 1)
        number = first_row + index
        if number < podium:
            draw.rectangle((MARGIN, y, width - MARGIN, y + ROW_HEIGHT), fill=PODIUM)
        elif index % 2:
            draw.rectangle((MARGIN, y, width - MARGIN, y + ROW_HEIGHT), fill=ZEBRA)
        for text, cell in zip(row, bounds, strict=True):
            _draw_cell(draw, text, cell, y, font, TEXT)
    return png(image, _palette())


PALETTE = 64
BLENDS = 16  # steps of anti-aliasing between a text's colour and its background


def png(image: Image.Image, palette: Image.Image | None = None) -> bytes:
    """The picture as PNG. A handful of colours and their anti-aliasing: a 64-colour
    palette looks the same, and encodes in half the time into a third of the bytes (an
    upload per round). A picture whose colours are known beforehand passes them
    (``blend_palette``): each pixel then takes the nearest, which costs a fifth of
    finding the 64 colours in the picture."""
    if palette is None:
        paletted = image.quantize(colors=PALETTE, method=Image.Quantize.FASTOCTREE)
    else:
        paletted = image.quantize(palette=palette, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    paletted.save(buffer, format="PNG")
    return buffer.getvalue()


RGB = tuple[int, int, int]


def blend_palette(pairs: Sequence[tuple[RGB, RGB]]) -> Image.Image:
    """A palette image of every (background, text colour) pair of ``pairs`` and the
    ``BLENDS`` steps between them: all the colours text drawn with anti-aliasing on
    those backgrounds makes."""
    colours: dict[RGB, None] = {}  # in order, once each
    for (r, g, b), (r2, g2, b2) in pairs:
        for step in range(BLENDS):
            part = step / (BLENDS - 1)
            blend = (round(r + (r2 - r) * part), round(g + (g2 - g) * part),
                     round(b + (b2 - b) * part))
            colours[blend] = None
    flat = [value for colour in colours for value in colour]
    if len(flat) > 768:
        raise ValueError(f"{len(colours)} colours: a palette holds 256")
    image = Image.new("P", (1, 1))
    image.putpalette(flat + [0] * (768 - len(flat)))
    return image


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """The standings picture's colours: text on the rows, the header and the title."""
    return blend_palette([
        (BACKGROUND, TEXT), (ZEBRA, TEXT), (PODIUM, TEXT), (BACKGROUND, MUTED),
        (HEADER_BG, HEADER_TEXT),
    ])


def render_standings(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    subtitle: str = "",
    rows_per_image: int = ROWS_PER_IMAGE,
    podium: int = 3,
    page_label: str = "{page}/{pages}",
) -> list[bytes]:
    """PNG pages of the table: ``columns`` are the 7 titles (place, nickname, total,
    extra, wins, Ci, games), each row the 7 formatted cells. ``podium`` first rows
    are highlighted. With several pages, each title ends with ``page_label``."""
    if len(columns) != len(_ALIGN) or any(len(row) != len(_ALIGN) for row in rows):
        raise ValueError(f"expected {len(_ALIGN)} columns")
    if rows_per_image < 1:
        raise ValueError("rows_per_image must be at least 1")
    chunks = [rows[i : i + rows_per_image] for i in range(0, len(rows), rows_per_image)] or [[]]
    # One layout for every page, so the columns don't jump between pages.
    layout = _layout(columns, rows, load_font(FONT_SIZE), load_font(HEADER_SIZE, bold=True))
    pages = []
    for number, chunk in enumerate(chunks, start=1):
        page_title = title
        if len(chunks) > 1:
            page_title = f"{title} · " + page_label.format(page=number, pages=len(chunks))
        first = (number - 1) * rows_per_image
        pages.append(_page(page_title, subtitle, columns, chunk, first, podium, layout))
    return pages
