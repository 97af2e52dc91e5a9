"""The game's protocol: one immutable value that the judge's card and the Mini App both
drive with plain-JSON commands, and that refuses whatever the rules do not allow.

``apply(protocol, command)`` returns the next protocol or a ``Refusal`` naming the rule
(docs/rules.md ids, or ``"game"`` for the game's own flow: who is alive, day and night, a 4th
foul). Two ways of filling it meet here:

* live commands (the Mini App, as the game goes): ``roles``, ``foul``, ``nominate``,
  ``vote``, ``vote_out``, ``shoot``, ``don_check``, ``sheriff_check``, ``end_night``;
  the day-1 vote-outs and the first-killed seat are derived from them;
* outcome commands (the card and the Mini App): ``day1`` and ``night1`` (the card's
  summary when nothing was recorded live), ``best_move`` / ``best_move_end`` /
  ``best_move_hint`` (8.3), ``result``, ``disqualify`` / ``undisqualify`` (8.2.4),
  ``penalty`` / ``unpenalty`` (8.5), ``extra`` (8.4), ``undo``.

The knock-ons live here and nowhere else: a draw clears judge's points (8.4.7); a day-1
vote of 2 or more voids the best move (8.3.6) and another first-killed seat clears it;
changed roles or result drop the penalties (8.5, D8) and judge's points (8.4.3, 8.4.4)
they no longer allow. ``apply_noting`` says which happened, as ``Note``s.

The rules themselves are ``scoring.judging``'s (``penalty_allowed``, ``judge_cap``,
``best_move_allowed``) and ``validate_game``'s: a command whose protocol would break a
rule the game did not break before is refused with that rule's own words, so a
complete protocol always passes ``validate_game`` (``to_game``).

``view`` is the protocol as the Mini App shows it, with ``allowed``: what the protocol
would accept now (the penalties and judge's points each seat may get, the seats each
live command may name, the best move's, the results...), each found by trying its
command here, so that the page offers what the rules allow and has no copy of them.

Texts are English templates marked with ``N_()`` as everywhere in the engine: the
protocol's own are sentences; those taken from ``validate_game`` are its problems'
clauses (lower case), which a reader shows after the rule id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from operator import attrgetter
from types import MappingProxyType

from .judging import (
    BEST_MOVE_NUMBERS_MAX,
    EXTRA_STEP,
    JUDGE_SUM_MAX,
    best_move_allowed,
    format_points,
    judge_cap,
    judge_points_allowed,
    penalty_allowed,
)
from .model import Game, Seat
from .problems import N_, Problem
from .ruleset import PENALTIES, PENALTY_RULES
from .table import SEAT_NUMBERS, SEATS, Result, Role
from .typing_shim import cast
from .validate import DAY1_VOTED_OUT_MAX, validate_game

__all__ = [
    "LIVE_KINDS",
    "Event",
    "Facts",
    "Note",
    "Protocol",
    "Refusal",
    "allowed",
    "apply",
    "apply_noting",
    "complete",
    "facts",
    "from_json",
    "replay",
    "to_game",
    "to_json",
    "view",
]

_EMPTY: Mapping[str, object] = MappingProxyType({})
FOULS_OUT = 4  # the 4th foul removes the player


@dataclass(frozen=True, slots=True)
class _Said:
    """A sentence citing a rule: an English template (``N_``), filled with ``params``."""

    rule: str  # the rule id it cites ("8.3.3", "8.4.7", ...) or "game"
    text: str
    params: Mapping[str, object] = field(default_factory=lambda: _EMPTY)

    @property
    def message(self) -> str:
        """The English sentence."""
        return self.text.format(**self.params)


@dataclass(frozen=True, slots=True)
class Refusal(_Said):
    """A command refused: nothing changed."""


@dataclass(frozen=True, slots=True)
class Note(_Said):
    """A knock-on of an accepted command: something it cleared, and why."""


@dataclass(frozen=True, slots=True)
class Event:
    """One live event. ``kind`` is its command's type; the fields it uses are set."""

    kind: str
    seat: int | None = None
    by: int | None = None
    seats: tuple[int, ...] = ()
    votes: tuple[tuple[int, int], ...] = ()  # (seat, votes), in the order given


LIVE_KINDS = frozenset(
    {"foul", "nominate", "vote", "vote_out", "shoot", "don_check", "sheriff_check",
     "end_night", "disqualify"}
)
_NIGHT_KINDS = frozenset({"shoot", "don_check", "sheriff_check", "end_night"})


@dataclass(slots=True)
class _Worked:
    """What a protocol value's readers and commands work out of it, kept with it: the
    value never changes, so neither do these. ``apply`` and ``allowed`` try many
    commands on one protocol; each would fold its events and validate it again."""

    state: _Live | None = None  # its live events folded (read, never changed)
    problems: tuple[Problem, ...] | None = None  # validate_game's (``_problems``)


@dataclass(frozen=True, slots=True)
class Protocol:
    """One game's protocol, immutable: every command returns a new one."""

    roles: tuple[Role | None, ...] = (None,) * SEATS  # seat n at [n - 1]
    events: tuple[Event, ...] = ()
    result: Result | None = None
    day1: int | None = None  # the card's summary of day-1 vote-outs
    night1: int | None = None  # the card's summary of night 1: a seat, 0 a miss
    best_move: tuple[int, ...] = ()
    best_move_end: bool = False  # broken off or finished (8.3.2)
    best_move_hint: bool = False  # 8.3.5
    best_move_at: int = 0  # len(events) when the last number was named (undo stops there)
    disqualified: tuple[int, ...] = ()  # sorted
    penalties: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (seat, rules), by seat
    extras: tuple[tuple[int, int], ...] = ()  # (seat, hundredths), by seat
    _worked: _Worked = field(default_factory=_Worked, init=False, repr=False, compare=False)

    @classmethod
    def new(cls) -> Protocol:
        """Nobody has a role; day 1, speeches."""
        return cls()

    @property
    def roles_set(self) -> bool:
        return all(role is not None for role in self.roles)

    @property
    def live(self) -> bool:
        """Whether the game is recorded live (its day 1 and night 1 come from events)."""
        return any(event.kind != "disqualify" for event in self.events)


