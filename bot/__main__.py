"""`python -m bot` runs the bot; `backup`, `restore`, `check` and `export` work on its
database from the shell.

Its own lines are in the shell's language (bot.texts.shell_language), each problem one line
on stderr. Exit codes: 0 done; 1 an error nobody foresaw (``check``: unhealthy); 2 a
setting, an argument or a file to fix, or another bot on the database; 3 Telegram did
not answer at the start; 4 Telegram refused the token (bot.telegram.startup).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.config import Settings
from bot.logs import redact, setup_logging
from bot.ops.exit_codes import EXIT_CRASH, EXIT_SETTINGS, EXIT_TOKEN, EXIT_UNREACHABLE
from bot.ops.instance import AlreadyRunning, Holder, InstanceLock
from bot.texts.shell_language import _

if TYPE_CHECKING:
    from bot.db.tournaments import TournamentRow
    from bot.web.health import Limits


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as error:  # e.g. TIMEZONE=Mars/Olympus: say which, not a traceback
        _say(_("Settings are not valid (.env or environment): {problems}").format(
            problems="; ".join(_problems(error))))
        return EXIT_SETTINGS
    try:
        if args.command == "backup":
            return _backup(settings.database_path, args.path)
        if args.command == "restore":
            return _restore(Path(args.path), settings.database_path)
        if args.command == "check":
            return _check(settings)
        if args.command == "export":
            return _export(settings.database_path, args.tournament_id, args.dir)
        return _run(settings)
    except KeyboardInterrupt:  # Ctrl-C: no traceback
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description=_("The mafia tournament bot, and its database from the shell."))
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help=_("start the bot: webhook if WEBHOOK_URL is set, else "
                                 "polling (the default command)"))
    backup = sub.add_parser("backup", help=_("write a consistent copy of the database; "
                                             "into a folder: a dated file in it"))
    backup.add_argument("path")
    restore = sub.add_parser(
        "restore", help=_("check a backup and put it in place of the database (bot stopped)")
    )
    restore.add_argument("path")
    sub.add_parser("check", help=_("print the bot's health as JSON; exit 1 when unhealthy "
                                   "or no bot runs on the database"))
    export = sub.add_parser(
        "export", help=_("export a tournament (JSON, CSV, XLSX, protocols) into a folder; "
                         "without an id: the list of tournaments"))
    export.add_argument("tournament_id", nargs="?")
    export.add_argument("dir", nargs="?")
    return parser


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def _problems(error: ValidationError) -> list[str]:
    """One phrase a setting: its variable's name and what is wrong (never its value:
    it may be a secret)."""
    found = []
    for item in error.errors():
        name = "_".join(str(part) for part in item["loc"]).upper()
        text = str(item["msg"]).removeprefix("Value error, ")
        found.append(text if not name or text.startswith(f"{name}:") else f"{name}: {text}")
    return found


def _no_database(db_path: Path) -> str:
    return _("no database at {path} (the bot has not run here yet, or DATABASE_PATH points "
             "elsewhere)").format(path=db_path)


def _running_elsewhere(db_path: Path, holder: Holder) -> str:
    if holder.pid is None:
        who = _("an unknown pid")
    elif holder.started is None:
        who = _("pid {pid}").format(pid=holder.pid)
    else:
        who = _("pid {pid}, started {started} UTC").format(
            pid=holder.pid, started=holder.started.strftime("%Y-%m-%d %H:%M:%S"))
    return _("another bot is running on {path} ({holder})").format(path=db_path, holder=who)


# -- run -------------------------------------------------------------------------------


def _run(settings: Settings) -> int:
    # Here, not at the top: the other commands never load aiogram.
    from aiogram.utils.token import TokenValidationError, validate_token

    token = settings.bot_token.get_secret_value().strip() if settings.bot_token else ""
    if not token:
        _say(_("BOT_TOKEN is not set: get a token from @BotFather and put BOT_TOKEN=... into "
               ".env (see .env.example) or the environment"))
        return EXIT_SETTINGS
    try:
        validate_token(token)
    except TokenValidationError:
        _say(_("BOT_TOKEN is malformed: expected the form 123456:ABC... from @BotFather"))
        return EXIT_SETTINGS
    try:
        lock = InstanceLock.acquire(settings.database_path)
    except AlreadyRunning as refused:
        _say(_("{refusal}; stop it first").format(
            refusal=_running_elsewhere(settings.database_path, refused.holder)))
        return EXIT_SETTINGS
    except OSError as error:  # e.g. the database's folder is not writable
        _say(_("cannot take the instance lock beside {path}: {error}").format(
            path=settings.database_path, error=error))
        return EXIT_SETTINGS
    setup_logging(settings.log_level, token)

    from bot.app import run
    from bot.telegram.startup import StartRefused

    with lock:
        try:
            asyncio.run(run(settings, token, lock))
        except StartRefused as refused:
            line, code = _refusal(refused, settings)
            _say(redact(line, token))  # the cause may quote the API's URL, token included
            return code
        except Exception:
            # Through logging, so the token filter masks it: the error's text may hold
            # the API URL, token included.
            logging.getLogger("bot").critical("the bot stopped on an error", exc_info=True)
            return EXIT_CRASH
    return 0


def _refusal(refused: Exception, settings: Settings) -> tuple[str, int]:
    """The one line and the exit code of a start Telegram or the network refused."""
    from bot.telegram.startup import BadApiUrl, TokenRefused

    server = settings.telegram_api_url or "https://api.telegram.org"
    cause = str(refused)
    if isinstance(refused, BadApiUrl):
        return _("TELEGRAM_API_URL is not a usable address ({cause}): fix it in .env, or "
                 "leave it empty for Telegram's own").format(cause=cause), EXIT_SETTINGS
    if isinstance(refused, TokenRefused) and refused.not_found:
        return _("{server} knows no bot with this token ({cause}): check BOT_TOKEN in .env, "
                 "and that TELEGRAM_API_URL is a Bot API server").format(
                     server=server, cause=cause), EXIT_TOKEN
    if isinstance(refused, TokenRefused):
        return _("Telegram refused the bot token ({cause}): it was revoked or mistyped; put "
                 "the current one from @BotFather (/mybots, API Token) into BOT_TOKEN in "
                 ".env").format(cause=cause), EXIT_TOKEN
    if not settings.telegram_start_wait:
        return _("Telegram did not answer at {server} ({cause}): check the network (DNS, "
                 "firewall, proxy) and TELEGRAM_API_URL in .env").format(
                     server=server, cause=cause), EXIT_UNREACHABLE
    return _("Telegram did not answer at {server} in {seconds} s of trying ({cause}): check "
             "the network (DNS, firewall, proxy) and TELEGRAM_API_URL in .env").format(
                 server=server, seconds=f"{settings.telegram_start_wait:g}",
                 cause=cause), EXIT_UNREACHABLE


# -- backup, restore -------------------------------------------------------------------


def _backup(db_path: Path, path: str) -> int:
    from bot.db.connection import backup_file
    from bot.ops.backups import backup_target

    failed = _("backup failed: {reason}")
    if not db_path.is_file():  # no database yet, or DATABASE_PATH misspelt
        _say(failed.format(reason=_no_database(db_path)))
        return EXIT_SETTINGS
    dest = backup_target(db_path, path, datetime.now(UTC))
    if dest.resolve() == db_path.resolve():
        _say(failed.format(reason=_("{path} is the database itself").format(path=dest)))
        return EXIT_SETTINGS
    try:
        written = asyncio.run(backup_file(db_path, dest))
    except (OSError, ValueError, sqlite3.Error) as error:  # a folder not writable, a full disk
        _say(failed.format(reason=error))
        return EXIT_SETTINGS
    print(_("backup of {database} written to {path}").format(database=db_path, path=written))
    return 0


def _restore(backup: Path, db_path: Path) -> int:
    from bot.ops.backups import RestoreRefused, restore

    try:
        done = restore(backup, db_path)
    except AlreadyRunning as refused:
        reason = _running_elsewhere(db_path, refused.holder)
    except RestoreRefused as refused:
        reason = str(refused)
    else:
        line = _("restored {backup} to {database} (schema version {version})").format(
            backup=backup, database=db_path, version=done.schema_version)
        if done.replaced:
            line = _("{restored}; the replaced one is {path}").format(restored=line,
                                                                      path=done.replaced)
        print(line)
        return 0
    _say(_("restore refused: {reason}; nothing was replaced").format(reason=reason))
    return EXIT_SETTINGS


# -- check -----------------------------------------------------------------------------


def _check(settings: Settings) -> int:
    from bot.web.health import Limits, report

    limits = Limits(settings.health_telegram_max_age, settings.health_outbox_max_age)
    result = report(settings.database_path, limits=limits)
    print(json.dumps(result, indent=2))
    if result["healthy"]:
        return 0
    _say(_("unhealthy: {reasons}").format(
        reasons="; ".join(_unhealthy(result, settings.database_path, limits))))
    return EXIT_CRASH


def _unhealthy(result: dict[str, Any], db_path: Path, limits: Limits) -> list[str]:
    reasons = []
    if not result["database_ok"]:
        reasons.append(_no_database(db_path) if not db_path.exists() else
                       _("the database is not usable: {error}").format(error=result["error"]))
    if not result["running"]:
        reasons.append(_("no bot is running on {path}").format(path=db_path))
    elif not result["telegram_ok"]:
        age = result["seconds_since_telegram_ok"]
        reasons.append(_("Telegram has not answered the bot yet") if age is None else
                       _("Telegram has not answered the bot for {seconds} s "
                         "(HEALTH_TELEGRAM_MAX_AGE={limit})").format(seconds=age,
                                                                     limit=limits.telegram))
    if result["database_ok"] and not result["outbox_ok"]:
        reasons.append(_("a group post has waited {seconds} s (HEALTH_OUTBOX_MAX_AGE={limit})")
                       .format(seconds=result["outbox_oldest_seconds"], limit=limits.outbox))
    return reasons


# -- export ----------------------------------------------------------------------------


def _export(db_path: Path, wanted: str | None, directory: str | None) -> int:
    from bot.reads.tournament_list import list_tournaments

    if not db_path.is_file():
        _say(_("export: {reason}").format(reason=_no_database(db_path)))
        return EXIT_SETTINGS
    number = int(wanted) if wanted is not None and wanted.isdigit() else None
    if number is not None and directory is None:
        _say(_("export: give the folder to write the files into: "
               "python -m bot export {id} FOLDER").format(id=number))
        return EXIT_SETTINGS
    if number is not None and directory is not None:
        # Only here: the export's texts are translated by aiogram's gettext.
        from bot.reads.export import UnknownTournament, export_to_dir

        try:
            asyncio.run(export_to_dir(db_path, number, directory))
            return 0
        except UnknownTournament:
            heading = _("export: there is no tournament {id} in {path}; its tournaments:")
        except OSError as error:  # the folder not writable
            _say(_("export failed: {reason}").format(reason=error))
            return EXIT_SETTINGS
    elif wanted is None:
        heading = _("export: which tournament? python -m bot export ID FOLDER, the ID one of "
                    "these in {path}:")
    else:
        heading = _("export: {id} is not a tournament's number; the tournaments in {path}:")
    found = asyncio.run(list_tournaments(db_path))
    if not found:
        _say((_("export: there are no tournaments in {path} yet") if wanted is None else
              _("export: there is no tournament {id} in {path}: it has none yet"))
             .format(id=wanted, path=db_path))
        return EXIT_SETTINGS
    _say(heading.format(id=wanted, path=db_path))
    for tournament in found:
        _say(_tournament_line(tournament))
    return EXIT_SETTINGS


def _tournament_line(t: TournamentRow) -> str:
    """``  3  «Spring Cup» · group -100123 · running · created 2025-05-01 14:05 UTC+3``,
    the times in the tournament's time zone."""
    from bot.texts.localtime import clock

    statuses = {"registration": _("registration"), "running": _("running"),
                "finished": _("finished")}
    group = (_("no group") if t.chat_id is None
             else _("group {chat_id}").format(chat_id=t.chat_id))
    created = clock(t.created_at, t.timezone, date=True)
    dates = (_("created {created}").format(created=created) if t.finished_at is None else
             _("created {created}, finished {finished}").format(
                 created=created, finished=clock(t.finished_at, t.timezone, date=True)))
    return f"{t.id:>5}  «{t.title}» · {group} · {statuses.get(t.status, t.status)} · {dates}"


if __name__ == "__main__":
    sys.exit(main())
