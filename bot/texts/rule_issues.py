"""A rule problem as a reader sees it: the federation's rule number (8.x; our own
decisions' ids, D1-D17, are left out) and the engine's sentence in the reader's
language, roles and results named in his words. The judge's card and the live
protocol's page show the same problems this way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiogram.utils.i18n import gettext as _

from bot.texts.markup import html_text
from bot.texts.vocabulary import RESULT_NAMES, ROLE_NAMES
from scoring import Problem, Result, Role

_ROLE_VALUES = frozenset(r.value for r in Role)
_RESULT_VALUES = frozenset(r.value for r in Result)


@dataclass
class Issue:
    """A rule problem to show: a rule id and a translatable template with params."""

    rule: str
    template: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, problem: Problem) -> Issue:
        return cls(problem.rule, problem.template, dict(problem.params))

    def text(self) -> str:
        params = dict(self.params)
        # Role and result values inside the engine's sentences read better translated.
        if str(params.get("role")) in _ROLE_VALUES:
            params["role"] = str(ROLE_NAMES[Role(str(params["role"]))])
        if str(params.get("result")) in _RESULT_VALUES:
            params["result"] = str(RESULT_NAMES[Result(str(params["result"]))])
        safe = {k: html_text(str(v)) for k, v in params.items()}
        # The federation's rule numbers help a judge; our own decisions' ids (D1-D17) don't.
        prefix = f"{self.rule}: " if self.rule[:1].isdigit() else ""
        return prefix + _(self.template).format(**safe)
