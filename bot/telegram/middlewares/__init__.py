"""Dispatcher middlewares."""

from bot.telegram.middlewares.dedup import DedupMiddleware

__all__ = ["DedupMiddleware"]
