"""The demo's tournament, played through the real bot process: who does what, in order.

A chief judge creates «Saturday Cup» (two games a player) in the club's group, a judge
joins the staff, eight players /start the bot and /join while the chief judge adds two
more with /roster and confirms everyone, the tournament starts, the judge enters two
games on his card, a player protests the second game and the chief judge rejects the
protest, two players check /rating and the chief judge exports the tournament.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.texts.i18n import N_
from tests.e2e.fake_telegram import Chat, FakeTelegram
from tests.e2e.scenario import NICKS, WAIT, Card, GameSpec, Person, enter_game, labels, save

from .words import Words

TITLE = N_("Saturday Cup")
DISTANCE = 2  # games per player: two rounds at one table
JOINING = NICKS[:8]  # /start the bot, then /join in the group
ON_ROSTER = NICKS[8:10]  # no Telegram at hand: the chief judge types them in
SEATS_1 = list(NICKS[:10])
SEATS_2 = [*NICKS[5:10], *NICKS[:5]]
GAMES = (
    # Seat 9 (India, on the roster: no Telegram) is shot on the first night and names
    # his best move (8.3) aloud: the judge taps 2, 3, 4.
    GameSpec(1, 1, SEATS_1, sheriff=1, don=2, mafia=(3, 4), night=9, best_move=(2, 3, 4),
             result="red"),
    GameSpec(2, 1, SEATS_2, sheriff=4, don=8, mafia=(9, 10), day1=1, result="black"),
)
PROTESTER = SEATS_2[2]  # seat 3 of the second game
REASON = N_("Seat 9 was prompted during the vote.")
DECISION = N_("The judge saw no prompting; the vote stands.")


@dataclass
class Cast:
    """The people of the demo (all with the demo's Telegram language) and their group."""

    chief: Person
    judge: Person
    players: dict[str, Person]
    group: Chat


def cast(fake: FakeTelegram, words: Words) -> Cast:
    language = words.language
    chief = Person(fake, words("Nina"), "nina_chief", language=language)
    judge = Person(fake, words("Oleg"), "oleg_judge", language=language)
    players = {nick: Person(fake, nick, f"{nick.lower()}_plays", language=language)
               for nick in JOINING}
    group = fake.create_group(words("Mafia Club"), [chief.user, judge.user,
                                                    *(p.user for p in players.values())])
    return Cast(chief, judge, players, group)


class Play:
    """The demo's steps; each waits for the bot's answers before the next."""

    def __init__(self, cast: Cast, words: Words, narrate: Callable[[str], None]) -> None:
        self.c = cast
        self.w = words
        self.fake = cast.chief.fake
        self.narrate = narrate
        self.title = words(TITLE)

    async def all(self) -> None:
        await self.create()
        await self.staff()
        await self.players_join()
        await self.start()
        for game in GAMES:
            await self.enter(game)
        await self.protest()
        await self.ratings()
        await self.export()

    async def create(self) -> None:
        c, w = self.c, self.w
        self.narrate(w("The chief judge creates the tournament in the club's group "
                       "(the bot is its administrator)."))
        c.chief.open_chat()
        prompt = await c.chief.say_in(c.group, f"/new_tournament {w.language}")
        prompt = await c.chief.say_in(c.group, self.title, reply_to=prompt)
        created = await c.chief.say_in(c.group, str(DISTANCE), reply_to=prompt)
        assert self.title in created.content, created.content

    async def staff(self) -> None:
        c, w = self.c, self.w
        self.narrate(w("A judge joins the staff: the chief judge answers his message "
                       "with /judge."))
        said = c.judge.send(w("I can judge today."), c.group)
        await c.chief.say_in(c.group, "/judge", reply_to=said)
        await c.judge.open_chat().say("/start")

    async def players_join(self) -> None:
        c, w = self.c, self.w
        self.narrate(w("Players open the bot (/start), then /join in the group; the chief "
                       "judge confirms each one in his private chat."))
        confirm = w.bot("✅ Confirm")
        for nick, player in c.players.items():
            await player.open_chat().say("/start")
            mark = self.fake.seq
            player.send(f"/join {nick}", c.group)
            applied = await player.wait(nick, after=mark)
            request = await c.chief.wait(
                lambda m, nick=nick: nick in m.content and confirm in labels(m), after=mark)
            await c.chief.tap(request, confirm)
            await c.chief.wait(lambda m, request=request: m.message_id == request.message_id
                               and not m.buttons, after=mark)
            await player.wait(lambda m, applied=applied: m.message_id != applied.message_id,
                              after=applied.seq)
        self.narrate(w("Two players have no Telegram at hand: the chief judge adds them "
                       "with /roster."))
        await c.chief.say("/roster\n" + "\n".join(ON_ROSTER), ON_ROSTER[-1])

    async def start(self) -> None:
        c, w = self.c, self.w
        self.narrate(w("The chief judge starts the tournament."))
        card = await c.chief.say_in(c.group, "/tournament")
        mark = self.fake.seq
        await c.chief.tap(card, w.bot("▶️ Start"))
        await self.fake.wait_for_message(c.group, lambda m: m.reply_to is None, after=mark,
                                         timeout=WAIT)

    async def enter(self, game: GameSpec) -> None:
        c, w = self.c, self.w
        self.narrate(w("The judge enters round {round}'s game on his card (/game), step "
                       "by step, and saves it.").format(round=game.round))
        card = Card(c.judge, w.bot)
        await enter_game(card, game)
        mark = self.fake.seq
        await save(card)
        # The group gets the result, the standings and the round's picture.
        await self.fake.wait_for_message(c.group, lambda m: m.photo is not None, after=mark,
                                         timeout=WAIT)

    async def protest(self) -> None:
        c, w = self.c, self.w
        player = c.players[PROTESTER]
        self.narrate(w("{nick} protests the second game within ten minutes of its end; the "
                       "chief judge rejects the protest, saying why.").format(nick=PROTESTER))
        mark = self.fake.seq
        player.send("/protest " + w(REASON))
        picker = await player.wait(lambda m: bool(m.buttons), after=mark)
        await player.tap(picker, labels(picker)[0])  # the latest game comes first
        reject = w.bot("❌ Reject protest")
        decision = await c.chief.wait(lambda m: reject in labels(m), after=mark)
        tapped = self.fake.seq
        await c.chief.tap(decision, reject)  # he is asked for the decision's text
        await c.chief.wait(lambda m: m.message_id != decision.message_id, after=tapped)
        told = self.fake.seq
        c.chief.send(w(DECISION))
        await player.wait(w(DECISION), after=told)

    async def ratings(self) -> None:
        c, w = self.c, self.w
        self.narrate(w("Two players check the standings and their own points with /rating."))
        for nick in (PROTESTER, JOINING[0]):
            await c.players[nick].say("/rating")

    async def export(self) -> None:
        c, w = self.c, self.w
        self.narrate(w("The chief judge exports the tournament (/export)."))
        mark = self.fake.seq
        c.chief.send("/export")
        await c.chief.wait(lambda m: m.document is not None, after=mark)
        # Every file of the export has come once the bot has nothing more to say.
        await self.fake.wait_idle(idle=0.5, timeout=WAIT)


def save_files(out_dir: Path, cast: Cast) -> list[Path]:
    """The group's standings pictures and the chief judge's exports, as the bot sent
    them, written into ``out_dir``."""
    fake = cast.chief.fake
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    shown = [m for m in fake.messages(cast.group) if m.photo is not None]
    for n, message in enumerate(shown, start=1):
        assert message.photo is not None and message.photo.data is not None
        path = out_dir / f"standings-picture-{n}{_image_suffix(message.photo.data)}"
        path.write_bytes(message.photo.data)
        written.append(path)
    for message in fake.messages(cast.chief.chat):
        document = message.document
        if document is not None and document.data is not None:
            path = out_dir / Path(document.filename or f"file-{message.message_id}").name
            path.write_bytes(document.data)
            written.append(path)
    return written


def _image_suffix(data: bytes) -> str:
    return ".png" if data.startswith(b"\x89PNG") else ".jpg"
