"""/seating: the chief judge generates, regenerates and accepts a seating plan; played
rounds are kept as played when the rest is re-planned; the text, picture and sheet of
a plan."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Message, User
from PIL import Image

import seating
from bot.db import players as players_repo
from bot.db import seating as seating_repo
from bot.db import staff as staff_repo
from bot.db.audit import audit_entries
from bot.db.connection import Database
from bot.db.games import list_games
from bot.reads import stored_plans
from bot.services import seating as service
from bot.texts.i18n import create_i18n
from bot.texts.seating_image import round_seating_picture
from bot.texts.seating_text import (
    MESSAGE_LIMIT,
    plan_sheet_rows,
    player_seat_text,
    round_seating_text,
    utf16_len,
)
from handlers.seating import SeatingOffer, SeatingTables
from scoring.model import Role
from tests.handlers.tournament_fixtures import TournamentSetup, running_tournament
from tests.support import BotHarness, buttons, seating_fixtures

CHIEF = 7000
JUDGE = 7001
CHAT = -100700
ROLES = (
    Role.CIVILIAN, Role.MAFIA, Role.CIVILIAN, Role.CIVILIAN, Role.SHERIFF,
    Role.CIVILIAN, Role.DON, Role.CIVILIAN, Role.MAFIA, Role.CIVILIAN,
)  # fmt: skip
_drafts = itertools.count(1)


@pytest.fixture(autouse=True)
def seeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Seeds 101, 102, ... instead of random ones: the plans of a test are reproducible."""
    counter = itertools.count(101)
    monkeypatch.setattr(service, "new_seed", lambda: next(counter))
    yield


async def world(db: Database, count: int = 20, distance: int = 2) -> TournamentSetup:
    return await running_tournament(
        db,
        chief_id=CHIEF,
        judge_ids=[JUDGE],
        players=[f"P{n}" for n in range(1, count + 1)],
        chat_id=CHAT,
        distance=distance,
        language="en",
    )


def answers(harness: BotHarness) -> list[str | None]:
    return [m.text for m in harness.session.requests_of(AnswerCallbackQuery)]


def latest(harness: BotHarness, chat_id: int = CHIEF) -> Message:
    found = harness.session.last_message(chat_id)
    assert found is not None
    return found


def labels(message: Message) -> list[str]:
    return [label for label, _data in buttons(message)]


async def plans(db: Database, tournament_id: int) -> list[seating_repo.SeatingPlanRow]:
    async with db.read() as conn:
        return await seating_repo.list_plans(conn, tournament_id)


