"""``python -m scoring standings FILE`` (docs/formats.md#scoring) and ``python -m scoring
elo FILE`` (docs/formats.md#rating); the only module of the engine that reads or writes.

``standings`` exit codes: 0 standings printed (games whose judge's points above 0.5
await the chief judge's approval are listed in ``pending_games`` and named on standard
error, one ``GAME_ID: D7: ...`` warning line each); 2 the file is not a tournament (one
line naming the file and the field) or breaks rules (one ``GAME_ID: RULE_ID: message``
line per problem on standard error, nothing on standard output).

``elo`` exit codes: 0 the rating printed; 2 the file is not a rating file (one line
naming the game and the field on standard error, nothing on standard output).
"""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Sequence
from fractions import Fraction

from .parse import InputError, TournamentHead, load_json, read_game, read_head, read_stages
from .problems import Problem
from .ruleset import Ruleset
from .standings import Standings, Tally
from .typing_shim import TYPE_CHECKING, cast
from .validate import check_ids, check_record

if TYPE_CHECKING:
    import argparse
    from typing import BinaryIO, NoReturn

    from .stages import StagedStandings

EXIT_OK = 0
EXIT_INVALID = 2

_DESCRIPTION = """\
The scoring engine of the sports-mafia tournament bot, without Telegram: computes a
tournament's standings by the federation's rules (docs/rules.md, sections 8.2-8.7),
and players' career rating by the Elo rule of the rating site mafiaratings."""

_STANDINGS_EPILOG = """\
FILE is a JSON tournament file as in docs/formats.md ("-" reads standard input).
Output: one JSON object {"B": ..., "pending_games": [...], "standings": [...]} (or a
table), exit status 0. A game whose judge's extra points above 0.5 still wait for the
chief judge's approval (D7) is listed in pending_games, its points left out of the
totals, and named on standard error: one "GAME_ID: D7: ..." warning line each.
A file that breaks a rule prints one "GAME_ID: RULE_ID: message" line per problem
on standard error and exits with 2; so does a file that is not valid JSON or lacks
a required field (one line naming the file and the field).

example:
  python -m scoring standings tournament.json --format table"""

_ELO_EPILOG = """\
FILE is a JSON rating file as in docs/formats.md ("-" reads standard input): the
players' sums before it ("initial", optional) and the games in the order played, each
with its kind (club, tournament, elite), 1 to 10 players with their roles and the
winner (red, black, or null for a game that is not rated).
Output: one JSON object {"games": [...], "players": [...]}, exit status 0: each game's
red_odds and every player's change, then every player by rating from the highest, with
his red and black sums and his rated games; numbers are not rounded.
A file that is not valid JSON or breaks the format prints one line naming the game and
the field on standard error and exits with 2.

example:
  python -m scoring elo career.json"""


def _terminal_width() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", "0")) or os.get_terminal_size().columns
    except (ValueError, OSError):
        columns = 80
    return max(columns - 2, 40)


def build_parser() -> argparse.ArgumentParser:
    import argparse  # only for a command line that is not one of the plain forms (main)

    class _Formatter(argparse.RawDescriptionHelpFormatter):
        """argparse's formatter, told the terminal width: otherwise every parser, even
        one that prints no help, imports ``shutil`` (and with it zlib, bz2, lzma) to ask."""

        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=_terminal_width())

    parser = argparse.ArgumentParser(
        prog="python -m scoring",
        description=_DESCRIPTION,
        formatter_class=_Formatter,
        epilog="Run 'python -m scoring COMMAND --help' for a command's own help.",
    )
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        prog=parser.prog,  # given, so argparse needs no formatter to work it out
    )
    standings = commands.add_parser(
        "standings",
        help="compute a tournament's standings from a JSON tournament file",
        description="Compute a tournament's standings (8.7) from a JSON tournament file.",
        epilog=_STANDINGS_EPILOG,
        formatter_class=_Formatter,
    )
    standings.add_argument("file", metavar="FILE", help='tournament JSON file, or "-" for stdin')
    standings.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="json (default): the contract's JSON; table: an aligned table, 2 decimals",
    )
    elo = commands.add_parser(
        "elo",
        help="compute players' career rating (Elo) from a JSON file of games",
        description="Compute players' career rating by the Elo rule of the site mafiaratings.",
        epilog=_ELO_EPILOG,
        formatter_class=_Formatter,
    )
    elo.add_argument("file", metavar="FILE", help='rating JSON file, or "-" for stdin')
    return parser


_FORMATS = ("json", "table")


