"""JSON: the model's own serialisation, the one versioned `Report`."""

from __future__ import annotations

from hookconf.report.model import Report

# JSON escapes server text itself, so it gets the report as the audit wrote it, hidden code points and all.
SHOWS_RAW_TEXT = True


def render(report: Report, *, colour: bool = False) -> str:  # colour: only the human format paints
    return report.to_json()
