"""The hook suites, tool by tool: each tool's plan, its suites' verdicts, its entry in the report."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace

from hookconf.budget import AuditClock
from hookconf.checks import SUITES
from hookconf.checks.call_errors import disguised_error
from hookconf.checks.context import ToolContext
from hookconf.checks.registry import ERROR_IN_DISGUISE, FINDINGS, SCHEMA_SPEC_URL, SCHEMA_VIOLATION, Suite, SuiteResult
from hookconf.config import AuditConfig
from hookconf.engine.events import Events
from hookconf.engine.plan import ToolPlan, plan_tool
from hookconf.report.keys import SERVER_SCOPE
from hookconf.report.model import (
    Coverage,
    LatencyFigures,
    ResultEntry,
    SandboxChange,
    SandboxDelta,
    ToolEntry,
)
from hookconf.scoring import tool_score
from hookconf.session import McpSession
from hookconf.verdicts import Status
from hookconf.wire.sandbox import LISTED_CHANGES, CallWatch, Sandbox
from hookconf.wire.transport import JsonObject


@dataclass
class HookHangs:
    """What the hook suites left for the compliance checks: the tools that hung, and whether the server
    answered no ping after one did."""

    tools: list[str] = field(default_factory=list)
    server_stuck: bool = False
    out_of_service: dict[str, str] = field(default_factory=dict)  # tools no call of which worked, with why


@dataclass
class HookResults:
    entries: list[ResultEntry]
    tools: list[ToolEntry]
    hangs: HookHangs


def audit_tools(
    session: McpSession,
    tools: list[JsonObject],
    config: AuditConfig,
    *,
    suites: list[Suite],
    sandbox: Sandbox | None,
    clock: AuditClock,
    events: Events,
) -> HookResults:
    entries: list[ResultEntry] = []
    tool_entries: list[ToolEntry] = []
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
        ctx.sandbox = CallWatch(sandbox) if sandbox is not None else None
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
        decided = [result_entry(outcome) for outcome in outcomes + ([disguised] if disguised else [])]
        events.verdicts(decided)
        entries.extend(decided)
        tool_entries.append(_tool_entry(ctx, plan, outcomes))
    return HookResults(entries, tool_entries, HookHangs(sorted(hung), stuck, out_of_service))


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


def coverage(tool_entries: list[ToolEntry]) -> Coverage:
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


def result_entry(outcome: SuiteResult) -> ResultEntry:
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


def violation_entries(session: McpSession) -> list[ResultEntry]:
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
