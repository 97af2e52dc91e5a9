"""The live protocol in words, in the reader's language (README, "The live protocol"):
a command as the judge entered it (an event sent again with another command is refused
naming both), and the public view's phase ("Night 2"; "Game over after the day-3 vote:
black win").

A command comes from the page and may be anything: what is not a well-formed command
reads as "a command not understood", never as an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import ngettext

from bot.texts.rating_format import short_points
from bot.texts.vocabulary import RESULT_NAMES
from scoring import Result


def _number(value: object) -> int:
    """A seat or a count as the command gives it (what it may be is the protocol's
    to check, not this)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value


def _seats(values: object) -> list[int]:
    if not isinstance(values, list):
        raise ValueError(values)
    return [_number(v) for v in values]


def _roles(c: Mapping[str, Any]) -> str:
    mafia = ", ".join(str(s) for s in _seats(c.get("mafia")))
    return _("roles: sheriff {sheriff}, don {don}, mafia {mafia}").format(
        sheriff=_number(c.get("sheriff")), don=_number(c.get("don")), mafia=mafia)


def _vote(c: Mapping[str, Any]) -> str:
    votes = c.get("votes")
    if not isinstance(votes, Mapping) or not votes:
        raise ValueError(votes)
    given = ", ".join(_("seat {seat}: {count}").format(seat=int(seat), count=_number(count))
                      for seat, count in votes.items())
    return _("the vote: {votes}").format(votes=given)


def _vote_out(c: Mapping[str, Any]) -> str:
    seats = _seats(c.get("seats"))
    if not seats:
        return _("nobody leaves by the vote")
    return ngettext("seat {seats} leaves by the vote", "seats {seats} leave by the vote",
                    len(seats)).format(seats=", ".join(str(s) for s in seats))


def _shoot(c: Mapping[str, Any]) -> str:
    seat = c.get("seat")
    return _("a miss") if seat is None else _("the shot at seat {seat}").format(seat=_number(seat))


def _night1(c: Mapping[str, Any]) -> str:
    seat = c.get("seat")
    if not seat:
        return _("night 1: a miss")
    return _("night 1: seat {seat} shot").format(seat=_number(seat))


def _hint(c: Mapping[str, Any]) -> str:
    if c.get("on", True) is False:
        return _("the best move without a hint")
    return _("the best move with a hint")


def _result(c: Mapping[str, Any]) -> str:
    return _("the result: {result}").format(result=RESULT_NAMES[Result(str(c.get("result")))])


def _extra(c: Mapping[str, Any]) -> str:
    value = short_points(Fraction(_number(c.get("hundredths")), 100))
    return _("judge's points {value} to seat {seat}").format(value=value,
                                                              seat=_number(c.get("seat")))


def _rule(c: Mapping[str, Any]) -> str:
    rule = c.get("rule")
    if not isinstance(rule, str):
        raise ValueError(rule)
    return rule


# Each template is written where it is said, so that the catalog finds it.
_SAID: Mapping[str, Callable[[Mapping[str, Any]], str]] = {
    "roles": _roles,
    "foul": lambda c: _("a foul to seat {seat}").format(seat=_number(c.get("seat"))),
    "nominate": lambda c: _("seat {by} nominates seat {seat}").format(
        by=_number(c.get("by")), seat=_number(c.get("seat"))),
    "vote": _vote,
    "vote_out": _vote_out,
    "shoot": _shoot,
    "don_check": lambda c: _("the don's check of seat {seat}").format(seat=_number(c.get("seat"))),
    "sheriff_check": lambda c: _("the sheriff's check of seat {seat}").format(
        seat=_number(c.get("seat"))),
    "end_night": lambda c: _("the end of the night"),
    "undo": lambda c: _("undo of the last event"),
    "day1": lambda c: _("day 1: {count} left by the vote").format(count=_number(c.get("count"))),
    "night1": _night1,
    "best_move": lambda c: _("best move: seat {seat}").format(seat=_number(c.get("seat"))),
    "best_move_end": lambda c: _("the best move accepted"),
    "best_move_hint": _hint,
    "result": _result,
    "disqualify": lambda c: _("disqualification of seat {seat}").format(
        seat=_number(c.get("seat"))),
    "undisqualify": lambda c: _("seat {seat}'s disqualification lifted").format(
        seat=_number(c.get("seat"))),
    "penalty": lambda c: _("penalty {rule} to seat {seat}").format(
        rule=_rule(c), seat=_number(c.get("seat"))),
    "unpenalty": lambda c: _("seat {seat}'s penalty {rule} lifted").format(
        rule=_rule(c), seat=_number(c.get("seat"))),
    "extra": _extra,
}


def command_text(command: object) -> str:
    """``command`` in words ("a foul to seat 3"), in the current locale."""
    kind = command.get("type") if isinstance(command, Mapping) else None
    said = _SAID.get(kind) if isinstance(kind, str) else None
    if said is not None and isinstance(command, Mapping):
        try:
            return said(command)
        except (ValueError, TypeError, KeyError, AttributeError):
            pass
    return _("a command not understood")


# -- the public view -----------------------------------------------------------------------


def phase_text(phase: Mapping[str, Any]) -> str:
    """The public view's phase ("Day 2", "Night 2", "Game over after the day-3 vote:
    black win"), in the current locale; ``phase`` is ``bot.web.public``'s public phase."""
    number = phase.get("number")
    if phase.get("kind") == "night":
        return _("Night {n}").format(n=number)
    if phase.get("kind") != "over":
        return _("Day {n}").format(n=number)
    result = RESULT_NAMES[Result(str(phase.get("result")))]
    ended = phase.get("ended")
    if not isinstance(ended, Mapping):
        return _("Game over: {result}").format(result=result)
    how, n, seat = ended.get("by"), ended.get("number"), ended.get("seat")
    if how == "voted":
        text = _("Game over after the day-{n} vote: {result}")
    elif how == "shot":
        text = _("Game over after the night-{n} shot: {result}")
    elif how == "fouls":
        text = _("Game over after seat {seat}'s fourth foul: {result}")
    else:
        text = _("Game over after seat {seat}'s disqualification: {result}")
    return text.format(n=n, seat=seat, result=result)
