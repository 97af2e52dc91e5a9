"""The test support itself: updates reach handlers, replies are recorded, errors and
flood limits behave like Telegram's."""

from __future__ import annotations

from typing import Any

import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
)
from aiogram.filters import Command
from aiogram.methods import (
    AnswerCallbackQuery,
    CreateChatInviteLink,
    EditMessageText,
    GetMe,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import Response, TelegramType
from aiogram.types import (
    BufferedInputFile,
    CallbackQuery,
    ChatInviteLink,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)
from aiogram.utils.keyboard import InlineKeyboardBuilder

from tests.support import (
    ANONYMOUS_ADMIN_ID,
    BOT_ID,
    ApiError,
    BotHarness,
    Limits,
    RecordingSession,
    UpdateFactory,
    buttons,
)

# The smallest PNG: 2x1 pixels.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000020000000108020000007b40e8dd0000000f494441"
    "54789c63fccfc0c0c0c0000006080101cb4776750000000049454e44ae426082"
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lobby_router() -> Router:
    router = Router()

    @router.message(Command("start"))
    async def start(message: Message) -> None:
        assert message.from_user is not None
        keyboard = InlineKeyboardBuilder()
        keyboard.button(text="Join", callback_data="join")
        keyboard.button(text="Rules", url="https://example.org/rules")
        await message.answer(
            f"Hi, {message.from_user.first_name}!", reply_markup=keyboard.as_markup()
        )

    @router.callback_query(F.data == "join")
    async def join(callback: CallbackQuery) -> None:
        assert isinstance(callback.message, Message)
        await callback.answer("You're in")
        await callback.message.edit_text(f"Players: {callback.from_user.first_name}")

    return router


@pytest.fixture
async def harness() -> Any:
    dispatcher = Dispatcher()
    dispatcher.include_router(lobby_router())
    async with BotHarness(dispatcher) as harness:
        yield harness


async def test_command_and_callback_round_trip(harness: BotHarness) -> None:
    ann = harness.user(1001, "Ann", username="ann")
    await harness.send(harness.updates.private_message(ann, "/start"))

    assert harness.session.sent_texts(1001) == ["Hi, Ann!"]
    reply = harness.session.last_message(1001)
    assert reply is not None
    assert reply.from_user is not None and reply.from_user.id == BOT_ID
    assert reply.chat.type == "private"
    assert buttons(reply) == [("Join", "join"), ("Rules", None)]

    await harness.press(ann, reply, text="Join")

    [answer] = harness.session.requests_of(AnswerCallbackQuery)
    assert answer.text == "You're in"
    assert harness.session.last_text(1001) == "Players: Ann"
    assert harness.session.last_markup(1001) is None  # edit without markup drops the keyboard
    edited = harness.session.message(1001, reply.message_id)
    assert edited is not None and edited.text == "Players: Ann" and edited.edit_date
    assert harness.session.sent_texts(1001, edits=True) == ["Hi, Ann!", "Players: Ann"]


async def test_message_ids_are_shared_per_chat(harness: BotHarness) -> None:
    ann = harness.user(1001, "Ann")
    first = harness.updates.private_message(ann, "/start")
    await harness.send(first)
    reply = harness.session.last_message(1001)
    second = harness.updates.private_message(ann, "hello", reply_to=reply)

    assert first.message is not None and second.message is not None and reply is not None
    assert [first.message.message_id, reply.message_id, second.message.message_id] == [1, 2, 3]
    assert second.message.reply_to_message is not None
    assert second.message.reply_to_message.text == "Hi, Ann!"
    assert second.update_id == first.update_id + 1


async def test_group_commands_carry_a_bot_command_entity(harness: BotHarness) -> None:
    ann = harness.user(1001, "Ann")
    mine = harness.updates.group_message(ann, -100123, "/start@mafia_test_bot now")
    other = harness.updates.group_message(ann, -100123, "/start@other_bot")
    assert mine.message is not None and mine.message.entities is not None
    entity = mine.message.entities[0]
    assert (entity.type, entity.offset, entity.length) == ("bot_command", 0, 21)
    assert mine.message.chat.type == "supergroup"

    await harness.send(mine)
    await harness.send(other)  # Command() checks the mention against getMe

    assert harness.session.sent_texts(-100123) == ["Hi, Ann!"]


async def test_other_update_kinds_look_like_telegram(harness: BotHarness) -> None:
    ann = harness.user(1001, "Ann")
    anon = harness.updates.anonymous_admin_message(-100123, "/start", author_signature="Host")
    assert anon.message is not None and anon.message.from_user is not None
    assert anon.message.from_user.id == ANONYMOUS_ADMIN_ID
    assert anon.message.from_user.username == "GroupAnonymousBot"
    assert anon.message.sender_chat is not None and anon.message.sender_chat.id == -100123

    forwarded = harness.updates.private_message(ann, "fwd", forward_from=harness.user(7, "Bob"))
    assert forwarded.message is not None and forwarded.message.forward_origin is not None

    added = harness.updates.my_chat_member(-100123, ann, new="administrator")
    assert added.my_chat_member is not None
    assert added.my_chat_member.new_chat_member.status == "administrator"
    assert added.my_chat_member.new_chat_member.user.id == BOT_ID

    press = harness.updates.callback(ann, -100123, "join", message_id=77)
    assert press.callback_query is not None and press.callback_query.chat_instance
    assert isinstance(press.callback_query.message, Message)
    assert press.callback_query.message.message_id == 77


async def test_canned_answers(harness: BotHarness) -> None:
    bot, session = harness.bot, harness.session
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (42, "mafia_test_bot", True)

    member = await bot.get_chat_member(-100123, BOT_ID)
    assert member.status == "administrator"
    session.set_chat_member(-100123, 1001, "creator")
    assert (await bot.get_chat_member(-100123, 1001)).status == "creator"
    assert (await bot.get_chat_member(-100123, 1002)).status == "member"

    sent = await bot.send_message(-100123, "pin me")
    assert await bot.pin_chat_message(-100123, sent.message_id) is True
    assert session.telegram.pinned(-100123)[0].message_id == sent.message_id
    assert await bot.delete_message(-100123, sent.message_id) is True
    assert session.message(-100123, sent.message_id) is None
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await bot.delete_message(-100123, sent.message_id)

    photo = await bot.send_photo(-100123, BufferedInputFile(PNG, "table.png"), caption="Table 1")
    assert photo.photo and photo.caption == "Table 1" and photo.chat.type == "supergroup"
    assert (photo.photo[-1].width, photo.photo[-1].height) == (2, 1)
    with pytest.raises(TelegramBadRequest, match="IMAGE_PROCESS_FAILED"):
        await bot.send_photo(-100123, BufferedInputFile(b"png", "table.png"))
    document = await bot.send_document(1001, BufferedInputFile(b"x", "protocol.xlsx"))
    assert document.document is not None and document.document.file_name == "protocol.xlsx"
    assert session.sent_texts() == ["pin me", "Table 1"]  # captions count, bare media don't

    with pytest.raises(NotImplementedError, match="set_result"):
        await bot.create_chat_invite_link(-100123)
    session.set_result(
        CreateChatInviteLink,
        lambda method: ChatInviteLink(
            invite_link="https://t.me/+abc",
            creator=me,
            creates_join_request=False,
            is_primary=False,
            is_revoked=False,
        ),
    )
    assert (await bot.create_chat_invite_link(-100123)).invite_link == "https://t.me/+abc"


async def test_telegrams_checks_apply_in_process(harness: BotHarness) -> None:
    """The model behind the session is the e2e one: HTML is parsed, limits are checked,
    callback queries are answered once."""
    bot, session = harness.bot, harness.session
    sent = await bot.send_message(1, "<b>Round 1</b> &amp; more", parse_mode="HTML")
    assert sent.text == "Round 1 & more" and sent.entities is not None
    assert sent.entities[0].type == "bold"
    assert session.last_text(1) == "<b>Round 1</b> &amp; more"  # as the bot sent it
    with pytest.raises(TelegramBadRequest, match="can't parse entities"):
        await bot.send_message(1, "<b>open", parse_mode="HTML")
    with pytest.raises(TelegramBadRequest, match="message is too long"):
        await bot.send_message(1, "x" * 4097)
    with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
        await bot.send_message(1, "hi", reply_markup=InlineKeyboardMarkup(inline_keyboard=[[
            InlineKeyboardButton(text="b", callback_data="я" * 33)]]))  # 66 bytes
    press = harness.updates.callback(harness.user(1, "Ann"), sent, "x")
    assert press.callback_query is not None
    assert await bot.answer_callback_query(press.callback_query.id) is True
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_callback_query(press.callback_query.id)


async def test_handler_returned_method_is_executed() -> None:
    router = Router()

    @router.message()
    async def echo(message: Message) -> SendMessage:
        return message.answer(message.text or "")

    dispatcher = Dispatcher()
    dispatcher.include_router(router)
    harness = BotHarness(dispatcher)
    await harness.say(harness.user(5, "Eve"), "ping")
    assert harness.session.sent_texts(5) == ["ping"]


async def test_requests_go_through_session_middleware() -> None:
    seen: list[str] = []

    class Spy(BaseRequestMiddleware):
        async def __call__(
            self,
            make_request: NextRequestMiddlewareType[TelegramType],
            bot: Bot,
            method: TelegramMethod[TelegramType],
        ) -> Response[TelegramType]:
            seen.append(method.__api_method__)
            return await make_request(bot, method)

    session = RecordingSession()
    session.middleware(Spy())
    bot = Bot("42:TEST", session=session)
    message = await bot.send_message(1, "hi")
    assert seen == ["sendMessage"]
    assert message.message_id == 1 and message.text == "hi"
    assert await message.answer("again") is not None  # results are bound to the bot
    assert session.sent_texts(1) == ["hi", "again"]


async def test_scripted_errors_are_what_aiogram_raises() -> None:
    clock = FakeClock()
    session = RecordingSession(clock=clock)
    bot = Bot("42:TEST", session=session)

    session.fail_next("sendMessage", ApiError.flood(3))
    with pytest.raises(TelegramRetryAfter) as flood:
        await bot.send_message(1, "a")
    assert flood.value.retry_after == 3
    # Retrying before retry_after has passed is a violation, answered 429 again.
    clock.now += 2
    with pytest.raises(TelegramRetryAfter) as again:
        await bot.send_message(1, "a")
    assert again.value.retry_after == 1 and session.violations == 1
    assert await bot.send_message(2, "other chat") is not None  # penalties are per chat
    clock.now += 1
    assert (await bot.send_message(1, "a")).text == "a"
    assert session.sent_texts() == ["other chat", "a"]
    assert len(session.requests) == 4  # failed attempts are recorded too

    session.fail_next(SendMessage, ApiError.migrated(-1009), chat_id=-5)
    with pytest.raises(TelegramMigrateToChat) as migrated:
        await bot.send_message(-5, "b")
    assert migrated.value.migrate_to_chat_id == -1009

    session.fail_next("EditMessageText", ApiError.not_modified())
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await bot.edit_message_text("same", chat_id=1, message_id=1)

    session.fail_next(lambda m: getattr(m, "chat_id", None) == 7, ApiError.cant_initiate())
    with pytest.raises(TelegramForbiddenError, match="can't initiate conversation"):
        await bot.send_message(7, "dm")

    network_down = TelegramNetworkError(method=GetMe(), message="timeout")
    session.fail_next(None, network_down)
    with pytest.raises(TelegramNetworkError):
        await bot.get_me()
    assert (await bot.get_me()).id == BOT_ID  # scripts are consumed


async def test_edits_are_checked_like_telegram() -> None:
    session = RecordingSession()
    bot = Bot("42:TEST", session=session)
    keyboard = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="Vote", callback_data="vote")]]
    )
    sent = await bot.send_message(1, "Day 1", reply_markup=keyboard)
    with pytest.raises(TelegramBadRequest, match="not modified"):
        await sent.edit_text("Day 1", reply_markup=keyboard)
    edited = await sent.edit_text("Night 1")
    assert isinstance(edited, Message) and edited.reply_markup is None
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await bot.edit_message_text("x", chat_id=1, message_id=999)
    assert len(session.requests_of(EditMessageText)) == 3
    assert len(session.requests_of(EditMessageText, delivered=True)) == 1


