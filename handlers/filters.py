"""Who may do what: aiogram filters that find the tournament an update acts on and check
the sender's role in it, from ``from_user.id`` against the staff table, on every update
(read through ``Database.cached``, so a tap costs no query while nothing changed).

A filter that lets the update through injects what it found: ``tournament`` and
``role``, and on the way ``player``, ``protest`` and ``game`` or ``invite``. One that
doesn't answers the update itself (the refusal, or in private a picker when the sender
has several tournaments) and raises :class:`Answered`: no handler runs, no later router
gets the update, and ``handlers.errors`` ends it quietly. Put it last among a
handler's filters, after the ones that say the update is that handler's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, NoReturn

from aiogram.exceptions import TelegramAPIError
from aiogram.filters import BaseFilter
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.services import Refusal
from bot.services.records import CHIEF, Database, StaffRole, TournamentRow
from bot.services.refusals import (
    NO_TOURNAMENT_HERE,
    NOT_CHIEF_OF_ANY,
    NOT_JUDGE_OF_ANY,
    ONLY_CHIEF,
    ONLY_STAFF,
    OUT_OF_DATE,
)
from bot.services.staff import (
    Located,
    Named,
    allows,
    locate,
    staff_tournaments,
    tournament_and_role,
)
from bot.services.tournaments import chat_tournament
from bot.texts.markup import html_text
from bot.texts.phrases import say
from bot.texts.rating_format import utf16_len
from handlers.callbacks import Code, RowId
from handlers.chats import is_group

PICKER_LIMIT = 30


class Answered(Exception):
    """A filter answered the update in its handler's stead (a refusal, a picker)."""


ANSWER_LIMIT = 200  # characters of a button's answer (a toast or an alert)


async def answer_refusal(callback: CallbackQuery, refusal: Refusal) -> None:
    """Tell the tapper, and only him, why not: in the button's answer, or (too long for
    one) in his private chat."""
    text = say(refusal)
    if utf16_len(text) <= ANSWER_LIMIT:
        await callback.answer(text, show_alert=refusal.alert or None)
        return
    await callback.answer()
    if callback.bot is not None:
        with suppress(TelegramAPIError):  # he never started the bot: the toast was all
            await callback.bot.send_message(
                callback.from_user.id, html_text(text)
            )


async def refuse(
    event: Message | CallbackQuery, refusal: Refusal, *, reply: bool | None = None
) -> NoReturn:
    """Tell the sender why not and end the update. A message is answered with a reply
    in a group and plainly in private, unless ``reply`` says which."""
    if isinstance(event, CallbackQuery):
        await answer_refusal(event, refusal)
    elif reply or (reply is None and is_group(event)):
        await event.reply(say(refusal))
    else:
        await event.answer(say(refusal))
    raise Answered


# -- picking one of several tournaments -------------------------------------------------


class TournamentPick(CallbackData, prefix="tk"):
    """A staff member with several tournaments picks one for a private command."""

    command: Code
    tournament_id: RowId


