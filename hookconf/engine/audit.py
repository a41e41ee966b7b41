"""One audit of one server, as a sequence of phases: connect, plan, the hook suites, the compliance checks, the
Report. A listener hears each verdict as it is decided (hookconf.engine.events)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from hookconf import ALL_SUITES, COMPLIANCE_SUITE, __version__
from hookconf.budget import AuditClock, elapsed_ms
from hookconf.config import AuditConfig
from hookconf.engine.events import SILENT, Events, Listener
from hookconf.engine.hooks import HookHangs, audit_tools, coverage, violation_entries
from hookconf.engine.plan import selected_suites, selected_tools
from hookconf.era import connect
from hookconf.errors import ServerStartError
from hookconf.report.model import (
    BudgetOutcome,
    Compliance,
    Report,
    Resources,
    ResultEntry,
    ServerInfo,
    Timing,
    ToolInfo,
    Violation,
    summarize,
)
from hookconf.scoring import server_score
from hookconf.session import McpSession
from hookconf.session_pool import SessionPool
from hookconf.wire.process import ServerProcess
from hookconf.wire.sandbox import Sandbox
from hookconf.wire.transport import JsonObject

if TYPE_CHECKING:
    from hookconf.engine.compliance import ComplianceOptions


@dataclass(frozen=True)
class RunOptions:
    suites: Sequence[str] = ALL_SUITES
    tool: str | None = None
    compliance: ComplianceOptions | None = None  # None: every check, no profile
    sandbox: Sandbox | None = None  # the audit's sandbox, whose changes are reported per tool
    started: float | None = None  # when the audit began (time.monotonic()), if before run_audit: the budget's start


class CompliancePhase(Protocol):
    """The compliance catalog's part of an audit (hookconf.engine.compliance), or NO_COMPLIANCE."""

    @property
    def checks(self) -> Sequence[str]: ...  # the ids of the planned checks

    @property
    def entries(self) -> list[ResultEntry]: ...

    @property
    def warnings(self) -> list[str]: ...

    def run(self, hangs: HookHangs, clock: AuditClock, events: Events) -> float:
        """Run the checks after the hook suites (whose hangs they inherit); the milliseconds it took."""
        ...

    def graded(self, clock: AuditClock) -> Compliance | None: ...


@dataclass(frozen=True)
class _NoCompliance:
    """An audit that does not run the compliance checks: nothing planned, nothing run, no grade."""

    checks: Sequence[str] = ()
    entries: list[ResultEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def run(self, hangs: HookHangs, clock: AuditClock, events: Events) -> float:
        return 0.0

    def graded(self, clock: AuditClock) -> Compliance | None:
        return None


def run_audit(
    config: AuditConfig, options: RunOptions, process: ServerProcess | None = None, listener: Listener | None = None
) -> Report:
    """Audit the configured server; `process`, when given, is that server already spawned (and is
    stopped with the rest, whatever happens). `listener` hears the audit's events as they happen."""
    started = time.monotonic()
    clock = AuditClock(started=options.started or started, budget_s=config.budget)
    events = SILENT if listener is None else Events(listener)
    suites = selected_suites(config, options.suites)
    connection = connect(config.server, config.timeout_ms / 1000, config.spec_version, process)
    session, detected = connection.session, connection.era
    identity = session.identity
    assert identity is not None, "connect starts the conversation"
    warnings = list(detected.warnings)
    # the pool closes every session to the server at the end (the main one and the fresh ones side by side)
    with SessionPool(config.server, session.timeout_s, main=session) as pool:
        # a spare server booting while tools are watched would write into the sandbox in their name
        watched = options.sandbox is not None and bool(suites)
        compliance = _compliance_phase(config, options, session, pool, spare_early=not watched)
        listed, listing_error = _listed_tools(session)
        if listing_error is not None:
            warnings.append(f"No tools audited: {listing_error}")
        tools = selected_tools(listed, config, options.tool)
        startup_ms = elapsed_ms(clock.started)
        events.started(config.server.name, [str(tool.get("name")) for tool in tools], compliance.checks)
        phase = time.monotonic()
        hooks = audit_tools(session, tools, config, suites=suites, sandbox=options.sandbox, clock=clock, events=events)
        hook_ms = elapsed_ms(phase)
        compliance_ms = compliance.run(hooks.hangs, clock, events)
        warnings.extend(compliance.warnings)
    tool_entries = [t.model_copy(update={"calls": session.calls_by_tool[t.name]}) for t in hooks.tools]
    violations = violation_entries(session)
    events.verdicts(violations)
    entries = [*hooks.entries, *compliance.entries, *violations]
    graded = compliance.graded(clock)
    report = Report(
        tool=ToolInfo(version=__version__),
        server=ServerInfo(
            name=config.server.name,
            transport=config.server.transport,
            serverInfo=identity.server_info,
            protocolVersion=identity.protocol_version,
            capabilities=identity.capabilities,
        ),
        score=server_score(t.score for t in tool_entries),
        coverage=coverage(tool_entries) if suites else None,
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
    events.finished(config.server.name, report.summary, report.timing, report.duration_ms)
    return report


def _compliance_phase(
    config: AuditConfig, options: RunOptions, session: McpSession, pool: SessionPool, spare_early: bool
) -> CompliancePhase:
    """The planned compliance checks, with the spare server of the fresh-session ones booting (see
    prepare_compliance); NO_COMPLIANCE when the options or the config leave them out."""
    if COMPLIANCE_SUITE not in options.suites or COMPLIANCE_SUITE not in config.suites:
        return NO_COMPLIANCE
    # imported here: an audit of the hook suites alone never loads the compliance catalog
    from hookconf.engine.compliance import ComplianceOptions, CompliancePlan

    return CompliancePlan.prepare(config, session, pool, options.compliance or ComplianceOptions(), spare_early)


NO_COMPLIANCE: CompliancePhase = _NoCompliance()


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
