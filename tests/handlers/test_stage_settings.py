"""A stage's settings in the chief judge's words (RULES.md D13-D15, D17): the settings
card's buttons, edited in place; the typed form in Russian words and decimal commas;
bad values refused with the setting and the reason, nothing changed; a card gone stale
once the stage's first game is saved."""

from __future__ import annotations

from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage
from aiogram.types import Message, User

from bot.db import stages as stages_db
from bot.db.audit import audit_entries
from bot.db.connection import Database
from bot.db.stages import StageRow
from bot.services.phrases import Phrase
from bot.services.stage_settings import NAMES, SETTINGS, setting_of
from bot.texts.i18n import create_i18n
from bot.texts.phrases import say
from handlers.callbacks import SQL_MAX
from handlers.stage_card import CARRIES, MAX_STAGES, WEIGHTS, StageEdit
from tests.handlers.rating_fixtures import CHAT, CHIEF, add_game, make_world
from tests.support import BotHarness, buttons


async def _stages(db: Database, tid: int) -> list[StageRow]:
    async with db.read() as conn:
        return await stages_db.list_stages(conn, tid)


async def _changes(db: Database, tid: int) -> int:
    async with db.read() as conn:
        return len(await audit_entries(conn, tid, entity="stage"))


def _card(harness: BotHarness, chat: int = CHIEF) -> Message:
    found = harness.session.last_message(chat)
    assert found is not None
    return found


def _labels(message: Message) -> list[str]:
    return [label for label, _data in buttons(message)]


def _group_card(harness: BotHarness) -> Message:
    """The latest card in the group: the standings the bot posts after it have no
    buttons."""
    telegram = harness.session.telegram
    found = [m.to_api() for m in telegram.messages(CHAT)]
    ids = [m["message_id"] for m in found if m.get("reply_markup")]
    assert ids
    card = harness.session.message(CHAT, ids[-1])
    assert card is not None
    return card


def _alert(harness: BotHarness) -> str:
    answers = harness.session.requests_of(AnswerCallbackQuery)
    assert answers and answers[-1].show_alert
    return answers[-1].text or ""


def _sent(harness: BotHarness) -> int:
    """Messages sent to the chief judge."""
    return len([m for m in harness.session.requests_of(SendMessage) if m.chat_id == CHIEF])


async def _tap(harness: BotHarness, chief: User, *labels: str) -> None:
    for label in labels:
        await harness.press(chief, _card(harness), text=label)


async def test_a_russian_chief_sets_a_semifinal_and_a_final_with_buttons_only(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 24, language="ru")
    chief = harness.user(CHIEF, "Chief", language_code="ru")
    await harness.say(chief, "/stages")
    sent = _sent(harness)

    await _tap(harness, chief, "Полуфинал: 2 игры, лучшие 20")
    card = _card(harness)
    assert "⚙ Этап 2, <b>полуфинал</b>: нажмите на настройку" in (card.text or "")
    assert _labels(card) == [
        "Игр на игрока: 2",
        "Участников: 20",
        "Перенос: 0",
        "Вес: 1",
        "Компенсация: да",
        "Скрыт: нет",
        "✅ Готово",
    ]
    await _tap(harness, chief, "Игр на игрока: 2")
    assert _labels(_card(harness)) == [
        "1", "2 ✓", "3", "4", "5", "6", "8", "10", "12", "◀ Назад"
    ]
    await _tap(harness, chief, "3", "Участников: 20")
    assert _labels(_card(harness)) == ["10", "19", "20 ✓", "21", "24", "◀ Назад"]
    await _tap(harness, chief, "19", "Перенос: 0", "0,5", "✅ Готово")

    await _tap(harness, chief, "Финал: 2 игры, один стол")
    assert "Скрыт: да" in _labels(_card(harness))
    await _tap(harness, chief, "Игр на игрока: 2", "4", "Перенос: 0", "1", "Вес: 1", "1,5")
    await _tap(harness, chief, "Компенсация: нет", "Скрыт: да")
    card = _card(harness)
    assert "Компенсация: да" in _labels(card) and "Скрыт: нет" in _labels(card)
    assert "3. <b>финал</b>: 4 игры на игрока, лучшие 10, перенос 1, вес 1,5 · " in (
        card.text or ""
    )
    await _tap(harness, chief, "✅ Готово")
    assert "⚙ 3. финал" in _labels(_card(harness))

    first, semi, final = await _stages(db, world.tournament_id)
    assert (semi.name, semi.games_per_player, semi.entrants, semi.carry, semi.weight) == (
        "semifinal", 3, 19, "0.5", "1"
    )
    assert (semi.compensation, semi.hidden) == (True, False)
    assert (final.games_per_player, final.entrants, final.carry, final.weight) == (
        4, 10, "1", "1.5"
    )
    assert (final.compensation, final.hidden) == (True, False)
    assert first.entrants is None
    # One card, edited in place at every tap.
    assert _sent(harness) == sent
    edits = harness.session.requests_of(EditMessageText)
    assert len([e for e in edits if e.chat_id == CHIEF]) == 18  # a tap, an edit