def picker(
    tournaments: Sequence[TournamentRow], data: Callable[[TournamentRow], CallbackData]
) -> InlineKeyboardMarkup:
    """One button a tournament (its title), carrying ``data(tournament)``."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=t.title[:60], callback_data=data(t).pack())]
            for t in tournaments[:PICKER_LIMIT]
        ]
    )


def pick_for(command: str) -> Callable[[TournamentRow], CallbackData]:
    return lambda t: TournamentPick(command=command, tournament_id=t.id)


# -- the sender's role in one tournament ------------------------------------------------

# Where a callback's (or a message's) tournament comes from: its callback data's
# tournament, or the player, protest, game, approval or invite the data (or the
# ``token`` an earlier filter injected) names.
Via = Named
# The callback data's field that names it, by the first of these names it has.
_FIELDS: dict[str, tuple[str, ...]] = {
    "tournament": ("tournament_id", "tid"),
    "player": ("player_id", "id"),
    "protest": ("protest_id",),
    "game": ("game_id", "id"),
    "approval": ("id",),
}


async def _locate(db: Database, via: Via, data: Any, token: str | None, user_id: int) -> Located:
    if via == "invite":
        return await locate(db, via, (token if data is None else str(data.token)) or "", user_id)
    key = next(getattr(data, name) for name in _FIELDS[via] if hasattr(data, name))
    return await locate(db, via, int(key), user_id)


class TournamentRole(BaseFilter):
    """The sender's tournament and role, allowed when the role is ``need`` (any staff
    role when None).

    A message's tournament is, in a group, the group's unfinished one; in private the
    only one where he has the role, or he is offered a picker
    (``TournamentPick(command=pick)``) and the command ends. A callback's comes ``via``
    its data. ``finished``: a finished tournament passes (else it is out of date);
    ``refusal``: what the sender is told when his role doesn't allow it; ``missing``:
    when there is no such tournament (player, protest, invite) any more.
    """

    need: StaffRole | None = None

    def __init__(
        self,
        pick: str = "",
        *,
        via: Via | None = None,
        finished: bool = False,
        refusal: Refusal | None = None,
        missing: Refusal = OUT_OF_DATE,
        reply: bool | None = None,
    ) -> None:
        self.pick = pick
        self.via = via
        self.finished = finished
        self.refusal = refusal or (ONLY_CHIEF if self.need == CHIEF else ONLY_STAFF)
        self.missing = missing
        self.reply = reply

    async def __call__(
        self,
        event: Message | CallbackQuery,
        db: Database,
        callback_data: Any = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        user = event.from_user
        assert user is not None  # the identity middleware lets only real senders through
        if isinstance(event, Message) and self.via is None:
            tournament, role = await self._of_message(event, db, user.id)
            return {"tournament": tournament, "role": role}
        found = await _locate(db, self.via or "tournament", callback_data, token, user.id)
        if found.tournament is None or (
            not self.finished and found.tournament.status == "finished"
        ):
            await refuse(event, self.missing, reply=self.reply)
        if not allows(found.role, self.need):
            await refuse(event, self.refusal, reply=self.reply)
        return {"tournament": found.tournament, "role": found.role, **found.extra}

    async def _of_message(
        self, message: Message, db: Database, user_id: int
    ) -> tuple[TournamentRow, StaffRole | None]:
        if is_group(message):
            tournament = await chat_tournament(db, message.chat.id)
            if tournament is None:
                await refuse(message, NO_TOURNAMENT_HERE)
            _same, role = await tournament_and_role(db, tournament.id, user_id)
            if not allows(role, self.need):
                await refuse(message, self.refusal)
            return tournament, role
        rows = [row for row in await staff_tournaments(db, user_id) if allows(row.role, self.need)]
        if not rows:
            await refuse(message, NOT_CHIEF_OF_ANY if self.need == CHIEF else NOT_JUDGE_OF_ANY)
        if len(rows) > 1:
            shown = picker([row.tournament for row in rows], pick_for(self.pick))
            await message.answer(_("Which tournament?"), reply_markup=shown)
            raise Answered
        return rows[0].tournament, rows[0].role


class ChiefJudge(TournamentRole):
    """The chief judge of the tournament (see :class:`TournamentRole`)."""

    need = CHIEF


class Staff(TournamentRole):
    """A chief judge or a judge of the tournament (see :class:`TournamentRole`)."""

    need = None


class OnSomeStaff(BaseFilter):
    """The sender is on the staff of some unfinished tournament: for a button that names
    none (it acts in his own chat); anyone else is told so by the button's answer."""

    async def __call__(self, event: Message | CallbackQuery, db: Database) -> bool:
        assert event.from_user is not None
        if not await staff_tournaments(db, event.from_user.id):
            await refuse(event, NOT_JUDGE_OF_ANY)
        return True


AnyStaff = OnSomeStaff()


# -- every tournament the sender is the chief judge of -------------------------------------


class ChiefTournaments(BaseFilter):
    """``tournaments``: in a group its tournament (the unfinished one, else its latest) if
    the sender is its chief judge; in private every one he is the chief judge of,
    finished ones too with ``finished``. None: he is told ``refusal``."""

    def __init__(self, refusal: Refusal, *, finished: bool = True) -> None:
        self.refusal = refusal
        self.finished = finished

    async def __call__(self, message: Message, db: Database) -> dict[str, Any]:
        user = message.from_user
        assert user is not None
        found: list[TournamentRow] = []
        if is_group(message):
            tournament = await chat_tournament(db, message.chat.id, latest=True)
            if tournament is not None:
                _same, role = await tournament_and_role(db, tournament.id, user.id)
                found = [tournament] if role == CHIEF else []
        else:
            rows = await staff_tournaments(db, user.id, finished=self.finished)
            found = [row.tournament for row in rows if row.role == CHIEF]
        if not found:
            await refuse(message, self.refusal, reply=False)
        return {"tournaments": found}


# -- the group's tournament -----------------------------------------------------------------


class GroupTournament(BaseFilter):
    """``tournament``: the group's unfinished tournament, or with ``latest`` its latest
    one; without one the sender is told ``missing`` (a reply unless ``reply`` is False)."""

    def __init__(
        self, *, latest: bool = False, missing: Refusal = NO_TOURNAMENT_HERE, reply: bool = True
    ) -> None:
        self.latest = latest
        self.missing = missing
        self.reply = reply

    async def __call__(self, message: Message, db: Database) -> dict[str, Any]:
        tournament = await chat_tournament(db, message.chat.id, latest=self.latest)
        if tournament is None:
            await refuse(message, self.missing, reply=self.reply)
        return {"tournament": tournament}
