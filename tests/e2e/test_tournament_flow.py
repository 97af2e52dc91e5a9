"""A whole small tournament over HTTP, as people play it: the chief judge creates it in
the group, two judges join the staff, twelve players apply and are confirmed, two
tables play three rounds; the judges enter the six games (a player taps his own best
move, judge's points above 0.5 wait for the chief's approval, a draw), a protest in
the window is rejected and a late one refused, and the standings the chat shows are
those ``python -m scoring standings`` computes from the bot's own export."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from .bot_process import BotFactory, requires_bot
from .fake_telegram import Chat, FakeTelegram
from .scenario import (
    NICKS,
    WAIT,
    Card,
    GameSpec,
    Person,
    chat_table,
    enter_game,
    labels,
    log_problems,
    query,
    save,
    scoring_cli,
    token_leaks,
)

pytestmark = requires_bot

R1T1 = list(NICKS[0:10])  # Echo (seat 5) is shot on night 1 and taps his best move
R1T2 = list(NICKS[2:12])
R2T1 = [*NICKS[6:12], *NICKS[0:4]]
R2T2 = [*NICKS[0:2], *NICKS[4:12]]
R3T1 = [*NICKS[3:12], NICKS[0]]
R3T2 = [*NICKS[1:3], *NICKS[4:12]]
GAMES_J1 = [
    GameSpec(1, 1, R1T1, sheriff=1, don=2, mafia=(3, 4), night=5, result="red"),
    GameSpec(2, 1, R2T1, sheriff=10, don=9, mafia=(8, 7), result="draw"),
    # Two left on day 1: no best move (8.3.6); the red first-killed gets Ci (8.6).
    GameSpec(3, 1, R3T1, sheriff=1, don=2, mafia=(4, 5), day1=2, night=3, result="black"),
]
GAMES_J2 = [
    GameSpec(1, 2, R1T2, sheriff=5, don=6, mafia=(7, 8), result="black"),
    # Seat 6 is a red winner: 0.6 > 0.5 waits for the chief judge (8.4.3, D7).
    GameSpec(2, 2, R2T2, sheriff=1, don=2, mafia=(3, 4), result="red", extras={6: "0.6"}),
    GameSpec(3, 2, R3T2, sheriff=2, don=1, mafia=(9, 10), result="red"),
]


class Tournament:
    """The people of the scenario and the group they play in."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.chief = Person(fake, "Nina", "nina_chief").open_chat()
        self.j1 = Person(fake, "Oleg", "oleg_judge").open_chat()
        self.j2 = Person(fake, "Pavel", "pavel_judge").open_chat()
        self.players = {nick: Person(fake, nick, f"{nick.lower()}_plays") for nick in NICKS}
        self.group: Chat = fake.create_group(
            "Spring Cup club", [self.chief.user, self.j1.user, self.j2.user,
                                *(p.user for p in self.players.values())])
        # What the judges wait for before their first game (the rest runs meanwhile).
        self.running = asyncio.Event()
        self.staffed = {self.j1.id: asyncio.Event(), self.j2.id: asyncio.Event()}
        self.registered = asyncio.Event()


async def create_in_group(t: Tournament) -> None:
    # The group's language is chosen here: English, everything in the group reads it.
    prompt = await t.chief.say_in(t.group, "/new_tournament en")
    assert "Reply to this message with the tournament's title" in prompt.content
    prompt = await t.chief.say_in(t.group, "Spring Cup", reply_to=prompt)
    assert "distance" in prompt.content
    created = await t.chief.say_in(t.group, "6", reply_to=prompt)
    assert "Tournament «Spring Cup» is created: 6 games per player" in created.content


async def add_judges(t: Tournament) -> None:
    # Oleg by a reply in the group, Pavel by a one-time invite link.
    said = t.j1.send("I'll judge table 1", t.group)
    added = await t.chief.say_in(t.group, "/judge", reply_to=said)
    assert "is now a judge of «Spring Cup»" in added.content
    t.staffed[t.j1.id].set()
    invite = await t.chief.say("/invite_judge", "one-time judge invite")
    token = invite.content.split("start=tj_", 1)[1].split()[0]
    welcome = await t.j2.say(f"/start tj_{token}", "You are now a judge")
    assert "Spring Cup" in welcome.content
    t.staffed[t.j2.id].set()
    await t.chief.wait("accepted your judge invite", after=0)


