"""idempotency: the same input N times gives the same output."""

from __future__ import annotations

from hookconf.checks.context import ToolContext
from hookconf.checks.normalize import (
    ISO_TIMESTAMP,
    TIMESTAMP_MASK,
    UUID,
    UUID_MASK,
    all_equal,
    mask,
    normalized_output,
)
from hookconf.checks.registry import (
    Finding,
    hook_suite,
    register_finding,
    verdict,
)
from hookconf.session import CallOutcome
from hookconf.verdicts import Status, Verdict

SUITE = "idempotency"

DIVERGES = register_finding(
    Finding(
        code="IDEMP-001",
        suite=SUITE,
        severity=Status.FAIL,
        title="Tool output diverges across identical calls",
        explanation="The tool was called several times with identical arguments and returned different "
        "output, beyond timestamps and UUIDs. A hook that runs at every Stop or UserPromptSubmit then "
        "feeds the model different context each time for the same state.",
        remediation="Make the output a function of the input and the server state only: sort "
        "collections, drop random values, or move volatile data behind a separate tool.",
    )
)
TIMESTAMPS = register_finding(
    Finding(
        code="IDEMP-002",
        suite=SUITE,
        severity=Status.WARN,
        title="Response contains timestamps without nondeterministic annotation",
        explanation="Repeated identical calls differed only in ISO-8601 timestamps. Harmless for a "
        "human, but a hook's output then never compares equal and defeats caching and deduplication.",
        remediation="Leave the timestamp out of hook-facing output, round it, or document in the tool "
        "description that the output carries the current time.",
    )
)
UUIDS = register_finding(
    Finding(
        code="IDEMP-003",
        suite=SUITE,
        severity=Status.WARN,
        title="Response contains UUID/random IDs without nondeterministic annotation",
        explanation="Repeated identical calls differed only in UUIDs (request ids, trace ids). The "
        "output is stable in substance but never byte-identical.",
        remediation="Derive ids from the input (a hash) or leave per-request ids out of the output.",
    )
)


@hook_suite(SUITE, weight=30, summary="Same input N times produces the same output.")
def check_idempotency(ctx: ToolContext) -> Verdict:
    return ctx.compared_series(compared)


def compared(ctx: ToolContext, samples: list[CallOutcome]) -> Verdict:
    """The verdict over two or more calls."""
    tolerance = ctx.config.thresholds.float_tolerance
    outputs = [normalized_output(sample) for sample in samples]
    calls = f"{len(samples)} identical calls"
    if all_equal(outputs, tolerance):
        return verdict(Status.PASS, f"{calls} returned the same output")
    without_times = [mask(o, ISO_TIMESTAMP, TIMESTAMP_MASK) for o in outputs]
    if all_equal(without_times, tolerance):
        return verdict(Status.WARN, f"{calls} differ only in ISO-8601 timestamps", TIMESTAMPS.code)
    without_uuids = [mask(o, UUID, UUID_MASK) for o in outputs]
    if all_equal(without_uuids, tolerance):
        return verdict(Status.WARN, f"{calls} differ only in UUIDs", UUIDS.code)
    if all_equal([mask(o, UUID, UUID_MASK) for o in without_times], tolerance):
        return verdict(Status.WARN, f"{calls} differ only in timestamps and UUIDs", TIMESTAMPS.code)
    failures = sum(sample.failed for sample in samples)
    extra = f" ({failures} of them failed)" if failures else ""
    return verdict(Status.FAIL, f"{calls} returned different output{extra}", DIVERGES.code)
