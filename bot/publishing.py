"""What the tournament's group chat is told: game results, notes and the standings.

Handlers call these methods and never post to the group themselves, so flood
control, debouncing and the live standings message live in one place.

* **One live standings message** per tournament, pinned when the bot may pin, edited
  in place; a new one is posted only when the old one can't be edited. Its id and a
  hash of its text are stored (``tournaments.set_standings_message``): identical
  content is never re-sent, and Telegram's "message is not modified" is success.
* **Debounce**: a change starts a window of ``debounce`` seconds for its tournament;
  everything that arrives within it (ten tables finishing together) is published
  once at its end: one message with the new results, one edit of the standings.
  With ``debounce=0`` (tests) the caller awaits the publication itself, and changes
  arriving at the same moment are still coalesced.
* **Round pictures**: when a save completes a round, a PNG of the full standings is
  posted (see ``completed_round`` for what "complete" means).
* **Nothing is lost**: sending goes through the bot's session (``FloodControl``
  queues within Telegram's limits and waits out 429s); what fails stays queued
  and is retried with the next change; ``close()`` (the dispatcher's shutdown)
  publishes whatever is still waiting.
* **The chat moves or goes away**: a group upgraded to a supergroup
  (``chat_migrated``, also FloodControl's ``on_migrate``) and a bot removed from its
  group (``bot_removed``: the chief judges are told privately, once).
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
)
from aiogram.types import BufferedInputFile, InputMediaPhoto, MediaUnion, Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.db import games as games_repo
from bot.db import outbox, players, staff, tournaments, users
from bot.db.audit import audit
from bot.db.connection import Conn, Database
from bot.db.tournaments import TournamentRow
from bot.i18n import DEFAULT_LOCALE, create_i18n
from bot.rating_format import place_labels, points, standings_table, utf16_len
from bot.standings import StandingsService

if TYPE_CHECKING:
    from scoring import Standings

log = logging.getLogger(__name__)

T = TypeVar("T")

MESSAGE_LIMIT = 4096  # characters per Telegram message
CAPTION_LIMIT = 1024
LIVE_ROWS = 50  # rows of the live standings message; the rest: /rating all
SHUTDOWN_TIMEOUT = 30.0
RETRY_AFTER = 15.0  # seconds before posting again what Telegram refused, doubling...
MAX_RETRY_AFTER = 600.0  # ...up to this
_LOCALES = Path(__file__).resolve().parent.parent / "locales"


# -- formatting -------------------------------------------------------------------------


def standings_text(
    title: str, standings: Standings, *, max_rows: int = LIVE_ROWS, limit: int = MESSAGE_LIMIT
) -> str:
    """The live standings message: the /rating table (place, nickname, total, extra,
    wins, Ci), its top rows only, so that it stays under ``limit`` characters."""
    rows = standings.rows
    games = sum(row.games for row in rows) // 10
    head = f"<b>{html.escape(title)}</b>\n" + standings_after(games)
    if not rows:
        return head + "\n" + _("No games counted yet.")
    notes = []
    if standings.pending_games:
        notes.append(
            _("Not counted until the chief judge approves the judge's points (8.4.3, D7): {games}")
            .format(games=", ".join(standings.pending_games))
        )
    if standings.ties():
        notes.append(_("Players sharing a place wait for the chief judge's lot (8.7.5, D12)."))
    table = standings_table(rows[:max_rows], all_places=[row.place for row in rows])
    shown = len(table.rows)
    while True:
        parts = [head, "<pre>" + "\n".join([table.header, *table.rows[:shown]]) + "</pre>"]
        if shown < len(rows):
            parts.append(_("…and {count} more: /rating all").format(count=len(rows) - shown))
        text = "\n".join(parts + notes)
        if utf16_len(text) <= limit or shown <= 1:
            return text
        shown -= 1


def standings_after(games: int) -> str:
    return _("Standings after {games} game", "Standings after {games} games", games).format(
        games=games
    )


def split_labels(translated: str, english: str) -> list[str]:
    """Column titles kept in one msgid ("Seat|Player|Role"): they only make sense
    together. A translation with the wrong number of parts falls back to English."""
    parts = [part.strip() for part in translated.split("|")]
    default = english.split("|")
    return parts if len(parts) == len(default) else default


def standings_image_rows(standings: Standings) -> list[tuple[str, ...]]:
    """Cells for ``bot.standings_image.render_standings``."""
    labels = place_labels([row.place for row in standings.rows])
    return [
        (
            label,
            row.player,
            points(row.total),
            points(row.extra),
            str(row.wins),
            points(row.ci),
            str(row.games),
        )
        for label, row in zip(labels, standings.rows, strict=True)
    ]


def split_lines(lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> list[list[str]]:
    """Group lines into messages of at most ``limit`` characters (a longer line is cut)."""
    chunks: list[list[str]] = []
    size = 0
    for line in lines:
        if utf16_len(line) > limit:
            cut = limit - 1
            while utf16_len(line[:cut]) > limit - 1:  # emoji take two units
                cut -= 1
            line = line[:cut] + "…"
        length = utf16_len(line)
        if chunks and size + 1 + length <= limit:
            chunks[-1].append(line)
            size += 1 + length
        else:
            chunks.append([line])
            size = length
    return chunks


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _locale_of(language_code: str | None) -> str:
    return "en" if (language_code or "").lower().startswith("en") else DEFAULT_LOCALE


def _not_modified(error: TelegramBadRequest) -> bool:
    return "message is not modified" in error.message.lower()


def _cannot_edit(error: TelegramBadRequest) -> bool:
    text = error.message.lower()
    return any(
        reason in text
        for reason in (
            "message to edit not found",
            "message can't be edited",
            "message_id_invalid",
            "message not found",
        )
    )


# -- rounds -----------------------------------------------------------------------------


def completed_round(
    tables: dict[int, set[int]],
    first_games: dict[int, int],
    saved: set[int],
    saved_rounds: set[int],
    confirmed_players: int,
) -> int | None:
    """The latest round the games in ``saved`` completed, if any.

    A round has T tables, T = max(the highest table number seen in any round,
    confirmed players // 10): a round is complete when tables 1..T of it all have a
    saved game (pending approval counts: it is saved). A round that ends with fewer
    tables (players left) is complete when the first game of the next round is
    saved. Only the saves of this batch can complete a round, so a restart never
    posts an old round again.

    ``tables``: round -> table numbers with a game that counts; ``first_games``:
    round -> id of its earliest game; ``saved_rounds``: rounds of the ``saved`` games.
    """
    t = max([*(max(ts) for ts in tables.values() if ts), confirmed_players // 10, 1])
    done = None
    full = set(range(1, t + 1))
    for r in sorted(saved_rounds):
        if full <= tables.get(r, set()):
            done = max(done or 0, r)
        previous = tables.get(r - 1)
        # A short round (complete by T it got its picture when its last table was saved).
        if previous and not full <= previous and first_games.get(r) in saved:
            done = max(done or 0, r - 1)
    return done


# -- the publisher ----------------------------------------------------------------------


@dataclass(eq=False)
class _Pending:
    """When one tournament's outbox is published next (the rows themselves are in the
    database)."""

    bot: Bot | None = None
    version: int = 0  # changes requested
    done: int = 0  # changes published (or given up until the next change)
    failures: int = 0  # publications in a row that left rows behind
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class Publisher:
    """The tournament chat's news and live standings.

    A change is recorded with ``enqueue(conn, ...)`` inside the transaction that makes
    it, and announced with ``publish(bot, tournament_id)`` after the commit; the
    ``game_saved``... helpers do both for callers without a transaction of their own.

    :param debounce: seconds a change waits for others of the same tournament
        (``Settings.standings_debounce``); 0 publishes at once, in the caller's task.
    :param i18n: the bot's translations; group texts are in the tournament's language
        (``TournamentRow.language``; the notes handlers enqueue are translated by them).
    """

    def __init__(
        self,
        db: Database,
        standings: StandingsService,
        *,
        debounce: float = 0.0,
        i18n: I18n | None = None,
        retry_after: float = RETRY_AFTER,
    ) -> None:
        self._db = db
        self._standings = standings
        self._debounce = debounce
        self._i18n = i18n
        self._retry_after = retry_after
        self._pending: dict[int, _Pending] = {}
        self._closing = False

    # -- what handlers call ---------------------------------------------------------

    @staticmethod
    async def enqueue(
        conn: Conn,
        tournament_id: int,
        *,
        result: str | None = None,
        game_id: int | None = None,
        note: str | None = None,
        standings: bool = False,
    ) -> None:
        """Record, in the caller's transaction, what the chat must be told: a saved
        game's result line (``result`` with ``game_id``; the standings follow it), a
        ``note``, and that the standings must be brought up to date (``standings``, or
        neither of the others given)."""
        if result is not None:
            if game_id is None:
                raise ValueError("a result line needs its game")
            await outbox.add(conn, tournament_id, outbox.RESULT, text=result, game_id=game_id)
        if note is not None:
            await outbox.add(conn, tournament_id, outbox.NOTE, text=note)
        if standings or (result is None and note is None):
            await outbox.add(conn, tournament_id, outbox.STANDINGS)

    async def publish(self, bot: Bot, tournament_id: int, *, now: bool = False) -> None:
        """After the commit: the standings are recomputed and what waits in the outbox
        goes out, after the debounce unless ``now``."""
        self._standings.invalidate(tournament_id)
        pending = self._pending_for(tournament_id)
        pending.bot = bot
        pending.version += 1
        mine = pending.version
        if (self._debounce > 0 and not self._closing and not now) or self._db_locked_here():
            self._schedule(tournament_id, pending)
            if now:
                pending.wake.set()
            return
        await asyncio.sleep(0)  # changes made at the same moment join this publication
        async with pending.lock:
            if pending.done < mine:
                await self._flush(tournament_id, pending)
        self._follow_up(tournament_id, pending)

    async def game_saved(self, bot: Bot, tournament_id: int, game_id: int, summary: str) -> None:
        """A new game was saved; ``summary`` is its short result line for the chat."""
        await self._enqueue_and_publish(bot, tournament_id, result=summary, game_id=game_id)

    async def standings_changed(self, bot: Bot, tournament_id: int) -> None:
        """Anything that changes points or order (a correction, a protest decision...)."""
        await self._enqueue_and_publish(bot, tournament_id)

    async def announce(self, bot: Bot, tournament_id: int, text: str) -> None:
        """A one-line note to the tournament chat (already translated, HTML-escaped),
        sent at once; if it can't be, it waits in the outbox like the results."""
        await self._enqueue_and_publish(bot, tournament_id, note=text, now=True)

    async def _enqueue_and_publish(
        self, bot: Bot, tournament_id: int, *, now: bool = False, **what: Any
    ) -> None:
        async with self._db.transaction() as conn:
            await self.enqueue(conn, tournament_id, **what)
        await self.publish(bot, tournament_id, now=now)

    async def send_standings_image(
        self, bot: Bot, tournament_id: int, chat_id: int, *, caption: str | None = None
    ) -> None:
        """The picture of the full standings to ``chat_id`` (/rating image); API errors
        propagate to the caller."""
        tournament = await self._tournament(tournament_id)
        if tournament is None:
            return
        with self._current_language():
            images, default_caption = await self._images(tournament)
        await self._send_images(bot, chat_id, images, caption or default_caption)

    # -- chat events ------------------------------------------------------------------

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup with a new id: its tournaments follow it.

        Also FloodControl's ``on_migrate``; calling it twice is harmless. The old
        standings message belongs to the old chat, so the next change posts a new one.
        """
        try:
            async with self._db.transaction() as conn:
                moved = await tournaments.tournaments_for_chat(conn, old_chat_id)
                if not moved:
                    return
                await tournaments.migrate_chat(conn, old_chat_id, new_chat_id)
                for t in moved:
                    await tournaments.set_standings_message(conn, t.id, None, None)
                    await audit(
                        conn,
                        action="tournament.chat_migrated",
                        entity="tournament",
                        entity_id=t.id,
                        tournament_id=t.id,
                        before={"chat_id": old_chat_id},
                        after={"chat_id": new_chat_id},
                    )
        except sqlite3.IntegrityError:
            log.error("chat %s migrated to %s, which has a tournament", old_chat_id, new_chat_id)
            return
        log.info("tournaments %s moved from chat %s to %s", [t.id for t in moved],
                 old_chat_id, new_chat_id)

    async def bot_removed(self, bot: Bot, chat_id: int) -> None:
        """The bot left or was kicked from ``chat_id``: mark its tournaments and tell
        their chief judges privately, once (until the bot is added back)."""
        async with self._db.transaction() as conn:
            found = await tournaments.tournaments_for_chat(conn, chat_id)
            newly = [t for t in found if not t.bot_removed and t.status != "finished"]
            await tournaments.set_bot_removed(conn, chat_id, True)
            for t in newly:
                await audit(
                    conn,
                    action="tournament.bot_removed",
                    entity="tournament",
                    entity_id=t.id,
                    tournament_id=t.id,
                    before={"bot_removed": False},
                    after={"bot_removed": True},
                )
            chiefs = {t.id: await staff.list_staff(conn, t.id, role="chief") for t in newly}
            profiles = await users.get_users(
                conn, [s.user_id for rows in chiefs.values() for s in rows]
            )
        if newly:
            log.warning("bot removed from chat %s (tournaments %s)", chat_id,
                        [t.id for t in newly])
        for t in newly:
            for chief in chiefs[t.id]:
                profile = profiles.get(chief.user_id)
                with self._language(_locale_of(profile.language_code if profile else None)):
                    text = _(
                        "I was removed from the group of the tournament «{title}», so results "
                        "and standings are not posted there any more. Nothing is lost: games "
                        "are still saved. Add me back to the group to continue."
                    ).format(title=html.escape(t.title))
                try:
                    await bot.send_message(chief.user_id, text)
                except TelegramForbiddenError as error:  # blocked or never started the bot
                    log.info("could not tell chief judge %s: %s", chief.user_id, error)
                except TelegramAPIError as error:
                    log.warning("could not tell chief judge %s: %s", chief.user_id, error)

    async def bot_returned(self, bot: Bot, chat_id: int) -> None:
        """The bot is back in ``chat_id``: clear the mark and publish what waited."""
        async with self._db.transaction() as conn:
            found = await tournaments.tournaments_for_chat(conn, chat_id)
            await tournaments.set_bot_removed(conn, chat_id, False)
            for t in found:
                if t.bot_removed:
                    await audit(
                        conn,
                        action="tournament.bot_returned",
                        entity="tournament",
                        entity_id=t.id,
                        tournament_id=t.id,
                        before={"bot_removed": True},
                        after={"bot_removed": False},
                    )
        for t in found:
            if t.status != "finished":
                await self.standings_changed(bot, t.id)

    async def bot_promoted(self, bot: Bot, chat_id: int) -> None:
        """The bot became an admin of ``chat_id``: pin the standings message now."""
        async with self._db.read() as conn:
            tournament = await tournaments.running_tournament_for_chat(conn, chat_id)
        if tournament is not None and tournament.standings_message_id is not None:
            await self._pin(bot, chat_id, tournament.standings_message_id)

    # -- lifecycle --------------------------------------------------------------------

    async def resume(self, bot: Bot) -> None:
        """What a previous run left in the outbox goes out (the dispatcher's start-up)."""
        async with self._db.read() as conn:
            waiting = await outbox.tournaments_waiting(conn)
        for tournament_id in waiting:
            log.info("tournament %s: posting what waited in the outbox", tournament_id)
            pending = self._pending_for(tournament_id)
            pending.bot = bot
            pending.version += 1
            self._schedule(tournament_id, pending)

    async def close(self) -> None:
        """Publish everything still waiting (the dispatcher's shutdown hook)."""
        self._closing = True
        for pending in self._pending.values():
            pending.wake.set()
        tasks = [p.task for p in self._pending.values() if p.task is not None]
        if tasks:
            _done, late = await asyncio.wait(tasks, timeout=SHUTDOWN_TIMEOUT)
            for task in late:
                log.warning("publishing did not finish in %ss; stopped", SHUTDOWN_TIMEOUT)
                task.cancel()
            if late:
                await asyncio.gather(*late, return_exceptions=True)
        for tournament_id, pending in list(self._pending.items()):
            if pending.done < pending.version and pending.bot is not None:
                async with pending.lock:
                    await self._flush(tournament_id, pending)

    # -- scheduling -------------------------------------------------------------------

    def _pending_for(self, tournament_id: int) -> _Pending:
        pending = self._pending.get(tournament_id)
        if pending is None:
            pending = self._pending[tournament_id] = _Pending()
        return pending

    def _db_locked_here(self) -> bool:
        # A caller inside db.transaction() must not wait for a flush that needs the
        # database: it would wait for itself. Such a change is published afterwards.
        holds = getattr(self._db, "_holds_lock", None)
        return bool(holds()) if callable(holds) else False

    def _schedule(self, tournament_id: int, pending: _Pending, delay: float | None = None) -> None:
        if pending.task is None:
            pending.wake.clear()
            pending.task = asyncio.create_task(
                self._run(tournament_id, pending, self._debounce if delay is None else delay),
                name=f"publish-tournament-{tournament_id}",
            )

    async def _run(self, tournament_id: int, pending: _Pending, delay: float) -> None:
        try:
            if delay > 0 and not self._closing:
                with suppress(TimeoutError):
                    await asyncio.wait_for(pending.wake.wait(), delay)
            async with pending.lock:
                if pending.done < pending.version:
                    await self._flush(tournament_id, pending)
        except Exception:
            log.exception("publishing for tournament %s failed", tournament_id)
        finally:
            pending.task = None
            self._follow_up(tournament_id, pending)

    def _follow_up(self, tournament_id: int, pending: _Pending) -> None:
        if self._closing or pending.task is not None:
            return
        if pending.done < pending.version:
            self._schedule(tournament_id, pending)  # changes made while publishing
        elif pending.failures:
            # Rows are left (Telegram refused, the network is down): try again later,
            # waiting longer each time, even if no new change comes.
            backoff = min(self._retry_after * 2 ** (pending.failures - 1), MAX_RETRY_AFTER)
            pending.version += 1
            self._schedule(tournament_id, pending, delay=backoff)

    # -- publishing ---------------------------------------------------------------------

    def _translations(self) -> I18n:
        if self._i18n is None:
            self._i18n = create_i18n(_LOCALES)
        return self._i18n

    @contextmanager
    def _language(self, locale: str | None) -> Iterator[None]:
        """Translations for the group (its tournament's language) or for one user."""
        i18n = self._translations()
        with i18n.context(), i18n.use_locale(locale or DEFAULT_LOCALE):
            yield

    @contextmanager
    def _current_language(self) -> Iterator[None]:
        """The caller's translations (a handler's user), else the default language."""
        if I18n.get_current(no_error=True) is not None:
            yield
        else:
            with self._language(None):
                yield

    async def _tournament(self, tournament_id: int) -> TournamentRow | None:
        async with self._db.read() as conn:
            return await tournaments.get_tournament(conn, tournament_id)

    async def _flush(self, tournament_id: int, pending: _Pending) -> None:
        """Publish the tournament's outbox; what fails stays there for the next try."""
        target = pending.version
        bot = pending.bot
        left = True
        try:
            if bot is not None:
                with self._language(None):
                    left = await self._publish(bot, tournament_id)
        except Exception:
            log.exception("publishing for tournament %s failed; retried later", tournament_id)
        finally:
            pending.done = max(pending.done, target)
            pending.failures = pending.failures + 1 if left else 0

    async def _publish(self, bot: Bot, tournament_id: int) -> bool:
        """Post the results and notes, update the standings, post a round's picture;
        return whether rows are left that should be retried."""
        async with self._db.read() as conn:
            rows = await outbox.pending(conn, tournament_id)
            tournament = await tournaments.get_tournament(conn, tournament_id)
        if not rows:
            return False
        if tournament is None or tournament.chat_id is None:
            await self._forget(rows)  # no group to post to
            return False
        if tournament.bot_removed:
            return False  # kept until the bot is back (bot_returned publishes them)
        chat_id = tournament.chat_id
        try:
            with self._language(tournament.language):  # the group reads the tournament's
                await self._post_lines(bot, chat_id, [r for r in rows if r.text])
                if any(r.kind != outbox.NOTE for r in rows):  # a note alone changes no points
                    await self._update_standings(bot, tournament)
                saved = [r.game_id for r in rows if r.game_id is not None]
                if saved:
                    await self._round_picture(bot, tournament, saved)
        except TelegramForbiddenError:
            await self.bot_removed(bot, chat_id)
            return False
        except TelegramAPIError as error:
            log.warning("tournament %s: posting to chat %s failed (%s); retried later",
                        tournament_id, chat_id, error)
            return True
        await self._forget(rows)
        return False

    async def _forget(self, rows: Sequence[outbox.OutboxRow]) -> None:
        async with self._db.transaction() as conn:
            await outbox.remove(conn, (r.id for r in rows))

    async def _call(self, chat_id: int, send: Callable[[int], Awaitable[T]]) -> T:
        """``send(chat_id)``, following a group's upgrade to a supergroup. (With
        FloodControl on the session the migration never reaches here.)"""
        try:
            return await send(chat_id)
        except TelegramMigrateToChat as error:
            await self.chat_migrated(chat_id, error.migrate_to_chat_id)
            return await send(error.migrate_to_chat_id)

    async def _post_lines(
        self, bot: Bot, chat_id: int, rows: Sequence[outbox.OutboxRow]
    ) -> None:
        """Results and notes in as few messages as fit; each message's rows are marked
        posted as soon as it went out."""
        lines = [r.text or "" for r in rows]
        done = 0
        for chunk in split_lines(lines):
            await self._send_text(bot, chat_id, "\n".join(chunk))
            async with self._db.transaction() as conn:
                await outbox.texts_posted(conn, (r.id for r in rows[done : done + len(chunk)]))
            done += len(chunk)

    async def _send_text(self, bot: Bot, chat_id: int, text: str) -> Message:
        return await self._call(chat_id, lambda c: bot.send_message(c, text))

    async def _update_standings(self, bot: Bot, tournament: TournamentRow) -> None:
        # Read again: posting the results may have followed the group to a supergroup.
        tournament = await self._tournament(tournament.id) or tournament
        if tournament.chat_id is None:
            return
        current = await self._standings.get(tournament.id)
        text = standings_text(tournament.title, current.standings)
        digest = _digest(text)
        message_id = tournament.standings_message_id
        if message_id is not None and tournament.standings_hash == digest:
            return  # the chat already shows exactly this
        if message_id is not None:
            try:
                await self._call(
                    tournament.chat_id,
                    lambda c: bot.edit_message_text(text=text, chat_id=c, message_id=message_id),
                )
            except TelegramBadRequest as error:
                if _cannot_edit(error):
                    log.info("standings message %s of tournament %s is gone; posting anew",
                             message_id, tournament.id)
                    message_id = None
                elif not _not_modified(error):
                    raise
        if message_id is None:
            message = await self._call(tournament.chat_id, lambda c: bot.send_message(c, text))
            message_id = message.message_id
            await self._pin(bot, message.chat.id, message_id)
        async with self._db.transaction() as conn:
            await tournaments.set_standings_message(conn, tournament.id, message_id, digest)

    @staticmethod
    async def _pin(bot: Bot, chat_id: int, message_id: int) -> None:
        try:
            await bot.pin_chat_message(chat_id, message_id, disable_notification=True)
        except (TelegramBadRequest, TelegramForbiddenError) as error:
            log.info("standings message not pinned in chat %s: %s", chat_id, error)

    async def _round_picture(self, bot: Bot, tournament: TournamentRow, saved: list[int]) -> None:
        async with self._db.read() as conn:
            tables = await games_repo.tables_by_round(conn, tournament.id)
            confirmed = await players.count_players(conn, tournament.id, status="confirmed")
            pictured = await outbox.pictured_rounds(conn, tournament.id)
        by_round: dict[int, set[int]] = {}
        first_games: dict[int, int] = {}
        saved_set = set(saved)
        saved_rounds: set[int] = set()
        for game_id, round_no, table_no in tables:
            by_round.setdefault(round_no, set()).add(table_no)
            first_games[round_no] = min(first_games.get(round_no, game_id), game_id)
            if game_id in saved_set:
                saved_rounds.add(round_no)
        round_no = completed_round(by_round, first_games, saved_set, saved_rounds, confirmed)
        if round_no is None or round_no in pictured:
            return
        images, _caption = await self._images(tournament)
        caption = _("{title}: standings after round {round}").format(
            title=html.escape(tournament.title), round=round_no
        )
        assert tournament.chat_id is not None
        await self._call(
            tournament.chat_id, lambda c: self._send_images(bot, c, images, caption)
        )
        async with self._db.transaction() as conn:
            await outbox.mark_pictured(conn, tournament.id, round_no)

    async def _images(self, tournament: TournamentRow) -> tuple[list[bytes], str]:
        from bot.standings_image import render_standings  # Pillow only when drawing

        current = await self._standings.get(tournament.id)
        rows = standings_image_rows(current.standings)
        podium = sum(1 for row in current.standings.rows if row.place <= 3)
        columns = split_labels(
            _("#|Player|Total|Extra|Wins|Ci|Games"), "#|Player|Total|Extra|Wins|Ci|Games"
        )
        games = sum(row.games for row in current.standings.rows) // 10
        subtitle = standings_after(games)
        images = await asyncio.to_thread(
            render_standings, tournament.title, columns, rows, subtitle=subtitle, podium=podium
        )
        caption = f"<b>{html.escape(tournament.title)}</b>\n{subtitle}"
        return images, caption

    @staticmethod
    async def _send_images(bot: Bot, chat_id: int, images: list[bytes], caption: str) -> None:
        caption = caption[:CAPTION_LIMIT]
        files = [
            BufferedInputFile(png, filename=f"standings-{n}.png")
            for n, png in enumerate(images, start=1)
        ]
        if len(files) == 1:
            await bot.send_photo(chat_id, files[0], caption=caption)
            return
        for start in range(0, len(files), 10):  # an album holds at most 10
            media: list[MediaUnion] = [
                InputMediaPhoto(media=f, caption=caption if start + i == 0 else None)
                for i, f in enumerate(files[start : start + 10])
            ]
            await bot.send_media_group(chat_id, media)