@dataclass(frozen=True, slots=True)
class Facts:
    """What scoring needs: derived from the live events, else from the summary."""

    result: Result | None
    first_killed: int | None
    day1_voted_out: int | None  # None: not known yet
    night1_known: bool
    best_move: tuple[int, ...]
    best_move_final: bool
    best_move_hint: bool
    disqualified: tuple[int, ...]
    penalties: Mapping[int, tuple[str, ...]]
    extras: Mapping[int, int]


# -- the live game ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Live:
    """The game as its live events leave it (built by folding them)."""

    night: bool = False
    number: int = 1
    voting: bool = False
    out: dict[int, str] = field(default_factory=dict)  # seat -> voted|shot|fouls|disqualified
    fouls: dict[int, int] = field(default_factory=dict)
    nominations: dict[int, int] = field(default_factory=dict)  # today's: seat -> by, in order
    votes: tuple[tuple[int, int], ...] = ()
    shot: int | None = None
    shot_done: bool = False
    don_check: int | None = None
    sheriff_check: int | None = None
    day1_out: tuple[int, ...] | None = None
    night1_shot: int | None = None
    night1_done: bool = False
    over: Result | None = None
    # What ended the game: (how the last seat left, "day" or "night", its number, the
    # seat), set with ``over`` (the public view says "after the day-3 vote").
    ended: tuple[str, str, int, int] | None = None

    def alive(self, seat: int) -> bool:
        return seat not in self.out

    def copy(self) -> _Live:
        """A copy to step on (``_step`` changes the state it is given)."""
        twin = _Live(*_LIVE_FIELDS(self))
        twin.out, twin.fouls = dict(self.out), dict(self.fouls)
        twin.nominations = dict(self.nominations)
        return twin

    def alive_count(self) -> int:
        return SEATS - len(self.out)


_LIVE_FIELDS = attrgetter(*(f.name for f in fields(_Live)))  # in the order __init__ takes


def _over(roles: tuple[Role | None, ...], state: _Live) -> Result | None:
    """Red win when no black is alive; black win when black alive ≥ red alive."""
    known = [role for role in roles if role is not None]
    if len(known) != SEATS:
        return None
    red = sum(1 for n in SEAT_NUMBERS if state.alive(n) and known[n - 1].is_red)
    black = state.alive_count() - red
    if black == 0:
        return Result.RED
    if black >= red:
        return Result.BLACK
    return None


_OVER = {
    Result.RED: N_("The game is over: the red team won."),
    Result.BLACK: N_("The game is over: the black team won."),
}


def _over_refusal(team: Result) -> Refusal:
    return Refusal("game", _OVER[team], {"team": team.value})
_NOT_ALIVE = N_("Seat {seat} is out of the game.")


def _remove(roles: tuple[Role | None, ...], state: _Live, seat: int, how: str) -> None:
    state.out[seat] = how
    state.over = _over(roles, state)
    if state.over is None:
        state.ended = None
    elif state.ended is None:
        state.ended = (how, "night" if state.night else "day", state.number, seat)


def _step(roles: tuple[Role | None, ...], state: _Live, event: Event) -> Refusal | None:
    """Apply one live event to ``state``, or say why it can't be (``state`` is then
    partly changed: callers fold copies)."""
    kind = event.kind
    if state.over is not None:
        return _over_refusal(state.over)
    seat = event.seat
    if kind == "disqualify":
        assert seat is not None
        if state.alive(seat):
            _remove(roles, state, seat, "disqualified")
        return None
    if kind == "foul":
        assert seat is not None
        if not state.alive(seat):
            return Refusal("game", _NOT_ALIVE, {"seat": seat})
        state.fouls[seat] = state.fouls.get(seat, 0) + 1
        if state.fouls[seat] >= FOULS_OUT:
            _remove(roles, state, seat, "fouls")
        return None
    if kind in _NIGHT_KINDS:
        return _night_step(roles, state, event)
    return _day_step(roles, state, event)


def _day_step(roles: tuple[Role | None, ...], state: _Live, event: Event) -> Refusal | None:
    kind = event.kind
    if state.night:
        return Refusal("game", N_("It is night {number}: this is for the day."),
                       {"number": state.number})
    if kind == "nominate":
        target, by = event.seat, event.by
        assert target is not None and by is not None
        for seat in (target, by):
            if not state.alive(seat):
                return Refusal("game", _NOT_ALIVE, {"seat": seat})
        if state.voting:
            return Refusal("game", N_("The voting has begun: no more nominations today."))
        if target in state.nominations:
            return Refusal("game", N_("Seat {seat} is nominated already today."),
                           {"seat": target})
        if by in state.nominations.values():
            return Refusal("game", N_("Seat {seat} has nominated already today."),
                           {"seat": by})
        state.nominations[target] = by
        return None
    if kind == "vote":
        for seat, _count in event.votes:
            refusal = _nominated_alive(state, seat)
            if refusal is not None:
                return refusal
        total = sum(count for _seat, count in event.votes)
        if total > state.alive_count():
            return Refusal("game", N_("{total} votes, but only {alive} players are alive."),
                           {"total": total, "alive": state.alive_count()})
        state.voting = True
        state.votes = event.votes
        return None
    # vote_out: the day ends
    for seat in event.seats:
        refusal = _nominated_alive(state, seat)
        if refusal is not None:
            return refusal
    if state.number == 1:
        state.day1_out = event.seats
    for seat in event.seats:
        _remove(roles, state, seat, "voted")
    if state.over is None and not all(role is not None for role in roles):
        return Refusal("game", N_("Set the roles before the night."))
    state.night, state.voting = True, False
    state.nominations, state.votes = {}, ()
    state.shot, state.shot_done, state.don_check, state.sheriff_check = None, False, None, None
    return None


