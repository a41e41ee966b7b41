"""The latency suite's figures as a structured field of its results (`latency`, schema 1.4), and the readers of
those figures (the fleet tables' worst p95, bench/speed.py's slowest call) reading the field, not the details:
the details keep their words, and stored reports from before the field are read from their words still."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.fleet.store import StoredAudit
from hookconf.fleet.tables import audits_frame, regressions_table, results_frame, worst_p95_ms
from hookconf.report.model import Report, ResultEntry
from tests.support import stdio_server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from speed import slowest_call

SLOW = "slow_tool"  # sleeps 0.3 s a call
FAST = "undocumented"  # answers at once
FAILING = "echo_error"  # every call is an error: nothing to time
DESTRUCTIVE = "wipe_everything"  # never called
HANGING = "hang_forever"


def audit(tools: list[str], **settings: Any) -> Report:
    """The latency suite over these broken_server tools, as the JSON report gives it back."""
    config = parse_config(
        {"server": stdio_server("broken_server.py"), "timeoutMs": 5000, "toolFilter": tools, **settings}
    )
    report = run_audit(config, RunOptions(suites=("latency",)))
    return Report.model_validate_json(report.to_json())


def latency_of(report: Report, tool: str) -> ResultEntry:
    return next(r for r in report.results if r.tool == tool and r.suite == "latency")


@pytest.fixture(scope="module")
def measured() -> Report:
    return audit([SLOW, FAST, FAILING, DESTRUCTIVE])


def test_a_timed_tool_carries_its_p50_p95_and_samples(measured: Report) -> None:
    entry = latency_of(measured, SLOW)
    assert entry.status == "pass", entry.details
    figures = entry.latency
    assert figures is not None
    assert 300 <= figures.p50_ms <= figures.p95_ms
    assert (figures.samples, figures.warmup_only) == (5, False)


def test_the_details_quote_the_figures_in_the_words_they_had(measured: Report) -> None:
    for tool in (SLOW, FAST):
        entry = latency_of(measured, tool)
        figures = entry.latency
        assert figures is not None, tool
        assert entry.details == f"p50 {figures.p50_ms:.1f} ms, p95 {figures.p95_ms:.1f} ms over 5 samples"


def test_no_figures_where_nothing_was_timed(measured: Report) -> None:
    failing, skipped = latency_of(measured, FAILING), latency_of(measured, DESTRUCTIVE)
    assert (failing.status, failing.code) == ("indeterminate", "CALL-001"), failing.details
    assert skipped.status == "skip", skipped.details
    assert failing.latency is None
    assert skipped.latency is None


def test_only_latency_results_carry_figures(measured: Report) -> None:
    assert [r.tool for r in measured.results if r.latency is not None] == [SLOW, FAST]


def test_the_json_report_names_the_fields_in_camel_case(measured: Report) -> None:
    entry = next(r for r in json.loads(measured.to_json())["results"] if r["tool"] == SLOW)
    assert set(entry["latency"]) == {"p50Ms", "p95Ms", "samples", "warmupOnly"}


def test_a_hung_call_has_no_figures() -> None:
    report = audit([HANGING], timeoutMs=1000)
    entry = latency_of(report, HANGING)
    assert (entry.status, entry.code) == ("fail", "LAT-001"), entry.details
    assert entry.latency is None


def test_a_series_cut_after_its_warm_up_says_the_figures_are_that_call_alone() -> None:
    entry = latency_of(audit([SLOW], thresholds={"seriesTimeMs": 500}), SLOW)
    assert entry.latency is not None
    assert (entry.latency.samples, entry.latency.warmup_only) == (1, True)
    assert entry.latency.p50_ms == entry.latency.p95_ms >= 300
    assert "over the warm-up call alone" in entry.details


def test_a_timed_call_over_the_budget_reports_the_one_sample_taken() -> None:
    entry = latency_of(audit([SLOW], thresholds={"latencyP95Ms": 100}), SLOW)
    assert (entry.status, entry.code) == ("fail", "LAT-001"), entry.details
    assert entry.latency is not None
    assert (entry.latency.samples, entry.latency.warmup_only) == (1, False)
    assert entry.details.startswith(f"p95 {entry.latency.p95_ms:.1f} ms over 1 of 5 samples; budget p95 100 ms")


# --- the readers ---------------------------------------------------------------------------------------------


def latency_result(tool: str, details: str, p95_ms: float | None = None) -> dict[str, Any]:
    figures = {"p50Ms": 1.0, "p95Ms": p95_ms, "samples": 5, "warmupOnly": False} if p95_ms is not None else None
    return {
        "suite": "latency",
        "tool": tool,
        "status": "pass",
        "code": None,
        "title": None,
        "details": details,
        "durationMs": 12.5,
        "latency": figures,
    }


def current_report(*results: dict[str, Any]) -> dict[str, Any]:
    return {"schemaVersion": "1.4", "results": list(results)}


def old_report(*results: dict[str, Any]) -> dict[str, Any]:
    """A report as hookconf wrote it before the latency field (schema 1.3): the figures in the details only."""
    return {"schemaVersion": "1.3", "results": [{k: v for k, v in r.items() if k != "latency"} for r in results]}


def test_the_worst_p95_of_a_real_audit_is_its_slowest_tools(measured: Report) -> None:
    slow = latency_of(measured, SLOW).latency
    assert slow is not None
    assert worst_p95_ms(json.loads(measured.to_json())) == slow.p95_ms


def test_the_worst_p95_is_read_from_the_field_whatever_the_details_say() -> None:
    report = current_report(
        latency_result("a", "answered in good time", 42.0),
        latency_result("b", "p50 1.0 ms, p95 7.0 ms over 5 samples", 7.0),
    )
    assert worst_p95_ms(report) == 42.0


def test_a_current_report_without_figures_has_no_worst_p95() -> None:
    assert worst_p95_ms(current_report(latency_result("a", "a text that reads p95 900.0 ms"))) is None


def test_an_old_report_is_read_from_its_details() -> None:
    report = old_report(
        latency_result("a", "p50 1.0 ms, p95 42.0 ms over 5 samples", 42.0),
        latency_result("b", "p50 1.0 ms, p95 7.0 ms over 5 samples", 7.0),
    )
    assert worst_p95_ms(report) == 42.0
    assert worst_p95_ms({"results": report["results"]}) == 42.0  # a report without schemaVersion


def stored(version: str, report: dict[str, Any]) -> StoredAudit:
    return StoredAudit(
        id=len(version),
        fleet="f",
        server="s",
        version=version,
        source="npm",
        hookconf_version="0.1.0",
        outcome="audited",
        message=None,
        started_at="2026-12-04T00:00:00Z",
        duration_s=1.0,
        report={"score": 80.0, **report},
    )


def test_the_regression_table_compares_an_old_report_with_a_current_one() -> None:
    audits = [
        stored("1.0", old_report(latency_result("a", "p50 1.0 ms, p95 40.0 ms over 5 samples", 40.0))),
        stored("2.0", current_report(latency_result("a", "reworded: slowest call 55.5 ms", 55.5))),
    ]
    frame = audits_frame(audits)
    assert frame["worst_p95_ms"].tolist() == [40.0, 55.5]
    regressions = regressions_table(frame, results_frame(audits))
    assert regressions["p95_delta_ms"].tolist() == [pytest.approx(15.5)]


def test_the_bench_reads_the_slowest_call_from_the_field() -> None:
    report = current_report(latency_result("a", "reworded", 42.0), latency_result("b", "reworded", 7.0))
    assert slowest_call(report) == ("a, p95", 42.0)


def test_the_bench_reads_an_old_report_from_its_details() -> None:
    report = old_report(latency_result("a", "p50 1.0 ms, p95 42.0 ms over 5 samples", 42.0))
    assert slowest_call(report) == ("a, p95", 42.0)
