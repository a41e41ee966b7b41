"""One registry of finding codes and one of suites; a name collision is an error at import time, and so is a
suite registered but not declared in HOOK_SUITES, or declared but not registered.

A suite and a compliance check are declared the same way (CheckDeclaration: an id, a title and the function that
judges) and both judge with a Verdict (hookconf.verdicts)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from hookconf import HOOK_SUITES
from hookconf.verdicts import LatencyFigures, Status, Verdict

if TYPE_CHECKING:
    from hookconf.checks.context import ToolContext

ContextT = TypeVar("ContextT")


@dataclass(frozen=True)
class CheckDeclaration(Generic[ContextT]):
    """What both registries record of a check: its id (a suite's name, a compliance check's id), its title (a
    suite's one-line summary) and the function that judges it from what it sees (`ContextT`)."""

    id: str
    title: str
    judge: Callable[[ContextT], Verdict]


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
    """A suite's verdict on one tool, placed: which suite, which tool, and how long the suite took."""

    suite: str
    tool: str
    status: Status
    details: str
    code: str | None = None
    duration_ms: float = 0.0
    latency: LatencyFigures | None = None  # the latency suite's figures, when it measured any

    @classmethod
    def of(cls, suite: str, tool: str, verdict: Verdict) -> SuiteResult:
        return cls(suite, tool, verdict.status, verdict.details, verdict.code, latency=verdict.latency)

    @property
    def verdict(self) -> Verdict:
        return Verdict(self.status, self.details, self.code, self.latency)


SCHEMA_SPEC_URL = "https://modelcontextprotocol.io/specification/2025-11-25/schema#calltoolresult"

SuiteCheck = Callable[["ToolContext"], Verdict]


@dataclass(frozen=True)
class Suite(CheckDeclaration["ToolContext"]):
    weight: int
    calls_tool: bool

    @property
    def name(self) -> str:
        return self.id

    @property
    def summary(self) -> str:
        return self.title

    def run(self, ctx: ToolContext) -> SuiteResult:
        """The suite's verdict on the context's tool, placed (the runner adds how long it took)."""
        return SuiteResult.of(self.id, ctx.name, self.judge(ctx))


FINDINGS: dict[str, Finding] = {}
SUITES: dict[str, Suite] = {}


def register_finding(finding: Finding) -> Finding:
    if finding.code in FINDINGS:
        raise RuntimeError(f"finding code {finding.code} is registered twice")
    FINDINGS[finding.code] = finding
    return finding


def hook_suite(name: str, weight: int, summary: str, calls_tool: bool = True) -> Callable[[SuiteCheck], SuiteCheck]:
    """Register a per-tool suite function under its seed name (declared in HOOK_SUITES) and weight."""
    if name not in HOOK_SUITES:
        raise RuntimeError(
            f"suite {name} is not declared in hookconf.HOOK_SUITES ({', '.join(HOOK_SUITES)}): "
            "declare it there, in its place in the reports' order"
        )

    def register(judge: SuiteCheck) -> SuiteCheck:
        if name in SUITES:
            raise RuntimeError(f"suite {name} is registered twice")
        SUITES[name] = Suite(id=name, title=summary, judge=judge, weight=weight, calls_tool=calls_tool)
        return judge

    return register


def seal_suites(declared: Sequence[str] = HOOK_SUITES) -> None:
    """Once the suite modules are loaded: fail unless each declared suite is registered, and order the registry
    as declared, the order in which the runner runs the suites and the reports list them."""
    missing = [name for name in declared if name not in SUITES]
    if missing:
        raise RuntimeError(
            f"suite {', '.join(missing)} is declared in hookconf.HOOK_SUITES but no module of "
            "hookconf.checks registers it"
        )
    registered = [SUITES.pop(name) for name in declared]
    SUITES.update((suite.name, suite) for suite in registered)


def verdict(status: Status, details: str, code: str | None = None) -> Verdict:
    """A suite's verdict; its finding code, if any, must be registered."""
    if code is not None and code not in FINDINGS:
        raise KeyError(f"unregistered finding code {code}")
    return Verdict(status, details, code)


# Codes shared by every suite that calls the tool: they say why a suite could not judge.
CALL_FAILED = register_finding(
    Finding(
        code="CALL-001",
        suite="*",
        severity=Status.INDETERMINATE,
        title="Tool calls returned errors; the suite could not judge",
        explanation="Every call made for this suite failed (a JSON-RPC error or a result with isError: "
        "true), or some answered with an error text without setting isError (CALL-003), so there was no "
        "output to compare. Errors usually mean the generated arguments were not accepted by the tool.",
        remediation="Add a probe with valid arguments for this tool to the config's 'probes' list.",
    )
)
TOOL_HUNG = register_finding(
    Finding(
        code="CALL-002",
        suite="*",
        severity=Status.INDETERMINATE,
        title="Tool hung; it is not called again in this audit",
        explanation="A call to this tool got no answer within timeoutMs. A hook that calls it would "
        "block the agent for as long as the hook's own timeout.",
        remediation="Make the tool answer (or fail) within its budget, or raise timeoutMs if it is legitimately slow.",
    )
)
ERROR_IN_DISGUISE = register_finding(
    Finding(
        code="CALL-003",
        suite="protocol",
        severity=Status.WARN,
        title="Result reads as an error but isError is false",
        explanation='The tool answered with text that reads as an error ("Error: ...", "Failed to ...", an '
        'exception such as "TypeError: ...", or a backend that could not be reached) and did not set isError. '
        'The MCP schema (2025-11-25, CallToolResult.isError): "Any errors that originate from the tool SHOULD '
        "be reported inside the result object, with `isError` set to true, _not_ as an MCP protocol-level "
        "error response.\" A client, or a hook, then takes the error for the tool's answer. The hook suites "
        "that compare such answers (idempotency, determinism, latency) are indeterminate for this tool. "
        f"Spec: {SCHEMA_SPEC_URL}",
        remediation="Return tool failures as a result with isError: true (the SDKs do this when the tool "
        "raises), so that clients can tell an error from an answer.",
    )
)
BACKEND_UNREACHABLE = register_finding(
    Finding(
        code="CALL-004",
        suite="*",
        severity=Status.INDETERMINATE,
        title="Tool's backend was out of reach; the suite could not judge",
        explanation="The tool's answer names a backend it could not reach (connection refused, a DNS "
        "failure, a host that timed out). hookconf audits offline, so that is the audit's sandbox, not "
        "the server: the verdict is left open, quoting the message.",
        remediation="Audit with the backend reachable (network, credentials in the config's env), or "
        "accept the indeterminate verdict for this tool.",
    )
)
NOT_ANNOTATED = register_finding(
    Finding(
        code="ANNOT-001",
        suite="*",
        severity=Status.ADVICE,
        title="Tool has no readOnlyHint/destructiveHint annotation; not called, hook readiness unknown",
        explanation="Without readOnlyHint: true or destructiveHint: false the spec's default applies "
        "(destructiveHint: true), so hookconf never calls the tool and its hook suites are skipped: its "
        "hook readiness is unknown, which is not an accusation that it destroys anything. Advice, resting "
        "on no SHOULD of the spec: it is never counted against the server, and the tool is left out of "
        "the hook score.",
        remediation="Annotate the tool: readOnlyHint: true for a tool that only reads, or "
        "destructiveHint: false for one that writes without destroying (allowDestructive in the config "
        "opts an unannotated tool in meanwhile).",
    )
)
SCHEMA_VIOLATION = register_finding(
    Finding(
        code="WIRE-001",
        suite="protocol",
        severity=Status.WARN,
        title="Server message does not match the MCP schema of the negotiated revision",
        explanation="A result the server sent failed validation against the mcp_types models of the "
        "protocol revision it negotiated. Clients that validate strictly may reject it.",
        remediation="Fix the listed fields so the message matches the schema of that revision.",
    )
)