def _nominated_alive(state: _Live, seat: int) -> Refusal | None:
    if not state.alive(seat):
        return Refusal("game", _NOT_ALIVE, {"seat": seat})
    if seat not in state.nominations:
        return Refusal("game", N_("Seat {seat} is not nominated."), {"seat": seat})
    return None


def _night_step(roles: tuple[Role | None, ...], state: _Live, event: Event) -> Refusal | None:
    kind, seat = event.kind, event.seat
    if not state.night:
        return Refusal("game", N_("It is day {number}: this is for the night."),
                       {"number": state.number})
    if seat is not None and not state.alive(seat):
        return Refusal("game", _NOT_ALIVE, {"seat": seat})
    if kind == "shoot":
        if state.shot_done:
            return Refusal("game", N_("The shot of night {number} is recorded already."),
                           {"number": state.number})
        state.shot, state.shot_done = seat, True
        return None
    if kind == "end_night":
        if not state.shot_done:
            return Refusal("game", N_("Record the night's shot (or a miss) first."))
        if state.number == 1:
            state.night1_shot, state.night1_done = state.shot, True
        if state.shot is not None:
            _remove(roles, state, state.shot, "shot")
        state.night, state.number = False, state.number + 1
        return None
    checker = Role.DON if kind == "don_check" else Role.SHERIFF
    who = roles.index(checker) + 1
    don = checker is Role.DON
    if not state.alive(who):
        text = N_("The don is out of the game: no check.") if don else N_(
            "The sheriff is out of the game: no check.")
        return Refusal("game", text, {"seat": who})
    if (state.don_check if don else state.sheriff_check) is not None:
        text = N_("The don's check of night {number} is recorded already.") if don else N_(
            "The sheriff's check of night {number} is recorded already.")
        return Refusal("game", text, {"number": state.number})
    if checker is Role.DON:
        state.don_check = seat
    else:
        state.sheriff_check = seat
    return None


def _fold(p: Protocol, events: Sequence[Event]) -> _Live | Refusal:
    """The live state after ``events``, or the first event's refusal. (A seat
    disqualified without an event, after the game or on the card, plays on in it.)"""
    state = _Live()
    for event in events:
        refusal = _step(p.roles, state, event)
        if refusal is not None:
            return refusal
    return state


def _live(p: Protocol) -> _Live:
    """The live state of ``p``'s events (worked out once per value; read it, never
    change it: ``copy`` it to step on)."""
    state = p._worked.state
    if state is None:
        folded = _fold(p, p.events)
        assert isinstance(folded, _Live), folded  # a protocol's own events always fold
        state = p._worked.state = folded
    return state


# -- reading it ------------------------------------------------------------------------------


def facts(p: Protocol) -> Facts:
    """What scoring needs (see ``Facts``)."""
    if p.live:
        state = _live(p)
        day1 = len(state.day1_out) if state.day1_out is not None else None
        first, night1_known = state.night1_shot, state.night1_done
    else:
        day1 = p.day1
        first, night1_known = (p.night1 or None), p.night1 is not None
    return Facts(
        result=p.result,
        first_killed=first,
        day1_voted_out=day1,
        night1_known=night1_known,
        best_move=p.best_move,
        best_move_final=p.best_move_end or len(p.best_move) >= BEST_MOVE_NUMBERS_MAX,
        best_move_hint=p.best_move_hint,
        disqualified=p.disqualified,
        penalties=dict(p.penalties),
        extras=dict(p.extras),
    )


def complete(p: Protocol) -> bool:
    """Roles and the result are set: ``to_game`` can build the game."""
    return p.roles_set and p.result is not None


def to_game(p: Protocol, game_id: str, players: Sequence[str], *,
            result: Result | None = None) -> Game:
    """The engine's game (for ``validate_game`` and points); ``result`` stands in for a
    result not set yet. Raises ValueError while roles or the result are missing."""
    chosen = p.result if result is None else result
    if not p.roles_set or chosen is None:
        raise ValueError("the protocol has no roles or no result yet")
    if len(players) != SEATS:
        raise ValueError(f"a game has {SEATS} players, got {len(players)}")
    f = facts(p)
    return Game(
        id=game_id,
        result=chosen,
        seats=tuple(Seat(player, cast(Role, role))
                    for player, role in zip(players, p.roles, strict=True)),
        day1_voted_out=f.day1_voted_out or 0,
        first_killed=f.first_killed,
        best_move=p.best_move,
        best_move_hint=p.best_move_hint,
        disqualified=p.disqualified,
        judge_extras={seat: Fraction(value, 100) for seat, value in p.extras},
        penalties=dict(p.penalties),
    )


def of_game(game: Game) -> Protocol | Refusal:
    """The protocol of a whole ``game`` entered by its outcome commands, as the card
    enters it, or the first rule they break: a game is stored only if its protocol
    accepts it, however it was entered (the card, the live page)."""
    seats = {role: [n for n in SEAT_NUMBERS if game.seat(n).role is role] for role in Role}
    commands: list[dict[str, object]] = [
        {"type": "roles", "sheriff": seats[Role.SHERIFF][0], "don": seats[Role.DON][0],
         "mafia": seats[Role.MAFIA]},
        {"type": "day1", "count": game.day1_voted_out},
        {"type": "night1", "seat": game.first_killed},
    ]
    commands += [{"type": "best_move", "seat": seat} for seat in game.best_move]
    if game.best_move and len(game.best_move) < BEST_MOVE_NUMBERS_MAX:
        commands.append({"type": "best_move_end"})  # a stored best move is accepted
    if game.best_move_hint:
        commands.append({"type": "best_move_hint"})
    commands.append({"type": "result", "result": game.result.value})
    for n in SEAT_NUMBERS:
        if n in game.disqualified:
            commands.append({"type": "disqualify", "seat": n})
        commands += [{"type": "penalty", "seat": n, "rule": rule}
                     for rule in game.penalties.get(n, ())]
        if game.judge_extras.get(n):
            commands.append({"type": "extra", "seat": n,
                             "hundredths": int(game.judge_extras[n] * 100)})
    return replay(commands)


