"""A small driver for the game-entry conversation, so tests read like the judge's taps.

(No tests here; the module is shared by the ``test_game_entry*`` files.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage
from aiogram.types import Message, User

from bot.db import Database, players, staff, tournaments, users
from bot.db.games import GameRecord, get_game_by_draft, list_games
from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import DATA_KEY
from tests.support import BotHarness
from tests.support.telegram import buttons

CHIEF = 1001
JUDGE = 1002
JUDGE2 = 1003
OUTSIDER = 1009
GROUP = -100777
NICKS = (
    "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot",
    "Golf", "Hotel", "India", "Juliet", "Kilo", "Lima",
)
PLAYER_USER_BASE = 5000  # player i's Telegram account: 5000 + i (when linked)


@dataclass
class World:
    harness: BotHarness
    db: Database
    tid: int = 0
    pids: list[int] = field(default_factory=list)  # NICKS order

    @classmethod
    async def create(
        cls,
        harness: BotHarness,
        db: Database,
        *,
        distance: int = 10,
        linked: Sequence[int] = (),
        reachable: Sequence[int] = (),
        status: str = "running",
        language: str = "en",
    ) -> World:
        """A running tournament (chief CHIEF, judges JUDGE and JUDGE2), twelve confirmed
        players; ``linked`` indexes get a Telegram account, ``reachable`` ones started the bot;
        its group reads ``language``."""
        world = cls(harness, db)
        async with db.transaction() as conn:
            t = await tournaments.create_tournament(
                conn,
                title="Spring Cup",
                distance=distance,
                created_by=CHIEF,
                chat_id=GROUP,
                language=language,
            )
            if status != "registration":
                await tournaments.set_status(conn, t.id, status)  # type: ignore[arg-type]
            await staff.add_staff(conn, t.id, JUDGE, "judge", added_by=CHIEF)
            await staff.add_staff(conn, t.id, JUDGE2, "judge", added_by=CHIEF)
            for i, nick in enumerate(NICKS):
                user_id = PLAYER_USER_BASE + i if i in linked else None
                if user_id is not None:
                    await users.upsert_user(
                        conn,
                        user_id,
                        first_name=nick,
                        language_code="en",
                        can_message=i in reachable,
                    )
                row = await players.add_player(
                    conn, t.id, nick, user_id=user_id, status="confirmed", decided_by=CHIEF
                )
                world.pids.append(row.id)
            world.tid = t.id
        return world

    def person(self, user_id: int, name: str = "Judge", language: str = "en") -> User:
        return self.harness.user(user_id, name, language_code=language)

    def judge(self, user_id: int = JUDGE, language: str = "en") -> Driver:
        return Driver(self, self.person(user_id, f"Judge{user_id}", language))

    async def games(self) -> list[GameRecord]:
        async with self.db.read() as conn:
            return await list_games(conn, self.tid, include_annulled=True)


class Driver:
    """One person's private chat with the bot: the card he works on, his taps."""

    def __init__(self, world: World, user: User) -> None:
        self.world = world
        self.user = user
        self.card_id = 0

    @property
    def h(self) -> BotHarness:
        return self.world.harness

    # -- what he sees --------------------------------------------------------------

    @property
    def card(self) -> Message:
        message = self.h.session.message(self.user.id, self.card_id)
        assert message is not None, "no card"
        return message

    @property
    def text(self) -> str:
        return self.card.text or ""

    def labels(self) -> list[str]:
        return [label for label, _ in buttons(self.card)]

    def last_answer(self) -> str | None:
        answers = self.h.session.requests_of(AnswerCallbackQuery)
        return answers[-1].text if answers else None

    def last_sent(self) -> str | None:
        """The latest message (not edit) the bot sent him."""
        sent = [
            m.text
            for m in self.h.session.requests_of(SendMessage, delivered=True)
            if m.chat_id == self.user.id
        ]
        return sent[-1] if sent else None

    def sent_texts(self) -> list[str]:
        return [
            m.text
            for m in self.h.session.requests_of(SendMessage, delivered=True)
            if m.chat_id == self.user.id
        ]

    def edits(self) -> list[EditMessageText]:
        return [
            m
            for m in self.h.session.requests_of(EditMessageText, delivered=True)
            if m.chat_id == self.user.id
        ]

    async def draft(self) -> dict[str, Any]:
        state = self.h.dispatcher.fsm.get_context(self.h.bot, self.user.id, self.user.id)
        found: dict[str, Any] = (await state.get_data()).get(DATA_KEY, {})
        return found

    async def state(self) -> str | None:
        context = self.h.dispatcher.fsm.get_context(self.h.bot, self.user.id, self.user.id)
        return await context.get_state()

    # -- what he does ----------------------------------------------------------------

    async def say(self, text: str) -> None:
        await self.h.say(self.user, text)

    async def start(self) -> None:
        await self.say("/game")
        message = self.h.session.last_message(self.user.id)
        assert message is not None
        self.card_id = message.message_id

    async def tap(self, label: str, *, on: Message | None = None) -> None:
        await self.h.press(self.user, on or self.card, text=label)

    async def tap_data(self, data: str, *, on: Message | None = None) -> None:
        await self.h.press(self.user, on or self.card, data=data)

    def step_data(
        self, a: str, n: int = 0, m: int = 0, *, step: str | None = None, on: Message | None = None
    ) -> str:
        """A button this card could carry (e.g. one the card does NOT offer)."""
        first = next(d for _, d in buttons(on or self.card) if d and d.startswith("gs:"))
        current = Step.unpack(first)
        return Step(t=current.t, s=step or current.s, a=a, n=n, m=m).pack()

    async def select(self, seat: int) -> None:
        """Tap a seat button unless it is the selected one already (``[n]``)."""
        for label in self.labels():
            if label.startswith(f"[{seat}") and label[len(str(seat)) + 1] in "]·✓ ":
                return
        await self.tap(str(seat))

    async def next(self) -> None:
        await self.tap("Next ▶")

    async def back(self) -> None:
        await self.tap("◀ Back")

    # -- whole steps ---------------------------------------------------------------------

    async def seat(self, nicks: Sequence[str] = NICKS[:10]) -> None:
        await self.say("\n".join(nicks))
        await self.next()

    async def roles(self, sheriff: int, don: int, mafia: tuple[int, int]) -> None:
        for seat in (sheriff, don, *mafia):
            await self.tap(str(seat))
        await self.next()

    async def enter(
        self,
        *,
        round_table: str = "1 1",
        nicks: Sequence[str] = NICKS[:10],
        roles: tuple[int, int, tuple[int, int]] = (1, 2, (3, 4)),
        day1: int = 0,
        night: int | None = 5,
        best_move: Sequence[int] | None = (),
        result: str = "Red win",
    ) -> None:
        """/game up to the disqualifications step (8): everything before it tapped.

        ``best_move=None`` stops at the best move step (6) instead."""
        await self.start()
        if "Spring Cup" not in self.text:
            raise AssertionError(self.text)
        await self.say(round_table)
        await self.seat(nicks)
        await self.play(roles=roles, day1=day1, night=night, best_move=best_move, result=result)

    async def play(
        self,
        *,
        roles: tuple[int, int, tuple[int, int]] = (1, 2, (3, 4)),
        day1: int = 0,
        night: int | None = 5,
        best_move: Sequence[int] | None = (),
        result: str = "Red win",
    ) -> None:
        """From the roles step (3) to the disqualifications step (8), as ``enter``."""
        await self.roles(*roles)
        await self.tap(str(day1))
        await self.tap(str(night) if night else "Miss (nobody shot)")
        if night and day1 < 2:
            if best_move is None:
                return
            for seat in best_move:
                await self.tap(str(seat))
            if len(best_move) < 3:
                await self.tap(f"Done ({len(best_move)} named)")
            await self.next()
        await self.tap(_RESULT_LABELS[result])

    async def to_review(self) -> None:
        """From the disqualifications step, nothing more, to the review."""
        while "Step 11/11" not in self.text:
            await self.next()

    async def save(self) -> GameRecord:
        await self.tap("💾 Save")
        draft_games = await self.world.games()
        assert draft_games, self.text
        return max(draft_games, key=lambda g: g.id)


_RESULT_LABELS = {"Red win": "🔴 Red win", "Black win": "⚫ Black win", "Draw": "🤝 Draw"}


async def game_by_draft(db: Database, draft_id: str) -> GameRecord | None:
    async with db.read() as conn:
        return await get_game_by_draft(conn, draft_id)
