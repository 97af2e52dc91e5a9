"""Who may use which command and button, and in which kind of chat: the one table of
it (docs/development.md, "Who may do what"), and the outer middleware that enforces it before any
filter or handler sees the update.

Every command and every callback family (its ``CallbackData`` prefix) has a row. The
middleware refuses, in one place:

* a button whose family has no row (an old version's, or forged): out of date;
* a button or a command in a kind of chat its row does not list (a judge's card
  button pressed on a group message, ``/export`` in a group);
* a command of the operators' from anyone else.

The role a row names (``who``) is checked against the tournament the update acts on,
which only the data names: by the handler's filter (``handlers.filters``), which also
says why in that feature's words ("no longer a judge of ...").

A refusal of a button is a callback answer to the tapper only: it never edits or posts
a message. ``tests/handlers/test_access_matrix.py`` walks the whole table with forged
updates and fails on a command or a family that has no row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from aiogram import BaseMiddleware, Bot
from aiogram.types import CallbackQuery, Message, TelegramObject

from bot.config import Settings
from bot.services import N_, Refusal
from bot.services.refusals import (
    OUT_OF_DATE,
    SEND_IN_GROUP,
    SEND_IN_PRIVATE,
)
from bot.texts.phrases import say
from handlers.chats import GROUP_TYPES

ChatKind = Literal["private", "group"]
# anyone: checked further by the handler (a player's own game, his own best move);
# staff: a judge or the chief judge of some tournament; chief: its chief judge;
# operator: one of the bot's operators (``OPERATOR_IDS``), not a tournament role;
# club_owner, club_host: the owner of the group's club, its owner or a host
# (``handlers.club_filters``).
Who = Literal["anyone", "staff", "chief", "operator", "club_owner", "club_host"]

PRIVATE: frozenset[ChatKind] = frozenset({"private"})
GROUP: frozenset[ChatKind] = frozenset({"group"})
BOTH: frozenset[ChatKind] = frozenset({"private", "group"})

PRIVATE_BUTTON = Refusal(N_("This button works only in a private chat with me."), alert=True)
GROUP_BUTTON = Refusal(N_("This button works only in the tournament's group."), alert=True)
CLUB_GROUP = Refusal(N_("Send this in the club's group."))
ONLY_OPERATORS = Refusal(
    N_(
        "A copy of the whole database is for the bot's operators only. "
        "The chief judge's copy of his tournament is /export."
    )
)


@dataclass(frozen=True, slots=True)
class Access:
    who: Who
    chats: frozenset[ChatKind]
    # What a command sent in the wrong kind of chat is answered (buttons: a toast).
    wrong_chat: Refusal | None = None
    # A command: what it does, in the command menus and /help (an English message id),
    # and the kinds of chat whose menu lists it; ``group_about`` where the group's
    # menu says it otherwise.
    about: str = ""
    menus: frozenset[ChatKind] = frozenset()
    group_about: str = ""

    def described(self, kind: ChatKind) -> str:
        return (self.group_about if kind == "group" else "") or self.about


def _private(who: Who, about: str, text: str = "") -> Access:
    wrong = Refusal(text) if text else SEND_IN_PRIVATE
    return Access(who, PRIVATE, wrong, about, PRIVATE)


def _club_play(who: Who, about: str) -> Access:
    """A command of playing an evening: in the club's group, in its menu."""
    return Access(who, GROUP, CLUB_GROUP, about=about, menus=GROUP)


