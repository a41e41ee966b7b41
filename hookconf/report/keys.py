"""Which finding a result is, independent of timings and wording: shared by SARIF, diff and baselines."""

from __future__ import annotations

import hashlib

from hookconf.report.model import Report, ResultEntry

ResultKey = tuple[str, str, str]
SERVER_SCOPE = "(server)"


def result_key(entry: ResultEntry) -> ResultKey:
    """(suite, tool, check id or finding code); a hook suite's clean verdict has no code and gets ''."""
    return entry.suite, entry.tool, entry.id or entry.code or ""


def fingerprint(report: Report, entry: ResultEntry) -> str:
    """Same server, suite, tool and check or code: same fingerprint, whatever the run's timings or details."""
    parts = (report.server.name, *result_key(entry))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def baseline_id(entry: ResultEntry) -> str | None:
    """How a baseline file names this result: a compliance check id, or tool:code for a hook finding."""
    if entry.id is not None:
        return entry.id
    if entry.code is None:
        return None
    return f"{entry.tool}:{entry.code}"


def tool_scoped(entry: ResultEntry) -> bool:
    """The result is about one tool, not about the server as a whole."""
    return entry.tool != SERVER_SCOPE
