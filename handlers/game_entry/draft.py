"""The game being entered, as kept in the judge's FSM data (plain JSON, survives restarts).

``Draft`` holds the protocol as far as it is filled plus the card's own UI state (which
seat is selected, the seating filter...). It converts to ``bot.db.games.GameDraft``
(what the database stores) and to a ``scoring.Game`` (what the rules check).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from bot.services.game_save import SaveRequest
from bot.services.records import GameDraft, GameRecord, InvalidDraft, SeatDraft, game_from_draft
from scoring import SEAT_NUMBERS, SEATS, Game, Problem, Result, Role, validate_game
from scoring.judging import best_move_allowed
from scoring.protocol import Protocol, facts

DATA_KEY = "game_draft"

# ``Draft.sel`` when no seat is selected (the penalties and judge's points steps open so).
NO_SEAT = 0


def new_token() -> str:
    return secrets.token_hex(3)


def new_draft_id() -> str:
    return "g-" + secrets.token_hex(12)


@dataclass
class Draft:
    token: str
    draft_id: str
    judge_id: int
    locale: str
    tid: int = 0
    mode: str = "new"  # "new" | "correct"
    game_id: int | None = None
    card_chat: int = 0
    card_id: int = 0
    step: str = "rt"
    choices: list[int] = field(default_factory=list)  # tournaments to pick from
    # The protocol.
    round: int | None = None
    table: int | None = None
    players: list[int | None] = field(default_factory=lambda: [None] * SEATS)
    # The accepted seating plan's players of this table in seat order, when the seating
    # was filled from it (empty: it was not); ``players`` may differ by substitutes.
    planned: list[int] = field(default_factory=list)
    sheriff: int | None = None
    don: int | None = None
    mafia: list[int] = field(default_factory=list)
    day1: int | None = None
    night: int | None = None  # the seat shot on night 1; 0 = a miss; None = not entered
    bm: list[int] = field(default_factory=list)
    bm_done: bool = False  # "Accepted" (8.3.1)
    bm_hint: bool = False  # 8.3.5
    bm_by: str | None = None  # "player" (his own taps) | "judge"
    bm_user: int | None = None  # the first-killed player's account, when asked
    bm_msg: list[int] | None = None  # [chat_id, message_id] of the request sent to him
    bm_locale: str = "ru"  # his language, for editing that request
    result: str | None = None
    dq: list[int] = field(default_factory=list)
    penalties: dict[str, list[str]] = field(default_factory=dict)
    extras: dict[str, int] = field(default_factory=dict)  # seat -> hundredths
    # seat -> [player_id, hundredths] the chief judge approved (a correction keeps them)
    approved: dict[str, list[int]] = field(default_factory=dict)
    # The card's own state.
    sel: int = 1  # the selected seat (seating, penalties, extras); NO_SEAT: none
    page: int = 0
    query: str = ""
    added: list[int] = field(default_factory=list)  # players added to the roster here
    note: list[Any] | None = None  # [msgid, params]: shown once on the next card
    # The callback query of the last tap applied: Telegram may deliver it again after
    # a restart, and a tap (a role toggle) must not be applied twice.
    tap: str = ""
    # Whether a live draft may exist for this card (its button was shown). A new card
    # starts with False and nothing the live protocol saved can close it, so no tap
    # reads the live drafts; a draft stored without this field reads True (asked).
    live: bool = True

    # -- JSON ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The fields as they are, for the FSM storage to encode at once (a shallow
        dict: ``asdict``'s deep copy costs more than the rest of a tap)."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Draft:
        return cls(**{k: v for k, v in data.items() if k in _FIELDS})

    def copy(self) -> Draft:
        """A deep copy, to try a change without touching this draft."""
        return Draft(**{name: _copied(getattr(self, name)) for name in _FIELDS})

    # -- the protocol ----------------------------------------------------------------

    def role(self, seat: int) -> Role | None:
        """The seat's role once the sheriff, the don and both mafia are tapped."""
        if seat == self.sheriff:
            return Role.SHERIFF
        if seat == self.don:
            return Role.DON
        if seat in self.mafia:
            return Role.MAFIA
        return Role.CIVILIAN if self.roles_done else None

    @property
    def roles_done(self) -> bool:
        return self.sheriff is not None and self.don is not None and len(self.mafia) == 2

    @property
    def seats_done(self) -> bool:
        return all(p is not None for p in self.players)

    @property
    def first_killed(self) -> int | None:
        return self.night if self.night else None

    @property
    def best_move_allowed(self) -> bool:
        """8.3: a first-killed player, and fewer than 2 left by the day-1 vote (8.3.6)."""
        return best_move_allowed(self.first_killed, self.day1)

    @property
    def result_value(self) -> Result | None:
        return Result(self.result) if self.result else None

    def seat_of(self, player_id: int) -> int | None:
        for n, p in enumerate(self.players, start=1):
            if p == player_id:
                return n
        return None

    def clear_best_move(self) -> None:
        self.bm = []
        self.bm_done = False
        self.bm_hint = False
        self.bm_by = None
        self.bm_user = None
        self.bm_msg = None

    def set_note(self, msgid: str, **params: Any) -> None:
        """A one-line note (an English message id and its parameters) shown once, on the
        next card."""
        self.note = [msgid, params]


