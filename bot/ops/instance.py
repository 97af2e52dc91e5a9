"""One bot per database: an exclusive ``flock`` on a lock file beside it.

Two bots on one database would both answer every update (with polling, Telegram
ends one's getUpdates with 409 Conflict over and over) and both write. The kernel
drops a flock when its holder dies, ``kill -9`` included, so a crash never leaves
the lock stuck; the file's text (pid, start time, when Telegram last answered) only
names the holder and tells ``python -m bot check`` what the running bot knows.
``python -m bot restore`` takes the same lock: no restore under a running bot, no
start during a restore.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


@dataclass(frozen=True)
class Holder:
    """Who holds the lock, as its file says."""

    pid: int | None
    started: datetime | None
    # When Telegram last answered the bot (bot.telegram.watch), as it last noted it.
    telegram_ok: datetime | None = None

    @classmethod
    def parse(cls, text: str) -> Holder:
        fields = dict(part.split("=", 1) for part in text.split() if "=" in part)
        try:
            pid: int | None = int(fields["pid"])
        except (KeyError, ValueError):
            pid = None
        return cls(pid, _moment(fields.get("started")), _moment(fields.get("telegram_ok")))

    def describe(self) -> str:
        pid = "an unknown pid" if self.pid is None else f"pid {self.pid}"
        if self.started is None:
            return pid
        return f"{pid}, started {self.started.strftime('%Y-%m-%d %H:%M:%S')} UTC"


class AlreadyRunning(Exception):
    def __init__(self, db_path: Path, holder: Holder) -> None:
        super().__init__(f"another bot is running on {db_path} ({holder.describe()})")
        self.holder = holder


class InstanceLock:
    """Held from ``acquire`` until ``release`` or the process's end."""

    def __init__(self, path: Path, fd: int, started: datetime) -> None:
        self.path = path
        self.started = started
        self._fd: int | None = fd
        self._text = _holder_text(started)

    @classmethod
    def acquire(cls, db_path: Path) -> InstanceLock:
        """Take the lock or raise ``AlreadyRunning`` at once (never waits)."""
        path = lock_path(db_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = Holder.parse(_read(fd))
            os.close(fd)
            raise AlreadyRunning(db_path, holder) from None
        except BaseException:
            os.close(fd)
            raise
        started = datetime.now(UTC).replace(microsecond=0)
        os.ftruncate(fd, 0)
        os.pwrite(fd, _holder_text(started).encode(), 0)
        return cls(path, fd, started)

    def note_telegram_ok(self, when: datetime) -> None:
        """Tell the file when Telegram last answered. Never truncated: the text only
        grows once (then keeps its length), so a reader never finds it empty."""
        if self._fd is None:
            return
        stamp = when.astimezone(UTC).replace(microsecond=0).isoformat()
        os.pwrite(self._fd, f"{self._text.rstrip()} telegram_ok={stamp}\n".encode(), 0)

    def release(self) -> None:
        if self._fd is not None:
            # Closing drops the flock; the file stays (removing it would race a starter).
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> InstanceLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def running(db_path: Path) -> Holder | None:
    """The bot holding the lock of ``db_path``, or None when none runs.

    Probes with a shared lock held for an instant: a bot starting in that instant
    is refused (exit 2) and restarted by its supervisor.
    """
    path = lock_path(db_path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return Holder.parse(_read(fd))
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _holder_text(started: datetime) -> str:
    return f"pid={os.getpid()} started={started.isoformat()}\n"


def _moment(text: str | None) -> datetime | None:
    try:
        return None if text is None else datetime.fromisoformat(text)
    except ValueError:
        return None


def _read(fd: int) -> str:
    return os.pread(fd, 200, 0).decode(errors="replace")
