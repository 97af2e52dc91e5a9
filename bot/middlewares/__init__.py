"""Dispatcher middlewares."""

from bot.middlewares.dedup import DedupMiddleware

__all__ = ["DedupMiddleware"]
