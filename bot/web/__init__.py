"""The bot's aiohttp server: ``/healthz`` and the webhook, the guard against oversized
or malformed requests, and the live protocol's pages and API (the Mini App signed in by
Telegram's ``initData``, the judges' events, review and Save, the public live view).

It reaches data only through the use cases (``bot.services``) and the read models, as
handlers do. Imported by the app's wiring (``bot.app``) and ``python -m bot`` only.
"""