_FIELDS = tuple(f.name for f in fields(Draft))


def _copied(value: Any) -> Any:
    """A deep copy of a field: the draft is JSON data (its FSM storage's), so lists and
    dicts are all there is to copy (``copy.deepcopy`` costs several times as much)."""
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    return value


# -- the protocol ---------------------------------------------------------------------------
# The card's steps build the protocol's commands (``scoring.protocol``) and apply them to
# the draft's protocol; the draft keeps the protocol's facts in its own fields (the FSM
# storage's format, which drafts saved before an upgrade still have).


def protocol_of(d: Draft) -> Protocol:
    """The draft's protocol as far as it is filled (roles only once all are tapped)."""
    roles: tuple[Role | None, ...] = (
        tuple(d.role(n) for n in SEAT_NUMBERS) if d.roles_done else (None,) * SEATS
    )
    return Protocol(
        roles=roles,
        result=d.result_value,
        day1=d.day1,
        night1=d.night,
        best_move=tuple(d.bm),
        best_move_end=d.bm_done,
        best_move_hint=d.bm_hint,
        disqualified=tuple(sorted(d.dq)),
        penalties=tuple(sorted((int(seat), tuple(rules)) for seat, rules in d.penalties.items()
                               if rules)),
        extras=tuple(sorted((int(seat), value) for seat, value in d.extras.items())),
    )


def absorb(d: Draft, p: Protocol) -> None:
    """The protocol's facts into the draft's fields (the roles stay as tapped)."""
    f = facts(p)
    d.day1 = p.day1
    d.night = p.night1
    d.bm = list(p.best_move)
    d.bm_done = f.best_move_final
    d.bm_hint = p.best_move_hint
    d.result = p.result.value if p.result is not None else None
    d.dq = list(p.disqualified)
    d.penalties = {str(seat): list(rules) for seat, rules in p.penalties}
    d.extras = {str(seat): value for seat, value in p.extras}


def draft_from_record(
    game: GameRecord, *, judge_id: int, locale: str, card_chat: int, card_id: int
) -> Draft:
    """A saved game loaded for the chief judge's correction."""
    d = Draft(
        token=new_token(),
        draft_id=game.draft_id,
        judge_id=judge_id,
        locale=locale,
        tid=game.tournament_id,
        mode="correct",
        game_id=game.id,
        card_chat=card_chat,
        card_id=card_id,
        step="rv",
        round=game.round,
        table=game.table_no,
        players=[s.player_id for s in game.seats],
        day1=game.day1_voted_out,
        night=game.first_killed or 0,
        bm=list(game.best_move),
        bm_done=True,
        bm_hint=game.best_move_hint,
        bm_by="judge",
        result=game.result.value,
    )
    _seats_from_record(d, game)
    return d


