"""Smoke tests of the real bot process (`python -m bot`, as `make run` starts it)."""

from __future__ import annotations

import asyncio
import socket
import urllib.parse

import pytest

from .bot_process import REPO_ROOT, BotFactory, BotProcess, requires_bot
from .fake_telegram import FakeTelegram

pytestmark = requires_bot


async def test_start_help_crash_restart_and_sigterm(fake_telegram: FakeTelegram,
                                                   bot_process: BotProcess) -> None:
    """One bot process through its life (each start costs the suite a second or two):
    it answers, a kill -9 loses nothing sent while it was down, SIGTERM exits cleanly."""
    fake = fake_telegram
    user = fake.create_user("Анна", "anna_test")
    chat = fake.start_private(user)

    mark = fake.seq
    fake.send_text(user, chat, "/start")
    start = await fake.wait_for_message(chat, after=mark)
    assert start.content.strip()

    mark = fake.seq
    fake.send_text(user, chat, "/help")
    help_ = await fake.wait_for_message(chat, after=mark)
    assert help_.content.strip()
    await fake.wait_idle()
    assert bot_process.is_running()

    bot_process.kill()
    mark = fake.seq
    fake.send_text(user, chat, "/start")  # sent while the bot is down
    await bot_process.restart()
    await fake.wait_for_message(chat, after=mark)
    await fake.wait_idle()

    assert await bot_process.stop() == 0, bot_process.tail()
    assert "Traceback" not in bot_process.log_text()
    # The harness (tests/e2e/bot_process.py) logs restarts and samples memory.
    assert "restart #1" in bot_process.log_text()
    assert bot_process.peak_memory_kb is not None and bot_process.peak_memory_kb > 10_000
    fake.assert_no_errors()


@pytest.mark.skipif((REPO_ROOT / ".env").exists(), reason=".env in the repo may set BOT_TOKEN")
async def test_without_token_exits_2_with_one_line(bot_factory: BotFactory) -> None:
    bot = await bot_factory(env={"BOT_TOKEN": None}, wait_ready=False)
    assert await bot.wait_exit(timeout=20) == 2
    lines = bot.log_text().strip().splitlines()
    assert len(lines) == 1 and "BOT_TOKEN" in lines[0], lines


async def test_token_not_logged_when_api_unreachable(bot_factory: BotFactory,
                                                     bot_token: str) -> None:
    # A bound but not listening socket: connections are refused, nobody can take the port.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        bot = await bot_factory(api_url=f"http://127.0.0.1:{port}", wait_ready=False)
        # Wait (ten seconds at most) for it to fail a connection and to retry once: two
        # lines of the log name the port.
        for _ in range(500):
            lines = bot.log_text().splitlines()
            if not bot.is_running() or sum(str(port) in line for line in lines) >= 2:
                break
            await asyncio.sleep(0.02)
        bot.kill()
    log = bot.log_text()
    assert log.strip(), "the bot logged nothing; the test would prove nothing"
    secret = bot_token.split(":", 1)[1]
    for needle in (bot_token, secret, urllib.parse.quote(bot_token)):
        assert needle not in log


async def test_token_not_logged_on_server_errors_and_an_outage(
        fake_telegram: FakeTelegram, bot_process: BotProcess, bot_token: str) -> None:
    """Errors in the middle of a run: 500s on polling, a refused answer, the server
    gone for a while. The bot logs them all and goes on; the token is never in the log."""
    fake = fake_telegram
    user = fake.create_user("Ivan", language_code="en")
    chat = fake.start_private(user)
    fake.inject_error("getUpdates", times=2)  # 500 Internal Server Error
    fake.inject_error("sendMessage", error_code=502, description="Bad Gateway", chat=chat)
    fake.send_text(user, chat, "/help")  # its answer is refused: lost, and logged
    await fake.wait_until(lambda: fake.errors() and fake.errors()[-1].method == "sendMessage",
                          timeout=15, what="the refused answer")
    # Down until the bot has found the server gone (a refused connection).
    await fake.restart(until=lambda: "Cannot connect to host" in bot_process.log_text())
    mark = fake.seq
    fake.send_text(user, chat, "/help")
    await fake.wait_for_message(chat, "/join", after=mark, timeout=15)
    assert bot_process.is_running()
    log = bot_process.log_text()
    # It did see them all: the 500s, the 502, the refused connections.
    assert "Internal Server Error" in log and "Bad Gateway" in log
    assert "Cannot connect to host" in log
    secret = bot_token.split(":", 1)[1]
    for needle in (bot_token, secret, urllib.parse.quote(bot_token)):
        assert needle not in log


async def test_a_malformed_api_url_is_a_setting_to_fix(
        bot_factory: BotFactory, bot_token: str) -> None:
    # aiohttp would refuse such a URL (a port out of range; a wrong scheme or a broken
    # IPv6 literal alike) with an error that quotes it, token included: the settings
    # refuse it first, one line naming the variable, exit 2 (not restarted).
    bot = await bot_factory(api_url="http://127.0.0.1:99999", wait_ready=False)
    assert await bot.wait_exit(timeout=20) == 2
    lines = bot.log_text().strip().splitlines()
    assert len(lines) == 1 and "TELEGRAM_API_URL: a Bot API server's base address" in lines[0]
    secret = bot_token.split(":", 1)[1]
    assert bot_token not in lines[0] and secret not in lines[0]
