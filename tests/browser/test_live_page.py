"""The judge's live protocol in the Mini App, in headless Chromium against the real bot:
a whole game played in the page and saved equals the same game entered on the card; a
reload resumes; taps made offline go once when the connection returns; a forged or
stale sign-in and a non-judge are refused and change nothing. The check answers show
large, the speech timer warns by haptics at 10 s left (8.3.1's "Accepted" shows for
every best-move number)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path

from tests.e2e.bot_process import BotFactory
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.scenario import Card, GameSpec, Person, enter_game, save

from .page import SEATED, Browser, LiveTable, open_live_table

# The game both sides enter: sheriff 1, don 2, mafia 3 and 4; seat 3 voted out on day 1,
# Echo (5, civilian) shot on night 1 names 2, 3, 4 (three blacks: 0.4, 8.3.4); two
# more nights; the don voted out on day 4: the red team wins; the judge gives seat 1
# 0.3 (8.4.3).
CARD_GAME = GameSpec(1, 1, SEATED, sheriff=1, don=2, mafia=(3, 4), result="red", day1=1,
                     night=5, best_move=(2, 3, 4), extras={1: "0.3"})
TAPS = Path(__file__).resolve().parent / "artifacts" / "taps.json"


def speaking(b: Browser) -> int:
    """The seat the timer's speaker line shows ("Seat 3 · Charlie")."""
    return int(b.text("#speaker").split("·")[0].split()[-1])


def play_day(b: Browser, nominations: list[tuple[int, int]], fouls: list[int]) -> None:
    """Speeches: each nominating speaker is stepped to (▶) and taps his target."""
    for speaker, target in nominations:
        while speaking(b) != speaker:
            b.tap("speaker", 1, sync=False)
        b.seat(target)
        assert "nominated" in b.seat_class(target), b.text("body")
    for seat in fouls:
        b.tap("mode", "foul", sync=False)
        b.seat(seat)


def last_line(b: Browser, css: str) -> str:
    return b.text(css).splitlines()[-1].lower()


def play_night(b: Browser, shot: int, don: int, sheriff: int, answers: tuple[str, str],
               screenshot: str = "") -> None:
    b.seat(shot)
    b.seat(don)
    assert last_line(b, "#don-answer") == answers[0], b.text("#don-answer")
    b.seat(sheriff)
    assert last_line(b, "#sheriff-answer") == answers[1], b.text("#sheriff-answer")
    if screenshot:  # the roles shown, as the judge alone sees them
        b.tap("eye", sync=False)
        b.screenshot(screenshot)
        b.tap("eye", sync=False)
    b.tap("end_night")


def play_game(b: Browser, live: LiveTable) -> None:
    """The whole game, tap by tap, as the judge plays it in the page."""
    b.telegram(live.init_data())
    b.open(live.url)
    assert "Day 1" in b.text("header")
    for seat in (1, 2, 3, 4):  # sheriff, don, mafia, mafia
        b.seat(seat)
    b.tap("eye", sync=False)
    assert "sheriff" in b.seat_text(1).lower() and "don" in b.seat_text(2).lower()
    b.tap("eye", sync=False)
    assert "sheriff" not in b.seat_text(1).lower()

    # Day 1: 1 nominates 3, 2 nominates 5; 3 nominating 5 again is refused with the
    # server's words and the page shows the server's state again.
    play_day(b, [(1, 3), (2, 5)], fouls=[6])
    assert b.find("#seat-6 .fouls i.f") is not None
    b.tap("speaker", 1, sync=False)
    b.seat(5)  # seat 3 names 5 again: refused (a target once a day)
    assert "nominated" in b.toast().lower()
    assert b.seat_text(5).endswith("← 2")
    b.tap("voting", sync=False)
    b.tap("votes", "3:6", sync=False)  # 6 for seat 3; seat 5 the rest (4)
    assert "4" in b.text("#rest")
    b.tap("cast")
    b.tap("out", 3)
    assert "out" in b.seat_class(3) and "Night 1" in b.text("header")

    play_night(b, shot=5, don=1, sheriff=2, answers=("sheriff", "black"),
               screenshot="table-light-night.png")
    # Day 2: 2 nominates 4, the only candidate leaves; a foul for 7.
    assert "out" in b.seat_class(5) and "Day 2" in b.text("header")
    play_day(b, [(2, 4)], fouls=[7])
    b.tap("voting", sync=False)
    b.tap("out", 4)
    play_night(b, shot=6, don=7, sheriff=8, answers=("not the sheriff", "red"))
    # Day 3: 2 and 9 tie, tie again on the re-vote, and the table keeps both.
    play_day(b, [(7, 2), (8, 9)], fouls=[])
    b.tap("voting", sync=False)
    b.tap("votes", "2:3", sync=False)
    b.tap("cast")
    b.tap("revote", "2,9", sync=False)
    b.tap("votes", "2:3", sync=False)
    b.tap("cast")
    assert b.find('[data-act="revote"]') is None
    b.tap("out", "")
    play_night(b, shot=7, don=8, sheriff=9, answers=("not the sheriff", "red"))
    # Day 4: the don leaves, no black is alive: the red team won.
    play_day(b, [(8, 2)], fouls=[])
    b.tap("voting", sync=False)
    b.tap("out", 2)
    b.wait(lambda: "red win" in b.text("header").lower(), "the red team's win")

    # After the game (the page turns to it by itself): best move, result, points.
    for seat in (2, 3, 4):
        b.tap("best", seat)
    assert b.text("#best-move").count("Accepted") == 3, b.text("#best-move")
    b.tap("result", "red")
    b.tap("mode", "extra", sync=False)
    b.seat(1, sync=False)
    b.tap("extra", 30)
    b.tap("review", sync=False)
    b.wait_for("#review tr[data-seat='10']")
    assert b.find("#problems") is None, b.text("#problems")


