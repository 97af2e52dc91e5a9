from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from bot.db import LATEST, MIGRATIONS, Database, DatabaseTooNew
from bot.db.migrations import split_statements
from bot.db.tournaments import TournamentRow
from scoring.model import Result

TABLES = {
    "tournaments",
    "users",
    "staff",
    "invites",
    "players",
    "games",
    "game_seats",
    "approvals",
    "protests",
    "lots",
    "audit_log",
    "processed_updates",
    "fsm",
    "outbox",
    "round_pictures",
}


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


async def test_empty_database_to_latest(tmp_path: Path) -> None:
    path = tmp_path / "new" / "nested" / "bot.db"
    db = await Database.open(path)
    await db.close()
    assert version(path) == LATEST == len(MIGRATIONS)
    assert tables(path) >= TABLES


async def test_open_sets_pragmas(db: Database) -> None:
    assert await db.fetchval("PRAGMA journal_mode") == "wal"
    assert await db.fetchval("PRAGMA foreign_keys") == 1
    assert await db.fetchval("PRAGMA busy_timeout") == 5000
    assert await db.fetchval("PRAGMA synchronous") == 1  # NORMAL


async def test_reopen_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    for _ in range(2):
        db = await Database.open(path)
        await db.close()
    assert version(path) == LATEST


async def test_older_database_upgrades_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:1])
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES (?, ?, ?, ?)",
        ("Old Cup", 8, 1, 0),
    )
    await db.close()
    assert version(path) == 1
    assert "fsm" not in tables(path)

    db = await Database.open(path)
    try:
        assert await db.fetchval("PRAGMA user_version") == LATEST
        assert await db.fetchval("SELECT title FROM tournaments") == "Old Cup"
        assert await db.fetchval("SELECT count(*) FROM fsm") == 0
    finally:
        await db.close()


async def test_python_step_and_new_column(tmp_path: Path) -> None:
    """A future step that reshapes data: the full list applies it on top of the old file."""
    path = tmp_path / "bot.db"
    db = await Database.open(path)
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('a', 5, 1, 0)"
    )
    await db.close()

    async def fill(conn: aiosqlite.Connection) -> None:
        await conn.execute("UPDATE tournaments SET note = 'distance ' || distance")

    steps = (*MIGRATIONS, "ALTER TABLE tournaments ADD COLUMN note TEXT;", fill)
    db = await Database.open(path, migrations=steps)
    try:
        assert await db.fetchval("SELECT note FROM tournaments") == "distance 5"
        assert await db.fetchval("PRAGMA user_version") == LATEST + 2
    finally:
        await db.close()


async def test_failing_step_rolls_back_its_version(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    bad = "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);"
    with pytest.raises(sqlite3.OperationalError):
        await Database.open(path, migrations=(*MIGRATIONS, bad))
    assert version(path) == LATEST
    assert "half_done" not in tables(path)
    db = await Database.open(path)  # the file is still usable
    await db.close()


async def test_step_breaking_foreign_keys_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    bad = (
        "INSERT INTO players (tournament_id, nickname, nickname_key, created_at)"
        " VALUES (999, 'x', 'x', 0);"
    )
    with pytest.raises(sqlite3.IntegrityError, match="foreign keys"):
        await Database.open(path, migrations=(*MIGRATIONS, bad))
    assert version(path) == LATEST


async def test_newer_database_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST + 5}")
    with pytest.raises(DatabaseTooNew) as info:
        await Database.open(path)
    assert str(info.value) == (
        f"database version {LATEST + 5} is newer than this bot ({LATEST}); upgrade the bot"
    )
    assert version(path) == LATEST + 5


def test_split_statements_keeps_semicolons_in_strings_and_triggers() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET x = 'c;d'; END;
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].endswith("END;")
    with pytest.raises(ValueError, match="incomplete"):
        split_statements("CREATE TABLE t (x TEXT DEFAULT 'open")


async def test_v3_change_counters_follow_every_write(
    db: Database, tournament: TournamentRow, players: list[int]
) -> None:
    """Caches reload a game when its ``version`` moved and a roster when the tournament's
    ``roster_version`` did: triggers keep both, whichever code writes."""
    from bot.db.games import save_game, update_game
    from bot.db.players import add_player
    from tests.db.helpers import ENDED, JUDGE, make_draft

    async def versions(game_id: int) -> tuple[int, int]:
        row = await db.fetchone(
            "SELECT g.version, t.roster_version FROM games g JOIN tournaments t"
            " ON t.id = g.tournament_id WHERE g.id = ?",
            (game_id,),
        )
        assert row is not None
        return row[0], row[1]

    async with db.transaction() as conn:
        game_id = await save_game(conn, tournament.id, make_draft(players), JUDGE, ENDED)
    saved, roster = await versions(game_id)
    assert saved > 0 and roster == 12  # twelve players added by the fixture

    await db.execute("UPDATE game_seats SET judge_extra = 30 WHERE game_id = ? AND seat = 1",
                     (game_id,))
    assert (await versions(game_id))[0] == saved + 1
    await db.execute("UPDATE games SET best_move_hint = 1 WHERE id = ?", (game_id,))
    assert (await versions(game_id))[0] == saved + 2  # once: the trigger doesn't recurse
    async with db.transaction() as conn:
        await update_game(conn, game_id, make_draft(players, result=Result.BLACK))
    assert (await versions(game_id))[0] > saved + 2

    async with db.transaction() as conn:
        await add_player(conn, tournament.id, "Newcomer")
    await db.execute("UPDATE players SET status = 'confirmed' WHERE nickname = 'Newcomer'")
    assert (await versions(game_id))[1] == roster + 2


