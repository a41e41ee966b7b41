"""End-to-end hook audits of real fixture servers, over stdio and over streamable HTTP."""

from __future__ import annotations

import contextlib
import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from hookconf import HOOK_SUITES
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.report.model import SCHEMA_VERSION, Report, ResultEntry
from tests.support import FIXTURES, CliRun, http_server, stdio_server

TRANSPORTS = ["stdio", pytest.param("http", marks=pytest.mark.http)]

GOOD_PROBES = [
    {"name": name, "args": args, "stateProbe": {"tool": "list_items", "args": {}}}
    for name, args in [("get_item", {"id": "a"}), ("add_numbers", {"a": 1, "b": 2}), ("list_items", {})]
]
BROKEN_SETTINGS: dict[str, Any] = {
    "tries": 3,
    "timeoutMs": 1500,
    "thresholds": {"latencyP50Ms": 100, "latencyP95Ms": 200},
    "probes": [
        {"name": "counter_peek", "args": {}, "stateProbe": {"tool": "counter_value", "args": {}}},
        {"name": "random_text", "args": {}, "stateProbe": {"tool": "counter_value", "args": {}}},
    ],
}
# (tool, suite) -> (status, code) the broken fixture must produce; one line per seed finding.
BROKEN_EXPECTATIONS = {
    ("random_text", "idempotency"): ("fail", "IDEMP-001"),
    ("timestamped", "idempotency"): ("warn", "IDEMP-002"),
    ("uuid_tagged", "idempotency"): ("warn", "IDEMP-003"),
    ("counter_peek", "side-effects"): ("fail", "SIDE-001"),
    ("random_text", "side-effects"): ("pass", None),
    ("no_probe_tool", "side-effects"): ("indeterminate", "SIDE-002"),
    ("slow_tool", "latency"): ("fail", "LAT-001"),
    ("float_drift", "determinism"): ("fail", "DET-001"),
    ("shape_shift", "determinism"): ("warn", "DET-002"),
    ("wipe_everything", "dsgvo"): ("fail", "DSGVO-001"),
    ("undocumented", "dsgvo"): ("warn", "DSGVO-002"),
    ("hang_forever", "idempotency"): ("indeterminate", "CALL-002"),
    ("hang_forever", "latency"): ("fail", "LAT-001"),
    ("echo_error", "idempotency"): ("indeterminate", "CALL-001"),
    ("wipe_everything", "idempotency"): ("skip", None),
    ("no_probe_tool", "idempotency"): ("pass", None),
}


def server_for(transport: str, script: str) -> dict[str, Any]:
    return stdio_server(script) if transport == "stdio" else http_server(script)


def audit(
    server: dict[str, Any], suites: tuple[str, ...] | None = None, tool: str | None = None, **settings: Any
) -> Report:
    config = parse_config({"server": server, **settings})
    options = RunOptions(suites=suites or HOOK_SUITES, tool=tool)
    return run_audit(config, options)


def outcome(report: Report, tool: str, suite: str) -> ResultEntry:
    return next(r for r in report.results if r.tool == tool and r.suite == suite)


@pytest.fixture(scope="module", params=TRANSPORTS)
def broken_report(request: pytest.FixtureRequest) -> Report:
    return audit(server_for(request.param, "broken_server.py"), **BROKEN_SETTINGS)


@pytest.fixture(scope="module", params=TRANSPORTS)
def good_report(request: pytest.FixtureRequest) -> Report:
    return audit(server_for(request.param, "good_server.py"), probes=GOOD_PROBES)


def test_good_server_passes_everything_it_may_call(good_report: Report) -> None:
    statuses = {(r.tool, r.suite): r.status for r in good_report.results}
    assert {s for (tool, _), s in statuses.items() if tool != "delete_item"} == {"pass"}
    assert good_report.score == 100
    assert good_report.server.server_info["name"] == "good-fixture"
    # an SDK 2.x server is dual-era: auto detection speaks 2026-07-28 with it, and the hook suites run unchanged
    assert good_report.server.protocol_version == "2026-07-28"
    assert good_report.era == "stateless"
    assert good_report.summary.failed == 0
    assert good_report.schema_violations == []