async def test_the_typed_form_takes_russian_words_and_decimal_commas(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 24, language="ru")
    chief = harness.user(CHIEF, "Chief", language_code="ru")
    await harness.say(
        chief,
        "/stages добавить полуфинал игр=2 участников=20 перенос=0,5 вес=1 компенсация=нет "
        "скрыт=да",
        chat_id=CHAT,
    )
    _first, semi = await _stages(db, world.tournament_id)
    assert (semi.name, semi.games_per_player, semi.entrants, semi.carry, semi.weight) == (
        "полуфинал", 2, 20, "0.5", "1"
    )
    assert (semi.compensation, semi.hidden) == (False, True)
    # The answer is the new stage's settings card, in the group's language.
    card = _group_card(harness)
    assert "2. <b>полуфинал</b>: 2 игры на игрока, лучшие 20, перенос 0,5, вес 1" in (
        card.text or ""
    )
    assert "Перенос: 0,5" in _labels(card)

    await harness.say(chief, "/stages изменить 2 Вес=1,25 СКРЫТ=нет игры=4", chat_id=CHAT)
    _first, semi = await _stages(db, world.tournament_id)
    assert (semi.weight, semi.hidden, semi.games_per_player) == ("1.25", False, 4)
    # English words are understood in a Russian tournament, and answered in Russian.
    await harness.say(chief, "/stages set 2 carry=1 compensation=on", chat_id=CHAT)
    _first, semi = await _stages(db, world.tournament_id)
    assert (semi.carry, semi.compensation) == ("1", True)
    assert "Компенсация: да" in _labels(_group_card(harness))
    # The other verbs in Russian words too.
    await harness.say(chief, "/stages закрыть", chat_id=CHAT)
    assert "<b>Spring Cup</b>: закрытие этапа «отбор»." in (
        harness.session.last_text(CHAT) or ""
    )
    await harness.say(chief, "/stages заменить P1", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "Заменить можно только участника этапа, идущего после первого."
    )


async def test_bad_values_are_refused_with_the_setting_and_change_nothing(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 12, language="ru")
    chief = harness.user(CHIEF, "Chief", language_code="ru")
    await harness.say(chief, "/stages добавить финал игр=2 участников=10")
    before, changes = await _stages(db, world.tournament_id), await _changes(
        db, world.tournament_id
    )
    refusals = {
        "/stages изменить 2 игр=0": "игр: нужно целое число от 1 до 1000, а не 0.",
        "/stages изменить 2 игр=две": "игр: нужно целое число от 1 до 1000, а не две.",
        "/stages изменить 2 вес=abc": "вес: нужно число, например 0,5 или 1, а не abc.",
        "/stages изменить 2 перенос=-0,5": "перенос: отрицательное значение недопустимо: -0,5.",
        "/stages изменить 2 скрыт=может": "скрыт: нужно да или нет, а не может.",
        "/stages изменить 2 участников=13": "Участников 13, а игроков в предыдущем этапе всего 12.",
        "/stages изменить 2 цвет=красный": (
            "Неизвестная настройка цвет; настройки: название, игр, участников, перенос, "
            "вес, компенсация, скрыт."
        ),
        # One bad setting refuses the others with it.
        "/stages изменить 2 игр=4 вес=abc": "вес: нужно число, например 0,5 или 1, а не abc.",
        "/stages изменить 3 игр=4": "В турнире нет этапа 3; список этапов — /stages.",
        "/stages добавить полуфинал игр=2": "Новому этапу нужны игр=N и участников=N.",
    }
    for command, refusal in refusals.items():
        await harness.say(chief, command)
        assert harness.session.last_text(CHIEF) == refusal, command
    assert "<code>/stages изменить НОМЕР НАСТРОЙКА=ЗНАЧЕНИЕ</code>" in (
        await _said(harness, chief, "/stages изменить игр=4")
    )

    # The same refusals from a button whose value no card offers (an old or forged one).
    await harness.say(chief, "/stages")
    await _tap(harness, chief, "⚙ 2. финал")
    card = _card(harness)
    forged = {
        ("games", "0"): "игр: нужно целое число от 1 до 1000, а не 0.",
        ("entrants", "13"): "Участников 13, а игроков в предыдущем этапе всего 12.",
        ("weight", "."): "вес: нужно число, например 0,5 или 1, а не ..",
    }
    for (setting, value), refusal in forged.items():
        data = StageEdit(
            tournament_id=world.tournament_id, number=2, setting=setting, value=value
        )
        await harness.press(chief, card, data=data.pack())
        assert _alert(harness) == refusal, setting
    assert await _stages(db, world.tournament_id) == before
    assert await _changes(db, world.tournament_id) == changes


