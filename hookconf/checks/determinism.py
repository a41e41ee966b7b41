"""determinism: the response shape is stable and numbers do not drift between calls."""

from __future__ import annotations

from hookconf.checks.context import ToolContext
from hookconf.checks.normalize import all_equal, canonical, differs_only_in_floats, normalized_output, shape
from hookconf.checks.registry import (
    Finding,
    hook_suite,
    register_finding,
    verdict,
)
from hookconf.session import CallOutcome
from hookconf.verdicts import Status, Verdict

SUITE = "determinism"

FLOAT_DRIFT = register_finding(
    Finding(
        code="DET-001",
        suite=SUITE,
        severity=Status.FAIL,
        title="Floating-point output drift between calls",
        explanation="Identical calls returned numbers that differ by more than "
        "thresholds.floatTolerance (relative or absolute) while everything else matched. Such drift "
        "usually comes from unordered summation, sampling or a clock in the computation.",
        remediation="Round the numbers to the precision that matters, sum in a fixed order, or raise "
        "thresholds.floatTolerance if the drift is expected.",
    )
)
SHAPE_DRIFT = register_finding(
    Finding(
        code="DET-002",
        suite=SUITE,
        severity=Status.WARN,
        title="Response shape varies between calls",
        explanation="Identical calls returned output of different structure (keys, types or array "
        "element kinds). A hook's consumer that parses the output then breaks on some calls.",
        remediation="Return the same keys every time; use null or an empty list instead of leaving a field out.",
    )
)


@hook_suite(SUITE, weight=15, summary="Response shape stable across calls; no float drift.")
def check_determinism(ctx: ToolContext) -> Verdict:
    return ctx.compared_series(compared)


def compared(ctx: ToolContext, samples: list[CallOutcome]) -> Verdict:
    """The verdict over two or more calls."""
    outputs = [normalized_output(sample) for sample in samples]
    shapes = {canonical(shape(output)) for output in outputs}
    if len(shapes) > 1:
        return verdict(
            Status.WARN,
            f"{len(shapes)} different response shapes over {len(samples)} calls",
            SHAPE_DRIFT.code,
        )
    tolerance = ctx.config.thresholds.float_tolerance
    if not all_equal(outputs, tolerance) and differs_only_in_floats(outputs):
        return verdict(
            Status.FAIL,
            f"numbers drift beyond tolerance {tolerance:g} over {len(samples)} calls",
            FLOAT_DRIFT.code,
        )
    return verdict(Status.PASS, f"one shape over {len(samples)} calls, no float drift")
