"""What the history says, as pandas frames: scores, release-over-release regressions, the ecosystem.

The fleet report reads the store's column tables (figures, results, tools) with SQL and lets SQLite count
and group the check results, so a store of 20,000 audits is never parsed report by report
(`store_tables`). A list of stored audits (`build_tables`) goes through the same code by way of a store in
memory. A missing grade shows as "-". Versions are ordered as versions (1.10 after 1.9), never as strings.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hookconf import HOOK_SUITES, STATELESS_REVISIONS
from hookconf.fleet.columns import check_name, listed_tools, listing_failed, named_count, timing_cells, worst_p95_ms
from hookconf.fleet.outcome import Outcome, OutcomeKind
from hookconf.fleet.store import FleetStore, StoredAudit
from hookconf.fleet.versions import version_key

__all__ = ["check_name", "listed_tools", "listing_failed", "named_count", "worst_p95_ms"]

AUDITED = "audited"
NO_GRADE = "-"
GRADE_ORDER = ("A", "B", "C", "D", "F", NO_GRADE)
# Status points as the hook score counts them; a skip is not a status anyone is better or worse at.
STATUS_POINTS = {"pass": 100, "warn": 60, "indeterminate": 50, "fail": 0}
STATUS_ORDER = ("pass", "warn", "indeterminate", "fail", "skip")
# Advice (a compliance verdict no spec rule backs) has no status points and is no problem: it gets a column
# of its own where it occurs.
OCCASIONAL_STATUSES = ("advice",)
MIB = 1024 * 1024
COMPLIANCE_PREFIX = "compliance/"
TOP_FAILING_CHECKS = 15
# The language a registry's packages are written in, where the registry says it.
REGISTRY_LANGUAGES = {"npm": "JavaScript/TypeScript", "pypi": "Python"}

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
    scores: pd.DataFrame
    regressions: pd.DataFrame
    ecosystem: dict[str, pd.DataFrame]
    status_shares: pd.DataFrame
    # every check result of every stored version where the tables were built from a list of audits (empty
    # from a store: the report reads them from the store in chunks instead, into results.parquet)
    results: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=RESULT_COLUMNS))


def build_tables(stored: Sequence[StoredAudit]) -> FleetTables:
    """The tables of these audits, by way of a store in memory (so the same SQL makes them)."""
    with FleetStore(Path(":memory:")) as store:
        store.add_many(_as_outcome(audit) for audit in stored)
        tables = store_tables(store.connection)
    return FleetTables(
        audits=tables.audits,
        scores=tables.scores,
        regressions=tables.regressions,
        ecosystem=tables.ecosystem,
        status_shares=tables.status_shares,
        results=results_frame(stored),
    )


def _as_outcome(audit: StoredAudit) -> Outcome:
    return Outcome(
        fleet=audit.fleet,
        server=audit.server,
        version=audit.version,
        source=audit.source,
        kind=OutcomeKind(audit.outcome),
        started_at=audit.started_at,
        duration_s=audit.duration_s,
        message=audit.message,
        report_json=json.dumps(audit.report) if audit.report is not None else None,
        hookconf_version=audit.hookconf_version,
    )


LATEST_IDS = "SELECT MAX(id) FROM audits GROUP BY server, version"
AUDITS_SQL = f"""
SELECT a.id AS audit_id, a.server, a.version, a.source, a.outcome, a.message, f.score, f.grade, f.compliance_score,
    f.spec_version, f.protocol, f.startup_ms, f.peak_rss_bytes / {float(MIB)} AS peak_rss_mib, f.cpu_seconds,
    f.peak_threads, f.peak_children, f.worst_p95_ms, f.tools_known, a.duration_s, a.hookconf_version,
    a.started_at AS audited_at, f.tools_called, f.tools_listed, f.audit_s, f.startup_s, f.hook_s, f.compliance_s,
    f.budget_cut
