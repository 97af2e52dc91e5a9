"""The judge's game-entry conversation: one state per step of the card."""

from __future__ import annotations

from aiogram.fsm.state import State, StatesGroup


class GameEntry(StatesGroup):
    tournament = State()  # several running tournaments: pick one
    round_table = State()  # 1
    seating = State()  # 2
    roles = State()  # 3
    day1 = State()  # 4
    night1 = State()  # 5
    best_move = State()  # 6 (8.3)
    result = State()  # 7
    disqualify = State()  # 8 (8.2.4)
    penalties = State()  # 9 (8.5)
    extras = State()  # 10 (8.4)
    review = State()  # 11
