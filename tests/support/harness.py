"""Drive any Dispatcher with fake updates and a RecordingSession.

Generic on purpose: it takes whatever Dispatcher the test builds (e.g. the app's
``build_dispatcher(...)``), so it doesn't depend on how the app wires itself.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.methods import TelegramMethod
from aiogram.types import Message, Update, User

from .telegram import BOT_TOKEN, Limits, RecordingSession, UpdateFactory, buttons

__all__ = ["BotHarness"]


class BotHarness:
    """A bot on a :class:`RecordingSession`, a dispatcher, and an :class:`UpdateFactory`.

    ``async with BotHarness(dp) as h`` also runs the dispatcher's startup and shutdown
    handlers, as polling would.
    """

    def __init__(
        self,
        dispatcher: Dispatcher | None = None,
        *,
        session: RecordingSession | None = None,
        limits: Limits | None = None,
        token: str = BOT_TOKEN,
        default: DefaultBotProperties | None = None,
        **workflow_data: Any,
    ) -> None:
        self.session = session if session is not None else RecordingSession(limits=limits)
        self.bot = Bot(token, session=self.session, default=default)
        self.session.bind(self.bot)  # so updates built before the first request are bound
        self.dispatcher = dispatcher if dispatcher is not None else Dispatcher()
        self.updates = UpdateFactory(self.session, bot_username=self.session.bot_username)
        self.workflow_data = workflow_data

    async def send(self, update: Update, **kwargs: Any) -> Any:
        """Feed one update; like polling, a TelegramMethod returned by the handler is
        executed (errors propagate, unlike polling, so tests see them)."""
        result = await self.dispatcher.feed_update(
            self.bot, update, **{**self.workflow_data, **kwargs}
        )
        if isinstance(result, TelegramMethod):
            await self.bot(result)
        await self.settle()
        return result

    async def settle(self) -> None:
        """Wait for what the handlers handed over without waiting (``dp["background"]``,
        e.g. the judge's card edits), so a test sees what the user would see next."""
        background = self.dispatcher.workflow_data.get("background")
        join = getattr(background, "join", None)
        if join is not None:
            await join()

    # -- shortcuts -------------------------------------------------------------------

    def user(self, id: int, first_name: str = "Test", **kwargs: Any) -> User:
        return self.updates.user(id, first_name, **kwargs)

    async def say(self, user: User, text: str, *, chat_id: int | None = None) -> Any:
        """``user`` writes ``text`` in private (default) or in group ``chat_id``."""
        if chat_id is None or chat_id == user.id:
            return await self.send(self.updates.private_message(user, text))
        return await self.send(self.updates.group_message(user, chat_id, text))

    async def press(
        self,
        user: User,
        message: Message | None,
        *,
        text: str | None = None,
        data: str | None = None,
    ) -> Any:
        """``user`` presses the button labelled ``text`` (or carrying ``data``) on ``message``."""
        if message is None:
            raise AssertionError("no message to press a button on")
        if data is None:
            found = [d for label, d in buttons(message) if label == text]
            if not found:
                labels = [label for label, _ in buttons(message)]
                raise AssertionError(f"no button {text!r} on the message; buttons: {labels}")
            data = found[0]
        return await self.send(self.updates.callback(user, message, data))

    # -- lifecycle -------------------------------------------------------------------

    def _lifecycle_data(self) -> dict[str, Any]:
        # What Dispatcher.start_polling passes to startup/shutdown handlers.
        return {
            "dispatcher": self.dispatcher,
            "bots": [self.bot],
            **self.dispatcher.workflow_data,
            **self.workflow_data,
        }

    async def startup(self) -> None:
        await self.dispatcher.emit_startup(bot=self.bot, **self._lifecycle_data())

    async def shutdown(self) -> None:
        await self.dispatcher.emit_shutdown(bot=self.bot, **self._lifecycle_data())

    async def close(self) -> None:
        await self.bot.session.close()

    async def __aenter__(self) -> Self:
        await self.startup()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.shutdown()
        finally:
            await self.close()