def _seats_from_record(d: Draft, game: GameRecord) -> None:
    """Roles, disqualifications, penalties and judge's points (with their approvals)."""
    for s in game.seats:
        if s.role is Role.SHERIFF:
            d.sheriff = s.seat
        elif s.role is Role.DON:
            d.don = s.seat
        elif s.role is Role.MAFIA:
            d.mafia.append(s.seat)
        if s.disqualified:
            d.dq.append(s.seat)
        if s.penalties:
            d.penalties[str(s.seat)] = list(s.penalties)
        if s.judge_extra:
            d.extras[str(s.seat)] = s.judge_extra
            if s.chief_approved:
                d.approved[str(s.seat)] = [s.player_id, s.judge_extra]


def approved_seats(d: Draft) -> set[int]:
    """Seats whose approval still holds: same player, same points (as ``update_game``)."""
    return {
        int(seat)
        for seat, (player, value) in d.approved.items()
        if d.players[int(seat) - 1] == player and d.extras.get(seat) == value
    }


def to_game_draft(d: Draft, *, result: Result | None = None) -> GameDraft:
    """The stored form; raises InvalidDraft while seats or roles are missing."""
    if not d.seats_done or not d.roles_done:
        raise InvalidDraft("seats and roles are not complete")
    if d.round is None or d.table is None:
        raise InvalidDraft("round and table are not set")
    chosen = result or d.result_value
    if chosen is None:
        raise InvalidDraft("the result is not set")
    seats = []
    for n in SEAT_NUMBERS:
        player = d.players[n - 1]
        role = d.role(n)
        assert player is not None and role is not None
        seats.append(
            SeatDraft(
                player_id=player,
                role=role,
                disqualified=n in d.dq,
                judge_extra=d.extras.get(str(n), 0),
                penalties=tuple(d.penalties.get(str(n), ())),
            )
        )
    return GameDraft(
        draft_id=d.draft_id,
        round=d.round,
        table_no=d.table,
        result=chosen,
        seats=tuple(seats),
        day1_voted_out=d.day1 or 0,
        first_killed=d.first_killed,
        best_move=tuple(d.bm),
        best_move_hint=d.bm_hint,
    )


def save_request(d: Draft, *, actor: int, complete: bool, current: bool) -> SaveRequest:
    """The card's Save for the use case: its game while ``complete`` (every step done),
    ``current`` when tapped on the card's own keyboard."""
    try:
        draft = to_game_draft(d) if complete else None
    except InvalidDraft:  # the steps are done, so this does not happen: not saved
        draft = None
    return SaveRequest(
        tournament_id=d.tid,
        draft=draft,
        actor=actor,
        correcting=d.game_id if d.mode == "correct" else None,
        approved=frozenset(approved_seats(d)),
        current=current,
        draft_id=d.draft_id if d.mode == "new" and d.seats_done else "",
    )


def scoring_game(d: Draft, names: Mapping[int, str]) -> Game | None:
    """The draft as the engine's game, as far as it is filled (None before roles)."""
    if not d.seats_done or not d.roles_done:
        return None
    # Before the result is entered nothing that depends on it exists yet, so any
    # result stands in for it; its problems are not reported (see ``problems``).
    placeholder = d.result_value or Result.RED
    try:
        draft = to_game_draft(d, result=placeholder)
    except InvalidDraft:
        return None
    return game_from_draft(draft, names, chief_approved=approved_seats(d))


def problems(d: Draft, names: Mapping[int, str]) -> list[Problem]:
    """The scoring engine's rule checks on the draft as far as it is filled."""
    game = scoring_game(d, names)
    if game is None:
        return []
    found = validate_game(game)
    if d.result is None:
        found = [p for p in found if p.rule != "result"]
    return found
