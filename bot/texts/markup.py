"""The one way text gets into the HTML the bot sends (aiogram's parse mode HTML).

Whatever comes from people (nicknames, titles, reasons, names) or from elsewhere
(errors, file names) goes through :func:`html_text`: ``<``, ``>`` and ``&`` escaped.
Quotes stay as they are: the bot writes no attributes, and Telegram shows ``"`` and
``'`` plainly.
"""

from __future__ import annotations

import html


def html_text(value: object) -> str:
    """``value`` as text inside an HTML message."""
    return html.escape(str(value), quote=False)
