"""A whole two-stage tournament as its people see it (RULES.md D13-D17), in Russian and in
English: the chief judge's /stages (card, presets, a setting changed on the stage's
settings card, typed values refused, in English and Russian words), /stages close
with a tie across the cut and its /lot, Close the stage, /stages replace, /seating of
the final, the judge's card in the final (a round of the qualifying and a non-entrant
refused), /rating during a hidden final (D17), finishing with /tournament (D16) and
/export. Each step's texts are read as a person would: every one says what to do next;
no message in either language shows an id of the team's own decisions (D1-D17), a
Russian one carries no English stage names or words, an English one no Russian."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageCaption,
    EditMessageText,
    SendMediaGroup,
    SendMessage,
    SendPhoto,
)
from aiogram.methods.base import TelegramMethod
from aiogram.types import Message, User

from bot.db import stages as stages_db
from bot.db.connection import Database
from bot.db.tournaments import set_status
from scoring.model import Result
from tests.handlers.rating_fixtures import (
    CHAT,
    CHIEF,
    JUDGE,
    USER_BASE,
    World,
    add_game,
    make_world,
)
from tests.handlers.test_game_entry_support import Driver
from tests.handlers.test_game_entry_support import World as CardWorld
from tests.support import BotHarness, buttons

PLAYER = USER_BASE + 4  # P4: first in the qualifying, an entrant of the final


def _said(method: TelegramMethod[object]) -> str | None:
    """What a person reads from one request: a message, a caption, a toast."""
    if isinstance(method, SendMessage | EditMessageText):
        return method.text
    if isinstance(method, SendPhoto | EditMessageCaption):
        return method.caption
    if isinstance(method, SendMediaGroup):
        return method.media[-1].caption
    if isinstance(method, AnswerCallbackQuery):
        return method.text
    return None


def _labels(method: TelegramMethod[object]) -> list[str]:
    markup = getattr(method, "reply_markup", None)
    return [label for label, _data in buttons(markup)] if markup is not None else []


@dataclass
class Walk:
    """The bot's requests, cut into named steps: what each person read at each."""

    harness: BotHarness
    lang: str
    seen: dict[str, list[tuple[int | None, str]]] = field(default_factory=dict)
    _mark: int = 0

    def step(self, name: str) -> list[tuple[int | None, str]]:
        requests = self.harness.session.requests[self._mark :]
        self._mark = len(self.harness.session.requests)
        found: list[tuple[int | None, str]] = []
        for method in requests:
            chat = getattr(method, "chat_id", None)
            text = _said(method)
            if text:
                found.append((chat, text))
            found += [(chat, label) for label in _labels(method)]
        self.seen[name] = found
        return found

    def texts(self, name: str, chat: int | None = None) -> list[str]:
        return [text for at, text in self.seen[name] if chat is None or at == chat]

    def one(self, name: str, chat: int | None = None) -> str:
        return "\n".join(self.texts(name, chat))


RU = {
    "final2": "Финал: 2 игры, один стол",
    "carry": "Перенос: 0",
    "half": "0,5",
    "done": "✅ Готово",
    "draw": "Жребий за места 10–12",
    "close": "Закрыть этап",
    "accept": "✅ Принять",
    "finish": "🏁 Завершить",
    "anyway": "Всё равно завершить",
}
EN = {
    "final2": "Final: 2 games, one table",
    "carry": "Carry: 0",
    "half": "0.5",
    "done": "✅ Done",
    "draw": "Draw for places 10–12",
    "close": "Close the stage",
    "accept": "✅ Accept",
    "finish": "🏁 Finish",
    "anyway": "Finish anyway",
}


async def _entrants(db: Database, world: World) -> list[str]:
    async with db.read() as conn:
        final = (await stages_db.list_stages(conn, world.tournament_id))[1]
        found = await stages_db.entrants_of(conn, final.id)
    nick = dict(zip(world.players, world.nicks, strict=True))
    return sorted((nick[e.player_id] for e in found), key=lambda n: int(n[1:]))


