"""Calls planned by what they can still decide: a tool that fails the same way twice is not called on, a tool
whose timed call is over the p95 budget gets no more timed calls, and the compliance probes leave a tool whose
backend is out of reach alone when another tool works."""

from __future__ import annotations

import pytest

from hookconf import ALL_SUITES, COMPLIANCE_SUITE, HOOK_SUITES
from hookconf.checks.call_errors import failure_signature
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.report.model import Report, ResultEntry
from hookconf.session import CallOutcome
from tests.support import stdio_server

SERIES_SUITES = ("idempotency", "latency", "determinism")
INJECTION_CHECKS = ("security-command-injection", "security-sql-injection", "security-path-traversal")
DEAD = "search_pages"
WORKING = "echo_text"


def offline_audit(suites: tuple[str, ...], *flags: str) -> Report:
    config = parse_config({"server": stdio_server("offline_server.py", *flags), "tries": 3, "timeoutMs": 5000})
    return run_audit(config, RunOptions(suites=suites))


def calls(report: Report, tool: str) -> int:
    return next(t.calls for t in report.tools if t.name == tool)


def outcome(report: Report, tool: str, suite: str) -> ResultEntry:
    return next(r for r in report.results if r.tool == tool and r.suite == suite)


def check(report: Report, check_id: str) -> ResultEntry:
    return next(r for r in report.results if r.id == check_id)


@pytest.fixture(scope="module")
def hook_report() -> Report:
    return offline_audit(HOOK_SUITES, "--dead-only")


@pytest.fixture(scope="module")
def full_report() -> Report:
    return offline_audit(ALL_SUITES)


def test_a_series_that_fails_the_same_way_twice_stops_after_two_calls(hook_report: Report) -> None:
    assert calls(hook_report, DEAD) == 2


@pytest.mark.parametrize("suite", SERIES_SUITES)
def test_the_stopped_series_is_indeterminate_and_says_why(hook_report: Report, suite: str) -> None:
    entry = outcome(hook_report, DEAD, suite)
    assert (entry.status, entry.code) == ("indeterminate", "CALL-004"), entry.details
    assert "getaddrinfo ENOTFOUND" in (entry.details or "")
    assert entry.details
    assert entry.details.endswith(
        "the series stopped after 2 calls: both failed with the same error, and more "
        "calls of it cannot show the tool's behaviour"
    )


