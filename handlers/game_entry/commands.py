"""The card's taps as the protocol's commands (``scoring.protocol``): the protocol decides
what the rules allow and what a change clears besides (8.4.7, 8.3.6, 8.3.3, 8.5 with
D8); the card says it in the judge's language."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.utils.i18n import gettext as _

from bot.texts.markup import html_text
from bot.texts.rating_format import decimal_point
from bot.texts.rule_issues import Issue
from handlers.game_entry.draft import Draft, absorb, protocol_of
from scoring.protocol import Refusal, apply_noting

# Params that hold points ("0.7"): shown with the reader's decimal separator.
_POINTS = ("cap", "value")


def refusal_text(refusal: Refusal) -> str:
    """The refusal as the judge reads it. The protocol's own texts are sentences; those
    it takes from ``validate_game`` are clauses, shown after the rule they break."""
    params = dict(refusal.params)
    for key in _POINTS:
        if isinstance(params.get(key), str):
            params[key] = str(params[key]).replace(".", decimal_point())
    if not refusal.text[:1].isupper():
        reason = Issue(refusal.rule, refusal.text, params).text()
        return _("Not accepted: {reason}").format(reason=reason)
    return _(refusal.text).format(**{k: html_text(str(v)) for k, v in params.items()})


def run(d: Draft, command: Mapping[str, object]) -> str | None:
    """Apply ``command`` to the draft's protocol: None (the draft changed, a knock-on
    becomes the card's note) or the refusal to show (the draft did not change)."""
    refusal = attempt(d, command)
    return None if refusal is None else refusal_text(refusal)


def attempt(d: Draft, command: Mapping[str, object]) -> Refusal | None:
    """``run``, with the refusal as the protocol gives it."""
    outcome = apply_noting(protocol_of(d), command)
    if isinstance(outcome, Refusal):
        return outcome
    protocol, notes = outcome
    absorb(d, protocol)
    if notes:
        note = notes[0]
        d.set_note(note.text, **{key: str(value) for key, value in note.params.items()})
    return None
