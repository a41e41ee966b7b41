"""Hook score as the seed defines it: status points weighted by suite, skips left out."""

from __future__ import annotations

from collections.abc import Iterable

from hookconf.checks.registry import SUITES, SuiteResult
from hookconf.verdicts import Status

STATUS_POINTS = {Status.PASS: 100, Status.WARN: 60, Status.INDETERMINATE: 50, Status.FAIL: 0}


def tool_score(results: Iterable[SuiteResult]) -> float | None:
    """Weighted mean over the suites that ran for one tool; None when every suite was skipped."""
    scored = [
        (SUITES[r.suite].weight, STATUS_POINTS[r.status])
        for r in results
        if r.status in STATUS_POINTS and r.suite in SUITES
    ]
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


# --- compliance grade (mcp-compliance's rules) -------------------------------------------------------
GRADE_FLOORS = (("A", 90.0), ("B", 75.0), ("C", 60.0), ("D", 40.0))
REQUIRED_SHARE = 0.7
# A warning measured a broken SHOULD and did not fail; advice measured nothing wrong, so it counts as no
# problem: an advice verdict leaves the grade exactly where a pass would.
MEASURED = (Status.PASS, Status.WARN, Status.ADVICE, Status.FAIL)


def pool_score(statuses: list[Status]) -> float | None:
    measured = [s for s in statuses if s in MEASURED]
    if not measured:
        return None
    return 100 * sum(s is not Status.FAIL for s in measured) / len(measured)


def compliance_score(required: list[Status], optional: list[Status]) -> float:
    """Required 70 %, optional 30 %, over checks that measured something; one empty pool gives way to the other."""
    required_score, optional_score = pool_score(required), pool_score(optional)
    if required_score is None:
        return round(optional_score or 0.0, 1)
    if optional_score is None:
        return round(required_score, 1)
    return round(REQUIRED_SHARE * required_score + (1 - REQUIRED_SHARE) * optional_score, 1)


def letter_grade(score: float) -> str:
    return next((grade for grade, floor in GRADE_FLOORS if score >= floor), "F")


# --- the mcp-lighthouse profile: its five categories and weights, over our results ------------------
LIGHTHOUSE_CATEGORIES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    (
        "protocol",
        40,
        ("proto-init", "proto-init-version", "proto-jsonrpc-version", "proto-id-match", "proto-error-format"),
    ),
    (
        "schema",
        25,
        (
            "schema-tools-list",
            "schema-tool-name",
            "schema-tool-description",
            "schema-tool-input-schema",
            "schema-required-fields",
            "schema-no-duplicate-tools",
        ),
    ),
    (
        "robustness",
        20,
        ("robust-unknown-method", "robust-invalid-tool", "robust-missing-args", "robust-malformed-json"),
    ),
    ("practices", 10, ("bp-tool-name-format", "bp-description-length", "bp-server-info", "bp-capabilities-declared")),
    ("performance", 5, ("perf-init-time", "perf-tools-list-time")),
)
CRITICAL_LIGHTHOUSE_CATEGORY = "protocol"  # one failure there zeroes the category, as lighthouse does


def lighthouse_check_map() -> dict[str, str]:
    """Each lighthouse check id -> the hookconf check that measures it."""
    from hookconf.checks.compliance import CHECKS

    mapping = {check.id: check.id for check in CHECKS.values()}
    for check in CHECKS.values():
        mapping.update(dict.fromkeys(check.lighthouse, check.id))
    return mapping


def lighthouse_categories(status_by_check: dict[str, Status]) -> list[tuple[str, int, float | None]]:
    mapping = lighthouse_check_map()
    rows = []
    for name, weight, lighthouse_ids in LIGHTHOUSE_CATEGORIES:
        statuses = [status_by_check[mapping[i]] for i in lighthouse_ids if mapping.get(i) in status_by_check]
        score = pool_score(statuses)
        if name == CRITICAL_LIGHTHOUSE_CATEGORY and Status.FAIL in statuses:
            score = 0.0
        rows.append((name, weight, None if score is None else round(score, 1)))
    return rows


def lighthouse_overall(rows: list[tuple[str, int, float | None]]) -> float | None:
    scored = [(weight, score) for _, weight, score in rows if score is not None]
    if not scored:
        return None
    return round(sum(w * s for w, s in scored) / sum(w for w, _ in scored), 1)
