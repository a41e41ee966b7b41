"""`hookconf check --watch`: audit again whenever a file under a folder changes, and say what changed since the
last audit. For the loop of a server's author: edit, save, read the verdicts that moved."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hookconf.errors import HookconfError

if TYPE_CHECKING:
    from hookconf.report.model import Report

# Folders whose changes are not the server's source: dependencies, builds, caches, version control.
IGNORED_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".nox",
        ".tox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "dist",
        "build",
        "coverage",
        ".hookconf-cache",
    }
)
IGNORED_SUFFIXES = (".log", ".swp", ".swx", ".tmp", "~", ".pyc")
POLL_S = 0.5
QUIET_S = 0.5  # a burst of saves is one change: wait until nothing has changed for this long
MAX_FILES = 50_000  # beyond this many files the snapshot stops growing: watch a narrower folder

Snapshot = dict[str, tuple[int, int]]  # relative path: (mtime_ns, size)


def snapshot(root: Path) -> Snapshot:
    """The files under `root` that count as source, with their modification time and size."""
    found: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in IGNORED_FOLDERS]
        for name in files:
            if name.endswith(IGNORED_SUFFIXES):
                continue
            path = os.path.join(folder, name)
            try:
                info = os.stat(path)
            except OSError:
                continue
            found[os.path.relpath(path, root)] = (info.st_mtime_ns, info.st_size)
            if len(found) >= MAX_FILES:
                return found
    return found


def changed_files(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


@dataclass
class Watcher:
    """Runs `audit` once, then again after each change under `root`; `show` prints. `runs` bounds the loop (None:
    until interrupted)."""

    root: Path
    audit: Callable[[], Report]
    show: Callable[[str], None]
    render: Callable[[Report], str]
    runs: int | None = None
    poll_s: float = POLL_S
    quiet_s: float = QUIET_S

    def run(self) -> None:
        previous: Report | None = None
        done = 0
        while self.runs is None or done < self.runs:
            seen = snapshot(self.root)
            try:
                report = self.audit()
            except HookconfError as exc:  # a server that does not start yet is part of the loop, not its end
                self.show(f"hookconf: {exc}")
            else:
                self.show(self.render(report) if previous is None else self._changes(previous, report))
                previous = report
            done += 1
            if self.runs is not None and done >= self.runs:
                return
            files = self._wait_for_change(seen)
            self.show(f"\nchanged: {', '.join(files[:5])}{' ...' if len(files) > 5 else ''}; auditing again")

    def _wait_for_change(self, seen: Snapshot) -> list[str]:
        while not changed_files(seen, current := snapshot(self.root)):
            time.sleep(self.poll_s)
        while True:  # until the burst of saves is over
            time.sleep(self.quiet_s)
            settled = snapshot(self.root)
            if settled == current:
                return changed_files(seen, settled)
            current = settled

    def _changes(self, before: Report, after: Report) -> str:
        from hookconf.report.diff import diff_reports, render_diff

        try:
            return render_diff(diff_reports(before, after))
        except HookconfError as exc:  # the two graded other protocol revisions: the whole report, then
            return f"{exc}\n{self.render(after)}"
