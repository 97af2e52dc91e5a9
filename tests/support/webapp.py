"""Telegram's ``initData`` of a Mini App, signed as Telegram signs it, for tests of the
live protocol's HTTP API (``X-Telegram-Init-Data``)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

INIT_HEADER = "X-Telegram-Init-Data"


def sign_init_data(
    token: str,
    user: Mapping[str, Any],
    auth_date: int | float | None = None,
    **fields: str,
) -> str:
    """The query string Telegram hands the page for ``user`` (``id``, ``first_name``,
    ``language_code`` ...), signed with the bot's ``token`` at ``auth_date`` (now by
    default)."""
    return sign_fields(token, {
        "user": json.dumps(dict(user), separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
        "query_id": "AAtest",
        **fields,
    })


def sign_fields(token: str, fields: Mapping[str, str]) -> str:
    """``fields`` as a query string with the ``hash`` Telegram would add (whatever they
    hold: a test of what a valid signature over odd data gets)."""
    data = dict(fields)
    check = "\n".join(f"{key}={data[key]}" for key in sorted(data))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    data["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(data)


def headers(token: str, user_id: int, *, language: str = "en",
            auth_date: int | float | None = None) -> dict[str, str]:
    """The request headers of the page opened by ``user_id``."""
    user = {"id": user_id, "first_name": f"User{user_id}", "language_code": language}
    return {INIT_HEADER: sign_init_data(token, user, auth_date)}
