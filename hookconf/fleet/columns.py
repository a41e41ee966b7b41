"""A report's figures as flat rows: what the store writes into its column tables at insert (and at migration).

Plain dicts in, tuples out, no pandas: the store imports this, and the store must stay light. Reports are read
as plain dicts, so reports with or without the compliance fields (`grade`, `complianceScore`, results with
`id`/`category`) fit the same rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Reports of schema 1.4 on carry the latency suite's figures in each latency result's `latency`; older ones only
# in its details, which is where stored reports written before then still have them.
P95_IN_DETAILS = re.compile(r"p95 (?P<ms>[0-9.]+) ms")
LATENCY_FIELD_SINCE = (1, 4)
# When tools/list failed, no tool was audited: then the report cannot say which tools the server has, and a
# release is not said to have dropped them all. Reports say so in `listingError` (schema 1.3); older ones only
# in the runner's warning, which starts with this text.
LISTING_FAILED = "No tools audited"

FIGURE_COLUMNS = (
    "score",
    "grade",
    "compliance_score",
    "spec_version",
    "protocol",
    "startup_ms",
    "peak_rss_bytes",
    "cpu_seconds",
    "peak_threads",
    "peak_children",
    "worst_p95_ms",
    "tools_called",
    "tools_listed",
    "tools_known",
    "audit_s",
    "startup_s",
    "hook_s",
    "compliance_s",
    "budget_cut",
)
# what a result says about its check (the same for every audit that ran that check and got that code)
CHECK_COLUMNS = ("check_name", "suite", "tool", "check_id", "code", "category", "required", "graded", "title")


@dataclass(frozen=True)
class AuditRows:
    """One report as the store's column tables hold it."""

    figures: tuple[Any, ...]  # in FIGURE_COLUMNS order
    results: list[tuple[tuple[Any, ...], str | None, float | None]]  # (check as CHECK_COLUMNS, status, ms)
    tools: tuple[str, ...]  # the listed tools' names (none when tools_known is false)


def audit_rows(report: Mapping[str, Any]) -> AuditRows:
    tools = listed_tools(report)
    resources = report.get("resources") or {}
    coverage = report.get("coverage") or {}
    figures = {
        "score": report.get("score"),
        "grade": report.get("grade"),
        "compliance_score": report.get("complianceScore"),
        "spec_version": report.get("specVersion"),
        "protocol": (report.get("server") or {}).get("protocolVersion"),
        "startup_ms": resources.get("startupMs"),
        "peak_rss_bytes": resources.get("peakRssBytes"),
        "cpu_seconds": resources.get("cpuSeconds"),
        "peak_threads": resources.get("peakThreads"),
        "peak_children": resources.get("peakChildren"),
        "worst_p95_ms": worst_p95_ms(report),
        "tools_called": coverage.get("toolsCalled"),
        "tools_listed": coverage.get("toolsListed"),
        "tools_known": tools is not None,
        **timing_cells(report),
    }
    results = [_result_row(entry) for entry in report.get("results") or []]
    return AuditRows(tuple(figures[column] for column in FIGURE_COLUMNS), results, tools or ())


def _result_row(entry: Mapping[str, Any]) -> tuple[tuple[Any, ...], str | None, float | None]:
    check = (
        check_name(entry),
        entry.get("suite"),
        entry.get("tool"),
        entry.get("id"),
        entry.get("code"),
        entry.get("category"),
        entry.get("required"),
        entry.get("graded"),
        entry.get("title"),
    )
    return check, entry.get("status"), entry.get("durationMs")


def check_name(entry: Mapping[str, Any]) -> str:
    """A compliance check is named by its id; a hook check by its suite and the tool it judged."""
    if entry.get("id"):
        return f"{entry.get('suite')}/{entry['id']}"
    return f"{entry.get('suite')}/{entry.get('tool')}"


def timing_cells(report: Mapping[str, Any]) -> dict[str, Any]:
    """The audit's wall time by phase in seconds, and how many tools and checks its time budget cut (None for
    an audit without a budget)."""
    timing = report.get("timing") or {}
    budget = report.get("budget")
    seconds = {
        column: timing[key] / 1000 if timing.get(key) is not None else None
        for column, key in (
            ("audit_s", "totalMs"),
            ("startup_s", "startupMs"),
            ("hook_s", "hookMs"),
            ("compliance_s", "complianceMs"),
        )
    }
    cut = len(budget.get("cutTools") or []) + len(budget.get("cutChecks") or []) if budget else None
    return {**seconds, "budget_cut": cut}


def worst_p95_ms(report: Mapping[str, Any]) -> float | None:
    """The slowest tool's p95, read from the latency results: what a hook calling that tool waits for."""
    latency = [entry for entry in report.get("results") or [] if entry.get("suite") == "latency"]
    if schema_version(report) >= LATENCY_FIELD_SINCE:
        found = [float(entry["latency"]["p95Ms"]) for entry in latency if entry.get("latency")]
    else:  # a stored report from before the field: the figure is only in the details' text
        found = [
            float(match["ms"]) for entry in latency if (match := P95_IN_DETAILS.search(entry.get("details") or ""))
        ]
    return max(found) if found else None


def schema_version(report: Mapping[str, Any]) -> tuple[int, ...]:
    """The report's schemaVersion as numbers, (0,) when it has none or none that reads as one."""
    try:
        return tuple(int(part) for part in str(report["schemaVersion"]).split("."))
    except (KeyError, ValueError):
        return (0,)


def listed_tools(report: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The names of the tools the audit was given by tools/list, sorted: every listed tool has an entry in
    the report's `tools`, skipped ones (not callable) included, though only those in the config's
    toolFilter where it sets one. None when the report cannot say (no `tools`, or tools/list failed)."""
    tools = report.get("tools")
    if not isinstance(tools, list) or listing_failed(report):
        return None
    return tuple(sorted({str(t["name"]) for t in tools if isinstance(t, Mapping) and "name" in t}))


def listing_failed(report: Mapping[str, Any]) -> bool:
    """Whether tools/list failed: the report's `listingError`, or for a report written before that field
    existed, the runner's warning."""
    if "listingError" in report:
        return report["listingError"] is not None
    return any(str(warning).startswith(LISTING_FAILED) for warning in report.get("warnings") or [])


def named_count(names: Sequence[str] | None, limit: int | None = None) -> str:
    """'3: a, b, c'; with a limit, the first `limit` names and '+N more'."""
    if not names:
        return ""
    shown = list(names if limit is None else names[:limit])
    more = len(names) - len(shown)
    return f"{len(names)}: {', '.join(shown)}" + (f" +{more} more" if more else "")
