"""`python -m bot` runs the bot; `backup`, `restore`, `check` and `export` work on its
database from the shell."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from aiogram.utils.token import TokenValidationError, validate_token
from pydantic import ValidationError

from bot.config import Settings
from bot.instance import AlreadyRunning, InstanceLock
from bot.logs import setup_logging

NO_TOKEN = (
    "BOT_TOKEN is not set: get a token from @BotFather and put BOT_TOKEN=... into .env "
    "(see .env.example) or the environment"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="start the bot: webhook if WEBHOOK_URL is set, else polling "
                              "(the default command)")
    backup = sub.add_parser("backup", help="write a consistent copy of the database")
    backup.add_argument("path")
    restore = sub.add_parser(
        "restore", help="check a backup and put it in place of the database (bot stopped)"
    )
    restore.add_argument("path")
    sub.add_parser("check", help="print the bot's health as JSON; exit 1 when unhealthy "
                                "or no bot runs on the database")
    export = sub.add_parser("export", help="export a tournament (JSON, CSV, XLSX, protocols)")
    export.add_argument("tournament_id", type=int)
    export.add_argument("dir")
    args = parser.parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as error:  # e.g. TIMEZONE=Mars/Olympus: say which, not a traceback
        print(f"Settings are not valid (.env or environment):\n{error}", file=sys.stderr)
        return 2

    if args.command == "backup":
        from bot.db.connection import backup_file

        try:
            asyncio.run(backup_file(settings.database_path, args.path))
        except FileNotFoundError as error:  # no database yet, or DATABASE_PATH misspelt
            print(f"backup failed: {error}", file=sys.stderr)
            return 2
        return 0
    if args.command == "restore":
        return _restore(Path(args.path), settings.database_path)
    if args.command == "check":
        from bot.health import report

        result = report(settings.database_path)
        print(json.dumps(result, indent=2))
        return 0 if result["healthy"] else 1
    if args.command == "export":
        from bot.export import UnknownTournament, export_to_dir

        try:
            asyncio.run(export_to_dir(settings.database_path, args.tournament_id, args.dir))
        except (UnknownTournament, FileNotFoundError) as error:
            print(f"export: {error}", file=sys.stderr)
            return 2
        return 0

    token = settings.bot_token.get_secret_value().strip() if settings.bot_token else ""
    if not token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    try:
        validate_token(token)
    except TokenValidationError:
        print("BOT_TOKEN is malformed: expected the form 123456:ABC... from @BotFather",
              file=sys.stderr)
        return 2
    try:
        lock = InstanceLock.acquire(settings.database_path)
    except AlreadyRunning as refused:
        print(f"{refused}; stop it first", file=sys.stderr)
        return 2
    except OSError as error:  # e.g. the database's folder is not writable
        print(f"cannot take the instance lock beside {settings.database_path}: {error}",
              file=sys.stderr)
        return 2
    setup_logging(settings.log_level, token)

    from bot.app import run

    with lock:
        try:
            asyncio.run(run(settings, token))
        except Exception:
            # Through logging, so the token filter masks it: the error's text may hold
            # the API URL, token included (e.g. a malformed TELEGRAM_API_URL).
            logging.getLogger("bot").critical("the bot stopped on an error", exc_info=True)
            return 1
    return 0


def _restore(backup: Path, db_path: Path) -> int:
    from bot.backups import RestoreRefused, restore

    try:
        done = restore(backup, db_path)
    except (AlreadyRunning, RestoreRefused) as refused:
        print(f"restore refused: {refused}; nothing was replaced", file=sys.stderr)
        return 2
    kept = f"; the replaced one is {done.replaced}" if done.replaced else ""
    print(f"restored {backup} to {db_path} (schema version {done.schema_version}){kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