async def test_v4_a_tournament_has_a_language_and_a_time_zone(tmp_path: Path) -> None:
    """Tournaments made before keep what they showed: Russian, times in UTC; new ones
    take what /new_tournament chose."""
    from bot.db import tournaments

    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:3])
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at, chat_id)"
        " VALUES ('Old Cup', 8, 1, 0, -100)"
    )
    await db.close()
    db = await Database.open(path)
    try:
        assert await db.fetchval("PRAGMA user_version") == LATEST >= 4
        async with db.read() as conn:
            [old] = await tournaments.tournaments_for_chat(conn, -100)
            assert (old.language, old.timezone) == ("ru", "UTC")
            assert await tournaments.chat_language(conn, -100) == "ru"
        async with db.transaction() as conn:
            new = await tournaments.create_tournament(
                conn, title="New Cup", distance=5, created_by=1, language="en",
                timezone="Asia/Yekaterinburg",
            )
            assert (new.language, new.timezone) == ("en", "Asia/Yekaterinburg")
            assert (await tournaments.set_language(conn, new.id, "ru")).language == "ru"
        with pytest.raises(sqlite3.IntegrityError):
            await db.execute("UPDATE tournaments SET language = 'de'")
    finally:
        await db.close()


async def test_v8_keeps_only_digests_of_invite_tokens_and_old_links_still_work(
    tmp_path: Path,
) -> None:
    """A database copied after the upgrade names no working link, in the invites or in
    the audit log; a link sent before it still opens its invite."""
    from bot.db import invites

    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:6])
    token = "OldJudgeLink1234567890"
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Old', 8, 1, 0)"
    )
    await db.execute(
        "INSERT INTO invites (token, tournament_id, kind, created_by, created_at)"
        " VALUES (?, 1, 'judge', 1, 0)",
        (token,),
    )
    await db.execute(
        "INSERT INTO audit_log (tournament_id, actor_id, at, action, entity, entity_id, after)"
        " VALUES (1, 1, 0, 'create', 'invite', ?, ?)",
        (token, f'{{"token": "{token}", "kind": "judge"}}'),
    )
    await db.close()
    db = await Database.open(path)
    try:
        async with db.read() as conn:
            found = await invites.get_invite(conn, token)
        assert found is not None and found.kind == "judge" and found.usable
    finally:
        await db.close()
    with sqlite3.connect(path) as conn:
        dump = "\n".join(conn.iterdump())
    assert token not in dump
    assert invites.digest(token) in dump


async def test_v11_a_lot_belongs_to_a_stage_and_the_outbox_takes_the_final_post(
    tmp_path: Path,
) -> None:
    """8.7.5, D12, D15: lots drawn before belong to the first stage; the same group
    may be drawn again in a later stage, once there. The outbox keeps what waited
    (its seating text marked posted too) and takes the final standings' post (D16)."""
    from bot.db import lots, outbox

    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:10])
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Old', 8, 1, 0)"
    )
    for nick in ("A", "B"):
        await db.execute(
            "INSERT INTO players (tournament_id, nickname, nickname_key, status, created_at)"
            " VALUES (1, ?, ?, 'confirmed', 0)",
            (nick, nick.lower()),
        )
    await db.execute(
        "INSERT INTO lots (tournament_id, group_key, drawn_order, drawn_by, drawn_at)"
        " VALUES (1, '1,2', '[2, 1]', 1, 0)"
    )
    await db.execute(
        "INSERT INTO outbox (tournament_id, kind, round, created_at, text_posted)"
        " VALUES (1, 'seating', 3, 0, 1)"
    )
    await db.close()
    db = await Database.open(path)
    try:
        async with db.transaction() as conn:
            [old] = await lots.lots_for_tournament(conn, 1)
            assert (old.stage, old.order) == (1, (2, 1))
            again = await lots.record_lot(conn, 1, [1, 2], drawn_by=1)
            assert again == old  # kept: drawn once in its stage
            final = await lots.record_lot(conn, 1, [1, 2], drawn_by=1, stage=2)
            assert (final.stage, final.order) == (2, (1, 2))
            await outbox.add_final(conn, 1)
            rows = await outbox.pending(conn, 1)
        assert [(r.kind, r.round, r.text_posted) for r in rows] == [
            ("seating", 3, True), ("final", None, False)
        ]
    finally:
        await db.close()


