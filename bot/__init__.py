"""The bot package. Importing it first makes aiogram build its models lazily (less memory)."""

from bot.aiogram_models import install

# Before any module of the bot (or its handlers and tests) imports aiogram.
install()
