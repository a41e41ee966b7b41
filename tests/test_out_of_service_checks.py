"""Compliance checks that need a working call choose tools in service, and call a tool whose backend is out of reach
only where its answer could still change the verdict: stdio-unicode, security-oversized-input, security-ssrf-internal
and the injection probes, end to end on the offline fixture server (see tests/fixtures/offline_server.py)."""

from __future__ import annotations

from typing import cast

import pytest

from hookconf import ALL_SUITES, HOOK_SUITES
from hookconf.checks.compliance.choice import left_out, takes_an_address
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.config import parse_config
from hookconf.report.model import Report
from hookconf.session import McpSession
from hookconf.session_pool import SessionPool
from hookconf.wire.transport import JsonObject
from tests.support import stdio_server
from tests.test_call_planning import DEAD, INJECTION_CHECKS, WORKING, calls, check, offline_audit, outcome

ARXIV_WORDS = "Could not connect to arXiv after 3 attempts. Please check your network connection"
SSRF = "security-ssrf-internal"
UNICODE = "stdio-unicode"
OVERSIZED = "security-oversized-input"
# The checks that call the one tool there is although it is out of service, once each, since its answer can still
# change their verdict: an error answer is enough to show the server survived (security-oversized-input), that an
# extra argument did not crash the tool (security-extra-params), that missing arguments were rejected before the
# backend was asked (tools-call-missing-args), or progress notifications with the wrong token (progress-token).
CHECKS_CALLING_A_DEAD_TOOL = (
    "security-oversized-input",
    "security-extra-params",
    "tools-call-missing-args",
    "lifecycle-progress-token",
)


@pytest.fixture(scope="module")
def worded_report() -> Report:
    return offline_audit(ALL_SUITES, "--worded")


@pytest.fixture(scope="module")
def dead_worded_report() -> Report:
    return offline_audit(ALL_SUITES, "--dead-only", "--worded")


