"""The audit's clock: a time budget checked between units of work, and the wall time per phase.

The budget is checked before each tool's hook suites and before each compliance check, never during one:
a call in flight always gets its full timeoutMs. A budget that cut a call short would turn the cut into a
timeout, and a timeout is a verdict (LAT-001, CALL-002, a hung server) about the server; a budget may only
leave work undone, reported as skipped. So an audit can end past its budget by the length of one tool's
suites or one compliance check.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

BUDGET_SKIP = "budget exhausted"
# A fleet audits servers nobody tuned a config for: without a budget a server whose every call hangs costs
# timeoutMs per call. `budgetS` in [fleet.config] or [servers.config] changes it; 0 turns it off.
FLEET_BUDGET_S = 120.0


def elapsed_ms(since: float) -> float:
    return round((time.monotonic() - since) * 1000, 1)


@dataclass
class AuditClock:
    """When the audit started (monotonic seconds), its budget (None: none) and what the budget cut."""

    started: float = field(default_factory=time.monotonic)
    budget_s: float | None = None
    cut_tools: list[str] = field(default_factory=list)
    cut_checks: list[str] = field(default_factory=list)

    @property
    def exhausted(self) -> bool:
        return self.budget_s is not None and time.monotonic() - self.started >= self.budget_s

    @property
    def spent(self) -> bool:
        """Whether the budget ran out and cut something."""
        return bool(self.cut_tools or self.cut_checks)

    def skip_reason(self) -> str:
        assert self.budget_s is not None
        return (
            f"{BUDGET_SKIP}: the audit's {self.budget_s:g} s time budget (--budget, budgetS) ran out "
            f"after {time.monotonic() - self.started:.1f} s"
        )
