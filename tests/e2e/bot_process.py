"""The real bot as a subprocess (`python -m bot`, like `make run`) for e2e tests."""

# The wait helpers take `timeout=` on purpose: it is the harness API tests call.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import Protocol

import pytest

from .bot_fork import Child, ForkServer
from .fake_telegram import FakeTelegram

REPO_ROOT = Path(__file__).resolve().parents[2]
BOT_MAIN = REPO_ROOT / "bot" / "__main__.py"
requires_bot = pytest.mark.skipif(not BOT_MAIN.exists(),
                                  reason="bot/__main__.py does not exist yet")
# Settings the bot reads; never inherited from the developer's shell.
BOT_ENV_VARS = ("BOT_TOKEN", "TELEGRAM_API_URL", "DATABASE_PATH", "LOG_LEVEL",
                "FLOOD_SCALE", "STANDINGS_DEBOUNCE", "TIMEZONE", "LOCALES_PATH",
                "WEBHOOK_URL", "WEBHOOK_SECRET", "WEB_HOST", "WEB_PORT", "BACKUP_DIR",
                "BACKUP_EVERY_HOURS", "BACKUP_KEEP", "TELEGRAM_START_WAIT",
                "HEALTH_TELEGRAM_MAX_AGE", "HEALTH_OUTBOX_MAX_AGE")


def free_port() -> int:
    """A loopback port free now (for the bot's own HTTP server)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:
    """Run in the child: SIGKILL it if pytest dies (Linux prctl PR_SET_PDEATHSIG)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def _read_vm_hwm_kb(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"^VmHWM:\s+(\d+)\s+kB", status, re.M)
    return int(m.group(1)) if m else None


