"""An honest start (`python -m bot`, as `make run` and systemd start it): "started" only
once Telegram answered; Telegram out of reach or a refused token is one line and an
exit code of its own (docs/deploy.md), which the systemd unit does not restart in a
loop (tests/test_deploy.py)."""

from __future__ import annotations

import socket
from pathlib import Path

from bot.telegram.startup import EXIT_TOKEN, EXIT_UNREACHABLE

from .bot_process import BotFactory, requires_bot
from .fake_telegram import FakeTelegram, make_token
from .scenario import WAIT, Person

pytestmark = requires_bot

# The start's back-off scaled down (TELEGRAM_START_WAIT): a try, a pause, a try.
QUICK = {"TELEGRAM_START_WAIT": "0.2", "LOG_LEVEL": "INFO"}


async def test_telegram_out_of_reach_is_one_line_and_exit_3(bot_factory: BotFactory,
                                                            tmp_path: Path,
                                                            bot_token: str) -> None:
    # A bound but not listening socket: connections are refused, nobody can take the port.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        bot = await bot_factory(api_url=f"http://127.0.0.1:{port}", env=QUICK,
                                wait_ready=False)
        assert await bot.wait_exit(timeout=30) == EXIT_UNREACHABLE
    lines = bot.log_text().strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"Telegram did not answer at http://127.0.0.1:{port} in 0.2 s "
                               "of trying (ClientConnectorError: Cannot connect to host")
    assert lines[0].endswith("check the network (DNS, firewall, proxy) and TELEGRAM_API_URL "
                             "in .env")
    assert "started" not in bot.log_text() and bot_token.split(":")[1] not in lines[0]


async def test_a_refused_token_is_one_line_and_exit_4(bot_factory: BotFactory) -> None:
    """A token revoked in @BotFather (or mistyped): Telegram answers 401 to it."""
    bot = await bot_factory(env={**QUICK, "BOT_TOKEN": make_token()}, wait_ready=False)
    assert await bot.wait_exit(timeout=30) == EXIT_TOKEN
    assert bot.log_text().strip().splitlines() == [
        "Telegram refused the bot token (Unauthorized): it was revoked or mistyped; put the "
        "current one from @BotFather (/mybots, API Token) into BOT_TOKEN in .env"]


async def test_a_token_revoked_while_running_stops_the_bot(
        bot_factory: BotFactory, fake_telegram: FakeTelegram) -> None:
    """Nothing gets through any more: the bot stops with the same line, not a log of
    failed polls every few seconds."""
    fake = fake_telegram
    bot = await bot_factory(env={"LOG_LEVEL": "INFO"})
    assert "INFO bot.app: bot @fake_test_bot started (polling)" in bot.log_text()
    ivan = Person(fake, "Ivan").open_chat()
    mark = fake.seq
    ivan.send("/help")
    await ivan.wait(None, after=mark)
    fake.revoke_token()  # /revoke in @BotFather
    assert await bot.wait_exit(timeout=WAIT) == EXIT_TOKEN
    log = bot.log_text()
    assert log.strip().splitlines()[-1].startswith("Telegram refused the bot token")
    assert "Traceback" not in log