FROM audits a LEFT JOIN figures f ON f.audit_id = a.id
WHERE a.id IN ({LATEST_IDS})
"""
SCORED = ", ".join(f"'{status}'" for status in ("pass", "warn", "indeterminate", "fail"))
POINTS_SQL = "CASE status WHEN 'pass' THEN 100.0 WHEN 'warn' THEN 60.0 WHEN 'indeterminate' THEN 50.0 ELSE 0.0 END"
SEVERITY_SQL = "CASE status WHEN 'warn' THEN 40 WHEN 'indeterminate' THEN 50 WHEN 'fail' THEN 100 ELSE 0 END"


def store_tables(db: sqlite3.Connection) -> FleetTables:
    """Every table of the report from the store's columns: the newest row of each (server, version)."""
    audits = stored_audits(db)
    latest = latest_audited(audits)
    _choose(db, "chosen", latest["audit_id"])
    tally = _status_tally(db)
    counts = _suite_status_counts(tally)
    return FleetTables(
        audits=audits,
        scores=scores_table(audits, _suite_points(tally, latest)),
        regressions=_regressions_from_store(db, audits),
        ecosystem={
            "grades": grade_distribution(latest),
            "scores": percentiles(latest, {"score": "hook score", "compliance_score": "compliance score"}),
            "failing checks": _failing_checks(db, len(latest)),
            "suites": _suite_table(counts, tally.groupby("suite")["audit_id"].nunique()),
            "registries": _registries(tally, latest),
            "resources": percentiles(latest, RESOURCE_FIGURES),
        },
        status_shares=_shares(counts),
    )


def _status_tally(db: sqlite3.Connection) -> pd.DataFrame:
    """How many results of each status every chosen audit has per suite: one pass over their results, which
    the suite points, status counts and failing shares are all summed from."""
    return pd.read_sql_query(
        "SELECT audit_id, suite, status, COUNT(*) AS results FROM results JOIN temp.chosen USING (audit_id) "
        "GROUP BY audit_id, suite, status",
        db,
    )


RESOURCE_FIGURES = {
    "startup_ms": "start-up (ms)",
    "peak_rss_mib": "peak RSS (MiB)",
    "cpu_seconds": "CPU (s)",
    "audit_s": "audit time (s)",
}


def stored_audits(db: sqlite3.Connection) -> pd.DataFrame:
    """The newest row of every (server, version) with its figures, in version order."""
    frame = pd.read_sql_query(AUDITS_SQL, db)
    names: dict[int, list[str]] = defaultdict(list)
    for audit_id, name in db.execute(f"SELECT audit_id, name FROM tools WHERE audit_id IN ({LATEST_IDS})"):
        names[int(audit_id)].append(str(name))
    tools = [
        tuple(sorted(names[int(audit_id)])) if known == 1 else None
        for audit_id, known in zip(frame["audit_id"], frame["tools_known"], strict=True)
    ]
    frame["tools"] = pd.Series(tools, index=frame.index, dtype=object)
    frame["grade"] = frame["grade"].fillna(NO_GRADE)
    columns = ["audit_id", *AUDIT_COLUMNS, *COVERAGE_COLUMNS, *TIMING_COLUMNS]
    return in_version_order(frame[columns])


def _choose(db: sqlite3.Connection, table: str, audit_ids: Iterable[Any]) -> None:
    """A temporary table of audit ids for the queries to join on."""
    db.execute(f"DROP TABLE IF EXISTS temp.{table}")
    db.execute(f"CREATE TEMP TABLE {table} (audit_id INTEGER PRIMARY KEY)")
    db.executemany(f"INSERT INTO temp.{table} VALUES (?)", [(int(i),) for i in audit_ids])


