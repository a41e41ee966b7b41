"""Plan which suites apply to which tool, run them, return a Report."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from hookconf import ALL_SUITES, COMPLIANCE_SUITE, __version__
from hookconf.budget import AuditClock, elapsed_ms
from hookconf.checks import SUITES
from hookconf.checks.arguments import generated_arguments
from hookconf.checks.call_errors import disguised_error
from hookconf.checks.context import ToolContext, missing_annotations, skip_reason
from hookconf.checks.registry import (
    ERROR_IN_DISGUISE,
    FINDINGS,
    NOT_ANNOTATED,
    SCHEMA_SPEC_URL,
    SCHEMA_VIOLATION,
    Suite,
    SuiteResult,
)
from hookconf.config import AuditConfig
from hookconf.era import connect
from hookconf.errors import ServerStartError
from hookconf.report.keys import SERVER_SCOPE
from hookconf.report.model import (
    BudgetOutcome,
    Compliance,
    Coverage,
    LatencyFigures,
    Report,
    Resources,
    ResultEntry,
    SandboxChange,
    SandboxDelta,
    ServerInfo,
    Timing,
    ToolEntry,
    ToolInfo,
    Violation,
    summarize,
)
from hookconf.scoring import pool_score, server_score, tool_score
from hookconf.session import McpSession
from hookconf.session_pool import SessionPool
from hookconf.verdicts import Status
from hookconf.wire.process import ServerProcess
from hookconf.wire.sandbox import LISTED_CHANGES, CallWatch, Sandbox
from hookconf.wire.transport import JsonObject

if TYPE_CHECKING:
    from hookconf.compliance_runner import ComplianceOptions, ComplianceRun


@dataclass(frozen=True)
class RunOptions:
    suites: Sequence[str] = ALL_SUITES
    tool: str | None = None
    compliance: ComplianceOptions | None = None  # None: every check, no profile
    sandbox: Sandbox | None = None  # the audit's sandbox, whose changes are reported per tool
    started: float | None = None  # when the audit began (time.monotonic()), if before run_audit: the budget's start


@dataclass(frozen=True)
class ToolPlan:
    tool: JsonObject
    arguments: JsonObject
    arguments_source: str
    callable: bool
    note: str | None
    skip_code: str | None = None  # the finding a skip of the calling suites carries (ANNOT-001)


def plan_tool(tool: JsonObject, config: AuditConfig) -> ToolPlan:
    name = str(tool.get("name"))
    probe = config.probe_for(name)
    note = None
    if probe is not None and probe.args is not None:
        arguments, source = dict(probe.args), "probe"
    else:
        arguments, note = generated_arguments(tool.get("inputSchema"))
        source = "generated"
    reason = skip_reason(tool)
    if reason is None or name in config.allow_destructive:
        return ToolPlan(tool, arguments, source, True, note)
    missing = missing_annotations(tool)
    if not missing:
        return ToolPlan(tool, arguments, source, False, reason)
    # the spec's default (destructiveHint: true) and allowDestructive are in ANNOT-001's explanation
    note = f"no {'/'.join(missing)} annotation: not called, hook readiness unknown; annotate it"
    return ToolPlan(tool, arguments, source, False, note, NOT_ANNOTATED.code)


def selected_tools(tools: list[JsonObject], config: AuditConfig, only: str | None) -> list[JsonObject]:
    chosen = [t for t in tools if config.tool_filter is None or t.get("name") in config.tool_filter]
    return [t for t in chosen if only is None or t.get("name") == only]


def run_audit(config: AuditConfig, options: RunOptions, process: ServerProcess | None = None) -> Report:
    """Audit the configured server; `process`, when given, is that server already spawned (and is
    stopped with the rest, whatever happens)."""
    started = time.monotonic()
    clock = AuditClock(started=options.started or started, budget_s=config.budget)
    hook_ms = compliance_ms = 0.0
    connection = connect(config.server, config.timeout_ms / 1000, config.spec_version, process)
    session, detected = connection.session, connection.era
    warnings = list(detected.warnings)
    identity = session.identity
    assert identity is not None, "connect starts the conversation"
    compliance: ComplianceRun | None = None
    # the pool closes every session to the server at the end (the main one and the fresh ones side by side)
    with SessionPool(config.server, session.timeout_s, main=session) as pool:
        if COMPLIANCE_SUITE in options.suites and COMPLIANCE_SUITE in config.suites:
            # imported here: an audit of the hook suites alone never loads the compliance catalog
            from hookconf.compliance_runner import ComplianceOptions, prepare_compliance

            # a spare server booting while tools are watched would write into the sandbox in their name
            watched = options.sandbox is not None and bool(_selected_suites(config, options))
            compliance = prepare_compliance(
                config, session, pool, options.compliance or ComplianceOptions(), spare_early=not watched
            )
        listed, listing_error = _listed_tools(session)
        if listing_error is not None:
            warnings.append(f"No tools audited: {listing_error}")
        tools = selected_tools(listed, config, options.tool)
        startup_ms = elapsed_ms(clock.started)
        phase = time.monotonic()
        entries, tool_entries, hangs = _audit_tools(session, tools, config, options, clock)
        hook_ms, phase = elapsed_ms(phase), time.monotonic()
        if compliance is not None:
            from hookconf.compliance_runner import carry_hook_hangs, run_compliance

            carry_hook_hangs(compliance, hangs.tools, hangs.server_stuck)
            compliance.ctx.out_of_service.update(hangs.out_of_service)
            run_compliance(compliance, clock)
            compliance_ms = elapsed_ms(phase)
            entries.extend(compliance.entries)
            warnings.extend(compliance.ctx.warnings)
    tool_entries = [t.model_copy(update={"calls": session.calls_by_tool[t.name]}) for t in tool_entries]
    entries.extend(_violation_entries(session))
    graded = _grade(compliance, clock)
    return Report(
        tool=ToolInfo(version=__version__),
        server=ServerInfo(
            name=config.server.name,
            transport=config.server.transport,
            serverInfo=identity.server_info,
            protocolVersion=identity.protocol_version,
            capabilities=identity.capabilities,
        ),
        score=server_score(t.score for t in tool_entries),
        coverage=_coverage(tool_entries) if _selected_suites(config, options) else None,
        tools=tool_entries,
        results=entries,
        resources=_resources(session),
        schemaViolations=[
            Violation(method=v.method, model=v.model, tool=v.tool, errors=v.errors) for v in session.violations
        ],
        summary=summarize(entries),
        durationMs=round((time.monotonic() - started) * 1000, 1),
        grade=graded.grade if graded else None,
        complianceScore=graded.score if graded else None,
        specVersion=graded.spec_version if graded else None,
        compliance=graded,
        era=detected.era.value,
        detection=detected.detection,
        warnings=warnings,
        listingError=listing_error,
        timing=Timing(
            startupMs=startup_ms, hookMs=hook_ms, complianceMs=compliance_ms, totalMs=elapsed_ms(clock.started)
        ),
        budget=_budget_outcome(clock),
    )


def _grade(compliance: ComplianceRun | None, clock: AuditClock) -> Compliance | None:
    """The compliance grade, none when the budget cut every graded check that would have measured something:
    a grade over nothing would be an F the server did not earn."""
    if compliance is None:
        return None
    measured = pool_score([entry.status for entry in compliance.entries if entry.graded]) is not None
    return compliance.compliance if measured or not clock.cut_checks else None


def _budget_outcome(clock: AuditClock) -> BudgetOutcome | None:
    if clock.budget_s is None:
        return None
    return BudgetOutcome(
        seconds=clock.budget_s, exhausted=clock.spent, cutTools=clock.cut_tools, cutChecks=clock.cut_checks
    )


def _listed_tools(session: McpSession) -> tuple[list[JsonObject], str | None]:
    """The server's tools, and why listing them failed. A run pinned to 2026-07-28 against a server that does
    not speak it grades the compliance checks anyway, so there a failed listing leaves the hook suites without
    tools instead of ending the audit."""
    try:
        return session.list_tools(), None
    except ServerStartError as exc:
        identity = session.identity
        if identity is None or not identity.stateless or identity.discover_result:
            raise
        return [], str(exc)


@dataclass
class HookHangs:
    """What the hook suites left for the compliance checks: the tools that hung, and whether the server
    answered no ping after one did."""

    tools: list[str] = field(default_factory=list)
    server_stuck: bool = False
    out_of_service: dict[str, str] = field(default_factory=dict)  # tools no call of which worked, with why


def _audit_tools(
    session: McpSession, tools: list[JsonObject], config: AuditConfig, options: RunOptions, clock: AuditClock
) -> tuple[list[ResultEntry], list[ToolEntry], HookHangs]:
    entries: list[ResultEntry] = []
    tool_entries: list[ToolEntry] = []
    suites = _selected_suites(config, options)
    stuck = False
    hung: set[str] = set()
    dead_backends: dict[str, str] = {}
    out_of_service: dict[str, str] = {}
    for tool in tools:
        plan = plan_tool(tool, config)
        ctx = ToolContext(
            tool,
            plan.arguments,
            config,
            session,
            config.probe_for(str(tool.get("name"))),
            hung_tools=hung,
            dead_backends=dead_backends,
        )
        ctx.server_stuck = stuck
        ctx.hung = ctx.name in hung  # it hung as an earlier tool's state probe: reported here, not called again
        ctx.sandbox = CallWatch(options.sandbox) if options.sandbox is not None else None
        if suites and plan.callable and clock.exhausted:  # a tool never called costs nothing: judged as usual
            clock.cut_tools.append(ctx.name)
            plan = replace(plan, note=clock.skip_reason())
            outcomes = [SuiteResult(suite.name, ctx.name, Status.SKIP, plan.note or "") for suite in suites]
        else:
            outcomes = [_run_suite(suite, ctx, plan, session) for suite in suites]
        stuck = ctx.server_stuck
        if (why := ctx.out_of_service) is not None:
            out_of_service[ctx.name] = why
        disguised = _disguised_error_outcome(ctx)
        entries.extend(_entry(outcome) for outcome in outcomes + ([disguised] if disguised else []))
        tool_entries.append(_tool_entry(ctx, plan, outcomes))
    return entries, tool_entries, HookHangs(sorted(hung), stuck, out_of_service)


def _selected_suites(config: AuditConfig, options: RunOptions) -> list[Suite]:
    """The registered hook suites the options and the config select, in the registry's (the reports') order."""
    return [suite for suite in SUITES.values() if suite.name in options.suites and suite.name in config.suites]


def _tool_entry(ctx: ToolContext, plan: ToolPlan, outcomes: list[SuiteResult]) -> ToolEntry:
    """A tool's score rests on calls: a tool no suite called has none, whatever the description heuristic says."""
    called = ctx.own_calls > 0
    scored = [o.suite for o in outcomes if o.suite in SUITES and o.status is not Status.SKIP] if called else []
    return ToolEntry(
        name=ctx.name,
        score=tool_score(outcomes) if called else None,
        calls=0,
        arguments=plan.arguments,
        argumentsSource=plan.arguments_source,
        note="; ".join(note for note in (plan.note, ctx.cap_note) if note) or None,  # a series cut: shown untruncated
        called=called,
        scoredSuites=scored,
        sandbox=sandbox_delta(ctx.sandbox),
    )


