"""A stage's settings in the chief judge's words (docs/rules.md D13-D15, D17): typed as
``games=2 carry=0.5`` or ``игр=2 перенос=0,5``, or tapped on the stage's settings card,
they are read into a ``StageSpec`` here. A refusal names the setting as its reader types
it and says why; nothing is changed.

The English words are always understood, and the Russian ones too: a chief judge reads
the bot in his own language while his group may read the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal, InvalidOperation

from bot.db.stages import StageSpec
from bot.services import N_, Refusal
from bot.services.phrases import Joined, Phrase, Verbatim

SETTINGS = ("name", "games", "entrants", "carry", "weight", "compensation", "hidden")
WHOLE_MAX = 1000  # games a player, entrants: far above any tournament's

# Each word a setting is typed as, lower case: its English key, and the Russian words.
WORDS: Mapping[str, str] = {
    **{key: key for key in SETTINGS},
    "название": "name",
    "игр": "games",
    "игры": "games",
    "участников": "entrants",
    "участники": "entrants",
    "перенос": "carry",
    "вес": "weight",
    "компенсация": "compensation",
    "скрыт": "hidden",
    "скрытый": "hidden",
}
# A setting as a message names it: the word its reader types it with, translated when
# said (one of WORDS, tests/handlers/test_stage_settings.py checks).
NAMES: Mapping[str, str] = {
    "name": N_("name"),
    "games": N_("games"),
    "entrants": N_("entrants"),
    "carry": N_("carry"),
    "weight": N_("weight"),
    "compensation": N_("compensation"),
    "hidden": N_("hidden"),
}
ON = frozenset({"on", "yes", "1", "да", "вкл"})
OFF = frozenset({"off", "no", "0", "нет", "выкл"})


def setting_of(word: str) -> str | None:
    """The setting a typed word names (``игр``, ``Games``: games); None: none."""
    return WORDS.get(word.lower())


def _factor(text: str, setting: str) -> str | Refusal:
    """An exact decimal string (D3), not negative (D15): 0.5 or 0,5."""
    try:
        value = Decimal(text.replace(",", "."))
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or len(text) > 16:
        return Refusal(
            N_("{setting} must be a number such as 0.5 or 1, not {value}."),
            {"setting": _name(setting), "value": Verbatim(text)},
        )
    if value < 0:
        return Refusal(
            N_("{setting} may not be negative: {value}."),
            {"setting": _name(setting), "value": Verbatim(text)},
        )
    return format(value.normalize(), "f") if value else "0"  # 1e3: 1000, not 1E+3


def _whole(text: str, setting: str) -> int | Refusal:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= WHOLE_MAX:
        return Refusal(
            N_("{setting} must be a whole number from 1 to 1000, not {value}."),
            {"setting": _name(setting), "value": Verbatim(text)},
        )
    return int(text)


def _switch(text: str, setting: str) -> bool | Refusal:
    word = text.lower()
    if word in ON or word in OFF:
        return word in ON
    return Refusal(
        N_("{setting} is on or off, not {value}."),
        {"setting": _name(setting), "value": Verbatim(text)},
    )


def _name(setting: str) -> Phrase:
    return Phrase(NAMES[setting])


def apply_settings(spec: StageSpec, settings: Mapping[str, str]) -> StageSpec | Refusal:
    """``spec`` with the settings applied, each named by any of its WORDS (``carry=0.5``,
    ``скрыт=да`` ...); the first bad one refuses them all."""
    changes: dict[str, object] = {}
    for word, text in settings.items():
        key = setting_of(word)
        found: object
        if key == "name":
            changes["name"] = found = text  # its length: the use case checks it
        elif key in ("games", "entrants"):
            changes["games_per_player" if key == "games" else key] = found = _whole(text, key)
        elif key in ("carry", "weight"):
            changes[key] = found = _factor(text, key)
        elif key in ("compensation", "hidden"):
            changes[key] = found = _switch(text, key)
        else:
            return Refusal(
                N_("Unknown setting {setting}; the settings are: {settings}."),
                {"setting": Verbatim(word), "settings": Joined(tuple(map(_name, SETTINGS)))},
            )
        if isinstance(found, Refusal):
            return found
    return replace(spec, **changes)  # type: ignore[arg-type]
