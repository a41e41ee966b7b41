"""Run the compliance catalog against one server: gate, run, restart a server that died, grade."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from hookconf.budget import AuditClock, elapsed_ms
from hookconf.checks.compliance import CHECKS, Category, ComplianceCheck
from hookconf.checks.compliance.catalog import Outcome, failed, in_run_order, select, skipped, undecided
from hookconf.checks.compliance.context import ComplianceContext, HungToolError
from hookconf.config import AuditConfig
from hookconf.engine.events import SILENT, Events
from hookconf.engine.hooks import HookHangs
from hookconf.errors import HookconfError, RequestTimeoutError, TransportClosedError
from hookconf.report.keys import SERVER_SCOPE
from hookconf.report.model import CategoryScore, Compliance, LighthouseCategory, ResultEntry
from hookconf.scoring import compliance_score, letter_grade, lighthouse_categories, lighthouse_overall, pool_score
from hookconf.session import McpSession
from hookconf.session_pool import SessionPool
from hookconf.verdicts import Status

# After a request timed out: how long a ping (server/discover since 2026-07-28) may take before the
# server counts as hung. A server that is merely slow on one request answers it at once. A ping that
# outlasted its liveness wait (Transport.liveness_ping) already was that probe: the server is hung at once.
HUNG_PROBE_S = 1.0


@dataclass(frozen=True)
class ComplianceOptions:
    only: Sequence[str] = ()
    skip: Sequence[str] = ()
    lighthouse_profile: bool = False


@dataclass
class ComplianceRun:
    ctx: ComplianceContext
    planned: list[ComplianceCheck]
    options: ComplianceOptions
    compliance: Compliance | None = None  # the grade, once run_compliance has run the checks
    entries: list[ResultEntry] = field(default_factory=list)
    unreachable: str | None = None  # set when a server hookconf cannot restart stopped answering


@dataclass
class CompliancePlan:
    """The compliance phase of an audit (hookconf.engine.audit.CompliancePhase): planned before the hook suites,
    run after them, graded at the end."""

    compliance_run: ComplianceRun

    @classmethod
    def prepare(
        cls, config: AuditConfig, session: McpSession, pool: SessionPool, options: ComplianceOptions, spare_early: bool
    ) -> CompliancePlan:
        return cls(prepare_compliance(config, session, pool, options, spare_early=spare_early))

    @property
    def checks(self) -> list[str]:
        return [check.id for check in self.compliance_run.planned]

    @property
    def entries(self) -> list[ResultEntry]:
        return self.compliance_run.entries

    @property
    def warnings(self) -> list[str]:
        return self.compliance_run.ctx.warnings

    def run(self, hangs: HookHangs, clock: AuditClock, events: Events) -> float:
        started = time.monotonic()
        carry_hook_hangs(self.compliance_run, hangs.tools, hangs.server_stuck)
        self.compliance_run.ctx.out_of_service.update(hangs.out_of_service)
        run_compliance(self.compliance_run, clock, events)
        return elapsed_ms(started)

    def graded(self, clock: AuditClock) -> Compliance | None:
        """The grade, none when the budget cut every graded check that would have measured something: a grade
        over nothing would be an F the server did not earn."""
        measured = pool_score([entry.status for entry in self.entries if entry.graded]) is not None
        return self.compliance_run.compliance if measured or not clock.cut_checks else None


def planned_checks(options: ComplianceOptions) -> list[ComplianceCheck]:
    """The selected checks in run order.

    Checks that need a fresh server run after the others, so that the spare process started at the
    beginning has booted by then; those that judge the whole recording come last.
    """
    chosen = select(in_run_order(list(CHECKS.values())), list(options.only), list(options.skip))
    return sorted(chosen, key=lambda check: (check.after_all, check.fresh_session))


def gate(check: ComplianceCheck, ctx: ComplianceContext) -> str | None:
    """Why a check does not apply here, or None when it does."""
    if ctx.revision not in check.revisions:
        return f"applies to {', '.join(check.revisions)}; this run grades {ctx.revision}"
    if check.transport is not None and check.transport != ctx.transport_kind:
        return f"{check.transport} only; this server is audited over {ctx.transport_kind}"
    if check.capability is not None and not ctx.declared(check.capability):
        return f"the server does not declare the {check.capability} capability"
    return None


def prepare_compliance(
    config: AuditConfig, session: McpSession, pool: SessionPool, options: ComplianceOptions, spare_early: bool = True
) -> ComplianceRun:
    """Plan the checks on `session` and start the spare server for the fresh-session ones, so that it boots while
    the hook suites run (with `spare_early`; otherwise while the first compliance checks run). The caller runs it
    with run_compliance; `pool`, which holds `session` and every other one, closes them all."""
    identity = session.identity
    assert identity is not None, "the session is initialized before compliance checks run"
    ctx = ComplianceContext(
        config,
        session,
        identity.protocol_version,
        auth_configured=any(k.lower() == "authorization" for k in config.server.headers),
        pool=pool,
    )
    run = ComplianceRun(
        ctx=ctx,
        planned=planned_checks(options),
        options=options,
    )
    if spare_early:
        _start_spare(run)
    return run


def _start_spare(run: ComplianceRun) -> None:
    if any(check.fresh_session and gate(check, run.ctx) is None for check in run.planned):
        run.ctx.pool.start_spare()


def run_compliance(run: ComplianceRun, clock: AuditClock | None = None, events: Events = SILENT) -> ComplianceRun:
    """Run the planned checks, each verdict told to `events` as it is decided; with a clock whose budget ran out,
    each check that would have run is skipped."""
    clock = clock or AuditClock()
    by_id: dict[str, ResultEntry] = {}
    try:
        if not clock.exhausted:
            _start_spare(run)  # a no-op when it is already up
        for check in run.planned:
            by_id[check.id] = entry = _run_one(check, run.ctx, run, clock)
            events.verdicts([entry])
    finally:
        run.ctx.pool.close_spare()  # no check needs it any more: it stops while the report is made
    run.entries = [by_id[check.id] for check in CHECKS.values() if check.id in by_id]  # catalog order
    run.compliance = grade(run.entries, run.ctx.revision, run.options.lighthouse_profile)
    return run


def _run_one(check: ComplianceCheck, ctx: ComplianceContext, run: ComplianceRun, clock: AuditClock) -> ResultEntry:
    started = time.monotonic()
    reason = gate(check, ctx) or run.unreachable
    if reason is None and clock.exhausted:
        clock.cut_checks.append(check.id)
        reason = clock.skip_reason()
    if reason is not None:
        return _entry(check, skipped(reason), (time.monotonic() - started) * 1000, ctx.revision)
    if not ctx.session.server_alive():
        _restart(ctx, run)  # it died before this check (under a hook suite or the previous check): not its doing
    timeouts, liveness_failures = ctx.session.transport.timeouts, len(ctx.session.transport.liveness_failures)
    ctx.backend_errors.clear()
    ctx.running, ctx.passed_over = check.id, set()
    hung_before = set(ctx.hung_tools)
    outcome = ctx.attributed(_run_guarded(check, ctx))
    newly_hung = [name for name in ctx.hung_tools if name not in hung_before]
    if not ctx.session.server_alive():
        outcome = failed(f"server died under this check: {_death_note(ctx.session)}")
        _restart(ctx, run)
    elif ctx.session.transport.timeouts > timeouts and (
        (stuck := _stuck_after_liveness(ctx, liveness_failures)) or not ctx.session.responsive(HUNG_PROBE_S)
    ):
        outcome = (
            hang_outcome(outcome, ctx, newly_hung, True) if newly_hung else _hung(outcome, ctx.keepalive_method, stuck)
        )
        _replace_hung_server(ctx, run, check.id)
    elif newly_hung:
        outcome = hang_outcome(outcome, ctx, newly_hung, False)
    elif outcome.status is Status.SKIP and ctx.passed_over:
        outcome = skipped(f"{outcome.details} ({ctx.hang_note()})")
    return _entry(check, outcome, (time.monotonic() - started) * 1000, ctx.revision)


def hang_outcome(outcome: Outcome, ctx: ComplianceContext, tools: list[str], stuck: bool) -> Outcome:
    """The hang is reported here, where it first happened, and once: no later check calls the tool. It is the
    check's verdict only when the tool answered its usual call, so that the check's input is to blame."""
    note = (
        f"{', '.join(tools)} hung under this check: a call got no answer within timeoutMs "
        f"({round(ctx.session.timeout_s * 1000)} ms); it is not called again in this audit"
    )
    if stuck:
        note += f", and the server answered no {ctx.keepalive_method} meanwhile"
    if outcome.status is Status.FAIL and all(ctx.usual_call_answered(name) for name in tools):
        return failed(f"{outcome.details}; {note}")
    return undecided(f"not evaluable: {note}")


def carry_hook_hangs(run: ComplianceRun, hung_tools: Sequence[str], stuck: bool) -> None:
    """The tools that hung under the hook suites are called by no check. A server they left stuck (it answers
    no ping) would hang every check: hookconf restarts one it started, and skips the checks on one it cannot."""
    for name in hung_tools:
        run.ctx.hung_tools.setdefault(name, "the hook suites")
    ctx = run.ctx
    if not stuck or not ctx.session.server_alive() or ctx.session.responsive(HUNG_PROBE_S):
        return
    if ctx.session.process is None:
        hung = f" after {', '.join(hung_tools)} hung" if hung_tools else " after a call hung"
        run.unreachable = f"not run: the server stopped answering{hung} in the hook suites"
        return
    ctx.session.close()
    _restart(ctx, run)


def _stuck_after_liveness(ctx: ComplianceContext, failures_before: int) -> str | None:
    """Why the server is hung, when a ping of this check outlasted its liveness wait and nothing came since:
    that ping was the probe, and no second one is waited for. None otherwise."""
    transport = ctx.session.transport
    failures = transport.liveness_failures[failures_before:]
    return failures[-1].reason if failures and transport.silent_since(failures[-1]) else None


def _hung(outcome: Outcome, liveness_method: str, liveness_failure: str | None = None) -> Outcome:
    """The check's verdict on a server that stopped answering: FAIL, naming the hang. `liveness_failure`: why a
    ping that outlasted its liveness wait (not timeoutMs) already showed the hang."""
    if liveness_failure is not None:
        note = f"the server hung under this check: {liveness_failure}"
    else:
        note = f"the server hung under this check: a request timed out and a {liveness_method} got no answer either"
    return failed(f"{outcome.details}; {note}" if outcome.status is Status.FAIL else note)


def _replace_hung_server(ctx: ComplianceContext, run: ComplianceRun, check_id: str) -> None:
    """Without this every later check would wait out its own timeout. A server hookconf started is
    killed and started again; one it merely reaches cannot be, so the remaining checks are skipped."""
    if ctx.session.process is None:
        run.unreachable = f"not run: the server stopped answering under {check_id}"
        return
    if ctx.transport_kind == "stdio":  # its stop (up to the SIGTERM grace) overlaps the next checks, as the
        ctx.pool.close_in_background(ctx.session)  # spare's process already ran beside it
    else:
        ctx.session.close()  # the new process listens on the same port
    _restart(ctx, run)


def _run_guarded(check: ComplianceCheck, ctx: ComplianceContext) -> Outcome:
    try:
        return check.run(ctx)
    except HungToolError as exc:
        return skipped(f"not run: {exc}")
    except (TransportClosedError, RequestTimeoutError) as exc:
        return failed(f"the server stopped answering: {exc}")
    except HookconfError as exc:
        return undecided(f"could not run: {exc}")
    except Exception as exc:
        if not _http_error(exc):
            raise
        return failed(f"HTTP request failed: {exc}")


def _http_error(exc: Exception) -> bool:
    """An httpx2 error; httpx2 is imported only by an audit over HTTP, and without it there is none."""
    httpx2 = sys.modules.get("httpx2")
    return httpx2 is not None and isinstance(exc, httpx2.HTTPError)


def _death_note(session: McpSession) -> str:
    note = session.transport.closed_reason or "it stopped answering"
    if session.process is not None:
        code = session.process.exit_code(wait_s=0.1 if session.transport.closed_reason else 1.0)
        if code is not None:
            note = f"exit code {code}"
        tail = session.process.stderr_tail(3)
        if tail:
            note += f"; its stderr ends with: {tail}"
    return note


def _restart(ctx: ComplianceContext, run: ComplianceRun) -> None:
    """A fresh server for the checks after the one that killed it: the spare, which has booted meanwhile (and
    another spare then boots for the fresh-session checks), else one started now."""
    spare_taken = ctx.pool.spare is not None
    fresh = ctx.pool.replace(ctx.session)
    if spare_taken:
        _start_spare(run)
    fresh.calls_by_tool = ctx.session.calls_by_tool  # the report counts every process's calls of a tool
    fresh.connect_as(ctx.revision)
    fresh.transport.carry_pace(ctx.session.transport)
    ctx.session = fresh


def _entry(check: ComplianceCheck, outcome: Outcome, duration_ms: float, revision: str) -> ResultEntry:
    return ResultEntry(
        suite="compliance",
        tool=SERVER_SCOPE,
        status=outcome.status,
        code=check.id if outcome.status is not Status.PASS else None,
        title=check.title,
        details=outcome.details,
        durationMs=round(duration_ms, 1),
        id=check.id,
        category=check.category.value,
        required=check.required_for(revision),
        graded=check.graded,
    )


def grade(entries: list[ResultEntry], revision: str, lighthouse_profile: bool) -> Compliance:
    graded = [e for e in entries if e.graded]
    score = compliance_score([e.status for e in graded if e.required], [e.status for e in graded if not e.required])
    compliance = Compliance(
        specVersion=revision,
        grade=letter_grade(score),
        score=score,
        categories=_categories(entries),
        requiredFailed=sum(1 for e in graded if e.required and e.status is Status.FAIL),
    )
    if lighthouse_profile:
        rows = lighthouse_categories({e.id: e.status for e in entries if e.id})
        compliance = compliance.model_copy(
            update={
                "lighthouse": [LighthouseCategory(name=n, weight=w, score=s) for n, w, s in rows],
                "lighthouse_score": lighthouse_overall(rows),
            }
        )
    return compliance


def _categories(entries: list[ResultEntry]) -> list[CategoryScore]:
    rows = []
    for category in Category:
        mine = [e for e in entries if e.category == category.value]
        if not mine:
            continue
        rows.append(
            CategoryScore(
                name=category.value,
                score=None if (s := pool_score([e.status for e in mine])) is None else round(s, 1),
                passed=sum(e.status is Status.PASS for e in mine),
                failed=sum(e.status is Status.FAIL for e in mine),
                warned=sum(e.status is Status.WARN for e in mine),
                skipped=sum(e.status is Status.SKIP for e in mine),
                advice=sum(e.status is Status.ADVICE for e in mine),
            )
        )
    return rows
