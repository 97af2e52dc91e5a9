"""What the use cases say is data (``bot.services.phrases``); ``bot.texts.phrases.say``
words it in the reader's language, and ``bot.publishing.notices`` delivers the notices:
each in its own language, one that can't arrive logged while the rest still go."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from aiogram.exceptions import TelegramForbiddenError
from aiogram.methods import SendMessage
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.db.users import UserRow
from bot.publishing.notices import deliver
from bot.services import N_, Refusal
from bot.services.notices import Notice
from bot.services.phrases import (
    Clock,
    Joined,
    Nick,
    Person,
    Phrase,
    ProtestNote,
    StageName,
    Title,
    Verbatim,
    listed,
)
from bot.texts.i18n import create_i18n
from bot.texts.phrases import params_of, say

I18N = create_i18n()
AT = datetime(2024, 5, 1, 12, 5, tzinfo=UTC)


def test_a_phrase_is_said_in_the_reader_s_language_its_values_as_the_texts_show_them() -> None:
    refused = Refusal(
        N_("Already decided: {protest} at {at}. The decision is final (8.8.4)."),
        {"protest": ProtestNote(3, "upheld"), "at": Clock(AT, "Europe/Moscow")},
        alert=True,
    )
    with I18N.context():
        assert say(refused, "en") == (
            "Already decided: protest #3 upheld at 15:05 UTC+3. The decision is final (8.8.4)."
        )
        assert say(refused, "ru") == (
            "Уже решено: протест №3 удовлетворён в 15:05 UTC+3. Решение окончательное (8.8.4)."
        )
        with I18N.use_locale("ru"):  # None: the current language
            assert say(refused) == say(refused, "ru")


def test_people_s_words_are_escaped_and_plain_values_kept() -> None:
    said = Joined((
        Phrase(N_("{title}: you enter the {stage} stage."),
               {"title": Verbatim("A<B & C"), "stage": StageName("final")}),
        Title("Cup <1>"),
        Nick("M&M"),
        listed(["a<b", "c"]),
        Person(7, None),
        Person(8, UserRow(8, "Ann", "ann", "en", True, AT)),
        "<b>worded already</b>",
    ), "\n")
    with I18N.context():
        assert say(said, "en").split("\n") == [
            "A&lt;B &amp; C: you enter the final stage.",
            "«Cup &lt;1&gt;»",
            "<b>M&amp;M</b>",
            "a&lt;b, c",
            "user 7",
            "Ann (@ann)",
            "<b>worded already</b>",
        ]
        assert say(StageName("final"), "ru") == "финал"
        phrase = Phrase(N_("round {round}, table {table}"), {"round": 2, "table": Verbatim("<")})
        with I18N.use_locale("en"):
            assert params_of(phrase) == {"round": 2, "table": "&lt;"}


def test_text_worded_already_needs_no_translations() -> None:
    assert say("as it is") == "as it is"


class Bot:
    """Sends what it is given; a chat in ``blocked`` refuses (403)."""

    def __init__(self, *blocked: int) -> None:
        self.blocked = set(blocked)
        self.sent: list[tuple[int, str, Any]] = []

    async def send_message(self, chat_id: int, text: str, reply_markup: Any = None) -> object:
        if chat_id in self.blocked:
            method = SendMessage(chat_id=chat_id, text=text)
            raise TelegramForbiddenError(method=method, message="bot was blocked by the user")
        self.sent.append((chat_id, text, reply_markup))
        return object()


async def test_each_notice_in_its_reader_s_language_one_lost_and_the_rest_still_go(
    caplog: pytest.LogCaptureFixture,
) -> None:
    told = Phrase(N_("You are no longer a judge of {title}."), {"title": Title("Cup")})
    bot = Bot(2)

    def buttons() -> InlineKeyboardMarkup:  # made in each reader's language
        button = InlineKeyboardButton(text=_("Confirm"), callback_data="x")
        return InlineKeyboardMarkup(inline_keyboard=[[button]])

    notices = [Notice(1, told, "en"), Notice(2, told, "en"), Notice(3, told, "ru")]
    with I18N.context(), caplog.at_level("INFO"):
        arrived = await deliver(bot, notices, buttons)  # type: ignore[arg-type]
    assert arrived == 2
    assert [(chat, text) for chat, text, _markup in bot.sent] == [
        (1, "You are no longer a judge of «Cup»."),
        (3, "Вы больше не судья турнира «Cup»."),
    ]
    labels = [markup.inline_keyboard[0][0].text for _chat, _text, markup in bot.sent]
    assert labels == ["Confirm", "Подтвердить"]
    assert "notice to 2 not delivered" in caplog.text
