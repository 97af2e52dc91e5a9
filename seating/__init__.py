"""The seating plan generator of the tournament bot: pure Python, no Telegram, no I/O.

Before a tournament the chief judge needs a plan: for every round, which ten players
sit at which table and in which seat. The command line is docs/formats.md#seating
(``python -m seating generate FILE``); the bot calls the same functions::

    request = seating.parse_request(data)  # decoded JSON → Request, or SeatingError
    plan = seating.generate(request)       # → Plan(rounds, quality)
    text = seating.plan_to_json(plan)      # the contract's JSON (plan_to_table: for people)

* ``Request``, ``Plan``, ``Round``, ``Table``, ``Quality`` — frozen data classes
  (``model``); seat n of a table is ``Table.seats[n - 1]``;
* ``parse_request(data)`` / ``load_request(text)`` — a checked ``Request``;
  ``check_request(request)`` checks one built in Python; every invalid request raises
  ``SeatingError`` (a ``ValueError``) whose message is one line saying what is wrong
  and what to change;
* ``repair(request, previous)`` — a re-plan keeping an earlier plan's rounds still to
  play where they fit (None: they don't); ``generate`` does it for a request with
  ``previous_rounds``;
* ``generate(request)`` — the plan: the same request (seed included) always gives the
  same rounds; ``request.time_limit`` only caps the time (``quality.cut_short``);
* ``quality(plan, request)`` — the plan's fairness figures, measured afresh;
* ``plan_to_dict`` / ``plan_to_json`` / ``plan_to_table`` — the plan written out.

Optional request fields beyond docs/formats.md#seating (extensions, as it allows):
``previous_rounds`` (an earlier plan's rounds still to play, kept where they fit),
``withdrawn`` (players who left: they keep their games in ``fixed_rounds`` and play no
more; the quality figures leave them out) and ``games_of`` (a player's games in all where
they differ from ``games_per_player``, e.g. one whose seat a substitute played).

What a plan guarantees: the hard rules of the contract always; every player in every
seat number equally often when they play a multiple of ten games, else within one
(not around fixed rounds, which are only evened out as far as they allow, a kept plan
by swapping seats within its games, ``mend``; but at one
table of the same ten players, e.g. a final, nobody takes a seat twice in ten games
around fixed rounds that didn't either); sit-outs spread evenly. Meetings and tables
are as even as a bounded search finds; for 40 players who all play 7, 9 or 10 games
at 4 tables, every pair of players meets 1-3 times (``quartets``).
"""

from __future__ import annotations

from .generate import generate
from .model import Plan, Quality, Request, Round, SeatingError, Table
from .output import plan_to_dict, plan_to_json, plan_to_table, round_to_dict
from .quality import quality
from .repair import repair
from .request import check_request, load_request, parse_request

__all__ = [
    "Plan",
    "Quality",
    "Request",
    "Round",
    "SeatingError",
    "Table",
    "check_request",
    "generate",
    "load_request",
    "parse_request",
    "plan_to_dict",
    "plan_to_json",
    "plan_to_table",
    "quality",
    "repair",
    "round_to_dict",
]
