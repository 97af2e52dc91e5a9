"""The bot as it runs on a server: webhook mode, /healthz, one instance per database,
``python -m bot check``; over HTTP against the real process (few starts: each costs
the suite a second or two)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import aiohttp

from bot.db.migrations import LATEST
from tests.web.test_bad_requests import exchange, get, post

from .bot_process import REPO_ROOT, BotFactory, BotProcess, free_port, requires_bot
from .fake_telegram import FakeTelegram
from .scenario import (
    NICKS,
    QUERY_TOO_OLD,
    WAIT,
    Card,
    GameSpec,
    Person,
    enter_game,
    logged_errors,
    processed,
    query,
    save,
    seed_draft,
    seed_tournament,
    token_leaks,
    update_of,
)

pytestmark = requires_bot

SECRET = "s3cret-Token_for-tests"
TABLE1 = GameSpec(1, 1, NICKS[:10], sheriff=1, don=2, mafia=(3, 4), result="red")
TABLE2 = GameSpec(1, 2, NICKS[2:], sheriff=5, don=6, mafia=(7, 8), result="black")


async def http(method: str, url: str, **kwargs: Any) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as client, client.request(method, url, **kwargs) as r:
        body = await r.text()
    try:
        return r.status, json.loads(body)
    except ValueError:
        return r.status, body


async def check(bot: BotProcess) -> tuple[int, dict[str, Any]]:
    """``python -m bot check`` with the bot's settings (without blocking the fake)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "check", cwd=REPO_ROOT, env=bot.env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    assert proc.returncode is not None
    assert not err, err
    return proc.returncode, json.loads(out)


def backups_of(folder: Path) -> list[Path]:
    return sorted(folder.iterdir())


def make_unusable(db_path: Path) -> None:
    """A directory in the file's place (chmod would not stop root): the bot's open
    connection would not notice, a health check must."""
    db_path.unlink()
    db_path.mkdir()


def stored_games(db_path: Path) -> list[tuple[int, int, int]]:
    return query(db_path, "SELECT g.round, g.table_no, count(s.seat) FROM games g "
                          "JOIN game_seats s ON s.game_id = g.id GROUP BY g.id "
                          "ORDER BY g.round, g.table_no")


