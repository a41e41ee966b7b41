"""One registry of finding codes and one of suites; a name collision is an error at import time."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hookconf.verdicts import Status

if TYPE_CHECKING:
    from hookconf.checks.context import ToolContext


@dataclass(frozen=True)
class Finding:
    code: str
    suite: str
    severity: Status
    title: str
    explanation: str
    remediation: str


@dataclass(frozen=True)
class SuiteResult:
    suite: str
    tool: str
    status: Status
    details: str
    code: str | None = None
    duration_ms: float = 0.0


SuiteRunner = Callable[["ToolContext"], SuiteResult]


@dataclass(frozen=True)
class Suite:
    name: str
    weight: int
    summary: str
    calls_tool: bool
    run: SuiteRunner


FINDINGS: dict[str, Finding] = {}
SUITES: dict[str, Suite] = {}


def register_finding(finding: Finding) -> Finding:
    if finding.code in FINDINGS:
        raise RuntimeError(f"finding code {finding.code} is registered twice")
    FINDINGS[finding.code] = finding
    return finding


def hook_suite(name: str, weight: int, summary: str, calls_tool: bool = True) -> Callable[[SuiteRunner], SuiteRunner]:
    """Register a per-tool suite function under its seed name and weight."""

    def register(run: SuiteRunner) -> SuiteRunner:
        if name in SUITES:
            raise RuntimeError(f"suite {name} is registered twice")
        SUITES[name] = Suite(name, weight, summary, calls_tool, run)
        return run

    return register


def result(suite: str, tool: str, status: Status, details: str, code: str | None = None) -> SuiteResult:
    if code is not None and code not in FINDINGS:
        raise KeyError(f"unregistered finding code {code}")
    return SuiteResult(suite=suite, tool=tool, status=status, details=details, code=code)


# Codes shared by every suite that calls the tool: they say why a suite could not judge.
CALL_FAILED = register_finding(Finding(
    code="CALL-001", suite="*", severity=Status.INDETERMINATE,
    title="Tool calls returned errors; the suite could not judge",
    explanation="Every call made for this suite failed (a JSON-RPC error or a result with isError: "
    "true), so there was no output to compare. Errors usually mean the generated arguments were "
    "not accepted by the tool.",
    remediation="Add a probe with valid arguments for this tool to the config's 'probes' list.",
))
TOOL_HUNG = register_finding(Finding(
    code="CALL-002", suite="*", severity=Status.INDETERMINATE,
    title="Tool hung; it is not called again in this audit",
    explanation="A call to this tool got no answer within timeoutMs. A hook that calls it would "
    "block the agent for as long as the hook's own timeout.",
    remediation="Make the tool answer (or fail) within its budget, or raise timeoutMs if it is "
    "legitimately slow.",
))
SCHEMA_VIOLATION = register_finding(Finding(
    code="WIRE-001", suite="protocol", severity=Status.WARN,
    title="Server message does not match the MCP schema of the negotiated revision",
    explanation="A result the server sent failed validation against the mcp_types models of the "
    "protocol revision it negotiated. Clients that validate strictly may reject it.",
    remediation="Fix the listed fields so the message matches the schema of that revision.",
))