async def start_tournament(t: Tournament) -> None:
    card = await t.chief.say_in(t.group, "/tournament")
    mark = t.fake.seq
    answer = await t.chief.tap(card, "▶️ Start")
    assert answer.text == "The tournament is running."
    # The group reads the tournament's language, whoever started it.
    await t.fake.wait_for_message(t.group, "Tournament «Spring Cup» has started", after=mark,
                                  timeout=WAIT)
    t.running.set()


async def players_join(t: Tournament) -> None:
    """Two players /join in the group, ten open the players' link privately; the chief
    judge confirms every application from his private chat as it comes."""
    mark = t.fake.seq
    t.chief.send("/invite_players", t.group)  # posted in the group, for everyone
    link = await t.fake.wait_for_message(t.group, "Players' invite link", after=mark,
                                         timeout=WAIT)
    token = link.content.split("start=tp_", 1)[1].split()[0]

    async def by_link(nick: str) -> None:
        player = t.players[nick].open_chat()
        asked = await player.say(f"/start tp_{token}", "Send your nickname")
        assert "Spring Cup" in asked.content
        sent = await player.say(nick, "is sent")
        assert f"Your application as {nick} to «Spring Cup» is sent" in sent.content

    async def in_group(nick: str) -> None:
        reply = await t.players[nick].say_in(t.group, f"/join {nick}")
        assert f"Your application as {nick}" in reply.content

    async def chief_confirms() -> None:
        decided: set[int] = set()
        while len(decided) < len(NICKS):
            request = await t.fake.wait_for_message(
                t.chief.chat, lambda m: "New player for" in m.content
                and m.message_id not in decided and "✅ Confirm" in labels(m), timeout=WAIT)
            decided.add(request.message_id)
            answer = await t.chief.tap(request, "✅ Confirm")
            # The decision keeps who applied: "✅ Alpha (@alpha_plays) confirmed as Alpha."
            assert answer.text and "confirmed as" in answer.text

    await asyncio.gather(
        chief_confirms(),
        *(in_group(nick) for nick in NICKS[:2]),
        *(by_link(nick) for nick in NICKS[2:]),
    )
    t.registered.set()
    # Those who wrote to the bot privately are told; the group's two never started it.
    for nick in NICKS[2:]:
        await t.players[nick].wait(f"You are in: {nick} is confirmed", after=0)


async def judge_plays(t: Tournament, judge: Person, games: list[GameSpec]) -> None:
    await t.staffed[judge.id].wait()
    await t.running.wait()
    approvals = []
    for n, game in enumerate(games):
        card = Card(judge)
        # The first card is opened while the players still register.
        ready = t.registered if n == 0 else None
        if game.code == "R1-T1":
            echo = t.players["Echo"]
            await enter_game(card, game, ready=ready, player=echo,
                             best_move_by_player=(2, 3, 4))
            assert "5. Echo (civilian): win 1 · best move 0.4" in card.text
        else:
            await enter_game(card, game, ready=ready)
        await save(card)
        assert f"game {game.code}" in card.text and "8.8.1" in card.text
        if game.extras:
            assert "wait for the chief judge's approval (8.4.3)" in card.text
            approvals.append(asyncio.create_task(chief_approves(t, judge)))
    await asyncio.gather(*approvals)


async def chief_approves(t: Tournament, judge: Person) -> None:
    request = await t.chief.wait(lambda m: "Approve 0.6" in " ".join(labels(m)), after=0)
    assert "8.4.3" in request.content and "<b>0.6</b>" not in request.content
    mark = t.fake.seq
    answer = await t.chief.tap(request, "✅ Approve 0.6")
    assert answer.text == "Approved"
    told = await judge.wait("The chief judge decided: Approved", after=mark)
    assert "The game is final now." in told.content