def page_review(b: Browser) -> list[str]:
    """The review as "seat. nickname (role): parts = total", the card's line."""
    return b.js("""
      return Array.from(document.querySelectorAll('#review tr[data-seat]')).map(function (r) {
        return r.dataset.seat + '. ' + r.querySelector('.nick').textContent + ' (' +
          r.querySelector('.rolename').textContent + '): ' +
          r.querySelector('.parts').textContent + ' = ' + r.querySelector('.pts').textContent;
      });""")


def stored_game(live: LiveTable, tournament_id: int) -> tuple[object, ...]:
    game = live.query(
        "SELECT id, round, table_no, result, day1_voted_out, first_killed, best_move,"
        " best_move_hint, status FROM games WHERE tournament_id = ?", (tournament_id,))
    assert len(game) == 1, game
    seats = live.query(
        "SELECT s.seat, p.nickname, s.role, s.disqualified, s.judge_extra, s.penalties"
        " FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = ?"
        " ORDER BY s.seat", (game[0][0],))
    return (*game[0][1:], tuple(seats))


async def test_a_whole_game_in_the_page_is_the_card_s_game(
    fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path, browser: Browser,
) -> None:
    """Roles, fouls, nominations, votes with a tie re-vote, three nights with the don's
    and the sheriff's checks answered large, best move "Accepted" number by number
    (8.3.1), result, judge's points (8.4.3), review and Save: the stored game and every
    seat's points equal the same game entered on another judge's card."""
    pavel = Person(fake_telegram, "Pavel", "pavel_judge").open_chat()
    live = await open_live_table(fake_telegram, bot_factory, tmp_path, others=[pavel])
    card = Card(pavel)
    await asyncio.gather(asyncio.to_thread(play_game, browser, live),
                         enter_game(card, CARD_GAME))
    shown = await asyncio.to_thread(page_review, browser)
    card_lines = re.sub(r"<[^>]+>", "", card.text).splitlines()
    for line in shown:
        assert line in card_lines, (line, card.text)
    await asyncio.to_thread(browser.screenshot, "table-light-outcome.png")
    await asyncio.to_thread(browser.tap, "tab", "table", sync=False)
    await asyncio.to_thread(browser.screenshot, "table-light.png")
    taps = browser.taps
    await asyncio.to_thread(browser.tap, "tab", "outcome", sync=False)
    await asyncio.to_thread(browser.tap, "save", sync=False)
    await asyncio.to_thread(browser.wait, lambda: "Saved as game R1-T1" in browser.text(".status"),
                            "Saved")
    await save(card)
    other = live.query("SELECT id FROM tournaments WHERE id != ?",
                       (live.seeded.tournament_id,))[0][0]
    assert stored_game(live, live.seeded.tournament_id) == stored_game(live, other)
    TAPS.parent.mkdir(parents=True, exist_ok=True)
    TAPS.write_text(json.dumps({"page_taps_to_review": taps, "page_taps_with_save": taps + 2,
                                "taps": browser.tapped}, indent=1))


