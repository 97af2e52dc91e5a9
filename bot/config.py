"""Settings from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.localtime import DEFAULT_TIMEZONE, valid_timezone

LOCALES = Path(__file__).resolve().parent.parent / "locales"

_SOURCES = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")


class Settings(BaseSettings):
    model_config = _SOURCES

    # From @BotFather. SecretStr keeps it out of reprs and logs.
    bot_token: SecretStr | None = None
    database_path: Path = Path("data/bot.sqlite3")
    # Base URL of a Bot API server; empty means Telegram's own (api.telegram.org).
    telegram_api_url: str = ""
    log_level: str = "INFO"
    # Seconds to wait after a save before editing the chat's standings message, so that
    # tables finishing together cause one edit (Telegram's limits: README, "Reliability
    # and speed").
    standings_debounce: float = Field(default=3.0, ge=0)
    # Multiplies every period of Telegram's flood limits the bot keeps (bot.flood): 1 in
    # production; the tests' local Bot API server scales its limits alike to run fast.
    flood_scale: float = Field(default=1.0, gt=0, le=1)
    # Where the translations live (gettext .po files, one folder per language).
    locales_path: Path = LOCALES
    # The time zone of new tournaments (an IANA name); the chief judge changes a
    # tournament's with /timezone. Times are shown in it with their UTC offset.
    timezone: str = DEFAULT_TIMEZONE
    # aiogram's models built on first use (bot/aiogram_models.py): about 110 MiB and 3 s
    # less at start-up. Read by ``lazy_models()`` when the package is imported, before
    # aiogram is; here so that a bad value is reported like any other setting's.
    lazy_models: bool = True
    # Telegram user ids of the bot's operators, comma-separated: only they get /backup,
    # a copy of the whole database (every tournament's). None: nobody in chat; the
    # command line (python -m bot backup) still works.
    operator_ids: Annotated[frozenset[int], NoDecode] = frozenset()

    @field_validator("operator_ids", mode="before")
    @classmethod
    def _id_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part for part in value.replace(",", " ").split() if part]
        if isinstance(value, int):
            return [value]
        return value

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        name = valid_timezone(value)
        if name is None:
            raise ValueError(f"unknown time zone {value!r}; use an IANA name such as Europe/Moscow")
        return name


class _ImportSettings(BaseSettings):
    """What must be known before aiogram is imported: read alone, so that another
    setting's bad value is reported by ``Settings()`` (``python -m bot``), not at import."""

    model_config = _SOURCES

    lazy_models: bool = True


def lazy_models() -> bool:
    """``LAZY_MODELS`` (default on); a value that is not a boolean counts as on here
    (``Settings()`` rejects it)."""
    try:
        return _ImportSettings().lazy_models
    except ValidationError:
        return True