COMMANDS: Mapping[str, Access] = {
    "start": Access("anyone", BOTH, about=N_("Start"), menus=PRIVATE),
    "help": Access("anyone", BOTH, about=N_("Help"), menus=BOTH),
    "cancel": Access("anyone", BOTH, about=N_("Cancel the current action"), menus=PRIVATE),
    "join": Access(
        "anyone", BOTH, about=N_("Join: /join NICKNAME"), menus=GROUP
    ),
    "rating": Access(
        "anyone",
        BOTH,
        about=N_("Standings and my points by game"),
        menus=BOTH,
        group_about=N_("Standings: /rating all for everyone"),
    ),
    "me": Access("anyone", BOTH, about=N_("My career rating"), menus=BOTH),
    "player": Access("anyone", BOTH, about=N_("A player's career: /player NICKNAME")),
    "top": Access("anyone", BOTH, about=N_("Career rating: the leaderboard"), menus=BOTH),
    "protest": Access(
        "anyone", BOTH, about=N_("Protest a game (within 10 minutes)"), menus=BOTH
    ),
    "tournament": Access(
        "anyone",
        BOTH,
        about=N_("Tournament: status, start, finish"),
        menus=BOTH,
        group_about=N_("Tournament"),
    ),
    "staff": Access("anyone", BOTH, about=N_("The tournament's judges"), menus=BOTH),
    "new_tournament": Access(
        "anyone",
        GROUP,
        Refusal(
            N_(
                "Send /new_tournament in the tournament's group: add me to the group, "
                "then send the command there. You become its chief judge."
            )
        ),
        about=N_("Create a tournament in this group"),
        menus=GROUP,
    ),
    "game": _private(
        "staff",
        N_("Enter a game (judge)"),
        N_("Games are entered in a private chat with me: send /game there."),
    ),
    "timezone": Access(
        "chief",
        BOTH,
        about=N_("The tournament's time zone (chief)"),
        menus=BOTH,
        group_about=N_("The tournament's time zone"),
    ),
    "judge": Access(
        "chief",
        GROUP,
        Refusal(
            N_(
                "Send this in the tournament's group. Reply /judge to a message of the "
                "person there, or use /invite_judge for a link."
            )
        ),
        about=N_("Make a judge: reply /judge to his message in the group"),
    ),
    "unjudge": Access(
        "chief",
        GROUP,
        SEND_IN_GROUP,
        about=N_("No longer a judge: reply /unjudge to his message in the group"),
    ),
    "invite_judge": Access(
        "chief", BOTH, about=N_("Invite link for a judge"), menus=PRIVATE
    ),
    "invite_players": Access(
        "chief", BOTH, about=N_("Invite link for players"), menus=PRIVATE
    ),
    "revoke": Access("chief", BOTH, about=N_("Revoke an invite link: /revoke TOKEN")),
    "roster": Access("chief", BOTH, about=N_("Roster (one nickname a line)"), menus=PRIVATE),
    "withdraw": Access(
        "chief", BOTH, about=N_("Withdraw a player: /withdraw NICKNAME"), menus=BOTH
    ),
    "games": _private(
        "chief",
        N_("Games: correct or annul"),
        N_("Send /games in a private chat with me."),
    ),
    "protests": _private(
        "chief",
        N_("Open protests (chief judge)"),
        N_("Send /protests to me in a private chat."),
    ),
    "lot": Access("chief", BOTH, about=N_("Draw lots for ties (chief judge)"), menus=PRIVATE),
    "export": _private(
        "chief",
        N_("Export: JSON, CSV, XLSX"),
        N_("Send /export to me in a private chat: the files are for the chief judge only."),
    ),
    "seating": _private(
        "chief",
        N_("Seating plan (chief judge)"),
        N_(
            "Send /seating to me in a private chat: the chief judge makes the seating "
            "plan there."
        ),
    ),
    "stages": Access("chief", BOTH, about=N_("Stages: semifinal, final (chief)"), menus=PRIVATE),
    "link": Access(
        "chief", BOTH, about=N_("Link a player to his games in other tournaments: /link NICKNAME")
    ),
    "career_name": Access(
        "chief", BOTH, about=N_("A player's name in the career rating: /career_name NICK = NAME")
    ),
    "undo_link": Access("chief", BOTH, about=N_("Take back your last link or career name")),
    "rating_kind": Access(
        "chief", BOTH, about=N_("The tournament's weight in the career rating (chief)")
    ),
    "backup": _private("operator", N_("Database backup (operators)")),
    # A club's evenings (docs/club.md): in the club's group.
    "club": Access(
        "anyone",
        GROUP,
        Refusal(N_("Send /club TITLE in the club's group: you become its owner.")),
        about=N_("The club of this group; /club TITLE makes the group a club"),
        menus=GROUP,
    ),
    "host": Access(
        "club_owner",
        GROUP,
        SEND_IN_GROUP,
        about=N_("Make a host: reply /host to his message, or /host @username"),
    ),
    "unhost": Access(
        "club_owner",
        GROUP,
        SEND_IN_GROUP,
        about=N_("No longer a host: reply /unhost, or /unhost @username"),
    ),
    "club_language": Access(
        "club_owner", GROUP, SEND_IN_GROUP, about=N_("The club's language: /club_language ru|en")
    ),
    "club_timezone": Access(
        "club_owner", GROUP, SEND_IN_GROUP, about=N_("The club's time zone: /club_timezone Moscow")
    ),
    "season_start": Access(
        "club_owner",
        GROUP,
        SEND_IN_GROUP,
        about=N_("The club's season starts: /season_start MM-DD"),
    ),
    "club_reminder": Access(
        "club_owner",
        GROUP,
        SEND_IN_GROUP,
        about=N_("When the evenings' reminders go: /club_reminder 3 (hours) or off"),
    ),
    "club_protests": Access(
        "club_owner", GROUP, SEND_IN_GROUP, about=N_("Protests at evenings: /club_protests on|off")
    ),
    "evening": Access(
        "club_host",
        GROUP,
        SEND_IN_GROUP,
        about=N_("Announce an evening: /evening 12.12 19:30; place; seats; note"),
        menus=GROUP,
    ),
    "guest": Access(
        "club_host",
        GROUP,
        SEND_IN_GROUP,
        about=N_("Sign up a guest: /guest NICK (/guest #ID NICK for evening ID)"),
    ),
    "unsign": Access(
        "club_host",
        GROUP,
        SEND_IN_GROUP,
        about=N_("Take someone off the evening's list: /unsign NICK"),
    ),
    "close_signup": Access(
        "club_host", GROUP, SEND_IN_GROUP, about=N_("Close the evening's sign-up")
    ),
    "cancel_evening": Access(
        "club_host",
        GROUP,
        SEND_IN_GROUP,
        about=N_("Cancel the evening (everyone signed up is told)"),
    ),
    # Playing an evening (docs/club.md#the-evening): its owner and hosts, let through by
    # handlers.club_filters before any use case; /season is anyone's.
    "present": _club_play(
        "club_host", N_("Evening: who came; /present NICK adds a latecomer (host)")
    ),
    "start_evening": _club_play("club_host", N_("Start the club evening (host)")),
    "next_game": _club_play("club_host", N_("Evening: seat the next game (host)")),
    "close_evening": _club_play("club_host", N_("Close the evening: its table (host)")),
    "season": _club_play("anyone", N_("The club's season table")),
}


