"""What the history says, as pandas frames: scores, release-over-release regressions, the ecosystem.

Reports are read as plain dicts, so reports with or without the compliance fields (`grade`,
`complianceScore`, results with `id`/`category`) fit the same tables; a missing grade shows as "-".
Versions are ordered as versions (1.10 after 1.9), never as strings.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from hookconf import HOOK_SUITES, STATELESS_REVISIONS
from hookconf.fleet.store import StoredAudit
from hookconf.fleet.versions import sorted_versions, version_key

AUDITED = "audited"
NO_GRADE = "-"
GRADE_ORDER = ("A", "B", "C", "D", "F", NO_GRADE)
# Status points as the hook score counts them; a skip is not a status anyone is better or worse at.
STATUS_POINTS = {"pass": 100, "warn": 60, "indeterminate": 50, "fail": 0}
STATUS_ORDER = ("pass", "warn", "indeterminate", "fail", "skip")
# Advice (a compliance verdict no spec rule backs) has no status points and is no problem: it gets a column
# of its own where it occurs.
OCCASIONAL_STATUSES = ("advice",)
# Reports of schema 1.4 on carry the latency suite's figures in each latency result's `latency`; older ones only
# in its details, which is where stored reports written before then still have them.
P95_IN_DETAILS = re.compile(r"p95 (?P<ms>[0-9.]+) ms")
LATENCY_FIELD_SINCE = (1, 4)
MIB = 1024 * 1024
COMPLIANCE_PREFIX = "compliance/"
TOP_FAILING_CHECKS = 15
# When tools/list failed, no tool was audited: then the report cannot say which tools the server has, and a
# release is not said to have dropped them all. Reports say so in `listingError` (schema 1.3); older ones only
# in the runner's warning, which starts with this text.
LISTING_FAILED = "No tools audited"

AUDIT_COLUMNS = [
    "server",
    "version",
    "source",
    "outcome",
    "message",
    "score",
    "grade",
    "compliance_score",
    "spec_version",
    "protocol",
    "startup_ms",
    "peak_rss_mib",
    "cpu_seconds",
    "peak_threads",
    "peak_children",
    "worst_p95_ms",
    "tools",
    "duration_s",
    "hookconf_version",
    "audited_at",
]
# what the hook score rests on, from reports that carry coverage (older ones leave them empty)
COVERAGE_COLUMNS = ["tools_called", "tools_listed"]
# the audit's wall time by phase and how many tools and checks its time budget cut, from reports that carry
# them (older ones leave them empty); budget_cut is empty for an audit without a budget
TIMING_COLUMNS = ["audit_s", "startup_s", "hook_s", "compliance_s", "budget_cut"]
RESULT_COLUMNS = [
    "server",
    "version",
    "check",
    "suite",
    "tool",
    "category",
    "check_id",
    "required",
    "status",
    "code",
    "title",
    "details",
    "duration_ms",
    "score",
    "grade",
    "startup_ms",
    "peak_rss_bytes",
    "cpu_seconds",
    "audit_s",
]


@dataclass(frozen=True)
class FleetTables:
    audits: pd.DataFrame
    results: pd.DataFrame
    scores: pd.DataFrame
    regressions: pd.DataFrame
    ecosystem: dict[str, pd.DataFrame]


def build_tables(stored: Sequence[StoredAudit]) -> FleetTables:
    audits = audits_frame(stored)
    results = results_frame(stored)
    latest = latest_audited(audits)
    latest_results = results.merge(latest[["server", "version"]], on=["server", "version"])
    return FleetTables(
        audits=audits,
        results=results,
        scores=scores_table(audits, latest, latest_results),
        regressions=regressions_table(audits, results),
        ecosystem=ecosystem_tables(latest, latest_results),
    )


def audits_frame(stored: Iterable[StoredAudit]) -> pd.DataFrame:
    columns = AUDIT_COLUMNS + COVERAGE_COLUMNS + TIMING_COLUMNS
    return in_version_order(pd.DataFrame([_audit_row(a) for a in stored], columns=columns))


def _audit_row(audit: StoredAudit) -> dict[str, Any]:
    report = audit.report or {}
    resources = report.get("resources") or {}
    rss = resources.get("peakRssBytes")
    return {
        "server": audit.server,
        "version": audit.version,
        "source": audit.source,
        "outcome": audit.outcome,
        "message": audit.message,
        "score": report.get("score"),
        "grade": report.get("grade") or NO_GRADE,
        "compliance_score": report.get("complianceScore"),
        "spec_version": report.get("specVersion"),
        "protocol": (report.get("server") or {}).get("protocolVersion"),
        "startup_ms": resources.get("startupMs"),
        "peak_rss_mib": rss / MIB if rss is not None else None,
        "cpu_seconds": resources.get("cpuSeconds"),
        "peak_threads": resources.get("peakThreads"),
        "peak_children": resources.get("peakChildren"),
        "worst_p95_ms": worst_p95_ms(report),
        "tools": listed_tools(report) if audit.report else None,
        "duration_s": audit.duration_s,
        "hookconf_version": audit.hookconf_version,
        "audited_at": audit.started_at,
        **_coverage_cells(report),
        **_timing_cells(report),
    }


def _timing_cells(report: Mapping[str, Any]) -> dict[str, Any]:
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


def _coverage_cells(report: Mapping[str, Any]) -> dict[str, Any]:
    coverage = report.get("coverage") or {}
    return {"tools_called": coverage.get("toolsCalled"), "tools_listed": coverage.get("toolsListed")}


def worst_p95_ms(report: Mapping[str, Any]) -> float | None:
    """The slowest tool's p95, read from the latency results: what a hook calling that tool waits for."""
    latency = [entry for entry in report.get("results") or [] if entry.get("suite") == "latency"]
    if _schema_version(report) >= LATENCY_FIELD_SINCE:
        found = [float(entry["latency"]["p95Ms"]) for entry in latency if entry.get("latency")]
    else:  # a stored report from before the field: the figure is only in the details' text
        found = [
            float(match["ms"]) for entry in latency if (match := P95_IN_DETAILS.search(entry.get("details") or ""))
        ]
    return max(found) if found else None


