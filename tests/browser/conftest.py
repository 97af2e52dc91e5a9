"""Fixtures of the browser tests: the real bot serving the Mini App (WEBAPP_URL set to
its own loopback address) and headless Chromium driven by Selenium.

Chromium is Debian's (``/usr/bin/chromium`` and ``/usr/bin/chromedriver``; ``.ci/run``
installs them). Without it the tests are skipped on a developer's machine and fail in
CI (``CI`` set), where they must run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import (  # noqa: F401
    bot_factory,
    bot_token,
    fake_telegram,
    fork_server,
    pytest_runtest_makereport,
)

from .page import CHROMEDRIVER, CHROMIUM, Browser, LiveTable, open_live_table

_HERE = Path(__file__).resolve().parent


def chromium_missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).exists() or shutil.which(path)):
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = chromium_missing()
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.e2e)
            if missing and not os.environ.get("CI"):
                item.add_marker(pytest.mark.skip(reason=missing))


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    """A headless Chromium of its own (profile in tmp_path), closed at teardown."""
    chrome = Browser(tmp_path / "chromium")
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.fixture
async def live_table(fake_telegram, bot_factory, tmp_path: Path) -> AsyncIterator[LiveTable]:  # noqa: F811
    """A running tournament with a judge and a live draft of round 1, table 1; the bot
    serving the Mini App on its loopback port."""
    yield await open_live_table(fake_telegram, bot_factory, tmp_path)