def test_destructive_tool_is_never_called(good_report: Report) -> None:
    delete = next(t for t in good_report.tools if t.name == "delete_item")
    assert delete.calls == 0
    skipped = [r for r in good_report.results if r.tool == "delete_item" and r.suite != "dsgvo"]
    assert {r.status for r in skipped} == {"skip"}
    assert all("allowDestructive" in r.details for r in skipped)
    assert outcome(good_report, "delete_item", "dsgvo").status == "pass"


def test_every_tool_gets_one_call_series(good_report: Report) -> None:
    # idempotency (3), determinism (3) and latency (1 warm-up + 5) share one series of 6 calls;
    # side-effects makes one more between its probe readings. list_items is also the state probe
    # of all three tools: 2 readings before and 1 after each.
    calls = {t.name: t.calls for t in good_report.tools}
    assert calls["get_item"] == 6 + 1
    assert calls["list_items"] == 6 + 1 + 3 * 3


@pytest.mark.parametrize(("tool", "suite"), list(BROKEN_EXPECTATIONS))
def test_broken_server_findings(broken_report: Report, tool: str, suite: str) -> None:
    entry = outcome(broken_report, tool, suite)
    assert (entry.status, entry.code) == BROKEN_EXPECTATIONS[tool, suite], entry.details


def test_broken_server_scores_follow_the_seed_weights(broken_report: Report) -> None:
    scores = {t.name: t.score for t in broken_report.tools}
    # IDEMP FAIL (30 x 0) + SIDE PASS, LAT PASS, DET PASS, DSGVO PASS: 70 of 100.
    assert scores["random_text"] == 70
    # Only dsgvo (a description heuristic) ran for the destructive tool: it was never called, so no score.
    assert scores["wipe_everything"] is None
    # IDEMP WARN 60x30 + SIDE INDET 50x25 + LAT/DET/DSGVO PASS 100x45 = 7550 / 100.
    assert scores["timestamped"] == 75.5


def test_hanging_tool_is_called_once(broken_report: Report) -> None:
    hang = next(t for t in broken_report.tools if t.name == "hang_forever")
    assert hang.calls == 1
    # The tools after it were still audited: the server kept answering.
    assert outcome(broken_report, "echo_error", "dsgvo").status == "pass"


