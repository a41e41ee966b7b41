"""A fleet manifest written as TOML text: `[fleet]` and `[[servers]]` tables of strings, lists and inline tables.

hookconf has no TOML writer among its dependencies and the manifest is small and regular, so the text is
written here; strings are TOML basic strings with every control character escaped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def toml_string(text: str) -> str:
    return '"' + "".join(_escape(char) for char in text) + '"'


def _escape(char: str) -> str:
    if char in ESCAPES:
        return ESCAPES[char]
    if ord(char) < 0x20 or ord(char) == 0x7F:
        return f"\\u{ord(char):04X}"
    return char


def toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else toml_string(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def comment_lines(text: str) -> list[str]:
    """`# text`, one line per line of text, with nothing in it that ends the comment or hides characters."""
    lines = []
    for line in text.splitlines() or [""]:
        visible = "".join(char if char.isprintable() else " " for char in line).rstrip()
        lines.append(f"# {visible}".rstrip())
    return lines


def manifest_text(fleet: str, servers: Sequence[tuple[str, Mapping[str, Any]]], header: str = "") -> str:
    """The manifest: an optional comment header, `[fleet]`, then each server table after its comment."""
    lines = [*comment_lines(header), ""] if header else []
    lines += ["[fleet]", f"name = {toml_string(fleet)}"]
    for comment, table in servers:
        lines.append("")
        if comment:
            lines.extend(comment_lines(comment))
        lines.append("[[servers]]")
        lines.extend(f"{toml_key(key)} = {toml_value(value)}" for key, value in table.items())
    return "\n".join(lines) + "\n"
