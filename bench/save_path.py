"""The way of a judge's Save through the project's files, from the card's 💾 Save tap to
the group's standings post, measured on a real Save (docs/ARCHITECTURE.md, "A Save").

The real Dispatcher (``bot.app.build_dispatcher``: its middlewares, SQLite FSM storage,
a database file in a temp dir, ``standings_debounce=0`` so that the group's post is made
within the Save's own update) runs on the tests' recording session (``tests.support``)
with the tests' tournament (``tests/handlers/test_game_entry_support.py``: a running
tournament, twelve confirmed players, its chief judge has started the bot). A judge
enters a game on his card, 0.6 judge's points for seat 6 among it (so the chief judge
is asked to approve them, D7), and taps 💾 Save: that update goes through
``Dispatcher.feed_update`` under ``sys.setprofile``.

Counted is the Save's own path: the code that runs inside the Save's handler
(``handlers.game_entry.save.on_save``) and everything it calls, down to the group's
standings message; not the middlewares and filters every update passes before it.
Project files are the ones under bot/, handlers/, scoring/ and seating/.

* files: the distinct project files in which code of the Save runs;
* returns up: how many times the call path returns up into a file it had left, i.e.
  a function of one project file, called from another project file, returns to its
  caller there. Each call site (the caller's file and line, the callee's file) counts
  once, however often it runs (a loop over the ten seats counts once): so it is the
  number of distinct hops down into another file and back up.

    .venv/bin/python bench/save_path.py
"""

from __future__ import annotations

import asyncio
import dis
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.app import build_dispatcher  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.db.connection import Database  # noqa: E402
from handlers.game_entry.save import on_save  # noqa: E402
from tests.handlers.test_game_entry_support import CHIEF, GROUP, World  # noqa: E402
from tests.support import BotHarness  # noqa: E402

PACKAGES = ("bot", "handlers", "scoring", "seating")
SUSPENDED = dis.opmap["YIELD_VALUE"]  # a coroutine awaiting, not returning


def project_file(filename: str) -> str | None:
    """``filename`` from the project's root, if it is a file of the project."""
    path = Path(filename)
    if not path.is_relative_to(ROOT):
        return None
    relative = path.relative_to(ROOT)
    return relative.as_posix() if relative.parts[0] in PACKAGES else None


class SavePath:
    """A profile function: the files and the returns up of the calls made inside the
    frames of ``root`` (the Save's handler)."""

    def __init__(self, root: CodeType) -> None:
        self.root = root
        self.files: dict[str, None] = {}  # in the order first entered
        self.returns: set[tuple[str, int, str]] = set()  # caller file, line; callee file

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        path = project_file(frame.f_code.co_filename)
        if path is None or not self._in_save(frame):
            return
        if event == "call":
            self.files.setdefault(path)
            return
        if frame.f_code.co_code[frame.f_lasti] == SUSPENDED:
            return
        caller = frame.f_back
        back = None if caller is None else project_file(caller.f_code.co_filename)
        if caller is not None and back is not None and back != path:
            self.returns.add((back, caller.f_lineno, path))

    def _in_save(self, frame: FrameType | None) -> bool:
        while frame is not None:
            if frame.f_code is self.root:
                return True
            frame = frame.f_back
        return False


async def measure(folder: Path) -> SavePath:
    db = await Database.open(folder / "bot.sqlite3")
    settings = Settings(
        bot_token=None, database_path=folder / "bot.sqlite3", standings_debounce=0
    )
    path = SavePath(on_save.__code__)
    try:
        async with BotHarness(build_dispatcher(db, settings)) as harness:
            world = await World.create(harness, db)
            await harness.say(harness.user(CHIEF, "Chief", language_code="en"), "/start")
            judge = world.judge()
            await judge.enter()
            await judge.next()  # no disqualifications
            await judge.next()  # no penalties
            await judge.say("6 0.6")
            await judge.next()  # the review
            posted = len(harness.session.sent_texts(GROUP))
            sys.setprofile(path)
            try:
                await judge.tap("💾 Save")
            finally:
                sys.setprofile(None)
            if "Saved" not in judge.text or len(harness.session.sent_texts(GROUP)) == posted:
                raise SystemExit(f"the Save did not go through:\n{judge.text}")
    finally:
        await db.close()
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = asyncio.run(measure(Path(folder)))
    by_folder = Counter(file.split("/")[0] for file in path.files)
    folders = ", ".join(f"{name} {count}" for name, count in sorted(by_folder.items()))
    print("A Save, from the card's Save tap to the group's standings post (one game, D7 asked)")
    print(f"  files:      {len(path.files):3}  ({folders})")
    print(f"  returns up: {len(path.returns):3}  (call sites that return into a file left)")
    print("  the files, in the order first entered:")
    for file in path.files:
        print(f"    {file}")


if __name__ == "__main__":
    main()