def test_latency_warns_on_p50_only(tmp_path: Path) -> None:
    report = audit(
        stdio_server("broken_server.py"),
        suites=("latency",),
        tool="slow_tool",
        thresholds={"latencyP50Ms": 100, "latencyP95Ms": 5000},
    )
    entry = outcome(report, "slow_tool", "latency")
    assert (entry.status, entry.code) == ("warn", "LAT-002")
    assert [r.suite for r in report.results] == ["latency"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_hanging_server_is_audited_in_about_twice_the_timeout(transport: str) -> None:
    timeout_ms = 1500
    report = audit(server_for(transport, "broken_server.py"), tool="hang_forever", timeoutMs=timeout_ms)
    assert outcome(report, "hang_forever", "latency").code == "LAT-001"
    # One timed-out call, then nothing more for this tool; start-up and shutdown take the rest.
    assert report.duration_ms < 2 * timeout_ms + 2000


def test_allow_destructive_opts_a_tool_in() -> None:
    report = audit(stdio_server("good_server.py"), tool="delete_item", allowDestructive=["delete_item"])
    assert report.tools[0].calls > 0
    assert outcome(report, "delete_item", "idempotency").status != "skip"


def test_tool_filter_limits_the_audit() -> None:
    report = audit(stdio_server("good_server.py"), toolFilter=["add_numbers"], suites=("dsgvo",))
    assert [t.name for t in report.tools] == ["add_numbers"]
    assert [r.suite for r in report.results] == ["dsgvo"]


def test_resources_are_measured_for_started_servers(good_report: Report) -> None:
    resources = good_report.resources
    assert resources is not None
    assert resources.startup_ms is not None
    assert resources.startup_ms > 0
    assert resources.peak_rss_bytes > 10 * 2**20  # a Python interpreter with the SDK loaded
    assert resources.cpu_seconds > 0
    assert resources.peak_threads >= 1


@pytest.mark.http
def test_server_reached_by_url_only(external_good_http: str) -> None:
    report = audit(
        {"name": "deployed", "transport": "http", "url": external_good_http}, suites=("dsgvo", "idempotency")
    )
    assert report.summary.failed == 0
    assert report.resources is None  # hookconf did not start it, so it has no process to measure


def test_cli_exit_codes_and_json_report(run_cli: Callable[..., CliRun], write_config: Callable[..., Path]) -> None:
    good = run_cli(
        "check",
        str(write_config(stdio_server("good_server.py"), probes=GOOD_PROBES)),
        "--output",
        "json",
        "--suite",
        "dsgvo",
        "--suite",
        "idempotency",
    )
    assert good.exit_code == 0
    data = good.json()
    assert data["schemaVersion"] == SCHEMA_VERSION
    assert data["tool"] == {"name": "hookconf", "version": "0.1.0"}
    assert {r["suite"] for r in data["results"]} == {"dsgvo", "idempotency"}
    assert set(data["resources"]) == {"startupMs", "peakRssBytes", "cpuSeconds", "peakThreads", "peakChildren"}
    broken = run_cli(
        "check",
        str(write_config(stdio_server("broken_server.py"))),
        "--tool",
        "random_text",
        "--tries",
        "4",
        "--output",
        "json",
    )
    assert broken.exit_code == 1
    idem = next(r for r in broken.json()["results"] if r["suite"] == "idempotency")
    assert idem["code"] == "IDEMP-001"
    assert "4 identical calls" in idem["details"]


def test_cli_unknown_tool_is_a_usage_error(run_cli: Callable[..., CliRun], write_config: Callable[..., Path]) -> None:
    run = run_cli("check", str(write_config(stdio_server("good_server.py"))), "--tool", "nope")
    assert run.exit_code == 2
    assert "no such tool" in run.stderr


def test_junit_has_a_testcase_per_check_and_per_suite_and_tool(broken_report: Report) -> None:
    from hookconf.report.formats import junit

    root = ET.fromstring(junit.render(broken_report))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert {"idempotency", "side-effects", "latency", "determinism", "dsgvo"} <= set(suites)
    idempotency = suites["idempotency"]
    tools = [c.get("name") for c in idempotency.iter("testcase")]
    assert tools[: len(broken_report.tools)] == [t.name for t in broken_report.tools]
    failure = idempotency.find("testcase[@name='random_text']/failure")
    assert failure is not None
    assert failure.get("type") == "IDEMP-001"
    assert {case.get("classname") for case in idempotency.iter("testcase")} == {"idempotency"}
    assert root.get("tests") == str(len(broken_report.results))
    assert root.get("failures") == str(broken_report.summary.failed)
    assert root.get("skipped") == str(broken_report.summary.skipped + broken_report.summary.indeterminate)
    calling = ("idempotency", "side-effects", "latency", "determinism")
    assert all(suites[name].find("testcase[@name='wipe_everything']/skipped") is not None for name in calling)
    assert all(float(c.get("time", "x")) >= 0 for c in root.iter("testcase"))


def test_crashing_server_exits_1_quoting_its_stderr(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    run = run_cli("check", str(write_config(stdio_server("crash_server.py"))))
    assert run.exit_code == 1
    assert "exited with code 3" in run.stderr
    assert "fatal: cannot open database /nonexistent/db" in run.stderr
    assert "Traceback" not in run.stderr


def test_missing_server_program_exits_1(run_cli: Callable[..., CliRun], write_config: Callable[..., Path]) -> None:
    run = run_cli("check", str(write_config({"name": "ghost", "command": "/nonexistent/mcp-server"})))
    assert run.exit_code == 1
    assert "/nonexistent/mcp-server" in run.stderr
    assert "Traceback" not in run.stderr


def test_whole_process_tree_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = f"sleep 300 & echo $! > {pid_file}; exec {sys.executable} {FIXTURES / 'good_server.py'}"
    report = audit({"name": "tree", "command": "sh", "args": ["-c", script]}, suites=("dsgvo",))
    child = int(pid_file.read_text())
    assert report.resources is not None
    assert report.resources.peak_children >= 1
    with contextlib.suppress(psutil.NoSuchProcess):  # gone entirely: killed and reaped
        assert psutil.Process(child).status() == psutil.STATUS_ZOMBIE


def test_report_json_round_trips(good_report: Report) -> None:
    again = Report.model_validate(json.loads(good_report.to_json()))
    assert again == good_report
