"""/export (the chief judge's files, private) and /rating image (the standings picture,
group or private, anyone in the tournament), through the whole bot."""

from __future__ import annotations

import io
import json

from aiogram.methods import AnswerCallbackQuery, SendMediaGroup, SendPhoto
from aiogram.types import BufferedInputFile
from PIL import Image

from bot.db import players, tournaments
from bot.db.connection import Database
from handlers.exports import ExportPick, ImagePick
from tests.support import BotHarness, buttons
from tests.test_publishing import CHIEF, GROUP, draft, make_tournament, save

PLAYER = 8101
STRANGER = 8102


async def world(db: Database, *, title: str = "Весенний кубок", chat_id: int = GROUP) -> int:
    """A tournament with two saved games; PLAYER is linked to its first player."""
    t, ids = await make_tournament(db, title=title, chat_id=chat_id)
    await save(db, t.id, draft(1, 1, ids[:10], first_killed=2))
    await save(db, t.id, draft(1, 2, ids[10:20], result="black"))
    async with db.transaction() as conn:
        await players.link_player(conn, ids[0], PLAYER)
    return t.id


def albums(h: BotHarness, chat_id: int) -> list[SendMediaGroup]:
    return [m for m in h.session.requests_of(SendMediaGroup, delivered=True)
            if m.chat_id == chat_id]


def photos(h: BotHarness, chat_id: int) -> list[SendPhoto]:
    return [m for m in h.session.requests_of(SendPhoto, delivered=True) if m.chat_id == chat_id]


def document(item: object) -> BufferedInputFile:
    media = item.media  # type: ignore[attr-defined]
    assert isinstance(media, BufferedInputFile)
    return media


# -- /export ------------------------------------------------------------------------------


async def test_chief_gets_the_seven_files_in_private(harness: BotHarness, db: Database) -> None:
    tid = await world(db)
    chief = harness.user(CHIEF, "Главный")

    await harness.say(chief, "/export")

    (album,) = albums(harness, CHIEF)
    files = {document(item).filename: document(item).data for item in album.media}
    assert sorted(files) == sorted([
        f"tournament-{tid}.json", f"standings-{tid}.csv", f"standings-{tid}.xlsx",
        f"protocols-{tid}.md", f"audit-{tid}.csv", f"ratings-{tid}.csv",
        f"ratings-input-{tid}.json",
    ])
    audit_lines = files[f"audit-{tid}.csv"].decode("utf-8-sig").splitlines()
    assert audit_lines[0] == "at,action,by,entity,entity_id,before,after"
    assert [g["id"] for g in json.loads(files[f"tournament-{tid}.json"])["games"]] == [
        "R1-T1", "R1-T2"
    ]
    assert files[f"standings-{tid}.csv"].startswith(b"\xef\xbb\xbf")
    assert "Весенний кубок" in (album.media[-1].caption or "")


async def test_chief_of_two_tournaments_picks_one(harness: BotHarness, db: Database) -> None:
    first = await world(db, title="Осенний кубок", chat_id=-100501)
    second = await world(db, title="Зимний кубок", chat_id=-100502)
    chief = harness.user(CHIEF, "Главный")

    await harness.say(chief, "/export")
    picker = harness.session.last_message(CHIEF)
    assert [text for text, _ in buttons(picker)] == ["Зимний кубок", "Осенний кубок"]
    assert albums(harness, CHIEF) == []

    await harness.press(chief, picker, text="Осенний кубок")

    (answer,) = harness.session.requests_of(AnswerCallbackQuery)
    assert answer.text == "Готовлю файлы…"
    (album,) = albums(harness, CHIEF)
    names = [document(item).filename for item in album.media]
    assert f"tournament-{first}.json" in names and f"tournament-{second}.json" not in names


async def test_finished_tournament_can_be_exported(harness: BotHarness, db: Database) -> None:
    tid = await world(db)
    async with db.transaction() as conn:
        await tournaments.set_status(conn, tid, "finished")
    await harness.say(harness.user(CHIEF, "Главный"), "/export")
    assert len(albums(harness, CHIEF)) == 1


