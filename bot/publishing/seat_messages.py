"""Each linked player's own seat before a round, privately, in his own language (his
Telegram language, as last seen; Russian by default).

The rows are the outbox's ``seat`` rows, written with the accept or the save that
announced the round (``bot.services.seating_rounds``); the text is drawn from the plan
accepted now, so a re-plan before the post is told as it is. A message that can never
arrive (403: he blocked the bot or never started it; the chat is gone) is logged and
dropped: it is not tried again and keeps nobody else waiting.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError
from aiogram.utils.i18n import I18n

from bot.db import outbox, users
from bot.db.connection import Database
from bot.db.tournaments import TournamentRow
from bot.reads.stored_plans import StoredPlan, accepted_plan
from bot.texts.i18n import locale_for, use_language
from bot.texts.seating_text import plan_title, seat_message

log = logging.getLogger(__name__)


class SeatMessages:
    def __init__(self, db: Database, i18n: I18n) -> None:
        self._db = db
        self._i18n = i18n

    async def post(
        self, bot: Bot, tournament: TournamentRow, rows: Sequence[outbox.OutboxRow]
    ) -> bool:
        """Send each row's message; a row goes once it was sent or given up. Returns
        whether rows are left to try again (Telegram or the network failed)."""
        stored = await accepted_plan(self._db, tournament.id)
        async with self._db.read() as conn:
            profiles = await users.get_users(conn, [r.user_id for r in rows if r.user_id])
        locales = {uid: locale_for(p) for uid, p in profiles.items()}
        left = False
        for row in rows:
            if await self._send(bot, tournament.title, stored, locales, row):
                async with self._db.transaction() as conn:
                    await outbox.remove(conn, [row.id])
            else:
                left = True
        return left

    async def _send(
        self,
        bot: Bot,
        title: str,
        stored: StoredPlan | None,
        locales: Mapping[int, str],
        row: outbox.OutboxRow,
    ) -> bool:
        """The row's message; False if it should be tried again."""
        assert row.user_id is not None and row.round is not None
        with use_language(self._i18n, locales.get(row.user_id)):
            text = _text(stored, title, row)
        if text is None:
            return True
        try:
            await bot.send_message(row.user_id, text)
        except TelegramForbiddenError as error:  # blocked, never started: it never arrives
            log.info("seat of round %s not sent to %s: %s", row.round, row.user_id, error)
        except TelegramBadRequest as error:  # chat not found, ...: trying again won't help
            log.warning("seat of round %s not sent to %s: %s", row.round, row.user_id, error)
        except TelegramAPIError as error:
            log.warning("seat of round %s to %s failed (%s); retried later",
                        row.round, row.user_id, error)
            return False
        return True


def _text(stored: StoredPlan | None, title: str, row: outbox.OutboxRow) -> str | None:
    """The message in the current language; None when the plan has nothing to tell him."""
    if stored is None or row.round is None:
        return None
    nickname = next((name for name, pid in stored.ids.items() if pid == row.player_id), None)
    heading = plan_title(title, stored.stage)
    return seat_message(stored.plan, row.round, nickname, heading, changed=row.changed)