def resume_and_replay(b: Browser, live: LiveTable) -> dict[str, object]:
    # The first answer to a POST of events is lost on its way back (the server took
    # them): the page sends the same ids again, and the server stores each once.
    lose_one = """
      (function () {
        var real = window.fetch, lost = 0;
        window.fetch = function (url, init) {
          var p = real.apply(this, arguments);
          if (init && init.method === 'POST' && /events$/.test(url) && sessionStorage.lose
              && lost < 1) {
            lost += 1; sessionStorage.removeItem('lose');
            return p.then(function () { throw new TypeError('connection lost'); });
          }
          return p;
        };
      })();
      window.LIVE_TIMER_SCALE = 0.02;
    """
    b.telegram(live.init_data(), "dark", hooks=lose_one)
    b.open(live.url)
    for seat in (1, 2, 3, 4):
        b.seat(seat)
    b.seat(7)  # nominated by seat 1
    b.tap("mode", "foul", sync=False)
    b.seat(8)
    # Reload in the middle: the server's events come back.
    b.driver.refresh()
    b.wait_for("#seat-1")
    assert "nominated" in b.seat_class(7)
    assert b.find("#seat-8 .fouls i.f") is not None
    # The speech timer (scaled 50×): a haptic warning at 10 s left.
    b.tap("clock", sync=False)
    b.wait(lambda: "notification:warning" in b.js("return window.__haptics"), "the 10 s haptic")

    b.offline(True)
    b.tap("speaker", 1, sync=False)
    b.seat(9, sync=False)  # nominated by seat 2
    b.tap("mode", "foul", sync=False)
    b.seat(8, sync=False)
    b.tap("mode", "foul", sync=False)
    b.seat(10, sync=False)
    b.wait(lambda: b.text("#pending").strip().endswith("3"), "three taps waiting")
    queued = b.js("return JSON.parse(localStorage.getItem(arguments[0]))",
                  "live-queue:" + live.token)
    assert "nominated" in b.seat_class(9)  # shown at once, though not sent
    assert b.find("#seat-10 .fouls i.f") is not None
    b.screenshot("table-dark-offline.png")
    b.js("sessionStorage.lose = '1'")
    b.offline(False)
    b.synced()
    assert "nominated" in b.seat_class(9)
    assert len(b.driver.find_elements("css selector", "#seat-8 .fouls i.f")) == 2
    b.tap("undo")  # the last foul (seat 10's) is taken back
    assert b.find("#seat-10 .fouls i.f") is None
    assert len(b.driver.find_elements("css selector", "#seat-8 .fouls i.f")) == 2
    b.tap("tab", "table", sync=False)
    b.screenshot("table-dark.png")
    return {"queued": queued}


async def test_a_reload_resumes_and_offline_taps_go_once(
    live_table: LiveTable, browser: Browser,
) -> None:
    live = live_table
    seen = await asyncio.to_thread(resume_and_replay, browser, live)
    stored = live.stored_events()
    commands = [json.loads(c) for _id, c in stored]
    assert [c["type"] for c in commands] == [
        "roles", "nominate", "foul", "nominate", "foul", "foul", "undo"]
    ids = [i for i, _c in stored]
    assert len(set(ids)) == len(ids)
    queued = seen["queued"]
    assert isinstance(queued, list)
    assert ids[3:6] == [e["id"] for e in queued]


def refused(b: Browser, live: LiveTable, init_data: str) -> str:
    b.telegram(init_data)
    b.open(live.url)
    return b.text(".fatal")


async def test_a_forged_or_stale_sign_in_and_a_non_judge_are_refused_a_judge_reads_his_language(
    live_table: LiveTable, browser: Browser,
) -> None:
    live = live_table
    before = live.stored_events()
    forged = live.init_data(bot_token="123456:another-bot")
    stale = live.init_data(auth_date=time.time() - 2 * 86400)
    stranger = Person(live.fake, "Quentin", "quentin").open_chat()
    for init_data in (forged, stale, live.init_data(stranger), ""):
        text = await asyncio.to_thread(refused, browser, live, init_data)
        assert text.startswith("⛔") and len(text) > 5, text
        # Nothing to tap: no seat is shown.
        assert browser.find("#seat-1") is None
    assert live.stored_events() == before
    # The judge reads the page in Russian: no English word, the page's words are the
    # API's texts (the server's gettext).
    assert await asyncio.to_thread(latin_words, browser, live) == []


def words(b: Browser) -> str:
    """The page's text but the public view's address."""
    return str(b.js("var t = document.getElementById('app').innerText;"
                    " document.querySelectorAll('.public a').forEach(function (a) {"
                    " t = t.replace(a.innerText, ''); }); return t;"))


def latin_words(b: Browser, live: LiveTable) -> list[str]:
    b.telegram(live.init_data(language="ru"))
    b.open(live.url)
    for seat in (1, 2, 3, 4):
        b.seat(seat)
    b.tap("eye", sync=False)
    shown = words(b)
    b.tap("tab", "outcome", sync=False)
    shown += "\n" + words(b)
    names = {*SEATED, "Spring", "Cup"}
    return [w for w in re.findall(r"[A-Za-z]{2,}", shown) if w not in names]