async def test_not_a_chief_gets_one_line(harness: BotHarness, db: Database) -> None:
    await world(db)
    player = harness.user(PLAYER, "Игрок")
    await harness.say(player, "/export")
    assert albums(harness, PLAYER) == []
    assert "только главный судья" in (harness.session.last_text(PLAYER) or "")


async def test_stale_or_forged_pick_is_refused(harness: BotHarness, db: Database) -> None:
    tid = await world(db)
    player = harness.user(PLAYER, "Игрок")
    forged = harness.updates.callback(
        player, PLAYER, ExportPick(tournament_id=tid).pack(), message_id=1
    )
    await harness.send(forged)
    (answer,) = harness.session.requests_of(AnswerCallbackQuery)
    assert answer.text and "главный судья" in answer.text
    gone = harness.updates.callback(
        player, PLAYER, ExportPick(tournament_id=999).pack(), message_id=1
    )
    await harness.send(gone)
    assert harness.session.requests_of(AnswerCallbackQuery)[-1].text == "Эта карточка устарела."
    assert albums(harness, PLAYER) == []


async def test_export_in_the_group_points_to_private(harness: BotHarness, db: Database) -> None:
    await world(db)
    await harness.say(harness.user(CHIEF, "Главный"), "/export", chat_id=GROUP)
    assert albums(harness, GROUP) == []
    assert "личный чат" in (harness.session.last_text(GROUP) or "")


# -- /rating image ------------------------------------------------------------------------


async def test_player_asks_for_the_picture_in_the_group(harness: BotHarness, db: Database) -> None:
    await world(db)
    await harness.say(harness.user(PLAYER, "Игрок"), "/rating image", chat_id=GROUP)

    (photo,) = photos(harness, GROUP)
    assert isinstance(photo.photo, BufferedInputFile)
    image = Image.open(io.BytesIO(photo.photo.data))
    assert image.format == "PNG" and image.size[0] >= 1000
    assert "Весенний кубок" in (photo.caption or "")


async def test_picture_in_private_for_a_judge(harness: BotHarness, db: Database) -> None:
    await world(db)
    await harness.say(harness.user(CHIEF, "Главный"), "/rating image")
    assert len(photos(harness, CHIEF)) == 1


async def test_stranger_in_the_group_gets_no_picture(harness: BotHarness, db: Database) -> None:
    await world(db)
    await harness.say(harness.user(STRANGER, "Гость"), "/rating image", chat_id=GROUP)
    assert photos(harness, GROUP) == []
    assert "только игроки и судьи" in (harness.session.last_text(GROUP) or "")


async def test_plain_rating_is_left_to_the_rating_router(
    harness: BotHarness, db: Database
) -> None:
    await world(db)
    await harness.say(harness.user(PLAYER, "Игрок"), "/rating", chat_id=GROUP)
    assert photos(harness, GROUP) == []
    assert "<pre>" in (harness.session.last_text(GROUP) or "")


async def test_no_games_yet_says_so(harness: BotHarness, db: Database) -> None:
    await make_tournament(db)
    await harness.say(harness.user(CHIEF, "Главный"), "/rating image")
    assert photos(harness, CHIEF) == []
    assert "Засчитанных игр пока нет" in (harness.session.last_text(CHIEF) or "")


async def test_someone_in_two_tournaments_picks_one(harness: BotHarness, db: Database) -> None:
    await world(db, title="Осенний кубок", chat_id=-100601)
    second = await world(db, title="Зимний кубок", chat_id=-100602)
    chief = harness.user(CHIEF, "Главный")
    await harness.say(chief, "/rating image")
    picker = harness.session.last_message(CHIEF)
    assert ImagePick(tournament_id=second).pack() in [data for _, data in buttons(picker)]

    await harness.press(chief, picker, text="Зимний кубок")

    (photo,) = photos(harness, CHIEF)
    assert "Зимний кубок" in (photo.caption or "")
