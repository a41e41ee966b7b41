"""What a suite sees of one tool: its definition, its arguments and a shared cache of calls."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hookconf.checks.call_errors import (
    Undecidable,
    backend_failure,
    error_message,
    failure_signature,
    undecidable,
)
from hookconf.checks.registry import TOOL_HUNG, verdict
from hookconf.config import AuditConfig, Probe
from hookconf.session import CallOutcome, McpSession
from hookconf.verdicts import Status, Verdict
from hookconf.wire.sandbox import CallWatch
from hookconf.wire.transport import JsonObject


def tool_annotations(tool: JsonObject) -> dict[str, Any]:
    annotations = tool.get("annotations")
    return annotations if isinstance(annotations, dict) else {}


def is_read_only(tool: JsonObject) -> bool:
    return tool_annotations(tool).get("readOnlyHint") is True


def skip_reason(tool: JsonObject) -> str | None:
    """Why the calling suites leave a tool alone unless allowDestructive names it; None for a read-only tool.

    Only readOnlyHint: true says a call changes nothing: destructiveHint: false says no more than that a
    write is additive (create a record, make a directory), and a probe must never change what it measures.
    """
    if is_read_only(tool):
        return None
    if declares_destructive(tool):
        return "not called: annotated destructiveHint: true; allowDestructive opts it in"
    return (
        "not called: not annotated readOnlyHint: true (it may write; destructiveHint: false only says it "
        "does not destroy); allowDestructive opts it in"
    )


def declares_destructive(tool: JsonObject) -> bool:
    """The server says so itself: destructiveHint: true on a tool not annotated read-only."""
    return not is_read_only(tool) and tool_annotations(tool).get("destructiveHint") is True


def missing_annotations(tool: JsonObject) -> list[str]:
    """The hints whose absence leaves the tool on the spec's worst-case default (destructiveHint: true)."""
    annotations = tool_annotations(tool)
    if is_read_only(tool) or isinstance(annotations.get("destructiveHint"), bool):
        return []
    return [hint for hint in ("readOnlyHint", "destructiveHint") if not isinstance(annotations.get(hint), bool)]


REPEATED_FAILURE_CALLS = 2
# A backend out of reach that takes this long to fail (a stalling resolver, the server's own retries) would
# cost as long on every further call, and none of them could show the tool's behaviour in this audit.
SLOW_BACKEND_FAILURE_MS = 1000.0
COMPARED_CALLS = 2  # idempotency and determinism compare calls: one alone shows neither


def series_cap_note(durations_ms: Sequence[float], cap_ms: float | None) -> str | None:
    """Why the series stops before its next call, or None to make it: at the pace of its slowest call so far,
    the next would take the series' total call time past `cap_ms` (None: no cap). The first call is always made."""
    if cap_ms is None or not durations_ms:
        return None
    total, slowest = sum(durations_ms), max(durations_ms)
    if total + slowest <= cap_ms:
        return None
    took = (
        f"it took {total / 1000:.1f} s"
        if len(durations_ms) == 1
        else f"they took {total / 1000:.1f} s, the slowest {slowest / 1000:.1f} s"
    )
    calls = "1 call" if len(durations_ms) == 1 else f"{len(durations_ms)} calls"
    return f"the series stopped after {calls}: {took}, and another would pass thresholds.seriesTimeMs ({cap_ms:g} ms)"


