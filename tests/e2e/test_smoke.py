"""Smoke tests of the real bot process (`python -m bot`, as `make run` starts it)."""

from __future__ import annotations

import asyncio
import socket
import urllib.parse

import pytest

from .bot_process import REPO_ROOT, BotFactory, BotProcess, requires_bot
from .fake_telegram import FakeTelegram

pytestmark = requires_bot


async def test_start_and_help_in_private_chat(fake_telegram: FakeTelegram,
                                              bot_process: BotProcess) -> None:
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
    fake.assert_no_errors()


async def test_sigterm_exits_cleanly(bot_process: BotProcess) -> None:
    assert await bot_process.stop() == 0, bot_process.tail()
    assert "Traceback" not in bot_process.log_text()


async def test_answers_after_crash_and_restart(fake_telegram: FakeTelegram,
                                               bot_process: BotProcess) -> None:
    fake = fake_telegram
    user = fake.create_user("Ivan")
    chat = fake.start_private(user)
    bot_process.kill()
    mark = fake.seq
    fake.send_text(user, chat, "/start")  # sent while the bot is down
    await bot_process.restart()
    await fake.wait_for_message(chat, after=mark)


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
        # Wait (a few seconds at most) for it to fail a connection, then let it retry once.
        for _ in range(50):
            if not bot.is_running() or str(port) in bot.log_text():
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)
        bot.kill()
    log = bot.log_text()
    assert log.strip(), "the bot logged nothing; the test would prove nothing"
    secret = bot_token.split(":", 1)[1]
    for needle in (bot_token, secret, urllib.parse.quote(bot_token)):
        assert needle not in log
