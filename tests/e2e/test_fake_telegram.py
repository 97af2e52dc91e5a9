"""FakeTelegram (the shared Telegram model over HTTP) against aiogram's real client: a
throwaway bot polls it inside the test. The last test drives the in-process front end
(RecordingSession) and the HTTP one with the same calls: one model, the same answers."""

from __future__ import annotations

import asyncio
import html
import io
import json
import math
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.filters import Command, CommandStart
from aiogram.types import (
    BotCommand,
    BufferedInputFile,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaDocument,
    InputMediaPhoto,
    Message,
)

from tests.support import RecordingSession
from tests.support.tg_formatting import EntityParseError, parse_html, utf16_len

from .fake_telegram import FakeTelegram, Limits


def make_bot(fake: FakeTelegram, token: str | None = None) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.base_url))
    return Bot(token or fake.token, session=session)


@asynccontextmanager
async def api_bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    """A Bot for direct API calls (no polling)."""
    bot = make_bot(fake)
    try:
        yield bot
    finally:
        await bot.session.close()


@asynccontextmanager
async def polling_bot(fake: FakeTelegram, router: Router, **kwargs: Any) -> AsyncIterator[Bot]:
    """A throwaway aiogram bot polling the fake until the block exits."""
    bot = make_bot(fake)
    dp = Dispatcher()
    dp.include_router(router)
    mark = len(fake.requests)
    task = asyncio.create_task(
        dp.start_polling(bot, handle_signals=False, polling_timeout=5, **kwargs))
    try:
        await fake.wait_for_request("getUpdates", since=mark)
        yield bot
    finally:
        if not task.done():
            await dp.stop_polling()
        await task


def png(width: int = 8, height: int = 6) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), "red").save(buf, format="PNG")
    return buf.getvalue()


