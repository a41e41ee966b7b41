"""`hookconf mcp`: hookconf as an MCP server on stdio, for an agent that audits the servers it is about to use.

Tools: audit_server (audit a server started from a command line, or reached at a URL), explain_check, list_checks
and diff_reports. Each audit runs as its own `hookconf check` process, as a user would run it: it has its own
sandbox, its time budget, and nothing of it stays in this server. Built on the MCP Python SDK, which the `mcp`
extra installs (`pip install 'hookconf[mcp]'`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sys
import tempfile
from collections.abc import AsyncIterable, AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO

from pydantic import BaseModel, Field

from hookconf import SPEC_VERSIONS, __version__
from hookconf.budget import FLEET_BUDGET_S
from hookconf.errors import ConfigError, HookconfError
from hookconf.protocol import INVALID_REQUEST, PARSE_ERROR

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

SERVER_NAME = "hookconf"
MAX_PROBLEMS = 50
# An audit is stopped this long after its budget has run out: the budget ends the checks, then the servers stop.
AUDIT_GRACE_S = 30.0
CODE_HELP = "a finding code (IDEMP-001) or compliance check id (lifecycle-ping)"
NO_DATA = "Stores nothing and sends nothing over the network; it retains no data after the call."
INSTRUCTIONS = (
    "hookconf audits MCP servers: whether each tool is safe to call from a hook (idempotency, side effects, "
    "latency, determinism, data-flow documentation) and how well the server follows the MCP specification. "
    "Call audit_server before you rely on a server; explain_check says what a finding or check id means."
)


class Problem(BaseModel):
    suite: str = Field(description="the hook suite, or 'compliance'")
    id: str | None = Field(description="the compliance check id or the finding code")
    tool: str = Field(description="the tool, or '(server)' for a server-wide result")
    status: str = Field(description="fail, warn or indeterminate")
    details: str


class AuditSummary(BaseModel):
    server: str
    grade: str | None = Field(description="compliance grade A-F; null when no compliance check could measure")
    compliance_score: float | None = Field(description="0-100")
    hook_score: float | None = Field(description="0-100 over the tools the hook suites called; null: none called")
    summary: dict[str, int] = Field(description="results per status")
    problems: list[Problem] = Field(
        description=f"the failed, warned and indeterminate results (at most {MAX_PROBLEMS})"
    )
    report_path: str | None = Field(description="where the whole JSON report was written, when asked to")


class DiffSummary(BaseModel):
    regressed: bool = Field(description="a check or finding that passed in the base fails in the current report")
    text: str


def build_server() -> MCPServer:
    """The MCP server (an mcp.server.mcpserver.MCPServer); a HookconfError when the SDK is not installed."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp_types import ToolAnnotations
    except ImportError:
        raise ConfigError("'hookconf mcp' needs the MCP SDK: pip install 'hookconf[mcp]'") from None

    reads = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    # It starts the command it is given (in an audit sandbox) or connects to the URL, and calls only the tools that
    # server annotates read-only; it writes a report file only when asked to.
    audits = ToolAnnotations(
        title="Audit an MCP server",
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=False,
        open_world_hint=True,
    )
    server = MCPServer(name=SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    _add_audit_tool(server, audits, ToolError)
    _add_catalog_tools(server, reads, ToolError)
    _add_diff_tool(server, reads, ToolError)
    return server


def _add_audit_tool(server: MCPServer, audits: ToolAnnotations, ToolError: type[Exception]) -> None:  # noqa: N803 - the SDK's class
    @server.tool(
        title="Audit an MCP server",
        description="Audits an MCP server: starts it from `command` and `args` (stdio) or connects to `url` "
        "(streamable HTTP), runs hookconf's hook-readiness suites and compliance checks, and returns the grade, "
        "the scores and every failed, warned or indeterminate result. The server runs in a fresh sandbox (its own "
        "HOME and TMPDIR) and only its read-only tools are called. Sends nothing anywhere but to that server; "
        "stores the full JSON report only at `report_path` when one is given, and retains nothing after the call.",
        annotations=audits,
    )
    async def audit_server(
        *,
        command: str = "",
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str = "",
        url: str = "",
        headers: dict[str, str] | None = None,
        spec_version: str = "auto",
        budget_s: float = FLEET_BUDGET_S,
        report_path: str = "",
    ) -> AuditSummary:
        server_config = _server_config(
            command=command, args=args or [], env=env or {}, cwd=cwd, url=url, headers=headers or {}
        )
        if spec_version not in SPEC_VERSIONS:
            raise ToolError(f"spec_version must be one of {', '.join(SPEC_VERSIONS)}")
        try:
            report = await run_check({"server": server_config, "specVersion": spec_version, "budgetS": budget_s})
        except HookconfError as exc:
            raise ToolError(str(exc)) from None
        try:
            saved = _save_report(report, report_path) if report_path else None
        except OSError as exc:
            raise ToolError(f"report_path {report_path}: cannot write it ({exc.strerror})") from None
        return summarize(report, saved)


def _add_catalog_tools(server: MCPServer, reads: ToolAnnotations, ToolError: type[Exception]) -> None:  # noqa: N803 - the SDK's class
    @server.tool(
        title="Explain a finding or check",
        description="Explains a hookconf finding code (e.g. IDEMP-001) or compliance check id (e.g. "
        "lifecycle-ping): what it checks, why it matters, how to fix it and the spec section. Reads hookconf's "
        "own catalog; " + NO_DATA,
        annotations=reads,
        structured_output=False,
    )
    def explain_check(code: Annotated[str, Field(description=CODE_HELP, examples=["IDEMP-001"])]) -> str:
        from hookconf.explain import explanation

        lines = explanation(code)
        if lines is None:
            raise ToolError(f"unknown finding code or check id {code!r}; list_checks lists them")
        return "\n".join(lines)

    @server.tool(
        title="List the findings and checks",
        description="Lists hookconf's finding codes and compliance check ids with their titles, one per line. "
        "Reads hookconf's own catalog; " + NO_DATA,
        annotations=reads,
        structured_output=False,
    )
    def list_checks() -> str:
        return "\n".join(catalog_lines())


def _add_diff_tool(server: MCPServer, reads: ToolAnnotations, ToolError: type[Exception]) -> None:  # noqa: N803 - the SDK's class
    @server.tool(
        title="Compare two reports",
        description="Compares two JSON reports of one server written by hookconf (audit_server's report_path or "
        "'hookconf check --output json'): newly failing, fixed and newly skipped results and score changes. "
        "Reads the two files; " + NO_DATA,
        annotations=reads,
    )
    def diff_reports(base_path: str, current_path: str) -> DiffSummary:
        from hookconf.report.diff import diff_reports as compare
        from hookconf.report.diff import load_report, render_diff
        from hookconf.report.text import shown_report

        try:
            diff = compare(shown_report(load_report(Path(base_path))), shown_report(load_report(Path(current_path))))
        except HookconfError as exc:
            raise ToolError(str(exc)) from None
        return DiffSummary(regressed=diff.regressed, text=render_diff(diff))


def _server_config(
    *, command: str, args: list[str], env: dict[str, str], cwd: str, url: str, headers: dict[str, str]
) -> dict[str, Any]:
    from mcp.server.mcpserver.exceptions import ToolError

    if bool(command) == bool(url):
        raise ToolError("give either command (a server to start) or url (a server to reach), not both or neither")
    if command:
        config: dict[str, Any] = {"name": Path(command).name or "server", "command": command, "args": args, "env": env}
        return {**config, "cwd": cwd} if cwd else config
    return {"name": "server", "transport": "http", "url": url, "headers": headers}


async def run_check(config: dict[str, Any]) -> dict[str, Any]:
    """The JSON report of `hookconf check` on the config, run as its own process; a HookconfError saying why when
    it wrote none (a config error, a server that did not start)."""
    with tempfile.TemporaryDirectory(prefix="hookconf-mcp-") as folder:
        path = Path(folder) / "hookconf.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "hookconf",
            "check",
            str(path),
            "--output",
            "json",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=folder,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), float(config["budgetS"]) + AUDIT_GRACE_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            raise HookconfError(f"the audit did not end within {config['budgetS']} s and was stopped") from None
    try:
        report: dict[str, Any] = json.loads(out)
    except json.JSONDecodeError:
        message = err.decode("utf-8", "replace").strip() or f"hookconf check exited {process.returncode}"
        raise HookconfError(message.removeprefix("hookconf: ")) from None
    return report


