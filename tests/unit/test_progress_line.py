"""The status line on a terminal while an audit runs: silent for two seconds, then redrawn in place, then cleared."""

from __future__ import annotations

import io

from hookconf.engine.events import AuditFinished, AuditStarted, VerdictReached
from hookconf.report.model import ResultEntry, Summary
from hookconf.verdicts import Status


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def entry(tool: str) -> ResultEntry:
    return ResultEntry(
        suite="idempotency", tool=tool, status=Status.PASS, code=None, title=None, details="", durationMs=1
    )


def test_a_short_audit_shows_nothing_and_a_long_one_a_line_that_is_cleared_at_the_end() -> None:
    from hookconf.report.progress_line import ProgressLine

    stream, clock = io.StringIO(), Clock()
    progress = ProgressLine(stream, clock)
    progress(AuditStarted("notes\x1b[31m", ("a", "b"), ("lifecycle-ping",)))
    progress(VerdictReached(entry("a")))
    assert stream.getvalue() == ""  # within two seconds: nothing
    clock.now += 3
    progress(VerdictReached(entry("b")))
    line = stream.getvalue()
    assert line.startswith("\rauditing notes\\x1b[31m (2 tools, 1 checks): 2 verdicts in 3 s; idempotency b")
    assert "\x1b" not in line  # the server's name is shown safely
    clock.now += 0.1
    progress(VerdictReached(entry("c")))
    assert stream.getvalue() == line  # redrawn at most every 0.2 s
    progress(AuditFinished("notes", Summary(passed=3, warned=0, failed=0, indeterminate=0, skipped=0), None, 3100.0))
    assert stream.getvalue().endswith("\r" + " " * 100 + "\r")