def test_all_tests_here_are_marked_e2e(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("e2e") is not None


# ------------------------------------------------------------------------------ polling flow


async def test_command_reply_tap_and_edit(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    router = Router()

    @router.message(CommandStart())
    async def start(message: Message) -> None:
        kb = InlineKeyboardMarkup(inline_keyboard=[[
            InlineKeyboardButton(text="Yes", callback_data="answer:yes"),
            InlineKeyboardButton(text="Site", url="https://example.org"),
        ]])
        assert message.from_user is not None
        await message.answer(f"Hello, <b>{html.escape(message.from_user.first_name)}</b>!",
                             parse_mode="HTML", reply_markup=kb)

    @router.callback_query(F.data == "answer:yes")
    async def yes(query: CallbackQuery) -> None:
        assert isinstance(query.message, Message)
        await query.message.edit_text("You said yes")
        await query.answer("Done", show_alert=True)

    anna = fake.create_user("Анна", "anna")
    chat = fake.start_private(anna)
    async with polling_bot(fake, router):
        mark = fake.seq
        sent = fake.send_text(anna, chat, "/start")
        assert sent["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]
        msg = await fake.wait_for_message(chat, "Hello, Анна!", after=mark)
        assert msg.entities == [{"type": "bold", "offset": 7, "length": 4}]
        assert msg.source == "Hello, <b>Анна</b>!"
        assert msg.button_rows == [["Yes", "Site"]]
        with pytest.raises(AssertionError, match="not a callback button"):
            fake.tap(anna, msg, "Site")
        with pytest.raises(AssertionError, match="no button"):
            fake.tap(anna, msg, "No")

        query = fake.tap(anna, msg, "Yes")
        answer = await fake.wait_for_callback_answer(query)
        assert (answer.text, answer.show_alert) == ("Done", True)
        edited = await fake.wait_for_message(chat, "You said yes")
        assert edited is msg and edited.reply_markup is None and len(edited.revisions) == 1
        # The keyboard is gone after the edit, so the old button can't be tapped any more.
        with pytest.raises(AssertionError, match="no button"):
            fake.tap(anna, msg, "Yes")
        await fake.wait_idle()
    fake.assert_no_errors()
    assert fake.calls("sendmessage", chat=chat)[0].params["reply_markup"] == {
        "inline_keyboard": [[{"text": "Yes", "callback_data": "answer:yes"},
                             {"text": "Site", "url": "https://example.org"}]]}


async def test_unconfirmed_update_is_redelivered(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    user = fake.create_user("Ivan")
    chat = fake.start_private(user)
    got_it = asyncio.Event()

    crashing = Router()

    @crashing.message(Command("ping"))
    async def hang(message: Message) -> None:
        got_it.set()
        await asyncio.Event().wait()  # "crashes" before the next getUpdates confirms

    async with polling_bot(fake, crashing, handle_as_tasks=False):
        update = fake.send_text(user, chat, "/ping")
        await asyncio.wait_for(got_it.wait(), 5)
    [pending] = fake.pending_updates
    assert pending["message"]["message_id"] == update["message_id"]
    assert fake.delivery_count(pending) == 1

    healthy = Router()

    @healthy.message(Command("ping"))
    async def pong(message: Message) -> None:
        await message.answer("pong")

    async with polling_bot(fake, healthy):
        await fake.wait_for_message(chat, "pong")
        await fake.wait_idle()
    assert fake.delivery_count(pending) == 2
    assert fake.pending_updates == []


async def test_wait_idle_waits_for_slow_handler(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    router = Router()

    @router.message()
    async def echo_twice(message: Message) -> None:
        await message.answer("one")
        await asyncio.sleep(0.1)
        await message.answer("two")

    user = fake.create_user("Olga")
    chat = fake.start_private(user)
    async with polling_bot(fake, router):
        fake.send_text(user, chat, "hi")
        await fake.wait_idle(idle=0.3)
        assert [m.text for m in fake.messages(chat)] == ["one", "two"]


# ------------------------------------------------------------------------------ errors


async def test_validation_errors_match_telegram(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    fake.limits = None
    user = fake.create_user("Petr")
    chat = fake.start_private(user)
    async with api_bot(fake) as bot:
        with pytest.raises(TelegramBadRequest, match="message text is empty"):
            await bot.send_message(chat.id, "")
        with pytest.raises(TelegramBadRequest, match="message text is empty"):
            await bot.send_message(chat.id, " \n ")
        await bot.send_message(chat.id, "x" * 4096)
        with pytest.raises(TelegramBadRequest, match="message is too long"):
            await bot.send_message(chat.id, "x" * 4097)
        too_long = InlineKeyboardMarkup(inline_keyboard=[[
            InlineKeyboardButton(text="b", callback_data="я" * 33)]])  # 66 bytes
        with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
            await bot.send_message(chat.id, "hi", reply_markup=too_long)
        with pytest.raises(TelegramBadRequest, match="can't parse entities"):
            await bot.send_message(chat.id, "<b>bold <i>both</b></i>", parse_mode="HTML")
        with pytest.raises(TelegramBadRequest, match='Unsupported start tag "br"'):
            await bot.send_message(chat.id, "a<br>b", parse_mode="HTML")
        with pytest.raises(TelegramServerError, match="MarkdownV2 is not emulated"):
            await bot.send_message(chat.id, "Hi!", parse_mode="MarkdownV2")

        kb = InlineKeyboardMarkup(inline_keyboard=[[
            InlineKeyboardButton(text="ok", callback_data="ok")]])
        sent = await bot.send_message(chat.id, "<b>same</b>", parse_mode="HTML", reply_markup=kb)
        with pytest.raises(TelegramBadRequest, match="message is not modified: specified new"):
            await bot.edit_message_text("<b>same</b>", chat_id=chat.id,
                                        message_id=sent.message_id, parse_mode="HTML",
                                        reply_markup=kb)
        with pytest.raises(TelegramBadRequest, match="message is not modified"):
            await bot.edit_message_reply_markup(chat_id=chat.id, message_id=sent.message_id,
                                                reply_markup=kb)
        # Same text but bold removed: modified.
        await bot.edit_message_text("same", chat_id=chat.id, message_id=sent.message_id,
                                    reply_markup=kb)
        with pytest.raises(TelegramBadRequest, match="message to edit not found"):
            await bot.edit_message_text("new", chat_id=chat.id, message_id=9999)
        with pytest.raises(TelegramBadRequest, match="message to delete not found"):
            await bot.delete_message(chat.id, 9999)

        with pytest.raises(TelegramBadRequest, match="chat not found"):
            await bot.send_message(42, "hi")
        stranger = fake.create_user("Stranger")
        with pytest.raises(TelegramForbiddenError, match="bot can't initiate conversation"):
            await bot.send_message(stranger.id, "hi")
        fake.block_bot(user)
        with pytest.raises(TelegramForbiddenError, match="bot was blocked by the user"):
            await bot.send_message(chat.id, "hi")

        group = fake.create_group("Club", [stranger])
        await bot.send_message(group.id, "hello group")
        fake.kick_bot(group)
        with pytest.raises(TelegramForbiddenError,
                           match="Forbidden: bot was kicked from the group chat"):
            await bot.send_message(group.id, "hi")

        old = fake.create_group("Old", [stranger])
        new_id = fake.migrate_group(old)
        with pytest.raises(TelegramMigrateToChat) as migrated:
            await bot.send_message(old.id, "hi")
        assert migrated.value.migrate_to_chat_id == new_id
        assert "group chat was upgraded to a supergroup chat" in migrated.value.message
        again = await bot.send_message(new_id, "hi")
        assert again.chat.type == "supergroup"
    assert fake.internal_errors == []


async def test_wrong_token_and_unknown_method(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    bot = make_bot(fake, token="654321:WRONG")
    try:
        with pytest.raises(TelegramUnauthorizedError):
            await bot.get_me()
    finally:
        await bot.session.close()
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{fake.base_url}/bot{fake.token}/noSuchMethod") as resp:
            assert resp.status == 404
            assert await resp.json() == {"ok": False, "error_code": 404,
                                         "description": "Not Found"}
        async with http.get(f"{fake.base_url}/bot{fake.token}/GETME") as resp:
            body = await resp.json()
            assert body["ok"] and body["result"]["id"] == fake.bot_id
        async with http.get(f"{fake.base_url}/bot123:bad/getMe") as resp:
            assert resp.status == 401
            assert await resp.json() == {"ok": False, "error_code": 401,
                                         "description": "Unauthorized"}


async def test_unsupported_and_injected_errors(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    user = fake.create_user("Max")
    chat = fake.start_private(user)
    async with api_bot(fake) as bot:
        with pytest.raises(TelegramServerError, match="does not emulate sendPoll"):
            await bot.send_poll(chat.id, "Q?", options=["a", "b"])
        assert [r.method for r in fake.unsupported_calls] == ["sendPoll"]
        assert await bot.set_my_description("harmless") is True
        fake.inject_error("sendMessage", error_code=502, description="Bad Gateway")
        with pytest.raises(TelegramServerError, match="Bad Gateway"):
            await bot.send_message(chat.id, "hi")
        await bot.send_message(chat.id, "hi")


# ------------------------------------------------------------------------------ flood control


async def test_flood_per_chat_retry_after(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    fake.limits = Limits(chat_burst=2, chat_per_second=1.0)
    user = fake.create_user("Flood")
    chat = fake.start_private(user)
    async with api_bot(fake) as bot:
        await bot.send_message(chat.id, "1")
        await bot.send_message(chat.id, "2")
        with pytest.raises(TelegramRetryAfter) as exc:
            await bot.send_message(chat.id, "3")
        assert exc.value.retry_after == 1
        assert "Too Many Requests: retry after 1" in exc.value.message
        await asyncio.sleep(exc.value.retry_after)
        await bot.send_message(chat.id, "3")  # respected retry_after: fine
        assert fake.flood_violations == []

        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(chat.id, "4")
        await asyncio.sleep(0.1)  # well past the in-flight grace, long before retry_after
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(chat.id, "4")
    [violation] = fake.flood_violations
    assert violation.chat_id == chat.id and violation.early_by > 0.5
    assert fake.count_429 == 3
    assert [m.text for m in fake.messages(chat)] == ["1", "2", "3"]


async def test_flood_group_and_global_limits_with_time_scale(
        fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    fake.limits = Limits(chat_burst=100, group_per_minute=3, global_per_second=5,
                         time_scale=0.02)  # the 60 s group window lasts 1.2 s
    members = [fake.create_user(f"U{i}") for i in range(6)]
    group = fake.create_group("G", members)
    async with api_bot(fake) as bot:
        for i in range(3):
            await bot.send_message(group.id, f"g{i}")
        with pytest.raises(TelegramRetryAfter) as exc:
            await bot.send_message(group.id, "g3")
        # The first one leaves the window 1.2 s after it came: retry_after rounds it up.
        first, banned = fake.calls("sendMessage")[0], fake.flood_events[-1]
        assert exc.value.retry_after == math.ceil(first.time + 1.2 - banned.time)
        assert fake.flood_events[-1].scope == "group"

        fake.reset_flood_state()
        fake.time_scale = 1.0  # global: 5 per real second
        for user in members[:5]:
            fake.start_private(user)
            await bot.send_message(user.id, "hi")
        fake.start_private(members[5])
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(members[5].id, "hi")
        assert fake.flood_events[-1].scope == "global"


async def test_injected_flood(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    user = fake.create_user("Inj")
    chat = fake.start_private(user)
    fake.inject_flood(chat, retry_after=7)
    async with api_bot(fake) as bot:
        with pytest.raises(TelegramRetryAfter) as exc:
            await bot.send_message(chat.id, "hi")
    assert exc.value.retry_after == 7 and fake.flood_events[0].scope == "injected"


# ------------------------------------------------------------------------------ media & info


async def test_photo_and_document_uploads(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    user = fake.create_user("Media")
    chat = fake.start_private(user)
    image = png(8, 6)
    async with api_bot(fake) as bot:
        sent = await bot.send_photo(chat.id, BufferedInputFile(image, "table.png"),
                                    caption="<b>Table</b>", parse_mode="HTML")
        assert sent.photo is not None and (sent.photo[-1].width, sent.photo[-1].height) == (8, 6)
        stored = fake.last_message(chat)
        assert stored.photo is not None and stored.photo.data == image
        assert stored.photo.filename == "table.png"
        assert (stored.caption, stored.caption_entities) == (
            "Table", [{"type": "bold", "offset": 0, "length": 5}])
        await bot.send_photo(chat.id, sent.photo[-1].file_id)  # re-send by file_id

        doc = await bot.send_document(chat.id, BufferedInputFile(b"a;b\n1;2\n", "results.csv"))
        assert doc.document is not None and doc.document.file_name == "results.csv"
        assert fake.last_message(chat).document.data == b"a;b\n1;2\n"  # type: ignore[union-attr]

        with pytest.raises(TelegramBadRequest, match="IMAGE_PROCESS_FAILED"):
            await bot.send_photo(chat.id, BufferedInputFile(b"not an image", "x.png"))
        with pytest.raises(TelegramBadRequest, match="message caption is too long"):
            await bot.send_document(chat.id, BufferedInputFile(b"x", "x.txt"),
                                    caption="c" * 1025)


async def test_albums_of_documents_and_photos(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    chat = fake.start_private(fake.create_user("Album"))
    async with api_bot(fake) as bot:
        sent = await bot.send_media_group(chat.id, [
            InputMediaDocument(media=BufferedInputFile(b"{}", "t.json")),
            InputMediaDocument(media=BufferedInputFile(b"a;b", "s.csv"),
                               caption="<b>Files</b>", parse_mode="HTML"),
        ])
        assert [m.document.file_name for m in sent if m.document] == ["t.json", "s.csv"]
        stored = fake.messages(chat)
        assert [m.document.data for m in stored if m.document] == [b"{}", b"a;b"]
        assert stored[1].caption == "Files" and stored[0].caption is None
        assert stored[0].extra["media_group_id"] == stored[1].extra["media_group_id"]
        await bot.send_media_group(chat.id, [
            InputMediaPhoto(media=BufferedInputFile(png(), "1.png")),
            InputMediaPhoto(media=BufferedInputFile(png(), "2.png")),
        ])
        assert fake.last_message(chat).photo is not None
        with pytest.raises(TelegramBadRequest, match="can't be mixed"):
            await bot.send_media_group(chat.id, [
                InputMediaPhoto(media=BufferedInputFile(png(), "1.png")),
                InputMediaDocument(media=BufferedInputFile(b"x", "x.txt")),
            ])


async def test_hold_keeps_requests_until_released(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    chat = fake.start_private(fake.create_user("Slow"))
    async with api_bot(fake) as bot:
        hold = fake.hold("sendMessage", chat=chat)
        task = asyncio.create_task(bot.send_message(chat.id, "late"))
        held = await fake.wait_held(hold)
        assert held.response is None and fake.messages(chat) == []
        hold.release()
        assert (await task).text == "late" and held.ok
        await bot.send_message(chat.id, "not held")  # a released hold holds nothing more
        # A dropped hold: what a crash does to the requests in flight.
        hold = fake.hold("sendMessage", chat=chat)
        task = asyncio.create_task(bot.send_message(chat.id, "lost"))
        held = await fake.wait_held(hold)
        hold.drop()
        with pytest.raises(TelegramNetworkError):
            await task
        assert held.cancelled and held.response is None
        assert [m.text for m in fake.messages(chat)] == ["late", "not held"]


async def test_chat_members_commands_and_pins(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    owner, member = fake.create_user("Owner", "owner"), fake.create_user("Member")
    group = fake.create_group("Club", [owner, member], bot_is_admin=True)
    outsider = fake.create_user("Outsider")
    async with api_bot(fake) as bot:
        me = await bot.get_me()
        assert me.id == fake.bot_id and me.is_bot and me.username == "fake_test_bot"
        assert (await bot.get_chat_member(group.id, owner.id)).status == "creator"
        assert (await bot.get_chat_member(group.id, member.id)).status == "member"
        assert (await bot.get_chat_member(group.id, outsider.id)).status == "left"
        assert (await bot.get_chat_member(group.id, fake.bot_id)).status == "administrator"

        await bot.set_my_commands([BotCommand(command="start", description="Start"),
                                   BotCommand(command="help", description="Help")])
        assert fake.bot_commands() == ["start", "help"]
        assert [c.command for c in await bot.get_my_commands()] == ["start", "help"]
        with pytest.raises(TelegramBadRequest, match="BOT_COMMAND_INVALID"):
            await bot.set_my_commands([BotCommand(command="Start", description="x")])

        sent = await bot.send_message(group.id, "pin me")
        assert await bot.pin_chat_message(group.id, sent.message_id) is True
        assert fake.pinned(group) == [fake.last_message(group)]
        assert await bot.delete_message(group.id, sent.message_id) is True
        assert fake.messages(group) == [] and fake.messages(group, include_deleted=True)

        fake.demote_bot(group)
        other = await bot.send_message(group.id, "no rights")
        with pytest.raises(TelegramBadRequest, match="not enough rights"):
            await bot.pin_chat_message(group.id, other.message_id)


async def test_user_side_events_reach_an_aiogram_bot(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    seen: list[str] = []
    router = Router()

    @router.message(F.migrate_to_chat_id)
    async def migrated(message: Message) -> None:
        seen.append(f"migrate_to:{message.migrate_to_chat_id}")

    @router.message(F.new_chat_members)
    async def joined(message: Message) -> None:
        seen.append("joined:" + ",".join(u.first_name for u in message.new_chat_members or []))

    @router.my_chat_member()
    async def my_member(update: Any) -> None:
        seen.append(f"my:{update.new_chat_member.status}")

    @router.message(F.text)
    async def text(message: Message) -> None:
        seen.append(f"text:{message.text}")

    @router.callback_query()
    async def callback(query: CallbackQuery) -> None:
        seen.append(f"cb:{query.data}")
        await query.answer()
        await query.answer()  # a second answer is an error on Telegram

    user = fake.create_user("Vera")
    chat = fake.start_private(user)
    group = fake.create_group("Club", [user], bot_in_group=False)
    async with polling_bot(fake, router) as bot:
        fake.send_text(user, chat, "hello")
        await fake.wait_idle()
        own = await bot.send_message(chat.id, "tap me")
        fake.tap_raw(user, fake.message(chat, own.message_id), "forged:1")
        fake.add_bot(group, as_admin=True)
        new_id = fake.migrate_group(group)
        fake.block_bot(user)
        await fake.wait_until(lambda: len(seen) >= 6, what="6 events")
        await fake.wait_idle()
    # Handlers run as concurrent tasks: compare regardless of order.
    assert sorted(seen) == sorted(["text:hello", "cb:forged:1", "my:administrator",
                                   f"joined:{fake.bot_user.first_name}",
                                   f"migrate_to:{new_id}", "my:kicked"])
    [error] = fake.errors()
    assert error.method == "answerCallbackQuery"
    assert error.description == ("Bad Request: query is too old and response timeout expired "
                                 "or query ID is invalid")
    assert len(fake.callback_answers) == 1


async def test_edit_caption_leave_chat_and_username_lookup(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    owner = fake.create_user("Owner")
    group = fake.create_group("Public", [owner], supergroup=True, username="public_club")
    async with api_bot(fake) as bot:
        photo = await bot.send_photo("@public_club", BufferedInputFile(png(), "p.png"),
                                     caption="v1")
        await bot.edit_message_caption(chat_id=group.id, message_id=photo.message_id,
                                       caption="v2")
        assert fake.last_message(group).caption == "v2"
        with pytest.raises(TelegramBadRequest, match="there is no text in the message"):
            await bot.edit_message_text("x", chat_id=group.id, message_id=photo.message_id)
        fake.kick_bot(group)
        with pytest.raises(TelegramForbiddenError,
                           match="bot was kicked from the supergroup chat"):
            await bot.send_message(group.id, "still here?")


# ------------------------------------------------------------------------------ raw protocol


async def test_raw_bodies_json_urlencoded_multipart(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    fake.limits = None
    user = fake.create_user("Raw")
    chat = fake.start_private(user)
    url = f"{fake.base_url}/bot{fake.token}/sendMessage"
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json={"chat_id": chat.id, "text": "json",
                                        "reply_markup": markup}) as resp:
            assert (await resp.json())["result"]["reply_markup"] == markup
        form = {"chat_id": str(chat.id), "text": "123", "reply_markup": json.dumps(markup)}
        async with http.post(url, data=form) as resp:
            result = (await resp.json())["result"]
            assert result["text"] == "123" and result["reply_markup"] == markup
        mp = aiohttp.FormData()
        mp.add_field("chat_id", str(chat.id))
        mp.add_field("photo", png(), filename="p.png", content_type="image/png")
        async with http.post(f"{fake.base_url}/bot{fake.token}/sendPhoto", data=mp) as resp:
            assert resp.status == 200, await resp.text()
        async with http.post(url, data={"chat_id": str(chat.id), "text": "x",
                                        "reply_markup": "{not json"}) as resp:
            assert resp.status == 400
            assert (await resp.json())["description"] == (
                "Bad Request: can't parse reply keyboard markup JSON object")
    assert [m.content for m in fake.messages(chat)] == ["json", "123", ""]
    assert fake.messages(chat)[2].photo is not None


async def _get_updates(http: aiohttp.ClientSession, fake: FakeTelegram,
                       **params: Any) -> tuple[int, Any]:
    async with http.post(f"{fake.base_url}/bot{fake.token}/getUpdates", json=params) as resp:
        body = await resp.json()
        return resp.status, body.get("result", body)


async def test_get_updates_offsets_long_poll_and_conflict(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    user = fake.create_user("Poll")
    chat = fake.start_private(user)
    for i in range(3):
        fake.send_text(user, chat, f"m{i}")
    async with aiohttp.ClientSession() as http:
        _, first = await _get_updates(http, fake)
        _, again = await _get_updates(http, fake)
        assert first == again and len(first) == 3  # not confirmed: redelivered
        ids = [u["update_id"] for u in first]
        assert ids == list(range(ids[0], ids[0] + 3))
        _, rest = await _get_updates(http, fake, offset=ids[1])  # confirms ids[0]
        assert [u["update_id"] for u in rest] == ids[1:]
        _, limited = await _get_updates(http, fake, limit=1)
        assert [u["update_id"] for u in limited] == ids[1:2]
        _, last = await _get_updates(http, fake, offset=-1)
        assert [u["update_id"] for u in last] == ids[2:]
        await _get_updates(http, fake, offset=ids[2] + 1)
        assert fake.pending_updates == []

        started = time.monotonic()
        status, empty = await _get_updates(http, fake, timeout=1)
        assert (status, empty) == (200, []) and time.monotonic() - started >= 0.9

        async def later() -> None:
            await asyncio.sleep(0.2)
            fake.send_text(user, chat, "wake up")

        started = time.monotonic()
        (_, woke), _ = await asyncio.gather(_get_updates(http, fake, timeout=5), later())
        assert [u["message"]["text"] for u in woke] == ["wake up"]
        assert time.monotonic() - started < 2
        await _get_updates(http, fake, offset=woke[-1]["update_id"] + 1)

        first_poll = asyncio.create_task(_get_updates(http, fake, timeout=5))
        await fake.wait_until(lambda: fake.is_polling, what="first poll")
        second_poll = asyncio.create_task(_get_updates(http, fake, timeout=1))
        status, body = await first_poll
        assert status == 409 and "terminated by other getUpdates request" in body["description"]
        assert (await second_poll)[0] == 200

        await _get_updates(http, fake, allowed_updates=["message"])
        msg = fake.send_text(user, chat, "only messages")
        fake.tap_raw(user, msg, "forged")
        assert list(fake.dropped_updates[-1]) == ["callback_query"]
        _, updates = await _get_updates(http, fake)
        assert [next(k for k in u if k != "update_id") for u in updates] == ["message"]


async def test_group_privacy_mode_and_member_events(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    alice, bob = fake.create_user("Alice"), fake.create_user("Bob")
    group = fake.create_group("Party", [alice, bob], bot_is_admin=False)
    fake.send_text(alice, group, "just chatting")
    fake.send_text(alice, group, "/score@other_bot")
    assert fake.pending_updates == []  # privacy mode hides them
    fake.send_text(alice, group, "/score")
    fake.send_text(alice, group, f"/score@{fake.bot_user.username}")
    with pytest.raises(AssertionError, match="not a member"):
        fake.send_text(fake.create_user("Eve"), group, "hi")
    fake.kick_bot(group, by=alice)
    kinds = [next(k for k in u if k != "update_id") for u in fake.pending_updates]
    assert kinds == ["message", "message", "my_chat_member"]
    member_update = fake.pending_updates[2]["my_chat_member"]
    assert member_update["new_chat_member"]["status"] == "kicked"
    fake.send_text(alice, group, "/score")
    assert len(fake.pending_updates) == 3  # the bot no longer sees the group


async def test_user_cannot_write_before_start(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    user = fake.create_user("New")
    with pytest.raises(AssertionError, match="has not started the bot"):
        fake.send_text(user, fake.private_chat(user), "hi")
    msg = fake.press_start(user, "ref42")
    assert msg["text"] == "/start ref42"


# ------------------------------------------------------------------------------ formatting


_TRICKY = [*"aZ09 <>&;#x\"'/\\\n\t_*[]`ёЖ😀\u200b", "&lt;", "&amp;", "&#33;"]


def test_html_escaped_text_roundtrips() -> None:
    # Seeded random strings (hypothesis would write its cache into the repo root).
    rng = random.Random(20240601)
    for _ in range(300):
        text = "".join(rng.choice(_TRICKY) for _ in range(rng.randint(0, 30)))
        assert parse_html(html.escape(text, quote=False)) == (text, [])
        if text:
            plain, entities = parse_html(f"<b>{html.escape(text)}</b>")
            assert plain == text
            assert entities == [{"type": "bold", "offset": 0, "length": utf16_len(text)}]


def test_html_entities_and_errors() -> None:
    plain, entities = parse_html(
        '<b>a <i>b</i></b> <a href="https://x.y/?a=1&amp;b=2">l</a> 😀<code>c</code>'
        '<pre><code class="language-python">p</code></pre>&lt;&#33;')
    assert plain == "a b l 😀cp<!"
    assert entities == [
        {"type": "bold", "offset": 0, "length": 3},
        {"type": "italic", "offset": 2, "length": 1},
        {"type": "text_link", "url": "https://x.y/?a=1&b=2", "offset": 4, "length": 1},
        {"type": "code", "offset": 8, "length": 1},
        {"type": "pre", "language": "python", "offset": 9, "length": 1},
    ]
    for bad, message in [("<b>x", 'end tag corresponding to start tag "b"'),
                         ("x</b>", "Unexpected end tag"),
                         ("<b>x</i>", "Unmatched end tag"),
                         ("a < b", "Unclosed start tag"),
                         ("1 <3 >", "Unsupported start tag"),
                         ("<div>x</div>", 'Unsupported start tag "div"'),
                         ("<b", "Unclosed start tag")]:
        with pytest.raises(EntityParseError, match=message):
            parse_html(bad)


# ------------------------------------------------------------------------------ one model


def _comparable(value: Any) -> Any:
    """A result or an error, without what differs between two runs (dates, file ids)."""
    if isinstance(value, Exception):
        return f"{type(value).__name__}: {value}"
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()
                if k not in ("date", "edit_date", "file_id", "file_unique_id")}
    return value


async def _script(fake: Any, bot: Bot) -> list[Any]:
    """The same world and the same calls, whichever front end ``fake`` is."""
    anna = fake.create_user("Анна", "anna")
    fake.start_private(anna)
    stranger = fake.create_user("Stranger")
    group = fake.create_group("Club", [anna], bot_is_admin=True)
    old = fake.create_group("Old", [anna])
    kb = InlineKeyboardMarkup(inline_keyboard=[[
        InlineKeyboardButton(text="Yes", callback_data="y")]])
    calls: list[Any] = [
        lambda: bot.send_message(anna.id, "<b>Hi</b> &amp; all", parse_mode="HTML",
                                 reply_markup=kb),
        lambda: bot.edit_message_text("<b>Hi</b> &amp; all", chat_id=anna.id, message_id=1,
                                      parse_mode="HTML", reply_markup=kb),
        lambda: bot.edit_message_text("<i>Bye</i>", chat_id=anna.id, message_id=1,
                                      parse_mode="HTML"),
        lambda: bot.edit_message_reply_markup(chat_id=anna.id, message_id=99),
        lambda: bot.send_message(stranger.id, "hi"),
        lambda: bot.send_message(group.id, "x" * 4097),
        lambda: bot.send_message(group.id, "<b>open", parse_mode="HTML"),
        lambda: bot.send_photo(group.id, BufferedInputFile(png(3, 2), "t.png"), caption="T"),
        lambda: bot.get_chat_member(group.id, anna.id),
        lambda: bot.pin_chat_message(group.id, 1),
        lambda: bot.delete_message(group.id, 1),
        lambda: bot.delete_message(group.id, 1),
    ]
    results: list[Any] = []
    for call in calls:
        try:
            results.append(await call())
        except Exception as exc:  # the errors are compared too
            results.append(exc)
    query = fake.callback_query(anna, fake.message(anna.id, 1), "y")
    for _ in range(2):  # a query is answered once
        try:
            results.append(await bot.answer_callback_query(query["id"], text="ok"))
        except Exception as exc:
            results.append(exc)
    new_id = fake.migrate_group(old)
    try:
        await bot.send_message(old.id, "hi")
    except TelegramMigrateToChat as exc:
        results.append(exc.migrate_to_chat_id == new_id)
    return [_comparable(r) for r in results]


async def test_in_process_and_http_answer_alike(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    fake.limits = None
    async with api_bot(fake) as bot:
        over_http = await _script(fake, bot)
    session = RecordingSession(bot_username="fake_test_bot", bot_first_name="Test Bot")
    in_process = await _script(session.telegram, Bot(fake.token, session=session))
    assert in_process == over_http
    assert over_http[1].startswith("TelegramBadRequest") and "not modified" in over_http[1]
    assert "message to edit not found" in over_http[3]
    assert over_http[4].startswith("TelegramForbiddenError")
    assert "can't parse entities" in over_http[6]
    assert over_http[7]["photo"][-1]["width"] == 3 and over_http[-1] is True
    assert over_http[-3] is True and "query is too old" in over_http[-2]
