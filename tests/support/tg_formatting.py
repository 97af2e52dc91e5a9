"""Telegram-like parsing of HTML ``parse_mode`` text into plain text + MessageEntity dicts.

Written from the Bot API "Formatting options" section. Offsets/lengths are in UTF-16 code
units like Telegram's; error texts follow Telegram's "can't parse entities: ..." messages.
Only HTML, the bot's parse mode: MarkdownV2 and Markdown raise :class:`NotEmulated`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Entity = dict[str, Any]

__all__ = [
    "EntityParseError",
    "NotEmulated",
    "normalize_entities",
    "parse_html",
    "parse_text",
    "strip_text",
    "utf16_len",
]


class EntityParseError(ValueError):
    """Text can't be parsed; str(exc) is the part after "can't parse entities: "."""


class NotEmulated(ValueError):
    """A real parse mode this fake does not parse (MarkdownV2, Markdown)."""


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(src: str, index: int) -> int:
    return len(src[:index].encode("utf-8"))


@dataclass
class _Out:
    """Accumulates plain text while tracking the UTF-16 position."""

    parts: list[str] = field(default_factory=list)
    pos: int = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += utf16_len(text)

    def text(self) -> str:
        return "".join(self.parts)


def _sorted(entities: list[Entity]) -> list[Entity]:
    return sorted(entities, key=lambda e: (e["offset"], -e["length"]))


# --------------------------------------------------------------------------------------- HTML

_HTML_SIMPLE = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
}
_HTML_TAGS = {*_HTML_SIMPLE, "a", "span", "blockquote", "tg-emoji"}
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ATTR_RE = re.compile(r"""\s*([a-zA-Z_:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_CHARREF_RE = re.compile(r"&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});")


def _unescape(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        ref = m.group(1)
        if ref[0] == "#":
            try:
                code = int(ref[2:], 16) if ref[1] in "xX" else int(ref[1:])
                return chr(code)
            except (ValueError, OverflowError):
                return m.group(0)
        return _NAMED.get(ref.lower(), m.group(0))

    return _CHARREF_RE.sub(repl, text)


def _parse_attrs(raw: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    pos = 0
    raw = raw.rstrip()
    while pos < len(raw):
        m = _ATTR_RE.match(raw, pos)
        if not m or m.end() == pos:
            raise EntityParseError("Expected equal sign in declaration of an attribute")
        value = next((g for g in m.groups()[1:] if g is not None), "")
        attrs[m.group(1).lower()] = _unescape(value)
        pos = m.end()
    return attrs


@dataclass
class _Open:
    tag: str
    start: int  # UTF-16 offset in the output
    entity: Entity | None
    src_index: int


def _html_entity(tag: str, attrs: dict[str, str], src: str, index: int) -> Entity | None:
    if tag in _HTML_SIMPLE:
        return {"type": _HTML_SIMPLE[tag]}
    if tag == "span":
        if attrs.get("class") != "tg-spoiler":
            raise EntityParseError(
                f'Tag "span" must have class "tg-spoiler" at byte offset {_byte_offset(src, index)}'
            )
        return {"type": "spoiler"}
    if tag == "a":
        href = attrs.get("href")
        if not href:
            return None
        m = re.fullmatch(r"tg://user\?id=(\d+)", href)
        if m:
            return {"type": "text_mention", "user": {"id": int(m.group(1)), "is_bot": False,
                                                     "first_name": ""}}
        return {"type": "text_link", "url": href}
    if tag == "blockquote":
        return {"type": "expandable_blockquote" if "expandable" in attrs else "blockquote"}
    if tag == "tg-emoji":
        emoji_id = attrs.get("emoji-id")
        if not emoji_id:
            raise EntityParseError(
                "Custom emoji entity must contain a valid custom emoji identifier")
        return {"type": "custom_emoji", "custom_emoji_id": emoji_id}
    raise AssertionError(tag)  # pragma: no cover


def parse_html(src: str) -> tuple[str, list[Entity]]:
    out = _Out()
    stack: list[_Open] = []
    entities: list[Entity] = []
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch == "<":
            end = src.find(">", i)
            if end == -1:
                raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(src, i)}")
            inner = src[i + 1 : end]
            if inner.startswith("/"):
                name = inner[1:].strip().lower()
                if not stack:
                    raise EntityParseError(
                        f"Unexpected end tag at byte offset {_byte_offset(src, i)}"
                    )
                top = stack.pop()
                if name != top.tag:
                    raise EntityParseError(
                        f"Unmatched end tag at byte offset {_byte_offset(src, i)}, "
                        f'expected "</{top.tag}>", found "</{name}>"'
                    )
                if top.entity is not None and out.pos > top.start:
                    entities.append({**top.entity, "offset": top.start,
                                     "length": out.pos - top.start})
            else:
                m = re.match(r"([a-zA-Z][a-zA-Z0-9-]*)(.*)", inner, re.S)
                if not m:
                    raise EntityParseError(
                        f'Unsupported start tag "{inner}" at byte offset {_byte_offset(src, i)}'
                    )
                tag = m.group(1).lower()
                if tag not in _HTML_TAGS:
                    raise EntityParseError(
                        f'Unsupported start tag "{tag}" at byte offset {_byte_offset(src, i)}'
                    )
                attrs = _parse_attrs(m.group(2))
                entity = _html_entity(tag, attrs, src, i)
                # <pre><code class="language-x"> gives the pre entity a language.
                if tag == "code" and stack and stack[-1].tag == "pre" and stack[-1].entity:
                    lang = attrs.get("class", "")
                    if lang.startswith("language-") and len(lang) > 9:
                        stack[-1].entity["language"] = lang[9:]
                    entity = None
                stack.append(_Open(tag, out.pos, entity, i))
            i = end + 1
        elif ch == "&":
            m = _CHARREF_RE.match(src, i)
            if m:
                out.add(_unescape(m.group(0)))
                i = m.end()
            else:
                out.add("&")
                i += 1
        else:
            j = i
            while j < n and src[j] not in "<&":
                j += 1
            out.add(src[i:j])
            i = j
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    return out.text(), _sorted(entities)


# ------------------------------------------------------------------------------------ helpers


def parse_text(text: str, parse_mode: str | None) -> tuple[str, list[Entity]]:
    """Parse `text` for a parse_mode (case-insensitive); unknown modes raise ValueError."""
    mode = (parse_mode or "").lower()
    if not mode:
        return text, []
    if mode == "html":
        return parse_html(text)
    if mode in ("markdownv2", "markdown"):
        raise NotEmulated(f"parse_mode {parse_mode} is not emulated (the bot sends HTML)")
    raise ValueError(f"unsupported parse_mode {parse_mode!r}")


def strip_text(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Trim surrounding whitespace like Telegram does, clipping entities to the kept part."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = utf16_len(text[: len(text) - len(text.lstrip())])
    end = lead + utf16_len(stripped)
    kept: list[Entity] = []
    for entity in entities:
        start = max(entity["offset"], lead)
        stop = min(entity["offset"] + entity["length"], end)
        if stop > start:
            kept.append({**entity, "offset": start - lead, "length": stop - start})
    return stripped, kept


def normalize_entities(entities: list[Entity] | None) -> list[tuple[tuple[str, Any], ...]]:
    """Order-independent comparable form of an entity list."""
    return sorted(
        tuple(sorted((k, repr(v)) for k, v in e.items())) for e in (entities or [])
    )
