"""``python -m seating generate FILE`` (docs/formats.md#seating).

Exit codes: 0 the plan printed; 2 an invalid request: nothing on standard output and
one line on standard error saying what is wrong and what to change.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from .generate import generate
from .model import SeatingError
from .output import plan_to_json, plan_to_table
from .request import load_request

EXIT_OK = 0
EXIT_INVALID = 2

_EPILOG = """\
FILE is a JSON request as in docs/formats.md#seating ("-" reads standard input), e.g.
  {"players": ["Ace", "Bat", ...], "games_per_player": 10, "tables": 4, "seed": 1}
Output: one JSON plan {"rounds": [...], "quality": {...}} (or a table), exit status 0.
An invalid request prints one line on standard error and exits with 2.

example:
  python -m seating generate request.json --format table"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m seating",
        description="The seating plan generator of the sports-mafia tournament bot: who"
        " plays at which table and seat in every round, as fairly as possible.",
        epilog="Run 'python -m seating generate --help' for the generate command.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    command = commands.add_parser(
        "generate",
        help="generate a seating plan from a JSON request",
        description="Generate a seating plan from a JSON request.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("file", metavar="FILE", help='request JSON file, or "-" for stdin')
    command.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="json (default): the contract's JSON; table: the plan and its quality for people",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    source = "<stdin>" if args.file == "-" else args.file
    try:
        plan = generate(load_request(_read(args.file), source))
    except SeatingError as error:
        message = str(error)
        if not message.startswith(f"{source}: "):
            message = f"{source}: {message}"
        print(message, file=sys.stderr)
        return EXIT_INVALID
    text = plan_to_json(plan) if args.format == "json" else plan_to_table(plan)
    _write(sys.stdout, text + "\n")
    return EXIT_OK


def _read(file: str) -> bytes:
    if file == "-":
        return sys.stdin.buffer.read()
    try:
        with open(file, "rb") as stream:
            return stream.read()
    except OSError as error:
        raise SeatingError(f"{file}: cannot read the file ({error.strerror})") from None


def _write(stream: TextIO, text: str) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(text.encode("utf-8"))
        buffer.flush()
    else:
        stream.write(text)