async def test_limits_are_enforced_like_telegram() -> None:
    clock = FakeClock()
    session = RecordingSession(
        limits=Limits(chat_burst=3, chat_per_second=1, group_per_minute=20,
                      global_per_second=30),
        clock=clock,
    )
    bot = Bot("42:TEST", session=session)

    for text in ("one", "two", "three"):  # a chat may burst three
        await bot.send_message(1, text)
    with pytest.raises(TelegramRetryAfter) as too_fast:
        await bot.send_message(1, "four")
    assert too_fast.value.retry_after == 1 and session.limit_hits == 1
    await bot.get_chat_member(1, 1)  # not a message: never limited
    clock.now += 0.5
    with pytest.raises(TelegramRetryAfter):
        await bot.send_message(1, "four")  # still inside the retry_after
    assert session.violations == 1
    clock.now += 0.5
    await bot.send_message(1, "four")
    with pytest.raises(TelegramRetryAfter):  # then one a second: the bucket is empty
        await bot.send_message(1, "five")
    clock.now += 1
    await bot.send_message(1, "five")

    # 20 per minute in a group, even at 1 per second.
    for i in range(20):
        await bot.send_message(-100, f"g{i}")
        clock.now += 1
    with pytest.raises(TelegramRetryAfter) as group:
        await bot.send_message(-100, "g20")
    assert group.value.retry_after == 40  # now = +20 s; the first leaves the window at +60 s
    clock.now += 40
    await bot.send_message(-100, "g20")

    # 30 per second overall.
    clock.now += 100
    for chat_id in range(100, 130):
        await bot.send_message(chat_id, "broadcast")
    with pytest.raises(TelegramRetryAfter):
        await bot.send_message(130, "broadcast")
    assert session.sent_texts().count("broadcast") == 30
    assert session.limit_hits == 4 and session.violations == 1


async def test_time_scale_shrinks_the_windows() -> None:
    clock = FakeClock()
    session = RecordingSession(limits=Limits(time_scale=0.01), clock=clock)
    bot = Bot("42:TEST", session=session)
    for text in "abc":
        await bot.send_message(1, text)
    clock.now += 0.01  # "one second" later
    await bot.send_message(1, "d")
    assert session.limit_hits == 0


async def test_standalone_factory_and_clear() -> None:
    factory = UpdateFactory()  # no session: own ids, updates bound by feed_update
    ann = factory.user(1001, "Ann")
    assert ann.language_code == "ru"
    dispatcher = Dispatcher()
    dispatcher.include_router(lobby_router())
    session = RecordingSession()
    bot = Bot("42:TEST", session=session)

    await dispatcher.feed_update(bot, factory.private_message(ann, "/start"))
    assert session.sent_texts() == ["Hi, Ann!"]
    session.clear()
    assert session.requests == [] and session.sent_texts() == []
    assert session.last_message(1001) is not None  # chat state survives clear()
