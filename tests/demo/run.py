"""The stage: the Bot API stand-in on a loopback port, the real bot process against it
(a made-up token, a database in a temporary folder), the play, then the bot stopped
and the files it sent written into the output folder with the transcript."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import Settings
from tests.e2e.bot_process import BotProcess
from tests.e2e.fake_telegram import make_token

from .tournament import Cast, Play, cast, save_files
from .transcript import Transcript, WatchedTelegram
from .words import Words

# As in the e2e tests: one of Telegram's flood-limit seconds lasts 50 ms, in the
# stand-in and in the bot alike, so the play takes seconds and keeps the limits.
TIME_SCALE = 0.05
TRANSCRIPT = "transcript.txt"
DATABASE = "bot.sqlite3"  # the demo's database, for python -m bot export, backup, check


@dataclass
class Outcome:
    """What the demo left: the transcript's lines, the files, the bot's exit code; a
    failure says what went wrong, with the end of the bot's log."""

    lines: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    exit_code: int | None = None
    failure: str | None = None


def bot_env(fake: WatchedTelegram, folder: Path) -> dict[str, str | None]:
    """The bot's settings: the stand-in, a scratch database, no backups; every other
    setting unset (a shell's WEBHOOK_URL or OPERATOR_IDS would change the play)."""
    env: dict[str, str | None] = {name.upper(): None for name in Settings.model_fields}
    env.update(BOT_TOKEN=fake.token, TELEGRAM_API_URL=fake.base_url,
               DATABASE_PATH=str(folder / "bot.sqlite3"), FLOOD_SCALE=str(TIME_SCALE),
               STANDINGS_DEBOUNCE="0.2", BACKUP_EVERY_HOURS="0", LOG_LEVEL="INFO")
    return env


async def play(out_dir: Path, language: str = "en",
               write: Callable[[str], None] = print) -> Outcome:
    """Play the demo in ``language``, each line of the transcript passed to ``write``
    as it happens; the group's pictures, the exports and the transcript go into
    ``out_dir``."""
    words = Words(language)
    transcript = Transcript(words, write)
    outcome = Outcome(lines=transcript.lines)
    transcript.narrate(words(
        "A short tournament played through the real bot (python -m bot) against a "
        "stand-in for Telegram on 127.0.0.1: no token, nothing leaves this machine. Each "
        "chat as its people see it; the bot's buttons in [brackets]."))
    fake = WatchedTelegram(make_token(), transcript, time_scale=TIME_SCALE)
    await fake.start()
    people: Cast | None = None
    with tempfile.TemporaryDirectory(prefix="mafia-demo-") as scratch:
        folder = Path(scratch)
        # Started in the scratch folder: the clone's .env (a real token) is not read.
        bot = BotProcess(env=bot_env(fake, folder), log_path=folder / "bot.log", fake=fake,
                         cwd=folder)
        try:
            await bot.start()
            people = cast(fake, words)
            await Play(people, words, transcript.narrate).all()
            outcome.exit_code = await bot.stop()
            # The bot's database stays for the command lines (backup, export, check).
            await asyncio.to_thread(_copy_database, folder / "bot.sqlite3", out_dir / DATABASE)
        except (AssertionError, TimeoutError) as exc:
            log = words("The end of the bot's log:")
            outcome.failure = f"{exc}\n\n{log}\n{bot.digest(60)}"
        finally:
            await bot.cleanup()
            await fake.stop()
    if outcome.failure is not None or people is None:
        return outcome
    transcript.narrate(words("The bot was stopped and exited with code {code}.").format(
        code=outcome.exit_code))
    outcome.files = [*save_files(out_dir, people), out_dir / DATABASE]
    listing = out_dir / TRANSCRIPT
    outcome.files.append(listing)
    transcript.narrate(words("Left in {folder}: the group's standings pictures, the "
                             "exports, the bot's database and this transcript:")
                       .format(folder=out_dir))
    for path in outcome.files:
        transcript.note(f"{path}  ({_size(path.stat().st_size)})" if path != listing
                        else str(path))
    listing.write_text("\n".join(outcome.lines) + "\n", encoding="utf-8")
    return outcome


def _copy_database(source: Path, target: Path) -> None:
    """A consistent copy through SQLite's backup API (the bot has stopped)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def _size(size: int) -> str:
    return f"{size / 1024:.1f} KiB" if size >= 1024 else f"{size} B"
