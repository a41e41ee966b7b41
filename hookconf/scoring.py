"""Hook score as the seed defines it: status points weighted by suite, skips left out."""

from __future__ import annotations

from collections.abc import Iterable

from hookconf.checks.registry import SUITES, SuiteResult
from hookconf.verdicts import Status

STATUS_POINTS = {Status.PASS: 100, Status.WARN: 60, Status.INDETERMINATE: 50, Status.FAIL: 0}


def tool_score(results: Iterable[SuiteResult]) -> float | None:
    """Weighted mean over the suites that ran for one tool; None when every suite was skipped."""
    scored = [(SUITES[r.suite].weight, STATUS_POINTS[r.status]) for r in results
              if r.status in STATUS_POINTS and r.suite in SUITES]
    total_weight = sum(weight for weight, _ in scored)
    if total_weight == 0:
        return None
    return round(sum(weight * points for weight, points in scored) / total_weight, 1)


def server_score(tool_scores: Iterable[float | None]) -> float | None:
    """Mean of the tool scores; tools that were skipped entirely are left out."""
    scores = [score for score in tool_scores if score is not None]
    if not scores:
        return None
    return round(sum(scores) / len(scores), 1)
