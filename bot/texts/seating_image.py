"""A round's seating as a picture (PNG, Pillow): a card per table with its ten seats.

Apart from ``bot.texts.seating_text`` so that Pillow is imported only when a picture is
drawn (``bot.publishing.posting``), not at the bot's start.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from aiogram.utils.i18n import gettext as _
from PIL import Image, ImageDraw

from bot.texts.seating_text import round_of, round_title, table_title
from bot.texts.standings_image import (
    BACKGROUND,
    HEADER_BG,
    HEADER_TEXT,
    MUTED,
    TEXT,
    ZEBRA,
    Font,
    fit_text,
    load_font,
    png,
)
from seating import Plan

MARGIN = 40
GAP = 28
CARD_WIDTH = 420
HEADER_HEIGHT = 56
ROW_HEIGHT = 46
PAD = 16
TITLE_SIZE = 40
SUBTITLE_SIZE = 30
FONT_SIZE = 28
NUMBER_WIDTH = 52
MAX_COLUMNS = 8

BORDER = (200, 206, 220)


def _wrap(text: str, font: Font, width: float) -> list[str]:
    """Words of ``text`` in lines at most ``width`` pixels wide (a word too long is cut)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and font.getlength(candidate) > width:
            lines.append(current)
            candidate = word
        current = candidate
    if current:
        lines.append(current)
    return [fit_text(line, font, width) for line in lines]


def round_seating_picture(plan: Plan, round_no: int, title: str) -> bytes:
    """The seating of round ``round_no`` as a PNG: a card per table with its ten seats,
    who sits out underneath. Fits Telegram's photo limits up to about 80 tables.
    ValueError for a round the plan doesn't have."""
    round_ = round_of(plan, round_no)
    tables = round_.tables
    columns = max(1, min(MAX_COLUMNS, math.ceil(math.sqrt(len(tables)))))
    rows = max(1, math.ceil(len(tables) / columns))
    card_height = HEADER_HEIGHT + 10 * ROW_HEIGHT
    width = 2 * MARGIN + columns * CARD_WIDTH + (columns - 1) * GAP
    title_font = load_font(TITLE_SIZE, bold=True)
    subtitle_font = load_font(SUBTITLE_SIZE)
    font = load_font(FONT_SIZE)
    bold = load_font(FONT_SIZE, bold=True)
    out_lines = (
        _wrap(
            _("Sitting out: {players}").format(players=", ".join(round_.sitting_out)),
            font,
            width - 2 * MARGIN,
        )
        if round_.sitting_out
        else []
    )
    top = MARGIN + TITLE_SIZE + 14 + SUBTITLE_SIZE + 24
    height = top + rows * card_height + (rows - 1) * GAP + MARGIN
    height += (GAP + len(out_lines) * ROW_HEIGHT) if out_lines else 0
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    shown_title = fit_text(title, title_font, width - 2 * MARGIN)
    draw.text((MARGIN, MARGIN), shown_title, font=title_font, fill=TEXT)
    subtitle_y = MARGIN + TITLE_SIZE + 14
    draw.text((MARGIN, subtitle_y), round_title(round_no), font=subtitle_font, fill=MUTED)
    for index, table in enumerate(tables):
        x = MARGIN + (index % columns) * (CARD_WIDTH + GAP)
        y = top + (index // columns) * (card_height + GAP)
        _card(draw, x, y, table.table, table.seats, font, bold)
    y = top + rows * card_height + (rows - 1) * GAP + GAP
    for line in out_lines:
        draw.text((MARGIN, y + ROW_HEIGHT / 2), line, font=font, fill=MUTED, anchor="lm")
        y += ROW_HEIGHT
    return png(image)


def _card(
    draw: ImageDraw.ImageDraw,
    x: int,
    y: int,
    table_no: int,
    seats: Sequence[str],
    font: Font,
    bold: Font,
) -> None:
    right = x + CARD_WIDTH
    draw.rectangle((x, y, right, y + HEADER_HEIGHT), fill=HEADER_BG)
    draw.text(
        (x + PAD, y + HEADER_HEIGHT / 2), table_title(table_no), font=bold, fill=HEADER_TEXT,
        anchor="lm",
    )
    for seat, name in enumerate(seats, start=1):
        top = y + HEADER_HEIGHT + (seat - 1) * ROW_HEIGHT
        if seat % 2 == 0:
            draw.rectangle((x, top, right, top + ROW_HEIGHT), fill=ZEBRA)
        middle = top + ROW_HEIGHT / 2
        draw.text(
            (x + PAD + NUMBER_WIDTH - 14, middle), str(seat), font=bold, fill=MUTED, anchor="rm"
        )
        shown = fit_text(name, font, CARD_WIDTH - NUMBER_WIDTH - 2 * PAD)
        draw.text((x + PAD + NUMBER_WIDTH, middle), shown, font=font, fill=TEXT, anchor="lm")
    bottom = y + HEADER_HEIGHT + len(seats) * ROW_HEIGHT
    draw.rectangle((x, y, right, bottom), outline=BORDER, width=2)
