"""Drivers of the browser tests: headless Chromium with a stand-in ``Telegram.WebApp``,
and the bot serving a live draft.

Selenium's calls block: a test runs its browser part in a thread
(``await asyncio.to_thread(...)``) so that the fake Bot API server, in the test's event
loop, keeps answering the bot meanwhile.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from bot.db import Database
from bot.services import live
from handlers.game_entry.draft import new_draft_id
from tests.e2e.bot_process import BotFactory, BotProcess, free_port
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.scenario import NICKS, Person, Seeded, seed_tournament
from tests.support.webapp import sign_init_data

T = TypeVar("T")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
WAIT = 15.0
PHONE = (390, 844)
SEATED = list(NICKS[:10])
# Telegram's default theme params of its light and dark themes (what the client passes).
THEMES: dict[str, dict[str, str]] = {
    "light": {
        "bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#999999",
        "link_color": "#2481cc", "button_color": "#2481cc", "button_text_color": "#ffffff",
        "secondary_bg_color": "#efeff3", "destructive_text_color": "#ff3b30",
    },
    "dark": {
        "bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499",
        "link_color": "#6ab3f3", "button_color": "#5288c1", "button_text_color": "#ffffff",
        "secondary_bg_color": "#232e3c", "destructive_text_color": "#ec3942",
    },
}


def stand_in(init_data: str, scheme: str = "light", *, hooks: str = "") -> str:
    """The script run before the page's own: ``window.Telegram.WebApp`` as Telegram's
    client provides it (the real telegram-web-app.js cannot load: no internet), with
    haptic calls recorded in ``window.__haptics``; the page's retry pace shortened."""
    theme = THEMES[scheme]
    return f"""
      window.__haptics = [];
      window.LIVE_RETRY_MS = 150;
      window.Telegram = {{ WebApp: {{
        initData: {json.dumps(init_data)},
        initDataUnsafe: {{}},
        colorScheme: {json.dumps(scheme)},
        themeParams: {json.dumps(theme)},
        ready: function () {{ window.__ready = true; }},
        expand: function () {{}},
        HapticFeedback: {{
          impactOccurred: function (k) {{ window.__haptics.push('impact:' + k); }},
          notificationOccurred: function (k) {{ window.__haptics.push('notification:' + k); }},
          selectionChanged: function () {{ window.__haptics.push('selection'); }}
        }}
      }} }};
      {hooks}
    """


# Find the button (waiting for it to be drawn), check a finger reaches it, tap it; then,
# when ``sync``, wait until nothing waits to be sent (#pending gone). "" when done.
_TAP = """
  var css = arguments[0], sync = arguments[1], done = arguments[arguments.length - 1];
  var deadline = Date.now() + arguments[2];
  function later(step) {
    if (Date.now() > deadline) { done('timed out'); return; }
    setTimeout(step, 5);
  }
  function settle() { if (document.getElementById('pending')) later(settle); else done(''); }
  (function tap() {
    var el = document.querySelector(css);
    if (!el) { later(tap); return; }
    if (el.disabled) { done('disabled'); return; }
    el.scrollIntoView({block: 'nearest'});
    var r = el.getBoundingClientRect();
    var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === el || el.contains(hit))) {
      done('covered by ' + (hit ? hit.outerHTML.slice(0, 120) : 'nothing')); return;
    }
    el.click();
    if (sync) settle(); else done('');
  })();
"""