def summarize(report: dict[str, Any], report_path: str | None) -> AuditSummary:
    problems = [
        Problem(
            suite=str(entry.get("suite")),
            id=entry.get("id") or entry.get("code"),
            tool=str(entry.get("tool")),
            status=str(entry.get("status")),
            details=str(entry.get("details") or ""),
        )
        for entry in report.get("results", [])
        if entry.get("status") in ("fail", "warn", "indeterminate")
    ]
    return AuditSummary(
        server=str(report.get("server", {}).get("name")),
        grade=report.get("grade"),
        compliance_score=report.get("complianceScore"),
        hook_score=report.get("score"),
        summary={key: int(value) for key, value in (report.get("summary") or {}).items()},
        problems=problems[:MAX_PROBLEMS],
        report_path=report_path,
    )


def _save_report(report: dict[str, Any], report_path: str) -> str:
    path = Path(report_path).expanduser().resolve()
    path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return str(path)


def catalog_lines() -> list[str]:
    from hookconf.checks import FINDINGS
    from hookconf.checks.compliance import CHECKS

    findings = [f"{f.code}  {f.suite}: {f.title}" for f in sorted(FINDINGS.values(), key=lambda f: f.code)]
    checks = [f"{c.id}  {c.category}: {c.title}" for c in sorted(CHECKS.values(), key=lambda c: c.id)]
    return findings + checks


