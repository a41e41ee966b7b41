"""A status line on a terminal's stderr while an audit runs longer than two seconds: the verdicts so far of those
planned, and the last one reached. Redrawn in place, cleared when the audit ends; nothing on a pipe or in a log."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from hookconf.engine.events import AuditEvent, AuditFinished, AuditStarted, VerdictReached
from hookconf.safe_text import safe_text

QUIET_S = 2.0  # a short audit shows no progress: its report comes before anyone would wonder
REDRAW_S = 0.2
WIDTH = 100


class ProgressLine:
    """A listener for run_audit. `clock` is time.monotonic, or a test's."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.tools = 0
        self.checks = 0
        self.reached = 0
        self.server = ""
        self.last = ""
        self.drawn_at: float | None = None

    def __call__(self, event: AuditEvent) -> None:
        if isinstance(event, AuditStarted):
            self.server = safe_text(event.server)
            self.tools, self.checks = len(event.tools), len(event.checks)
        elif isinstance(event, VerdictReached):
            self.reached += 1
            self.last = safe_text(event.entry.id or f"{event.entry.suite} {event.entry.tool}")
            self._draw()
        elif isinstance(event, AuditFinished):
            self._clear()

    def _draw(self) -> None:
        now = self.clock()
        if now - self.started < QUIET_S or (self.drawn_at is not None and now - self.drawn_at < REDRAW_S):
            return
        self.drawn_at = now
        plan = f"{self.tools} tools, {self.checks} checks"
        line = f"auditing {self.server} ({plan}): {self.reached} verdicts in {now - self.started:.0f} s; {self.last}"
        self.stream.write("\r" + line[:WIDTH].ljust(WIDTH))
        self.stream.flush()

    def _clear(self) -> None:
        if self.drawn_at is not None:
            self.stream.write("\r" + " " * WIDTH + "\r")
            self.stream.flush()
