"""What goes out to a tournament's group: the outbox's results and notes, the live
standings message, a picture of the standings when a round is complete, then the next
round's seating; and each linked player's seat, privately (``seat_messages``)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import suppress
from functools import partial
from typing import TypeVar

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
)
from aiogram.types import BufferedInputFile, InputMediaPhoto, MediaUnion, Message
from aiogram.utils.i18n import I18n

from bot.db import games as games_repo
from bot.db import outbox, players, staff, tournaments, users
from bot.db import stages as stages_repo
from bot.db.audit import audit
from bot.db.connection import Database
from bot.db.tournaments import CHIEF, TournamentRow
from bot.publishing.chat_events import ChatEvents, pin_quietly
from bot.publishing.notices import deliver
from bot.publishing.refusals import (
    FINAL_STANDINGS,
    PICTURE,
    RESULT_LINE,
    SEATING,
    STANDINGS_MESSAGE,
    Refusal,
    Refused,
    plain_text,
    refusal,
    refusal_notice,
    what_of,
)
from bot.publishing.seat_messages import SeatMessages
from bot.reads.rating import unsettled
from bot.reads.standings import StandingsService, lot_due
from bot.reads.stored_plans import accepted_plan, vacated, withdrawn_names
from bot.services.notices import Notice
from bot.texts.i18n import caller_language, locale_for, use_language
from bot.texts.markup import html_text
from bot.texts.rating_format import CAPTION_LIMIT, MESSAGE_LIMIT, split_lines, utf16_len
from bot.texts.seating_text import (
    find_round,
    plan_title,
    round_seating_text,
    round_seating_update,
    substitute_for,
)
from bot.texts.standings_text import (
    Picture,
    cut_caption,
    final_caption,
    hidden,
    live_message,
    picture,
    round_caption,
)
from scoring import Standings
from seating import Plan

log = logging.getLogger(__name__)

T = TypeVar("T")

ALBUM_SIZE = 10  # photos of one media group at most


def completed_round(
    tables: dict[int, set[int]],
    first_games: dict[int, int],
    saved: set[int],
    saved_rounds: set[int],
    confirmed_players: int,
    planned: Mapping[int, set[int]] | None = None,
    *,
    highest: int = 0,
) -> int | None:
    """The latest round the games in ``saved`` completed, if any.

    A round of the accepted seating plan (``planned``: round -> its tables) is complete
    when each of its tables has a saved game (pending approval counts: it is saved).
    Without a plan a round has T tables, T = max(the highest table number seen in any
    round, confirmed players // 10), and one that ends with fewer tables (players left)
    is complete when the first game of the next round is saved. Only the saves of this
    batch can complete a round, so a restart never posts an old round again.

    ``tables``: round -> table numbers with a game that counts (the ``saved_rounds``
    and the rounds before them suffice); ``first_games``: round -> id of its earliest
    game; ``saved_rounds``: rounds of the ``saved`` games; ``highest``: the highest table
    number of the rounds not in ``tables``.
    """
    t = max([*(max(ts) for ts in tables.values() if ts), highest, confirmed_players // 10, 1])
    planned = planned or {}
    done = None

    def full(r: int) -> set[int]:
        return planned.get(r) or set(range(1, t + 1))

    for r in sorted(saved_rounds):
        if full(r) <= tables.get(r, set()):
            done = max(done or 0, r)
        previous = tables.get(r - 1)
        # A short round (complete by T it got its picture when its last table was saved).
        if previous and not full(r - 1) <= previous and first_games.get(r) in saved:
            done = max(done or 0, r - 1)
    return done


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


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


class GroupPoster:
    """Posts a tournament's outbox: to its group, in the tournament's language; the
    players' seats privately, each in his own."""

    def __init__(
        self, db: Database, standings: StandingsService, i18n: I18n, events: ChatEvents
    ) -> None:
        self._db = db
        self._standings = standings
        self._i18n = i18n
        self._events = events
        self._seats = SeatMessages(db, i18n)

    async def post(self, bot: Bot, tournament_id: int) -> bool:
        """Post the results and notes, update the standings, post a round's picture and
        the next round's seating, tell the players their seats; return whether rows are
        left that should be tried again."""
        with use_language(self._i18n, None):
            return await self._post(bot, tournament_id)

    async def send_standings_image(
        self, bot: Bot, tournament_id: int, chat_id: int, *, caption: str | None = None
    ) -> None:
        """The picture of the full standings to ``chat_id`` (/rating image), in the
        caller's language; API errors propagate to the caller."""
        tournament = await self._tournament(tournament_id)
        if tournament is None:
            return
        with caller_language(self._i18n):
            images, shown = await self._draw(tournament)
        await self._send_images(bot, chat_id, images, caption or shown.caption)

    async def _tournament(self, tournament_id: int) -> TournamentRow | None:
        async with self._db.read() as conn:
            return await tournaments.get_tournament(conn, tournament_id)

    async def _post(self, bot: Bot, tournament_id: int) -> bool:
        async with self._db.read() as conn:
            rows = await outbox.pending(conn, tournament_id)
            tournament = await tournaments.get_tournament(conn, tournament_id)
        if not rows:
            return False
        if tournament is None:
            await self._forget(rows)
            return False
        group = [r for r in rows if r.kind != outbox.SEAT]
        private = [r for r in rows if r.kind == outbox.SEAT]
        # The group first: a round's results and standings, then the next round's seating.
        left = await self._post_group(bot, tournament, group) if group else False
        if private:  # whatever became of the group's posts
            left = await self._seats.post(bot, tournament, private) or left
        return left

    async def _post_group(
        self, bot: Bot, tournament: TournamentRow, rows: Sequence[outbox.OutboxRow]
    ) -> bool:
        """Each step (lines, final, standings, cuts, round picture, seatings) in order.

        A step Telegram refuses for good sets its own items aside and the next step goes
        on (``refusals``); a passing failure stops the batch, all of it kept for the next
        try; a 403 means the bot is out of the group."""
        tournament_id = tournament.id
        if tournament.chat_id is None:
            await self._forget(rows)  # no group to post to
            return False
        if tournament.bot_removed:
            return False  # kept until the bot is back (bot_returned publishes them)
        chat_id = tournament.chat_id
        refused: Refused = {}
        finals = [r for r in rows if r.kind == outbox.FINAL]
        saved = [r.game_id for r in rows if r.game_id is not None]
        texts = [r for r in rows if r.text]
        # (the step, its rows, what the chief judge is told the group missed)
        steps: list[tuple[Callable[[], Awaitable[None]], Sequence[outbox.OutboxRow], str]] = [
            (partial(self._post_lines, bot, tournament, texts, refused), texts, RESULT_LINE),
        ]
        if finals:
            steps.append((partial(self._post_final, bot, tournament, finals, refused), finals,
                          FINAL_STANDINGS))
        if any(r.kind in (outbox.RESULT, outbox.STANDINGS) for r in rows):
            steps.append((partial(self._update_standings, bot, tournament),
                          [r for r in rows if r.kind == outbox.STANDINGS], STANDINGS_MESSAGE))
            # The standings first, then the posts: they are current as soon as can be
            # (readers share them), whatever the lines' sending costs. What fails here
            # fails again in its own step, which tells it.
            with suppress(Exception):
                await self._standings.get(tournament_id)
        for row in rows:
            if row.kind == outbox.CUT:
                steps.append((partial(self._post_cut, bot, tournament, row, refused), [row],
                              PICTURE))
            elif row.kind == outbox.PICTURE:
                steps.append((partial(self._owed_picture, bot, tournament, row, refused),
                              [row], PICTURE))
        if saved:
            steps.append((partial(self._round_picture, bot, tournament, saved, refused), (),
                          PICTURE))
        seatings = [r for r in rows if r.kind == outbox.SEATING]
        if seatings:
            steps.append((partial(self._post_seatings, bot, tournament, seatings, refused),
                          seatings, SEATING))
        try:
            with use_language(self._i18n, tournament.language):  # the group reads the tournament's
                for step, own, what in steps:
                    try:
                        await step()
                    except TelegramForbiddenError:
                        raise
                    except Exception as error:
                        found = refusal(error)
                        if found is None:
                            raise
                        # Set aside whole; the live standings get a row of their own.
                        await self._set_aside(tournament_id, own, found, kind=outbox.STANDINGS
                                              if what == STANDINGS_MESSAGE else None)
                        refused.setdefault(found.cause, (found, what))
        except TelegramForbiddenError:
            await self._events.bot_removed(bot, chat_id)
            return False
        except (TelegramAPIError, OSError, TimeoutError) as error:
            log.warning("tournament %s: posting to chat %s failed (%s); retried later",
                        tournament_id, chat_id, error)
            await self._tell_chiefs(bot, tournament, refused)
            return True
        await self._forget(rows)
        await self._tell_chiefs(bot, tournament, refused)
        return False

    async def _set_aside(
        self, tournament_id: int, rows: Sequence[outbox.OutboxRow], found: Refusal,
        *, kind: str | None = None, round_no: int | None = None, stage: int | None = None,
        text_posted: bool = False,
    ) -> None:
        """Keep what Telegram refused for good, with its cause, for "Post again"
        (``rows``, or a new row of ``kind`` when the item had none), and audit it."""
        async with self._db.transaction() as conn:
            if rows:
                await outbox.set_aside(conn, (r.id for r in rows), found.cause, found.detail)
                ids = [r.id for r in rows]
                kinds = sorted({r.kind for r in rows})
            elif kind is not None:
                ids = [await outbox.add_set_aside(
                    conn, tournament_id, kind, found.cause, found.detail, round_no=round_no,
                    stage=stage, text_posted=text_posted,
                )]
                kinds = [kind]
            else:
                return
            log.warning("tournament %s: Telegram refused %s for good (%s); set aside",
                        tournament_id, kinds, found.detail)
            await audit(
                conn, action="post.set_aside", entity="outbox", entity_id=ids[0],
                tournament_id=tournament_id,
                after={"items": ids, "kinds": kinds, "cause": found.cause,
                       "telegram": found.detail},
            )

    async def _tell_chiefs(self, bot: Bot, tournament: TournamentRow, refused: Refused) -> None:
        """The chief judges hear of each cause once, privately, in their language."""
        if not refused:
            return
        async with self._db.transaction() as conn:
            new = [cause for cause in refused if await outbox.first_told(conn, tournament.id,
                                                                         cause)]
            chiefs = await staff.list_staff(conn, tournament.id, role=CHIEF) if new else []
            profiles = await users.get_users(conn, [c.user_id for c in chiefs])
        notices = []
        for cause in new:
            found, what = refused[cause]
            for chief in chiefs:
                locale = locale_for(profiles.get(chief.user_id))
                with use_language(self._i18n, locale):
                    text = refusal_notice(tournament.title, what, found.cause, found.detail)
                notices.append(Notice(chief.user_id, text, locale))
        await deliver(bot, notices)

    async def _forget(self, rows: Sequence[outbox.OutboxRow]) -> None:
        async with self._db.transaction() as conn:
            await outbox.remove(conn, (r.id for r in rows))

    async def _call(self, chat_id: int, send: Callable[[int], Awaitable[T]]) -> T:
        """``send(chat_id)``, following a group's upgrade to a supergroup. (With
        FloodControl on the session the migration never reaches here.)"""
        try:
            return await send(chat_id)
        except TelegramMigrateToChat as error:
            await self._events.chat_migrated(chat_id, error.migrate_to_chat_id)
            return await send(error.migrate_to_chat_id)

    async def _post_lines(
        self, bot: Bot, tournament: TournamentRow, rows: Sequence[outbox.OutboxRow],
        refused: Refused,
    ) -> None:
        """Results and notes in as few messages as fit; each message's rows are marked
        posted as soon as it went out. A message Telegram refuses goes again line by
        line, a line it refuses again as plain text; a line refused even so is set
        aside, and the lines after it go on."""
        chat_id = tournament.chat_id
        assert chat_id is not None
        lines = [r.text or "" for r in rows]
        done = 0
        for chunk in split_lines(lines):
            mine = rows[done : done + len(chunk)]
            done += len(chunk)
            try:
                await self._send_text(bot, chat_id, "\n".join(chunk))
            except Exception as error:
                if refusal(error) is None:
                    raise
                for row, line in zip(mine, chunk, strict=True):
                    await self._post_line(bot, tournament.id, chat_id, row, line, refused)
                continue
            async with self._db.transaction() as conn:
                await outbox.texts_posted(conn, mine)

    async def _post_line(
        self, bot: Bot, tournament_id: int, chat_id: int, row: outbox.OutboxRow, line: str,
        refused: Refused,
    ) -> None:
        found: Refusal | None = None
        for text, markup in ((line, True), (plain_text(line), False)):
            try:
                await self._send_text(bot, chat_id, text, html=markup)
            except Exception as error:
                found = refusal(error)
                if found is None:
                    raise
                continue
            async with self._db.transaction() as conn:
                await outbox.texts_posted(conn, [row])
            return
        assert found is not None
        await self._set_aside(tournament_id, [row], found)
        refused.setdefault(found.cause, (found, what_of(row.kind)))

    async def _send_text(self, bot: Bot, chat_id: int, text: str, *, html: bool = True) -> Message:
        if html:
            return await self._call(chat_id, lambda c: bot.send_message(c, text))
        return await self._call(chat_id, lambda c: bot.send_message(c, text, parse_mode=None))

    async def _live_text(self, tournament: TournamentRow, *, limit: int = MESSAGE_LIMIT) -> str:
        """The group's live standings message as it should read now."""
        current = await self._standings.get(tournament.id)
        found = await unsettled(self._db, tournament.id, current)
        return live_message(
            tournament.title, current.standings, pending=found.games, pending_players=found.players,
            lot_due=lot_due(tournament, current),
            stage=current.stage, limit=limit,
        )

    async def _post_final(
        self, bot: Bot, tournament: TournamentRow, rows: Sequence[outbox.OutboxRow],
        refused: Refused,
    ) -> None:
        """The last stage ended (D16): the final standings, a hidden final's shown
        (D17), as a new message that is pinned and from now on the live standings
        message (a lot drawn later edits it), then their picture. The text is marked
        posted as soon as it went out, the rows gone once the picture did: a restart
        posts neither twice (only a crash between Telegram's answer and the commit)."""
        tournament = await self._tournament(tournament.id) or tournament
        if tournament.chat_id is None:
            return
        if not any(r.text_posted for r in rows):
            text = await self._live_text(tournament)
            message = await self._call(tournament.chat_id, lambda c: bot.send_message(c, text))
            async with self._db.transaction() as conn:
                await tournaments.set_standings_message(
                    conn, tournament.id, message.message_id, _digest(text)
                )
                for row in rows:
                    await outbox.seating_text_posted(conn, row.id)
            tournament = await self._tournament(tournament.id) or tournament
        message_id = tournament.standings_message_id
        assert tournament.chat_id is not None
        if message_id is not None:  # again after a restart: pinning twice is harmless
            await pin_quietly(bot, tournament.chat_id, message_id)
        images, _shown = await self._draw(tournament)
        # The text is the final standings already: a refused picture needs no stand-in.
        await self._send_picture(bot, tournament, images, final_caption(tournament.title),
                                 None, rows, refused)
        await self._forget(rows)

    async def _post_cut(
        self, bot: Bot, tournament: TournamentRow, row: outbox.OutboxRow, refused: Refused
    ) -> None:
        """The picture of the stage that closed (its figures shown now, D17), the next
        stage's entrants marked at the top (D13)."""
        view = (await self._standings.get(tournament.id)).stage
        if view is None or row.stage is None or not 1 <= row.stage < view.count:
            return  # the stages changed meanwhile: nothing to show
        closed, following = view.staged.stages[row.stage - 1 : row.stage + 1]
        entering = set(following.entrants)
        marked = 0
        for standing in closed.standings.rows:
            if standing.player not in entering:
                break
            marked += 1
        images, _shown = await self._draw(tournament, closed.standings, podium=marked)
        caption = cut_caption(
            tournament.title, closed.stage.id, following.stage.id, len(following.entrants)
        )
        await self._send_picture(bot, tournament, images, caption, closed.standings, [row],
                                 refused)

    async def _owed_picture(
        self, bot: Bot, tournament: TournamentRow, row: outbox.OutboxRow, refused: Refused
    ) -> None:
        """A round's picture that went out as text before (posted again by the chief
        judge): the standings as they are now, under that round's caption."""
        assert row.round is not None
        if hidden((await self._standings.get(tournament.id)).stage):
            return  # D17: a hidden stage's figures are not drawn for the group
        images, _shown = await self._draw(tournament)
        await self._send_picture(bot, tournament, images,
                                 round_caption(tournament.title, row.round), None, [row],
                                 refused)

    async def _send_picture(
        self, bot: Bot, tournament: TournamentRow, images: list[bytes], caption: str,
        standings: Standings | None, rows: Sequence[outbox.OutboxRow], refused: Refused,
        *, round_no: int | None = None, fallback: bool = True,
    ) -> None:
        """The standings' picture; refused for good, the same standings go as text
        (``standings``, else the current ones; none when ``rows`` are a final's, whose
        text went out) and the picture is set aside: ``rows``, or a new ``picture`` row
        of ``round_no``."""
        assert tournament.chat_id is not None
        try:
            await self._call(
                tournament.chat_id, lambda c: self._send_images(bot, c, images, caption)
            )
            return
        except Exception as error:
            found = refusal(error)
            if found is None:
                raise
        final = any(r.kind == outbox.FINAL for r in rows)
        await self._set_aside(tournament.id, rows, found,
                              kind=outbox.PICTURE if round_no is not None else None,
                              round_no=round_no)
        refused.setdefault(found.cause, (found, PICTURE))
        if final or not fallback:
            return
        text = await self._standings_text(tournament, caption, standings)
        try:
            await self._send_text(bot, tournament.chat_id, text)
        except Exception as error:  # the stand-in refused too: it is set aside already
            again = refusal(error)
            if again is None:
                raise
            refused.setdefault(again.cause, (again, PICTURE))

    async def _standings_text(
        self, tournament: TournamentRow, caption: str, standings: Standings | None
    ) -> str:
        """A picture's stand-in: its caption over the standings' table, in one message."""
        head = html_text(caption) + "\n"
        limit = MESSAGE_LIMIT - utf16_len(head)
        if standings is None:
            return head + await self._live_text(tournament, limit=limit)
        return head + live_message(tournament.title, standings, limit=limit)

    async def _update_standings(self, bot: Bot, tournament: TournamentRow) -> None:
        # Read again: posting the results may have followed the group to a supergroup.
        tournament = await self._tournament(tournament.id) or tournament
        if tournament.chat_id is None:
            return
        text = await self._live_text(tournament)
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
            async with self._db.transaction() as conn:  # before the pin: never posted twice
                await tournaments.set_standings_message(
                    conn, tournament.id, message.message_id, digest
                )
            await pin_quietly(bot, message.chat.id, message.message_id)
            return
        async with self._db.transaction() as conn:
            await tournaments.set_standings_message(conn, tournament.id, message_id, digest)

    async def _round_picture(
        self, bot: Bot, tournament: TournamentRow, saved: list[int], refused: Refused
    ) -> None:
        plan = await accepted_plan(self._db, tournament.id)
        planned = plan.tables_by_round() if plan else {}
        # Only the saved games' rounds and the ones before them can complete (see
        # completed_round): their games are read, not the tournament's.
        async with self._db.read() as conn:
            pictured = await outbox.pictured_rounds(conn, tournament.id)
            # A round is one stage's (D13): its tables are counted among that stage's
            # games, for that stage's players (a one-table final after ten qualifying
            # tables has rounds of one table).
            placed = await games_repo.places_of(conn, tournament.id, saved)
            stage = max((placed[g][1] if g in placed else 1 for g in saved), default=1)
            saved_rounds = {r for r, s in placed.values() if s == stage}
            near = saved_rounds | {r - 1 for r in saved_rounds}
            tables = await games_repo.round_tables(conn, tournament.id, near)
            # The T of completed_round, for a round the plan has no tables for.
            highest = players_count = 0
            if any(not planned.get(r) for r in near):
                highest = await games_repo.highest_table(conn, tournament.id, stage)
                players_count = await players.count_players(
                    conn, tournament.id, status="confirmed"
                )
                rows = await stages_repo.list_stages(conn, tournament.id)
                row = next((r for r in rows if r.number == stage), None)
                if row is not None and row.entrants is not None:
                    players_count = len(await stages_repo.entrants_of(conn, row.id))
        by_round: dict[int, set[int]] = {}
        first_games: dict[int, int] = {}
        for game_id, round_no, table_no, of_stage in tables:
            if of_stage != stage:
                continue
            by_round.setdefault(round_no, set()).add(table_no)
            first_games[round_no] = min(first_games.get(round_no, game_id), game_id)
        complete = completed_round(
            by_round, first_games, set(saved), saved_rounds, players_count, planned or None,
            highest=highest,
        )
        if complete is None or complete in pictured:
            return
        view = (await self._standings.get(tournament.id)).stage
        if view is not None and view.row.number != stage:
            return  # its stage closed meanwhile: the group has the next stage's standings
        if hidden(view):
            return  # D17: a hidden stage's figures are not drawn for the group
        images, _shown = await self._draw(tournament)
        caption = round_caption(tournament.title, complete)
        # Refused, the round's standings go as text and its picture is owed (a row).
        await self._send_picture(bot, tournament, images, caption, None, (), refused,
                                 round_no=complete)
        async with self._db.transaction() as conn:
            await outbox.mark_pictured(conn, tournament.id, complete)

    async def _post_seatings(
        self, bot: Bot, tournament: TournamentRow, seatings: Sequence[outbox.OutboxRow],
        refused: Refused,
    ) -> None:
        """Each round's seating as text and picture, from the plan accepted now (a
        re-plan before the post is posted as it is); a row goes once its post went out,
        or is set aside when Telegram refuses it for good (its text, or its picture
        once the text went out), and the next round's goes on."""
        stored = await accepted_plan(self._db, tournament.id)
        posted: set[int] = set()
        for row in seatings:
            assert row.round is not None
            fresh = row.round not in posted  # one post a round, however many rows ask
            if fresh and stored is not None and find_round(stored.plan, row.round) is not None:
                try:
                    await self._post_seating(bot, tournament, stored.plan, row, stored.stage)
                except Exception as error:
                    found = refusal(error)
                    if found is None:
                        raise
                    await self._set_aside(tournament.id, [row], found)
                    refused.setdefault(found.cause, (found, SEATING))
            posted.add(row.round)
            await self._forget([row])

    async def _post_seating(
        self,
        bot: Bot,
        tournament: TournamentRow,
        plan: Plan,
        row: outbox.OutboxRow,
        stage: str | None = None,
    ) -> None:
        assert row.round is not None and tournament.chat_id is not None
        round_no, title = row.round, plan_title(tournament.title, stage)
        gone = await withdrawn_names(self._db, tournament.id)  # their seats: substitutes
        plan = vacated(plan, {round_no}, gone, substitute_for)
        if row.changed:
            text = round_seating_update(plan, round_no, title)
        else:
            text = round_seating_text(plan, round_no, title)
        from bot.texts.seating_image import round_seating_picture  # Pillow only when drawing

        image = await asyncio.to_thread(round_seating_picture, plan, round_no, title)
        photo = BufferedInputFile(image, filename=f"seating-round-{round_no}.png")
        # Each post is marked done right after Telegram took it, in its own transaction:
        # only a crash between that answer and that commit can repeat it.
        if not row.text_posted:
            await self._call(tournament.chat_id, lambda c: bot.send_message(c, text))
            async with self._db.transaction() as conn:
                await outbox.seating_text_posted(conn, row.id)
        await self._call(tournament.chat_id, lambda c: bot.send_photo(c, photo))

    async def _draw(
        self, tournament: TournamentRow, standings: Standings | None = None, *,
        podium: int | None = None,
    ) -> tuple[list[bytes], Picture]:
        """The standings' picture (the current ones, or ``standings`` with ``podium``
        rows marked), drawn in a worker thread; in the current language."""
        from bot.texts.standings_image import render_standings  # Pillow only when drawing

        if standings is None:
            current = await self._standings.get(tournament.id)
            found = await unsettled(self._db, tournament.id, current)
            shown = picture(
                tournament.title, current.standings, pending=found.games,
                pending_players=found.players,
            )
        else:
            shown = picture(tournament.title, standings)
        images = await asyncio.to_thread(
            render_standings,
            shown.title,
            shown.columns,
            shown.rows,
            subtitle=shown.subtitle,
            podium=shown.podium if podium is None else podium,
        )
        return images, shown

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
        for start in range(0, len(files), ALBUM_SIZE):
            media: list[MediaUnion] = [
                InputMediaPhoto(media=f, caption=caption if start + i == 0 else None)
                for i, f in enumerate(files[start : start + ALBUM_SIZE])
            ]
            await bot.send_media_group(chat_id, media)

