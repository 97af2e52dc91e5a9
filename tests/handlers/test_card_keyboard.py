"""The card's buttons carry exactly what ``Step.pack()`` would (they are built without a
model per button, for speed), within Telegram's 64 bytes of callback data."""

from __future__ import annotations

import pytest

from handlers.game_entry.callbacks import Step
from handlers.game_entry.draft import Draft, new_draft_id, new_token
from handlers.game_entry.keyboards import Keys
from handlers.game_entry.steps import CARD


@pytest.mark.parametrize("step", [*CARD.order, CARD.prelude.code])
@pytest.mark.parametrize(("a", "n", "m"), [("pick", 10, 999), ("back", 0, 0), ("val", 3, 100)])
def test_buttons_pack_like_step(step: str, a: str, n: int, m: int) -> None:
    d = Draft(token=new_token(), draft_id=new_draft_id(), judge_id=1, locale="ru", step=step)
    data = Keys(d).button("x", a, n, m).callback_data
    assert data == Step(t=d.token, s=step, a=a, n=n, m=m).pack()
    assert Step.unpack(data) == Step(t=d.token, s=step, a=a, n=n, m=m)
    assert len(data.encode()) <= 64
