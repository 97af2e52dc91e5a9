"""A step of the judge's card, declared in one place; the card made of its steps; and
the context a step's work runs in.

Each step is one module of ``steps/`` with one ``StepSpec``: its FSM state, its title,
its prompt and keyboard, when it is done, the text it takes, what entering it does and
the actions of its buttons (as an aiogram ``Scene`` or an aiogram_dialog ``Window``
keeps a step together). ``steps/__init__.py`` lists them, in the order of the card, in
one ``Card``; nothing registers itself on import.

A step's work takes a ``Ctx`` and the context holds the ``Card`` (it moves the judge
between steps): the two refer to each other, so they live here together. The card's
text (``card``) and keyboards (``keyboards``) import this module, never the reverse.

The step codes (a button's ``s``, ``Draft.step``) and the states are stored in judges'
drafts: a draft saved before an upgrade must still be read after it, so neither is
ever renamed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from aiogram import Bot
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State
from aiogram.utils.i18n import I18n
from babel.support import LazyProxy

from bot.config import Settings
from bot.publishing import Publisher
from bot.publishing.notices import GameTeller, GameViews
from bot.reads.standings import StandingsService
from bot.services.records import Database, TournamentRow
from bot.services.staff import tournament_and_role
from bot.telegram.background import Background
from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.view import View

# A button's action changes the draft and returns None, or refuses with a one-line
# reason (then nothing is stored).
Action = Callable[["Ctx", Draft, Step], Awaitable[str | None]]
# Text the judge typed while the step is shown: the same contract.
Typed = Callable[["Ctx", Draft, str], Awaitable[str | None]]
# Work done once a tap that entered the step is answered (e.g. ask a player).
Entered = Callable[["Ctx", Draft], Awaitable[None]]
# What the step adds to the card's view (read from the database or the engine).
Loader = Callable[["Ctx", Draft, View], Awaitable[None]]
Prompt = Callable[[Draft, View], list[str]]
Buttons = Callable[[Keys, View], None]


def _always(d: Draft) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class StepSpec:
    code: str  # the step's code in drafts and buttons (stored: never renamed)
    state: State  # its FSM state (stored: never renamed)
    title: LazyProxy  # lazy_gettext: shown in the reader's language
    prompt: Prompt  # the lines under the protocol
    keyboard: Buttons  # its buttons (the Back / Next row is added to them)
    # Filled enough to go on (Next, and the review needs every step done).
    done: Callable[[Draft], bool] = _always
    # Part of this game at all (e.g. no best move after 8.3.6).
    applies: Callable[[Draft], bool] = _always
    actions: Mapping[str, Action] = field(default_factory=dict)
    typed: Typed | None = None
    enter: Callable[[Draft], None] | None = None  # sets up the card state on entering
    entered: Entered | None = None
    load: Loader | None = None
    # The tournament choice before the steps: no number, no protocol, no Back/Next.
    prelude: bool = False
    marks_seat: bool = False  # the protocol marks the selected seat
    lists_seats: bool = False  # the prompt names every seat: a long card drops the protocol's


class Card:
    """The judge's card: a prelude (the tournament) and the numbered steps in order, and
    the actions every step has (Back, Next, Review)."""

    def __init__(
        self, prelude: StepSpec, steps: Sequence[StepSpec], common: Mapping[str, Action]
    ) -> None:
        self.prelude = prelude
        self.steps = tuple(steps)
        self.order = tuple(spec.code for spec in self.steps)
        self.first = self.order[0]
        self.review = self.order[-1]  # the last step: the review, with Save
        self._specs = {spec.code: spec for spec in (prelude, *self.steps)}
        if len(self._specs) != len(self.steps) + 1:
            raise ValueError("two steps share a code")
        self._common = dict(common)
        self.state_names = frozenset(str(spec.state.state) for spec in self._specs.values())

    def spec(self, code: str) -> StepSpec:
        return self._specs[code]

    def state(self, code: str) -> State:
        return self._specs[code].state

    def action(self, code: str, name: str) -> Action | None:
        spec = self._specs.get(code)
        found = spec.actions.get(name) if spec is not None else None
        return found or self._common.get(name)

    def typed(self, code: str) -> Typed | None:
        spec = self._specs.get(code)
        return spec.typed if spec is not None else None

    # -- the order of the steps ----------------------------------------------------------

    def done(self, d: Draft, code: str) -> bool:
        """Whether the step is filled enough to go on."""
        spec = self._specs.get(code)
        return spec.done(d) if spec is not None else True

    def applies(self, d: Draft, code: str) -> bool:
        return code in self.order and self._specs[code].applies(d)

    def visible(self, d: Draft) -> list[str]:
        return [spec.code for spec in self.steps if spec.applies(d)]

    def next(self, d: Draft, code: str) -> str:
        steps = self.visible(d)
        if code not in steps:
            return steps[0]
        return steps[min(steps.index(code) + 1, len(steps) - 1)]

    def previous(self, d: Draft, code: str) -> str | None:
        steps = self.visible(d)
        if code not in steps:
            return None
        index = steps.index(code)
        return steps[index - 1] if index > 0 else None

    def complete(self, d: Draft) -> bool:
        """Every required step is filled: the review (and Save) can be reached."""
        return all(spec.done(d) for spec in self.steps)

    def number(self, code: str) -> int:
        """The number the card shows for the step (0: the prelude)."""
        return self.order.index(code) + 1 if code in self.order else 0

    @property
    def total(self) -> int:
        return len(self.order)


@dataclass(frozen=True, slots=True)
class Desk:
    """What every handler of the card works with, the same for every update: the
    Dispatcher's workflow data ``desk`` (``bot.app.build_dispatcher``; ``card`` is
    ``steps.CARD``). A handler takes it by name, with the update's ``bot`` and ``state``,
    and opens the card's context of the user who acts (:meth:`ctx`)."""

    db: Database
    standings: StandingsService
    publisher: Publisher
    i18n: I18n
    card: Card  # the judge's card: its steps
    settings: Settings  # WEBAPP_URL: the live protocol's button (docs/organiser.md)
    # The game use cases' messages to others (``handlers.game_entry.notices``).
    views: GameViews
    # Where the card's edits go without the handler waiting for them.
    background: Background | None = None

    def ctx(self, bot: Bot, state: FSMContext, user_id: int, *, waiting: bool = False) -> Ctx:
        """The card's context of ``user_id``; ``waiting``: the handler waits for the card's
        edits (Save, corrections) instead of handing them over."""
        return Ctx(
            bot, self.db, self.standings, self.publisher, self.i18n, self.card, self.settings,
            state, user_id, self.teller(bot), None if waiting else self.background,
        )

    def teller(self, bot: Bot) -> GameTeller:
        """How the game use cases' news reach others, sent through ``bot``."""
        return GameTeller(bot, self.publisher, self.views)


@dataclass
class Ctx:
    """The judge's card as one user works on it: what its steps talk to, his FSM
    context, and the work left for after the tap is answered (``Desk.ctx`` opens it).
    It is also what a game use case talks to (``bot.services.games.Runtime``).
    """

    bot: Bot
    db: Database
    standings: StandingsService
    publisher: Publisher
    i18n: I18n
    card: Card  # the judge's card: its steps
    settings: Settings  # WEBAPP_URL: the live protocol's button (docs/organiser.md)
    state: FSMContext
    user_id: int
    teller: GameTeller  # the game use cases' news to others (``bot.services.games.Teller``)
    # Where the card's edits go without the handler waiting for them (None: it waits).
    background: Background | None = None
    # Slower work (messages to others) run after the callback is answered.
    after: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    def waiting(self) -> Ctx:
        """This context with the card's edits awaited by the handler (not handed over)."""
        return replace(self, background=None, after=[])

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
