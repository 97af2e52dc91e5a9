"""End-to-end tests: the real bot process against a local fake Telegram Bot API server."""