_NAMES = tuple(f"seat {n}" for n in SEAT_NUMBERS)


def _problems(p: Protocol) -> tuple[Problem, ...]:
    """``validate_game``'s problems of the protocol (none while roles or result are not
    set: nothing that depends on them can be entered before)."""
    if p._worked.problems is None:
        found = validate_game(to_game(p, "protocol", _NAMES)) if complete(p) else []
        p._worked.problems = tuple(found)
    return p._worked.problems


def view(p: Protocol, *, actions: bool = True) -> dict[str, object]:
    """The protocol as the page shows it (JSON-ready): the game as it stands and, under
    ``"allowed"``, what the protocol would accept now (``allowed``), which is all the
    page offers; ``actions=False`` leaves that out (the public view's reading)."""
    state = _live(p)
    f = facts(p)
    if state.night:
        step = "checks" if state.shot_done else "shot"
    else:
        step = "voting" if state.voting else "speeches"
    seats = [
        {
            "seat": n,
            "role": role.value if role is not None else None,
            "alive": state.alive(n) and n not in p.disqualified,
            "fouls": state.fouls.get(n, 0),
            "nominated": n in state.nominations,
            "out": state.out.get(n, "disqualified" if n in p.disqualified else None),
        }
        for n, role in zip(SEAT_NUMBERS, p.roles, strict=True)
    ]
    shown: dict[str, object] = {
        "phase": {"kind": "night" if state.night else "day", "number": state.number,
                  "step": step},
        "seats": seats,
        "nominations": [[seat, by] for seat, by in state.nominations.items()],
        "votes": {str(seat): count for seat, count in state.votes},
        "shot": state.shot if state.night else None,
        "checks": _checks(p, state),
        "best_move": {
            "allowed": best_move_allowed(f.first_killed, f.day1_voted_out),
            "first_killed": f.first_killed,
            "seats": list(p.best_move),
            "final": f.best_move_final,
            "hint": p.best_move_hint,
        },
        "day1": f.day1_voted_out,
        "night1": f.first_killed if f.night1_known else None,
        "over": state.over.value if state.over is not None else None,
        "ended": _ended(state),
        "result": p.result.value if p.result is not None else None,
        "extras": {str(seat): value for seat, value in p.extras},
        "penalties": {str(seat): list(rules) for seat, rules in p.penalties},
        "dq": list(p.disqualified),
    }
    if actions:
        shown["allowed"] = allowed(p)
    return shown


def _checks(p: Protocol, state: _Live) -> dict[str, dict[str, object] | None]:
    """The night's checks with their answers: the don's (is it the sheriff?) and the
    sheriff's (is it black?)."""
    don: dict[str, object] | None = None
    sheriff: dict[str, object] | None = None
    if state.night and state.don_check is not None:
        don = {"seat": state.don_check, "sheriff": p.roles[state.don_check - 1] is Role.SHERIFF}
    if state.night and state.sheriff_check is not None:
        role = p.roles[state.sheriff_check - 1]
        sheriff = {"seat": state.sheriff_check, "black": role is not None and not role.is_red}
    return {"don": don, "sheriff": sheriff}


# -- what the protocol would accept now -------------------------------------------------------

# The judge's points a seat is offered: none up to the whole 1.0 of 8.4.2 (nobody gets
# more), in the card's steps; the first value refused names the rule that stops them.
_EXTRA_VALUES = range(0, JUDGE_SUM_MAX + 1, EXTRA_STEP)
_RESULTS = tuple(result.value for result in Result)


def allowed(p: Protocol) -> dict[str, object]:
    """What the protocol would accept now, as the page offers it: each entry is found by
    trying its commands on ``p`` (``apply``), so the rules say it where they refuse the
    rest, once. Seats are numbers; maps are keyed by seats as strings (JSON).

    * ``roles``: whether roles can be set now (four seats the judge picks may still be
      refused: roles that would have ended the game before the events recorded);
    * ``foul``, ``disqualify``, ``undisqualify``: the seats;
    * ``nominate``: who may nominate → the seats he may nominate;
    * ``vote``: the seats that may get votes and the most votes in all (None: no vote);
    * ``vote_out``: the seats that may leave by the vote (any of them together) and
      whether nobody may (None: neither);
    * ``shoot``: the seats that may be shot and whether a miss may be recorded;
    * ``don_check`` / ``sheriff_check``: seat → the answer its check gets;
    * ``end_night``, ``undo``: whether;
    * ``best_move`` (8.3): who names it (None: no best move now), the seats he may name
      now, how many more he may name, whether it may end (8.3.2) and the hint be marked
      (8.3.5);
    * ``result``: the results;
    * ``penalty`` / ``unpenalty`` (8.5, D8): seat → the rules;
    * ``extra`` (8.4): seat → the judge's points it may get (hundredths, in the card's
      steps; 0 takes them away) and the rule that stops them higher (8.4.1-8.4.4, 8.4.7,
      "8.4" while the roles or the result are missing).
    """

    def tried(command: Mapping[str, object], on: Protocol = p) -> Protocol | None:
        outcome = apply(on, command)
        return None if isinstance(outcome, Refusal) else outcome

    def seats(kind: str, **more: object) -> list[int]:
        return [n for n in SEAT_NUMBERS if tried({"type": kind, "seat": n, **more})]

    return {
        "roles": _roles_closed(p) is None,
        "foul": seats("foul"),
        "nominate": {str(by): targets for by in SEAT_NUMBERS
                     if (targets := seats("nominate", by=by))},
        "vote": _votes_allowed(p, tried),
        "vote_out": _vote_out_allowed(tried),
        "shoot": {"seats": seats("shoot"), "miss": tried({"type": "shoot", "seat": None})
                  is not None},
        "don_check": _checks_allowed("don_check", "don", "sheriff", tried),
        "sheriff_check": _checks_allowed("sheriff_check", "sheriff", "black", tried),
        "end_night": tried({"type": "end_night"}) is not None,
        "undo": tried({"type": "undo"}) is not None,
        "best_move": _best_move_allowed(p, tried),
        "result": [r for r in _RESULTS if tried({"type": "result", "result": r})],
        "disqualify": seats("disqualify"),
        "undisqualify": seats("undisqualify"),
        "penalty": _rules_allowed("penalty", tried),
        "unpenalty": _rules_allowed("unpenalty", tried),
        "extra": {str(n): _extras_allowed(p, n) for n in SEAT_NUMBERS},
    }


