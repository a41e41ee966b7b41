"""A server that stops answering after a raw protocol message is found hung within seconds, not after timeoutMs;
one busy with a raw tools/call still gets the whole timeout.

The ping sent after a raw line that runs none of the server's own code (malformed JSON, a request whose method
is a number, a ping with an odd id) waits ten times the slowest protocol answer so far, at least 2 s. The
servers are the compliance fixture (real processes) and, for the wire logic alone, an in-process loopback."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import pytest

from hookconf import COMPLIANCE_SUITE
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.errors import RequestTimeoutError
from hookconf.report.model import Report, ResultEntry
from hookconf.session import open_session
from hookconf.wire.transcript import Incoming, Reply, TranscriptTransport
from hookconf.wire.transport import (
    LIVENESS_FLOOR_S,
    ServerHungError,
    occupies_server,
)
from tests.support import free_port, stdio_server

SCRIPT = "compliance_server.py"
HANG = "hang-on-invalid-json"
HUNG_CHECK = "error-invalid-json"
SLOW_STEPS = 60  # slow_progress sleeps 50 ms a step: 3 s, longer than the liveness floor


def entry(report: Report, check_id: str) -> ResultEntry:
    return next(r for r in report.results if r.id == check_id)


def later_than(report: Report, check_id: str) -> list[ResultEntry]:
    order = [r.id for r in report.results if r.id]
    return [r for r in report.results if r.id in order[order.index(check_id) + 1 :]]


def audit(server: dict[str, Any], timeout_ms: int) -> tuple[Report, float]:
    config = parse_config({"server": server, "suites": [COMPLIANCE_SUITE], "timeoutMs": timeout_ms})
    started = time.monotonic()
    report = run_audit(config, RunOptions(suites=(COMPLIANCE_SUITE,)))
    return report, time.monotonic() - started


def assert_later_checks_ran_on_a_restarted_server(report: Report) -> None:
    later = later_than(report, HUNG_CHECK)
    assert later, "checks ran after the hang"
    wrong = [
        (r.id, r.status, r.details)
        for r in later
        if r.id != "error-parse-code"
        and (r.status == "fail" or r.details.startswith("not run: the server stopped answering"))
    ]
    assert not wrong, wrong


def test_a_server_hung_by_invalid_json_is_found_in_seconds_under_a_30_s_timeout() -> None:
    report, wall_s = audit(stdio_server(SCRIPT, "--defect", HANG), timeout_ms=30_000)
    hung = entry(report, HUNG_CHECK)
    assert hung.status == "fail", hung.details
    assert "the server hung under this check" in hung.details
    assert f"got no answer within {LIVENESS_FLOOR_S:g} s" in hung.details
    assert "while every protocol request before was answered within" in hung.details
    assert hung.duration_ms < 8000, hung.duration_ms
    assert_later_checks_ran_on_a_restarted_server(report)
    assert wall_s < 30, wall_s  # not one timeoutMs was waited out anywhere


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # the replaced one closes once
@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_a_server_that_answers_the_invalid_json_and_then_hangs_is_found_in_seconds(transport: str) -> None:
    # Over HTTP the ping is a POST of its own, sent after the invalid JSON's POST was answered.
    args = ("--defect", "hang-after-parse-error")
    if transport == "http":
        port = free_port()
        server = {
            **stdio_server(SCRIPT, "--http", str(port), *args),
            "transport": "http",
            "url": f"http://127.0.0.1:{port}/mcp",
        }
    else:
        server = stdio_server(SCRIPT, *args)
    report, wall_s = audit(server, timeout_ms=30_000)
    hung = entry(report, HUNG_CHECK)
    assert hung.status == "fail", hung.details
    assert hung.details.startswith("the server stopped answering after a truncated JSON message"), hung.details
    assert f"got no answer within {LIVENESS_FLOOR_S:g} s" in hung.details, hung.details
    assert hung.duration_ms < 8000, hung.duration_ms
    parse_code = entry(report, "error-parse-code")
    assert parse_code.status == "pass", parse_code.details  # its -32700 came before the hang
    assert_later_checks_ran_on_a_restarted_server(report)
    assert wall_s < 30, wall_s


def test_a_raw_tools_call_to_a_slow_tool_gets_the_whole_timeout_and_is_not_called_hung() -> None:
    config = parse_config({"server": stdio_server(SCRIPT), "timeoutMs": 20_000})
    session = open_session(config.server, 20.0)
    try:
        session.initialize()
        session.request("tools/list")
        transport = session.transport
        assert transport.liveness_wait(20.0) == LIVENESS_FLOOR_S  # what a protocol line would have got
        call = {
            "jsonrpc": "2.0",
            "id": "slow-1",
            "method": "tools/call",
            "params": {"name": "slow_progress", "arguments": {"steps": SLOW_STEPS}},
        }
        started = time.monotonic()
        answer = transport.send_then_ping(json.dumps(call), "slow-1", 20.0)
        elapsed = time.monotonic() - started
    finally:
        session.close()
    assert answer is not None
    assert answer["result"]["content"][0]["text"] == "done", answer
    assert elapsed > LIVENESS_FLOOR_S + 0.5, elapsed  # the ping waited behind the call, longer than a liveness wait
    assert transport.liveness_failures == []


# --- the wire logic, against an in-process loopback ----------------------------------------------------
def silent_after_raw_line(pace_s: float = 0.0) -> TranscriptTransport:
    """Answers pings (after `pace_s`) until a message whose method is not a string comes; then nothing."""
    stuck: list[bool] = []

    def answers(incoming: Incoming) -> Sequence[Reply]:
        if incoming.method is None:
            stuck.append(True)
        if stuck or incoming.method != "ping":
            return []
        return [Reply({"jsonrpc": "2.0", "id": incoming.id, "result": {}}, after_s=pace_s)]

    return TranscriptTransport(answers)


INVALID_REQUEST = json.dumps({"jsonrpc": "2.0", "id": "raw-1", "method": 42})


def test_the_first_answer_is_start_up_and_sets_no_pace() -> None:
    transport = silent_after_raw_line()
    assert transport.liveness_wait(30.0) is None
    transport.request("ping", None, 1.0)
    assert transport.liveness_wait(30.0) is None
    transport.request("ping", None, 1.0)
    assert transport.liveness_wait(30.0) == LIVENESS_FLOOR_S


def test_the_liveness_wait_is_ten_round_trips_capped_by_the_timeout() -> None:
    transport = silent_after_raw_line(pace_s=0.3)
    for _ in range(2):
        transport.request("ping", None, 2.0)
    assert transport.liveness_wait(30.0) == pytest.approx(3.0, abs=0.5)
    assert transport.liveness_wait(1.5) == 1.5


def test_without_a_pace_the_ping_after_a_raw_line_waits_the_whole_timeout() -> None:
    transport = silent_after_raw_line()
    started = time.monotonic()
    with pytest.raises(RequestTimeoutError, match=r"no answer to 'ping' within 2\.5 s") as raised:
        transport.send_then_ping(INVALID_REQUEST, "raw-1", timeout_s=2.5)
    assert not isinstance(raised.value, ServerHungError)
    assert time.monotonic() - started >= 2.5


def test_a_silent_server_is_hung_after_the_liveness_wait_and_a_restart_keeps_the_pace() -> None:
    transport = silent_after_raw_line()
    for _ in range(2):
        transport.request("ping", None, 1.0)
    started = time.monotonic()
    with pytest.raises(ServerHungError, match="got no answer within 2 s"):
        transport.send_then_ping(INVALID_REQUEST, "raw-1", timeout_s=30.0)
    assert time.monotonic() - started < LIVENESS_FLOOR_S + 1
    assert transport.timeouts == 1
    assert len(transport.liveness_failures) == 1
    restarted = silent_after_raw_line()
    restarted.carry_pace(transport)
    assert restarted.liveness_wait(30.0) == LIVENESS_FLOOR_S


@pytest.mark.parametrize(
    ("raw", "busy"),
    [
        ('{"jsonrpc": "2.0", "id": "p", "method": "ping"', False),  # truncated JSON
        (INVALID_REQUEST, False),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hookconf/no-such-method"}), False),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), False),
        (json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), False),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}), True),
        (json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "x"}}), True),
        (
            json.dumps(
                [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "resources/read"}]
            ),
            True,
        ),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "prompts/get"}), True),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "completion/complete"}), True),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen"}), True),
        (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tasks/result"}), True),
    ],
)
def test_only_lines_that_run_the_servers_own_code_may_keep_it_busy(raw: str, busy: bool) -> None:
    assert occupies_server(raw) is busy
