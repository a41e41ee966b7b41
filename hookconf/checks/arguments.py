"""Minimal valid arguments generated from a tool's inputSchema, for tools without a probe."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema

PLACEHOLDER_STRING = "hookconf"
FORMAT_EXAMPLES = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "00:00:00Z",
    "email": "audit@example.com",
    "uri": "file:///tmp",
    "url": "file:///tmp",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "127.0.0.1",
    "hostname": "localhost",
}
MAX_DEPTH = 8


def minimal_value(schema: Any, depth: int = 0) -> Any:  # noqa: PLR0912 - one branch per JSON type
    """The smallest value that honours the schema's type, bounds, enum, const and default."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return minimal_value(schema[key][0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        return minimal_object(schema, depth + 1)
    if kind == "array":
        count = int(schema.get("minItems", 0))
        return [minimal_value(schema.get("items", {}), depth + 1) for _ in range(count)]
    if kind == "string":
        return minimal_string(schema)
    if kind in ("integer", "number"):
        return minimal_number(schema, integer=kind == "integer")
    if kind == "boolean":
        return False
    return None


def minimal_object(schema: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    declared = schema.get("properties")
    properties: dict[str, Any] = declared if isinstance(declared, dict) else {}
    required = [name for name in schema.get("required") or [] if isinstance(name, str)]
    return {name: minimal_value(properties.get(name, {}), depth) for name in required}


def minimal_string(schema: dict[str, Any]) -> str:
    value = FORMAT_EXAMPLES.get(str(schema.get("format")), PLACEHOLDER_STRING)
    min_length = int(schema.get("minLength", 0))
    if len(value) < min_length:
        value = value + "x" * (min_length - len(value))
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(value) > max_length:
        value = value[:max_length]
    return value


def minimal_number(schema: dict[str, Any], integer: bool) -> float | int:
    if "minimum" in schema:
        value = schema["minimum"]
    elif "exclusiveMinimum" in schema and not isinstance(schema["exclusiveMinimum"], bool):
        value = schema["exclusiveMinimum"] + 1
    else:
        value = 0 if "maximum" not in schema or schema["maximum"] >= 0 else schema["maximum"]
    return int(value) if integer else value


def generated_arguments(input_schema: Any) -> tuple[dict[str, Any], str | None]:
    """Arguments for the schema, and a note when they do not validate against it. Each call returns its own
    copy: the caller may change it."""
    schema = input_schema if isinstance(input_schema, dict) else {}
    arguments, note = _generated_for(json.dumps(schema))
    return json.loads(arguments), note


# Checking a schema against its meta-schema costs milliseconds, and the checks ask for a tool's arguments many
# times in one audit: keyed by the schema's JSON text, in the schema's own key order.
@functools.lru_cache(maxsize=256)
def _generated_for(schema_text: str) -> tuple[str, str | None]:
    schema = json.loads(schema_text)
    arguments = minimal_object(schema)
    try:
        jsonschema.validate(arguments, schema)
    except jsonschema.ValidationError as exc:
        return json.dumps(arguments), f"generated arguments do not satisfy the inputSchema ({exc.message}); add a probe"
    except jsonschema.SchemaError as exc:
        return json.dumps(arguments), f"the tool's inputSchema is not a valid JSON Schema ({exc.message})"
    return json.dumps(arguments), None