def _schema_version(report: Mapping[str, Any]) -> tuple[int, ...]:
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


def results_frame(stored: Iterable[StoredAudit]) -> pd.DataFrame:
    rows = [
        _result_row(audit, entry) for audit in stored if audit.report for entry in audit.report.get("results") or []
    ]
    return in_version_order(pd.DataFrame(rows, columns=RESULT_COLUMNS))


def _result_row(audit: StoredAudit, entry: Mapping[str, Any]) -> dict[str, Any]:
    report = audit.report or {}
    resources = report.get("resources") or {}
    return {
        "server": audit.server,
        "version": audit.version,
        "check": check_name(entry),
        "suite": entry.get("suite"),
        "tool": entry.get("tool"),
        "category": entry.get("category"),
        "check_id": entry.get("id"),
        "required": entry.get("required"),
        "status": entry.get("status"),
        "code": entry.get("code"),
        "title": entry.get("title"),
        "details": entry.get("details"),
        "score": report.get("score"),
        "grade": report.get("grade") or NO_GRADE,
        "startup_ms": resources.get("startupMs"),
        "peak_rss_bytes": resources.get("peakRssBytes"),
        "cpu_seconds": resources.get("cpuSeconds"),
        "duration_ms": entry.get("durationMs"),
        "audit_s": _timing_cells(report)["audit_s"],
    }


def check_name(entry: Mapping[str, Any]) -> str:
    """A compliance check is named by its id; a hook check by its suite and the tool it judged."""
    if entry.get("id"):
        return f"{entry.get('suite')}/{entry['id']}"
    return f"{entry.get('suite')}/{entry.get('tool')}"