async def walk(harness: BotHarness, db: Database, lang: str) -> Walk:
    """Twelve players; a qualifying of two games (P2, P7, P12 share place 10); the
    preset final of 10 at one table, hidden, changed to 4 games; its lot, its close, an
    entrant replaced, its seating, a game of it, the finish and the export."""
    words = RU if lang == "ru" else EN
    w = Walk(harness, lang)
    world = await make_world(db, 12, language=lang, title="Кубок" if lang == "ru" else "Cup")
    async with db.transaction() as conn:
        await set_status(conn, world.tournament_id, "running")
    chief = harness.user(CHIEF, "Chief", language_code=lang)
    player = harness.user(PLAYER, "P4", language_code=lang)

    async def say(user: User, text: str, chat: int | None = None) -> None:
        await harness.say(user, text, chat_id=chat)

    def last(chat: int = CHIEF) -> Message:
        found = harness.session.last_message(chat)
        assert found is not None
        return found

    await say(player, "/start")  # the bot learns his language: his notices speak it
    await say(chief, "/help")
    w.step("help")
    await say(chief, "/stages")
    w.step("card")
    for n, typed in enumerate(
        (
            "/stages add final games=two entrants=10",
            "/stages add final games=2 entrants=10 carry=-1",
            "/stages add final games=2 entrants=10 hidden=maybe",
            "/stages add final games=2 entrants=10 colour=red",
            "/stages add final games=2",
            "/stages add final games=2 entrants=21",
            "/stages add",
            "/stages close",
            "/stages добавить финал игр=0 участников=10",
            "/stages добавить финал игр=2 участников=10 вес=abc",
        )
    ):
        await say(chief, typed)
        w.step(f"bad {n}")
    await add_game(db, world, range(1, 11))
    await add_game(db, world, range(3, 13), round_no=2, result=Result.BLACK)
    await say(chief, "/stages")
    await harness.press(chief, last(), text=words["final2"])
    w.step("preset")
    await harness.press(chief, last(), text=words["carry"])
    w.step("carry values")
    await harness.press(chief, last(), text=words["half"])
    w.step("carry set")
    await harness.press(chief, last(), text=words["done"])
    w.step("done")
    await say(chief, "/stages set 2 games=4")
    w.step("set")
    await say(chief, "/stages close")
    w.step("tie")
    await say(chief, "/lot")
    await harness.press(chief, last(), text=words["draw"])
    w.step("lot")
    await say(chief, "/stages close")
    w.step("cut")
    await harness.press(chief, last(), text=words["close"])
    w.step("closed")
    await say(chief, "/stages close")
    w.step("last stage")
    cut = await _entrants(db, world)
    left_out = next(n for n in world.nicks if n not in cut)
    await say(chief, f"/stages replace {left_out}")
    w.step("replace refused")
    await say(chief, "/stages replace P11")  # sixth to ninth: always an entrant
    w.step("replaced")

    entrants = await _entrants(db, world)
    outsider = next(n for n in world.nicks if n not in entrants)
    judge = Driver(
        CardWorld(harness, db, tid=world.tournament_id, pids=world.players),
        harness.user(JUDGE, "Judge", language_code=lang),
    )
    await judge.start()
    await judge.say("1 1")
    w.step("card round")
    await judge.say("3 1")
    await judge.say("\n".join([*entrants[:9], outsider]))
    w.step("card outsider")
    await judge.say("/cancel")

    await say(chief, "/seating")
    w.step("seating question")
    await harness.press(chief, last(), text="1 ✓")
    await harness.press(chief, last(), text=words["accept"])
    w.step("seating")

    number = {nick: n for n, nick in enumerate(world.nicks, start=1)}
    await add_game(db, world, [number[nick] for nick in entrants], round_no=3)
    await harness.dispatcher["publisher"].standings_changed(harness.bot, world.tournament_id)
    w.step("final game")
    await say(player, "/rating")
    w.step("rating player")
    await say(chief, "/rating")
    w.step("rating chief")

    await say(chief, "/tournament", CHAT)
    card = last(CHAT)
    await harness.press(chief, card, text=words["finish"])
    asked = harness.session.message(CHAT, card.message_id)
    await harness.press(chief, asked, text=words["anyway"])
    await harness.settle()
    w.step("finish")
    await say(chief, "/export")
    w.step("export")
    return w


# Words a Russian reader of the stages should never meet: the stored English names of
# the preset stages, English words of its sentences and of the settings.
ENGLISH = re.compile(
    r"\b(qualifying|semifinal|final|stage|stages|the|of|and|entrants|players?|games?|"
    r"lot|round|table|standings|carry|weight|compensation|hidden|on|off|yes|no)\b"
)
RUSSIAN = re.compile(r"[А-Яа-яЁё]")
# The ids of the team's own decisions: no reader's business (the federation's 8.x are).
RULE_IDS = re.compile(r"\bD\d{1,2}\b")
# Commands, and what the chief judge typed read back to him.
TYPED = re.compile(r"/\w+|\b(two|maybe|abc|colour)\b")


