"""Talking to the Bot API: the flood control and its retries, the lazy aiogram models,
the FSM storage, the polling loop and the start's first call, the watch on Telegram's
answers, the background tasks a handler starts, and the Dispatcher's middlewares.

Imported by the app's wiring (``bot.app``), by ``handlers``, ``bot.web`` and
``bot.publishing``; never by the use cases (``bot.services``), the read models or the
repositories, which know nothing of Telegram.
"""
