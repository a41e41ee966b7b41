"""The audited server's process as a context: spawned on entry, stopped on the way out whatever happens."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hookconf.wire.process import ServerProcess, start_server

if TYPE_CHECKING:
    from hookconf.config import ServerConfig


@contextmanager
def spawned_server(server: ServerConfig) -> Iterator[ServerProcess | None]:
    """The configured server started now (None for an HTTP server hookconf does not start), so that it boots while
    the audit stack loads. Its stop on exit is a no-op once the audit has stopped it."""
    process = start_server(server)
    try:
        yield process
    finally:
        if process is not None:
            process.stop()