@dataclass
class ToolContext:
    """Suites share the repeated calls: idempotency, determinism and latency read one series."""

    tool: JsonObject
    arguments: JsonObject
    config: AuditConfig
    session: McpSession
    probe: Probe | None
    _samples: list[CallOutcome] = field(default_factory=list)
    hung: bool = False
    server_stuck: bool = False  # shared verdict: after a hang, the server answered no ping either
    own_calls: int = 0  # calls of this tool made by its suites (not as another tool's state probe)
    sandbox: CallWatch | None = None  # what this tool's calls wrote into the audit's sandbox
    # Every tool that hung in this audit, as its own or as another tool's state probe: shared by the tools'
    # contexts, so that none is called again by any suite.
    hung_tools: set[str] = field(default_factory=set)
    # Each failure naming a backend out of reach that stopped a tool's series, masked (failure_signature), with that
    # tool: shared like hung_tools, so that a later tool failing the same way stops after one call.
    dead_backends: dict[str, str] = field(default_factory=dict)
    stop_note: str | None = None  # why the series stopped short: its first two calls failed the same way
    cap_note: str | None = None  # why the series stopped short: another call would pass thresholds.seriesTimeMs

    @property
    def name(self) -> str:
        return str(self.tool.get("name"))

    @property
    def is_read_only(self) -> bool:
        return is_read_only(self.tool)

    @property
    def series(self) -> list[CallOutcome]:
        """The calls made so far with the probe's arguments."""
        return list(self._samples)

    def samples(self, count: int, decided: Callable[[list[CallOutcome]], bool] | None = None) -> list[CallOutcome]:
        """The first `count` calls with the probe's arguments, made on first demand and kept.

        The series stops short when more calls cannot change a verdict: when its first two calls failed
        with the same error (every suite is indeterminate then), after one call that was slow to fail on a
        backend out of reach or that failed as an earlier tool's calls did on theirs, or when `decided` says the
        caller's verdict already is. It also stops before a call that would take it past thresholds.seriesTimeMs
        (`cap_note` says so), so that a slow tool costs the audit about one cap, not six of its calls."""
        while len(self._samples) < count and not self.hung and self.stopped is None:
            if decided is not None and decided(self._samples):
                break
            self.cap_note = series_cap_note(
                [s.duration_ms for s in self._samples], self.config.thresholds.series_cap_ms
            )
            if self.cap_note is not None:
                break
            self._samples.append(self.call(self.name, self.arguments))
            self.stop_note = self._slow_backend_failure() or self._known_dead_backend() or self._repeated_failure()
            if self.stop_note is not None:
                self._note_dead_backend()
        return self._samples[:count]

    @property
    def stopped(self) -> str | None:
        """Why the series stopped short of what a suite asked for, or None."""
        return self.stop_note or self.cap_note

    def shortfall(self, samples: Sequence[CallOutcome], asked: int) -> str:
        """ "; " and why the series stopped, when `samples` are fewer than the `asked` calls; else ""."""
        return f"; {self.stopped}" if len(samples) < asked and self.stopped is not None else ""

    def _slow_backend_failure(self) -> str | None:
        if len(self._samples) != 1:
            return None
        first = self._samples[0]
        if first.duration_ms < SLOW_BACKEND_FAILURE_MS or backend_failure([first], self.arguments) is None:
            return None
        return (
            f"the series stopped after 1 call: it failed after {first.duration_ms / 1000:.1f} s on a backend "
            "out of reach, and every further call would wait as long for the same failure"
        )

    def _known_dead_backend(self) -> str | None:
        if len(self._samples) != 1 or backend_failure(self._samples, self.arguments) is None:
            return None
        other = self.dead_backends.get(self._failure_key() or "")
        if other is None:
            return None
        return (
            f"the series stopped after 1 call: it failed on a backend out of reach with the error that stopped "
            f"{other}'s calls, and more calls of it cannot show the tool's behaviour"
        )

    def _note_dead_backend(self) -> None:
        key = self._failure_key()
        if key is not None and backend_failure(self._samples[:1], self.arguments) is not None:
            self.dead_backends.setdefault(key, self.name)

    def _failure_key(self) -> str | None:
        """The first call's failure signature with the tool's own name masked: SDKs put it in the message
        ("Error executing tool NAME: ..."), and two tools of one unreachable API fail alike apart from it."""
        signature = failure_signature(self._samples[0], self.arguments)
        return re.sub(rf"\b{re.escape(self.name)}\b", "<tool>", signature) if signature is not None else None

    def _repeated_failure(self) -> str | None:
        if len(self._samples) != REPEATED_FAILURE_CALLS:
            return None
        first, second = (failure_signature(sample, self.arguments) for sample in self._samples)
        if first is None or first != second:
            return None
        return (
            f"the series stopped after {REPEATED_FAILURE_CALLS} calls: both failed with the same error, "
            "and more calls of it cannot show the tool's behaviour"
        )

    def uncompared(self, samples: Sequence[CallOutcome]) -> str | None:
        """Why the suites that compare calls cannot judge: the series stopped before a second call; else None."""
        if len(samples) >= COMPARED_CALLS or self.stopped is None:
            return None
        return f"one call alone cannot show whether identical calls agree; {self.stopped}"

    def unjudged(self, samples: Sequence[CallOutcome], calls: str) -> Undecidable | None:
        """Why the samples cannot show the tool's behaviour (see `undecidable`), saying where the series stopped."""
        found = undecidable(samples, self.arguments, calls)
        if found is None or self.stopped is None:
            return found
        return replace(found, reason=f"{found.reason}; {self.stopped}")

    def tool_hung(self) -> Verdict:
        """A suite's verdict on a tool that hung (CALL-002): it is not called again."""
        return verdict(Status.INDETERMINATE, TOOL_HUNG.title, TOOL_HUNG.code)

    def undecided(self, samples: Sequence[CallOutcome], calls: str = "calls", compares: bool = True) -> Verdict | None:
        """The verdict every suite that judges samples of the series gives before judging them, when they cannot
        show the tool's behaviour: the tool hung, the calls show nothing (see `unjudged`; `calls` names them in
        the verdict) or, for a suite that `compares` calls, one call alone; None when the suite can judge."""
        if self.hung:
            return self.tool_hung()
        if (unjudged := self.unjudged(samples, calls)) is not None:
            return verdict(Status.INDETERMINATE, unjudged.reason, unjudged.code)
        if compares and (uncompared := self.uncompared(samples)) is not None:
            return verdict(Status.INDETERMINATE, uncompared)
        return None

    def compared_series(self, compare: Callable[[ToolContext, list[CallOutcome]], Verdict]) -> Verdict:
        """The verdict of a suite that compares config.tries identical calls: `undecided`'s when there is one,
        else `compare`'s over the calls, saying where the series stopped short of them."""
        samples = self.samples(self.config.tries)
        if (open_verdict := self.undecided(samples)) is not None:
            return open_verdict
        compared = compare(self, samples)
        return replace(compared, details=compared.details + self.shortfall(samples, self.config.tries))

    @property
    def out_of_service(self) -> str | None:
        """How this tool's calls failed, when its suites showed that none can work in this audit: every call of
        its series failed, naming a backend out of reach or the same error twice; else None."""
        series = self._samples
        if not series or not all(failure_signature(s, self.arguments) is not None for s in series):
            return None
        backend = backend_failure(series, self.arguments)
        if backend is not None:
            return backend
        if self.stop_note is None:
            return None
        return series[0].describe_failure() if series[0].failed else error_message(series[0], self.arguments)

    def call(self, name: str, arguments: JsonObject) -> CallOutcome:
        """One call; a timeout marks the tool as hung so that it is not called again."""
        if self.hung or self.server_stuck or name in self.hung_tools:
            return CallOutcome(duration_ms=0.0, timed_out=True)
        if self.sandbox is not None:
            self.sandbox.before_call(own=name == self.name)
        outcome = self.session.call_tool(name, arguments)
        if name == self.name:
            self.own_calls += 1
        if outcome.timed_out:
            self.hung = name == self.name
            self.hung_tools.add(name)
            self.server_stuck = not self.session.responsive()
        return outcome
