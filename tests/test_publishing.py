"""The tournament chat's live standings: one pinned message edited in place,
debounced, flood-safe, re-posted when lost, following a migrated group, and a
removed bot telling the chief judge once.

Telegram is a RecordingSession that enforces (scaled-down) limits and answers 429;
FloodControl is installed on the bot's session as in production. The fixtures below
(``make_tournament``, ``draft``, ``save``, ``publish_result``) are shared by the export
and chat-event tests.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import (
    EditMessageText,
    PinChatMessage,
    SendMediaGroup,
    SendMessage,
    SendPhoto,
)

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import games, outbox, players, tournaments
from bot.db import stages as stages_db
from bot.db.connection import Database
from bot.db.games import GameDraft, SeatDraft
from bot.db.tournaments import TournamentRow
from bot.publishing import Publisher
from bot.publishing.posting import completed_round
from bot.reads.standings import StandingsService
from bot.telegram.flood import FloodControl, FloodLimits
from bot.texts.i18n import create_i18n
from bot.texts.rating_format import split_labels, split_lines
from bot.texts.standings_text import live_message
from scoring import StandingRow, Standings
from tests.support import BOT_TOKEN, ApiError, BotHarness, Limits, RecordingSession

CHIEF = 7001
JUDGE = 7002
GROUP = -1001234
ROLES = ("civilian",) * 6 + ("sheriff", "mafia", "mafia", "don")
LOCALES = Settings().locales_path
I18N = create_i18n(LOCALES)


# -- fixtures shared with the export tests -----------------------------------------------


async def make_tournament(
    db: Database,
    *,
    players_count: int = 30,
    chat_id: int | None = GROUP,
    title: str = "Весенний кубок",
    distance: int = 10,
    nicknames: Sequence[str] = (),
) -> tuple[TournamentRow, list[int]]:
    """A tournament with its chief judge and ``players_count`` confirmed players."""
    names = list(nicknames) + [f"Игрок {i}" for i in range(len(nicknames) + 1, players_count + 1)]
    async with db.transaction() as conn:
        t = await tournaments.create_tournament(
            conn, title=title, distance=distance, created_by=CHIEF, chat_id=chat_id
        )
        ids = [
            (
                await players.add_player(
                    conn, t.id, name, status="confirmed", decided_by=CHIEF
                )
            ).id
            for name in names[:players_count]
        ]
    return t, ids


def draft(
    round_no: int,
    table: int,
    seat_players: Sequence[int],
    *,
    result: str = "red",
    first_killed: int | None = None,
    best_move: tuple[int, ...] = (),
    extras: dict[int, int] | None = None,
    disqualified: Sequence[int] = (),
    penalties: dict[int, tuple[str, ...]] | None = None,
    day1_voted_out: int = 0,
) -> GameDraft:
    """Seats 1-6 civilians, 7 sheriff, 8-9 mafia, 10 don; extras in hundredths."""
    extras = extras or {}
    penalties = penalties or {}
    seats = tuple(
        SeatDraft(
            player_id=pid,
            role=ROLES[n - 1],
            disqualified=n in disqualified,
            judge_extra=extras.get(n, 0),
            penalties=penalties.get(n, ()),
        )
        for n, pid in enumerate(seat_players, start=1)
    )
    return GameDraft(
        draft_id=f"R{round_no}-T{table}-{'-'.join(map(str, seat_players))}",
        round=round_no,
        table_no=table,
        result=result,
        seats=seats,
        day1_voted_out=day1_voted_out,
        first_killed=first_killed,
        best_move=best_move,
    )


async def save(db: Database, tournament_id: int, game: GameDraft) -> int:
    async with db.transaction() as conn:
        return await games.save_game(
            conn, tournament_id, game, JUDGE, datetime(2024, 5, 1, 12, tzinfo=UTC)
        )


async def publish_result(
    db: Database, publisher: Publisher, bot: Bot, tournament_id: int, game_id: int, line: str
) -> None:
    """A saved game's result line for the chat, enqueued and published as a Save does
    (its own transaction here: the game is already saved)."""
    async with db.transaction() as conn:
        await outbox.enqueue(conn, tournament_id, result=line, game_id=game_id)
    await publisher.publish(bot, tournament_id)


def table_players(ids: Sequence[int], round_no: int, table: int) -> list[int]:
    """Ten different players for a table: a rotation of the field per round."""
    n = len(ids)
    start = (round_no * 7 + (table - 1) * 10) % n
    return [ids[(start + k) % n] for k in range(10)]


# -- the bot under test -------------------------------------------------------------------


class Env:
    def __init__(
        self, db: Database, *, debounce: float = 0.0, scale: float = 0.02, **session: Any
    ) -> None:
        self.db = db
        self.session = RecordingSession(limits=Limits(time_scale=scale), **session)
        self.standings = StandingsService(db)
        self.publisher = Publisher(db, self.standings, debounce=debounce, i18n=I18N)
        self.flood = FloodControl(
            FloodLimits().scaled(scale), on_migrate=self.publisher.chat_migrated
        )
        self.session.middleware(self.flood)
        self.bot = Bot(
            BOT_TOKEN,
            session=self.session,
            default=DefaultBotProperties(parse_mode=ParseMode.HTML),
        )
        self.session.bot = self.bot

    async def game_saved(self, tournament_id: int, game_id: int, line: str) -> None:
        await publish_result(self.db, self.publisher, self.bot, tournament_id, game_id, line)

    async def announce(self, tournament_id: int, note: str) -> None:
        """A note for the chat, sent at once (if it can't be, it waits like results)."""
        async with self.db.transaction() as conn:
            await outbox.enqueue(conn, tournament_id, note=note)
        await self.publisher.publish(self.bot, tournament_id, now=True)

    async def tournament(self, tournament_id: int) -> TournamentRow:
        async with self.db.read() as conn:
            return await tournaments.require_tournament(conn, tournament_id)

    async def expected_text(self, tournament_id: int) -> str:
        t = await self.tournament(tournament_id)
        with I18N.context(), I18N.use_locale("ru"):
            return live_message(t.title, (await self.standings.get(tournament_id)).standings)

    def delivered(self, kind: type[Any], chat_id: int | None = GROUP) -> list[Any]:
        return [
            m
            for m in self.session.requests_of(kind, delivered=True)
            if chat_id is None or m.chat_id == chat_id
        ]

    def assert_clean(self) -> None:
        assert self.session.limit_hits == 0, "the server had to answer 429"
        assert self.session.violations == 0, "a request came before its retry_after passed"


@pytest.fixture
async def env(db: Database) -> AsyncIterator[Env]:
    e = Env(db)
    yield e
    await e.publisher.close()


# -- live standings ----------------------------------------------------------------------


async def test_saved_game_posts_result_then_pinned_standings(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    game_id = await save(env.db, t.id, draft(1, 1, ids[:10], first_killed=3))

    await env.game_saved(t.id, game_id, "Стол 1: победа красных")

    texts = env.session.sent_texts(GROUP)
    assert texts[0] == "Стол 1: победа красных"
    assert texts[1] == await env.expected_text(t.id)
    assert "Весенний кубок" in texts[1] and "<pre>" in texts[1]
    stored = await env.tournament(t.id)
    pins = env.delivered(PinChatMessage)
    assert [p.message_id for p in pins] == [stored.standings_message_id]
    assert pins[0].disable_notification is True
    assert stored.standings_hash
    env.assert_clean()


async def test_next_game_edits_the_same_message(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    first = (await env.tournament(t.id)).standings_message_id

    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20], result="black"))
    await env.game_saved(t.id, g2, "Стол 2")

    assert (await env.tournament(t.id)).standings_message_id == first
    edits = env.delivered(EditMessageText)
    assert [e.message_id for e in edits] == [first]
    assert edits[0].text == await env.expected_text(t.id)
    assert [m.text for m in env.delivered(SendMessage)] == [
        "Стол 1", env.session.sent_texts(GROUP)[1], "Стол 2"
    ]
    assert len(env.delivered(PinChatMessage)) == 1


