"""A tool that hangs is known to the whole audit: called once, reported once, and no other check fails for it.

The fixture is compliance_server.py --toolset hanging: `echo`, and the read-only `stall` that never answers. On
stdio its one request loop blocks, so while `stall` hangs the server answers nothing, not even ping; over HTTP
only that request waits.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from hookconf import ALL_SUITES, COMPLIANCE_SUITE, HOOK_SUITES
from hookconf.checks.compliance.catalog import failed
from hookconf.checks.compliance.context import ComplianceContext, HungToolError
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.engine.compliance import hang_outcome
from hookconf.report.model import Report
from hookconf.session import open_session
from hookconf.session_pool import SessionPool
from tests.support import http_server, stdio_server

TIMEOUT_MS = 1500
# A bound against hangs, not a benchmark: without the fix each check that calls the hung tool waits out
# the timeout (and, on stdio, a restart), about twice this at TIMEOUT_MS.
WALL_BOUND_S = 20.0
HUNG = "stall"


def server(transport: str, toolset: str = "hanging") -> dict[str, Any]:
    script, flags = "compliance_server.py", ("--toolset", toolset)
    if transport == "stdio":
        return stdio_server(script, *flags)
    config = http_server(script)
    return {**config, "args": [*config["args"], *flags]}


def timed_audit(server_config: dict[str, Any], suites: tuple[str, ...]) -> tuple[Report, float]:
    config = parse_config({"server": server_config, "timeoutMs": TIMEOUT_MS})
    started = time.monotonic()
    report = run_audit(config, RunOptions(suites=suites))
    return report, time.monotonic() - started


def failures(report: Report) -> set[tuple[str, str, str | None]]:
    return {(r.suite, r.tool, r.code) for r in report.results if r.status == "fail"}


def calls(report: Report, tool: str) -> int:
    return next(t.calls for t in report.tools if t.name == tool)


def hang_reports(report: Report) -> list[str]:
    """The entries that report the hang itself (the hook suites' CALL-002 aside)."""
    return [f"{r.id or r.suite}: {r.details}" for r in report.results if f"{HUNG} hung under this check" in r.details]


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_a_tool_that_hung_in_the_hook_suites_is_not_called_by_the_checks(transport: str) -> None:
    report, wall_s = timed_audit(server(transport), ALL_SUITES)
    # The hang's own finding is the only failure: LAT-001 on the tool (with CALL-002 in the other suites).
    assert failures(report) == {("latency", HUNG, "LAT-001")}, [r.details for r in report.results if r.status == "fail"]
    assert any(r.tool == HUNG and r.code == "CALL-002" for r in report.results)
    assert calls(report, HUNG) == 1
    assert hang_reports(report) == []  # the checks did not meet it again
    checks = {r.id: r.status for r in report.results if r.id}
    # The checks that call a tool called the other one; those the stuck stdio server failed before pass.
    assert checks["tools-call"] == "pass"
    assert checks["error-unknown-method"] == "pass"
    assert checks["security-command-injection"] == "pass"
    assert calls(report, "echo") > 0
    assert wall_s < WALL_BOUND_S


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_a_tool_that_hangs_under_a_check_is_reported_there_once(transport: str) -> None:
    report, wall_s = timed_audit(server(transport), (COMPLIANCE_SUITE,))
    assert failures(report) == set(), [r.details for r in report.results if r.status == "fail"]
    reported = hang_reports(report)
    assert len(reported) == 1, reported
    assert "not evaluable" in reported[0]
    if transport == "stdio":
        assert "answered no ping meanwhile" in reported[0]
    assert calls(report, HUNG) == 1
    checks = {r.id: r.status for r in report.results if r.id}
    assert checks["tools-call"] == "pass"
    assert checks["error-unknown-method"] == "pass"
    assert wall_s < WALL_BOUND_S


def test_a_check_left_without_a_tool_says_which_one_hung() -> None:
    report, wall_s = timed_audit(server("stdio", "stall-only"), (COMPLIANCE_SUITE,))
    assert failures(report) == set(), [r.details for r in report.results if r.status == "fail"]
    first = hang_reports(report)
    assert len(first) == 1, first
    where = first[0].split(":")[0]
    skips = {r.id: r.details for r in report.results if r.id and r.status == "skip"}
    for check_id in ("tools-call", "tools-call-missing-args", "security-extra-params", "stdio-unicode"):
        if check_id != where:
            assert f"{HUNG} hung in {where} and is not called again" in skips[check_id], check_id
    assert calls(report, HUNG) == 1
    assert wall_s < WALL_BOUND_S


def test_a_hang_under_an_unusual_input_stays_the_checks_failure_when_the_usual_call_was_answered() -> None:
    """Blame an input only when the same call without it succeeds: then the check keeps its FAIL (and says the
    tool hung); a tool never answered at all makes the check not evaluable instead."""
    config = parse_config({"server": server("stdio"), "suites": [COMPLIANCE_SUITE], "timeoutMs": TIMEOUT_MS})
    session = open_session(config.server, TIMEOUT_MS / 1000)
    try:
        session.initialize()
        assert session.identity is not None
        ctx = ComplianceContext(
            config,
            session,
            session.identity.protocol_version,
            auth_configured=False,
            pool=SessionPool(config.server, TIMEOUT_MS / 1000),
        )
        echo = next(t for t in ctx.tools if t["name"] == "echo")
        assert ctx.baseline(echo) is not None
        outcome = hang_outcome(failed("the server stopped serving"), ctx, ["echo"], stuck=False)
        assert outcome.status == "fail"
        assert outcome.details.startswith("the server stopped serving; echo hung under this check")
        unanswered = hang_outcome(failed("the server stopped serving"), ctx, [HUNG], stuck=False)
        assert unanswered.status == "indeterminate"
        assert unanswered.details.startswith("not evaluable: stall hung under this check")
    finally:
        session.close()


def test_a_listed_tool_that_gets_no_answer_is_hung_and_an_unlisted_one_is_not() -> None:
    """A hung tool is not called again; error-unknown-tool's probe timing out is that check's verdict, not a hang
    of a tool the server has."""
    config = parse_config({"server": server("stdio"), "suites": [COMPLIANCE_SUITE], "timeoutMs": TIMEOUT_MS})
    session = open_session(config.server, TIMEOUT_MS / 1000)
    try:
        session.initialize()
        assert session.identity is not None
        ctx = ComplianceContext(
            config,
            session,
            session.identity.protocol_version,
            auth_configured=False,
            pool=SessionPool(config.server, TIMEOUT_MS / 1000),
        )
        ctx.running = "some-check"
        assert [t["name"] for t in ctx.read_only_tools()] == ["echo", HUNG]
        assert ctx.call_tool(HUNG, {"text": "x"}) is None
        assert ctx.call_tool("hookconf_no_such_tool", {}) is None  # the stuck server answers nothing now
        assert ctx.hung_tools == {HUNG: "some-check"}
        assert [t["name"] for t in ctx.read_only_tools()] == ["echo"]
        with pytest.raises(HungToolError, match="stall hung in some-check and is not called again"):
            ctx.call_tool(HUNG, {"text": "y"})
        assert session.calls_by_tool[HUNG] == 1
    finally:
        session.close()


def test_a_tool_that_hung_as_a_state_probe_is_not_called_again_by_any_suite() -> None:
    """broken_server.py answers other requests while hang_forever hangs; no_probe_tool is audited first and
    reads hang_forever as its state probe."""
    config = parse_config(
        {
            "server": stdio_server("broken_server.py"),
            "timeoutMs": TIMEOUT_MS,
            "toolFilter": ["no_probe_tool", "hang_forever"],
            "probes": [{"name": "no_probe_tool", "args": {}, "stateProbe": {"tool": "hang_forever", "args": {}}}],
        }
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    assert [t.name for t in report.tools] == ["no_probe_tool", "hang_forever"]
    assert calls(report, "hang_forever") == 1
    probe = next(r for r in report.results if r.tool == "no_probe_tool" and r.suite == "side-effects")
    assert probe.status == "indeterminate"
    # The hang is reported on the tool itself, as when its own suites meet it.
    hang = {r.suite: (r.status, r.code) for r in report.results if r.tool == "hang_forever"}
    assert hang["latency"] == ("fail", "LAT-001")
    assert hang["idempotency"] == ("indeterminate", "CALL-002")
    assert failures(report) == {("latency", "hang_forever", "LAT-001")}
