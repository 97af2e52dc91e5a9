"""Test support: one model of Telegram (``tg_model``) with an in-process front end (a
recording aiogram session, scripted errors, flood limits), realistic update factories,
and a harness that feeds updates to any Dispatcher; ``tests/e2e/fake_telegram.py`` serves
the same model over HTTP. See tests/test_support_session.py for usage."""

from .harness import BotHarness
from .telegram import (
    ANONYMOUS_ADMIN_ID,
    BOT_FIRST_NAME,
    BOT_ID,
    BOT_TOKEN,
    BOT_USERNAME,
    ApiError,
    Call,
    Limits,
    RecordingSession,
    UpdateFactory,
    buttons,
)

__all__ = [
    "ANONYMOUS_ADMIN_ID",
    "BOT_FIRST_NAME",
    "BOT_ID",
    "BOT_TOKEN",
    "BOT_USERNAME",
    "ApiError",
    "BotHarness",
    "Call",
    "Limits",
    "RecordingSession",
    "UpdateFactory",
    "buttons",
]