async def test_webhook_then_polling(fake_telegram: FakeTelegram, bot_factory: BotFactory,
                                    tmp_path: Path, bot_token: str) -> None:
    """Updates come by webhook: a request without the secret is refused and not
    processed; a whole game is entered; a kill -9 during a Save is survived through
    Telegram's redelivery, the game stored once. Then back to polling."""
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    port = free_port()
    hook = f"http://127.0.0.1:{port}/tg/hook"
    chief = Person(fake, "Nina", "nina_chief").open_chat()
    oleg = Person(fake, "Oleg", "oleg_judge").open_chat()
    pavel = Person(fake, "Pavel", "pavel_judge").open_chat()
    group = fake.create_group("Club", [chief.user, oleg.user, pavel.user])
    # Written by the previous version of the bot: this one upgrades it, a backup first.
    seeded = await seed_tournament(db_path, chief=chief, judges=[oleg, pavel], chat=group,
                                   schema=LATEST - 1)
    await seed_draft(db_path, fake, pavel, seeded, TABLE2, schema=LATEST - 1)
    # Backups every 0.36 s, two kept.
    bot = await bot_factory(env={"WEBHOOK_URL": hook, "WEBHOOK_SECRET": SECRET,
                                 "WEB_PORT": str(port), "STANDINGS_DEBOUNCE": "0.5",
                                 "BACKUP_EVERY_HOURS": "0.0001", "BACKUP_KEEP": "2"})
    [before] = [p for p in backups_of(tmp_path / "backups")
                if p.name.startswith(f"bot-before-v{LATEST}-")]
    assert query(before, "PRAGMA user_version") == [(LATEST - 1,)]
    assert query(db_path, "PRAGMA user_version") == [(LATEST,)]
    assert (fake.webhook_url, fake.webhook_secret) == (hook, SECRET)
    set_hook = fake.calls("setWebhook")[-1]
    assert "my_chat_member" in set_hook.params["allowed_updates"]

    # Without the secret, or with a wrong one: 401, and the update is not handled.
    stranger = Person(fake, "Mallory").open_chat()
    forged = {"update_id": 1, "message": {
        "message_id": 1, "date": 1_700_000_000, "text": "/start",
        "chat": {"id": stranger.id, "type": "private", "first_name": "Mallory"},
        "from": {"id": stranger.id, "is_bot": False, "first_name": "Mallory"},
        "entities": [{"type": "bot_command", "offset": 0, "length": 6}]}}
    for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "wrong"}):
        status, _ = await http("POST", hook, json=forged, headers=headers)
        assert status == 401

    status, health = await http("GET", f"http://127.0.0.1:{port}/healthz")
    assert status == 200, health
    assert health["healthy"] and health["database_ok"] and health["mode"] == "webhook"
    assert health["schema_version"] == LATEST and health["outbox_backlog"] == 0
    assert health["uptime_seconds"] >= 0
    # Telegram answered the start's getMe and setWebhook a moment ago; nothing waits.
    assert health["telegram_ok"] and health["seconds_since_telegram_ok"] <= 60, health
    assert health["outbox_ok"] and health["outbox_oldest_seconds"] is None, health

    # A whole game through the webhook.
    card = Card(oleg)
    await enter_game(card, TABLE1)
    await save(card)
    await fake.wait_for_message(group, "Тур 1, стол 1", timeout=WAIT)

    # Pavel's Save is being handled (his final card held on its way) when the bot dies:
    # its POST got no answer, so the update comes again and is handled again.
    other = Card(pavel)
    await other.open()
    final_card = fake.hold("editMessageText", chat=pavel.chat)
    mark = fake.seq
    tap = fake.tap(pavel.user, other.message, "💾 Save")
    update_id = update_of(fake, tap)
    await fake.wait_held(final_card)
    assert bot.kill() == -9
    final_card.drop()
    await bot.start()
    await other.edited(mark, "✅ Saved")
    await fake.wait_for_message(group, "Тур 1, стол 2", timeout=WAIT)
    await fake.wait_until(lambda: processed(db_path, update_id), what="the Save recorded")
    # Once idle: the record can be written before the fake has read the answer.
    await fake.wait_idle(timeout=WAIT)
    assert fake.delivery_count(update_id) == 2

    def scheduled() -> list[Path]:
        # Not the part-file of a copy the kill -9 cut short (the next prune's).
        return [p for p in backups_of(tmp_path / "backups")
                if p != before and p.suffix == ".sqlite3"]

    await fake.wait_until(lambda: len(scheduled()) >= 2, what="two scheduled backups")

    # SIGTERM while an update is being handled (its answer held on the network): the
    # bot stops taking requests, finishes it, then exits.
    slow = fake.hold("sendMessage", chat=oleg.chat)
    help_ = update_of(fake, oleg.send("/help"))
    await fake.wait_held(slow)
    stopping = asyncio.create_task(bot.stop())
    await fake.wait_until(lambda: "waiting for 1 update(s) being handled" in bot.log_text()
                          or stopping.done(), timeout=WAIT, what="the bot to stop")
    slow.release()
    assert await stopping == 0
    assert processed(db_path, help_) and fake.delivery_count(help_) == 1
    assert [p.status for p in fake.webhook_posts if p.update_id == help_] == [200]
    # The schedule went on meanwhile, pruned to the newest two.
    assert len(scheduled()) == 2 and before.exists(), scheduled()
    assert stored_games(db_path) == [(1, 1, 10), (1, 2, 10)]
    assert query(db_path, "SELECT count(*) FROM audit_log WHERE action = 'game.save'") == [(2,)]
    assert not processed(db_path, 1)
    assert fake.messages(stranger.chat) == []
    assert [p.status for p in fake.webhook_posts if p.update_id == update_id][-1] == 200
    assert "Traceback" not in bot.log_text()
    assert logged_errors(bot) == [] and token_leaks(bot, bot_token) == []
    assert SECRET not in bot.log_text()
    # The redelivered Save's query was answered the first time ("Saving…").
    fake.assert_no_errors(allow=[QUERY_TOO_OLD])

    # Back to polling, the HTTP server kept (WEB_PORT); the webhook is removed.
    for name in ("WEBHOOK_URL", "WEBHOOK_SECRET"):
        del bot.env[name]
    await bot.start()
    assert fake.webhook_url is None and fake.calls("deleteWebhook")
    await polling_health_and_one_instance(fake, bot_factory, bot, port, db_path)


