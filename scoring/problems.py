"""A rule problem found in a game, as judges read it (docs/formats.md, "Invalid input").

A ``Problem`` carries its message as a translatable *template* plus *params*, so the bot
can show it in the judge's language::

    text = _(problem.template).format(**problem.params)

Templates are marked with ``N_()`` (a no-op) so that ``xgettext -k N_`` / ``pybabel
extract -k N_`` finds them; ``str(problem)`` is the English line of the contract,
``GAME_ID: RULE_ID: message``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .typing_shim import NamedTuple


def N_(template: str) -> str:
    """Mark ``template`` for translation without translating it (gettext ``-k N_``)."""
    return template


class Problem(NamedTuple):
    """One broken rule: the game it is in, the rule id of docs/rules.md and what is wrong."""

    game_id: str
    rule: str
    template: str  # English, marked with N_(): translate it, then .format(**params)
    params: Mapping[str, object] = MappingProxyType({})

    @property
    def message(self) -> str:
        """The English message: ``template`` filled in with ``params``."""
        return self.template.format(**self.params)

    def __str__(self) -> str:
        return f"{self.game_id}: {self.rule}: {self.message}"
