"""The server settings: webhook or polling, the HTTP server's port, the secret's form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from bot.config import Settings


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_webhook_or_polling() -> None:
    hook = settings(webhook_url="https://bot.example.org/tg/hook", webhook_secret="a-Z_0")
    assert (hook.webhook_path, hook.web_server_port) == ("/tg/hook", 8080)
    assert settings(webhook_url="https://bot.example.org").webhook_path == "/webhook"
    assert settings().web_server_port is None  # polling: no server unless asked
    assert settings(web_port=9000).web_server_port == 9000
    assert settings(database_path=Path("d/b.sqlite3")).backup_folder == Path("d/backups")


@pytest.mark.parametrize("values", [
    {"webhook_url": "ftp://bot.example.org/hook"},
    {"webhook_url": "bot.example.org/hook"},
    {"webhook_secret": "has spaces"},
    {"webhook_secret": "x" * 257},
    {"web_port": 0},
    {"backup_keep": 0},
])
def test_refused(values: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        settings(**values)