_Try = Callable[..., Protocol | None]


def _votes_allowed(p: Protocol, tried: _Try) -> dict[str, object] | None:
    candidates = [n for n in SEAT_NUMBERS if tried({"type": "vote", "votes": {str(n): 0}})]
    if not candidates:
        return None
    first = str(candidates[0])
    most = max(k for k in range(SEATS + 1)
               if k == 0 or tried({"type": "vote", "votes": {first: k}}))
    return {"seats": candidates, "most": most}


def _vote_out_allowed(tried: _Try) -> dict[str, object] | None:
    leaving = [n for n in SEAT_NUMBERS if tried({"type": "vote_out", "seats": [n]})]
    nobody = tried({"type": "vote_out", "seats": []}) is not None
    return {"seats": leaving, "nobody": nobody} if leaving or nobody else None


def _checks_allowed(kind: str, key: str, answer: str, tried: _Try) -> dict[str, object]:
    found: dict[str, object] = {}
    for n in SEAT_NUMBERS:
        after = tried({"type": kind, "seat": n})
        if after is not None:
            check = _checks(after, _live(after))[key]
            assert check is not None
            found[str(n)] = {answer: check[answer]}
    return found


def _best_move_allowed(p: Protocol, tried: _Try) -> dict[str, object]:
    def named(on: Protocol) -> list[int]:
        return [n for n in SEAT_NUMBERS if tried({"type": "best_move", "seat": n}, on)]

    now = named(p)
    end = tried({"type": "best_move_end"}) is not None
    hint = tried({"type": "best_move_hint", "on": True}) is not None
    left, on, choices = 0, p, now
    while choices:  # name one after another (8.3.1) until no more may be (8.3, 8.3.3)
        after = tried({"type": "best_move", "seat": choices[0]}, on)
        assert after is not None
        left, on = left + 1, after
        choices = named(on)
    by = facts(p).first_killed if now or end or hint else None
    return {"by": by, "seats": now, "left": left, "end": end, "hint": hint}


def _rules_allowed(kind: str, tried: _Try) -> dict[str, list[str]]:
    found = {}
    for n in SEAT_NUMBERS:
        rules = [r for r in PENALTY_RULES if tried({"type": kind, "seat": n, "rule": r})]
        if rules:
            found[str(n)] = rules
    return found


def _extras_allowed(p: Protocol, seat: int) -> dict[str, object]:
    values, stop = [], None
    for value in _EXTRA_VALUES:
        outcome = apply(p, {"type": "extra", "seat": seat, "hundredths": value})
        if not isinstance(outcome, Refusal):
            values.append(value)
        elif stop is None:
            stop = outcome.rule
    return {"values": values, "rule": stop}


def _ended(state: _Live) -> dict[str, object] | None:
    """What ended the game, once the events ended it: how the last seat left
    ("voted", "shot", "fouls", "disqualified"), in which day or night, and the seat."""
    if state.over is None or state.ended is None:
        return None
    how, kind, number, seat = state.ended
    return {"by": how, "kind": kind, "number": number, "seat": seat}


# -- JSON ------------------------------------------------------------------------------------


def _event_json(event: Event) -> dict[str, object]:
    data: dict[str, object] = {"kind": event.kind}
    if event.seat is not None or event.kind == "shoot":
        data["seat"] = event.seat
    if event.by is not None:
        data["by"] = event.by
    if event.kind == "vote_out":
        data["seats"] = list(event.seats)
    if event.kind == "vote":
        data["votes"] = [[seat, count] for seat, count in event.votes]
    return data


def to_json(p: Protocol) -> dict[str, object]:
    """Plain JSON (``from_json`` reads it back)."""
    return {
        "roles": [role.value if role is not None else None for role in p.roles],
        "events": [_event_json(event) for event in p.events],
        "result": p.result.value if p.result is not None else None,
        "day1": p.day1,
        "night1": p.night1,
        "best_move": list(p.best_move),
        "best_move_end": p.best_move_end,
        "best_move_hint": p.best_move_hint,
        "best_move_at": p.best_move_at,
        "disqualified": list(p.disqualified),
        "penalties": {str(seat): list(rules) for seat, rules in p.penalties},
        "extras": {str(seat): value for seat, value in p.extras},
    }


def _seat_or_none(value: object) -> int | None:
    if value is None:
        return None
    return _seat(value)