def sandbox_delta(watch: CallWatch | None) -> SandboxDelta | None:
    if watch is None or not watch.watched:
        return None
    changes = watch.changes()
    return SandboxDelta(
        created=sum(c.change == "created" for c in changes),
        changed=sum(c.change == "changed" for c in changes),
        removed=sum(c.change == "removed" for c in changes),
        changes=[SandboxChange(path=c.path, change=c.change, size=c.size) for c in changes[:LISTED_CHANGES]],
    )


def _coverage(tool_entries: list[ToolEntry]) -> Coverage:
    scored = {suite for tool in tool_entries for suite in tool.scored_suites or []}
    return Coverage(
        toolsListed=len(tool_entries),
        toolsCalled=sum(bool(tool.called) for tool in tool_entries),
        suitesRun=[suite for suite in SUITES if suite in scored],
    )


def _disguised_error_outcome(ctx: ToolContext) -> SuiteResult | None:
    """CALL-003: the tool answered with an error but left isError unset (the spec's SHOULD says to set it)."""
    series = ctx.series
    errors = [text for outcome in series if (text := disguised_error(outcome, ctx.arguments)) is not None]
    if not errors:
        return None
    return SuiteResult(
        ERROR_IN_DISGUISE.suite,
        ctx.name,
        Status.WARN,
        f"{len(errors)} of {len(series)} calls answered with an error while isError is false ({errors[0]}); "
        '"Any errors that originate from the tool SHOULD be reported inside the result object, with '
        f'`isError` set to true" ({SCHEMA_SPEC_URL})',
        ERROR_IN_DISGUISE.code,
    )


