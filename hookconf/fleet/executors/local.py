"""The local process pool, the default: one fresh process per audit, `--jobs` at once."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor

from hookconf.fleet.worker import prepare_worker


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


def make(jobs: int, address: str | None) -> LocalExecutor:  # address: only a cluster has one
    return LocalExecutor(jobs)
