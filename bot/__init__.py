"""The bot package. Importing it first makes aiogram build its models lazily (less memory),
unless ``LAZY_MODELS`` turns that off.

aiogram itself is not imported here: an import hook defers its models at the moment
something first imports it (the app's wiring, handlers, tests), so the shell's commands
that never talk to Telegram (``python -m bot check``, ...) start without it.
"""

from bot.config import lazy_models
from bot.telegram.aiogram_models import install_on_import

# Before any module of the bot (or its handlers and tests) imports aiogram.
if lazy_models():
    install_on_import()
