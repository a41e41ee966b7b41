"""The wire and session layers against a hand-written server that does what SDK servers do not."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from hookconf.config import ServerConfig
from hookconf.session import McpSession, open_session
from hookconf.wire.http import header_value
from tests.support import stdio_server


@pytest.fixture
def raw_session() -> Iterator[McpSession]:
    session = open_session(ServerConfig.model_validate(stdio_server("raw_server.py")), timeout_s=10)
    try:
        yield session
    finally:
        session.close()


def received_json(session: McpSession) -> list[dict[str, object]]:
    return [m.message for m in session.transport.recording.received() if m.is_json]


def test_non_json_stdout_line_is_recorded_and_tolerated(raw_session: McpSession) -> None:
    identity = raw_session.initialize()
    assert identity.server_info == {"name": "raw-fixture", "version": "1.0"}
    stray = [m.raw for m in raw_session.transport.recording.received() if not m.is_json]
    assert stray == ["debug: starting"]


def test_pagination_with_a_long_line_between_notifications(raw_session: McpSession) -> None:
    raw_session.initialize()
    tools = raw_session.list_tools()
    assert [t["name"] for t in tools] == ["alpha", "beta"]
    assert len(str(tools[1]["description"])) > 100_000
    methods = [m.get("method") for m in received_json(raw_session)]
    assert "notifications/tools/list_changed" in methods
    assert "ping" in methods


def test_server_ping_is_answered_with_its_own_id(raw_session: McpSession) -> None:
    raw_session.initialize()
    raw_session.list_tools()  # by now the server's ping has arrived
    sent = [m.message for m in raw_session.transport.recording.messages() if m.direction == "sent"]
    answers = [m for m in sent if m.get("id") == "srv-1"]
    assert answers == [{"jsonrpc": "2.0", "id": "srv-1", "result": {}}]


def test_a_notification_before_a_result_does_not_desync(raw_session: McpSession) -> None:
    raw_session.initialize()
    beta = raw_session.call_tool("beta", {"q": "abc"})
    alpha = raw_session.call_tool("alpha", {"q": "xyz"})
    assert beta.result is not None
    assert json.loads(beta.result["content"][0]["text"]) == {"q": "abc"}
    assert alpha.result is not None
    assert json.loads(alpha.result["content"][0]["text"]) == {"q": "xyz"}
    assert any(m.get("method") == "notifications/message" for m in received_json(raw_session))


def test_every_message_is_timestamped_in_order(raw_session: McpSession) -> None:
    raw_session.initialize()
    raw_session.list_tools()
    stamps = [m.at for m in raw_session.transport.recording.messages()]
    assert stamps == sorted(stamps)
    assert {m.direction for m in raw_session.transport.recording.messages()} == {"sent", "received"}


def test_server_gets_a_clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKCONF_TEST_SECRET", "do-not-leak")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
    config = {**stdio_server("raw_server.py", "--env-dump"), "env": {"AUDIT_MARKER": "from-config"}}
    session = open_session(ServerConfig.model_validate(config), timeout_s=10)
    try:
        session.initialize()
        outcome = session.call_tool("alpha", {"q": "abc"})
    finally:
        session.close()
    assert outcome.result is not None
    environment = json.loads(outcome.result["content"][0]["text"])
    assert environment["AUDIT_MARKER"] == "from-config"
    assert "PATH" in environment
    assert "HOOKCONF_TEST_SECRET" not in environment
    assert "AWS_SECRET_ACCESS_KEY" not in environment


def test_server_exit_is_noticed_without_waiting_for_the_timeout() -> None:
    session = open_session(ServerConfig.model_validate(stdio_server("raw_server.py")), timeout_s=30)
    try:
        session.initialize()
        assert session.process is not None
        session.process.popen.kill()
        outcome = session.call_tool("alpha", {"q": "abc"})
    finally:
        session.close()
    assert outcome.error is not None
    assert "connection lost" in str(outcome.error["message"])
    assert outcome.duration_ms < 5000
    assert not session.server_alive()


def test_a_malformed_result_becomes_a_finding_not_a_crash() -> None:
    from hookconf.config import parse_config
    from hookconf.engine.audit import RunOptions, run_audit

    config = parse_config(
        {"server": stdio_server("raw_server.py", "--malformed"), "probes": [{"name": "alpha", "args": {"q": "abc"}}]}
    )
    report = run_audit(config, RunOptions(suites=("idempotency",), tool="alpha"))
    wire = [r for r in report.results if r.code == "WIRE-001"]
    assert len(wire) == 1, wire  # three identical violations (tries 3), reported once with a count
    assert "(3 times)" in wire[0].details
    assert wire[0].tool == "alpha"
    assert "tools/call result is not a valid CallToolResult" in wire[0].details
    assert "content" in wire[0].details
    assert len(report.schema_violations) == 3


@pytest.mark.parametrize(
    ("name", "sent"),
    [
        ("echo", "echo"),
        ("fixture://docs/intro", "fixture://docs/intro"),
        ("écho", "=?base64?w6ljaG8=?="),
        (" echo", "=?base64?IGVjaG8=?="),  # edge whitespace would not survive the header
        ("=?base64?ZWNobw==?=", "=?base64?PT9iYXNlNjQ/WldOb2J3PT0/PQ==?="),  # looks encoded: encoded again
    ],
)
def test_mcp_name_is_sent_verbatim_only_when_it_survives_a_header(name: str, sent: str) -> None:
    assert header_value(name) == sent