def _plain(argv: Sequence[str]) -> tuple[str, str, str] | None:
    """(command, FILE, format) of the plain command lines, ``standings FILE``, ``elo
    FILE``, ``standings FILE --format F`` and ``standings --format F FILE``, read as
    argparse reads them; None for any other (argparse then reads it, and answers help
    and mistakes). Importing argparse and building the parser cost a few milliseconds
    of a command that takes tens."""

    def positional(arg: str) -> bool:  # what argparse takes for a value, not an option
        return arg == "-" or not arg.startswith("-")

    if len(argv) == 2 and argv[0] in ("standings", "elo") and positional(argv[1]):
        return argv[0], argv[1], "json"
    if len(argv) != 4 or argv[0] != "standings":
        return None
    if argv[2] == "--format" and argv[3] in _FORMATS and positional(argv[1]):
        return argv[0], argv[1], argv[3]
    if argv[1] == "--format" and argv[2] in _FORMATS and positional(argv[3]):
        return argv[0], argv[3], argv[2]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    plain = _plain(sys.argv[1:] if argv is None else argv)
    if plain is None:
        args = build_parser().parse_args(argv)
        command, file = args.command, args.file
        output = args.format if command == "standings" else "json"
    else:
        command, file, output = plain
    # One batch computation that creates no reference cycles: the cyclic garbage
    # collector would only re-scan the growing, acyclic tournament data (a fifth of
    # the run time at 10,000 games). Memory is still freed by reference counting.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if command == "elo":
            return _elo_command(file)
        return _standings_command(file, output)
    finally:
        if collecting:
            gc.enable()


def run() -> NoReturn:
    """``python -m scoring``: ``main``, then the process ends at once. Its memory goes
    back to the system whole instead of through the interpreter's teardown (garbage
    collections over every module and cache, objects freed one by one: about a
    twentieth of a run at 10,000 games), as C compilers leave theirs at exit. What the
    command printed is flushed first; nothing of the engine waits to run at exit."""
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _standings_command(file: str, output: str) -> int:
    source = "<stdin>" if file == "-" else file
    try:
        head = read_head(load_json(_read(file), source), source)
        if head.stages is not None:
            return _stages_command(head, source, output)
        # One pass, game by game: read (structure), check (rules), and add to the
        # standings while no game has broken a rule. Every problem is still found.
        problems: list[Problem] = []
        ids: list[str] = []
        tally = Tally()
        add = tally.add
        games = head.games
        for index, data in enumerate(games):
            games[index] = None  # freed as soon as read, while it is in the cache
            record = read_game(data, source, index)
            ids.append(record.id)
            found = check_record(record)
            if found:
                problems.extend(found)
            elif not problems:
                add(record)
    except InputError as error:
        print(error, file=sys.stderr)
        return EXIT_INVALID
    problems.extend(check_ids(ids))
    if problems:
        sys.stderr.write("".join(f"{problem}\n" for problem in problems))
        return EXIT_INVALID
    standings = tally.standings(Ruleset(head.distance), head.lot)
    text = standings_json(standings) if output == "json" else standings_table(standings)
    _write(sys.stdout, text + "\n")
    if standings.pending_games:
        sys.stderr.write("".join(f"{warning}\n" for warning in pending_warnings(standings)))
    return EXIT_OK


def _elo_command(file: str) -> int:
    """The career rating (docs/formats.md#rating): the file checked whole, then computed."""
    from .elo_file import elo_json, read_elo_file  # data classes: only for this command

    source = "<stdin>" if file == "-" else file
    try:
        text = elo_json(read_elo_file(load_json(_read(file), source), source))
    except InputError as error:
        print(error, file=sys.stderr)
        return EXIT_INVALID
    _write(sys.stdout, text + "\n")
    return EXIT_OK


def _stages_command(head: TournamentHead, source: str, output: str) -> int:
    """A file with ``stages`` (D13-D16): every stage's standings and the final ones."""
    from .stages import score_stages

    stages, problems = read_stages(head.stages)
    records = []
    for index, data in enumerate(head.games):
        record = read_game(data, source, index)  # InputError: one line, the caller's
        records.append((cast("dict[str, object]", data).get("stage"), record))
    found, more = score_stages(stages, records)
    problems.extend(more)
    if found is None or problems:
        sys.stderr.write("".join(f"{problem}\n" for problem in problems))
        return EXIT_INVALID
    text = staged_json(found) if output == "json" else staged_table(found)
    _write(sys.stdout, text + "\n")
    warnings = pending_warnings(found.final) + cut_warnings(found)
    if warnings:
        sys.stderr.write("".join(f"{warning}\n" for warning in warnings))
    return EXIT_OK


def cut_warnings(found: StagedStandings) -> list[str]:
    """One ``stages: D13: ...`` line per stage whose entrants wait for a lot of the stage
    before (tied across the cut, 8.7.5); its entrants are provisional until then."""
    return [
        f"stages: D13: stage {stage.stage.id}: {', '.join(stage.cut.tied)} are tied across the "
        f"cut at {stage.cut.size} of the stage before; a lot must decide (8.7.5), "
        "until then its entrants are provisional"
        for stage in found.stages
        if stage.cut is not None and not stage.cut.decided
    ]


def pending_warnings(standings: Standings) -> list[str]:
    """One ``GAME_ID: D7: ...`` line per pending game (the contract's warning)."""
    return [
        f"{game_id}: D7: judge's extra points above 0.5 await the chief judge's approval "
        "(8.4.3); not counted in any total"
        for game_id in standings.pending_games
    ]