async def offer(harness: BotHarness, chief_id: int = CHIEF, tables: str = "2 ✓") -> Message:
    """``/seating`` and a tap on the tables button: the offer message."""
    chief = harness.user(chief_id, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    await harness.press(chief, latest(harness, chief_id), text=tables)
    return latest(harness, chief_id)


async def save_round(
    db: Database, t: TournamentSetup, round_no: int, tables: dict[int, Sequence[str]]
) -> None:
    await seating_fixtures.save_round(db, t, round_no, tables, JUDGE)


# -- generate, regenerate, accept ------------------------------------------------------------


async def test_generate_shows_quality_then_regenerate_and_accept_store_the_plan(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    question = latest(harness)
    assert "Confirmed players: 20; games per player: 2." in (question.text or "")
    assert labels(question) == ["1", "2 ✓"]  # ⌊20 / 10⌋ tables at most, suggested

    await harness.press(chief, question, text="2 ✓")
    assert "Generating…" in answers(harness)
    edits = harness.session.sent_texts(CHIEF, edits=True)
    assert "⏳ Generating a seating plan for 2 tables…" in edits
    first = latest(harness)
    text = first.text or ""
    for figure in ("How fair the plan is", "Everyone plays 2 games.", "Seats: ",
                   "No pair of players meets more than ", "Tables: ",
                   "2 rounds, tables at once: 2.", "Round 1", "Table 1", "Table 2"):
        assert figure in text, figure
    # Plain words: no seed, no spreads, no histogram of pairs; nobody sits out.
    for jargon in ("seed", "spread", "1×", "sits out"):
        assert jargon not in text, jargon
    assert labels(first) == ["🔄 Regenerate", "✅ Accept", "✖ Cancel"]
    [row] = await plans(db, t.id)
    assert row.status == "offered" and row.seed == 101 and row.tables == 2
    # The preview shows round 1 in full: ten numbered seats a table.
    round_1 = row.plan["rounds"][0]
    assert f"1. {round_1['tables'][0]['seats'][0]}" in text
    assert f"10. {round_1['tables'][1]['seats'][9]}" in text
    assert utf16_len(text) <= MESSAGE_LIMIT

    await harness.press(chief, first, text="🔄 Regenerate")
    second = latest(harness)
    assert "seed" not in (second.text or "")
    [again] = await plans(db, t.id)  # the regenerated offer took the first one's place
    assert again.seed == 102 and again.id != row.id
    assert again.plan["rounds"] != row.plan["rounds"]
    assert again.request["players"] == row.request["players"]

    await harness.press(chief, second, text="✅ Accept")
    assert "✅ The seating plan is accepted." in (latest(harness).text or "")
    [accepted] = await plans(db, t.id)
    assert (accepted.id, accepted.status, accepted.accepted_by) == (again.id, "accepted", CHIEF)
    assert accepted.accepted_at is not None and accepted.plan == again.plan
    assert accepted.request["seed"] == 102 and accepted.request["games_per_player"] == 2
    assert accepted.player_ids == tuple(t.player(n).id for n in accepted.request["players"])
    async with db.read() as conn:
        entries = await audit_entries(conn, t.id, entity="seating_plan")
    assert [(e.action, e.actor_id, e.entity_id) for e in entries] == [
        ("seating.accept", CHIEF, str(accepted.id))
    ]
    assert entries[0].after["seed"] == 102 and entries[0].before is None

    # The judge's card can take a table's players from it, in seat order.
    seats = accepted.plan["rounds"][1]["tables"][0]["seats"]
    stored = await stored_plans.accepted_plan(db, t.id)
    assert stored is not None
    assert stored.seats_at(2, 1) == [t.player(n).id for n in seats]
    assert stored.seats_at(3, 1) is None

    # /seating now shows the accepted plan and offers a new one (nothing was played).
    await harness.say(chief, "/seating")
    shown = latest(harness)
    assert "The accepted plan: 2 rounds, tables at once: 2." in (shown.text or "")
    assert labels(shown) == ["🆕 Make a new plan"]


async def test_cancel_stores_nothing_and_keeps_the_accepted_plan(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.press(chief, await offer(harness), text="✖ Cancel")
    assert latest(harness).text == "Cancelled: this plan was not saved."
    assert await plans(db, t.id) == []

    await harness.press(chief, await offer(harness), text="✅ Accept")
    [accepted] = await plans(db, t.id)
    await harness.say(chief, "/seating")
    await harness.press(chief, latest(harness), text="🆕 Make a new plan")
    await harness.press(chief, latest(harness), text="2 ✓")
    text = latest(harness).text or ""
    assert "Accepting it replaces the accepted plan." in text
    assert "Seats change for" in text
    await harness.press(chief, latest(harness), text="✖ Cancel")
    assert "The accepted plan stays as it was." in (latest(harness).text or "")
    assert await plans(db, t.id) == [accepted]


# -- stale buttons ---------------------------------------------------------------------------


async def test_stale_buttons_are_answered_and_change_nothing(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    first = await offer(harness)  # as it looked: plan A's buttons
    await harness.press(chief, first, text="🔄 Regenerate")  # plan B replaces A
    await harness.press(chief, first, text="✅ Accept")
    assert "This plan is out of date" in (answers(harness)[-1] or "")
    await harness.press(chief, first, text="🔄 Regenerate")
    assert "This plan is out of date" in (answers(harness)[-1] or "")
    [b] = await plans(db, t.id)
    assert b.status == "offered"

    # A second chief judge accepts a plan of his own: B's buttons are stale.
    second_chief = 7002
    async with db.transaction() as conn:
        await staff_repo.add_staff(conn, t.id, second_chief, "chief", added_by=CHIEF)
    b_message = latest(harness)
    await harness.press(harness.user(second_chief, language_code="en"),
                        await offer(harness, second_chief), text="✅ Accept")
    [c] = await plans(db, t.id)  # accepting dropped every other offer
    assert c.status == "accepted" and c.accepted_by == second_chief
    await harness.press(chief, b_message, text="✅ Accept")
    assert "Another plan was accepted meanwhile" in (answers(harness)[-1] or "")
    await harness.press(chief, b_message, text="✖ Cancel")
    assert "Another plan was accepted meanwhile" in (answers(harness)[-1] or "")
    assert await plans(db, t.id) == [c]

    # The accepted offer's own buttons: accepted already.
    accepted_data = SeatingOffer(action="accept", tournament_id=t.id, plan_id=c.id).pack()
    await harness.press(chief, b_message, data=accepted_data)
    assert answers(harness)[-1] == "This plan is accepted already."
    assert await plans(db, t.id) == [c]


async def test_stale_buttons_of_an_accepted_and_a_replaced_plan_say_what_became_of_it(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    first = await offer(harness)
    await harness.press(chief, first, text="✅ Accept")
    await harness.press(chief, first, text="🔄 Regenerate")
    assert answers(harness)[-1] == "The plan is accepted: to change it, use Re-plan in /seating."
    await harness.say(chief, "/seating")
    await harness.press(chief, latest(harness), text="🆕 Make a new plan")
    await harness.press(chief, latest(harness), text="2 ✓")
    await harness.press(chief, latest(harness), text="✅ Accept")
    replaced, accepted = await plans(db, t.id)
    assert (replaced.status, accepted.status) == ("replaced", "accepted")
    for tap in ("✅ Accept", "🔄 Regenerate"):
        await harness.press(chief, first, text=tap)
        assert answers(harness)[-1] == (
            "This plan was accepted and replaced by a newer one. "
            "Send /seating to see the current one."
        )
    assert await plans(db, t.id) == [replaced, accepted]


async def test_a_roster_changed_since_the_offer_is_not_accepted(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    shown = await offer(harness)
    async with db.transaction() as conn:
        await players_repo.rename_player(conn, t.player("P3").id, "Newcomer")
    await harness.press(chief, shown, text="✅ Accept")
    assert "The roster or the saved games changed" in (answers(harness)[-1] or "")
    [row] = await plans(db, t.id)
    assert row.status == "offered"
    # Regenerate makes a plan of the roster as it is now, which can be accepted.
    await harness.press(chief, shown, text="🔄 Regenerate")
    assert "Newcomer" in (latest(harness).text or "")
    await harness.press(chief, latest(harness), text="✅ Accept")
    [row] = await plans(db, t.id)
    assert row.status == "accepted" and "Newcomer" in row.request["players"]


# -- who may, and requests that can't be planned --------------------------------------------------


async def test_only_the_chief_judge_makes_the_plan(harness: BotHarness, db: Database) -> None:
    t = await world(db)
    judge = harness.user(JUDGE, "Judge", language_code="en")
    await harness.say(judge, "/seating")
    assert "you are not the chief judge of any" in (harness.session.last_text(JUDGE) or "")
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating", chat_id=CHAT)
    assert "in a private chat" in (harness.session.last_text(CHAT) or "")

    await harness.say(chief, "/seating")
    question = latest(harness)
    await harness.press(judge, question, text="2 ✓")
    assert answers(harness)[-1] == "Only the chief judge of this tournament makes the seating plan."
    assert await plans(db, t.id) == []
    shown = await offer(harness)
    await harness.press(judge, shown, text="✅ Accept")
    await harness.press(judge, shown, text="🔄 Regenerate")
    await harness.press(judge, shown, text="✖ Cancel")
    assert answers(harness)[-3:] == [
        "Only the chief judge of this tournament makes the seating plan."
    ] * 3
    [row] = await plans(db, t.id)
    assert row.status == "offered"


async def test_nine_players_are_too_few(harness: BotHarness, db: Database) -> None:
    t = await world(db, count=9, distance=10)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    assert latest(harness).text == (
        "Confirmed players: 9. A table seats 10: confirm at least 10 players, "
        "then send /seating again."
    )
    assert buttons(latest(harness)) == []
    assert await plans(db, t.id) == []


async def test_players_times_games_must_fill_whole_tables(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db, count=15, distance=3)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    text = latest(harness).text or ""
    assert text.startswith("15 players × 3 games = 45 seats, not a multiple of 10")
    assert "confirm players, or withdraw them with /withdraw NICKNAME, to have 10 or 20" in text
    assert buttons(latest(harness)) == []
    assert await plans(db, t.id) == []


async def test_more_tables_than_the_players_fill_and_a_roster_shrunk_meanwhile(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    question = latest(harness)
    await harness.press(chief, question, data=SeatingTables(tournament_id=t.id, tables=3).pack())
    assert answers(harness)[-1] == (
        "3 tables can't be filled: 20 confirmed players fill 1 to 2 tables at once. "
        "Send /seating and choose again."
    )
    # A player leaves before the chief judge chooses: 19 × 2 seats don't fill tables.
    async with db.transaction() as conn:
        await players_repo.reject_player(conn, t.player("P20").id, decided_by=CHIEF)
    await harness.press(chief, question, text="2 ✓")
    said = harness.session.last_text(CHIEF) or ""
    assert said.startswith("19 players × 2 games = 38 seats, not a multiple of 10")
    assert "to have 15 or 20" in said  # 2 games each: a multiple of 5 players
    assert await plans(db, t.id) == []


async def test_a_round_still_being_played_without_a_plan_is_refused(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    await save_round(db, t, 1, {1: [f"P{n}" for n in range(1, 11)]})
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/seating")
    assert "Played rounds are kept as played: 1." in (latest(harness).text or "")
    await harness.press(chief, latest(harness), text="2 ✓")
    assert answers(harness)[-1] == (
        "Round 1 is still being played (tables with saved games: 1). Save the round's other "
        "games first, then make the plan again."
    )
    assert await plans(db, t.id) == []


# -- re-planning the remaining rounds ----------------------------------------------------------


async def test_replan_after_round_1_keeps_round_1_exactly_as_played(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db, distance=3)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.press(chief, await offer(harness), text="✅ Accept")
    [first] = await plans(db, t.id)
    assert len(first.plan["rounds"]) == 3

    # Round 1 is played, not quite as planned: two players changed tables, two seats.
    one, two = (list(table["seats"]) for table in first.plan["rounds"][0]["tables"])
    one[0], two[0] = two[0], one[0]
    one[1], one[2] = one[2], one[1]
    await save_round(db, t, 1, {1: one, 2: two})
    # P5 drops out after round 1; a newcomer takes his place under a new nickname.
    async with db.transaction() as conn:
        await players_repo.rename_player(conn, t.player("P5").id, "Sub")
    one = ["Sub" if n == "P5" else n for n in one]
    two = ["Sub" if n == "P5" else n for n in two]

    await harness.say(chief, "/seating")
    shown = latest(harness)
    assert "Played rounds are kept as played: 1." in (shown.text or "")
    await harness.press(chief, shown, text="🔁 Re-plan the remaining rounds")
    await harness.press(chief, latest(harness), text="2 ✓")
    proposal = latest(harness).text or ""
    assert "Played rounds are kept as played: 1." in proposal
    assert "Accepting it replaces the accepted plan." in proposal
    # The same players: the accepted plan's rounds 2-3 fit as they are, nobody changes
    # tables; but the seats swapped in round 1 left two players with a seat twice, which
    # the kept plan evens out by swapping seats within a game of round 2 or 3.
    assert "The accepted plan is kept, changed only where it must; a fresh plan would move" in (
        proposal
    )
    assert "Seats change for 2 players: P2, P6." in proposal
    assert labels(latest(harness)) == ["✅ Accept", "🆕 Fresh plan", "✖ Cancel"]
    # The chief judge asks for a fresh plan all the same.
    await harness.press(chief, latest(harness), text="🆕 Fresh plan")
    proposal = latest(harness).text or ""
    assert "A fresh plan; keeping the accepted plan would move 2 players." in proposal
    assert labels(latest(harness)) == [
        "🔄 Regenerate", "✅ Accept", "↩ Keep the accepted plan", "✖ Cancel"
    ]
    await harness.press(chief, latest(harness), text="✅ Accept")
    done = latest(harness).text or ""
    assert "✅ The seating plan is accepted." in done

    replaced, accepted = await plans(db, t.id)
    assert (replaced.id, replaced.status) == (first.id, "replaced")
    assert accepted.status == "accepted" and accepted.base_plan_id == first.id
    kept = accepted.plan["rounds"][0]
    assert [table["seats"] for table in kept["tables"]] == [one, two]  # exactly as played
    assert accepted.request["fixed_rounds"] == [
        {"round": 1, "tables": [{"table": 1, "seats": one}, {"table": 2, "seats": two}]}
    ]
    games_of: dict[str, int] = {}
    for round_ in accepted.plan["rounds"]:
        for table in round_["tables"]:
            for name in table["seats"]:
                games_of[name] = games_of.get(name, 0) + 1
    assert set(games_of.values()) == {3} and "Sub" in games_of and "P5" not in games_of
    # The players whose seats in rounds 2-3 moved are named, to be told.
    async with db.read() as conn:
        everyone = await players_repo.list_players(conn, t.id)
        [entry, _first] = await audit_entries(conn, t.id, entity="seating_plan")
        games = await list_games(conn, t.id)
    old = stored_plans.stored_plan(first, everyone).plan  # nicknames as they are now
    new = stored_plans.plan_from_dict(accepted.plan)

    def later(plan: seating.Plan, name: str) -> set[tuple[int, int, int]]:
        return {
            (r.round, table.table, table.seats.index(name) + 1)
            for r in plan.rounds[1:]
            for table in r.tables
            if name in table.seats
        }

    moved = [n for n in accepted.request["players"] if later(old, n) != later(new, n)]
    assert moved and entry.after["changed"] == moved
    assert entry.after["fixed_rounds"] == [1] and entry.before["id"] == first.id
    assert "Seats change for" in done and all(n in done for n in moved)
    assert len(games) == 2  # the played games are untouched


async def test_a_round_under_way_keeps_its_unsaved_tables_from_the_accepted_plan(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db, distance=3)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.press(chief, await offer(harness), text="✅ Accept")
    [first] = await plans(db, t.id)
    rounds = [[table["seats"] for table in r["tables"]] for r in first.plan["rounds"]]
    await save_round(db, t, 1, {1: rounds[0][0], 2: rounds[0][1]})
    await save_round(db, t, 2, {1: rounds[1][0]})  # table 2 is still playing

    await harness.say(chief, "/seating")
    assert "Played rounds are kept as played: 1–2." in (latest(harness).text or "")
    await harness.press(chief, latest(harness), text="🔁 Re-plan the remaining rounds")
    await harness.press(chief, latest(harness), text="2 ✓")
    await harness.press(chief, latest(harness), text="✅ Accept")
    _replaced, accepted = await plans(db, t.id)
    assert accepted.status == "accepted"
    assert [[table["seats"] for table in r["tables"]] for r in accepted.plan["rounds"][:2]] == [
        rounds[0], rounds[1]
    ]
    assert [r["round"] for r in accepted.request["fixed_rounds"]] == [1, 2]


# -- withdrawing a player ----------------------------------------------------------------------


async def with_plan(
    harness: BotHarness, db: Database
) -> tuple[TournamentSetup, User, seating_repo.SeatingPlanRow]:
    """Twenty players, two games each, and the chief judge's plan accepted."""
    t = await world(db)
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.press(chief, await offer(harness), text="✅ Accept")
    [accepted] = await plans(db, t.id)
    return t, chief, accepted


async def test_the_chief_judge_withdraws_a_player_and_seating_shows_the_plan_throughout(
    harness: BotHarness, db: Database
) -> None:
    t, chief, accepted = await with_plan(harness, db)
    # A substitute was confirmed at the card: 21 players × 2 games fill no whole tables.
    async with db.transaction() as conn:
        await players_repo.add_player(conn, t.id, "Sub", status="confirmed", decided_by=CHIEF)
    await harness.say(chief, "/seating")
    shown = latest(harness).text or ""
    assert "The accepted plan: 2 rounds, tables at once: 2." in shown
    assert "⚠ 21 players × 2 games = 42 seats, not a multiple of 10" in shown
    assert "withdraw them with /withdraw NICKNAME, to have 20 or 25" in shown
    assert labels(latest(harness)) == []

    await harness.say(chief, "/withdraw")
    assert "Send /withdraw and the player's nickname" in (latest(harness).text or "")
    await harness.say(harness.user(JUDGE, "Judge", language_code="en"), "/withdraw Sub")
    await harness.say(chief, "/withdraw Nobody")
    assert latest(harness).text == "«Test Cup» has no player <b>Nobody</b>."
    await harness.say(chief, "/withdraw sub")
    assert latest(harness).text == (
        "🚪 <b>Sub</b> is withdrawn from «Test Cup»: he played no games and is left out of "
        "the games still to play (seating plans, the judge's card)."
    )
    await harness.say(chief, "/withdraw Sub")
    assert latest(harness).text == "<b>Sub</b> is withdrawn already."
    async with db.read() as conn:
        [entry] = await audit_entries(conn, t.id, entity="player")
        sub = await players_repo.find_player_by_nickname(conn, t.id, "Sub")
    assert (entry.action, entry.actor_id) == ("player.withdraw", CHIEF)
    assert sub is not None and sub.status == "confirmed" and not sub.plays_on

    # The plan can be re-planned again, and the re-plan keeps it: nobody moves.
    await harness.say(chief, "/seating")
    assert labels(latest(harness)) == ["🆕 Make a new plan"]
    await harness.press(chief, latest(harness), text="🆕 Make a new plan")
    await harness.press(chief, latest(harness), text="2 ✓")
    await harness.press(chief, latest(harness), text="↩ Keep the accepted plan")
    assert "The accepted plan is kept, changed only where it must" in (latest(harness).text or "")
    assert plans_equal((await plans(db, t.id))[-1].plan, accepted.plan)


async def test_a_player_withdrawn_after_playing_leaves_his_seats_to_substitutes(
    harness: BotHarness, db: Database
) -> None:
    t, chief, accepted = await with_plan(harness, db)
    one, two = (table["seats"] for table in accepted.plan["rounds"][0]["tables"])
    await save_round(db, t, 1, {1: one, 2: two})
    gone = one[0]
    await harness.say(chief, f"/withdraw {gone}")
    said = latest(harness).text or ""
    assert "the 1 game he played stays in the standings" in said
    assert "re-plan the remaining rounds in /seating" in said
    async with db.read() as conn:
        assert len(await list_games(conn, t.id)) == 2  # his game stays
    # 19 players × 2 games + his 1 = 39 seats fill no whole tables: his seat in round 2
    # stays, for a substitute, and the re-plan keeps the plan as told.
    await harness.say(chief, "/seating")
    shown = latest(harness).text or ""
    assert "The accepted plan: 2 rounds" in shown and "Confirmed players: 19" in shown
    assert f"substitute for {gone}" in shown
    await harness.press(chief, latest(harness), text="🔁 Re-plan the remaining rounds")
    await harness.press(chief, latest(harness), text="2 ✓")
    offered = latest(harness).text or ""
    assert "The accepted plan is kept, changed only where it must" in offered
    assert f"{gone} is withdrawn, but without his games left the others' don't fill whole " \
        "tables: substitutes play his seats." in offered
    assert "Nobody's seats in the rounds left change." in offered
    await harness.press(chief, latest(harness), text="✅ Accept")
    now = (await plans(db, t.id))[-1]
    assert now.status == "accepted" and now.plan["rounds"][1] == accepted.plan["rounds"][1]


async def test_without_a_plan_a_withdrawal_that_leaves_tables_unfilled_is_explained(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    names = [f"P{n}" for n in range(1, 21)]
    await save_round(db, t, 1, {1: names[:10], 2: names[10:]})
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/withdraw P1")
    await harness.say(chief, "/seating")
    assert (latest(harness).text or "").startswith(
        "19 players × 2 games + 1 played by withdrawn players = 39 seats, not a multiple of 10"
    )
    assert labels(latest(harness)) == []


async def test_a_substitute_withdrawn_after_his_game_leaves_the_rounds_to_play_as_told(
    harness: BotHarness, db: Database
) -> None:
    t, chief, accepted = await with_plan(harness, db)
    # P-one-of-round-1 did not come: a newcomer, confirmed at the card, played his seat.
    one, two = (list(table["seats"]) for table in accepted.plan["rounds"][0]["tables"])
    absent = one[4]
    async with db.transaction() as conn:
        t.players["Sub"] = await players_repo.add_player(
            conn, t.id, "Sub", status="confirmed", decided_by=CHIEF
        )
    one[4] = "Sub"
    await save_round(db, t, 1, {1: one, 2: two})
    await harness.say(chief, "/seating")
    assert "⚠ 21 players × 2 games = 42 seats" in (latest(harness).text or "")

    await harness.say(chief, "/withdraw Sub")
    await harness.say(chief, "/seating")
    await harness.press(chief, latest(harness), text="🔁 Re-plan the remaining rounds")
    await harness.press(chief, latest(harness), text="2 ✓")
    offered = latest(harness).text or ""
    assert "Confirmed players: 20; games per player: 2." in offered
    assert "The accepted plan is kept, changed only where it must" in offered
    assert f"{absent} plays fewer games: a withdrawn substitute played his planned seat." in (
        offered
    )
    assert "Seats change for" not in offered
    await harness.press(chief, latest(harness), text="✅ Accept")
    done = latest(harness).text or ""
    assert "✅ The seating plan is accepted." in done and "The accepted plan is kept" not in done
    now = (await plans(db, t.id))[-1]
    assert now.status == "accepted" and now.plan["rounds"][1] == accepted.plan["rounds"][1]
    assert now.plan["rounds"][0]["tables"][0]["seats"] == one  # round 1 as played


async def test_a_chief_judge_of_two_tournaments_picks_one_then_names_the_player(
    harness: BotHarness, db: Database
) -> None:
    t = await world(db)
    await running_tournament(
        db, chief_id=CHIEF, judge_ids=[], players=["X1"], chat_id=CHAT - 1, title="Other Cup"
    )
    chief = harness.user(CHIEF, "Chief", language_code="en")
    await harness.say(chief, "/withdraw P3")
    assert latest(harness).text == "Which tournament?"
    await harness.press(chief, latest(harness), text="Test Cup")
    assert "Send the nickname of the player to withdraw from «Test Cup»" in (
        latest(harness).text or ""
    )
    await harness.say(chief, "P3")
    assert (latest(harness).text or "").startswith("🚪 <b>P3</b> is withdrawn from «Test Cup»")
    async with db.read() as conn:
        p3 = await players_repo.find_player_by_nickname(conn, t.id, "P3")
    assert p3 is not None and not p3.plays_on


def plans_equal(a: dict[str, object], b: dict[str, object]) -> bool:
    return a["rounds"] == b["rounds"]


# -- the seating texts, picture and sheet ----------------------------------------------------


def _sample_plan() -> seating.Plan:
    """25 players × 2 games at 2 tables: 3 rounds, the last one with a single table."""
    request = seating.parse_request(
        {"players": [f"P{n}" for n in range(1, 26)], "games_per_player": 2, "seed": 5}
    )
    return seating.generate(request)


def test_round_text_player_seat_and_sheet() -> None:
    plan = _sample_plan()
    i18n = create_i18n(_locales())
    round_1 = plan.rounds[0]
    seated = round_1.tables[1].seats[6]
    resting = round_1.sitting_out[0]
    with i18n.context(), i18n.use_locale("en"):
        text = round_seating_text(plan, 1, "Spring <Cup>")
        assert text.startswith("<b>Spring &lt;Cup&gt;</b>\n<b>Round 1</b>")
        assert "<b>Table 1</b>\n1. " + round_1.tables[0].seats[0] in text
        assert "<b>Table 2</b>" in text and f"7. {seated}" in text
        assert "Sitting out: " + ", ".join(round_1.sitting_out) in text
        assert player_seat_text(plan, 1, seated) == "Round 1: table 2, seat 7"
        assert player_seat_text(plan, 1, seated.lower()) == "Round 1: table 2, seat 7"
        assert player_seat_text(plan, 1, resting) == "Round 1: sitting out"
        assert player_seat_text(plan, 1, "Nobody") is None
        assert player_seat_text(plan, 9, seated) is None
        rows = plan_sheet_rows(plan)
        with pytest.raises(ValueError, match="no round 9"):
            round_seating_text(plan, 9, "Cup")
    assert rows[0] == ["Round", "Table", "Seat", "Player"]
    assert len(rows) == 1 + 25 * 2
    assert rows[1] == [1, 1, 1, round_1.tables[0].seats[0]]
    assert rows[-1][0] == 3 and rows[-1][2] == 10  # the last round has one table
    with i18n.context(), i18n.use_locale("ru"):
        assert player_seat_text(plan, 1, seated) == "Тур 1: стол 2, место 7"
        assert plan_sheet_rows(plan)[0] == ["Тур", "Стол", "Место", "Игрок"]


def test_a_huge_round_is_written_one_line_a_table() -> None:
    names = [f"Player number {n:03d} long" for n in range(1, 171)]
    tables = tuple(
        seating.Table(table=t + 1, seats=tuple(names[t * 10 : t * 10 + 10])) for t in range(17)
    )
    figures = seating.Quality(
        seat_spread=0, meetings_min=0, meetings_max=1, meetings_histogram={0: 1, 1: 1},
        table_spread=0, apart_violations=0,
    )
    plan = seating.Plan(rounds=(seating.Round(round=1, tables=tables),), quality=figures)
    i18n = create_i18n(_locales())
    with i18n.context(), i18n.use_locale("en"):
        text = round_seating_text(plan, 1, "Big Cup")
    assert utf16_len(text) <= MESSAGE_LIMIT
    assert "<b>Table 1</b>: 1 Player number 001 long · 2 " in text and "\n1. " not in text


def test_round_picture_is_a_png() -> None:
    plan = _sample_plan()
    i18n = create_i18n(_locales())
    with i18n.context(), i18n.use_locale("ru"):
        png = round_seating_picture(plan, 1, "Весенний кубок")
        last = round_seating_picture(plan, 3, "Весенний кубок")
        with pytest.raises(ValueError):
            round_seating_picture(plan, 4, "Cup")
    assert png.startswith(b"\x89PNG")
    with Image.open(io.BytesIO(png)) as image:
        width, height = image.size
    assert width + height <= 10_000 and max(width, height) / min(width, height) <= 20
    assert width > 800  # two table cards side by side
    with Image.open(io.BytesIO(last)) as image:
        assert image.size[0] < width  # one table


def _locales() -> Path:
    return Path(__file__).resolve().parents[2] / "locales"
