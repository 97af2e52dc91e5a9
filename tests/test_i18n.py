"""Every text the bot shows has a Russian translation (Russian is the default)."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_dir

from bot.texts.i18n import create_i18n, locale_for, read_catalog

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "locales"


def _msgids() -> set[str]:
    found: set[str] = set()
    for folder in ("bot", "handlers", "scoring"):
        for _file, _line, message, _comments, _ctx in extract_from_dir(
            ROOT / folder, keywords={"_": None, "__": None, "N_": None, "ngettext": (1, 2)}
        ):
            found.add(message[0] if isinstance(message, tuple) else message)
    return found


def test_every_text_is_translated_to_russian() -> None:
    catalog = read_catalog(LOCALES / "ru/LC_MESSAGES")
    translated = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id and m.string}
    missing = sorted(_msgids() - translated)
    assert not missing, "untranslated: " + "; ".join(m[:60] for m in missing)


def test_russian_is_default_and_english_follows_telegram_language() -> None:
    from aiogram.types import User

    i18n = create_i18n(LOCALES)
    assert i18n.gettext("Nothing to cancel.", locale="ru") == "Отменять нечего."
    assert i18n.gettext("Nothing to cancel.", locale="en") == "Nothing to cancel."
    assert locale_for(User(id=1, is_bot=False, first_name="A", language_code="en")) == "en"
    assert locale_for(User(id=1, is_bot=False, first_name="A", language_code="en-GB")) == "en"
    assert locale_for(User(id=1, is_bot=False, first_name="A", language_code="de")) == "ru"
    assert locale_for(User(id=1, is_bot=False, first_name="A")) == "ru"


def test_every_message_id_is_in_one_file_of_the_catalog() -> None:
    from babel.messages.pofile import read_po

    files: dict[str, list[str]] = {}
    for po in sorted((LOCALES / "ru/LC_MESSAGES").glob("*.po")):
        with po.open("rb") as fp:
            ids = [m.id if isinstance(m.id, str) else m.id[0] for m in read_po(fp) if m.id]
        # read_po merges an id repeated inside one file: count the file's entries too
        entries = sum(line.startswith("msgid ") for line in po.read_text("utf-8").splitlines())
        assert entries - 1 == len(ids), f"{po.name} repeats a message id"  # - the header
        for message_id in ids:
            files.setdefault(message_id, []).append(po.name)
    twice = {m[:60]: names for m, names in files.items() if len(names) > 1}
    assert not twice, twice