def menu(kind: ChatKind) -> list[tuple[str, str]]:
    """(command, English message id) of the command menu of a kind of chat."""
    return [
        (command, access.described(kind))
        for command, access in COMMANDS.items()
        if kind in access.menus
    ]


# By CallbackData prefix (the factories live beside the handlers that use them).
CALLBACKS: Mapping[str, Access] = {
    "tk": Access("staff", PRIVATE),  # pick one of one's tournaments for a command
    "xe": Access("chief", PRIVATE),  # export: which tournament
    "xi": Access("anyone", PRIVATE),  # /rating image: which tournament
    "ld": Access("chief", BOTH),  # draw a lot (8.7.5)
    "gs": Access("staff", PRIVATE),  # the judge's card
    "gb": Access("anyone", PRIVATE),  # the first-killed player's own best move (8.3)
    "ga": Access("chief", PRIVATE),  # approve judge's points above 0.5 (D7)
    "gp": Access("chief", PRIVATE),  # a player added at the table: confirm or reject
    "gc": Access("chief", PRIVATE),  # correct or annul a saved game
    "gl": Access("chief", PRIVATE),  # a page of /games
    "gn": Access("staff", PRIVATE),  # "New game" on a saved game's card
    "gm": Access("chief", PRIVATE),  # a saved game's menu
    "tp": Access("chief", BOTH),  # an application: confirm or reject
    "tc": Access("chief", BOTH),  # a roster player claimed: link or not
    "ts": Access("chief", BOTH),  # remove a judge
    "tr": Access("chief", PRIVATE),  # revoke an invite link
    "tl": Access("chief", GROUP),  # the group's language
    "ta": Access("chief", BOTH),  # the /tournament card: start, finish, applications
    "tz": Access("chief", PRIVATE),  # which tournament's time zone
    "pg": Access("anyone", BOTH),  # which game a protest is about
    "pd": Access("chief", PRIVATE),  # uphold or reject a protest (8.8.2)
    "sp": Access("chief", PRIVATE),  # seating: which tournament
    "sn": Access("chief", PRIVATE),  # seating: start a plan
    "st": Access("chief", PRIVATE),  # seating: how many tables
    "so": Access("chief", PRIVATE),  # seating: the offer (accept, regenerate)
    "sg": Access("chief", BOTH),  # /stages: add a preset stage (D13)
    "sc": Access("chief", BOTH),  # /stages close: close the current stage (D13)
    "se": Access("chief", BOTH),  # a stage's settings card: a setting, a value (D13)
    "sv": Access("chief", BOTH),  # back to the /stages card
    "cp": Access("anyone", BOTH),  # /player: which of several persons of a name
    "cl": Access("chief", BOTH),  # /link: the person a player of his tournament is
    "cu": Access("chief", BOTH),  # take back a link, merge or career name
    "ck": Access("chief", BOTH),  # /rating_kind: the tournament's weight in the rating
    "ev": Access("anyone", GROUP),  # an evening's "I'm in" / "Can't come"
    "vp": Access("club_host", GROUP),  # /present: a host marks a name (evening_play)
    "vn": Access("club_host", GROUP),  # /next_game: post the suggested game, or another
}


