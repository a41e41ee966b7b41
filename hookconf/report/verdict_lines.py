"""`hookconf check --verbose`: each verdict on stderr as the audit decides it, one line each, in the status words
and colours of the terminal report."""

from __future__ import annotations

from typing import TextIO

from hookconf.engine.events import AuditEvent, VerdictReached
from hookconf.report.formats.human import MAX_DETAIL, Paint
from hookconf.report.model import ResultEntry
from hookconf.report.text import clip
from hookconf.safe_text import safe_text


def verdict_line(entry: ResultEntry, paint: Paint) -> str:
    """`PASS  idempotency   IDEMP-001  echo: 5 identical calls, same result (12.3 ms)`; what the server chose
    (its tool names, the details quoting it) is shown safely."""
    name = entry.id or entry.suite
    code = entry.code if entry.code and entry.code != entry.id else ""
    detail = clip(safe_text(entry.details), MAX_DETAIL)
    return (
        f"{paint.status(entry.status)}{name:<14}{code:<11}{safe_text(entry.tool)}: {detail} ({entry.duration_ms:g} ms)"
    )


class VerdictPrinter:
    """A listener for run_audit that writes each verdict to `stream` as it lands."""

    def __init__(self, stream: TextIO, colour: bool) -> None:
        self.stream = stream
        self.paint = Paint(colour)

    def __call__(self, event: AuditEvent) -> None:
        if isinstance(event, VerdictReached):
            self.stream.write(verdict_line(event.entry, self.paint) + "\n")
            self.stream.flush()
