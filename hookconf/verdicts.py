"""What a check decides, for the hook suites and the compliance checks alike: a status, the details that say
why, and for a hook suite the finding code and the latency figures; shared by the catalog and the report model."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    INDETERMINATE = "indeterminate"  # it ran but could not decide, and says why
    SKIP = "skip"  # it did not apply, and says why; never counted as a pass
    # it found something no spec rule (SHOULD or MUST) asks for: reported as advice, never counted as a problem
    ADVICE = "advice"


@dataclass(frozen=True)
class LatencyFigures:
    """What the latency suite measured, in milliseconds as its details show them (to 0.1 ms): nearest-rank
    p50 and p95 over `samples` timed calls, or over the warm-up call alone when the series stopped after it."""

    p50_ms: float
    p95_ms: float
    samples: int
    warmup_only: bool = False


@dataclass(frozen=True)
class Verdict:
    """What one check decided. Which check, on which tool or server, and how long it took, are added by whoever
    ran it: a compliance check's id becomes the report's code; a hook suite names a finding code of its own."""

    status: Status
    details: str
    code: str | None = None  # a hook suite's finding (IDEMP-001 ...), registered in hookconf.checks.registry
    latency: LatencyFigures | None = None  # the latency suite's figures, when it measured any


def passed(details: str) -> Verdict:
    return Verdict(Status.PASS, details)


def failed(details: str) -> Verdict:
    return Verdict(Status.FAIL, details)


def warned(details: str) -> Verdict:
    """A compliance check warns only when its `should` names the spec sentence broken; elsewhere the catalog
    records the warning as advice."""
    return Verdict(Status.WARN, details)


def advised(details: str) -> Verdict:
    """Something no spec rule asks for: reported, never counted as a problem."""
    return Verdict(Status.ADVICE, details)


def skipped(reason: str) -> Verdict:
    return Verdict(Status.SKIP, reason)


def undecided(reason: str) -> Verdict:
    return Verdict(Status.INDETERMINATE, reason)