def in_version_order(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows by server, and each server's versions in its registry's order (semver for npm, PEP 440 for PyPI)."""
    keys = [(server, version_key(version, source)) for server, version, source in _versions_of(frame)]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return frame.iloc[order].reset_index(drop=True)


def _versions_of(frame: pd.DataFrame) -> zip[tuple[str, str, str | None]]:
    sources = frame["source"] if "source" in frame.columns else [None] * len(frame)
    return zip(frame["server"], frame["version"], sources, strict=True)


def latest_audited(audits: pd.DataFrame) -> pd.DataFrame:
    """The newest version of each server that was audited (frames are in version order already)."""
    return audits[audits["outcome"] == AUDITED].groupby("server", sort=True).tail(1).reset_index(drop=True)


def scores_table(audits: pd.DataFrame, latest: pd.DataFrame, latest_results: pd.DataFrame) -> pd.DataFrame:
    versions = sorted_versions(set(audits["version"]))
    cells = audits.assign(cell=[score_cell(row) for row in audits.itertuples()])
    wide = cells.pivot(index="server", columns="version", values="cell").reindex(columns=versions).fillna("")
    suites = suite_points(latest_results)
    latest_version = latest.set_index("server")["version"].rename("latest")
    table = wide.join(latest_version).join(suites)
    table["latest"] = table["latest"].fillna("")
    return table.reset_index()


def score_cell(row: Any) -> str:
    """`hook 71.5 (4/9 tools) · A 92.6`: the hook score and the tools it rests on, then the compliance grade;
    `hook n/a (0/9 tools)` when no tool was called; then the audit's wall time, and how many tools and checks
    its time budget cut: `· 12.3 s` or `· 120.4 s, budget cut 41`."""
    if row.outcome != AUDITED:
        return str(row.outcome)
    hook = "n/a" if pd.isna(row.score) else f"{row.score:.1f}"
    if not pd.isna(row.tools_listed):
        hook += f" ({int(row.tools_called)}/{int(row.tools_listed)} tools)"
    cell = f"hook {hook}"
    if not pd.isna(row.compliance_score):
        cell += f" · {row.grade} {row.compliance_score:.1f}"
    return cell + _time_text(row)


def _time_text(row: Any) -> str:
    if pd.isna(row.audit_s):
        return ""
    cut = "" if pd.isna(row.budget_cut) or not row.budget_cut else f", budget cut {int(row.budget_cut)}"
    return f" · {row.audit_s:.1f} s{cut}"


def suite_points(results: pd.DataFrame) -> pd.DataFrame:
    """Mean status points per server and suite; skips are left out, as in the hook score."""
    scored = results[results["status"].isin(list(STATUS_POINTS))]
    points = scored.assign(points=scored["status"].map(STATUS_POINTS).astype(float))
    table = points.pivot_table(index="server", columns="suite", values="points", aggfunc="mean")
    order = [s for s in HOOK_SUITES if s in table.columns] + sorted(set(table.columns) - set(HOOK_SUITES))
    return table.reindex(columns=order).round(1)


def regressions_table(audits: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    audited = audits[audits["outcome"] == AUDITED]
    statuses = _worst_status_per_check(results)
    rows = []
    for server, versions in audited.groupby("server", sort=True):
        records: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in versions.to_dict("records")]
        for old, new in itertools.pairwise(records):
            rows.append(_regression_row(str(server), old, new, statuses))
    columns = [
        "server",
        "from",
        "to",
        "score",
        "score_delta",
        "grade",
        "spec",
        "tools",
        "added",
        "removed",
        "worse",
        "better",
        "p95_delta_ms",
        "peak_rss_delta_mib",
        "audit_s_delta",
    ]
    return pd.DataFrame(rows, columns=columns)


def _worst_status_per_check(results: pd.DataFrame) -> dict[tuple[str, str], dict[str, tuple[str, str | None]]]:
    """(server, version) -> check -> (status, code): repeated entries of one check count at their worst."""
    worst: dict[tuple[str, str], dict[str, tuple[str, str | None]]] = {}
    for row in results.itertuples():
        checks = worst.setdefault((str(row.server), str(row.version)), {})
        status, code = str(row.status), row.code if isinstance(row.code, str) else None
        previous = checks.get(str(row.check))
        if previous is None or _severity(status) > _severity(previous[0]):
            checks[str(row.check)] = (status, code)
    return worst


def _severity(status: str) -> int:
    return 100 - STATUS_POINTS.get(status, 100)


def _regression_row(
    server: str,
    old: dict[str, Any],
    new: dict[str, Any],
    statuses: Mapping[tuple[str, str], Mapping[str, tuple[str, str | None]]],
) -> dict[str, Any]:
    before = statuses.get((server, old["version"]), {})
    after = statuses.get((server, new["version"]), {})
    revisions = _revisions(old, new)
    worse, better = [], []
    if _changed_era(old, new):  # check ids mean something only within one era's catalog: see `spec`
        before = {check: status for check, status in before.items() if not check.startswith(COMPLIANCE_PREFIX)}
    for check in sorted(set(before) & set(after)):
        (old_status, old_code), (new_status, new_code) = before[check], after[check]
        if old_status not in STATUS_POINTS or new_status not in STATUS_POINTS or old_status == new_status:
            continue
        if STATUS_POINTS[new_status] < STATUS_POINTS[old_status]:
            worse.append(_change(check, old_status, new_status, new_code))
        else:
            better.append(_change(check, old_status, new_status, old_code))
    return {
        "server": server,
        "from": old["version"],
        "to": new["version"],
        "score": f"{_number(old['score'])} → {_number(new['score'])}",
        "score_delta": _delta(old["score"], new["score"]),
        "grade": f"{old['grade']} → {new['grade']}",
        "spec": revisions,
        **_tool_changes(old["tools"], new["tools"]),
        "worse": "; ".join(worse),
        "better": "; ".join(better),
        "p95_delta_ms": _delta(old["worst_p95_ms"], new["worst_p95_ms"]),
        "peak_rss_delta_mib": _delta(old["peak_rss_mib"], new["peak_rss_mib"]),
        "audit_s_delta": _delta(old["audit_s"], new["audit_s"]),
    }


def _tool_changes(old: tuple[str, ...] | None, new: tuple[str, ...] | None) -> dict[str, Any]:
    """Tool counts 'OLD → NEW' and the names added and removed (None where a report cannot say)."""
    counts = " → ".join("-" if names is None else str(len(names)) for names in (old, new))
    if old is None or new is None:
        return {"tools": counts, "added": None, "removed": None}
    before, after = set(old), set(new)
    added = tuple(name for name in new if name not in before)
    removed = tuple(name for name in old if name not in after)
    return {"tools": counts, "added": added, "removed": removed}


def _revisions(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The MCP revision both audits were graded against, or 'OLD → NEW' when the server changed era."""
    before, after = (r if isinstance(r, str) else "-" for r in (old["spec_version"], new["spec_version"]))
    return before if before == after else f"{before} → {after}"


def _changed_era(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """One audit graded in the stateless era (2026-07-28), the other in the handshake era (older revisions
    share one catalog, whose checks gate themselves by revision)."""
    stateless = [r in STATELESS_REVISIONS for r in (old["spec_version"], new["spec_version"]) if isinstance(r, str)]
    return len(stateless) == 2 and stateless[0] != stateless[1]


def _change(check: str, old_status: str, new_status: str, code: str | None) -> str:
    named = code is not None and code not in check  # a compliance check's id is its code already
    return f"{check} {old_status}→{new_status}" + (f" ({code})" if named else "")


def _number(value: Any) -> str:
    return "-" if value is None or pd.isna(value) else f"{float(value):.1f}"


def _delta(old: Any, new: Any) -> float | None:
    if old is None or new is None or pd.isna(old) or pd.isna(new):
        return None
    return round(float(new) - float(old), 1)


def ecosystem_tables(latest: pd.DataFrame, latest_results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {
        "grades": grade_distribution(latest),
        "scores": percentiles(latest, {"score": "hook score", "compliance_score": "compliance score"}),
        "failing checks": failing_checks(latest, latest_results),
        "suites": suite_statuses(latest_results),
        "resources": percentiles(
            latest,
            {
                "startup_ms": "start-up (ms)",
                "peak_rss_mib": "peak RSS (MiB)",
                "cpu_seconds": "CPU (s)",
                "audit_s": "audit time (s)",
            },
        ),
    }


def grade_distribution(latest: pd.DataFrame) -> pd.DataFrame:
    counts = latest["grade"].value_counts()
    total = max(len(latest), 1)
    rows = [
        {"grade": g, "servers": int(counts.get(g, 0)), "share": 100 * int(counts.get(g, 0)) / total}
        for g in GRADE_ORDER
        if counts.get(g, 0)
    ]
    return pd.DataFrame(rows, columns=["grade", "servers", "share"])


def percentiles(latest: pd.DataFrame, columns: Mapping[str, str]) -> pd.DataFrame:
    rows = []
    for column, label in columns.items():
        values = pd.to_numeric(latest[column], errors="coerce").dropna()
        if values.empty:
            continue
        quantiles = values.quantile([0.0, 0.25, 0.5, 0.75, 1.0]).tolist()
        rows.append(
            {
                "figure": label,
                "servers": len(values),
                "min": quantiles[0],
                "p25": quantiles[1],
                "median": quantiles[2],
                "p75": quantiles[3],
                "max": quantiles[4],
            }
        )
    return pd.DataFrame(rows, columns=["figure", "servers", "min", "p25", "median", "p75", "max"])


def failing_checks(latest: pd.DataFrame, latest_results: pd.DataFrame) -> pd.DataFrame:
    """Failing checks by code (compliance checks by id), with the share of servers failing each."""
    failed = latest_results[latest_results["status"] == "fail"]
    failed = failed.assign(finding=failed["check_id"].fillna(failed["code"]).fillna(failed["check"]))
    grouped = failed.groupby("finding").agg(title=("title", "first"), servers=("server", "nunique"))
    grouped["share"] = 100 * grouped["servers"] / max(len(latest), 1)
    ordered = grouped.sort_values(["servers", "finding"], ascending=[False, True], kind="stable")
    return ordered.head(TOP_FAILING_CHECKS).reset_index()[["finding", "title", "servers", "share"]]


def suite_statuses(latest_results: pd.DataFrame) -> pd.DataFrame:
    """Per suite: the servers it judged, its results, how many of them ended in each status and that
    status's share of the suite's results (skips included, so the shares add up to 100)."""
    counts = status_counts(latest_results)
    statuses = list(counts.columns)
    columns = ["suite", "servers", "results", *statuses, *(f"{s} %" for s in statuses)]
    if counts.empty:
        return pd.DataFrame(columns=columns)
    results = counts.sum(axis=1)
    shares = (counts.div(results, axis=0) * 100).rename(columns=lambda status: f"{status} %")
    servers = latest_results.groupby("suite")["server"].nunique()
    table = pd.concat([servers.rename("servers"), results.rename("results"), counts, shares], axis=1)
    order = [s for s in HOOK_SUITES if s in table.index] + sorted(set(table.index) - set(HOOK_SUITES))
    return table.reindex(order).rename_axis("suite").reset_index()[columns]


def status_counts(latest_results: pd.DataFrame) -> pd.DataFrame:
    """Results per suite (rows) and status (columns: every status in STATUS_ORDER, then advice where it occurs)."""
    counts = pd.crosstab(latest_results["suite"], latest_results["status"])
    statuses = [*STATUS_ORDER, *(s for s in OCCASIONAL_STATUSES if s in counts.columns)]
    return counts.reindex(columns=statuses, fill_value=0).rename_axis(index=None, columns=None)


def status_shares(latest_results: pd.DataFrame) -> pd.DataFrame:
    """Share of each status per suite (skips included): the data of the status chart."""
    counts = status_counts(latest_results)
    shares = counts.div(counts.sum(axis=1), axis=0) * 100
    return shares.loc[:, counts.sum() > 0]
