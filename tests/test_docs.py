"""The project's own documents (README.md, docs/) work for a reader with a fresh clone:
the example's command gives the standings it promises, every link and anchor leads
somewhere, nothing points outside the repository, and the organiser's guide and the
settings table name everything the bot has."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import Settings
from handlers.access import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
# The team's reference beside the checkout (../shared): tests may read it, nothing else.
SHARED_EXAMPLES = ROOT.parent / "shared" / "examples"
GUIDES = (DOCS / "organiser.md", DOCS / "organiser.ru.md")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_the_example_command_prints_the_expected_standings() -> None:
    # The command exactly as docs/formats.md and the README show it, from the root.
    done = subprocess.run(
        [sys.executable, "-m", "scoring", "standings", "docs/examples/small-tournament.json"],
        cwd=ROOT, capture_output=True, timeout=60, check=False,
    )
    assert done.returncode == 0 and done.stderr == b""
    got = json.loads(done.stdout)
    want = json.loads((EXAMPLES / "small-tournament.standings.json").read_text("utf-8"))
    assert got["B"] == want["B"] and got["pending_games"] == want.get("pending_games", [])
    assert [row["player"] for row in got["standings"]] == [
        row["player"] for row in want["standings"]
    ]
    for row, expected in zip(got["standings"], want["standings"], strict=True):
        assert row.keys() == expected.keys()
        for key, value in expected.items():
            if isinstance(value, float):
                assert abs(row[key] - value) < 1e-9, (row["player"], key)
            else:
                assert row[key] == value, (row["player"], key)


@pytest.mark.skipif(not SHARED_EXAMPLES.is_dir(), reason="no ../shared beside the checkout")
def test_the_examples_are_the_teams_reference_copies() -> None:
    for name in ("small-tournament.json", "small-tournament.standings.json"):
        assert (EXAMPLES / name).read_bytes() == (SHARED_EXAMPLES / name).read_bytes(), name


# What a clone does not have: the team's folder beside the checkout and its files.
OUTSIDE = re.compile(
    r"\.\./shared|/work/shared|RULES\.md|(?:scoring|seating|rating)-contract\.md"
)
INSTEAD = (
    "docs/rules.md for the rules (anchors #8.4.2, #d13), docs/formats.md for the "
    "file formats, docs/examples/ for the example tournament"
)


def tracked_files() -> list[Path]:
    done = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60, check=False
    )
    if done.returncode != 0:  # not a git checkout (an unpacked archive): every file
        return [p for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]
    return [ROOT / name for name in done.stdout.decode().split("\0") if name]


def test_nothing_outside_the_tests_refers_outside_the_repository() -> None:
    found = []
    for path in tracked_files():
        relative = path.relative_to(ROOT)
        if relative.parts[0] == "tests" or not path.is_file():
            continue
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:  # pictures, fonts
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert found == [], "point inside the repository instead (" + INSTEAD + "):\n" + "\n".join(
        found
    )


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
EXPLICIT_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: tags and marks dropped, lower case, spaces to -."""
    text = EXPLICIT_ANCHOR.sub("", heading).replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text("utf-8")
    return set(EXPLICIT_ANCHOR.findall(text)) | {slug(h) for h in HEADING.findall(text)}


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_leads_somewhere(document: Path) -> None:
    broken = []
    for target in LINK.findall(document.read_text("utf-8")):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        name, _hash, fragment = target.partition("#")
        path = (document.parent / name).resolve() if name else document
        if not path.exists():
            broken.append(target)
            continue
        if fragment and path.suffix == ".md" and fragment not in anchors(path):
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_the_organisers_guide_explains_every_command(guide: Path) -> None:
    text = guide.read_text("utf-8")
    missing = [name for name in COMMANDS if not re.search(rf"/{name}\b", text)]
    assert missing == []


def test_the_readme_lists_every_setting() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    internal = {"locales_path"}  # where the catalogs are: not a setting of a deployment
    missing = [
        name.upper()
        for name in Settings.model_fields
        if name not in internal and f"| `{name.upper()}` |" not in readme
    ]
    assert missing == []