def chat_kind(chat_type: str) -> ChatKind | None:
    if chat_type == "private":
        return "private"
    return "group" if chat_type in GROUP_TYPES else None


def command_of(text: str, bot_username: str | None) -> str | None:
    """The command a message's text gives this bot (None: not a command, or another
    bot's ``/cmd@other``)."""
    words = text.split(maxsplit=1)
    if not words or not words[0].startswith("/"):
        return None
    name, _at, mention = words[0][1:].partition("@")
    if mention and (bot_username is None or mention.lower() != bot_username.lower()):
        return None
    return name.lower() or None


def is_operator(settings: Settings | None, user_id: int) -> bool:
    return settings is not None and user_id in settings.operator_ids


class AccessMiddleware(BaseMiddleware):
    """Outer middleware on messages and callback queries (after the identity check)."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if isinstance(event, CallbackQuery):
            refusal = await self._callback(event, data)
            if refusal is not None:
                await event.answer(say(refusal), show_alert=refusal.alert or None)
                return None
        elif isinstance(event, Message):
            refusal = await self._command(event, data)
            if refusal is not None:
                if event.chat.type == "private":
                    await event.answer(say(refusal))
                else:
                    await event.reply(say(refusal))
                return None
        return await handler(event, data)

    async def _callback(self, event: CallbackQuery, data: dict[str, Any]) -> Refusal | None:
        access = CALLBACKS.get((event.data or "").split(":", 1)[0])
        if access is None:
            return OUT_OF_DATE
        message = event.message
        kind = None if message is None else chat_kind(message.chat.type)
        if kind not in access.chats:
            return PRIVATE_BUTTON if "private" in access.chats else GROUP_BUTTON
        return None

    async def _command(self, event: Message, data: dict[str, Any]) -> Refusal | None:
        bot: Bot | None = data.get("bot")
        me = None if bot is None else await bot.me()
        name = command_of(event.text or event.caption or "", None if me is None else me.username)
        access = None if name is None else COMMANDS.get(name)
        if access is None:
            return None
        kind = chat_kind(event.chat.type)
        if kind not in access.chats:
            return access.wrong_chat or (
                SEND_IN_PRIVATE if "private" in access.chats else SEND_IN_GROUP
            )
        sender = 0 if event.from_user is None else event.from_user.id
        if access.who == "operator" and not is_operator(data.get("settings"), sender):
            return ONLY_OPERATORS
        return None
