"""The performance goals the benchmarks hold the project to, and ``make bench``'s verdict.

A bench script that measures a goal reports it through :func:`report`: one line per goal
on standard output, ``goal: NAME: FIGURE (limit LIMIT): met`` (or ``not met``), and, when
the environment names a results file (``BENCH_GOALS``), one JSON object per goal
appended to it. The script then exits with 1 when a goal is missed. (A script may also
print such lines itself, ending in ``: met`` or ``: not met``: they are read from its
output when it reports nothing here.)

``python -m bench.goals`` (``make bench``) runs every bench script, the goals' and the
others', which print figures only, and ends with a table of every goal: its figure, its
limit, met or not met. It exits with 1 exactly when a goal is missed; a goal script
that fails (an exit status other than 0 or 1, a 1 without a missed goal, or no goal
reported) counts as a missed goal. A figures-only script that fails is shown in the
table but does not change the exit status.

    .venv/bin/python -m bench.goals [--only scoring,seating] [--results FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS_ENV = "BENCH_GOALS"

# (name, script and its arguments): the scripts that measure the goals, then the
# figures-only ones, in the order they run.
GOAL_SCRIPTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("scoring", ("bench/scoring_bench.py",)),
    ("seating", ("bench/seating_bench.py",)),
    ("bot", ("bench/bot_bench.py",)),
)
FIGURE_SCRIPTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("standings", ("bench/standings_bench.py",)),
    ("elo", ("bench/elo_bench.py",)),
    ("career", ("bench/career_bench.py",)),
    ("stage close", ("bench/stage_close_bench.py",)),
    ("posting", ("bench/posting_bench.py",)),
    ("live", ("bench/live_bench.py",)),
    ("page", ("bench/page_bench.py",)),
    ("save path", ("bench/save_path.py",)),
)

# A line a script prints for a goal without this module (its own format):
# ``goal: ...: met`` or ``goal: ...: not met``.
_GOAL_LINE = re.compile(r"^goal: (?P<name>.+): (?P<verdict>met|not met)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Goal:
    """One goal as measured: ``figure`` is None when the run could not measure it (then
    the goal is not met: a goal counts only when measured)."""

    name: str
    figure: float | None
    limit: float | None  # None: a goal that is not a figure's limit (a script's run)
    met: bool
    unit: str = ""
    script: str = ""

    @classmethod
    def at_most(cls, name: str, figure: float | None, limit: float, unit: str = "") -> Goal:
        """The goal ``figure <= limit``."""
        return cls(name, figure, limit, figure is not None and figure <= limit, unit)

    @property
    def verdict(self) -> str:
        return "met" if self.met else "not met"

    def shown_figure(self) -> str:
        if self.figure is None:  # a goal line of the script's own, or its failed run: "-"
            return "-" if self.limit is None else "not measured"
        return f"{self.figure:g}{self.unit}"

    def shown_limit(self) -> str:
        return f"<= {self.limit:g}{self.unit}" if self.limit is not None else "-"

    def line(self) -> str:
        figure, limit = self.shown_figure(), self.shown_limit()
        return f"goal: {self.name}: {figure} (limit {limit}): {self.verdict}"


def report(goals: Iterable[Goal], script: str | None = None) -> int:
    """Print each goal's line, append it to the results file when ``BENCH_GOALS`` names
    one; 1 when a goal is missed, else 0 (the script's exit status)."""
    if script is None:
        script = Path(sys.argv[0]).stem
    found = [replace(goal, script=goal.script or script) for goal in goals]
    for goal in found:
        print(goal.line(), flush=True)
    path = os.environ.get(RESULTS_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            for goal in found:
                out.write(json.dumps(asdict(goal), ensure_ascii=False) + "\n")
    return 0 if all(goal.met for goal in found) else 1


def read_results(path: Path) -> list[Goal]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Goal(**json.loads(line)) for line in lines if line.strip()]


@dataclass(frozen=True)
class Run:
    """One script's run: its exit status, seconds and the goal lines it printed."""

    name: str
    argv: tuple[str, ...]
    status: int
    seconds: float
    printed: tuple[tuple[str, bool], ...]  # (name, met) of ``goal: ...`` lines


def run_script(name: str, argv: Sequence[str], results: Path) -> Run:
    """Run one script from the project's folder, its output passed through as it comes."""
    env = dict(os.environ, **{RESULTS_ENV: str(results)})
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed code runs: bytecode cached
    # This checkout's packages first, whichever checkout the environment was installed
    # from (a script may import ``bot`` before it puts the project's folder on its path).
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    print(f"\n==> {' '.join(argv)}", flush=True)
    started = time.perf_counter()
    printed: list[tuple[str, bool]] = []
    with subprocess.Popen(
        [sys.executable, *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            match = _GOAL_LINE.match(line)
            if match:
                printed.append((match["name"], match["verdict"].lower() == "met"))
        status = proc.wait()
    return Run(name, tuple(argv), status, time.perf_counter() - started, tuple(printed))


def goals_of(run: Run, reported: list[Goal]) -> list[Goal]:
    """The goals of one goal script's run; a failed run adds a missed goal saying so."""
    goals = reported
    if not goals:  # a script that prints its goal lines without this module
        goals = [Goal(name, None, None, met, script=run.name) for name, met in run.printed]
    missed = any(not goal.met for goal in goals)
    failure = None
    if run.status not in (0, 1):
        failure = f"exited with {run.status}"
    elif run.status == 1 and not missed:
        failure = "exited with 1, no goal missed"
    elif not goals:
        failure = "reported no goal"
    if failure is not None:
        goals = [*goals, Goal(f"{run.name} bench ran: {failure}", None, None, False, run.name)]
    return goals


def table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def summary(goals: list[Goal], runs: list[Run], figure_runs: list[Run]) -> str:
    rows = [["goal", "figure", "limit", "verdict"]]
    for goal in goals:
        rows.append([goal.name, goal.shown_figure(), goal.shown_limit(), goal.verdict])
    parts = ["Goals", table(rows)]
    timing = [["script", "exit", "seconds", "decides the exit"]]
    for run, decides in [*((r, "yes") for r in runs), *((r, "no") for r in figure_runs)]:
        timing.append([" ".join(run.argv), str(run.status), f"{run.seconds:.0f}", decides])
    parts += ["", "Scripts", table(timing)]
    missed = sum(not goal.met for goal in goals)
    total = sum(run.seconds for run in [*runs, *figure_runs])
    parts += [
        "",
        f"{len(goals) - missed} of {len(goals)} goals met"
        + (f"; {missed} not met" if missed else "")
        + f" ({total:.0f} s in all)",
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.goals", description=__doc__.split("\n")[0]
    )
    names = [name for name, _argv in (*GOAL_SCRIPTS, *FIGURE_SCRIPTS)]
    parser.add_argument("--only", help=f"comma-separated scripts to run, of: {', '.join(names)}")
    parser.add_argument("--results", type=Path, help="keep the goals as JSON lines here")
    args = parser.parse_args(argv)
    chosen = set(names if args.only is None else args.only.split(","))
    if not chosen <= set(names):
        parser.error(f"unknown scripts: {', '.join(sorted(chosen - set(names)))}")
    with tempfile.TemporaryDirectory(prefix="bench-goals-") as folder:
        goals: list[Goal] = []
        runs: list[Run] = []
        for name, script in GOAL_SCRIPTS:
            if name in chosen:
                results = Path(folder) / f"{name}.jsonl"
                run = run_script(name, script, results)
                runs.append(run)
                goals += goals_of(run, read_results(results))
        figure_runs = [
            run_script(name, script, Path(folder) / f"{name}.jsonl")
            for name, script in FIGURE_SCRIPTS
            if name in chosen
        ]
    if args.results is not None:
        with args.results.open("w", encoding="utf-8") as out:
            for goal in goals:
                out.write(json.dumps(asdict(goal), ensure_ascii=False) + "\n")
    print("\n" + summary(goals, runs, figure_runs))
    return 0 if all(goal.met for goal in goals) else 1


if __name__ == "__main__":
    raise SystemExit(main())