async def polling_health_and_one_instance(fake: FakeTelegram, bot_factory: BotFactory,
                                          bot: BotProcess, port: int, db_path: Path) -> None:
    """/healthz beside polling and ``python -m bot check`` agree; a second bot on the
    database exits 2; a database that is no longer usable gets 503 (its exit code from
    ``check``: tests/test_health.py)."""
    user = Person(fake, "Ivan").open_chat()
    mark = fake.seq
    start = update_of(fake, user.send("/start"))
    await user.wait(None, after=mark)

    await fake.wait_until(lambda: processed(db_path, start), what="the /start recorded")
    status, health = await http("GET", f"http://127.0.0.1:{port}/healthz")
    assert status == 200 and health["healthy"] and health["mode"] == "polling", health
    assert health["seconds_since_last_update"] is not None
    # A second bot on the database is refused at once; meanwhile the check.
    second = await bot_factory(env={"WEB_PORT": str(free_port())}, wait_ready=False)
    (code, checked), exit_code = await asyncio.gather(check(bot), second.wait_exit(timeout=20))
    assert code == 0 and checked["healthy"] and checked["running"], checked
    assert checked["pid"] == bot.pid and checked["schema_version"] == LATEST
    assert checked["uptime_seconds"] >= 0
    # From the shell, what the bot noted in its lock file: polling answers every 10 s.
    assert checked["telegram_ok"] and checked["seconds_since_telegram_ok"] <= 60, checked
    assert exit_code == 2
    lines = second.log_text().strip().splitlines()
    assert len(lines) == 1 and f"pid {bot.pid}" in lines[0], lines

    make_unusable(db_path)
    status, health = await http("GET", f"http://127.0.0.1:{port}/healthz")
    assert status == 503 and not health["healthy"] and not health["database_ok"], health
    assert health["error"] == "unable to open database file"


async def test_oversized_and_malformed_requests_get_a_4xx_and_one_log_line(
        fake_telegram: FakeTelegram, bot_factory: BotFactory) -> None:
    """The bot in webhook mode with the live protocol: a 16 kB and a 1 MB header
    (X-Telegram-Init-Data), a body over 1 MiB and a malformed header line, to /healthz,
    the webhook and the API: 431, 413 and 400, each with one line in the bot's log and
    no traceback; the server answers the next request."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = await bot_factory(env={"WEBHOOK_URL": f"{base}/tg/hook", "WEBHOOK_SECRET": SECRET,
                                 "WEB_PORT": str(port), "WEBAPP_URL": base,
                                 "LOG_LEVEL": "INFO"})
    secret = b"X-Telegram-Bot-Api-Secret-Token: " + SECRET.encode()
    big_body = b"{" + b" " * (2 * 1024 * 1024) + b"}"
    cases = [
        (431, get(path, b"X-Telegram-Init-Data: " + b"a" * size))
        for size in (16 * 1024, 1024 * 1024)
        for path in ("/healthz", "/tg/hook", "/api/live/NoSuchToken0123456789")
    ]
    cases += [(413, post(path, big_body, secret))
              for path in ("/healthz", "/tg/hook", "/api/live/NoSuchToken0123456789/events")]
    cases += [(400, get("/healthz", b"Bad Header"))]
    for status, request in cases:
        before = len(bot.log_text().splitlines())
        line, _fields, _body = await exchange(port, request)
        assert line.split(" ", 2)[1] == str(status), (request[:60], line)
        new = bot.log_text().splitlines()[before:]
        assert len(new) == 1 and f"HTTP {status} to 127.0.0.1: " in new[0], new
    assert "Traceback" not in bot.log_text()
    assert (await http("GET", f"{base}/healthz"))[0] == 200