def standings_json(standings: Standings) -> str:
    """The contract's JSON: exact values turned into JSON numbers only here (D3)."""
    return json.dumps(_standings_object(standings), ensure_ascii=False)  # json's C encoder


def staged_json(found: StagedStandings) -> str:
    """The contract's JSON of a file with stages: the final standings (D16), and each
    stage's own."""
    data = _standings_object(found.final)
    data["stages"] = [
        {"id": stage.stage.id, "B": stage.standings.B, "entrants": list(stage.entrants)}
        | _standings_object(stage.standings, with_b=False)
        for stage in found.stages
    ]
    return json.dumps(data, ensure_ascii=False)


def _standings_object(standings: Standings, with_b: bool = True) -> dict[str, object]:
    head: dict[str, object] = {"B": standings.B} if with_b else {}
    return head | {
        "pending_games": list(standings.pending_games),  # D7, in input order
        "standings": [
            {
                "place": row.place,
                "player": row.player,
                "total": _number(row.total),
                "main": _number(row.main),
                "extra": _number(row.extra),
                "ci": _number(row.ci),
                "wins": _count(row.wins),
                "wins_don_sheriff": _count(row.wins_don_sheriff),
                "first_night_deaths": _count(row.first_night_deaths),
                "games": row.games,
            }
            for row in standings.rows
        ],
    }


def _number(value: Fraction | int) -> float:
    """The float nearest to ``value`` (int / int is correctly rounded)."""
    return value.numerator / value.denominator


def _count(value: Fraction | int) -> int | float:
    """A count: an ``int``, or a float where a stage's factors made it a fraction (D15)."""
    return value if value.__class__ is int else _number(value)


_COLUMNS = (
    ("Place", ">"),
    ("Player", "<"),
    ("Total", ">"),
    ("Main", ">"),
    ("Extra", ">"),
    ("Ci", ">"),
    ("Wins", ">"),
    ("Don/sheriff wins", ">"),
    ("Night-1 deaths", ">"),
    ("Games", ">"),
)


def standings_table(standings: Standings) -> str:
    """An aligned table for people; points rounded half up to 2 decimals (D3)."""
    cells = [
        [
            str(row.place),
            row.player,
            two_decimals(row.total),
            two_decimals(row.main),
            two_decimals(row.extra),
            two_decimals(row.ci),
            _count_text(row.wins),
            _count_text(row.wins_don_sheriff),
            _count_text(row.first_night_deaths),
            str(row.games),
        ]
        for row in standings.rows
    ]
    header = [name for name, _align in _COLUMNS]
    widths = [max(len(line[n]) for line in [header, *cells]) for n in range(len(_COLUMNS))]
    lines = [
        "  ".join(
            f"{cell:{align}{width}}"
            for cell, (_name, align), width in zip(line, _COLUMNS, widths, strict=True)
        ).rstrip()
        for line in [header, *cells]
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    lines.append("")
    lines.append(f"B = {standings.B} (8.6.1: Ci = i × 0.4 / B when i ≤ B, else 0.4)")
    if standings.pending_games:
        lines.append(
            "Pending: judge's extra points above 0.5 not yet approved by the chief judge, "
            "not counted (D7), in games: " + ", ".join(standings.pending_games)
        )
    for players in standings.ties():
        lines.append("Tied after 8.7.1-8.7.4, a lot is needed (8.7.5): " + ", ".join(players))
    return "\n".join(lines)


def staged_table(found: StagedStandings) -> str:
    """Each stage's table, then the final standings' (D16)."""
    from .judging import format_points  # the rules of the judge's card: only for tables

    parts = [
        f"Stage {stage.stage.id} ({len(stage.entrants)} entrants, carry "
        f"{format_points(stage.stage.rules.carry, minus='-')}, weight "
        f"{format_points(stage.stage.rules.weight, minus='-')}"
        f"{'' if stage.stage.rules.compensation else ', no compensation'}):\n"
        + standings_table(stage.standings)
        for stage in found.stages
    ]
    parts.append("Final standings (D16):\n" + standings_table(found.final))
    return "\n\n".join(parts)


def _count_text(value: Fraction | int) -> str:
    return str(value) if value.__class__ is int else two_decimals(value)


def two_decimals(value: Fraction | int) -> str:
    """``value`` rounded half away from zero to 2 decimals, exactly: 0.125 → 0.13."""
    from .judging import format_points

    return format_points(value, fixed=True, minus="-")


def _read(file: str) -> bytes:
    if file == "-":
        return sys.stdin.buffer.read()
    try:
        with open(file, "rb") as stream:
            return stream.read()
    except OSError as error:
        raise InputError(f"{file}: cannot read the file: {error.strerror}") from None


def _write(stream: object, text: str) -> None:
    buffer: BinaryIO | None = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(text.encode("utf-8"))
        buffer.flush()
    else:
        sys.stdout.write(text)
