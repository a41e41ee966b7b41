"""Fan the targets out through a `concurrent.futures.Executor`, commit each outcome as it arrives.

The executor is the one pluggable axis here: the local process pool is the default, a
dask.distributed client (the `dask` extra) scales out, and anything else shaped like
`concurrent.futures.Executor` whose futures are `concurrent.futures.Future` fits the same loop.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import ParamSpec, TypeVar

from hookconf import __version__
from hookconf.errors import HookconfError
from hookconf.fleet.errors import FleetInterruptedError
from hookconf.fleet.manifest import Target
from hookconf.fleet.outcome import Outcome, OutcomeKind, utc_now
from hookconf.fleet.progress import Progress, completed_noting_starts
from hookconf.fleet.store import FleetStore
from hookconf.fleet.worker import audit_in_pool, prepare_worker

P = ParamSpec("P")
T = TypeVar("T")


class ExecutorKind(StrEnum):
    LOCAL = "local"
    DASK = "dask"


def default_jobs() -> int:
    """The cores this process may use (the affinity mask, where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class LocalExecutor(ProcessPoolExecutor):
    """One fresh process per audit. A fork server forks each from a parent that has already
    imported the audit stack, so a new process costs a fork, not another interpreter start-up."""

    def __init__(self, jobs: int) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if "forkserver" in methods:
            context.set_forkserver_preload(["hookconf.fleet.worker"])
        self._stop = context.Event()
        super().__init__(
            max_workers=jobs,
            mp_context=context,
            max_tasks_per_child=1,
            initializer=prepare_worker,
            initargs=(self._stop,),
        )

    def interrupt(self) -> None:
        """Stop the running audits (each worker stops its server), drop the rest, wait for the pool."""
        self._stop.set()
        for child in multiprocessing.active_children():
            if child.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGTERM)
        self.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """A dask.distributed `Client` behind the `concurrent.futures.Executor` interface."""

    def __init__(self, address: str | None, jobs: int) -> None:
        try:
            distributed = importlib.import_module("distributed")
        except ImportError:
            raise HookconfError(
                "--executor dask needs the dask extra: python -m pip install 'hookconf[dask]'"
            ) from None
        # One thread per worker process: a worker runs one audit at a time, as the local pool does.
        self._client = (
            distributed.Client(address)
            if address
            else distributed.Client(n_workers=jobs, threads_per_worker=1, processes=True)
        )
        self._executor: Executor = self._client.get_executor(pure=False)

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._executor.shutdown(wait=wait)
        self._client.close()


def make_executor(kind: ExecutorKind, jobs: int, address: str | None = None) -> Executor:
    if kind is ExecutorKind.DASK:
        return DaskExecutor(address, jobs)
    return LocalExecutor(jobs)


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
    if isinstance(executor, LocalExecutor):
        executor.interrupt()
    else:
        executor.shutdown(wait=False, cancel_futures=True)
