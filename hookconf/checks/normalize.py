"""Normalize tool output for comparison, and classify how two outputs differ."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from hookconf.session import CallOutcome

ISO_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
TIMESTAMP_MASK = "<timestamp>"
UUID_MASK = "<uuid>"


def normalized_output(outcome: CallOutcome) -> Any:
    """What a call produced, in a comparable form: JSON carried in text content is parsed."""
    if outcome.timed_out:
        return {"timeout": True}
    if outcome.error is not None:
        return {"error": {"code": outcome.error.get("code"), "message": outcome.error.get("message")}}
    result = outcome.result or {}
    content = [_normalized_block(block) for block in result.get("content") or []]
    output: dict[str, Any] = {"content": content, "isError": bool(result.get("isError"))}
    if "structuredContent" in result:
        output["structuredContent"] = result["structuredContent"]
    return output


def _normalized_block(block: Any) -> Any:
    if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": parse_json_text(block["text"])}
    return block


def parse_json_text(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") or stripped in ("true", "false", "null"):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            return text
    return text


def canonical(value: Any) -> str:
    """Sorted-key JSON: two values are identical exactly when their canonical strings are."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def mask(value: Any, pattern: re.Pattern[str], replacement: str) -> Any:
    if isinstance(value, str):
        return pattern.sub(replacement, value)
    if isinstance(value, dict):
        return {key: mask(item, pattern, replacement) for key, item in value.items()}
    if isinstance(value, list):
        return [mask(item, pattern, replacement) for item in value]
    return value


def equal_within(a: Any, b: Any, tolerance: float) -> bool:
    """Structural equality where floats may differ by the tolerance (relative or absolute)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal_within(a[k], b[k], tolerance) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal_within(x, y, tolerance) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def all_equal(values: list[Any], tolerance: float) -> bool:
    return all(equal_within(values[0], other, tolerance) for other in values[1:])


def shape(value: Any) -> Any:
    """The structure of a value with its leaves replaced by their JSON type names."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        item_shapes = {canonical(shape(item)) for item in value}
        return ["array", *sorted(item_shapes)]
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return "string"


def differs_only_in_floats(values: list[Any]) -> bool:
    """True when the values have one shape and every difference is between non-integer numbers."""
    return all(_float_only_diff(values[0], other) for other in values[1:])


def _float_only_diff(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b or isinstance(a, float) or isinstance(b, float)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_float_only_diff(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_float_only_diff(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
