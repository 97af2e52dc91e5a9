"""/backup: a consistent copy of the database file, sent to a chief judge privately."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.filters import Command
from aiogram.types import BufferedInputFile, Message
from aiogram.utils.i18n import gettext as _

from bot.db import tournaments
from bot.db.connection import Database
from bot.db.timeutil import utcnow
from handlers.tournaments import send_in_private

log = logging.getLogger(__name__)
router = Router(name="backup")

# Telegram's upload limit for bots.
MAX_UPLOAD = 50 * 1024 * 1024


@router.message(Command("backup"), F.chat.type != "private")
async def backup_in_group(message: Message) -> None:
    # The file holds every tournament's data: never into a group.
    await message.reply(send_in_private())


@router.message(Command("backup"), F.chat.type == "private")
async def backup(message: Message, db: Database, bot: Bot) -> None:
    user = message.from_user
    if user is None:
        return
    async with db.read() as conn:
        rows = await tournaments.tournaments_for_staff(conn, user.id, include_finished=True)
    if not any(row.role == "chief" for row in rows):
        await message.answer(_("Only a chief judge can do that."))
        return
    stamp = utcnow().strftime("%Y%m%d-%H%M%S")
    with tempfile.TemporaryDirectory(prefix="bot-backup-") as folder:
        path = Path(folder) / "backup.sqlite3"
        try:
            await db.backup(path)
            data = await asyncio.to_thread(path.read_bytes)
        except Exception:
            log.exception("backup failed")
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
            user.id,
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
