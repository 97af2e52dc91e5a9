"""Fixtures for e2e tests: a fake Bot API server and the real bot process."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Generator, Iterator, Mapping
from pathlib import Path

import pytest

from .bot_fork import ForkServer
from .bot_process import REPO_ROOT, BotFactory, BotProcess
from .fake_telegram import FakeTelegram, make_token

_HERE = Path(__file__).resolve().parent
_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()
# How long one of Telegram's flood-limit seconds lasts here, in the fake server
# (``FakeTelegram.time_scale``) and in the bot (``FLOOD_SCALE``) alike: the bot paces a
# chat at one message per 50 ms instead of per second, the fake enforces the same.
TIME_SCALE = 0.05

def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None],
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    # Remember phase outcomes so fixtures can dump the bot log of failed tests.
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


def _failed(request: pytest.FixtureRequest) -> bool:
    reports = request.node.stash.get(_REPORTS, {})
    return any(r.failed for r in reports.values())


@pytest.fixture
def bot_token() -> str:
    return make_token()


@pytest.fixture
async def fake_telegram(bot_token: str) -> AsyncIterator[FakeTelegram]:
    """A started FakeTelegram for `bot_token`; fails the test on internal errors of the fake."""
    fake = FakeTelegram(bot_token, time_scale=TIME_SCALE)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    if fake.internal_errors:
        pytest.fail("FakeTelegram internal errors:\n" + "\n".join(fake.internal_errors))


@pytest.fixture(scope="session")
def fork_server() -> Iterator[ForkServer]:
    """The worker's server of pre-imported bots (tests/e2e/bot_fork.py): a bot's start
    costs ~0.1 s of CPU instead of ~1.2 s."""
    server = ForkServer()
    yield server
    server.close()


@pytest.fixture
async def bot_factory(fake_telegram: FakeTelegram, tmp_path: Path, bot_token: str,
                      request: pytest.FixtureRequest,
                      fork_server: ForkServer) -> AsyncIterator[BotFactory]:
    """Start bot processes: `await bot_factory(env={...}, api_url=..., wait_ready=...)`.

    Default env: BOT_TOKEN, TELEGRAM_API_URL=fake.base_url, DATABASE_PATH in tmp_path,
    LOG_LEVEL=DEBUG, FLOOD_SCALE=the fake's time_scale; `env` overrides (None removes a
    variable); `cwd` defaults to the repo root (where `make run` runs). Every process is
    stopped at teardown and its log is printed if the test failed.
    """
    procs: list[BotProcess] = []

    async def factory(*, env: Mapping[str, str | None] | None = None,
                      api_url: str | None = None, start: bool = True,
                      wait_ready: bool = True, cwd: Path | None = None) -> BotProcess:
        n = len(procs)
        full_env: dict[str, str | None] = {
            "BOT_TOKEN": bot_token,
            "TELEGRAM_API_URL": api_url or fake_telegram.base_url,
            "DATABASE_PATH": str(tmp_path / "bot.sqlite3"),
            "LOG_LEVEL": "DEBUG",
            "FLOOD_SCALE": str(fake_telegram.time_scale),
            **(env or {}),
        }
        proc = BotProcess(env=full_env, log_path=tmp_path / f"bot{n or ''}.log",
                          fake=fake_telegram, cwd=cwd or REPO_ROOT, fork=fork_server)
        procs.append(proc)
        if start:
            await proc.start(wait_ready=wait_ready)
        return proc

    try:
        yield factory
    finally:
        for proc in procs:
            await proc.cleanup()
        if _failed(request):
            for proc in procs:
                sys.stderr.write(f"\n----- {proc.log_path} (exit {proc.returncode}), "
                                 f"non-DEBUG lines -----\n{proc.digest()}\n")
    # Whatever a test did, the token (or its secret half) is never in a bot's log.
    secret = bot_token.split(":", 1)[1]
    leaked = [str(p.log_path) for p in procs if secret in p.log_text()]
    if leaked:
        pytest.fail(f"the bot token is in the log: {', '.join(leaked)}")


@pytest.fixture
async def bot_process(bot_factory: BotFactory) -> BotProcess:
    """The real bot, started and polling the fake server."""
    return await bot_factory()