async def test_v12_live_drafts_keep_each_event_once_and_one_draft_per_card(db: Database) -> None:
    """The live protocol (docs/development.md): one live draft per card's draft_id, each
    event of the page stored once by its id; a draft names ten players."""
    from bot.db import live

    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Cup', 8, 1, 0)"
    )
    async with db.transaction() as conn:
        draft = await live.open_draft(conn, draft_id="g-1", tournament_id=1, round_no=1,
                                      table_no=2, players=range(1, 11), judge_id=7)
        again = await live.open_draft(conn, draft_id="g-1", tournament_id=1, round_no=1,
                                      table_no=3, players=range(1, 11), judge_id=7)
        await live.append(conn, draft.id, 1, [("a", {"type": "foul", "seat": 1})])
    assert (again.id, again.token, again.table_no) == (draft.id, draft.token, 3)
    with pytest.raises(sqlite3.IntegrityError):
        async with db.transaction() as conn:
            await live.append(conn, draft.id, 2, [("a", {"type": "foul", "seat": 2})])
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute(
            "INSERT INTO live_drafts (token, public_token, tournament_id, round, table_no,"
            " players, judge_id, draft_id, created_at, updated_at)"
            " VALUES ('t' || hex(randomblob(10)), 'p' || hex(randomblob(10)), 1, 1, 1,"
            " '[1, 2]', 7, 'g-2', 0, 0)"
        )
    async with db.read() as conn:
        assert [e.client_id for e in await live.events(conn, draft.id)] == ["a"]


async def test_v13_the_outbox_keeps_what_waited_and_takes_a_closed_stage_s_picture(
    tmp_path: Path,
) -> None:
    """D13: a stage that closes posts its standings' picture with the entrants marked;
    the outbox, rebuilt, keeps every row that waited, and a cut names its stage."""
    from bot.db import outbox

    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:12])
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Old', 8, 1, 0)"
    )
    await db.execute(
        "INSERT INTO outbox (tournament_id, kind, text, created_at) VALUES (1, 'note', 'hi', 0)"
    )
    await db.close()
    db = await Database.open(path)
    try:
        async with db.transaction() as conn:
            await outbox.add_cut(conn, 1, 1)
            rows = await outbox.pending(conn, 1)
        assert [(r.kind, r.text, r.stage) for r in rows] == [("note", "hi", None), ("cut", None, 1)]
        with pytest.raises(sqlite3.IntegrityError):
            await db.execute(
                "INSERT INTO outbox (tournament_id, kind, created_at) VALUES (1, 'cut', 0)"
            )
    finally:
        await db.close()


async def test_v14_the_outbox_keeps_what_waited_and_sets_aside_what_telegram_refused(
    tmp_path: Path,
) -> None:
    """What Telegram refuses for good is set aside, not pending; the rebuilt outbox keeps
    every row that waited, a cut its stage, and takes a round's owed picture."""
    from bot.db import outbox

    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations=MIGRATIONS[:13])
    await db.execute(
        "INSERT INTO tournaments (title, distance, created_by, created_at) VALUES ('Old', 8, 1, 0)"
    )
    await db.execute(
        "INSERT INTO outbox (tournament_id, kind, text, created_at) VALUES (1, 'note', 'hi', 0)"
    )
    await db.execute(
        "INSERT INTO outbox (tournament_id, kind, stage, created_at) VALUES (1, 'cut', 1, 0)"
    )
    await db.close()
    db = await Database.open(path)
    try:
        async with db.transaction() as conn:
            rows = await outbox.pending(conn, 1)
            assert [(r.kind, r.text, r.stage) for r in rows] == [
                ("note", "hi", None), ("cut", None, 1)
            ]
            await outbox.set_aside(conn, [rows[0].id], "texts", "Bad Request: no rights")
            await outbox.add_set_aside(conn, 1, outbox.PICTURE, "photos", "no photos",
                                       round_no=2)
            assert [r.kind for r in await outbox.pending(conn, 1)] == ["cut"]
            aside = await outbox.set_aside_rows(conn, 1)
            assert [(r.kind, r.set_aside, r.round) for r in aside] == [
                ("note", "texts", None), ("picture", "photos", 2)
            ]
            assert await outbox.tournaments_waiting(conn) == [1]
            assert await outbox.take_back(conn, 1) == 2
            assert len(await outbox.pending(conn, 1)) == 3
        with pytest.raises(sqlite3.IntegrityError):  # a picture names its round
            await db.execute(
                "INSERT INTO outbox (tournament_id, kind, created_at) VALUES (1, 'picture', 0)"
            )
    finally:
        await db.close()