def _suite_points(tally: pd.DataFrame, latest: pd.DataFrame) -> pd.DataFrame:
    """Mean status points per server and suite of the chosen audits; skips are left out, as in the hook score."""
    scored = tally[tally["status"].isin(list(STATUS_POINTS))]
    if scored.empty:
        return pd.DataFrame(index=pd.Index([], name="server"))
    points = scored["status"].map(STATUS_POINTS).astype(float) * scored["results"]
    sums = scored.assign(points=points).groupby(["audit_id", "suite"])[["points", "results"]].sum()
    means = (sums["points"] / sums["results"]).rename("points").reset_index()
    means["server"] = means["audit_id"].map(latest.set_index("audit_id")["server"])
    table = means.pivot_table(index="server", columns="suite", values="points", aggfunc="mean")
    return _suites_in_order(table).round(1)


def _suites_in_order(table: pd.DataFrame) -> pd.DataFrame:
    order = [s for s in HOOK_SUITES if s in table.columns] + sorted(set(table.columns) - set(HOOK_SUITES))
    return table.reindex(columns=order)


def _suite_status_counts(tally: pd.DataFrame) -> pd.DataFrame:
    if tally.empty:
        return pd.DataFrame(columns=list(STATUS_ORDER), dtype=int)
    counts = tally.pivot_table(index="suite", columns="status", values="results", aggfunc="sum", fill_value=0)
    statuses = [*STATUS_ORDER, *(s for s in OCCASIONAL_STATUSES if s in counts.columns)]
    return counts.reindex(columns=statuses, fill_value=0).astype(int).rename_axis(index=None, columns=None)


def _shares(counts: pd.DataFrame) -> pd.DataFrame:
    if counts.empty:
        return counts
    shares = counts.div(counts.sum(axis=1), axis=0) * 100
    return _rows_in_suite_order(shares.loc[:, counts.sum() > 0])


def _rows_in_suite_order(frame: pd.DataFrame) -> pd.DataFrame:
    order = [s for s in HOOK_SUITES if s in frame.index] + sorted(set(frame.index) - set(HOOK_SUITES))
    return frame.reindex(order)


def _failing_checks(db: sqlite3.Connection, servers: int) -> pd.DataFrame:
    """Failing checks by code (compliance checks by id), with the share of servers failing each."""
    frame = pd.read_sql_query(
        "SELECT COALESCE(c.check_id, r.code, r.check_name) AS finding, MIN(c.title) AS title, "
        "COUNT(DISTINCT r.audit_id) AS servers FROM results r JOIN temp.chosen USING (audit_id) "
        "JOIN checks c ON c.id = r.check_ref WHERE r.status = 'fail' GROUP BY finding",
        db,
    )
    frame["share"] = 100 * frame["servers"] / max(servers, 1)
    ordered = frame.sort_values(["servers", "finding"], ascending=[False, True], kind="stable")
    return ordered.head(TOP_FAILING_CHECKS).reset_index(drop=True)[["finding", "title", "servers", "share"]]


def _registries(tally: pd.DataFrame, latest: pd.DataFrame) -> pd.DataFrame:
    """Per registry (and so language, where the registry says it): the servers, their median scores, their
    grades and the share of them failing at least one check."""
    failing = set(tally.loc[tally["status"] == "fail", "audit_id"])
    columns = ["registry", "language", "servers", "hook median", "compliance median", *GRADE_ORDER, "failing %"]
    rows = []
    for registry, group in latest.groupby("source", sort=True):
        grades = group["grade"].value_counts()
        rows.append(
            {
                "registry": registry,
                "language": REGISTRY_LANGUAGES.get(str(registry), "-"),
                "servers": len(group),
                "hook median": pd.to_numeric(group["score"], errors="coerce").median(),
                "compliance median": pd.to_numeric(group["compliance_score"], errors="coerce").median(),
                **{grade: int(grades.get(grade, 0)) for grade in GRADE_ORDER},
                "failing %": 100 * int(group["audit_id"].isin(failing).sum()) / len(group),
            }
        )
    return pd.DataFrame(rows, columns=columns)


