"""Bad input over HTTP: every command from someone with no right to it, forwarded and
anonymous commands, stale and forged buttons, oversized, odd-Unicode and HTML-looking
texts, unknown commands. Each gets a clear one-line answer (or, as noise in a group,
silence); the bot logs no traceback, Telegram refuses none of its messages, and the
database is byte-for-byte what it was (its domain tables, dumped before and after)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from .bot_process import BotFactory, requires_bot
from .fake_telegram import FakeTelegram
from .scenario import (
    NICKS,
    WAIT,
    Card,
    GameSpec,
    Person,
    domain_dump,
    labels,
    log_problems,
    seed_game,
    seed_tournament,
    token_leaks,
)

pytestmark = requires_bot

NOT_CHIEF = "You are not the chief judge of any unfinished tournament."
NOT_JUDGE = "You are not a judge of any unfinished tournament."
ONLY_CHIEF_HERE = "Only the chief judge of this tournament can do that."
# Private commands of someone who is neither staff nor player, and what he is told.
PRIVATE = {
    "/game": "Only a judge or the chief judge of a running tournament can enter a game.",
    "/games": "Only the chief judge can list and correct games.",
    "/tournament": NOT_JUDGE,
    "/staff": NOT_JUDGE,
    "/invite_judge": NOT_CHIEF,
    "/invite_players": NOT_CHIEF,
    "/roster": NOT_CHIEF,
    "/backup": "for the bot's operators only",
    "/protests": "Only the tournament's chief judge decides protests (8.8.2).",
    "/lot": "Only the tournament's chief judge draws lots (8.7.5).",
    "/export": "Only a chief judge can export a tournament",
    "/protest the host was rude": "You did not sit in a recorded game here",
    "/revoke abcdefgh1234": "There is no such invite.",
    "/judge": "Send this in the tournament's group.",
    "/join Mallory": "open the tournament's player invite link first",
    "/start tj_notavalidtoken": "This invite link is not valid.",
    "/start tp_notavalidtoken": "This invite link is not valid.",
    "/cancel": "Nothing to cancel.",
    "/rating": "You are not in any tournament yet.",
    "/new_tournament": "Send /new_tournament in the tournament's group",
    "/frobnicate": "I don't know this command. /help lists what I can do.",
}
# The same person in the tournament's group (the bot replies to his message).
GROUP = {
    "/new_tournament": "This group already has an unfinished tournament",
    "/roster": ONLY_CHIEF_HERE,
    "/invite_judge": ONLY_CHIEF_HERE,
    "/game": "Games are entered in a private chat with me",
    "/export": "Send /export to me in a private chat",
    "/protest unfair": "You did not sit in a recorded game here",
    "/join " + "X" * 4090: "A nickname is 1–32 characters",
}
WEIRD = "<b>Alpha</b> & <script>\u202e\u200d👨‍👩‍👧‍👦 Z̸̢͉̈́ " + "ж" * 4096


async def test_bad_input_is_refused_or_ignored_and_changes_nothing(
        fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path,
        bot_token: str) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    chief = Person(fake, "Nina", "nina_chief").open_chat()
    judge = Person(fake, "Oleg", "oleg_judge").open_chat()
    echo = Person(fake, "Echo", "echo_plays").open_chat()
    outsiders = [Person(fake, name).open_chat() for name in ("Mallory", "Trudy", "Eve", "Oscar")]
    mallory = outsiders[0]
    group = fake.create_group("Club", [chief.user, judge.user, echo.user,
                                       *(o.user for o in outsiders)])
    other = fake.create_group("Other club", [chief.user, mallory.user])
    seeded = await seed_tournament(db_path, chief=chief, judges=[judge], language="en",
                                   linked={"Echo": echo}, chat=group)
    game = GameSpec(1, 1, NICKS[:10], sheriff=1, don=2, mafia=(3, 4), result="red")
    game_id = await seed_game(db_path, seeded, judge, game)
    bot = await bot_factory(env={"STANDINGS_DEBOUNCE": "0.5"})
    tid = seeded.tournament_id

    # Real buttons to be tapped by the wrong people, and a card about to go stale.
    tournament_card = await chief.say_in(group, "/tournament")
    assert "🏁 Finish" in labels(tournament_card)
    card = Card(judge)
    await card.open()
    stale_data = [b["callback_data"] for b in card.message.buttons]
    said_by_judge = judge.send("Table 2 is ready", group)
    await fake.wait_idle()
    before = domain_dump(db_path)

    noise: list[int] = []

    async def private_sweep(person: Person, commands: list[str]) -> None:
        for command in commands:
            reply = await person.say(command)
            assert PRIVATE[command] in reply.content, (command, reply.content)

    async def group_sweep() -> None:
        for command, expected in GROUP.items():
            reply = await mallory.say_in(group, command)
            assert expected in reply.content, (command[:40], reply.content)
        reply = await mallory.say_in(group, "/judge", reply_to=said_by_judge)
        assert ONLY_CHIEF_HERE in reply.content
        # Forwarded commands act for no one, even the chief's own.
        forwarded = mallory.send("/invite_judge", group, forward_from=chief.user)
        reply = await mallory.replied(group, forwarded)
        assert "A forwarded command acts for no one" in reply.content
        # An anonymous admin: nobody can tell who he is.
        anonymous = fake.send_anonymous(group, "/roster")
        reply = await mallory.replied(group, anonymous)  # the group's language
        assert "anonymous admins and channels can't give commands" in reply.content
        # Noise: plain text, unknown commands, commands for another bot: silence.
        for text in ("hello all", "/frobnicate", "/game@other_bot", WEIRD):
            noise.append(mallory.send(text, group)["message_id"])

    async def forwarded_in_private() -> None:
        chief.send("/invite_judge", forward_from=chief.user)
        await chief.wait("A forwarded command acts for no one", after=0)

    async def title_and_distance_in_another_group() -> None:
        prompt = await chief.say_in(other, "/new_tournament")
        refused = await chief.say_in(other, "T" * 4100, reply_to=prompt)
        assert "The title is too long (4100 characters, at most 100)" in refused.content
        prompt = await chief.say_in(other, "<i>Cup</i> & Co", reply_to=refused)
        refused = await chief.say_in(other, "<b>ten</b>", reply_to=prompt)
        assert "«<b>ten</b>» is not" in refused.content
        mark = fake.seq
        chief.send("/cancel", other)
        await fake.wait_for_message(other, "Cancelled. Nothing was saved.", after=mark,
                                    timeout=WAIT)

    async def judge_types_oddities() -> None:
        await card.type("1 2", "Step 2/11: Seating")
        await card.type(WEIRD)  # a filter for the seat's player buttons, shown as typed
        assert "Filter: «<b>Alpha</b> & <script>" in card.text
        assert "➕ Add «<b>Alpha</b> & <script>\u202e»" in card.labels
        refused = await card.type_refused("/frobnicate")
        assert "I don't know this command" in refused
        cancelled = await judge.say("/cancel", "Cancelled. Nothing was saved.")
        assert cancelled

    commands = list(PRIVATE)
    await asyncio.gather(
        *(private_sweep(person, commands[n::len(outsiders)])
          for n, person in enumerate(outsiders)),
        group_sweep(), forwarded_in_private(), title_and_distance_in_another_group(),
        judge_types_oddities(),
    )

    # Buttons: the chief's card tapped by an outsider, the judge's card after /cancel,
    # and forged data of every kind, on a message in the outsider's own chat.
    answers: dict[str, str | None] = {}
    answer = await mallory.tap(tournament_card, "🏁 Finish")
    answers["their Finish"] = answer.text
    for data in stale_data:
        answer = await judge.tap_raw(card.message, data)
        answers[f"stale {data}"] = answer.text
    # Forged: every kind of the bot's buttons, by an outsider on a message of his own
    # chat; the chief's own buttons forged by a judge; data no button ever carries.
    pid = seeded.player_ids
    forged = [(mallory, data) for data in (
        f"ta:finish_yes:{tid}", f"ta:start:{tid}", f"tk:card:{tid}", f"ts:{tid}:{judge.id}",
        "tr:abcdefgh1234", f"tp:ok:{pid['Alpha']}:0", f"tc:ok:{pid['Bravo']}:{mallory.id}",
        "gs:abcdef:rv:save:0:0", f"gb:{judge.id}:abcdef:s:3", "ga:1:ok", f"gp:{pid['Alpha']}:1",
        f"gc:{game_id}:annul", f"gc:{game_id}:yes", f"gl:{tid}:0", f"gm:{game_id}",
        f"pg:{game_id}", "pd:1:1", f"ld:{tid}:0123456789abcdef", f"xe:{tid}", f"xi:{tid}",
        "tp:ok:notanumber:0", "zzz", "x" * 64)]
    forged += [(judge, data) for data in (
        f"ta:finish_yes:{tid}", f"ts:{tid}:{chief.id}", f"tp:no:{pid['Alpha']}:0",
        f"gc:{game_id}:yes", f"gm:{game_id}", f"xe:{tid}")]
    queries = {(who.name, data): fake.tap_raw(who.user, who.latest(), data)["id"]  # type: ignore[arg-type]
               for who, data in forged}
    await fake.wait_idle(timeout=WAIT)
    for (name, data), query_id in queries.items():
        answers[f"{name} {data}"] = next(
            (a.text for a in fake.callback_answers if a.query_id == query_id), None)
    refusals = ("Only the", "out of date", "There is no such")
    assert all(any(r in (text or "") for r in refusals) for text in answers.values()), answers
    assert not [m for m in fake.messages(group)
                if m.reply_to is not None and m.reply_to.message_id in noise]
    assert domain_dump(db_path) == before
    fake.assert_no_errors()
    assert log_problems(bot) == []
    assert token_leaks(bot, bot_token) == []
