"""Settings from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.texts.localtime import DEFAULT_TIMEZONE, valid_timezone

LOCALES = Path(__file__).resolve().parent.parent / "locales"


_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
# An empty value (`WEB_PORT=` in .env) means the default, as if the line were not there.
_SOURCES = SettingsConfigDict(
    env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
)


class Settings(BaseSettings):
    model_config = _SOURCES

    # From @BotFather. SecretStr keeps it out of reprs and logs.
    bot_token: SecretStr | None = None
    database_path: Path = Path("data/bot.sqlite3")
    # Base URL of a Bot API server; empty means Telegram's own (api.telegram.org).
    telegram_api_url: str = ""
    # Seconds the start keeps asking Telegram (getMe, 1, 2, 4, 8, 15 s apart) before it
    # gives up with exit 3 (bot.telegram.startup); 0: one try. systemd restarts it later.
    telegram_start_wait: float = Field(default=30.0, ge=0)
    # /healthz and ``check`` call the bot unhealthy when Telegram has answered nothing
    # for this many seconds, or a group post has waited this long (bot.web.health).
    health_telegram_max_age: int = Field(default=300, ge=1)
    health_outbox_max_age: int = Field(default=600, ge=1)
    log_level: str = "INFO"
    # Seconds to wait after a save before editing the chat's standings message, so that
    # tables finishing together cause one edit (Telegram's limits: docs/development.md, "Reliability
    # and speed").
    standings_debounce: float = Field(default=3.0, ge=0)
    # Multiplies every period of Telegram's flood limits the bot keeps (bot.telegram.flood): 1 in
    # production; the tests' local Bot API server scales its limits alike to run fast.
    flood_scale: float = Field(default=1.0, gt=0, le=1)
    # Where the translations live (gettext .po files, one folder per language).
    locales_path: Path = LOCALES
    # The time zone of new tournaments (an IANA name); the chief judge changes a
    # tournament's with /timezone. Times are shown in it with their UTC offset.
    timezone: str = DEFAULT_TIMEZONE
    # aiogram's models built on first use (bot/telegram/aiogram_models.py): about 110 MiB and 3 s
    # less at start-up. Read by ``lazy_models()`` when the package is imported, before
    # aiogram is; here so that a bad value is reported like any other setting's.
    lazy_models: bool = True
    # Rated games a player needs to stand on the career rating's leaderboard (/top and
    # its web page); /me and /player show anyone's rating.
    top_min_games: int = Field(default=10, ge=1)
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

    # Webhook mode while WEBHOOK_URL is set (the public HTTPS address Telegram posts to,
    # its path served here); long polling otherwise.
    webhook_url: str = ""
    # Telegram sends it in X-Telegram-Bot-Api-Secret-Token; a request without it is
    # refused. Unset: a random one each start (the webhook is set anew on every start).
    webhook_secret: SecretStr | None = None
    # The bot's own HTTP server (webhook, /healthz): behind a reverse proxy, so loopback.
    web_host: str = "127.0.0.1"
    # Unset: no server in polling mode, 8080 in webhook mode.
    web_port: int | None = Field(default=None, ge=1, le=65535)
    # Scheduled backups (the SQLite backup API); empty: "backups" beside the database.
    backup_dir: Path | None = None
    # 0 turns the scheduled backups off.
    backup_every_hours: float = Field(default=24.0, ge=0)
    backup_keep: int = Field(default=14, ge=1)
    # The Mini App's public https base (docs/development.md, "The live protocol"): the judge's card
    # gets a web_app button to ``{WEBAPP_URL}/app/``, and the HTTP server serves the page
    # and its API (in polling mode too). Empty: off, no button, no routes.
    webapp_url: str = ""
    # Seconds a Mini App's initData stays valid after Telegram signed it (its auth_date).
    webapp_init_max_age: int = Field(default=86400, ge=1)

    @field_validator("telegram_api_url")
    @classmethod
    def _api_address(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018  # raises for a port out of range
        except ValueError:
            parts = urlsplit("")
        if value and (parts.scheme not in ("https", "http") or not parts.hostname):
            raise ValueError("TELEGRAM_API_URL: a Bot API server's base address, "
                             "e.g. http://127.0.0.1:8081, or empty for Telegram's own")
        return value

    @field_validator("webhook_url")
    @classmethod
    def _webhook_address(cls, value: str) -> str:
        value = value.strip()
        parts = urlsplit(value)
        # http:// too: a local Bot API server, or the tests, post over plain HTTP.
        if value and (parts.scheme not in ("https", "http") or not parts.netloc):
            raise ValueError("WEBHOOK_URL: an https:// address, e.g. https://bot.example.org/tg")
        return value

    @field_validator("webapp_url")
    @classmethod
    def _webapp_address(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        parts = urlsplit(value)
        # Telegram opens web_app buttons over https only; http:// for local tests.
        if value and (parts.scheme not in ("https", "http") or not parts.netloc):
            raise ValueError("WEBAPP_URL: an https:// address, e.g. https://bot.example.org")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _secret_charset(cls, value: SecretStr | None) -> SecretStr | None:
        # Telegram's rule for secret_token: 1-256 characters A-Z, a-z, 0-9, _ and -.
        if value is not None and not _SECRET.fullmatch(value.get_secret_value()):
            raise ValueError("WEBHOOK_SECRET: 1-256 characters of A-Z, a-z, 0-9, _ and -")
        return value

    @property
    def webhook_path(self) -> str:
        """The path Telegram posts to (the path of WEBHOOK_URL, "/webhook" if it has none)."""
        return urlsplit(self.webhook_url).path or "/webhook"

    @property
    def web_server_port(self) -> int | None:
        """The port of the bot's HTTP server; None: no server (polling without WEB_PORT
        and without WEBAPP_URL)."""
        if self.web_port is None and (self.webhook_url or self.webapp_url):
            return 8080
        return self.web_port

    @property
    def backup_folder(self) -> Path:
        return self.backup_dir or self.database_path.parent / "backups"

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
