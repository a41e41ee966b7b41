"""What an audit tells a listener while it runs: started, one verdict per result as it is decided, finished.

A listener is a plain callable; the audit builds no event when it has none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hookconf.report.model import ResultEntry, Summary, Timing


@dataclass(frozen=True)
class AuditStarted:
    """The server answered and the audit is planned: the tools the hook suites will see, the checks planned."""

    server: str
    tools: tuple[str, ...]
    checks: tuple[str, ...]


@dataclass(frozen=True)
class VerdictReached:
    """One result of the report (a hook suite's, a compliance check's, a schema violation's), as it is decided."""

    entry: ResultEntry


@dataclass(frozen=True)
class AuditFinished:
    server: str
    summary: Summary
    timing: Timing | None
    duration_ms: float


AuditEvent = AuditStarted | VerdictReached | AuditFinished
Listener = Callable[[AuditEvent], None]


@dataclass(frozen=True)
class Events:
    """The audit's side of the stream: each method is a no-op without a listener."""

    listener: Listener | None = None

    def started(self, server: str, tools: Sequence[str], checks: Sequence[str]) -> None:
        if self.listener is not None:
            self.listener(AuditStarted(server, tuple(tools), tuple(checks)))

    def verdicts(self, entries: Sequence[ResultEntry]) -> None:
        if self.listener is not None:
            for entry in entries:
                self.listener(VerdictReached(entry))

    def finished(self, server: str, summary: Summary, timing: Timing | None, duration_ms: float) -> None:
        if self.listener is not None:
            self.listener(AuditFinished(server, summary, timing, duration_ms))


SILENT = Events()