def foreign_in(texts: Sequence[str], lang: str) -> list[str]:
    """The texts that show a D-id, or words of the other language."""
    other = ENGLISH if lang == "ru" else RUSSIAN
    found = []
    for text in texts:
        plain = TYPED.sub("", text)
        if other.search(plain) or RULE_IDS.search(plain):
            found.append(text)
    return found


async def test_d13_d17_a_two_stage_tournament_reads_in_russian(
    harness: BotHarness, db: Database
) -> None:
    """D13-D17 in Russian: what the chief judge, the judge, the players and the group
    read at each step, the stage names in Russian everywhere."""
    w = await walk(harness, db, "ru")
    everything = [text for step in w.seen.values() for _chat, text in step]
    assert foreign_in(everything, "ru") == []

    assert "/stages — Этапы турнира: полуфинал, финал (главный судья)" in w.one("help")
    card = w.one("card")
    assert "Один этап: 10 игр на игрока, все игроки." in card
    assert "Полуфинал: 2 игры, лучшие 20" in card and "Финал: 4 игры, один стол" in card

    # Each refusal names the setting as a Russian reader types it, and says why.
    assert w.texts("bad 0") == ["игр: нужно целое число от 1 до 1000, а не two."]
    assert w.texts("bad 1") == ["перенос: отрицательное значение недопустимо: -1."]
    assert w.texts("bad 2") == ["скрыт: нужно да или нет, а не maybe."]
    assert w.texts("bad 3") == [
        "Неизвестная настройка colour; настройки: название, игр, участников, перенос, вес, "
        "компенсация, скрыт."
    ]
    assert w.texts("bad 4") == ["Новому этапу нужны игр=N и участников=N."]
    assert w.texts("bad 5") == ["Участников 21, а игроков в предыдущем этапе всего 12."]
    assert "<code>/stages добавить НАЗВАНИЕ игр=N участников=N</code>" in w.one("bad 6")
    assert w.texts("bad 7") == [
        "В турнире один этап: сначала добавьте следующий командой /stages."
    ]
    assert w.texts("bad 8") == ["игр: нужно целое число от 1 до 1000, а не 0."]
    assert w.texts("bad 9") == ["вес: нужно число, например 0,5 или 1, а не abc."]
    assert "<code>/stages добавить НАЗВАНИЕ игр=2 участников=20 перенос=0,5 вес=1 " in card

    preset = w.one("preset", CHIEF)
    assert "1. <b>отбор</b>: 10 игр на игрока, все игроки · идёт" in preset
    assert "2. <b>финал</b>: 2 игры на игрока, лучшие 10" in preset
    assert "⚙ Этап 2, <b>финал</b>: нажмите на настройку" in preset
    assert "Перенос: 0" in w.texts("preset", CHIEF) and "Скрыт: да" in w.texts("preset", CHIEF)
    assert "Этап 1 из 2: отбор" in w.one("preset", CHAT)
    assert "Перенос: какую долю своих показателей" in w.one("carry values")
    assert "0,5" in w.texts("carry values")
    assert "лучшие 10, перенос 0,5, вес 1" in w.one("carry set", CHIEF)
    assert "Перенос: 0,5" in w.texts("carry set", CHIEF)
    assert "⚙ 2. финал" in w.texts("done", CHIEF)
    assert "2. <b>финал</b>: 4 игры на игрока" in w.one("set")

    tie = w.one("tie")
    assert "<b>Кубок</b>: закрытие этапа «отбор»." in tie
    assert "Проходят на этап «финал» (10): " in tie
    assert (
        "P12, P2, P7 делят место на границе прохода в следующий этап: сначала бросьте "
        "жребий командой /lot (8.7.5)."
    ) in tie
    lot = w.one("lot")
    assert "Места 10–12, жребий этапа «отбор»: P12, P2, P7" in lot
    assert "🎲 Жребий этапа «отбор» за места 10–12 (8.7.5), бросил главный судья: " in (
        w.one("lot", CHAT)
    )
    assert "Закрыть этап" in w.texts("cut", CHIEF)

    closed = w.one("closed", CHIEF)
    assert "Этап «отбор» закрыт; прошедшим в следующий этап сообщено." in closed
    group = w.one("closed", CHAT)
    assert "Этап «отбор» закрыт. На этап «финал» проходят: P4, " in group
    assert "Кубок: этап «отбор» закрыт; первые 10 проходят на этап «финал»" in group
    assert "Этап 2 из 2: финал" in group and "Рейтинг после 0 игр" in group
    assert "Кубок: вы проходите на этап «финал»." in w.texts("closed", PLAYER)
    assert w.texts("last stage") == [
        "Это последний этап: он завершается вместе с турниром — завершите турнир "
        "командой /tournament."
    ]
    assert w.one("replace refused").endswith(" — не участник текущего этапа.")
    replaced = w.one("replaced")
    assert "занимает место P11; записано." in replaced
    assert "на этап «финал» вместо снявшегося P11." in w.one("replaced", CHAT)

    assert (
        "Тур 1 относится к одному из прошлых этапов. Туры этапа «финал» идут после тура 2: "
        "введите тур этого этапа, например <code>3 1</code>."
    ) in w.texts("card round", JUDGE)
    assert "Не участники этапа «финал»: " in w.one("card outsider", JUDGE)

    question = w.one("seating question")
    assert "🪑 <b>Рассадка</b> этапа «финал» турнира «Кубок»" in question
    assert "Игроков этапа: 10; игр у каждого на этапе: 4." in question
    assert "<b>Кубок: этап «финал»</b>\n<b>Тур 3</b>" in w.one("seating", CHAT)

    # D17: the group and the players see games played only; the chief judge everything.
    hidden = "Рейтинг этого этапа скрыт до его окончания. Сыграно игр:"
    assert hidden in w.one("final game", CHAT) and "Рейтинг после 1 игры" in w.one(
        "final game", CHAT
    )
    assert hidden in w.one("rating player", PLAYER)
    chief = w.one("rating chief")
    assert hidden not in chief and "Скрыто от группы и игроков до конца этапа." in chief

    finish = w.one("finish", CHAT)
    [final] = [t for t in w.texts("finish", CHAT) if "Итоговый рейтинг по всем этапам (2)" in t]
    assert "Рейтинг после" not in final  # D16: of every stage, not the final's games
    assert "Кубок: итоговый рейтинг" in finish
    assert "«Кубок»: 3 игры, 12 игроков." in w.one("export")


