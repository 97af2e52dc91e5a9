"""The bot_process machinery against a tiny stand-in bot run as `python -m bot` in tmp_path.

This keeps start/kill/stop/restart/log/memory covered whatever state the real bot is in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .bot_process import REPO_ROOT, BotFactory
from .fake_telegram import FakeTelegram

STANDIN = '''
import asyncio, importlib.util, logging, os, sys

# As the real bot does (bot/__init__.py): aiogram's models built lazily, so that a start
# takes about a second, not four.
spec = importlib.util.spec_from_file_location("aiogram_models", {models!r})
models = importlib.util.module_from_spec(spec)
spec.loader.exec_module(models)
models.install()

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.filters import Command, CommandStart

token = os.environ.get("BOT_TOKEN")
if not token:
    print("BOT_TOKEN is not set", file=sys.stderr)
    sys.exit(2)
logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"))
dp = Dispatcher()


@dp.message(CommandStart())
async def start(message):
    await message.answer("Welcome!")


@dp.message(Command("help"))
async def help_(message):
    await message.answer("Help text")


async def main():
    api = TelegramAPIServer.from_base(os.environ["TELEGRAM_API_URL"])
    await dp.start_polling(Bot(token, session=AiohttpSession(api=api)), polling_timeout=5)


asyncio.run(main())
'''


@pytest.fixture
def standin(tmp_path: Path) -> Path:
    root = tmp_path / "standin"
    (root / "bot").mkdir(parents=True)
    (root / "bot" / "__init__.py").write_text("")
    models = REPO_ROOT / "bot" / "aiogram_models.py"
    (root / "bot" / "__main__.py").write_text(STANDIN.replace("{models!r}", repr(str(models))))
    return root


async def test_start_kill_restart_stop(fake_telegram: FakeTelegram, bot_factory: BotFactory,
                                       standin: Path) -> None:
    fake = fake_telegram
    bot = await bot_factory(cwd=standin)
    user = fake.create_user("Anna")
    chat = fake.start_private(user)
    fake.send_text(user, chat, "/start")
    await fake.wait_for_message(chat, "Welcome!")
    assert bot.peak_memory_kb is None or bot.peak_memory_kb > 0

    assert bot.kill() == -9
    mark = fake.seq
    fake.send_text(user, chat, "/help")  # arrives while the bot is down
    await bot.restart()
    await fake.wait_for_message(chat, "Help text", after=mark)
    await fake.wait_idle()

    assert await bot.stop() == 0
    assert bot.peak_memory_kb is not None and bot.peak_memory_kb > 10_000
    assert "restart #1" in bot.log_text()
    assert "Start polling" in bot.log_text()
    fake.assert_no_errors()


async def test_exit_code_without_token(bot_factory: BotFactory, standin: Path) -> None:
    bot = await bot_factory(cwd=standin, env={"BOT_TOKEN": None}, wait_ready=False)
    assert await bot.wait_exit() == 2
    assert bot.log_text().strip() == "BOT_TOKEN is not set"