class BotProcess:
    """One bot subprocess (restartable). Output (stdout+stderr) goes to `log_path`."""

    def __init__(self, *, env: Mapping[str, str | None], log_path: Path,
                 fake: FakeTelegram | None = None, cwd: Path = REPO_ROOT,
                 fork: ForkServer | None = None) -> None:
        base = {k: v for k, v in os.environ.items() if k not in BOT_ENV_VARS}
        base.update(PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
        for key, value in env.items():
            if value is None:
                base.pop(key, None)
            else:
                base[key] = value
        self.env = base
        self.log_path = log_path
        self.fake = fake
        self.cwd = cwd
        # Forked from an interpreter that has imported the bot (tests/e2e/bot_fork.py)
        # when it can be; otherwise `python -m bot` itself.
        self.fork = fork
        self.returncode: int | None = None
        # Max VmHWM sampled from /proc/PID/status while the bot runs. Not wait4's ru_maxrss:
        # for a child started by fork+exec it also counts the pages of pytest, the forker.
        self.peak_memory_kb: int | None = None
        self.starts = 0
        self._proc: subprocess.Popen[bytes] | Child | None = None
        self._sampler: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ state

    @property
    def pid(self) -> int:
        if self._proc is None:
            raise RuntimeError("bot process was never started")
        return self._proc.pid

    @property
    def token(self) -> str | None:
        return self.env.get("BOT_TOKEN")

    def is_running(self) -> bool:
        self._reap()
        return self._proc is not None and self.returncode is None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _sample_memory(self) -> None:
        if self._proc is not None and self.returncode is None:
            hwm = _read_vm_hwm_kb(self._proc.pid)
            if hwm is not None:
                self.peak_memory_kb = max(self.peak_memory_kb or 0, hwm)

    def _reap(self, block: bool = False) -> int | None:
        """Collect the exit status ourselves; None while the bot runs (unless `block`)."""
        if self._proc is None or self.returncode is not None:
            return self.returncode
        try:
            pid, status = os.waitpid(self._proc.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            pid, status = self._proc.pid, 0
        if pid == 0:
            return None
        self.returncode = os.waitstatus_to_exitcode(status)
        self._proc.returncode = self.returncode
        return self.returncode

    async def _sample_loop(self) -> None:
        while self.is_running():
            self._sample_memory()
            await asyncio.sleep(0.05)

    # ------------------------------------------------------------------ control

    async def start(self, *, wait_ready: bool = True, timeout: float = 20.0) -> None:
        """Spawn the bot; by default wait until it has called getUpdates (setWebhook in
        webhook mode, once its server listens)."""
        if self.is_running():
            raise RuntimeError("bot is already running")
        mark = len(self.fake.requests) if self.fake is not None else 0
        self.returncode = None
        self.starts += 1
        with self.log_path.open("ab") as log:
            if self.starts > 1:
                log.write(f"\n===== restart #{self.starts - 1} =====\n".encode())
                log.flush()
            forked = None
            if self.fork is not None and self.fork.can_fork(self.env, self.cwd):
                forked = self.fork.spawn(self.env, self.cwd, self.log_path)
            # Popen only forks/execs here; waiting is done asynchronously below.
            self._proc = forked or subprocess.Popen(  # noqa: ASYNC220
                [sys.executable, "-m", "bot"], cwd=self.cwd, env=self.env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        self._sampler = asyncio.create_task(self._sample_loop())
        if wait_ready:
            await self.wait_ready(since=mark, timeout=timeout)

    @property
    def webhook_mode(self) -> bool:
        return bool(self.env.get("WEBHOOK_URL"))

    async def wait_ready(self, *, since: int = 0, timeout: float = 20.0) -> None:
        """Wait until the bot (started after request index `since`) calls getUpdates
        (has its webhook set, in webhook mode)."""
        if self.fake is None:
            raise RuntimeError("no FakeTelegram to watch")
        ready = "setWebhook" if self.webhook_mode else "getUpdates"
        deadline = time.monotonic() + timeout
        while True:
            if any(r.method == ready and (r.ok or ready == "getUpdates")
                   for r in self.fake.requests[since:]):
                return
            if not self.is_running():
                raise AssertionError(f"bot exited with {self.returncode} before polling:\n"
                                     f"{self.digest()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"bot did not call {ready} in {timeout}s:\n"
                                     f"{self.digest()}")
            await asyncio.sleep(0.02)

    async def wait_exit(self, timeout: float = 10.0) -> int:
        """Wait for the process to exit by itself; returns the exit code."""
        deadline = time.monotonic() + timeout
        while self._reap() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"bot did not exit within {timeout}s:\n{self.digest()}")
            self._sample_memory()
            await asyncio.sleep(0.02)
        await self._stop_sampler()
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> int:
        """SIGKILL (a crash: no cleanup in the bot). Returns the exit code (-9)."""
        if not self.is_running():
            return self.returncode if self.returncode is not None else 0
        self._sample_memory()
        assert self._proc is not None
        os.kill(self._proc.pid, signal.SIGKILL)
        code = self._reap(block=True)
        if self._sampler is not None:
            self._sampler.cancel()
        assert code is not None
        return code

    async def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM and wait for a clean exit (the loop keeps serving the fake meanwhile)."""
        if not self.is_running():
            return self.returncode if self.returncode is not None else 0
        self._sample_memory()
        assert self._proc is not None
        os.kill(self._proc.pid, signal.SIGTERM)
        return await self.wait_exit(timeout)

    async def restart(self, *, kill: bool = False, wait_ready: bool = True) -> None:
        """Stop (or kill) and start again with the same environment and database."""
        if kill:
            self.kill()
        else:
            await self.stop()
        await self.start(wait_ready=wait_ready)

    async def cleanup(self) -> None:
        """Fixture teardown: SIGTERM, then SIGKILL if it hangs."""
        if self.is_running():
            try:
                await self.stop(timeout=5.0)
            except AssertionError:
                self.kill()
        await self._stop_sampler()

    async def _stop_sampler(self) -> None:
        if self._sampler is not None:
            self._sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sampler
            self._sampler = None

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def digest(self, lines: int = 150) -> str:
        """The log's last non-DEBUG lines (tracebacks included): what a failure needs."""
        kept = [line for line in self.log_text().splitlines() if " DEBUG " not in line]
        return "\n".join(kept[-lines:])


class BotFactory(Protocol):
    """The `bot_factory` fixture's signature."""

    def __call__(self, *, env: Mapping[str, str | None] | None = None,
                 api_url: str | None = None, start: bool = True, wait_ready: bool = True,
                 cwd: Path | None = None) -> Awaitable[BotProcess]: ...
