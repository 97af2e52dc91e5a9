"""The career rating's pictures (PNG): a person's rating over his rated games, and the
leaderboard as a table.

Drawn with Pillow, which the bot already uses for the standings' picture
(``bot.texts.standings_image``: its fonts with Cyrillic, its colours and its compact
PNG): a line over a few hundred points needs no plotting library, and matplotlib would
bring tens of megabytes and a font set-up of its own for one chart. Pure drawing: the
caller passes translated words and the figures.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.texts.standings_image import (
    BACKGROUND,
    HEADER_BG,
    MARGIN,
    MUTED,
    TEXT,
    ZEBRA,
    fit_text,
    load_font,
    png,
    render_standings,
)

WIDTH, HEIGHT = 1200, 675  # 16:9, as Telegram shows a photo whole
TITLE_SIZE = 36
LABEL_SIZE = 24
LINE = (38, 70, 120)  # the standings' header blue
START = (150, 150, 160)  # the line of 1000, where everyone starts
GAIN, LOSS = (46, 139, 87), (200, 60, 60)
TOP_ROWS = 50  # rows of a leaderboard picture


def _nice_step(span: float) -> float:
    """A round step for about five grid lines over ``span``."""
    raw = max(span, 1.0) / 5
    magnitude = float(10 ** len(str(int(raw))))
    for step in (magnitude / 10, magnitude / 5, magnitude / 2):
        if raw <= step:
            return step
    return magnitude


def render_history(
    title: str,
    subtitle: str,
    ratings: Sequence[float],
    *,
    start: float = 1000.0,
    point: str = ".",
    axis: str = "",
) -> bytes:
    """``ratings`` after each rated game, from ``start`` before the first, as a line with
    its grid, the last rating written at its end in the reader's decimal ``point``;
    ``axis`` names the games under it."""
    title_font = load_font(TITLE_SIZE, bold=True)
    label = load_font(LABEL_SIZE)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, MARGIN - 8), fit_text(title, title_font, WIDTH - 2 * MARGIN),
              font=title_font, fill=TEXT)
    if subtitle:
        draw.text((MARGIN, MARGIN + TITLE_SIZE), fit_text(subtitle, label, WIDTH - 2 * MARGIN),
                  font=label, fill=MUTED)
    values = [start, *ratings]
    low, high = min(values), max(values)
    step = _nice_step(high - low)
    low = (low // step) * step
    high = -((-high) // step) * step
    if high - low < step:
        high = low + step
    left, right = MARGIN + 110, WIDTH - MARGIN
    top, bottom = MARGIN + TITLE_SIZE + LABEL_SIZE + 30, HEIGHT - MARGIN - LABEL_SIZE - 16

    def y_of(value: float) -> float:
        return bottom - (value - low) / (high - low) * (bottom - top)

    def x_of(index: int) -> float:
        return left + index / max(len(values) - 1, 1) * (right - left)

    draw.rectangle((left, top, right, bottom), fill=ZEBRA)
    level = low
    while level <= high + step / 1000:
        y = y_of(level)
        draw.line((left, y, right, y), fill=BACKGROUND, width=2)
        draw.text((left - 14, y), str(round(level)), font=label, fill=MUTED, anchor="rm")
        level += step
    if low <= start <= high:
        y = y_of(start)
        draw.line((left, y, right, y), fill=START, width=2)
    points = [(x_of(i), y_of(v)) for i, v in enumerate(values)]
    if len(points) > 1:
        draw.line(points, fill=LINE, width=4, joint="curve")
    if len(points) <= 60:  # each game a dot while they can be told apart
        for (x, y), before, after in zip(points[1:], values[:-1], values[1:], strict=True):
            colour = GAIN if after > before else LOSS if after < before else LINE
            draw.ellipse((x - 6, y - 6, x + 6, y + 6), fill=colour)
    last_x, last_y = points[-1]
    last = f"{values[-1]:.2f}".replace(".", point)
    anchor = "rb" if last_x > right - 200 else "lb"
    draw.text((last_x, last_y - 12), last, font=load_font(LABEL_SIZE, bold=True), fill=HEADER_BG,
              anchor=anchor)
    draw.text((left, bottom + 10), "0", font=label, fill=MUTED, anchor="lt")
    draw.text((right, bottom + 10), str(len(values) - 1), font=label, fill=MUTED, anchor="rt")
    if axis:
        draw.text(((left + right) / 2, bottom + 10), axis, font=label, fill=MUTED, anchor="mt")
    return png(image)


def render_top(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    subtitle: str = "",
    podium: int = 3,
    page_label: str = "{page}/{pages}",
) -> list[bytes]:
    """The leaderboard's first ``TOP_ROWS`` rows, as the standings' table is drawn
    (seven columns: place, name, then five figures); the first ``podium`` rows stand
    out (those of places 1-3, shared places included)."""
    return render_standings(
        title, columns, rows[:TOP_ROWS], subtitle=subtitle, rows_per_image=TOP_ROWS,
        podium=podium, page_label=page_label,
    )
