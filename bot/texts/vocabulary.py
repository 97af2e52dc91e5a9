"""The one name of each role and each result, in the reader's language: the judge's
card, /rating and the exported protocols all say them alike."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.utils.i18n import lazy_gettext as __
from babel.support import LazyProxy

from scoring import Result, Role

ROLE_NAMES: Mapping[Role, LazyProxy] = {
    Role.CIVILIAN: __("civilian"),
    Role.SHERIFF: __("sheriff"),
    Role.MAFIA: __("mafia"),
    Role.DON: __("don"),
}
RESULT_NAMES: Mapping[Result, LazyProxy] = {
    Result.RED: __("red win"),
    Result.BLACK: __("black win"),
    Result.DRAW: __("draw"),
}


def role_name(role: Role) -> str:
    return str(ROLE_NAMES[role])


def result_name(result: Result) -> str:
    return str(RESULT_NAMES[result])