async def protests(t: Tournament) -> None:
    """8.8.1: one within 10 minutes (rejected by the chief, 8.8.2), one too late."""
    lima = t.players["Lima"]  # he played in the last 10 minutes: which game?
    picker = await lima.say("/protest Seat 3 spoke during my last words", "Which one")
    mark = t.fake.seq
    await lima.tap(picker, next(b for b in labels(picker) if b.startswith("round 3, table 2")))
    recorded = await lima.wait("is recorded", after=mark)
    assert "Protest #1 against round 3, table 2 is recorded" in recorded.content
    card = await t.chief.wait("⚖️ Protest #1", after=0)
    assert "Seat 3 spoke during my last words" in card.content
    answer = await t.chief.tap(card, "❌ Reject protest")
    assert answer.text is None
    await t.chief.wait("will be rejected", after=0)
    done = await t.chief.say("The host saw nothing wrong.", "rejected")
    assert "Protest #1 rejected; the decision is recorded and final (8.8.4)" in done.content
    told = await lima.wait("was rejected by the chief judge", after=0)
    assert "The host saw nothing wrong." in told.content
    # Eleven minutes after the last game's end (the message's own date, D11).
    late = datetime.now(UTC) + timedelta(minutes=11)
    kilo = t.players["Kilo"]
    refused = await kilo.say("/protest the lot was unfair", "Too late", date=late)
    assert "10 minutes" in refused.content and "Nothing was recorded" in refused.content


async def test_a_whole_small_tournament(fake_telegram: FakeTelegram, bot_factory: BotFactory,
                                        tmp_path: Path, bot_token: str) -> None:
    fake = fake_telegram
    bot = await bot_factory(env={"STANDINGS_DEBOUNCE": "0.5"})
    db_path = tmp_path / "bot.sqlite3"
    t = Tournament(fake)

    await create_in_group(t)

    # The judges open their first cards as soon as they may; the seating waits for
    # the players' registration.
    await asyncio.gather(add_judges(t), start_tournament(t), players_join(t),
                         judge_plays(t, t.j1, GAMES_J1), judge_plays(t, t.j2, GAMES_J2))
    await protests(t)

    # The standings the group sees, once everything settled (the debounce too): the
    # live message...
    await fake.wait_idle(idle=1.0, timeout=WAIT)
    (tid,) = query(db_path, "SELECT id FROM tournaments")[0]
    (live_id,) = query(db_path, "SELECT standings_message_id FROM tournaments")[0]
    live = fake.message(t.group, live_id)
    assert live.pinned
    # ... and /rating all.
    mark = fake.seq
    t.chief.send("/rating all", t.group)
    rating = await fake.wait_for_message(t.group, "games counted: 6", after=mark, timeout=WAIT)
    # The chief judge's export; the scoring engine recomputes the standings from it.
    mark = fake.seq
    t.chief.send("/export")
    exported = await fake.wait_for_message(
        t.chief.chat, lambda m: m.document is not None
        and (m.document.filename or "").startswith("tournament-"), after=mark, timeout=WAIT)
    assert exported.document is not None and exported.document.data
    export_file = tmp_path / f"tournament-{tid}.json"
    export_file.write_bytes(exported.document.data)
    expected = scoring_cli(export_file)

    assert len(expected) == 12
    assert chat_table(live.content) == expected, live.content
    assert chat_table(rating.content) == expected, rating.content

    # What is stored: six final games, the approval, the rejected protest.
    assert query(db_path, "SELECT round, table_no, status, result FROM games "
                          "ORDER BY round, table_no") == [
        (1, 1, "final", "red"), (1, 2, "final", "black"), (2, 1, "final", "draw"),
        (2, 2, "final", "red"), (3, 1, "final", "black"), (3, 2, "final", "red")]
    assert query(db_path, "SELECT status FROM approvals") == [("approved",)]
    assert query(db_path, "SELECT status FROM protests") == [("rejected",)]
    # The group saw every result and a picture after each round.
    said = [m.content for m in fake.messages(t.group)]
    for game in GAMES_J1 + GAMES_J2:
        assert any(f"Round {game.round}, table {game.table}:" in text for text in said), game
    assert [m.caption for m in fake.messages(t.group) if m.photo] == [
        f"Spring Cup: standings after round {n}" for n in (1, 2, 3)]
    await fake.wait_idle(timeout=WAIT)
    assert fake.flood_violations == []
    # The two who joined in the group never started the bot: their notices can't go.
    unreachable = {t.players["Alpha"].id, t.players["Bravo"].id}
    assert {(r.chat_id, r.description) for r in fake.errors()} == {
        (uid, "Forbidden: bot can't initiate conversation with a user") for uid in unreachable}
    assert token_leaks(bot, bot_token) == []
    assert log_problems(bot) == []

