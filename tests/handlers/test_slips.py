"""The details players and judges meet: the judge's card without slips (no seat selected
on entry, penalties and limits as they are), one minus sign and real plurals, /lot's
buttons and its one announcement, one language in a group, local time, who applied."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from aiogram.methods import SendMessage
from babel.messages.extract import extract_from_dir
from pydantic import ValidationError

from bot.config import Settings
from bot.db import tournaments
from bot.db.connection import Database
from bot.reads.export import load_export, protocols_md
from bot.texts.i18n import create_i18n, read_catalog
from tests.handlers import rating_fixtures as rf
from tests.handlers.test_game_entry_support import GROUP, World
from tests.handlers.tournament_fixtures import (
    current,
    last_answer,
    reply_to_bot,
    running_tournament,
)
from tests.support import BotHarness, buttons

ROOT = Path(__file__).resolve().parents[2]
ROLES = (1, 2, (3, 4))  # sheriff 1, don 2, mafia 3 and 4, civilians 5–10
MINUS = "\u2212"
CHAT = -100_900
CHIEF = 901
JUDGE = 902
GNU = 903


async def set_timezone(db: Database, tournament_id: int, zone: str) -> None:
    async with db.transaction() as conn:
        await tournaments.set_timezone(conn, tournament_id, zone)


async def group_tournament(db: Database, chat_id: int = CHAT) -> tournaments.TournamentRow:
    async with db.read() as conn:
        [found] = await tournaments.tournaments_for_chat(conn, chat_id)
    return found


def bot_texts_since(harness: BotHarness, chat_id: int, mark: int) -> list[str]:
    """Texts of the messages the bot sent (not edited) to ``chat_id`` after ``mark``
    delivered messages."""
    sent = harness.session.requests_of(SendMessage, delivered=True)
    return [m.text for m in sent[mark:] if m.chat_id == chat_id]


# -- the judge's card -------------------------------------------------------------------------


async def test_no_step_opens_with_a_seat_already_selected(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=None, result="Black win")
    await judge.tap("7")  # seat 7 disqualified: the last seat touched before penalties
    await judge.next()
    assert "Step 9/11: Penalties" in judge.text
    # Nothing selected: no seat in brackets, no reasons to tap, a prompt instead.
    assert "Tap a seat first." in judge.text
    assert not any(label.startswith("[") for label in judge.labels())
    assert not any(label.startswith(("☐", "☑")) for label in judge.labels())
    await judge.tap("1")  # the sheriff, tapped on purpose
    assert "[1]" in judge.labels() and "☐ 8.5.1" in judge.labels()
    await judge.tap("☐ 8.5.1")
    await judge.next()
    assert "Step 10/11: Judge's extra points" in judge.text
    # Not the penalised seat either: no value buttons until a seat is tapped.
    assert "Tap a seat first." in judge.text
    assert not any(label.startswith(("[", "0.")) for label in judge.labels())
    await judge.say("0.3")  # a value typed with no seat: refused, nothing given
    assert "Tap a seat first" in (judge.last_sent() or "")
    assert "Judge's points" not in judge.text
    await judge.tap("2")
    assert "[2]" in judge.labels() and "0.3" in judge.labels()
    # Back to the penalties: the step opens with nothing selected again.
    await judge.back()
    assert "Tap a seat first." in judge.text
    assert not any(label.startswith("[") for label in judge.labels())


async def test_a_penalty_on_a_seat_button_reads_as_points(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=None, result="Black win")
    await judge.next()
    await judge.tap("1")
    await judge.tap("☐ 8.5.1")
    assert f"[1 {MINUS}0.4]" in judge.labels()
    await judge.tap("☐ 8.5.3")
    await judge.tap("5")
    assert f"1 {MINUS}0.8" in judge.labels() and "[5]" in judge.labels()
    assert not any("−1" in label or "-" in label for label in judge.labels())
    await judge.to_review()
    assert f"1. Alpha (sheriff): penalties {MINUS}0.8 = <b>{MINUS}0.8</b>" in judge.text
    assert "-0." not in judge.text


async def test_8_4_2_the_prompt_names_the_real_limit_as_the_buttons_do(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=None, result="Red win")
    await judge.next()
    await judge.next()
    for typed in ("5 0.5", "6 0.3", "7 0.1"):  # 0.9 of 1.0 given
        await judge.say(typed)
    await judge.tap("8")
    assert "Seat 8 (Hotel): up to 0.1 (8.4.2: at most 1 in all)." in judge.text
    assert judge.text.count("Seat 8 (Hotel): up to") == 1
    values = [label for label in judge.labels() if label.startswith("0.")]
    assert values == ["0.05", "0.1"]
    await judge.tap("0.05")
    await judge.tap("9")  # a fifth player (8.4.1)
    assert "Seat 9 (India): no points can be given (8.4.1: at most 4 players)." in judge.text
    assert not any(label.startswith("0.") for label in judge.labels())


async def test_plurals_and_one_minus_sign_on_the_card_and_in_the_group(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.enter(roles=ROLES, night=5, result="Black win")
    await judge.to_review()
    assert "shot on night 1 as red 1 time in this tournament" in judge.text
    await judge.save()
    texts = harness.session.sent_texts(GROUP, edits=True)
    assert any("Standings after 1 game\n" in t for t in texts)
    assert not any("1 games" in t for t in texts)
    second = world.judge()
    await second.enter(round_table="2 1", roles=ROLES, night=5, result="Black win")
    await second.to_review()
    assert "shot on night 1 as red 2 times in this tournament" in second.text
    assert "time(s)" not in second.text


async def test_plural_forms_in_russian_and_english(harness: BotHarness, db: Database) -> None:
    for chat_id, distance, language, expected in (
        (-100_901, 1, "en", "Distance: 1 game per player (8.6.1)"),
        (-100_902, 21, "ru", "Дистанция: 21 игра на игрока (8.6.1)"),
        (-100_903, 3, "ru", "Дистанция: 3 игры на игрока (8.6.1)"),
        (-100_904, 11, "ru", "Дистанция: 11 игр на игрока (8.6.1)"),
    ):
        await running_tournament(
            db, chief_id=CHIEF, chat_id=chat_id, distance=distance, language=language
        )
        chief = harness.user(CHIEF, "Anna", language_code="en")
        await harness.say(chief, "/tournament", chat_id=chat_id)
        assert expected in (harness.session.last_text(chat_id) or "")
    i18n = create_i18n(ROOT / "locales")
    ci = (
        "Ci of seat {seat} = {ci}: shot on night 1 as red {i} time in this tournament, "
        "B = {b} (8.6.1). Ci depends on the whole tournament: a later first-night "
        "death raises it in this game too."
    )
    plural = ci.replace("{i} time", "{i} times")
    shown = {n: i18n.gettext(ci, plural, n, locale="ru").format(seat=5, ci="0.1", i=n, b=4)
             for n in (1, 2, 5)}
    assert "в красной роли 1 раз," in shown[1] and "2 раза," in shown[2] and "5 раз," in shown[5]


def test_no_text_keeps_a_parenthesised_plural_or_a_hyphen_for_minus() -> None:
    ids: set[str] = set()
    for folder in ("bot", "handlers"):
        for _file, _line, message, _comments, _ctx in extract_from_dir(
            ROOT / folder, keywords={"_": None, "__": None, "N_": None}
        ):
            ids.add(message[0] if isinstance(message, tuple) else message)
    catalog = read_catalog(ROOT / "locales/ru/LC_MESSAGES")
    russian = [
        text
        for m in catalog
        if m.id and (m.id if isinstance(m.id, str) else m.id[0]) in ids
        for text in ([m.string] if isinstance(m.string, str) else m.string)
    ]
    slips = re.compile(r"\((s|а|ы|и|ов|ей)\)|(?<![\w/.])-\d")
    found = [t[:60] for t in [*ids, *russian] if slips.search(t)]
    assert found == []


# -- /lot ---------------------------------------------------------------------------------------


async def test_lot_in_the_group_one_announcement_in_its_language_and_the_button_goes(
    harness: BotHarness, db: Database
) -> None:
    await rf.tied_world(db, language="ru")
    chief = harness.user(rf.CHIEF, "Chief", language_code="en")  # he reads English himself
    await harness.say(chief, "/lot", chat_id=rf.CHAT)
    offer = harness.session.last_message(rf.CHAT)
    assert offer is not None
    assert [label for label, _ in buttons(offer)] == [
        "Жребий за места 5–6",
        "Жребий за места 9–10",
    ]
    mark = len(harness.session.requests_of(SendMessage, delivered=True))
    await harness.press(chief, offer, text="Жребий за места 5–6")
    about_the_draw = [t for t in bot_texts_since(harness, rf.CHAT, mark) if "5. P" in t]
    assert len(about_the_draw) == 1 and about_the_draw[0].startswith("🎲 Жребий")
    assert not any("Lot" in t for t in bot_texts_since(harness, rf.CHAT, mark))
    # The drawn group's button is gone from the offer; the other group's stays.
    after = current(harness, rf.CHAT, offer.message_id)
    assert [label for label, _ in buttons(after)] == ["Жребий за места 9–10"]


async def test_lot_in_private_shows_the_draw_on_the_offer_without_its_button(
    harness: BotHarness, db: Database
) -> None:
    await rf.tied_world(db)
    chief = harness.user(rf.CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/lot")
    offer = harness.session.last_message(rf.CHIEF)
    mark = len(harness.session.requests_of(SendMessage, delivered=True))
    await harness.press(chief, offer, text="Draw for places 9–10")
    after = current(harness, rf.CHIEF, offer.message_id)  # type: ignore[union-attr]
    assert "Lot drawn for places 9–10 (8.7.5)" in (after.text or "")
    assert [label for label, _ in buttons(after)] == ["Draw for places 5–6"]
    assert bot_texts_since(harness, rf.CHIEF, mark) == []  # no second message
    await harness.press(chief, after, text="Draw for places 5–6")
    assert buttons(current(harness, rf.CHIEF, offer.message_id)) == []  # type: ignore[union-attr]


# -- one language in a group --------------------------------------------------------------------


async def test_the_group_reads_the_tournament_language_private_chats_the_users(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(db, chief_id=CHIEF, chat_id=CHAT, language="ru")
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    assert "Статус: идёт" in (harness.session.last_text(CHAT) or "")
    await harness.say(chief, "/rating nonsense", chat_id=CHAT)
    assert "Отправьте /rating" in (harness.session.last_text(CHAT) or "")
    await harness.say(chief, "/tournament")
    assert "Status: running" in (harness.session.last_text(CHIEF) or "")


async def test_new_tournament_asks_the_group_language_russian_by_default(
    harness: BotHarness, db: Database
) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/new_tournament", chat_id=CHAT)
    assert "title" in (harness.session.last_text(CHAT) or "")  # no tournament yet: his
    await reply_to_bot(harness, chief, CHAT, "Cup")
    await reply_to_bot(harness, chief, CHAT, "1")
    created = harness.session.last_message(CHAT)
    assert created is not None
    # In the English-speaking chief judge's language until he answers; the question
    # in both, for a group that has no language yet.
    text = created.text or ""
    assert "Tournament «Cup» is created: 1 game per player" in text
    assert "Which language shall I write in here?" in text
    assert "На каком языке мне писать здесь?" in text
    assert "Europe/Moscow, UTC+3" in text  # TIMEZONE's default
    assert [label for label, _ in buttons(created)] == ["Русский", "English"]
    made = await group_tournament(db)
    assert (made.language, made.timezone) == ("ru", "Europe/Moscow")

    judge = harness.user(JUDGE, "Jack", language_code="en")
    await harness.press(judge, created, text="English")
    assert (await group_tournament(db)).language == "ru"
    await harness.press(chief, created, text="English")
    edited = current(harness, CHAT, created.message_id)
    assert "Tournament «Cup» is created: 1 game per player" in (edited.text or "")
    assert "Language of the group: English." in (edited.text or "")
    assert buttons(edited) == []
    assert (await group_tournament(db)).language == "en"
    await harness.say(chief, "/tournament", chat_id=CHAT)
    assert "Status: registration" in (harness.session.last_text(CHAT) or "")


async def test_new_tournament_takes_the_language_and_time_zone_as_arguments(
    harness: BotHarness, db: Database
) -> None:
    chief = harness.user(CHIEF, "Anna", language_code="ru")
    await harness.say(chief, "/new_tournament klingon", chat_id=CHAT)
    assert "Не понимаю «klingon»" in (harness.session.last_text(CHAT) or "")
    await harness.say(chief, "/new_tournament Asia/Yekaterinburg en", chat_id=CHAT)
    await reply_to_bot(harness, chief, CHAT, "Ural Cup")
    await reply_to_bot(harness, chief, CHAT, "8")
    created = harness.session.last_message(CHAT)
    assert created is not None and buttons(created) == []
    assert "Tournament «Ural Cup» is created: 8 games per player" in (created.text or "")
    assert "Asia/Yekaterinburg, UTC+5" in (created.text or "")
    made = await group_tournament(db)
    assert (made.language, made.timezone) == ("en", "Asia/Yekaterinburg")


async def test_the_publisher_posts_in_the_tournament_language(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db, language="ru")
    judge = world.judge()  # an English-speaking judge
    await judge.enter(roles=ROLES, night=None, result="Red win")
    await judge.to_review()
    await judge.save()
    assert "Saved" in judge.text
    group = harness.session.sent_texts(GROUP, edits=True)
    assert any(t.startswith("Тур 1, стол 1") for t in group)
    assert any("Рейтинг после 1 игры" in t for t in group)
    assert not any("Round 1" in t or "Standings" in t for t in group)


# -- local time ---------------------------------------------------------------------------------


async def test_protest_times_are_local_with_their_utc_offset(
    harness: BotHarness, db: Database
) -> None:
    world = await rf.make_world(db, 12)
    await rf.add_game(db, world, range(1, 11))  # ended 18:00 UTC
    await set_timezone(db, world.tournament_id, "Europe/Moscow")
    player = harness.user(world.user_of(1), "P1", language_code="en")
    at = rf.ENDED + timedelta(minutes=1)
    await harness.send(harness.updates.private_message(player, "/protest", date=at))
    ask = harness.session.last_text(player.id) or ""
    assert "before 21:10 UTC+3" in ask and "18:10 UTC" not in ask
    await harness.send(
        harness.updates.private_message(player, "miscount", date=at + timedelta(minutes=1))
    )
    card = harness.session.last_text(rf.CHIEF) or ""
    assert "Filed at 21:02 UTC+3; the deadline was 21:10 UTC+3" in card
    late = rf.ENDED + timedelta(minutes=11)
    other = harness.user(world.user_of(2), "P2", language_code="en")
    await harness.send(harness.updates.private_message(other, "/protest late", date=late))
    refused = harness.session.last_text(other.id) or ""
    assert "ended at 21:00 UTC+3; the deadline was 21:10 UTC+3" in refused


async def test_the_saved_card_shows_the_protest_deadline_in_local_time(
    harness: BotHarness, db: Database
) -> None:
    world = await World.create(harness, db)
    await set_timezone(db, world.tid, "Asia/Yekaterinburg")
    judge = world.judge()
    await judge.enter(roles=ROLES, night=None, result="Red win")
    await judge.to_review()
    game = await judge.save()
    local = game.protest_deadline.astimezone(ZoneInfo("Asia/Yekaterinburg"))
    shown = local.strftime("%H:%M")  # no seconds: the minute it ends in
    assert f"Protests until {shown} UTC+5 (8.8.1)." in judge.text


async def test_the_chief_sets_the_time_zone_with_timezone(
    harness: BotHarness, db: Database
) -> None:
    t = await running_tournament(db, chief_id=CHIEF, judge_ids=[JUDGE], chat_id=CHAT)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    judge = harness.user(JUDGE, "Jack", language_code="en")
    await harness.say(judge, "/timezone Asia/Tokyo", chat_id=CHAT)
    assert "Only the chief judge" in (harness.session.last_text(CHAT) or "")
    await harness.say(chief, "/timezone Mars/Olympus", chat_id=CHAT)
    assert "«Mars/Olympus» is not a time zone I know" in (harness.session.last_text(CHAT) or "")
    await harness.say(chief, "/timezone asia/yekaterinburg", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        "Times of «Test Cup» are shown in Asia/Yekaterinburg, UTC+5 from now on."
    )
    await harness.say(chief, "/timezone")  # in private: what it is now
    assert "shown in Asia/Yekaterinburg, UTC+5" in (harness.session.last_text(CHIEF) or "")
    await harness.say(chief, "/timezone Asia/Tokyo")
    assert "Asia/Tokyo, UTC+9 from now on" in (harness.session.last_text(CHIEF) or "")
    async with db.read() as conn:
        assert (await tournaments.require_tournament(conn, t.id)).timezone == "Asia/Tokyo"


def test_the_timezone_setting_is_checked() -> None:
    assert Settings(bot_token=None, timezone="europe/berlin").timezone == "Europe/Berlin"
    with pytest.raises(ValidationError, match="unknown time zone"):
        Settings(bot_token=None, timezone="Mars/Olympus")


async def test_export_protocols_show_local_times(db: Database) -> None:
    world = await rf.make_world(db, 10)
    await rf.add_game(db, world, range(1, 11))
    await set_timezone(db, world.tournament_id, "Europe/Moscow")
    i18n = create_i18n(ROOT / "locales")
    data = await load_export(db, world.tournament_id)
    with i18n.context(), i18n.use_locale("en"):
        text = protocols_md(data).decode()
    assert "Ended: 2025-05-01 21:00 UTC+3." in text and " UTC." not in text


# -- who applied, who you are -------------------------------------------------------------------


async def test_a_confirmed_application_keeps_who_applied(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(db, chief_id=CHIEF, chat_id=CHAT, names={CHIEF: "Anna"})
    gnu = harness.user(GNU, "Gnu", language_code="en", username="gnu")
    await harness.say(gnu, "/join Gnu", chat_id=CHAT)
    await harness.say(gnu, "/start")
    assert "Your application as <b>Gnu</b> to «Test Cup» is waiting" in (
        harness.session.last_text(GNU) or ""
    )
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, "/tournament", chat_id=CHAT)
    await harness.press(chief, harness.session.last_message(CHAT), text="Applications (1)")
    listing = current(harness, CHIEF)
    await harness.press(chief, listing, text="✅ Gnu")
    assert last_answer(harness) == "✅ Gnu (@gnu) confirmed as Gnu."
    refreshed = current(harness, CHIEF, listing.message_id)
    assert (refreshed.text or "").startswith("✅ Gnu (@gnu) confirmed as <b>Gnu</b>.")
    assert "No applications to «Test Cup» are waiting." in (refreshed.text or "")


async def test_the_player_is_told_the_decision_in_his_own_language(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(db, chief_id=CHIEF, chat_id=CHAT)
    await rf.english_users(db, CHIEF)  # asked in English, the applicant told in Russian
    gnu = harness.user(GNU, "Гну", language_code="ru")
    await harness.say(gnu, "/join Gnu", chat_id=CHAT)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.press(chief, harness.session.last_message(CHIEF), text="✅ Confirm")
    assert harness.session.last_text(GNU) == (
        "Вы в игре: ник <b>Gnu</b> подтверждён в турнире «Test Cup»."
    )


async def test_start_tells_the_player_who_he_is_in_which_tournament(
    harness: BotHarness, db: Database
) -> None:
    await running_tournament(
        db, chief_id=CHIEF, chat_id=CHAT, players=["Gnu"], player_users={"Gnu": GNU}
    )
    gnu = harness.user(GNU, "Gnu", language_code="en")
    await harness.say(gnu, "/start")
    assert "You play in «Test Cup» as <b>Gnu</b>." in (harness.session.last_text(GNU) or "")
    russian = harness.user(GNU, "Gnu", language_code="ru")
    await harness.say(russian, "/start")
    assert "Вы играете в турнире «Test Cup» под ником <b>Gnu</b>." in (
        harness.session.last_text(GNU) or ""
    )


def test_an_unknown_timezone_setting_stops_the_bot_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.__main__ import main

    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("TIMEZONE", "Mars/Olympus")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "TIMEZONE" in err and "unknown time zone 'Mars/Olympus'" in err


@pytest.mark.parametrize(
    ("typed", "stored", "shown"),
    [
        ("Москва", "Europe/Moscow", "Europe/Moscow, UTC+3"),
        ("MSK", "Europe/Moscow", "Europe/Moscow, UTC+3"),
        ("Berlin", "Europe/Berlin", "Europe/Berlin, UTC+1"),
        ("New York", "America/New_York", "America/New_York, UTC−5"),
        ("UTC+3", "Etc/GMT-3", "UTC+3"),
        ("GMT-5", "Etc/GMT+5", "UTC−5"),  # as meant, not POSIX's reversed sign
        ("МСК+2", "Etc/GMT-5", "UTC+5"),
        ("utc+5:30", "Asia/Kolkata", "Asia/Kolkata, UTC+5:30"),
        ("Екатеринбург", "Asia/Yekaterinburg", "Asia/Yekaterinburg, UTC+5"),
    ],
)
async def test_timezone_takes_a_zone_as_people_type_it(
    harness: BotHarness,
    db: Database,
    monkeypatch: pytest.MonkeyPatch,
    typed: str,
    stored: str,
    shown: str,
) -> None:
    """A city, an abbreviation or an offset, in Russian or English, besides IANA names."""
    import handlers.tournaments

    winter = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)  # the offsets shown are January's
    monkeypatch.setattr(handlers.tournaments, "utcnow", lambda: winter)
    t = await running_tournament(db, chief_id=CHIEF, chat_id=CHAT)
    chief = harness.user(CHIEF, "Anna", language_code="en")
    await harness.say(chief, f"/timezone {typed}", chat_id=CHAT)
    assert harness.session.last_text(CHAT) == (
        f"Times of «Test Cup» are shown in {shown} from now on."
    )
    async with db.read() as conn:
        assert (await tournaments.require_tournament(conn, t.id)).timezone == stored