def test_a_tool_whose_error_says_it_could_not_connect_is_out_of_service(worded_report: Report) -> None:
    for suite in ("idempotency", "latency", "determinism"):
        entry = outcome(worded_report, DEAD, suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-004"), entry.details
        assert ARXIV_WORDS in (entry.details or "")
    assert calls(worded_report, DEAD) == 2  # the series alone; the checks' probes called it 20 times before
    for check_id in (*INJECTION_CHECKS, SSRF):
        found = check(worded_report, check_id)
        assert found.status == "pass", found.details
        assert f"in {WORKING} " in (found.details or "")
        assert f"not probed, out of service: {DEAD}: " in (found.details or "")
        assert ARXIV_WORDS in (found.details or "")


def test_unicode_and_oversized_input_pick_the_working_tool(worded_report: Report) -> None:
    unicode = check(worded_report, UNICODE)
    assert (unicode.status, unicode.details) == ("pass", f"{WORKING} echoed the non-ASCII text intact")
    oversized = check(worded_report, OVERSIZED)
    assert oversized.status == "pass", oversized.details
    assert (oversized.details or "").startswith(f"a 128 KiB argument to {WORKING} got a result; still serving")


def test_with_only_a_tool_out_of_service_the_checks_say_why_and_call_it_only_where_it_can_decide(
    dead_worded_report: Report,
) -> None:
    unicode = check(dead_worded_report, UNICODE)
    assert unicode.status == "skip", unicode.details
    assert (unicode.details or "").startswith(
        "the round trip could not be observed: every read-only tool with a "
        "text argument is out of service, and its error does not repeat the "
        f"argument ({DEAD}: "
    )
    assert ARXIV_WORDS in (unicode.details or "")
    for check_id in (*INJECTION_CHECKS, SSRF):
        found = check(dead_worded_report, check_id)
        assert found.status == "indeterminate", found.details
        assert "none was sent, every tool's backend is out of reach: " in (found.details or "")
        assert f"{DEAD}: " in (found.details or "")
        assert ARXIV_WORDS in (found.details or "")
    oversized = check(dead_worded_report, OVERSIZED)
    assert oversized.status == "pass", oversized.details  # an error answer, and the server still serves
    assert (oversized.details or "").startswith(
        f"a 128 KiB argument to {DEAD} got a result; still serving (every "
        f"read-only tool with a text argument is out of service; {DEAD}: "
    )
    series = calls(offline_audit(HOOK_SUITES, "--dead-only", "--worded"), DEAD)
    assert calls(dead_worded_report, DEAD) - series == len(CHECKS_CALLING_A_DEAD_TOOL)


def test_a_dead_tool_whose_error_repeats_its_input_still_carries_the_text_back() -> None:
    report = offline_audit(ALL_SUITES, "--dead-only", "--echoing")
    unicode = check(report, UNICODE)
    assert (unicode.status, unicode.details) == ("pass", f"{DEAD} echoed the non-ASCII text intact")


def test_ssrf_sends_its_address_to_a_dead_tool_only_where_the_address_replaces_the_backend() -> None:
    # fetch_url fails on DNS for its usual URL, so it is out of service; the canary on 127.0.0.1 is the one address
    # the sandbox serves, and given as its url it is fetched: real SSRF, which leaving the tool out would have hidden
    report = offline_audit(ALL_SUITES, "--dead-only", "--fetch")
    found = check(report, SSRF)
    assert found.status == "fail", found.details
    assert (found.details or "").startswith("SSRF executed: fetch_url(url='http://127.0.0.1:")
    series = calls(offline_audit(HOOK_SUITES, "--dead-only", "--fetch"), DEAD)
    assert calls(report, DEAD) - series == len(CHECKS_CALLING_A_DEAD_TOOL)  # none from the SSRF probe: no address


def test_a_tool_failing_on_its_input_is_called_before_one_whose_backend_is_out_of_reach() -> None:
    # both are out of service (the same error twice); read_note fails at once on its input, search_pages waits on a
    # backend it cannot reach (8.6 s a call on arxiv-mcp-server): a check that must call one takes read_note
    report = offline_audit(ALL_SUITES, "--dead-only", "--worded", "--local-error")
    series = calls(offline_audit(HOOK_SUITES, "--dead-only", "--worded"), DEAD)
    assert calls(report, DEAD) == series  # 4 before: tools-call-missing-args and lifecycle-progress-token took it
    assert calls(report, "read_note") > series
    missing = check(report, "tools-call-missing-args")
    assert (missing.status, missing.details) == ("pass", "read_note without name was rejected")


def chart_context(count: int) -> tuple[ComplianceContext, list[JsonObject]]:
    """A context as after the hook suites of @antv/mcp-server-chart offline: `count` tools behind one dead API."""
    dead = "MCP error -32603: Failed to generate chart: getaddrinfo ENOTFOUND antv-studio.alipay.com"
    tools: list[JsonObject] = [{"name": f"generate_chart_{n}"} for n in range(count)]
    config = parse_config({"server": stdio_server("offline_server.py")})
    ctx = ComplianceContext(
        config=config,
        session=cast(McpSession, None),
        revision="2025-11-25",
        auth_configured=False,
        pool=SessionPool(config.server, config.timeout_ms / 1000),
        out_of_service={str(tool["name"]): dead for tool in tools},
    )
    return ctx, tools


def test_a_verdict_names_three_tools_out_of_service_and_counts_the_rest() -> None:
    ctx, tools = chart_context(27)
    note = left_out(ctx, tools)
    assert note.startswith(
        "; not called, out of service: generate_chart_0: MCP error -32603: Failed to generate "
        "chart: getaddrinfo ENOTFOUND antv-studio.alipay.com; generate_chart_1: "
    )
    assert note.endswith(
        "; generate_chart_2: MCP error -32603: Failed to generate chart: getaddrinfo ENOTFOUND "
        "antv-studio.alipay.com; and 24 more"
    )
    assert left_out(*chart_context(0)) == ""


@pytest.mark.parametrize(
    ("tool", "parameter", "address"),
    [
        ({"name": "fetch", "inputSchema": {"properties": {"url": {"type": "string"}}}}, "url", True),
        ({"name": "scrape", "inputSchema": {"properties": {"pageUrl": {"type": "string"}}}}, "pageUrl", True),
        (
            {"name": "ping", "inputSchema": {"properties": {"target": {"type": "string", "format": "hostname"}}}},
            "target",
            True,
        ),
        (
            {
                "name": "open",
                "inputSchema": {"properties": {"target": {"type": "string", "description": "The URL to open"}}},
            },
            "target",
            True,
        ),
        ({"name": "search_papers", "inputSchema": {"properties": {"query": {"type": "string"}}}}, "query", False),
        (
            {"name": "audit", "inputSchema": {"properties": {"security_level": {"type": "string"}}}},
            "security_level",
            False,
        ),
    ],
)
def test_an_argument_names_an_address_by_its_format_name_or_description(
    tool: JsonObject, parameter: str, address: bool
) -> None:
    assert takes_an_address(tool, parameter) is address
