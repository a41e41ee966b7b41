"""The audit sandbox: a fresh HOME, TMPDIR and XDG directories per audit, shared by every process of the
audited server, a record of what tool calls wrote there, and the end of processes that detached.

A server started by hookconf sees the sandbox's directories instead of the auditor's, so what it writes
(caches, browser profiles, scratch files) is evidence of side effects rather than litter in the real home.
The process that spawns servers becomes a child subreaper (Linux), so a grandchild that detaches (double
fork, setsid) is reparented to it instead of to init; whatever carries the sandbox in its environment is
ended when the sandbox closes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from hookconf.wire.process import terminate

if TYPE_CHECKING:
    import psutil

    from hookconf.config import AuditConfig, ServerConfig

# Each variable and its directory inside the sandbox; the XDG base directories sit where the XDG
# specification puts them by default, so a server that ignores the variables lands there too.
SANDBOX_DIRECTORIES = {
    "HOME": "home",
    "TMPDIR": "tmp",
    "XDG_CONFIG_HOME": "home/.config",
    "XDG_CACHE_HOME": "home/.cache",
    "XDG_DATA_HOME": "home/.local/share",
    "XDG_STATE_HOME": "home/.local/state",
    "XDG_RUNTIME_DIR": "run",
}
# The trees a snapshot reads and the name each is shown with.
WATCHED_TREES = {"home": "~", "tmp": "$TMPDIR", "run": "$XDG_RUNTIME_DIR"}
PR_SET_CHILD_SUBREAPER = 36
# A tool that fills a browser profile may create thousands of files; the report lists this many.
LISTED_CHANGES = 50

NPM_CACHE_VARIABLES = ("npm_config_cache", "NPM_CONFIG_CACHE")  # npm reads both spellings

ChangeKind = Literal["created", "changed", "removed"]


@dataclass(frozen=True)
class FileState:
    size: int | None  # None for a directory
    mtime_ns: int


Snapshot = dict[str, FileState]


@dataclass(frozen=True)
class FileChange:
    path: str  # as the server sees it: ~/..., $TMPDIR/...
    change: ChangeKind
    size: int | None  # bytes after the change; None for a directory or a removed path


def package_caches() -> dict[str, str]:
    """The auditor's npm and uv download caches: a server started through npx or uvx installs its
    package at start-up, and installing is not what is audited, so it reuses what was downloaded."""
    home = Path.home()
    npm = next((os.environ[name] for name in NPM_CACHE_VARIABLES if os.environ.get(name)), str(home / ".npm"))
    uv = os.environ.get("UV_CACHE_DIR") or str(Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "uv")
    return {"npm_config_cache": npm, "UV_CACHE_DIR": uv}


def become_subreaper() -> bool:
    """Make this process adopt orphaned descendants (Linux only); idempotent. True when it is one."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0


class Sandbox:
    """One audit's directories. Every process of the audited server gets the same ones."""

    def __init__(self, root: Path) -> None:
        self.root = root
        for relative in SANDBOX_DIRECTORIES.values():
            (root / relative).mkdir(parents=True, exist_ok=True)
        (root / SANDBOX_DIRECTORIES["XDG_RUNTIME_DIR"]).chmod(0o700)  # the XDG specification's mode
        self.reaping = become_subreaper()

    def environment(self) -> dict[str, str]:
        return {name: str(self.root / relative) for name, relative in SANDBOX_DIRECTORIES.items()}

    def applied(self, config: AuditConfig) -> AuditConfig:
        """The config with the sandbox under the server's env; a variable the config sets wins."""
        return config.model_copy(update={"server": self.applied_to_server(config.server)})

    def applied_to_server(self, server: ServerConfig) -> ServerConfig:
        return server.model_copy(update={"env": {**self.environment(), **package_caches(), **server.env}})

    def snapshot(self) -> Snapshot:
        """Every file and directory under the watched trees, with size and modification time."""
        found: Snapshot = {}
        for tree, label in WATCHED_TREES.items():
            base = self.root / tree
            for folder, dirs, files in os.walk(base):
                for name in [*dirs, *files]:
                    path = os.path.join(folder, name)
                    with contextlib.suppress(OSError):
                        info = os.lstat(path)
                        shown = label + "/" + printable(os.path.relpath(path, base))
                        size = None if stat.S_ISDIR(info.st_mode) else info.st_size
                        found[shown] = FileState(size, info.st_mtime_ns)
        return found

    def detached_processes(self) -> list[psutil.Process]:
        """Descendants of this process whose environment points into the sandbox: what the audited
        server left behind (a subreaper adopts orphans, so detached ones are found here too)."""
        import psutil

        marker = str(self.root)
        left = []
        for proc in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                values = proc.environ().values()
                if any(value == marker or value.startswith(marker + os.sep) for value in values):
                    left.append(proc)
        return left

    def close(self, keep: bool = False) -> None:
        """End what the server left running, then remove the directories unless `keep`."""
        terminate(self.detached_processes())
        if not keep:
            remove_tree(self.root)