async def _said(harness: BotHarness, user: User, text: str) -> str:
    await harness.say(user, text)
    return harness.session.last_text(user.id) or ""


async def test_a_stale_settings_card_is_refused_once_the_first_game_is_saved(
    harness: BotHarness, db: Database
) -> None:
    world = await make_world(db, 12, language="ru")
    chief = harness.user(CHIEF, "Chief", language_code="ru")
    await harness.say(chief, "/stages add final games=2 entrants=10")
    await harness.say(chief, "/stages")
    assert _labels(_card(harness))[-2:] == ["⚙ 1. отбор", "⚙ 2. финал"]
    await _tap(harness, chief, "⚙ 1. отбор")
    card = _card(harness)
    assert _labels(card) == [
        "Игр на игрока: 10", "Вес: 1", "Компенсация: да", "Скрыт: нет", "✅ Готово"
    ]
    await _tap(harness, chief, "Игр на игрока: 10")
    picker = _card(harness)
    await add_game(db, world, range(1, 11))  # the qualifying's first game
    changes = await _changes(db, world.tournament_id)

    await harness.press(chief, picker, text="8")
    assert _alert(harness) == "В этапе 1 уже есть игры: изменить его больше нельзя."
    card = _card(harness)  # shown again as it is now: no setting to tap
    assert _labels(card) == ["✅ Готово"]
    assert "В этапе 1 уже есть игры: изменить его больше нельзя." in (card.text or "")
    first, _final = await _stages(db, world.tournament_id)
    assert first.games_per_player == 10
    assert await _changes(db, world.tournament_id) == changes
    # Nor does the typed form change it; the overview offers it no more.
    await harness.say(chief, "/stages изменить 1 игр=8")
    assert harness.session.last_text(CHIEF) == (
        "В этапе 1 уже есть игры: изменить его больше нельзя."
    )
    await harness.say(chief, "/stages")
    assert "⚙ 1. отбор" not in _labels(_card(harness))


async def test_a_value_tapped_again_records_nothing(harness: BotHarness, db: Database) -> None:
    world = await make_world(db, 12, language="ru")
    chief = harness.user(CHIEF, "Chief", language_code="ru")
    await harness.say(chief, "/stages add final games=2 entrants=10")
    changes = await _changes(db, world.tournament_id)
    await _tap(harness, chief, "Перенос: 0", "0 ✓")
    assert "Перенос: 0" in _labels(_card(harness))
    assert await _changes(db, world.tournament_id) == changes


def test_every_button_of_the_card_fits_telegram_s_64_bytes() -> None:
    longest = [
        StageEdit(
            tournament_id=SQL_MAX, number=MAX_STAGES, setting=setting, value=value
        ).pack()
        for setting, value in [
            ("compensation", "off"),
            ("entrants", "1000"),
            *(("carry", v) for v in CARRIES),
            *(("weight", v) for v in WEIGHTS),
        ]
    ]
    assert max(len(data.encode()) for data in longest) <= 64


def test_a_setting_is_named_in_a_word_its_reader_may_type() -> None:
    i18n = create_i18n()
    for language in ("ru", "en"):
        with i18n.context(), i18n.use_locale(language):
            for setting in SETTINGS:
                assert setting_of(say(Phrase(NAMES[setting]))) == setting, (language, setting)
