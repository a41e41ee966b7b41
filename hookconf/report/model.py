"""The report: one object that crosses process boundaries as JSON and back."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from hookconf.safe_text import model_json
from hookconf.verdicts import Status

# major: a field removed, renamed or retyped; minor: a new optional field (1.1: baseline, baselineReason;
# 1.2: era, detection; 1.3: coverage, ToolEntry.called and scoredSuites, the status "advice" with summary.advice
# and CategoryScore.advice, listingError; 1.4: ToolEntry.sandbox, timing, budget,
# ResultEntry.latency)
SCHEMA_VERSION = "1.5"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")


class ToolInfo(_Model):
    name: str = "hookconf"
    version: str


class ServerInfo(_Model):
    name: str
    transport: str
    server_info: dict[str, object] = Field(alias="serverInfo")
    protocol_version: str = Field(alias="protocolVersion")
    capabilities: dict[str, object]


class LatencyFigures(_Model):
    """What the latency suite measured for a tool, in milliseconds to 0.1 ms, as its details quote them."""

    p50_ms: float = Field(alias="p50Ms", description="nearest-rank median of the timed calls")
    p95_ms: float = Field(alias="p95Ms", description="nearest-rank 95th percentile: over 5 samples, the slowest")
    samples: int = Field(description="the calls the figures rest on: 5 timed calls, fewer when the series was cut")
    warmup_only: bool = Field(
        default=False,
        alias="warmupOnly",
        description="the series stopped after its warm-up call, so the figures are that one (cold) call's",
    )


class ResultEntry(_Model):
    suite: str
    tool: str
    status: Status
    code: str | None
    title: str | None
    details: str
    duration_ms: float = Field(alias="durationMs")
    # compliance entries only: the check's id, its category and whether the grade requires it
    id: str | None = None
    category: str | None = None
    required: bool | None = None
    graded: bool | None = None
    # set on a failure that the --baseline file expects: the reason the file gives
    baseline_reason: str | None = Field(default=None, alias="baselineReason")
    # latency results that timed calls: the figures their details quote (none for a skip, a hang, failed calls)
    latency: LatencyFigures | None = None


class CategoryScore(_Model):
    name: str
    score: float | None
    passed: int
    failed: int
    warned: int
    skipped: int
    advice: int = 0  # verdicts that no spec rule backs: never counted as problems


class LighthouseCategory(_Model):
    name: str
    weight: int
    score: float | None


class Compliance(_Model):
    spec_version: str = Field(alias="specVersion")
    grade: str
    score: float
    categories: list[CategoryScore]
    required_failed: int = Field(alias="requiredFailed")
    lighthouse: list[LighthouseCategory] | None = None
    lighthouse_score: float | None = Field(default=None, alias="lighthouseScore")


class SandboxChange(_Model):
    path: str = Field(description="as the server saw it: ~/..., $TMPDIR/..., $XDG_RUNTIME_DIR/...")
    change: str = Field(description="created, changed or removed")
    size: int | None = Field(default=None, description="bytes after the change; none for a directory or removal")


class SandboxDelta(_Model):
    """What the tool's calls did to the audit's sandbox (its HOME, TMPDIR and XDG directories)."""

    created: int
    changed: int
    removed: int
    changes: list[SandboxChange] = Field(description="the first 50 changes, by path")


class ToolEntry(_Model):
    name: str
    score: float | None
    calls: int = Field(description="tools/call requests naming this tool during the audit, as a probe too")
    arguments: dict[str, object]
    arguments_source: str = Field(alias="argumentsSource")
    note: str | None = None
    # whether a hook suite called the tool (a tool never called has no score), and the suites its score counts
    called: bool | None = None
    scored_suites: list[str] | None = Field(default=None, alias="scoredSuites")
    # files the tool's calls created, changed or removed in the audit's sandbox; none without one
    sandbox: SandboxDelta | None = None


class Coverage(_Model):
    """What the hook score rests on: the tools the suites called, out of those audited, and the suites
    that judged at least one called tool (a heuristic suite alone never scores a tool)."""

    tools_listed: int = Field(alias="toolsListed", description="tools the audit covered (after toolFilter)")
    tools_called: int = Field(alias="toolsCalled", description="tools that a hook suite called at least once")
    suites_run: list[str] = Field(alias="suitesRun", description="hook suites that judged a called tool")


class Resources(_Model):
    startup_ms: float | None = Field(alias="startupMs")
    peak_rss_bytes: int = Field(alias="peakRssBytes")
    cpu_seconds: float = Field(alias="cpuSeconds")
    peak_threads: int = Field(alias="peakThreads")
    peak_children: int = Field(alias="peakChildren")


class Timing(_Model):
    """The audit's wall time by phase. Start-up runs from when hookconf started the audit (in `check`, when it
    spawns the server, so the import of the audit code that overlaps the server's boot is counted) until the
    tools are listed; the rest of the total is closing the sessions and building the report."""

    startup_ms: float = Field(alias="startupMs", description="spawn, era detection, initialize, tools/list")
    hook_ms: float = Field(alias="hookMs", description="the hook suites, every tool")
    compliance_ms: float = Field(alias="complianceMs", description="the compliance checks")
    total_ms: float = Field(alias="totalMs", description="the whole audit; at least the sum of the parts")


class BudgetOutcome(_Model):
    """The audit's time budget and what it left undone: each cut tool's suites and each cut check is
    reported as skipped ("budget exhausted"), never as a failure."""

    seconds: float
    exhausted: bool = Field(description="the budget ran out before the audit's work was done")
    cut_tools: list[str] = Field(alias="cutTools", description="tools whose hook suites were not run")
    cut_checks: list[str] = Field(alias="cutChecks", description="compliance checks that were not run")


class Violation(_Model):
    method: str
    model: str
    tool: str | None
    errors: list[str]


class Summary(_Model):
    passed: int
    warned: int
    failed: int
    indeterminate: int
    skipped: int
    advice: int = 0  # verdicts that no spec rule backs: never counted as problems


class BaselineItem(_Model):
    id: str = Field(description="a compliance check id, or tool:code for a hook finding")
    reason: str
    status: Status | None = Field(default=None, description="the matched result's status now; null if none ran")


class BaselineOutcome(_Model):
    file: str
    baselined: list[BaselineItem] = Field(description="expected failures that failed: they do not fail the run")
    stale: list[BaselineItem] = Field(description="entries whose check ran and did not fail: they fail the run")
    not_run: list[BaselineItem] = Field(alias="notRun", description="entries whose check did not run or was skipped")


class Report(_Model):
    schema_version: str = Field(default=SCHEMA_VERSION, alias="schemaVersion")
    tool: ToolInfo
    server: ServerInfo
    score: float | None
    coverage: Coverage | None = None
    tools: list[ToolEntry]
    results: list[ResultEntry]
    resources: Resources | None
    schema_violations: list[Violation] = Field(alias="schemaViolations")
    summary: Summary
    duration_ms: float = Field(alias="durationMs")
    # set when the compliance suite ran: the grade, its score and the revision graded
    grade: str | None = None
    compliance_score: float | None = Field(default=None, alias="complianceScore")
    spec_version: str | None = Field(default=None, alias="specVersion")
    compliance: Compliance | None = None
    # the protocol era spoken (a hookconf.protocol.Era value: "handshake" or "stateless") and how it was chosen
    era: str | None = None
    detection: str | None = None
    warnings: list[str] = Field(default_factory=list)
    baseline: BaselineOutcome | None = None
    listing_error: str | None = Field(
        default=None,
        alias="listingError",
        description="why tools/list failed, when it did: then no tool was audited and `tools` cannot say which tools "
        "the server has",
    )
    timing: Timing | None = None
    budget: BudgetOutcome | None = Field(default=None, description="set when the audit had a time budget")
    config: str | None = Field(
        default=None,
        description="the config file that describes the server, as given (relative to the working directory when "
        "it is under it), or the fleet manifest: SARIF locates its results there",
    )

    def results_by_tool(self) -> dict[str, list[ResultEntry]]:
        """Results grouped per tool, tools in the order they were audited."""
        grouped: dict[str, list[ResultEntry]] = {}
        for entry in self.results:
            grouped.setdefault(entry.tool, []).append(entry)
        return grouped

    def to_json(self) -> str:
        """The report as JSON, server text as sent: JSON escapes the C0 controls, and `escape_in_json` the
        hidden code points JSON would leave raw (C1, bidi overrides, lone surrogates, which pydantic's own
        serialiser cannot even encode)."""
        return model_json(self)


def summarize(results: list[ResultEntry]) -> Summary:
    def count(status: Status) -> int:
        return sum(1 for r in results if r.status is status)

    return Summary(
        passed=count(Status.PASS),
        warned=count(Status.WARN),
        failed=count(Status.FAIL),
        indeterminate=count(Status.INDETERMINATE),
        skipped=count(Status.SKIP),
        advice=count(Status.ADVICE),
    )
