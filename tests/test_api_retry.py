"""Bot API calls that fail for reasons outside the request (bot/telegram/api_retry.py): a 5xx or
a network error is tried again with a back-off; an expired callback query is let go."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramNetworkError, TelegramServerError
from aiogram.methods import AnswerCallbackQuery, GetUpdates, SendMessage

from bot.telegram.api_retry import ApiRetry
from tests.support import BOT_TOKEN, ApiError, RecordingSession

CHAT = 42
SERVER_DOWN = ApiError(502, "Bad Gateway")


class Env:
    def __init__(self) -> None:
        self.slept: list[float] = []

        async def sleep(seconds: float) -> None:  # the back-off, without waiting
            self.slept.append(seconds)

        self.retry = ApiRetry(sleep=sleep)
        self.session = RecordingSession()
        self.session.middleware(self.retry)
        self.bot = Bot(BOT_TOKEN, session=self.session)
        self.session.bot = self.bot


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    e = Env()
    yield e
    await e.session.close()


async def test_a_server_error_is_tried_again_and_the_message_arrives(env: Env) -> None:
    env.session.fail_next("sendMessage", SERVER_DOWN, times=2)
    sent = await env.bot.send_message(CHAT, "Тур 1, стол 1: победа красных.")
    assert sent.text == "Тур 1, стол 1: победа красных."
    assert env.session.sent_texts(CHAT) == ["Тур 1, стол 1: победа красных."]
    assert env.slept == [0.5, 1.0]
    assert env.retry.retried == 2


async def test_a_network_error_is_tried_again(env: Env) -> None:
    env.session.fail_next("sendMessage", TelegramNetworkError(SendMessage(chat_id=CHAT, text="x"),
                                                              "connection reset"))
    await env.bot.send_message(CHAT, "hello")
    assert env.session.sent_texts(CHAT) == ["hello"]


async def test_after_five_retries_the_error_reaches_the_caller(env: Env) -> None:
    env.session.fail_next("sendMessage", SERVER_DOWN, times=6)
    with pytest.raises(TelegramServerError):
        await env.bot.send_message(CHAT, "lost?")
    assert env.slept == [0.5, 1.0, 2.0, 4.0, 8.0]
    assert env.session.sent_texts(CHAT) == []


async def test_bad_requests_and_polling_are_not_retried(env: Env) -> None:
    env.session.fail_next("sendMessage", ApiError(400, "Bad Request: chat not found"))
    with pytest.raises(TelegramBadRequest):
        await env.bot.send_message(CHAT, "x")
    env.session.fail_next(GetUpdates, SERVER_DOWN)
    with pytest.raises(TelegramServerError):  # aiogram's polling has its own back-off
        await env.bot.get_updates()
    assert env.slept == []


async def test_an_expired_callback_query_is_let_go(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    """After a restart a redelivered tap's query can't be answered any more; its handler
    must still run (show the card), so the refusal is no error."""
    env.session.fail_next(AnswerCallbackQuery, ApiError(
        400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
    ))
    with caplog.at_level(logging.INFO, logger="bot.telegram.api_retry"):
        assert await env.bot.answer_callback_query("123") is True
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    env.session.fail_next(AnswerCallbackQuery, ApiError(400, "Bad Request: BUTTON_DATA_INVALID"))
    with pytest.raises(TelegramBadRequest):
        await env.bot.answer_callback_query("124")