def _run_suite(suite: Suite, ctx: ToolContext, plan: ToolPlan, session: McpSession) -> SuiteResult:
    name, calls_tool = suite.name, suite.calls_tool
    if calls_tool and not plan.callable:
        return SuiteResult(name, ctx.name, Status.SKIP, plan.note or "not callable", plan.skip_code)
    if calls_tool and not session.server_alive():
        reason = f"server is gone ({session.transport.closed_reason})"
        if session.process is not None and session.process.stderr_tail():
            reason += f"; its stderr ends with: {session.process.stderr_tail(3)}"
        return SuiteResult(name, ctx.name, Status.INDETERMINATE, reason)
    if calls_tool and ctx.server_stuck and not ctx.hung:
        return SuiteResult(
            name,
            ctx.name,
            Status.INDETERMINATE,
            "server stopped answering (an earlier call hung and a ping got no answer)",
        )
    started = time.monotonic()
    outcome = suite.run(ctx)
    duration = round((time.monotonic() - started) * 1000, 1)
    return replace(outcome, duration_ms=duration)


def _entry(outcome: SuiteResult) -> ResultEntry:
    title = FINDINGS[outcome.code].title if outcome.code else None
    measured = outcome.latency
    latency = (
        LatencyFigures(
            p50Ms=measured.p50_ms, p95Ms=measured.p95_ms, samples=measured.samples, warmupOnly=measured.warmup_only
        )
        if measured is not None
        else None
    )
    return ResultEntry(
        suite=outcome.suite,
        tool=outcome.tool,
        status=outcome.status,
        code=outcome.code,
        title=title,
        details=outcome.details,
        durationMs=outcome.duration_ms,
        latency=latency,
    )


def _violation_entries(session: McpSession) -> list[ResultEntry]:
    """One WARN per distinct violation; repeats of the same one are counted, not listed."""
    counts = Counter((v.method, v.model, v.tool, "; ".join(v.errors)) for v in session.violations)
    entries = []
    for (method, model, tool, errors), count in counts.items():
        times = f" ({count} times)" if count > 1 else ""
        entries.append(
            ResultEntry(
                suite=SCHEMA_VIOLATION.suite,
                tool=tool or SERVER_SCOPE,
                status=Status.WARN,
                code=SCHEMA_VIOLATION.code,
                title=SCHEMA_VIOLATION.title,
                details=f"{method} result is not a valid {model}{times}: {errors}",
                durationMs=0.0,
            )
        )
    return entries


def _resources(session: McpSession) -> Resources | None:
    figures = session.resource_figures()
    if figures is None:
        return None
    return Resources(
        startupMs=figures.startup_ms,
        peakRssBytes=figures.peak_rss_bytes,
        cpuSeconds=figures.cpu_seconds,
        peakThreads=figures.peak_threads,
        peakChildren=figures.peak_children,
    )
