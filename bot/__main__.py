"""`python -m bot` runs the bot; `backup` and `export` work on its database from the shell."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from aiogram.utils.token import TokenValidationError, validate_token
from pydantic import ValidationError

from bot.config import Settings
from bot.logs import setup_logging

NO_TOKEN = (
    "BOT_TOKEN is not set: get a token from @BotFather and put BOT_TOKEN=... into .env "
    "(see .env.example) or the environment"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="start the bot with long polling (the default)")
    backup = sub.add_parser("backup", help="write a consistent copy of the database")
    backup.add_argument("path")
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

        asyncio.run(backup_file(settings.database_path, args.path))
        return 0
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
    setup_logging(settings.log_level, token)

    from bot.app import run

    try:
        asyncio.run(run(settings, token))
    except Exception:
        # Through logging, so the token filter masks it: the error's text may hold the
        # API URL, token included (e.g. a malformed TELEGRAM_API_URL).
        logging.getLogger("bot").critical("the bot stopped on an error", exc_info=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