def test_a_backend_that_is_slow_to_fail_costs_one_call() -> None:
    report = offline_audit(HOOK_SUITES, "--dead-only", "--stalling")
    assert calls(report, DEAD) == 1
    for suite in SERIES_SUITES:
        entry = outcome(report, DEAD, suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-004"), entry.details
        assert "the series stopped after 1 call: it failed after 1." in (entry.details or "")
        assert "on a backend out of reach" in (entry.details or "")


def test_a_tool_failing_on_a_backend_that_stopped_another_tool_costs_one_call() -> None:
    report = offline_audit(HOOK_SUITES, "--dead-only", "--twin", "--fetch")
    assert (calls(report, DEAD), calls(report, "search_archive")) == (2, 1)
    for suite in SERIES_SUITES:
        entry = outcome(report, "search_archive", suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-004"), entry.details
        assert (entry.details or "").endswith(
            "the series stopped after 1 call: it failed on a backend out of reach with the error that stopped "
            "search_pages's calls, and more calls of it cannot show the tool's behaviour"
        )
    # another host's failure is another backend: that tool gets its own two calls
    assert calls(report, "fetch_url") == 2


def test_a_tool_that_works_gets_its_full_series(full_report: Report) -> None:
    assert outcome(full_report, WORKING, "idempotency").status == "pass"
    assert (outcome(full_report, WORKING, "latency").details or "").endswith("over 5 samples")
    assert calls(full_report, WORKING) >= 6


def test_compliance_probes_leave_the_tool_out_of_service_alone(full_report: Report) -> None:
    # the 2 of the series; before, it got 23 calls (19 of them from the checks), and then 3 (the SSRF probe's first
    # payload, which cannot reach the canary through a search query)
    assert calls(full_report, DEAD) == 2
    for check_id in (*INJECTION_CHECKS, "security-ssrf-internal"):
        found = check(full_report, check_id)
        assert found.status == "pass", found.details or ""
        assert f"in {WORKING} " in (found.details or "")
        assert f"not probed, out of service: {DEAD}: " in (found.details or "")
        assert "getaddrinfo ENOTFOUND" in (found.details or "")


def test_a_check_picks_the_tool_that_works(full_report: Report) -> None:
    found = check(full_report, "tools-call")
    assert found.status == "pass", found.details or ""
    assert (found.details or "").startswith(WORKING)


def test_without_a_working_tool_the_probes_are_not_evaluable() -> None:
    report = offline_audit(ALL_SUITES, "--dead-only")
    for check_id in INJECTION_CHECKS:
        found = check(report, check_id)
        assert found.status == "indeterminate", found.details or ""
        assert (found.details or "").startswith("not evaluable: the call fails without the ")
        assert "none was sent, every tool's backend is out of reach: " in (found.details or "")
        assert f"{DEAD}: " in (found.details or "")
        assert "ENOTFOUND" in (found.details or "")
    # 2 in the series, and one call for each check that can judge an answer that is an error (23 before)
    assert calls(report, DEAD) <= 8, calls(report, DEAD)


def test_the_checks_alone_find_the_tool_out_of_service() -> None:
    # no hook suite ran: the checks' own calls show the dead backend, and the probes stop after two of them
    report = offline_audit((COMPLIANCE_SUITE,))
    assert calls(report, DEAD) <= 3, calls(report, DEAD)  # 18 before
    for check_id in INJECTION_CHECKS:
        assert check(report, check_id).status == "pass"


def test_a_timed_call_over_the_p95_budget_ends_the_latency_series() -> None:
    config = parse_config(
        {
            "server": stdio_server("broken_server.py"),
            "tries": 3,
            "timeoutMs": 5000,
            "toolFilter": ["slow_tool"],
            "thresholds": {"latencyP95Ms": 100},
        }
    )
    report = run_audit(config, RunOptions(suites=("latency",)))
    entry = outcome(report, "slow_tool", "latency")
    assert (entry.status, entry.code) == ("fail", "LAT-001"), entry.details
    assert (entry.details or "").startswith("p95 ")
    assert (entry.details or "").endswith(
        " ms over 1 of 5 samples; budget p95 100 ms (the p95 of 5 samples is their maximum, so the rest were not taken)"
    )
    assert calls(report, "slow_tool") == 2  # the warm-up and one timed call


def test_the_comparing_suites_still_get_their_tries_from_a_slow_tool() -> None:
    config = parse_config(
        {
            "server": stdio_server("broken_server.py"),
            "tries": 3,
            "timeoutMs": 5000,
            "toolFilter": ["slow_tool"],
            "thresholds": {"latencyP95Ms": 100},
        }
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    assert outcome(report, "slow_tool", "latency").code == "LAT-001"
    assert outcome(report, "slow_tool", "idempotency").status == "pass"
    assert outcome(report, "slow_tool", "determinism").status == "pass"
    assert calls(report, "slow_tool") == 3


def failed_with(text: str) -> CallOutcome:
    return CallOutcome(duration_ms=1.0, result={"isError": True, "content": [{"type": "text", "text": text}]})


def test_one_error_reported_twice_has_one_signature() -> None:
    first = failure_signature(failed_with("request 1 failed after 212 ms: id 3f2a9c0e1b7d4e5f6a7b"))
    second = failure_signature(failed_with("request 2 failed after 5003 ms: id 99aa00bb11cc22dd33ee"))
    assert first is not None
    assert first == second


def test_different_errors_and_answers_have_different_signatures() -> None:
    assert failure_signature(failed_with("table missing")) != failure_signature(failed_with("column missing"))
    assert failure_signature(CallOutcome(duration_ms=1.0, result={"content": [{"type": "text", "text": "ok"}]})) is None


def test_a_tool_failing_the_same_way_without_a_backend_stops_too_and_says_so() -> None:
    config = parse_config(
        {"server": stdio_server("broken_server.py"), "tries": 3, "timeoutMs": 5000, "toolFilter": ["echo_error"]}
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    assert calls(report, "echo_error") == 2
    for suite in SERIES_SUITES:
        entry = outcome(report, "echo_error", suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-001"), entry.details
        assert "the series stopped after 2 calls" in (entry.details or "")


def test_a_tool_whose_answers_differ_gets_its_full_series() -> None:
    # a tool that answers gets every call the suites ask for: only failures stop a series early
    config = parse_config(
        {"server": stdio_server("broken_server.py"), "tries": 3, "timeoutMs": 5000, "toolFilter": ["random_text"]}
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    assert outcome(report, "random_text", "idempotency").code == "IDEMP-001"
    assert calls(report, "random_text") == 6


@pytest.mark.parametrize("suites", [ALL_SUITES, (COMPLIANCE_SUITE,)], ids=["with-hook-suites", "compliance-only"])
def test_a_tool_whose_usual_call_works_gets_every_payload_though_they_fail_at_a_backend(
    suites: tuple[str, ...],
) -> None:
    report = offline_audit(suites, "--lookup")
    for check_id in INJECTION_CHECKS:
        found = check(report, check_id)
        assert found.status == "pass", found.details
        assert "lookup_term" in (found.details or "").split(" (")[0]  # evaluated, not left out
        assert "lookup_term: " not in (found.details or "")  # not named among the tools out of service