def serve() -> None:
    """Serve on stdio until the client closes stdin."""
    import anyio

    anyio.run(_serve_stdio, build_server())


async def _serve_stdio(server: Any) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    stdout = LineWriter(sys.stdout.buffer)
    stdin = VettedLines(anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")), stdout)
    async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):  # type: ignore[arg-type]
        # the SDK's MCPServer.run() serves stdio with a reader that drops what it cannot parse: the low-level
        # server it wraps is served here on the vetted stream instead
        lowlevel = server._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


class LineWriter:
    """stdout for the SDK's writer and for the answers VettedLines gives itself: whole lines, written at once from
    the event loop, so that two writers never interleave."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    async def write(self, text: str) -> None:
        self._stream.write(text.encode("utf-8"))

    async def flush(self) -> None:
        self._stream.flush()

    async def answer_error(self, request_id: Any, code: int, message: str) -> None:
        error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        await self.write(json.dumps(error) + "\n")
        await self.flush()


class VettedLines:
    """The lines of stdin the SDK can take. JSON-RPC requires an answer to what it cannot: -32700 to a line that is
    not JSON, -32600 to a request that is not a valid Request object (its id when one can be read, else null). The
    SDK's own reader drops both without an answer."""

    def __init__(self, lines: AsyncIterable[str], stdout: LineWriter) -> None:
        self._lines = lines
        self._stdout = stdout

    async def __aiter__(self) -> AsyncIterator[str]:
        from mcp_types import jsonrpc_message_adapter
        from pydantic import ValidationError

        async for line in self._lines:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                await self._stdout.answer_error(None, PARSE_ERROR, "Parse error: the line is not JSON")
                continue
            try:
                jsonrpc_message_adapter.validate_python(message, by_name=False)
            except ValidationError:
                if _is_request_like(message):
                    await self._stdout.answer_error(_readable_id(message), INVALID_REQUEST, "Invalid Request")
                continue
            yield line


def _is_request_like(message: Any) -> bool:
    """Anything but a response: a response that does not validate gets no answer (answering it could loop)."""
    return not (isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message))


def _readable_id(message: Any) -> Any:
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None