async def test_ten_games_within_a_second_one_edit_per_debounce_window(db: Database) -> None:
    env = Env(db, debounce=0.3)
    t, ids = await make_tournament(db, players_count=110)
    first = await save(db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, first, "Стол 1")
    for _ in range(100):  # until the standings message exists (a busy machine is slow)
        if len(env.delivered(SendMessage)) >= 2:
            break
        await asyncio.sleep(0.05)
    assert len(env.delivered(SendMessage)) == 2
    env.session.clear()

    start = time.monotonic()
    for table in range(2, 12):  # ten tables finish within one second
        group = ids[(table - 1) * 10 : table * 10]
        game_id = await save(db, t.id, draft(1, table, group))
        await env.game_saved(t.id, game_id, f"Стол {table}")
        await asyncio.sleep(0.09)
    elapsed = time.monotonic() - start
    await asyncio.sleep(0.5)  # the last window closes

    edits = [c for c in env.session.calls if c.ok and c.api_method == "editMessageText"]
    windows = int(elapsed / 0.3) + 2
    assert 1 <= len(edits) <= windows
    gaps = [b.at - a.at for a, b in itertools.pairwise(edits)]
    assert all(gap >= 0.25 for gap in gaps), gaps
    # No request lost: every result line reached the chat, the last edit shows all 11 games.
    posted = "\n".join(m.text for m in env.delivered(SendMessage))
    assert all(f"Стол {n}" in posted for n in range(2, 12))
    assert len(env.delivered(SendMessage)) == len(edits)  # results coalesced per window
    assert edits[-1].method.text == await env.expected_text(t.id)
    assert "11" in edits[-1].method.text.split("\n")[1]
    env.assert_clean()
    await env.publisher.close()