async def test_d13_d17_a_two_stage_tournament_reads_in_english(
    harness: BotHarness, db: Database
) -> None:
    """D13-D17 in English: the same walk; the key texts name the stages plainly."""
    w = await walk(harness, db, "en")
    # The other entrants' Telegram speaks no English: their notices are Russian.
    english = {CHIEF, JUDGE, PLAYER, CHAT, None}
    everything = [text for step in w.seen.values() for chat, text in step if chat in english]
    assert foreign_in(everything, "en") == []
    assert "/stages — Stages: semifinal, final (chief)" in w.one("help")
    assert "One stage: 10 games a player, all players." in w.one("card")
    assert w.texts("bad 5") == ["21 entrants, but the stage before has only 12 players."]
    # Russian words are understood in an English tournament too; answered in English.
    assert w.texts("bad 8") == ["games must be a whole number from 1 to 1000, not 0."]
    assert w.texts("bad 9") == ["weight must be a number such as 0.5 or 1, not abc."]
    assert "2. <b>final</b>: 2 games a player, top 10" in w.one("preset", CHIEF)
    assert "top 10, carry 0.5, weight 1" in w.one("carry set", CHIEF)
    assert "<b>Cup</b>: closing the qualifying stage." in w.one("tie")
    assert "🎲 Lot of the qualifying stage for places 10–12 (8.7.5)" in w.one("lot", CHAT)
    group = w.one("closed", CHAT)
    assert "The qualifying stage is closed. Entering the final stage: P4, " in group
    assert "Standings after 0 games" in group
    assert "This is the last stage: it ends with the tournament (/tournament)." in (
        w.one("last stage")
    )
    assert "Not among the entrants of the final stage: " in w.one("card outsider", JUDGE)
    assert "The standings of this stage are hidden" in w.one("rating player", PLAYER)
    assert "The final standings of all 2 stages" in w.one("finish", CHAT)
