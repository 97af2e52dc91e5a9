"""The bot package. Importing it first makes aiogram build its models lazily (less memory),
unless ``LAZY_MODELS`` turns that off."""

from bot.config import lazy_models
from bot.telegram.aiogram_models import install

# Before any module of the bot (or its handlers and tests) imports aiogram.
if lazy_models():
    install()
