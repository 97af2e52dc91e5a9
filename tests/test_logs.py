import logging

from bot.logs import RedactTokenFilter

TOKEN = "123456:AAE-secret-part-of-token"


def _format(record: logging.LogRecord) -> str:
    RedactTokenFilter(TOKEN).filter(record)
    return logging.Formatter("%(message)s").format(record)


def test_token_in_message_and_args_is_masked() -> None:
    record = logging.LogRecord(
        "aiogram", logging.ERROR, __file__, 1, "GET %s failed", (f"/bot{TOKEN}/getMe",), None
    )
    text = _format(record)
    assert TOKEN not in text and "AAE-secret-part-of-token" not in text
    assert "/bot<token>/getMe failed" in text


def test_token_in_exception_traceback_is_masked() -> None:
    try:
        raise ConnectionError(f"cannot reach https://host/bot{TOKEN}/getUpdates")
    except ConnectionError:
        import sys

        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "polling failed", None, sys.exc_info()
        )
    text = _format(record)
    assert "secret-part" not in text
    assert "<token>" in text
