"""``make demo DEMO_LANGUAGE=ru`` reads Russian throughout: every line of the demo's own
has its translation, and the English names of the bot's buttons and card steps the
demo waits for are found in the bot's Russian catalog (the suite plays the demo in
English only)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir

from bot.texts.i18n import read_catalog
from tests.demo.words import Words
from tests.e2e.scenario import RESULT_BUTTONS

ROOT = Path(__file__).resolve().parent.parent
# What the demo taps and waits for, as the e2e helpers name it (tests/e2e/scenario.py).
BOT_TEXTS = (
    "Step 1/11: Round and table", "Step 2/11: Seating", "Step 3/11: Roles",
    "Step 4/11: Day 1", "Step 5/11: Night 1", "Step 6/11: Best move", "Step 7/11: Result",
    "Step 8/11: Disqualifications", "Step 11/11: Review", "Next ▶", "⏭ Review",
    "Miss (nobody shot)", "Done (2 named)", "Accepted", "💾 Save", "Saved", "Saving…",
    *RESULT_BUTTONS.values(), "✅ Confirm", "▶️ Start", "❌ Reject protest",
)


def test_every_line_of_the_demo_is_translated_to_russian() -> None:
    keywords = {"_": None, "w": None, "words": None, "N_": None}
    found = {message for _file, _line, message, _comments, _context
             in extract_from_dir(ROOT / "tests/demo", keywords=keywords)}
    catalog = read_catalog(ROOT / "locales/ru/LC_MESSAGES")
    translated = {m.id for m in catalog if m.id and m.string}
    assert len(found) > 30
    assert sorted(found - translated) == []


def test_what_the_demo_waits_for_is_in_russian() -> None:
    russian, english = Words("ru"), Words("en")
    for text in BOT_TEXTS:
        assert re.search("[а-яё]", russian.bot(text)), (text, russian.bot(text))
        assert english.bot(text) == text


def test_a_language_the_bot_does_not_speak_is_refused() -> None:
    with pytest.raises(ValueError, match="en, ru"):
        Words("de")
