"""One process, several Dispatchers (the tests, an in-process restart): each routes its
updates through the one tree of feature routers, with its own database."""

from __future__ import annotations

from pathlib import Path

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db.connection import Database
from tests.support import BotHarness


async def test_two_dispatchers_at_once_both_route_through_the_features(tmp_path: Path) -> None:
    first = await Database.open(tmp_path / "first.sqlite3")
    second = await Database.open(tmp_path / "second.sqlite3")
    try:
        dispatchers = [
            build_dispatcher(db, Settings(database_path=db.path, standings_debounce=0))
            for db in (first, second)
        ]
        async with BotHarness(dispatchers[0]) as one, BotHarness(dispatchers[1]) as two:
            for harness, user_id in ((one, 301), (two, 302)):
                bob = harness.user(user_id, "Bob", language_code="en")
                await harness.send(harness.updates.private_message(bob, "/cancel"))
                assert harness.session.last_text(user_id) == "Nothing to cancel."
        # Each Dispatcher's own middlewares ran: each database knows only its own user.
        for db, user_id in ((first, 301), (second, 302)):
            assert await db.fetchval("SELECT group_concat(user_id) FROM users") == str(user_id)
        assert dispatchers[0].resolve_used_update_types() == (
            dispatchers[1].resolve_used_update_types()
        )
        assert "callback_query" in dispatchers[0].resolve_used_update_types()
    finally:
        await first.close()
        await second.close()
