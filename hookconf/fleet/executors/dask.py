"""A dask.distributed cluster (the `dask` extra): a local one of `--jobs` workers, or `--scheduler ADDRESS`.

This module's name is the executor's, not the library's: `distributed` is imported by absolute name, and only
when this executor is made.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import ParamSpec, TypeVar

from hookconf.errors import HookconfError

P = ParamSpec("P")
T = TypeVar("T")


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


def make(jobs: int, address: str | None) -> DaskExecutor:
    return DaskExecutor(address, jobs)
