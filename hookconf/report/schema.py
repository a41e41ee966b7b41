"""The JSON Schema of the report, from the model itself, so the two cannot drift apart."""

from __future__ import annotations

import json
from typing import Any

from hookconf.report.model import SCHEMA_VERSION, Report

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def report_schema() -> dict[str, Any]:
    schema = Report.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "hookconf report",
        "schemaVersion": SCHEMA_VERSION,
        **{key: value for key, value in schema.items() if key != "title"},
    }


def render_schema() -> str:
    return json.dumps(report_schema(), indent=2) + "\n"