class Browser:
    """One headless Chromium (its own profile), as a phone-sized Telegram view."""

    def __init__(self, profile: Path) -> None:
        options = Options()
        options.binary_location = CHROMIUM
        for arg in (
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-extensions",
            "--window-size=500,1100", f"--user-data-dir={profile}",
            # Nothing from the internet: only the bot on loopback answers.
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        ):
            options.add_argument(arg)
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self._phone()
        self.taps = 0
        self.tapped: list[str] = []
        self._script: str | None = None

    def _phone(self) -> None:
        # A phone's screen (Chromium's windows are 500 px wide at least); per tab.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})

    def quit(self) -> None:
        self.driver.quit()

    def next_test(self) -> None:
        """Ready for another test, as a Chromium of its own would be (a start costs ~2 s):
        what the page kept of the last one (its offline queue in localStorage) is cleared,
        and the test gets a tab of its own, where the stand-in script, offline mode and
        the phone's screen are set anew."""
        origin = self.js("return location.origin")
        if isinstance(origin, str) and origin.startswith("http"):
            self.driver.execute_cdp_cmd("Storage.clearDataForOrigin",
                                        {"origin": origin, "storageTypes": "all"})
        last = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        tab = self.driver.current_window_handle
        self.driver.switch_to.window(last)
        self.driver.close()
        self.driver.switch_to.window(tab)
        self._phone()
        self.taps = 0
        self.tapped = []
        self._script = None

    # -- Telegram and the network -------------------------------------------------------

    def telegram(self, init_data: str, scheme: str = "light", *, hooks: str = "") -> None:
        """The stand-in Telegram.WebApp of the pages opened from now on."""
        cdp = self.driver.execute_cdp_cmd
        if self._script is not None:
            cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": self._script})
        added = cdp("Page.addScriptToEvaluateOnNewDocument",
                    {"source": stand_in(init_data, scheme, hooks=hooks)})
        self._script = added["identifier"]

    def offline(self, off: bool) -> None:
        """Chrome's own offline mode (DevTools' network conditions)."""
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": off, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    # -- looking and tapping ------------------------------------------------------------

    def open(self, url: str) -> None:
        self.driver.get(url)
        self.wait_for("#seat-1, .fatal")

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def wait(self, condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.02).until(
                lambda _d: condition())
        except TimeoutException:
            raise AssertionError(f"waited {timeout}s for {what}; the page shows:\n"
                                 f"{self.text('body')}") from None

    def wait_for(self, css: str, timeout: float = WAIT) -> WebElement:
        return self.wait(lambda: self.find(css), css, timeout)

    def find(self, css: str) -> WebElement | None:
        found = self.driver.find_elements(By.CSS_SELECTOR, css)
        return found[0] if found else None

    def text(self, css: str) -> str:
        def read() -> str:
            found = self.find(css)
            return found.text if found is not None else ""
        return self.stable(read)

    def tap(self, act: str, arg: object = None, *, sync: bool = True) -> None:
        """One tap, as the judge's finger, on the button in sight (not covered, not
        disabled); by default waits until the server took it. One WebDriver call: the
        suite runs a whole game of these."""
        css = f'[data-act="{act}"]' + ("" if arg is None else f'[data-arg="{arg}"]')
        problem = self.driver.execute_async_script(_TAP, css, sync, WAIT * 1000)
        self.taps += 1
        self.tapped.append(css)
        assert not problem, f"tap {css}: {problem}\n{self.text('body')}"

    def stable(self, action: Callable[[], T]) -> T:
        """``action`` again when the page drew itself anew under it (a server's answer)."""
        for _ in range(20):
            try:
                return action()
            except StaleElementReferenceException:
                continue
        return action()

    def seat(self, n: int, *, sync: bool = True) -> None:
        self.tap("seat", n, sync=sync)

    def synced(self) -> None:
        """Nothing waits to be sent (the server answered every tap)."""
        self.wait(lambda: self.find("#pending") is None, "the server to take the taps")

    def seat_text(self, n: int) -> str:
        return self.text(f"#seat-{n}")

    def seat_class(self, n: int) -> str:
        return str(self.js("var s = document.getElementById(arguments[0]);"
                           " return s ? s.className : '';", f"seat-{n}"))

    def toast(self) -> str:
        return self.wait(lambda: self.js(
            "var t = document.getElementById('toast'); return t.hidden ? '' : t.textContent;"),
            "a message")

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        # The whole page, as tall as its content, from its top.
        self.js("window.scrollTo(0, 0)")
        height = int(self.js("return document.documentElement.scrollHeight"))
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": PHONE[0], "height": height, "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


@dataclass
class LiveTable:
    """The bot with a live draft of round 1, table 1 judged by ``judge``."""

    fake: FakeTelegram
    bot: BotProcess
    db_path: Path
    base_url: str
    token: str
    public: str
    seeded: Seeded
    chief: Person
    judge: Person

    @property
    def url(self) -> str:
        return f"{self.base_url}/app/?g={self.token}"

    def init_data(self, user: Person | None = None, *, auth_date: float | None = None,
                  bot_token: str | None = None, language: str | None = None) -> str:
        who = user or self.judge
        return sign_init_data(
            bot_token or self.bot.token or "",
            {"id": who.id, "first_name": who.name,
             "language_code": language or who.user.language_code},
            auth_date)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        con = sqlite3.connect(self.db_path, timeout=10)
        try:
            return con.execute(sql, params).fetchall()
        finally:
            con.close()

    def stored_events(self) -> list[tuple[str, str]]:
        """(client id, command JSON) of the draft's events, in order."""
        return [(r[0], r[1]) for r in self.query(
            "SELECT e.client_id, e.command FROM live_events e"
            " JOIN live_drafts d ON d.id = e.draft_id WHERE d.token = ? ORDER BY e.seq",
            (self.token,))]


async def open_live_table(fake: FakeTelegram, factory: BotFactory, tmp_path: Path, *,
                          others: Sequence[Person] = ()) -> LiveTable:
    """Seed a running tournament (judge Oleg; ``others`` judge their own tournaments of
    the same players), open Oleg's live draft of R1-T1 and start the bot serving it."""
    chief = Person(fake, "Nina", "nina_chief").open_chat()
    judge = Person(fake, "Oleg", "oleg_judge").open_chat()
    db_path = tmp_path / "bot.sqlite3"
    seeded = await seed_tournament(db_path, chief=chief, judges=[judge], language="en")
    for other in others:
        await seed_tournament(db_path, chief=chief, judges=[other], language="en",
                              title=f"Cup of {other.name}")
    db = await Database.open(db_path)
    try:
        draft = await live.open_for_card(
            db, draft_id=new_draft_id(), tournament_id=seeded.tournament_id, round_no=1,
            table_no=1, players=[seeded.player_ids[n] for n in SEATED], judge_id=judge.id)
    finally:
        await db.close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = await factory(env={"WEB_HOST": "127.0.0.1", "WEB_PORT": str(port),
                             "WEBAPP_URL": base})
    await fake.wait_until(lambda: _answers(f"{base}/app/"), timeout=WAIT,
                          what="the bot's web server")
    return LiveTable(fake, bot, db_path, base, draft.token, draft.public_token, seeded,
                     chief, judge)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False

