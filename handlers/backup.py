"""/backup: a consistent copy of the database file, sent privately to one of the bot's
operators (``OPERATOR_IDS``; handlers.access refuses everyone else and every group)."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.filters import Command
from aiogram.types import BufferedInputFile, Message
from aiogram.utils.i18n import gettext as _

from bot.services.records import Database, utcnow
from handlers.chats import in_private

log = logging.getLogger(__name__)
router = Router(name="backup")

# Telegram's upload limit for bots.
MAX_UPLOAD = 50 * 1024 * 1024


# The file holds every tournament's data (the access table: operators, private chats).
@router.message(Command("backup"), in_private)
async def backup(message: Message, db: Database, bot: Bot) -> None:
    assert message.from_user is not None
    stamp = utcnow().strftime("%Y%m%d-%H%M%S")
    data = await database_copy(db)
    if data is None:
        await message.answer(_("The backup failed; nothing was sent. Try again later."))
        return
    if len(data) > MAX_UPLOAD:
        await message.answer(
            _(
                "The database is too big to send through Telegram; "
                "use <code>python -m bot backup</code> on the server."
            )
        )
        return
    try:
        await bot.send_document(
            message.from_user.id,
            # In memory: the temporary file is gone once the copy is read.
            BufferedInputFile(data, filename=f"tournament-bot-{stamp}.sqlite3"),
            caption=_(
                "Database backup, {stamp} UTC. Open it with sqlite3 or restore it "
                "by putting it in place of the bot's database file."
            ).format(stamp=stamp),
        )
    except TelegramForbiddenError as exc:  # he blocked the bot: nowhere to say so
        log.info("could not send the backup: %s", exc)
    except TelegramAPIError as exc:
        log.warning("could not send the backup: %s", exc)
        await message.answer(_("I could not send the file; try again later."))


async def database_copy(db: Database) -> bytes | None:
    """A consistent copy of the database file (None: it failed, and is logged)."""
    with tempfile.TemporaryDirectory(prefix="bot-backup-") as folder:
        path = Path(folder) / "backup.sqlite3"
        try:
            await db.backup(path)
            return await asyncio.to_thread(path.read_bytes)
        except Exception:
            log.exception("backup failed")
            return None