async def test_ten_games_at_once_cause_one_edit_and_one_results_message(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=100)
    first = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, first, "Стол 1")
    env.session.clear()
    saved = [
        await save(env.db, t.id, draft(2, n, ids[(n - 1) * 10 : n * 10])) for n in range(1, 11)
    ]

    await asyncio.gather(
        *(env.game_saved(t.id, g, f"Тур 2, стол {n}")
          for n, g in enumerate(saved, 1))
    )

    assert len(env.delivered(EditMessageText)) == 1
    results = env.delivered(SendMessage)
    assert len(results) == 1
    assert results[0].text.split("\n") == [f"Тур 2, стол {n}" for n in range(1, 11)]
    env.assert_clean()


async def test_flood_wait_is_waited_out_and_nothing_lost(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    env.session.fail_next("editMessageText", ApiError.flood(1))
    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20]))

    started = time.monotonic()
    await env.game_saved(t.id, g2, "Стол 2")

    assert time.monotonic() - started >= 1.0
    assert env.flood.stats.retried == 1
    assert env.delivered(EditMessageText)[-1].text == await env.expected_text(t.id)
    env.assert_clean()


async def test_identical_content_is_not_sent_again(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    before = len(env.session.calls)

    await env.publisher.standings_changed(env.bot, t.id)  # e.g. a lot that changed nothing
    await env.publisher.standings_changed(env.bot, t.id)  # a correction

    assert len(env.session.calls) == before


async def test_message_is_not_modified_counts_as_success(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    env = Env(db)  # Telegram refuses a no-op edit
    t, ids = await make_tournament(db)
    g1 = await save(db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    message_id = (await env.tournament(t.id)).standings_message_id
    async with db.transaction() as conn:  # the stored hash was lost
        await tournaments.set_standings_message(conn, t.id, message_id, None)

    with caplog.at_level(logging.INFO):
        await env.publisher.standings_changed(env.bot, t.id)

    assert [c.error is not None for c in env.session.calls if c.api_method == "editMessageText"] \
        == [True]
    stored = await env.tournament(t.id)
    assert stored.standings_message_id == message_id and stored.standings_hash
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(env.delivered(SendMessage)) == 2  # no new message: the old one stands
    await env.publisher.close()


async def test_missing_standings_message_is_posted_anew_and_pinned(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    old = (await env.tournament(t.id)).standings_message_id
    env.session.fail_next("editMessageText", ApiError.message_to_edit_not_found())
    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20]))

    await env.game_saved(t.id, g2, "Стол 2")

    new = (await env.tournament(t.id)).standings_message_id
    assert new is not None and new != old
    assert env.session.last_text(GROUP) == await env.expected_text(t.id)
    assert [p.message_id for p in env.delivered(PinChatMessage)] == [old, new]


async def test_message_that_cannot_be_edited_is_posted_anew(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    env.session.fail_next("editMessageText", ApiError.bad_request("message can't be edited"))
    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20]))

    await env.game_saved(t.id, g2, "Стол 2")

    assert env.session.last_text(GROUP) == await env.expected_text(t.id)
    assert len(env.delivered(SendMessage)) == 4  # result, standings, result, new standings


