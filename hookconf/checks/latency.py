"""latency: one warm-up call, then five timed samples, against the p50 and p95 budgets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hookconf.checks.backend import sandbox_note
from hookconf.checks.call_errors import backend_failure, failure_signature
from hookconf.checks.context import ToolContext
from hookconf.checks.registry import (
    BACKEND_UNREACHABLE,
    Finding,
    hook_suite,
    register_finding,
    verdict,
)
from hookconf.session import CallOutcome
from hookconf.verdicts import LatencyFigures, Status, Verdict

SUITE = "latency"
WARMUP_CALLS = 1
TIMED_SAMPLES = 5

OVER_P95 = register_finding(
    Finding(
        code="LAT-001",
        suite=SUITE,
        severity=Status.FAIL,
        title="Tool exceeded p95 latency budget",
        explanation="The 95th percentile of five timed calls (after one warm-up) was above "
        "thresholds.latencyP95Ms, or a call did not answer at all. A series cut short by "
        "thresholds.seriesTimeMs is judged over the timed calls it made, or over the warm-up alone. A hook "
        "blocks the agent while it runs; a slow tail stalls every turn that triggers it.",
        remediation="Make the tool answer within the budget (cache, paginate, move slow work out of "
        "the hook path), or raise thresholds.latencyP95Ms if the budget is too strict for this hook.",
    )
)
OVER_P50 = register_finding(
    Finding(
        code="LAT-002",
        suite=SUITE,
        severity=Status.WARN,
        title="Tool p50 latency above 30 seconds",
        explanation="The median of five timed calls (fewer when thresholds.seriesTimeMs cut the series) was "
        "above thresholds.latencyP50Ms (30 s unless configured). Latency is the end-to-end round trip, "
        "JSON-RPC framing included.",
        remediation="Reduce the typical cost of the call, or raise thresholds.latencyP50Ms.",
    )
)


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest sample with at least `fraction` of samples at or below."""
    ordered = sorted(values)
    rank = max(1, -(-int(fraction * 100) * len(ordered) // 100))
    return ordered[rank - 1]


def hung_verdict(ctx: ToolContext) -> Verdict:
    """A call without an answer fails the budget, unless the tool's answered calls name a backend out of
    reach: then the wait is the sandbox's (a resolver that stalls before it fails), not the tool's."""
    no_answer = f"a call got no answer within timeoutMs ({ctx.config.timeout_ms} ms)"
    backend = backend_failure(ctx.series, ctx.arguments)
    if backend is not None:
        return verdict(Status.INDETERMINATE, f"{no_answer}, and {sandbox_note(backend)}", BACKEND_UNREACHABLE.code)
    return verdict(Status.FAIL, f"{no_answer}; the tool is not called again", OVER_P95.code)


def over_p95_budget(ctx: ToolContext) -> Callable[[list[CallOutcome]], bool]:
    """Whether the calls so far decide LAT-001 already: the nearest-rank p95 of TIMED_SAMPLES samples is their
    maximum (for fewer than 20), so one timed call that answered over the budget fails it whatever the others
    take. A failed call does not decide it: a series of failures is no measure of the tool."""
    budget = ctx.config.thresholds.latency_p95_ms
    return lambda series: any(
        sample.duration_ms > budget and failure_signature(sample, ctx.arguments) is None
        for sample in series[WARMUP_CALLS:]
    )


@hook_suite(SUITE, weight=20, summary="p50 and p95 of 5 samples after 1 warm-up call, against the budgets.")
def check_latency(ctx: ToolContext) -> Verdict:
    series = ctx.samples(WARMUP_CALLS + TIMED_SAMPLES, decided=over_p95_budget(ctx))
    if ctx.hung:
        return hung_verdict(ctx)
    samples = series[WARMUP_CALLS:] or series[:WARMUP_CALLS]  # a series cut after its warm-up: that call alone
    if (undecided := ctx.undecided(samples, "timed calls", compares=False)) is not None:
        return undecided
    durations = [sample.duration_ms for sample in samples]
    p50, p95 = percentile(durations, 0.50), percentile(durations, 0.95)
    measured = LatencyFigures(
        p50_ms=round(p50, 1), p95_ms=round(p95, 1), samples=len(durations), warmup_only=len(series) <= WARMUP_CALLS
    )  # as the details quote them
    return replace(budget_verdict(ctx, series, durations, p50, p95), latency=measured)


def budget_verdict(
    ctx: ToolContext, series: list[CallOutcome], durations: list[float], p50: float, p95: float
) -> Verdict:
    """The timed calls' p50 and p95 (unrounded: the budgets judge the figures as measured) against the budgets."""
    budget = ctx.config.thresholds
    figures = f"p50 {p50:.1f} ms, p95 {p95:.1f} ms over {_basis(len(series), len(durations))}"
    cut = ctx.shortfall(series, WARMUP_CALLS + TIMED_SAMPLES)
    if p95 > budget.latency_p95_ms and len(series) > WARMUP_CALLS and len(durations) < TIMED_SAMPLES and not cut:
        return verdict(
            Status.FAIL,
            f"p95 {p95:.1f} ms over {len(durations)} of {TIMED_SAMPLES} samples; budget p95 "
            f"{budget.latency_p95_ms:g} ms (the p95 of {TIMED_SAMPLES} samples is their maximum, so the "
            "rest were not taken)",
            OVER_P95.code,
        )
    if p95 > budget.latency_p95_ms:
        return verdict(Status.FAIL, f"{figures}; budget p95 {budget.latency_p95_ms:g} ms{cut}", OVER_P95.code)
    if p50 > budget.latency_p50_ms:
        return verdict(Status.WARN, f"{figures}; budget p50 {budget.latency_p50_ms:g} ms{cut}", OVER_P50.code)
    return verdict(Status.PASS, f"{figures}{cut}")


def _basis(calls: int, samples: int) -> str:
    """What the figures rest on: the timed samples, or the warm-up call when the series stopped after it."""
    if calls <= WARMUP_CALLS:
        return "the warm-up call alone (no timed call was made; a warm-up is the cold, usually the slowest call)"
    if samples < TIMED_SAMPLES:
        return f"{samples} of {TIMED_SAMPLES} samples"
    return f"{samples} samples"