def remove_tree(root: Path) -> None:
    """rmtree that also removes what a server made unreadable or unwritable."""

    def make_writable_and_retry(function: Callable[[str], object], path: str, _: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
            function(path)

    shutil.rmtree(root, onerror=make_writable_and_retry)  # onexc needs Python 3.12
    shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def audit_sandbox(server: ServerConfig, keep: bool = False) -> Iterator[Sandbox | None]:
    """A sandbox for an audit of a server hookconf starts itself; None for a server it only reaches."""
    if not server.command:
        yield None
        return
    sandbox = Sandbox(Path(tempfile.mkdtemp(prefix=f"hookconf-sandbox-{_safe(server.name)}-")))
    try:
        yield sandbox
    finally:
        sandbox.close(keep)


def printable(name: str) -> str:
    """A file name a server chose, safe to print: control characters and undecodable bytes escaped."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40]


def changes_between(before: Snapshot, after: Snapshot) -> list[FileChange]:
    """Created and removed paths, and files whose size or modification time changed (a directory's own
    mtime changes with its entries, which are listed themselves)."""
    found = [FileChange(path, "created", state.size) for path, state in after.items() if path not in before]
    found += [FileChange(path, "removed", None) for path in before if path not in after]
    found += [
        FileChange(path, "changed", state.size)
        for path, state in after.items()
        if path in before and state.size is not None and state != before[path]
    ]
    return sorted(found, key=lambda change: change.path)


@dataclass
class CallWatch:
    """What one tool's own calls changed in the sandbox. A window opens before the tool's first call
    and closes before a call of another tool (a state probe) or when asked, so a probe's writes, and
    the server's start-up writes before the first call, are never the tool's."""

    sandbox: Sandbox
    watched: bool = False  # at least one of the tool's calls was watched
    _opened: Snapshot | None = None
    _changes: dict[str, FileChange] = field(default_factory=dict)

    def before_call(self, own: bool) -> None:
        if not own:
            self._close()
        elif self._opened is None:
            self._opened = self.sandbox.snapshot()
            self.watched = True

    def changes(self) -> list[FileChange]:
        self._close()
        return sorted(self._changes.values(), key=lambda change: change.path)

    def _close(self) -> None:
        if self._opened is None:
            return
        for change in changes_between(self._opened, self.sandbox.snapshot()):
            merged = _merged(self._changes.get(change.path), change)
            if merged is None:
                self._changes.pop(change.path, None)
            else:
                self._changes[change.path] = merged
        self._opened = None


def _merged(earlier: FileChange | None, later: FileChange) -> FileChange | None:
    """One path's change over two windows: created then changed is created, created then removed is
    nothing, removed then created is changed."""
    if earlier is None:
        return later
    if earlier.change == "created":
        return None if later.change == "removed" else FileChange(later.path, "created", later.size)
    if earlier.change == "removed" and later.change == "created":
        return FileChange(later.path, "changed", later.size)
    return later


def describe_changes(changes: list[FileChange], limit: int = 3) -> str:
    """`2 created, 1 changed: ~/.cache/x (120 B), $TMPDIR/y, ... +4 more`."""
    counts = ", ".join(
        f"{sum(c.change == kind for c in changes)} {kind}"
        for kind in ("created", "changed", "removed")
        if any(c.change == kind for c in changes)
    )
    shown = ", ".join(c.path + (f" ({c.size} B)" if c.size is not None else "") for c in changes[:limit])
    more = f" +{len(changes) - limit} more" if len(changes) > limit else ""
    return f"{counts}: {shown}{more}"
