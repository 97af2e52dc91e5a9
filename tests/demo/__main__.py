"""``python -m tests.demo`` (``make demo``): the demo's transcript on stdout, its files
in ``--dir`` (``DEMO_DIR``, default ``demo-output``), in ``--language``
(``DEMO_LANGUAGE``: en, the default, or ru). Exit 0 when the whole tournament was
played and the bot stopped cleanly; 1 when not (what went wrong and the end of the
bot's log on stderr); 2 for a bad option."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from .run import play
from .words import LANGUAGES, Words


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.demo",
        description="A short tournament played through the real bot against a local "
                    "stand-in for Telegram: no token, no network.")
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("DEMO_DIR")
                                                         or "demo-output"),
                        help="where the pictures, the exports and the transcript go "
                             "(DEMO_DIR; default demo-output)")
    parser.add_argument("--language", default=os.environ.get("DEMO_LANGUAGE") or "en",
                        help="the people's Telegram language: en or ru (DEMO_LANGUAGE; "
                             "default en)")
    args = parser.parse_args(argv)
    if args.language not in LANGUAGES:
        parser.error(f"the language is en or ru, not {args.language!r}")
    outcome = asyncio.run(play(args.dir, args.language))
    if outcome.failure is not None:
        said = Words(args.language)("The demo did not finish: {failure}")
        print("\n" + said.format(failure=outcome.failure), file=sys.stderr)
        return 1
    return 0 if outcome.exit_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