def _regressions_from_store(db: sqlite3.Connection, audits: pd.DataFrame) -> pd.DataFrame:
    """Consecutive audited versions of each server; the checks whose worst status changed come from SQL."""
    pairs = _version_pairs(audits)
    db.execute("DROP TABLE IF EXISTS temp.pairs")
    db.execute("CREATE TEMP TABLE pairs (old_id INTEGER, new_id INTEGER)")
    db.executemany("INSERT INTO temp.pairs VALUES (?, ?)", [(o["audit_id"], n["audit_id"]) for _, o, n in pairs])
    _choose(db, "paired", {i for _, o, n in pairs for i in (o["audit_id"], n["audit_id"])})
    db.execute("DROP TABLE IF EXISTS temp.worst")
    db.execute(
        "CREATE TEMP TABLE worst (audit_id INTEGER, check_name TEXT, status TEXT, code TEXT, severity INTEGER, "
        "PRIMARY KEY (audit_id, check_name)) WITHOUT ROWID"
    )
    # the worst status of each check per audit; a tie keeps the first result (the key orders them as reported)
    db.execute(
        f"INSERT INTO temp.worst SELECT audit_id, check_name, status, code, MAX({SEVERITY_SQL}) "
        "FROM results WHERE audit_id IN (SELECT audit_id FROM temp.paired) GROUP BY audit_id, check_name"
    )
    changed = db.execute(
        "SELECT p.old_id, p.new_id, o.check_name, o.status, o.code, n.status, n.code FROM temp.pairs p "
        "JOIN temp.worst o ON o.audit_id = p.old_id "
        "JOIN temp.worst n ON n.audit_id = p.new_id AND n.check_name = o.check_name "
        f"WHERE o.status != n.status AND o.status IN ({SCORED}) AND n.status IN ({SCORED}) "
        "ORDER BY p.old_id, p.new_id, o.check_name"
    )
    changes: dict[tuple[int, int], list[tuple[str, str, str | None, str, str | None]]] = defaultdict(list)
    for old_id, new_id, check, old_status, old_code, new_status, new_code in changed:
        changes[(int(old_id), int(new_id))].append((check, old_status, old_code, new_status, new_code))
    rows = []
    for server, old, new in pairs:
        found = changes.get((int(old["audit_id"]), int(new["audit_id"])), [])
        if _changed_era(old, new):  # check ids mean something only within one era's catalog: see `spec`
            found = [change for change in found if not change[0].startswith(COMPLIANCE_PREFIX)]
        worse, better = _worse_and_better(found)
        rows.append(_pair_row(server, old, new, worse, better))
    return pd.DataFrame(rows, columns=REGRESSION_COLUMNS)


