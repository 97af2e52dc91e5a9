"""A club evening's announcement in the group and the club's private notes.

The use cases mark the announcement dirty (``evenings.announce_dirty``) and queue
notes (``club_notes``) in their transaction; ``ClubPoster.changed`` after the commit
asks for one post per evening and debounce window (the tournaments' own
``OutboxScheduler``, keyed by the evening), so twenty taps in a window make one edit.
The announcement is edited in place, in the club's language; one that is gone (deleted
in the group) is posted anew and its new id stored; identical text is never sent
again (its digest is stored). A note goes privately in its reader's language; one that
can't arrive (he never started the bot, blocked it) is recorded as ``failed`` and never
tried again; a passing failure (the network, 5xx) is tried again with the scheduler's
back-off. Reminders: a periodic task (started with the dispatcher) queues the notes of
evenings whose reminder time has come.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from bot.db import clubs, evenings, users
from bot.db.connection import Database
from bot.db.evenings import EveningRow, NoteRow
from bot.publishing.posting import _cannot_edit, _digest, _not_modified
from bot.publishing.scheduler import OutboxScheduler
from bot.services.evenings import queue_reminders
from bot.services.phrases import locale_for
from bot.texts.evening_text import Announcement, NoteFacts, announcement_text, note_text
from bot.texts.i18n import create_i18n, use_language

log = logging.getLogger(__name__)

REMIND_EVERY = 60.0  # seconds between looks for reminders due
# The buttons under an open evening's announcement (the handlers' callback data, given
# by the wiring: publishing imports no handler).
Keyboard = Callable[[int], InlineKeyboardMarkup]
PASSING = (TelegramNetworkError, TelegramServerError, TelegramRetryAfter)


class ClubPoster:
    def __init__(
        self,
        db: Database,
        *,
        i18n: I18n | None = None,
        debounce: float = 0.0,
        keyboard: Keyboard | None = None,
        remind_every: float = REMIND_EVERY,
    ) -> None:
        self._db = db
        self._i18n = i18n or create_i18n()
        self._keyboard = keyboard
        self._remind_every = remind_every
        self._scheduler = OutboxScheduler(self._post, debounce=debounce)
        self._reminders: asyncio.Task[None] | None = None

    async def changed(self, bot: Bot, evening_id: int) -> None:
        """After a commit that changed the evening (its list, status) or queued notes."""
        await self._scheduler.request(bot, evening_id, defer=self._db._holds_lock())

    # -- lifecycle (the dispatcher's start-up and shutdown) ---------------------------

    async def start(self, bot: Bot) -> None:
        """What a previous run left goes out; reminders are looked for from now on."""
        async with self._db.read() as conn:
            waiting = await evenings.evenings_waiting(conn)
        for evening_id in waiting:
            self._scheduler.wake(bot, evening_id)
        self._reminders = asyncio.create_task(self._remind(bot), name="club-reminders")

    async def stop(self) -> None:
        if self._reminders is not None:
            self._reminders.cancel()
            with suppress(asyncio.CancelledError):
                await self._reminders
            self._reminders = None
        await self._scheduler.close()

    async def remind(self, bot: Bot) -> list[int]:
        """Queue the reminders due now and send them; the evenings reminded."""
        due = await queue_reminders(self._db)
        for evening_id in due:
            await self.changed(bot, evening_id)
        return due

    async def _remind(self, bot: Bot) -> None:
        while True:
            await asyncio.sleep(self._remind_every)
            try:
                await self.remind(bot)
            except Exception:
                log.exception("club reminders failed; tried again later")

    # -- posting ------------------------------------------------------------------------

    async def _post(self, bot: Bot, evening_id: int) -> bool:
        """The evening's announcement and its waiting notes; whether something is left
        to try again."""
        left = await self._announce(bot, evening_id)
        return await self._notes(bot, evening_id) or left

    async def _announce(self, bot: Bot, evening_id: int) -> bool:
        async with self._db.transaction() as conn:
            dirty = await evenings.take_dirty(conn, evening_id)
            evening = await evenings.get_evening(conn, evening_id)
            club = None if evening is None else await clubs.get_club(conn, evening.club_id)
            lineup = None if evening is None else await evenings.lineup(conn, evening)
        if not dirty or evening is None or club is None or lineup is None:
            return False
        drawn = Announcement(
            evening.id,
            club.title,
            evening.starts_at,
            club.timezone,
            evening.place,
            evening.note,
            evening.seats,
            evening.status,
            tuple(r.name for r in lineup.seated),
            tuple(r.name for r in lineup.reserve),
            tuple(r.name for r in lineup.out),
        )
        with use_language(self._i18n, club.language):
            text = announcement_text(drawn)
            markup = (
                self._keyboard(evening.id)
                if self._keyboard is not None and evening.status == "open"
                else None
            )
        digest = _digest(text + ("+buttons" if markup is not None else ""))
        if evening.message_id is not None and digest == evening.announce_hash:
            return False
        try:
            message_id = await self._show(bot, club.chat_id, evening, text, markup)
        except TelegramAPIError as exc:
            log.warning("evening %s: announcement not posted: %s", evening.id, exc)
            async with self._db.transaction() as conn:
                await evenings.mark_dirty(conn, evening.id)
            return isinstance(exc, PASSING)
        async with self._db.transaction() as conn:
            await evenings.set_announced(conn, evening.id, message_id=message_id, digest=digest)
        return False

    async def _show(
        self,
        bot: Bot,
        chat_id: int,
        evening: EveningRow,
        text: str,
        markup: InlineKeyboardMarkup | None,
    ) -> int:
        """Edit the announcement in place; post it anew when there is none or it is
        gone. Its message id."""
        if evening.message_id is not None:
            try:
                await bot.edit_message_text(
                    text, chat_id=chat_id, message_id=evening.message_id, reply_markup=markup
                )
                return evening.message_id
            except TelegramBadRequest as error:
                if _not_modified(error):
                    return evening.message_id
                if not _cannot_edit(error):
                    raise
                log.info(
                    "evening %s: announcement gone (%s); posted anew", evening.id, error.message
                )
        sent = await bot.send_message(chat_id, text, reply_markup=markup)
        return sent.message_id

    async def _notes(self, bot: Bot, evening_id: int) -> bool:
        async with self._db.read() as conn:
            waiting = await evenings.notes_waiting(conn, evening_id)
            evening = await evenings.get_evening(conn, evening_id)
            club = None if evening is None else await clubs.get_club(conn, evening.club_id)
            lineup = None if evening is None else await evenings.lineup(conn, evening)
            readers = await users.get_users(conn, [n.user_id for n in waiting])
        if not waiting or evening is None or club is None or lineup is None:
            return False
        left = False
        for note in waiting:
            place = next(
                (
                    lineup.place_of(r.id)
                    for r in (*lineup.seated, *lineup.reserve)
                    if r.user_id == note.user_id
                ),
                None,
            )
            facts = NoteFacts(
                note.kind, club.title, evening.starts_at, club.timezone, evening.place, place
            )
            with use_language(self._i18n, locale_for(readers.get(note.user_id))):
                text = note_text(facts)
            left = not await self._send_note(bot, note, text) or left
        return left

    async def _send_note(self, bot: Bot, note: NoteRow, text: str) -> bool:
        """Whether the note is settled (sent, or recorded as failed for good)."""
        try:
            await bot.send_message(note.user_id, text)
        except PASSING as exc:
            log.info("club note %s waits: %s", note.id, exc)
            return False
        except (TelegramForbiddenError, TelegramBadRequest, TelegramAPIError) as exc:
            log.info("club note %s to %s can't arrive: %s", note.id, note.user_id, exc)
            async with self._db.transaction() as conn:
                await evenings.note_failed(conn, note.id, str(exc))
            return True
        async with self._db.transaction() as conn:
            await evenings.note_sent(conn, note.id)
        return True
