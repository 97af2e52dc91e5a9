"""Fixtures of the browser tests: the real bot serving the Mini App (WEBAPP_URL set to
its own loopback address) and headless Chromium driven by Selenium.

Chromium is Debian's (``/usr/bin/chromium`` and ``/usr/bin/chromedriver``; ``.ci/run``
installs them). Without it the tests are skipped on a developer's machine and fail in
CI (``CI`` set), where they must run.
"""

from __future__ import annotations

import contextlib
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


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Browser]]:
    """The worker's headless Chromium, started by its first browser test and kept for
    the next ones; a list, empty until then or after one had to be closed."""
    kept: list[Browser] = []
    yield kept
    for chrome in kept:
        chrome.quit()


@pytest.fixture
def browser(chromium: list[Browser], tmp_path_factory: pytest.TempPathFactory,
            ) -> Iterator[Browser]:
    """Headless Chromium for this test alone: a tab of its own, with nothing kept from
    the tests before (``Browser.next_test``). A Chromium that cannot be made ready again
    is closed, and the next test starts another."""
    if not chromium:
        chromium.append(Browser(tmp_path_factory.mktemp("chromium") / "profile"))
    chrome = chromium[0]
    try:
        yield chrome
    finally:
        try:
            chrome.next_test()
        except Exception:
            chromium.clear()
            with contextlib.suppress(Exception):
                chrome.quit()


@pytest.fixture
async def live_table(fake_telegram, bot_factory, tmp_path: Path) -> AsyncIterator[LiveTable]:  # noqa: F811
    """A running tournament with a judge and a live draft of round 1, table 1; the bot
    serving the Mini App on its loopback port."""
    yield await open_live_table(fake_telegram, bot_factory, tmp_path)
