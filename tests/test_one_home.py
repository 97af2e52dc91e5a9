"""One home for each thing, held by test where an import contract can't say it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_html_is_escaped_by_one_helper() -> None:
    """Text gets into the bot's HTML through ``bot.texts.markup.html_text`` only."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("bot", "handlers")
        for path in (ROOT / folder).rglob("*.py")
        if path.name != "markup.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if "html.escape(" in line
    ]
    assert found == []