async def test_bot_without_pin_rights_still_posts(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    env.session.fail_next(
        "pinChatMessage", ApiError.bad_request("not enough rights to manage pinned messages")
    )
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))

    await env.game_saved(t.id, g1, "Стол 1")

    assert (await env.tournament(t.id)).standings_message_id is not None
    assert env.session.last_text(GROUP) == await env.expected_text(t.id)


async def test_failed_post_is_retried_with_the_next_change(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    t, ids = await make_tournament(env.db)
    env.session.fail_next("sendMessage", TelegramNetworkError(SendMessage(chat_id=GROUP, text="x"),
                                                              "connection reset"))
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    with caplog.at_level(logging.WARNING):
        await env.game_saved(t.id, g1, "Стол 1")
    assert env.session.sent_texts(GROUP) == []
    assert any("retried" in r.getMessage() for r in caplog.records)

    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20]))
    await env.game_saved(t.id, g2, "Стол 2")

    texts = env.session.sent_texts(GROUP)
    assert texts[0] == "Стол 1\nСтол 2"
    assert texts[1] == await env.expected_text(t.id)


async def test_tournament_without_group_posts_nothing(env: Env) -> None:
    t, ids = await make_tournament(env.db, chat_id=None)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    assert env.session.calls == []


async def test_d7_pending_game_is_named_in_the_standings(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10], extras={1: 70}))
    await env.game_saved(t.id, g1, "Стол 1")
    live = env.session.last_text(GROUP)
    # Named as players read it, its players marked, the reason given.
    assert "тур 1, стол 1" in live and "8.4.3" in live and "D7" not in live and "*" in live


# -- group migrated to a supergroup ------------------------------------------------------


async def test_migration_to_supergroup_updates_chat_and_delivers(env: Env) -> None:
    t, ids = await make_tournament(env.db, chat_id=-555)
    env.session.fail_next("sendMessage", ApiError.migrated(-100555), chat_id=-555)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))

    await env.game_saved(t.id, g1, "Стол 1")

    stored = await env.tournament(t.id)
    assert stored.chat_id == -100555
    assert env.session.sent_texts(-100555) == ["Стол 1", await env.expected_text(t.id)]
    assert stored.standings_message_id is not None
    # Later posts go to the new id straight away.
    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20]))
    await env.game_saved(t.id, g2, "Стол 2")
    assert env.session.sent_texts(-100555)[-1] == "Стол 2"
    assert env.session.last_text(-100555) == await env.expected_text(t.id)
    env.assert_clean()


async def test_migration_without_flood_control_is_followed_too(db: Database) -> None:
    session = RecordingSession()
    bot = Bot(BOT_TOKEN, session=session)
    publisher = Publisher(db, StandingsService(db), i18n=I18N)
    t, ids = await make_tournament(db, chat_id=-556)
    g1 = await save(db, t.id, draft(1, 1, ids[:10]))
    async with db.transaction() as conn:
        await tournaments.set_standings_message(conn, t.id, 5, "old")
    session.fail_next(None, ApiError.migrated(-100556), chat_id=-556)

    await publish_result(db, publisher, bot, t.id, g1, "Стол 1")

    async with db.read() as conn:
        stored = await tournaments.require_tournament(conn, t.id)
    assert stored.chat_id == -100556
    assert session.sent_texts(-100556)[0] == "Стол 1"
    # The old chat's message id means nothing in the supergroup: a new message is posted.
    assert len(session.sent_texts(-100556)) == 2
    assert stored.standings_message_id != 5


async def test_migrating_twice_is_harmless(env: Env) -> None:
    t, _ = await make_tournament(env.db, chat_id=-557)
    await env.publisher.chat_migrated(-557, -100557)
    await env.publisher.chat_migrated(-557, -100557)
    assert (await env.tournament(t.id)).chat_id == -100557


# -- bot removed from the group -----------------------------------------------------------


