"""``make demo``: a short tournament played through the real bot without Telegram.

The real bot process (``python -m bot``, as ``make run`` starts it) talks to the Bot
API stand-in of the e2e tests (``tests/e2e/fake_telegram.py``) on a loopback port,
with a made-up token and a database in a temporary folder: nothing leaves 127.0.0.1.
People of the e2e scenarios (``tests/e2e/scenario.py``) play the tournament through
it (``tournament.py``): a chief judge, a judge, ten players, two games, a protest,
/rating and /export. The transcript (``transcript.py``) prints what each person sees
as it happens; the group's standings pictures, the exports and the transcript are
left in a folder (``run.py``). The people have English Telegram, or Russian
(``words.py``: the bot's catalogs, the demo's own lines in ``locales/ru/.../demo.po``).
``tests/e2e/test_demo.py`` plays it once in the suite.
"""

# First, before anything imports aiogram: its models are then built lazily
# (bot/telegram/aiogram_models.py).
import bot  # noqa: F401  # isort: skip
