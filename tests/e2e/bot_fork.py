"""A quicker start of ``python -m bot`` for the tests: forked from an interpreter that has
imported the bot already.

Each ``python -m bot`` spends ~1.2 s of CPU importing aiogram, pydantic and the bot
before it does anything; the e2e and browser tests start dozens. Instead, each pytest
worker keeps one server process (``python -m tests.e2e.bot_fork``, started on the first
bot start) that has done those imports; a start forks it, and the child runs
``bot/__main__.py`` as ``python -m bot`` does (``runpy``, ``__name__ == "__main__"``,
``sys.argv[0]`` the file) with the test's environment, working directory and log.

The child is made a child of the pytest worker (the worker is a "child subreaper" and
the server forks twice), so ``BotProcess`` waits for it, signals it and reads its
``/proc`` like a process it started itself. Starts that could differ from a fresh
interpreter (another directory, other ``PYTHON*`` variables or ``LAZY_MODELS``, read
at import) start ``python -m bot`` itself; so does every start when ``BOT_EXEC=1``.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
# Variables the interpreter or the bot's imports read before ``main()`` runs.
_UNFORKABLE_PREFIXES = ("PYTHON", "LAZY_MODELS")
_PER_START = {"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"}


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(option, value)


def _at_start(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items()
            if k.startswith(_UNFORKABLE_PREFIXES) and k not in _PER_START}


class Child:
    """What ``BotProcess`` needs of a ``subprocess.Popen``: the pid and the exit code."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None


class ForkServer:
    """The worker's side: one server process, started on the first ``spawn``."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._env: dict[str, str] = {}
        self._broken = os.environ.get("BOT_EXEC") == "1"

    def can_fork(self, env: Mapping[str, str], cwd: Path) -> bool:
        if self._broken or cwd.resolve() != REPO_ROOT:
            return False
        return self._proc is None or _at_start(env) == _at_start(self._env)

    def spawn(self, env: Mapping[str, str], cwd: Path, log_path: Path) -> Child | None:
        """The forked bot's pid; None when the server cannot serve (start it yourself)."""
        try:
            if self._proc is None:
                self._start(env)
            assert self._proc is not None and self._proc.stdin and self._proc.stdout
            job = {"env": dict(env), "cwd": str(cwd), "log": str(log_path),
                   "reaper": os.getpid()}
            self._proc.stdin.write(json.dumps(job).encode() + b"\n")
            self._proc.stdin.flush()
            answer = self._proc.stdout.readline()
            return Child(int(json.loads(answer)["pid"]))
        except (OSError, ValueError, KeyError, AssertionError):
            self._broken = True
            self.close()
            return None

    def _start(self, env: Mapping[str, str]) -> None:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        self._env = dict(env)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.bot_fork"], cwd=REPO_ROOT, env=dict(env),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=_die_with_parent)

    def close(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                for pipe in (self._proc.stdin, self._proc.stdout):
                    if pipe:
                        pipe.close()
                self._proc.wait(timeout=5)  # it stops at the end of its input
            self._proc = None


def _die_with_parent() -> None:
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


# --------------------------------------------------------------------------- the server


def _serve() -> dict[str, Any] | None:
    """Fork a bot per request line; returns the job in the bot, None when asked to stop."""
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    for line in requests:
        job: dict[str, Any] = json.loads(line)
        read_end, write_end = os.pipe()
        middle = os.fork()
        if middle == 0:  # forks the bot and exits: the bot is orphaned, the worker adopts it
            bot = os.fork()
            if bot == 0:
                os.close(read_end)
                os.close(write_end)
                return job
            os.write(write_end, str(bot).encode())
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            pid = pipe.read()
        os.waitpid(middle, 0)  # once it is gone, the bot is the worker's child
        answers.write(json.dumps({"pid": int(pid)}).encode() + b"\n")
        answers.flush()
    return None


def _become_the_bot(job: dict[str, Any]) -> None:
    """In the forked child: the process ``python -m bot`` would be, up to ``main()``."""
    env: dict[str, str] = job["env"]
    deadline = time.monotonic() + 5
    while os.getppid() != job["reaper"]:  # adopted once the middle process has exited
        if time.monotonic() > deadline:
            os._exit(70)
        time.sleep(0.001)
    _die_with_parent()
    if os.getppid() != job["reaper"]:
        os._exit(70)
    null = os.open(os.devnull, os.O_RDONLY)
    log = os.open(job["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "rb", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "wb", closefd=False), encoding="utf-8",
                                  write_through=unbuffered, line_buffering=False)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "wb", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", write_through=True)
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    os.chdir(job["cwd"])


def _warm_up() -> None:
    """What ``python -m bot`` imports before it runs, and the models of aiogram it builds
    first (``bot.app.prepare_runtime``): paid once per worker, not per bot."""
    import bot
    import bot.__main__
    import bot.app
    from bot.telegram.aiogram_models import pin_response_types

    pin_response_types()

    # Only what it imports stays: runpy runs the file anew as __main__.
    del sys.modules["bot.__main__"]
    del bot.__main__


if __name__ == "__main__":
    _warm_up()
    job = _serve()
    if job is None:
        sys.exit(0)
    _become_the_bot(job)
    del job
    import runpy

    # As `python -m bot`: bot/__main__.py as __main__, sys.argv[0] its path.
    sys.argv = ["-m"]
    runpy.run_module("bot", run_name="__main__", alter_sys=True)
