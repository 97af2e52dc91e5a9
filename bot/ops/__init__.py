"""Running the bot on a server: one bot per database (a lock beside the file), backups
on a schedule and before a migration, and putting one back (``python -m bot restore``).

Imported by the entry point (``python -m bot``), the app's wiring and the health probe
(``bot.web.health``); it reads the database file through ``bot.db`` and speaks the
shell's language through ``bot.texts``.
"""