def _seat(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in SEAT_NUMBERS:
        raise ValueError(f"not a seat 1-10: {value!r}")
    return value


def _int(value: object, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"not a whole number ≥ {low}: {value!r}")
    return value


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise ValueError(f"not a list: {value!r}")
    return value


def _dict(value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ValueError(f"not an object: {value!r}")
    return value


def _event_of(data: object) -> Event:
    raw = _dict(data)
    kind = raw.get("kind")
    if kind not in LIVE_KINDS:
        raise ValueError(f"unknown event {kind!r}")
    assert isinstance(kind, str)
    pairs = map(_list, _list(raw.get("votes", [])))
    votes = tuple((_seat(pair[0]), _int(pair[1])) for pair in pairs)
    return Event(
        kind,
        seat=_seat_or_none(raw.get("seat")),
        by=_seat_or_none(raw.get("by")),
        seats=tuple(_seat(s) for s in _list(raw.get("seats", []))),
        votes=votes,
    )


def from_json(data: object) -> Protocol:
    """The protocol ``to_json`` wrote; raises ValueError on anything else."""
    raw = _dict(data)
    roles = tuple(None if r is None else Role(str(r)) for r in _list(raw.get("roles")))
    if len(roles) != SEATS:
        raise ValueError("roles: 10 seats")
    result = raw.get("result")
    night1 = raw.get("night1")
    day1 = raw.get("day1")
    p = Protocol(
        roles=roles,
        events=tuple(_event_of(e) for e in _list(raw.get("events"))),
        result=None if result is None else Result(str(result)),
        day1=None if day1 is None else _int(day1),
        night1=None if night1 is None else (_seat(night1) if night1 else 0),
        best_move=tuple(_seat(s) for s in _list(raw.get("best_move"))),
        best_move_end=raw.get("best_move_end") is True,
        best_move_hint=raw.get("best_move_hint") is True,
        best_move_at=_int(raw.get("best_move_at", 0)),
        disqualified=tuple(_seat(s) for s in _list(raw.get("disqualified"))),
        penalties=tuple(
            (_seat(int(k)), tuple(str(r) for r in _list(v)))
            for k, v in _dict(raw.get("penalties")).items()
        ),
        extras=tuple((_seat(int(k)), _int(v)) for k, v in _dict(raw.get("extras")).items()),
    )
    state = _fold(p, p.events)
    if isinstance(state, Refusal):
        raise ValueError("the events do not make a game")
    p._worked.state = state
    return p


# -- commands --------------------------------------------------------------------------------

_Outcome = tuple[Protocol, tuple[Note, ...]]
_MALFORMED = N_("This command is not understood.")


class _Malformed(Exception):
    """A command that is not well formed (a Refusal, rule "game")."""


def _arg_seat(command: Mapping[str, object], key: str = "seat") -> int:
    return _seat(command.get(key))


def _arg_seat_or_none(command: Mapping[str, object], key: str = "seat") -> int | None:
    if key in command and command[key] is None:
        return None
    return _arg_seat(command, key)


def apply(p: Protocol, command: Mapping[str, object]) -> Protocol | Refusal:
    """The protocol after ``command``, or why it is refused (nothing changed)."""
    outcome = apply_noting(p, command)
    return outcome if isinstance(outcome, Refusal) else outcome[0]


def apply_noting(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    """``apply``, and what the command cleared besides (its knock-ons, as notes)."""
    try:
        if not isinstance(command, Mapping):
            raise _Malformed("command")
        kind = command.get("type")
        handler = _COMMANDS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise _Malformed("type")
        outcome = handler(p, command)
    except (_Malformed, ValueError, TypeError, KeyError):
        return Refusal("game", _MALFORMED)
    if isinstance(outcome, Refusal):
        return outcome
    return _guarded(p, outcome)


def _guarded(before: Protocol, outcome: _Outcome) -> _Outcome | Refusal:
    """Refuse a protocol that breaks a rule the one before did not break, or whose
    result disagrees with the team the live events made win."""
    after, notes = outcome
    if (after.events is before.events and after.roles is before.roles
            and after._worked.state is None):
        after._worked.state = _live(before)  # the same events and roles: the same state
    over = _live(after).over
    if over is not None and after.result is not None and after.result is not over:
        return _over_refusal(over)
    old = {(problem.rule, problem.message) for problem in _problems(before)}
    for problem in _problems(after):
        if (problem.rule, problem.message) not in old:
            return Refusal(problem.rule, problem.template, problem.params)
    return after, notes


def replay(commands: Sequence[Mapping[str, object]]) -> Protocol | Refusal:
    """The protocol the ``commands`` build from ``Protocol.new()``, or the first refusal."""
    p = Protocol.new()
    for command in commands:
        outcome = apply(p, command)
        if isinstance(outcome, Refusal):
            return outcome
        p = outcome
    return p


# -- live commands -----------------------------------------------------------------------


def _live_event(p: Protocol, event: Event) -> _Outcome | Refusal:
    if p.day1 is not None or p.night1 is not None:
        return Refusal("game", N_("Day 1 and night 1 were entered as a summary: the game "
                                  "can't be recorded live."))
    if p.result is not None:
        return Refusal("game", N_("The result is entered: the game is over."))
    # The state of p's events and then this one: p's own, copied, stepped on once
    # (what folding them all would give, and cheaper, as ``allowed`` tries many).
    state = _live(p).copy()
    refusal = _step(p.roles, state, event)
    if refusal is not None:
        return refusal
    after = replace(p, events=(*p.events, event))
    after._worked.state = state
    return after, ()


def _roles(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    sheriff, don = _arg_seat(command, "sheriff"), _arg_seat(command, "don")
    mafia = command.get("mafia")
    if not isinstance(mafia, list) or len(mafia) != 2:
        raise _Malformed("mafia")
    pair = [_arg_seat({"seat": seat}) for seat in mafia]
    if len({sheriff, don, *pair}) != 4:
        return Refusal("roles", N_("The sheriff, the don and the two mafia are four "
                                   "different seats."))
    refusal = _roles_closed(p)
    if refusal is not None:
        return refusal
    roles: tuple[Role | None, ...] = tuple(
        Role.SHERIFF if n == sheriff else Role.DON if n == don
        else Role.MAFIA if n in pair else Role.CIVILIAN
        for n in SEAT_NUMBERS
    )
    after = replace(p, roles=roles)
    if isinstance(_fold(after, p.events), Refusal):
        return Refusal("game", N_("With these roles the game would have ended before the "
                                  "events recorded."))
    return _settled(p, after)


def _roles_closed(p: Protocol) -> Refusal | None:
    """Why no roles can be set now, if none can (whichever seats they name)."""
    if any(event.kind in _NIGHT_KINDS for event in p.events) or _live(p).night:
        return Refusal("game", N_("The roles can't change once the first night has begun."))
    return None


def _foul(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    return _live_event(p, Event("foul", seat=_arg_seat(command)))


def _nominate(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    return _live_event(p, Event("nominate", seat=_arg_seat(command),
                                by=_arg_seat(command, "by")))


def _vote(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    votes = command.get("votes")
    if not isinstance(votes, Mapping) or not votes:
        raise _Malformed("votes")
    pairs = []
    for key, count in votes.items():
        if not isinstance(key, str) or not key.isdigit():
            raise _Malformed("votes")
        pairs.append((_arg_seat({"seat": int(key)}), _int(count)))
    return _live_event(p, Event("vote", votes=tuple(pairs)))


def _vote_out(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seats = command.get("seats")
    if not isinstance(seats, list):
        raise _Malformed("seats")
    chosen = tuple(_arg_seat({"seat": seat}) for seat in seats)
    if len(set(chosen)) != len(chosen):
        raise _Malformed("seats")
    return _live_event(p, Event("vote_out", seats=chosen))


def _shoot(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    return _live_event(p, Event("shoot", seat=_arg_seat_or_none(command)))


def _don_check(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    return _live_event(p, Event("don_check", seat=_arg_seat(command)))


def _sheriff_check(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    return _live_event(p, Event("sheriff_check", seat=_arg_seat(command)))


def _end_night(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    return _live_event(p, Event("end_night"))


def _undo(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    if not p.events:
        return Refusal("game", N_("Nothing to undo."))
    if p.best_move and p.best_move_at == len(p.events):
        return Refusal("8.3.3", N_("Named numbers of the best move can't be taken back "
                                   "(8.3.3)."))
    if p.result is not None:
        return Refusal("game", N_("The result is entered: the game is over."))
    last = p.events[-1]
    after = replace(p, events=p.events[:-1])
    if last.kind == "disqualify":
        after = replace(after, disqualified=tuple(s for s in p.disqualified if s != last.seat))
    return after, ()


# -- outcome commands ------------------------------------------------------------------------

_BM_REMOVED_8_3_6 = N_("The best move was removed: 2 or more left by the day-1 vote (8.3.6).")
_BM_REMOVED_OTHER = N_("The best move was removed: it belonged to another first-killed player.")


def _without_best_move(p: Protocol) -> Protocol:
    return replace(p, best_move=(), best_move_end=False, best_move_hint=False, best_move_at=0)


def _had_best_move(p: Protocol) -> bool:
    return bool(p.best_move) or p.best_move_end or p.best_move_hint


def _summary_refusal(p: Protocol) -> Refusal | None:
    if p.live:
        return Refusal("game", N_("Day 1 and night 1 are recorded live; they follow from "
                                  "the events."))
    return None


def _day1(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    count = _int(command.get("count"))
    if count > DAY1_VOTED_OUT_MAX:
        raise _Malformed("count")
    refusal = _summary_refusal(p)
    if refusal is not None:
        return refusal
    after = replace(p, day1=count)
    f = facts(after)
    if _had_best_move(p) and not best_move_allowed(f.first_killed, count):
        return _without_best_move(after), (Note("8.3.6", _BM_REMOVED_8_3_6),)
    return after, ()


def _night1(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seat = _arg_seat_or_none(command)
    refusal = _summary_refusal(p)
    if refusal is not None:
        return refusal
    value = seat or 0
    after = replace(p, night1=value)
    if value != p.night1 and _had_best_move(p):
        return _without_best_move(after), (Note("8.3", _BM_REMOVED_OTHER),)
    return after, ()


_BM_FINAL = N_("The best move is accepted; named numbers can't be changed (8.3.3).")


def _best_move_open(p: Protocol) -> Refusal | None:
    f = facts(p)
    if f.first_killed is None:
        return Refusal("8.3", N_("No best move: nobody was shot on night 1."))
    if not best_move_allowed(f.first_killed, f.day1_voted_out):
        if f.day1_voted_out is None:
            return Refusal("8.3.6", N_("No best move before the day-1 vote is entered."))
        return Refusal("8.3.6", N_("No best move: {count} players left by the day-1 vote "
                                   "(8.3.6)."), {"count": f.day1_voted_out})
    return None


def _best_move(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seat = _arg_seat(command)
    refusal = _best_move_open(p)
    if refusal is not None:
        return refusal
    if facts(p).best_move_final:
        return Refusal("8.3.3", _BM_FINAL)
    if seat == facts(p).first_killed:
        return Refusal("D10", N_("He can't name his own seat."))
    if seat in p.best_move:
        return Refusal("8.3.3", N_("Seat {seat} is named already (8.3.3)."), {"seat": seat})
    return replace(p, best_move=(*p.best_move, seat), best_move_at=len(p.events)), ()


def _best_move_end(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    refusal = _best_move_open(p)
    if refusal is not None:
        return refusal
    if facts(p).best_move_final:
        return Refusal("8.3.3", N_("The best move is accepted already."))
    return replace(p, best_move_end=True), ()


def _best_move_hint(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    on = command.get("on", True)
    if not isinstance(on, bool):
        raise _Malformed("on")
    refusal = _best_move_open(p)
    if refusal is not None:
        return refusal
    return replace(p, best_move_hint=on), ()


def _result(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    result = Result(str(command.get("result")))
    over = _live(p).over
    if over is not None and result is not over:
        if result is Result.DRAW:
            text = {
                Result.RED: N_("No draw: the red team won."),
                Result.BLACK: N_("No draw: the black team won."),
            }[over]
            return Refusal("game", text, {"team": over.value})
        return _over_refusal(over)
    return _settled(p, replace(p, result=result))


def _settled(before: Protocol, after: Protocol) -> _Outcome:
    """Roles or the result changed: drop what they no longer allow (8.4.7; 8.4.3 and
    8.4.4; 8.5 with D8), each with a note."""
    notes: list[Note] = []
    if after.extras and not judge_points_allowed(after.result):
        after = replace(after, extras=())
        notes.append(Note("8.4.7", N_("Judge's extra points were removed: a draw gets none "
                                      "(8.4.7).")))
    kept_extras = []
    for seat, value in after.extras:
        cap = judge_cap(after.roles[seat - 1], after.result)
        if cap is None or value <= cap.most:
            kept_extras.append((seat, value))
            continue
        notes.append(Note(cap.rule, N_("Seat {seat}'s judge's points {value} were removed: "
                                       "{rule} allows at most {cap}."),
                          {"seat": seat, "value": format_points(Fraction(value, 100)),
                           "rule": cap.rule, "cap": format_points(Fraction(cap.most, 100))}))
    kept_penalties = []
    for seat, rules in after.penalties:
        role = after.roles[seat - 1]
        kept = tuple(rule for rule in rules
                     if role is None or after.result is None
                     or penalty_allowed(role, after.result, rule))
        for rule in rules:
            if rule not in kept:
                notes.append(Note(rule, N_("Seat {seat}'s penalty {penalty} was removed: it "
                                           "does not apply to this role and result."),
                                  {"seat": seat, "penalty": rule}))
        if kept:
            kept_penalties.append((seat, kept))
    after = replace(after, extras=tuple(kept_extras), penalties=tuple(kept_penalties))
    del before
    return after, tuple(notes)


def _disqualify(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seat = _arg_seat(command)
    if seat in p.disqualified:
        return Refusal("8.2.4", N_("Seat {seat} is disqualified already."), {"seat": seat})
    after = replace(p, disqualified=tuple(sorted((*p.disqualified, seat))))
    state = _live(p)
    if p.live and p.result is None and state.over is None and state.alive(seat):
        event = Event("disqualify", seat=seat)
        stepped = state.copy()
        refusal = _step(p.roles, stepped, event)
        assert refusal is None, refusal  # a seat in the game, the game not over
        after = replace(after, events=(*p.events, event))
        after._worked.state = stepped
    return after, ()


def _undisqualify(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seat = _arg_seat(command)
    if seat not in p.disqualified:
        return Refusal("8.2.4", N_("Seat {seat} is not disqualified."), {"seat": seat})
    events = tuple(e for e in p.events if not (e.kind == "disqualify" and e.seat == seat))
    after = replace(p, disqualified=tuple(s for s in p.disqualified if s != seat),
                    events=events)
    if isinstance(_fold(after, events), Refusal):
        return Refusal("game", N_("Seat {seat} can't come back: the game went on without "
                                  "him."), {"seat": seat})
    return after, ()


def _penalty_rule(command: Mapping[str, object]) -> str:
    rule = command.get("rule")
    if not isinstance(rule, str):
        raise _Malformed("rule")
    return rule


def _penalty(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seat, rule = _arg_seat(command), _penalty_rule(command)
    penalty = PENALTIES.get(rule)
    if penalty is None:
        return Refusal("8.5", N_("penalty {penalty} for seat {seat}; use 8.5.1, 8.5.2, 8.5.3 "
                                 "or 8.5.4"), {"penalty": rule, "seat": seat})
    role = p.roles[seat - 1]
    if role is None or p.result is None:
        return Refusal("8.5", N_("Penalties need the roles and the result first."))
    if not penalty_allowed(role, p.result, rule):
        return Refusal(rule, penalty.needs, {"penalty": rule, "seat": seat,
                                             "role": role.value, "result": p.result.value})
    given = dict(p.penalties)
    if rule in given.get(seat, ()):
        return Refusal(rule, N_("Seat {seat} has penalty {penalty} already."),
                       {"seat": seat, "penalty": rule})
    given[seat] = tuple(sorted((*given.get(seat, ()), rule)))
    return replace(p, penalties=tuple(sorted(given.items()))), ()


def _unpenalty(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seat, rule = _arg_seat(command), _penalty_rule(command)
    given = dict(p.penalties)
    if rule not in given.get(seat, ()):
        return Refusal("8.5", N_("Seat {seat} has no penalty {penalty}."),
                       {"seat": seat, "penalty": rule})
    rest = tuple(r for r in given[seat] if r != rule)
    if rest:
        given[seat] = rest
    else:
        del given[seat]
    return replace(p, penalties=tuple(sorted(given.items()))), ()


def _extra(p: Protocol, command: Mapping[str, object]) -> _Outcome | Refusal:
    seat, value = _arg_seat(command), _int(command.get("hundredths"))
    given = dict(p.extras)
    if value == 0:
        given.pop(seat, None)
        return replace(p, extras=tuple(sorted(given.items()))), ()
    if not judge_points_allowed(p.result):
        return Refusal("8.4.7", N_("No judge's extra points in a draw (8.4.7)."))
    cap = judge_cap(p.roles[seat - 1], p.result)
    if cap is None:
        return Refusal("8.4", N_("Judge's extra points need the roles and the result first."))
    if value > cap.most:
        return Refusal(cap.rule, N_("Not accepted: {rule}: seat {seat} gets at most {cap}."),
                       {"rule": cap.rule, "seat": seat,
                        "cap": format_points(Fraction(cap.most, 100))})
    given[seat] = value
    return replace(p, extras=tuple(sorted(given.items()))), ()


_COMMANDS = {
    "roles": _roles,
    "foul": _foul,
    "nominate": _nominate,
    "vote": _vote,
    "vote_out": _vote_out,
    "shoot": _shoot,
    "don_check": _don_check,
    "sheriff_check": _sheriff_check,
    "end_night": _end_night,
    "undo": _undo,
    "day1": _day1,
    "night1": _night1,
    "best_move": _best_move,
    "best_move_end": _best_move_end,
    "best_move_hint": _best_move_hint,
    "result": _result,
    "disqualify": _disqualify,
    "undisqualify": _undisqualify,
    "penalty": _penalty,
    "unpenalty": _unpenalty,
    "extra": _extra,
}
