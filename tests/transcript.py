"""Checks run from transcripts: a scripted server behind hookconf.wire.transcript, an initialized McpSession on
it, and the contexts the compliance checks and hook suites see; no process anywhere.

`good_server()` is a small conformant server; a test makes it misbehave with `.but({...})`. `judge` runs
compliance checks through the real runner (gate, run, attribution, grade entry), `run_suite` a hook suite.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hookconf import HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION
from hookconf.checks import SUITES
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.checks.context import ToolContext
from hookconf.checks.registry import SuiteResult
from hookconf.config import AuditConfig, parse_config
from hookconf.engine.compliance import ComplianceOptions, ComplianceRun, grade, planned_checks, run_compliance
from hookconf.engine.plan import plan_tool
from hookconf.report.model import ResultEntry
from hookconf.session import McpSession
from hookconf.session_pool import SessionPool
from hookconf.wire.transcript import (
    Answer,
    Incoming,
    Reply,
    RuleKey,
    Script,
    ScriptedServer,
    TranscriptTransport,
    result,
    when,
)
from hookconf.wire.transport import JsonObject

# A transcript has no process: the config names none that could start (a stdio config needs a command).
TRANSCRIPT_SERVER = {"name": "transcript", "transport": "stdio", "command": "/nonexistent/transcript-has-no-process"}
TIMEOUT_MS = 300  # a scripted server answers at once: silence is known after this
SERVER_INFO = {"name": "transcript-server", "version": "1.0.0"}


def tool(
    name: str, description: str = "Reads a value.", read_only: bool = True, properties: JsonObject | None = None
) -> JsonObject:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties or {}},
        "annotations": {"readOnlyHint": read_only},
    }


def text(value: str, is_error: bool = False) -> JsonObject:
    """A CallToolResult with one text block."""
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def initialize(capabilities: JsonObject) -> Answer:
    """The InitializeResult, agreeing to the revision offered when it knows it."""

    def answer(incoming: Incoming) -> Sequence[Reply]:
        offered = incoming.params.get("protocolVersion")
        version = offered if offered in HANDSHAKE_REVISIONS else LATEST_HANDSHAKE_REVISION
        return result({"protocolVersion": version, "capabilities": capabilities, "serverInfo": SERVER_INFO})(incoming)

    return answer


DEFAULT_TOOLS = (tool("read_value"),)


def good_server(tools: Sequence[JsonObject] = DEFAULT_TOOLS) -> Script:
    """A conformant handshake-era server with these tools, each answering "ok"; an unknown tool is -32602."""
    calls: dict[RuleKey, Answer] = {when("tools/call", name=t["name"]): result(text("ok")) for t in tools}
    return Script(
        {
            "initialize": initialize({"tools": {"listChanged": False}}),
            "ping": result({}),
            "tools/list": result({"tools": list(tools)}),
            **calls,
            "tools/call": lambda incoming: [
                Reply(
                    {
                        "jsonrpc": "2.0",
                        "id": incoming.id,
                        "error": {"code": -32602, "message": f"Unknown tool: {incoming.params.get('name')}"},
                    }
                )
            ],
        }
    )


def audit_config(**settings: Any) -> AuditConfig:
    return parse_config({"server": TRANSCRIPT_SERVER, "timeoutMs": TIMEOUT_MS, **settings})


def transcript_session(
    server: ScriptedServer, config: AuditConfig, revision: str = LATEST_HANDSHAKE_REVISION
) -> McpSession:
    """An McpSession over the scripted server, initialized (or, for 2026-07-28, discovered) as an audit does."""
    session = McpSession(transport=TranscriptTransport(server), timeout_s=config.timeout_ms / 1000, process=None)
    session.connect_as(revision)
    return session


class TranscriptPool(SessionPool):
    """A SessionPool whose fresh sessions and restarted servers are new conversations with the same script."""

    def __init__(self, server: ScriptedServer, config: AuditConfig, main: McpSession) -> None:
        super().__init__(config.server, main.timeout_s, main)
        self.script = server

    def open_fresh(self) -> McpSession:
        return McpSession(transport=TranscriptTransport(self.script), timeout_s=self.timeout_s, process=None)

    def open_replacement(self) -> McpSession:
        return self.open_fresh()  # never a process


@contextmanager
def compliance_context(
    server: ScriptedServer, revision: str = LATEST_HANDSHAKE_REVISION, **settings: Any
) -> Iterator[ComplianceContext]:
    """The context the checks see, its sessions closed when the block ends."""
    config = audit_config(**settings)
    session = transcript_session(server, config, revision)
    with TranscriptPool(server, config, session) as pool:
        yield ComplianceContext(config, session, revision, auth_configured=False, pool=pool)


def judge(
    server: ScriptedServer, *check_ids: str, revision: str = LATEST_HANDSHAKE_REVISION, **settings: Any
) -> dict[str, ResultEntry]:
    """The report entries of these compliance checks against the scripted server, run as an audit runs them:
    after the handshake and a tools/list (which also gives the liveness wait its pace)."""
    with compliance_context(server, revision, **settings) as ctx:
        ctx.session.list_tools()
        options = ComplianceOptions(only=check_ids)
        run = ComplianceRun(
            ctx=ctx, planned=planned_checks(options), options=options, compliance=grade([], revision, False)
        )
        run_compliance(run)
    return {entry.id: entry for entry in run.entries if entry.id}


def tool_context(server: ScriptedServer, name: str, **settings: Any) -> ToolContext:
    """What a hook suite sees of one listed tool of the scripted server."""
    config = audit_config(**settings)
    session = transcript_session(server, config)
    listed = next(t for t in session.list_tools() if t.get("name") == name)
    plan = plan_tool(listed, config)
    return ToolContext(listed, plan.arguments, config, session, config.probe_for(name))


def run_suite(server: ScriptedServer, suite: str, name: str, **settings: Any) -> SuiteResult:
    ctx = tool_context(server, name, **settings)
    try:
        return SUITES[suite].run(ctx)
    finally:
        ctx.session.close()