async def test_kicked_bot_marks_tournament_and_tells_chief_once(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    env.session.fail_next("sendMessage", ApiError.kicked(), chat_id=GROUP)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))

    await env.game_saved(t.id, g1, "Стол 1")

    assert (await env.tournament(t.id)).bot_removed
    told = env.session.sent_texts(CHIEF)
    assert len(told) == 1 and "Весенний кубок" in told[0] and "удалили" in told[0]

    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20]))
    await env.game_saved(t.id, g2, "Стол 2")
    await env.publisher.bot_removed(env.bot, GROUP)  # e.g. the my_chat_member update too
    assert env.session.sent_texts(CHIEF) == told
    assert env.session.sent_texts(GROUP) == []

    # Back in the group: what waited is posted, and the standings.
    await env.publisher.bot_returned(env.bot, GROUP)
    assert not (await env.tournament(t.id)).bot_removed
    texts = env.session.sent_texts(GROUP)
    assert texts == ["Стол 1\nСтол 2", await env.expected_text(t.id)]


async def test_chief_who_never_started_the_bot_is_skipped_quietly(env: Env) -> None:
    t, _ = await make_tournament(env.db)
    env.session.fail_next("sendMessage", ApiError.cant_initiate(), chat_id=CHIEF)
    await env.publisher.bot_removed(env.bot, GROUP)
    assert (await env.tournament(t.id)).bot_removed


# -- round pictures ------------------------------------------------------------------------


async def test_picture_when_every_table_of_the_round_is_saved(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=20)  # 2 tables a round
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    assert env.delivered(SendPhoto) == []

    g2 = await save(env.db, t.id, draft(1, 2, ids[10:]))
    await env.game_saved(t.id, g2, "Стол 2")

    photos = env.delivered(SendPhoto)
    assert len(photos) == 1
    assert "после тура 1" in photos[0].caption
    assert photos[0].photo.data.startswith(b"\x89PNG")
    # A correction doesn't post the round again.
    await env.publisher.standings_changed(env.bot, t.id)  # a correction
    assert len(env.delivered(SendPhoto)) == 1


async def test_short_round_gets_its_picture_when_the_next_round_starts(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=20)
    for table in (1, 2):
        g = await save(env.db, t.id, draft(1, table, table_players(ids, 1, table)))
        await env.game_saved(t.id, g, f"R1 T{table}")
    g = await save(env.db, t.id, draft(2, 1, table_players(ids, 2, 1)))  # only one table
    await env.game_saved(t.id, g, "R2 T1")
    assert len(env.delivered(SendPhoto)) == 1

    g = await save(env.db, t.id, draft(3, 1, table_players(ids, 3, 1)))
    await env.game_saved(t.id, g, "R3 T1")

    captions = [p.caption for p in env.delivered(SendPhoto)]
    assert len(captions) == 2 and "после тура 2" in captions[1]


