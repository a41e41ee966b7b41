"""Text a server sent, made safe to show: control characters, bidi overrides and other invisible code
points are written out visibly (`\\x1b`, `\\u202e`), so that a tool name can neither drive the terminal
(ESC sequences, BEL, CR), nor reorder or hide what is shown around it, nor break a format that forbids
them (XML 1.0). The JSON report keeps the original text: JSON escapes it (see `escape_in_json`)."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

# Zero-width (non-)joiners are format characters too, but join letters and emoji sequences: kept.
KEPT_FORMAT_CHARACTERS = frozenset("\u200c\u200d")
LAYOUT_CHARACTERS = frozenset("\n\t")
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# Report fields whose text may span lines (multi-line details, quoted stderr); every other string (names,
# versions, ids, paths) is shown on one line.
LAYOUT_FIELDS = frozenset({"details", "note", "reason", "warnings", "listingError", "message"})


def is_hidden(char: str) -> bool:
    """A code point that does not show as itself: C0/C1 controls, format characters (bidi overrides and
    isolates, zero-width space, tag characters), line and paragraph separators, lone surrogates, and the
    noncharacters (U+FFFE, U+FFFF and kin, which XML forbids)."""
    if char in KEPT_FORMAT_CHARACTERS:
        return False
    code = ord(char)
    return unicodedata.category(char) in HIDDEN_CATEGORIES or 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def visible_escape(char: str) -> str:
    """`\\x1b`, `\\u202e`, `\\U000e0041`: the code point spelled as in Python."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def safe_text(text: str, *, layout: bool = False) -> str:
    """The text with every hidden code point written out visibly; with `layout`, newlines and tabs stay."""
    if text.isprintable():  # the common case: nothing to do (isprintable is False for every hidden point)
        return text
    kept = LAYOUT_CHARACTERS if layout else frozenset()
    return "".join(visible_escape(char) if char not in kept and is_hidden(char) else char for char in text)


def safe_data(value: Any, *, layout: bool = False) -> Any:
    """A JSON-like value (as a report's model_dump gives) with every string and key made safe; strings
    under a LAYOUT_FIELDS key keep their line breaks."""
    if isinstance(value, str):
        return safe_text(value, layout=layout)
    if isinstance(value, Mapping):
        return {safe_text(str(key)): safe_data(item, layout=key in LAYOUT_FIELDS) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [safe_data(item, layout=layout) for item in value]
    return value


NON_ASCII_IN_JSON = re.compile(r"[^\x00-\x7f]")


def escape_in_json(document: str) -> str:
    """JSON text whose hidden code points (which JSON leaves raw above U+001F) are written as \\u escapes:
    still the same JSON value, but no bidi override or lone surrogate reaches whoever reads it."""
    return NON_ASCII_IN_JSON.sub(_json_escape, document)


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    if not is_hidden(char):
        return char
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def model_json(model: BaseModel) -> str:
    """A model as indented JSON (by alias) with its text as sent, hidden code points escaped. Unlike
    pydantic's own serialiser it takes lone surrogates, which a server can send as JSON escapes."""
    document = json.dumps(model.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False)
    return escape_in_json(document)
