"""Fan the targets out through a `concurrent.futures.Executor`, commit each outcome as it arrives.

The executor is the one pluggable axis here (`hookconf/fleet/executors/`, one module each): the local process
pool is the default, a dask.distributed client (the `dask` extra) scales out, and anything else shaped like
`concurrent.futures.Executor` whose futures are `concurrent.futures.Future` fits the same loop.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import BrokenExecutor, Executor, Future
from dataclasses import dataclass, field
from pathlib import Path

from hookconf import __version__
from hookconf.fleet.errors import FleetInterruptedError
from hookconf.fleet.manifest import Target
from hookconf.fleet.outcome import Outcome, OutcomeKind, utc_now
from hookconf.fleet.progress import Progress, completed_noting_starts
from hookconf.fleet.store import FleetStore
from hookconf.fleet.worker import audit_in_pool


def default_jobs() -> int:
    """The cores this process may use (the affinity mask, where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


@dataclass
class FleetRun:
    targets: int
    skipped: int
    outcomes: list[Outcome] = field(default_factory=list)
    lost: int = 0  # targets whose worker died; they stay pending for the next run

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]


def pending_targets(targets: Sequence[Target], store: FleetStore, force: bool) -> list[Target]:
    """What to audit, longest first by the last time it ran (new targets first of all): with N at
    once the run then ends on short audits instead of waiting for one long one started last."""
    done = set() if force else store.finished_keys(__version__)
    took = store.durations()
    pending = [t for t in targets if t.key not in done]
    return sorted(pending, key=lambda t: -took.get(t.key, math.inf))


def run_fleet(
    targets: Sequence[Target],
    store: FleetStore,
    executor: Executor,
    cache_dir: Path,
    progress: Progress,
    *,
    force: bool = False,
    keep_workdir: bool = False,
) -> FleetRun:
    pending = pending_targets(targets, store, force)
    run = FleetRun(targets=len(targets), skipped=len(targets) - len(pending))
    progress.start(len(pending), run.skipped)
    try:
        futures = {executor.submit(audit_in_pool, target, str(cache_dir), keep_workdir): target for target in pending}
        started = {future: (target.server, target.version) for future, target in futures.items()}
        for future in completed_noting_starts(started, progress):
            outcome = _outcome_of(future, futures[future])
            if outcome is None:
                run.lost += 1
                continue
            store.add(outcome)
            run.outcomes.append(outcome)
            progress.finished(outcome)
    except KeyboardInterrupt:
        interrupt(executor)
        raise FleetInterruptedError(
            f"interrupted: {len(run.outcomes)} of {len(pending)} audits finished and are stored in {store.path}; "
            "run the same command again to do the rest"
        ) from None
    finally:
        progress.close()
    return run


def _outcome_of(future: Future[Outcome | None], target: Target) -> Outcome | None:
    try:
        return future.result()
    except BrokenExecutor:
        return None
    except Exception as exc:  # the worker catches everything; this is the executor failing to deliver
        return Outcome(
            fleet=target.fleet,
            server=target.server,
            version=target.version,
            source=target.source,
            kind=OutcomeKind.ERROR,
            started_at=utc_now(),
            duration_s=0.0,
            message=f"the executor lost this audit: {type(exc).__name__}: {exc}",
        )


def interrupt(executor: Executor) -> None:
    """The executor's own `interrupt()` (the local pool stops its running audits), else a shutdown that
    cancels the queued ones."""
    stop = getattr(executor, "interrupt", None)
    if callable(stop):
        stop()
    else:
        executor.shutdown(wait=False, cancel_futures=True)
