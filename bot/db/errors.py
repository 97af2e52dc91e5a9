"""Errors the storage layer raises; handlers catch these to answer the user."""

from __future__ import annotations

from datetime import datetime
from typing import Any


class DbError(Exception):
    """Base of every storage error, so a handler can catch them all at once."""


class DatabaseTooNew(DbError):
    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"database version {found} is newer than this bot ({known}); upgrade the bot"
        )
        self.found = found
        self.known = known


class NotFound(DbError):
    def __init__(self, entity: str, key: object) -> None:
        super().__init__(f"{entity} {key!r} not found")
        self.entity = entity
        self.key = key


class ChatBusy(DbError):
    """The group already has an unfinished tournament (one running tournament per chat)."""

    def __init__(self, chat_id: int, tournament_id: int) -> None:
        super().__init__(f"chat {chat_id} already has unfinished tournament {tournament_id}")
        self.chat_id = chat_id
        self.tournament_id = tournament_id


class InvalidTransition(DbError):
    def __init__(self, current: str, wanted: str) -> None:
        super().__init__(f"tournament status cannot change from {current} to {wanted}")
        self.current = current
        self.wanted = wanted


class LastChief(DbError):
    def __init__(self, tournament_id: int) -> None:
        super().__init__(f"tournament {tournament_id} would be left without a chief judge")
        self.tournament_id = tournament_id


class InviteInvalid(DbError):
    def __init__(self, token: str, reason: str) -> None:
        # reason: "unknown" | "used" | "revoked"
        super().__init__(f"invite is {reason}")
        self.token = token
        self.reason = reason


class InvalidNickname(DbError):
    pass


class NicknameTaken(DbError):
    def __init__(self, nickname: str, player_id: int) -> None:
        super().__init__(f"nickname {nickname!r} is already taken in this tournament")
        self.nickname = nickname
        self.player_id = player_id


class UserAlreadyPlayer(DbError):
    def __init__(self, user_id: int, player_id: int) -> None:
        super().__init__(f"user {user_id} already is player {player_id} in this tournament")
        self.user_id = user_id
        self.player_id = player_id


class PlayerHasGames(DbError):
    def __init__(self, player_id: int) -> None:
        super().__init__(f"player {player_id} has played games; annul them first")
        self.player_id = player_id


class InvalidDraft(DbError):
    """A game draft that cannot be stored (structure, unknown or unconfirmed players)."""


class NotEntrants(InvalidDraft):
    """Players seated at a game of a stage they are not entrants of (D13)."""

    def __init__(self, names: list[str], stage: str) -> None:
        super().__init__(f"{', '.join(names)}: not among the entrants of the {stage} stage")
        self.names = names
        self.stage = stage


class DuplicateTable(DbError):
    def __init__(self, round_no: int, table_no: int, game_id: int) -> None:
        super().__init__(f"round {round_no}, table {table_no} already has game {game_id}")
        self.round = round_no
        self.table_no = table_no
        self.game_id = game_id


class GameAnnulled(DbError):
    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} is annulled")
        self.game_id = game_id


class AlreadyDecided(DbError):
    """An approval or protest was decided before (e.g. a second tap on the button)."""

    def __init__(self, what: str, row: Any) -> None:
        super().__init__(f"{what} is already decided")
        self.row = row


class NotSeated(DbError):
    def __init__(self, game_id: int, player_id: int) -> None:
        super().__init__(f"player {player_id} did not play game {game_id}")
        self.game_id = game_id
        self.player_id = player_id


class ProtestTooLate(DbError):
    """8.8.1 / D11: filed after the 10-minute window; nothing is stored."""

    def __init__(self, deadline: datetime, filed_at: datetime) -> None:
        super().__init__(
            f"the protest window closed at {deadline:%H:%M:%S} UTC; filed at {filed_at:%H:%M:%S}"
        )
        self.deadline = deadline
        self.filed_at = filed_at


class InvalidLot(DbError):
    pass