def _version_pairs(audits: pd.DataFrame) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Consecutive audited versions of each server (the frame is in version order, servers together)."""
    audited = audits[audits["outcome"] == AUDITED]
    records: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in audited.to_dict("records")]
    return [
        (str(old["server"]), old, new) for old, new in itertools.pairwise(records) if old["server"] == new["server"]
    ]


def _worse_and_better(
    changes: Iterable[tuple[str, str, str | None, str, str | None]],
) -> tuple[list[str], list[str]]:
    worse, better = [], []
    for check, old_status, old_code, new_status, new_code in changes:
        if STATUS_POINTS[new_status] < STATUS_POINTS[old_status]:
            worse.append(_change(check, old_status, new_status, new_code))
        else:
            better.append(_change(check, old_status, new_status, old_code))
    return worse, better


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
        **timing_cells(report),
    }


def _coverage_cells(report: Mapping[str, Any]) -> dict[str, Any]:
    coverage = report.get("coverage") or {}
    return {"tools_called": coverage.get("toolsCalled"), "tools_listed": coverage.get("toolsListed")}


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
        "audit_s": timing_cells(report)["audit_s"],
    }


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


def scores_table(audits: pd.DataFrame, suites: pd.DataFrame) -> pd.DataFrame:
    """A row per server: its latest and previous stored versions with their cells, how many versions the store
    has, and the suites of its latest audited version (`hookconf fleet report --server NAME` shows them all)."""
    cells = audits.assign(cell=[score_cell(row) for row in audits.itertuples()])
    by_server = cells.groupby("server", sort=True)
    newest = by_server.tail(1).set_index("server")
    previous = cells[by_server.cumcount(ascending=False) == 1].set_index("server")
    table = pd.DataFrame(
        {
            "versions": by_server.size(),
            "latest": newest["version"],
            "latest audit": newest["cell"],
            "previous": previous["version"],
            "previous audit": previous["cell"],
        }
    ).rename_axis("server")
    table[["previous", "previous audit"]] = table[["previous", "previous audit"]].fillna("")
    return table.join(suites).reset_index()[[*SCORE_COLUMNS, *suites.columns]]


SCORE_COLUMNS = ["server", "versions", "latest", "latest audit", "previous", "previous audit"]


def history_table(audits: pd.DataFrame, server: str) -> pd.DataFrame:
    """Every stored version of one server, in version order, with its cell: the history the scores leave out."""
    rows = audits[audits["server"] == server]
    return pd.DataFrame({"version": rows["version"], "audit": [score_cell(row) for row in rows.itertuples()]})


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


REGRESSION_COLUMNS = [
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


def regressions_table(audits: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """The regressions from frames of audits and their results (the report gets them from the store)."""
    statuses = _worst_status_per_check(results)
    rows = [_regression_row(server, old, new, statuses) for server, old, new in _version_pairs(audits)]
    return pd.DataFrame(rows, columns=REGRESSION_COLUMNS)


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
    if _changed_era(old, new):  # check ids mean something only within one era's catalog: see `spec`
        before = {check: status for check, status in before.items() if not check.startswith(COMPLIANCE_PREFIX)}
    changes = [
        (check, before[check][0], before[check][1], after[check][0], after[check][1])
        for check in sorted(set(before) & set(after))
        if before[check][0] in STATUS_POINTS
        and after[check][0] in STATUS_POINTS
        and before[check][0] != after[check][0]
    ]
    worse, better = _worse_and_better(changes)
    return _pair_row(server, old, new, worse, better)


def _pair_row(
    server: str, old: Mapping[str, Any], new: Mapping[str, Any], worse: list[str], better: list[str]
) -> dict[str, Any]:
    return {
        "server": server,
        "from": old["version"],
        "to": new["version"],
        "score": f"{_number(old['score'])} → {_number(new['score'])}",
        "score_delta": _delta(old["score"], new["score"]),
        "grade": f"{old['grade']} → {new['grade']}",
        "spec": _revisions(old, new),
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


def suite_statuses(latest_results: pd.DataFrame) -> pd.DataFrame:
    """Per suite: the servers it judged, its results, how many of them ended in each status and that
    status's share of the suite's results (skips included, so the shares add up to 100)."""
    return _suite_table(status_counts(latest_results), latest_results.groupby("suite")["server"].nunique())


def _suite_table(counts: pd.DataFrame, servers: pd.Series) -> pd.DataFrame:
    statuses = list(counts.columns)
    columns = ["suite", "servers", "results", *statuses, *(f"{s} %" for s in statuses)]
    if counts.empty:
        return pd.DataFrame(columns=columns)
    results = counts.sum(axis=1)
    shares = (counts.div(results, axis=0) * 100).rename(columns=lambda status: f"{status} %")
    table = pd.concat([servers.rename("servers"), results.rename("results"), counts, shares], axis=1)
    return _rows_in_suite_order(table).rename_axis("suite").reset_index()[columns]


def status_counts(latest_results: pd.DataFrame) -> pd.DataFrame:
    """Results per suite (rows) and status (columns: every status in STATUS_ORDER, then advice where it occurs)."""
    counts = pd.crosstab(latest_results["suite"], latest_results["status"])
    statuses = [*STATUS_ORDER, *(s for s in OCCASIONAL_STATUSES if s in counts.columns)]
    return counts.reindex(columns=statuses, fill_value=0).rename_axis(index=None, columns=None)
