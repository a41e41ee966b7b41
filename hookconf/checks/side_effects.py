"""side-effects: a read-only tool must not change what the configured state probe reports, nor write into
the audit's sandbox (the HOME, TMPDIR and XDG directories the server was given)."""

from __future__ import annotations

from hookconf.checks.backend import sandbox_note
from hookconf.checks.call_errors import backend_message
from hookconf.checks.context import ToolContext
from hookconf.checks.normalize import all_equal, normalized_output
from hookconf.checks.registry import (
    BACKEND_UNREACHABLE,
    CALL_FAILED,
    Finding,
    hook_suite,
    register_finding,
    verdict,
)
from hookconf.config import StateProbe
from hookconf.session import CallOutcome
from hookconf.verdicts import Status, Verdict
from hookconf.wire.sandbox import FileChange, describe_changes

SUITE = "side-effects"

STATE_DELTA = register_finding(
    Finding(
        code="SIDE-001",
        suite=SUITE,
        severity=Status.FAIL,
        title="Read-only tool produced state delta",
        explanation="The tool is annotated readOnlyHint: true, yet the configured state probe reported "
        "different state after one call than before it, or its calls created, changed or removed files in "
        "the audit's sandbox (the HOME, TMPDIR and XDG directories hookconf gives the server; what the "
        "server writes at start-up is not counted). A hook calls its tool on every trigger, so the state "
        "drifts with every Stop or prompt.",
        remediation="Remove the write from the tool, or drop readOnlyHint so that clients treat it as "
        "a tool with effects.",
    )
)
NO_PROBE = register_finding(
    Finding(
        code="SIDE-002",
        suite=SUITE,
        severity=Status.INDETERMINATE,
        title="No state-probe configured for side-effect detection",
        explanation="A black-box audit cannot prove that a tool is pure; it needs a second tool that "
        "reports the server's state, called before and after. Without one the result is "
        "indeterminate rather than a guessed pass or fail.",
        remediation='Add "stateProbe": {"tool": ..., "args": {...}} to this tool\'s probe in the '
        "config, naming a read-only tool that lists the state this tool could change.",
    )
)


def probe_failed(probe: StateProbe, reading: CallOutcome, when: str) -> Verdict:
    """A failed state-probe reading; one that names an unreachable backend is the sandbox's fault."""
    backend = backend_message(reading, probe.args)
    if backend is not None:
        return verdict(
            Status.INDETERMINATE,
            f"state probe {probe.tool!r}: {sandbox_note(backend)}",
            BACKEND_UNREACHABLE.code,
        )
    return verdict(
        Status.INDETERMINATE,
        f"state probe {probe.tool!r} failed{when}: {reading.describe_failure()}",
        CALL_FAILED.code,
    )


@hook_suite(
    SUITE,
    weight=25,
    summary="Read-only tools must not mutate server state (needs a stateProbe) "
    "or write files into the audit's sandbox.",
)
def check_side_effects(ctx: ToolContext) -> Verdict:
    if not ctx.is_read_only:
        return verdict(Status.SKIP, "not annotated readOnlyHint: true, so state changes are expected")
    state_probe = ctx.probe.state_probe if ctx.probe else None
    probed = _state_probe_verdict(ctx, state_probe) if state_probe is not None else None
    if probed is not None and probed.status is Status.FAIL:
        return probed
    written = _sandbox_writes(ctx)
    if written:
        return verdict(
            Status.FAIL,
            f"its calls wrote into the audit's sandbox: {describe_changes(written)}",
            STATE_DELTA.code,
        )
    if probed is not None:
        return probed
    return verdict(
        Status.INDETERMINATE,
        f"no stateProbe configured for {ctx.name}; add one to its entry in 'probes'",
        NO_PROBE.code,
    )


def _sandbox_writes(ctx: ToolContext) -> list[FileChange] | None:
    """What the tool's calls changed in the sandbox (calling it once when no suite has yet); None
    without a sandbox or a call to watch."""
    if ctx.sandbox is None:
        return None
    ctx.samples(1)
    return ctx.sandbox.changes() if ctx.sandbox.watched else None


def _state_probe_verdict(ctx: ToolContext, state_probe: StateProbe) -> Verdict:
    tolerance = ctx.config.thresholds.float_tolerance
    # Two readings before the call show whether the probe itself is stable enough to compare.
    before = [ctx.call(state_probe.tool, state_probe.args) for _ in range(2)]
    if any(reading.failed for reading in before):
        return probe_failed(state_probe, next(r for r in before if r.failed), "")
    baseline = [normalized_output(reading) for reading in before]
    if not all_equal(baseline, tolerance):
        return verdict(
            Status.INDETERMINATE,
            f"state probe {state_probe.tool!r} is not stable on its own; choose a probe "
            "whose output changes only when state changes",
        )
    call = ctx.call(ctx.name, ctx.arguments)
    if ctx.hung:
        return ctx.tool_hung()
    after = ctx.call(state_probe.tool, state_probe.args)
    if after.failed:
        return probe_failed(state_probe, after, " after the call")
    if all_equal([baseline[0], normalized_output(after)], tolerance):
        note = " (the call itself failed)" if call.failed else ""
        return verdict(Status.PASS, f"state probe {state_probe.tool!r} unchanged{note}")
    return verdict(Status.FAIL, f"state probe {state_probe.tool!r} changed after one call", STATE_DELTA.code)
