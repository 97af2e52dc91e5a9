"""What the game-entry handlers work with, put in by one router middleware.

``CardContext`` (installed on the game-entry router in ``__init__.py``) gives every
handler of the router ``deps`` (the bot, the database, the standings, the publisher,
i18n, the background and the card's steps) and, when the update has an FSM context,
``ctx``: the card's context of the user who acts. Handlers so take ``ctx`` (or
``deps``) instead of each of these one by one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from aiogram import BaseMiddleware, Bot
from aiogram.fsm.context import FSMContext
from aiogram.types import TelegramObject, User
from aiogram.utils.i18n import I18n

from bot.publishing import Publisher
from bot.reads.standings import StandingsService
from bot.services.records import Database, TournamentRow
from bot.services.staff import tournament_and_role
from bot.telegram.background import Background

if TYPE_CHECKING:
    from handlers.game_entry.draft import Draft
    from handlers.game_entry.spec import Card


@dataclass(frozen=True, slots=True)
class Deps:
    """The services a game-entry handler talks to (``bot.services.games.Runtime``)."""

    bot: Bot
    db: Database
    standings: StandingsService
    publisher: Publisher
    i18n: I18n
    card: Card  # the judge's card: its steps
    # Where the card's edits go without the handler waiting for them (None: it waits).
    background: Background | None = None
    webapp_url: str = ""  # WEBAPP_URL: the live protocol's button (docs/organiser.md)


@dataclass
class Ctx:
    """The judge's card as one user works on it: his FSM context and the work left for
    after the tap is answered."""

    deps: Deps
    state: FSMContext
    user_id: int
    # Slower work (messages to others) run after the callback is answered.
    after: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    @property
    def bot(self) -> Bot:
        return self.deps.bot

    @property
    def db(self) -> Database:
        return self.deps.db

    @property
    def standings(self) -> StandingsService:
        return self.deps.standings

    @property
    def publisher(self) -> Publisher:
        return self.deps.publisher

    @property
    def i18n(self) -> I18n:
        return self.deps.i18n

    @property
    def card(self) -> Card:
        return self.deps.card

    @property
    def background(self) -> Background | None:
        return self.deps.background

    def waiting(self) -> Ctx:
        """This context with the card's edits awaited by the handler (not handed over)."""
        return replace(self, deps=replace(self.deps, background=None), after=[])

    async def run_after(self) -> None:
        while self.after:
            await self.after.pop(0)()

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        """The tournament as ``authorize`` read it (``Database.cached``), unless something
        changed since."""
        return (await tournament_and_role(self.db, tournament_id, self.user_id))[0]

    # -- moving between steps ------------------------------------------------------------

    def go(self, d: Draft, step: str) -> None:
        """Show ``step`` next: its card state is set up as it wants (``StepSpec.enter``);
        its ``entered`` work runs once the tap is answered."""
        d.step = step
        d.page = 0
        spec = self.card.spec(step)
        if spec.enter is not None:
            spec.enter(d)
        entered = spec.entered
        if entered is not None:
            self.after.append(partial(entered, self, d))

    def go_on(self, d: Draft) -> None:
        """On to the step after the current one."""
        self.go(d, self.card.next(d, d.step))


class CardContext(BaseMiddleware):
    """Puts ``deps`` and, when the update has an FSM context, ``ctx`` into the handler's
    data (a router's inner middleware: it runs only for a handler of the router)."""

    def __init__(self, card: Card) -> None:
        self.card = card

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        deps = Deps(
            bot=data["bot"],
            db=data["db"],
            standings=data["standings"],
            publisher=data["publisher"],
            i18n=data["i18n"],
            card=self.card,
            background=data.get("background"),
            webapp_url=getattr(data.get("settings"), "webapp_url", ""),
        )
        data["deps"] = deps
        state: FSMContext | None = data.get("state")
        user: User | None = data.get("event_from_user")
        if state is not None and user is not None:
            data["ctx"] = Ctx(deps, state, user.id)
        return await handler(event, data)