async def test_a_round_needs_as_many_tables_as_the_busiest_round_had(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a plan a round has as many tables as any round of the stage had, the
    first round included; the posting reads the saved round's games and that count,
    never the tournament's games."""
    t, ids = await make_tournament(env.db, players_count=20)  # 2 tables by the count
    for table in (1, 2, 3):  # round 1 had 3
        await save(env.db, t.id, draft(1, table, table_players(ids, 1, table)))

    async def every_game(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the tournament's games were read")

    monkeypatch.setattr(games, "tables_by_round", every_game)
    monkeypatch.setattr(stages_db, "game_stages", every_game)
    for table in (1, 2):
        g = await save(env.db, t.id, draft(5, table, table_players(ids, 5, table)))
        await env.game_saved(t.id, g, f"R5 T{table}")
    assert env.delivered(SendPhoto) == []  # round 1 had 3 tables: round 5 waits
    g = await save(env.db, t.id, draft(5, 3, table_players(ids, 5, 3)))
    await env.game_saved(t.id, g, "R5 T3")
    captions = [p.caption for p in env.delivered(SendPhoto)]
    assert len(captions) == 1 and "после тура 5" in captions[0]


async def test_many_players_picture_comes_as_an_album(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=120)
    for table in range(1, 13):
        g = await save(env.db, t.id, draft(1, table, ids[(table - 1) * 10 : table * 10]))
        await env.game_saved(t.id, g, f"Стол {table}")
    albums = env.delivered(SendMediaGroup)
    assert len(albums) == 1 and len(albums[0].media) == 3  # 120 rows, 50 a picture
    assert "после тура 1" in albums[0].media[0].caption


def test_completed_round_rules() -> None:
    tables = {1: {1, 2}, 2: {1}}
    first = {1: 10, 2: 12}
    # Round 1 complete (2 tables): only when one of its games is in the batch.
    assert completed_round({1: {1, 2}}, {1: 10}, {11}, {1}, 20) == 1
    assert completed_round({1: {1}}, {1: 10}, {10}, {1}, 20) is None
    # Confirmed players say 3 tables even though only 2 are seen.
    assert completed_round({1: {1, 2}}, {1: 10}, {11}, {1}, 30) is None
    # A short round ends when the next round's first game is saved.
    assert completed_round(
        {1: {1, 2}, 2: {1}, 3: {1}}, {1: 10, 2: 12, 3: 13}, {13}, {3}, 20
    ) == 2
    # ...but a full round isn't posted again then.
    assert completed_round(tables, first, {12}, {2}, 20) is None
    # With a seating plan its tables decide: 2 planned tables of 30 players complete it.
    assert completed_round({1: {1, 2}}, {1: 10}, {11}, {1}, 30, {1: {1, 2}}) == 1
    # ...and a planned round of 3 tables is not complete with 2 saved.
    assert completed_round({1: {1, 2}}, {1: 10}, {11}, {1}, 20, {1: {1, 2, 3}}) is None
    # A round the plan lacks falls back to the count.
    assert completed_round({2: {1, 2}}, {2: 10}, {11}, {2}, 20, {1: {1, 2, 3}}) == 2
    # ...where a third table seen in a round not given counts too.
    assert completed_round({2: {1, 2}}, {2: 10}, {11}, {2}, 20, highest=3) is None


# -- lifecycle ------------------------------------------------------------------------------


async def test_shutdown_publishes_what_waits(db: Database, settings: Settings) -> None:
    settings = settings.model_copy(update={"standings_debounce": 30.0})
    dp = build_dispatcher(db, settings)
    t, ids = await make_tournament(db)
    g1 = await save(db, t.id, draft(1, 1, ids[:10]))
    async with BotHarness(dp) as h:
        publisher: Publisher = dp["publisher"]
        await publish_result(db, publisher, h.bot, t.id, g1, "Стол 1")
        await asyncio.sleep(0.05)
        assert h.session.sent_texts(GROUP) == []  # waiting for the debounce window
    assert h.session.sent_texts(GROUP)[0] == "Стол 1"
    assert len(h.session.sent_texts(GROUP)) == 2
    assert all(not task.get_name().startswith("publish-") for task in asyncio.all_tasks())


async def test_announce_is_sent_at_once(env: Env) -> None:
    t, _ = await make_tournament(env.db)
    await env.announce(t.id, "Протест по игре R1-T1 отклонён")
    assert env.session.sent_texts(GROUP) == ["Протест по игре R1-T1 отклонён"]


# -- the outbox: nothing the chat must be told is lost -------------------------------------


async def outbox_rows(db: Database) -> list[tuple[str, str | None]]:
    rows = await db.fetchall("SELECT kind, text FROM outbox ORDER BY id")
    return [(r[0], r[1]) for r in rows]


async def test_what_was_committed_is_posted_after_a_restart(db: Database) -> None:
    """The bot died right after a save's commit: its result line was in the same
    transaction, and the next process posts it (then the standings) at start-up."""
    t, ids = await make_tournament(db)
    async with db.transaction() as conn:
        g1 = await games.save_game(conn, t.id, draft(1, 1, ids[:10]), JUDGE,
                                   datetime(2024, 5, 1, 12, tzinfo=UTC))
        await outbox.enqueue(conn, t.id, result="Стол 1", game_id=g1)
    assert await outbox_rows(db) == [("result", "Стол 1")]

    restarted = Env(db)  # a new process: nothing in memory
    await restarted.publisher.resume(restarted.bot)
    await restarted.publisher.close()
    texts = restarted.session.sent_texts(GROUP)
    assert texts == ["Стол 1", await restarted.expected_text(t.id)]
    assert await outbox_rows(db) == []
    # A third start posts nothing again.
    again = Env(db)
    await again.publisher.resume(again.bot)
    await again.publisher.close()
    assert again.session.sent_texts(GROUP) == []


async def test_a_refused_post_is_tried_again_without_a_new_change(db: Database) -> None:
    env = Env(db)
    env.publisher = Publisher(db, env.standings, i18n=I18N, retry_after=0.05)
    t, ids = await make_tournament(db)
    env.session.fail_next("sendMessage", TelegramNetworkError(SendMessage(chat_id=GROUP, text="x"),
                                                              "connection reset"), times=2)
    g1 = await save(db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    assert env.session.sent_texts(GROUP) == []
    assert await outbox_rows(db) == [("result", "Стол 1")]
    await asyncio.sleep(0.6)  # tried again after 0.05 s, 0.1 s (failures), 0.2 s: it goes
    await env.publisher.close()
    assert env.session.sent_texts(GROUP) == ["Стол 1", await env.expected_text(t.id)]
    assert await outbox_rows(db) == []


async def test_a_round_picture_is_never_posted_twice(db: Database) -> None:
    """Rounds with a picture are recorded: a result posted again after a crash (the
    outbox delivers at least once) or a new process doesn't repeat the picture."""
    env = Env(db)
    t, ids = await make_tournament(db, players_count=20)
    g1 = await save(db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Стол 1")
    g2 = await save(db, t.id, draft(1, 2, ids[10:]))
    await env.game_saved(t.id, g2, "Стол 2")
    assert len(env.delivered(SendPhoto)) == 1
    await env.publisher.close()

    restarted = Env(db)
    async with db.transaction() as conn:
        await outbox.enqueue(conn, t.id, result="Стол 2", game_id=g2)
    await restarted.publisher.resume(restarted.bot)
    await restarted.publisher.close()
    assert restarted.session.sent_texts(GROUP) == ["Стол 2"]
    assert restarted.delivered(SendPhoto) == []


async def test_a_note_alone_leaves_the_standings_alone(env: Env) -> None:
    t, _ = await make_tournament(env.db)
    await env.announce(t.id, "Турнир начался")
    assert env.session.sent_texts(GROUP) == ["Турнир начался"]
    assert (await env.tournament(t.id)).standings_message_id is None


# -- formatting -----------------------------------------------------------------------------


def test_column_titles_fall_back_to_english_on_a_broken_translation() -> None:
    assert split_labels("Номер|Игрок", "Seat|Player") == ["Номер", "Игрок"]
    assert split_labels("Номер", "Seat|Player") == ["Seat", "Player"]


async def test_standings_of_200_players_fit_one_message(db: Database) -> None:
    standings = StandingsService(db)
    t, ids = await make_tournament(db, players_count=200)
    for table in range(1, 21):
        await save(db, t.id, draft(1, table, ids[(table - 1) * 10 : table * 10]))
    with I18N.context(), I18N.use_locale("ru"):
        text = live_message(t.title, (await standings.get(t.id)).standings)
    assert len(text) < 4096
    assert "/rating all" in text and "ещё 150" in text


def test_a_place_shared_across_the_cut_of_the_live_message_shows_its_whole_range() -> None:
    """The live message shows the top 50 rows; a place shared by rows 49 to 52 reads
    49–52 on the two shown, and the rest are counted."""
    places = [*range(1, 49), 49, 49, 49, 49, *range(53, 1001)]
    rows = tuple(
        StandingRow(place, f"P{n}", Fraction(1001 - place), Fraction(0), Fraction(0),
                    Fraction(0), 0, 0, 0, 10)
        for n, place in enumerate(places, start=1)
    )
    with I18N.context(), I18N.use_locale("en"):
        text = live_message("Cup", Standings(4, rows))
    assert "49–52 P49 " in text and "49–52 P50 " in text and "P51 " not in text
    assert "…and 950 more: /rating all" in text


def test_long_lines_are_split_into_messages() -> None:
    chunks = split_lines(["a" * 3000, "b" * 3000, "c" * 10], limit=4096)
    assert [len("\n".join(c)) for c in chunks] == [3000, 3011]
    assert len(split_lines(["x" * 5000])[0][0]) == 4096
