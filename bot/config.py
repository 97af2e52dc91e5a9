"""Settings from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    # From @BotFather. SecretStr keeps it out of reprs and logs.
    bot_token: SecretStr | None = None
    database_path: Path = Path("data/bot.sqlite3")
    # Base URL of a Bot API server; empty means Telegram's own (api.telegram.org).
    telegram_api_url: str = ""
    log_level: str = "INFO"
    # Seconds to wait after a save before editing the chat's standings message, so that
    # tables finishing together cause one edit (issue 6).
    standings_debounce: float = Field(default=3.0, ge=0)
    # Where the translations live (gettext .po files, one folder per language).
    locales_path: Path = Path(__file__).resolve().parent.parent / "locales"
