"""The demo's language: its own narration and the bot's button labels, both read from
the bot's catalogs (``locales/``; the narration's Russian is in ``demo.po``).

English is the message ids themselves; Russian is looked up. The e2e helpers name the
judge's card in English ("Step 3/11: Roles", "Next ▶", "🔴 Red win"): ``Words.bot``
puts such a text, composite ones included, in the demo's language.
"""

from __future__ import annotations

import re

from bot.texts.i18n import create_i18n

LANGUAGES = ("en", "ru")
_STEP = re.compile(r"Step (\d+)/(\d+): (.+)")
_DONE = re.compile(r"Done \((\d+) named\)")
# A label's emoji before it and arrow after it, around the translated words.
_DECORATED = re.compile(r"([^\w(«]+ )?(.+?)( [^\w).»]+)?")


class Words:
    """Texts in ``language`` ("en" or "ru")."""

    def __init__(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"DEMO_LANGUAGE must be one of {', '.join(LANGUAGES)}, "
                             f"not {language!r}")
        self.language = language
        self._i18n = create_i18n()

    def __call__(self, msgid: str) -> str:
        """A message id of the demo's narration (or the bot's), translated."""
        return self._i18n.gettext(msgid, locale=self.language)

    def bot(self, text: str) -> str:
        """A text of the bot's written as the English helpers write it (a button's
        label, a step's title), as the bot shows it in the demo's language; a text it
        does not know (a nickname, a seat number) as it is."""
        if self.language == "en":
            return text
        step = _STEP.fullmatch(text)
        if step:
            return self("Step {n}/{total}: {title}").format(
                n=step[1], total=step[2], title=self(step[3]))
        done = _DONE.fullmatch(text)
        if done:
            return self("Done ({count} named)").format(count=done[1])
        whole = self(text)
        if whole != text:
            return whole
        parts = _DECORATED.fullmatch(text)
        if parts is None:
            return text
        before, core, after = parts[1] or "", parts[2], parts[3] or ""
        return before + self(core) + after
