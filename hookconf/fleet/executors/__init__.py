"""Where a fleet's audits run: each module of this package is one `--executor NAME` and defines
`make(jobs: int, address: str | None) -> concurrent.futures.Executor` (address: `--scheduler`, or None).

Naming the executors (the parser's choices) imports none of them, so the dask one loads `distributed` only
when it is chosen. An executor that can stop its running audits on Ctrl-C defines `interrupt()`; any other is
shut down without waiting, its queued audits cancelled.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from hookconf.plugins import module_names

if TYPE_CHECKING:
    from concurrent.futures import Executor

DEFAULT = "local"
# The executors that came first keep their place in --executor's choices; a new one follows them, by name.
ORDER = (DEFAULT, "dask")


def executor_names() -> list[str]:
    """Every executor of this package, without importing any."""
    return module_names(__path__, ORDER)


def make_executor(name: str, jobs: int, address: str | None = None) -> Executor:
    if name not in executor_names():
        raise ValueError(f"unknown executor {name!r}; known: {', '.join(executor_names())}")
    make: Callable[[int, str | None], Executor] = importlib.import_module(f"{__name__}.{name}").make
    return make(jobs, address)
