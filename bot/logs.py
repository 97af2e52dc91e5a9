"""Logging that never shows the bot token.

The token is part of every Bot API URL, so a network error's text can carry it; the
filter masks it in every record, whichever library logged it.
"""

from __future__ import annotations

import logging


def redact(text: str, token: str) -> str:
    """``text`` with the whole token and its secret half (after the colon) masked."""
    secret = token.split(":", 1)[-1]
    for needle in (token, secret):
        if len(needle) >= 8:
            text = text.replace(needle, "<token>")
    return text


class RedactTokenFilter(logging.Filter):
    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        redacted = self._redact(message)
        exc_text = self._redact(record.exc_text) if record.exc_text else record.exc_text
        if redacted != message or exc_text != record.exc_text:
            record.msg, record.args = redacted, None
            record.exc_text = exc_text
        return True

    def _redact(self, text: str) -> str:
        return redact(text, self._token)


def setup_logging(level: str, token: str | None) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    if token:
        handler.addFilter(RedactTokenFilter(token))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
