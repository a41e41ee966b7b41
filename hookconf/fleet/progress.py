"""Progress of a fleet run: a live status line on a terminal, a line per audit started and finished elsewhere.

An audit counts as started when its executor runs it: a process pool's future is running once it is handed to
a worker process (that pool queues one call ahead of its workers, so one of those shown may still wait).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, TextIO

from hookconf.fleet.outcome import Outcome
from hookconf.safe_text import safe_text

REPAINT_INTERVAL_S = 1.0
MESSAGE_WIDTH = 240
START_POLL_S = 0.2  # how soon a started audit shows
RUNNING_WIDTH = 120


def target_label(server: str, version: str) -> str:
    return safe_text(f"{server} {version}")


class Progress:
    """Counts started and finished audits; subclasses decide how to show them."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = 0
        self.done = 0
        self.failures = 0
        self.started = time.monotonic()
        self.running: dict[str, float] = {}  # the audits under way, by target label, with when they started

    def start(self, total: int, skipped: int) -> None:
        self.total, self.started = total, time.monotonic()
        if skipped:
            self.stream.write(
                f"{skipped} target(s) already stored for this hookconf version: skipped (--force audits them again)\n"
            )
        self.stream.write(f"auditing {total} target(s)\n")
        self.stream.flush()

    def audit_started(self, label: str) -> None:
        self.running.setdefault(label, time.monotonic())

    def finished(self, outcome: Outcome) -> None:
        self.running.pop(target_label(outcome.server, outcome.version), None)
        self.done += 1
        self.failures += 0 if outcome.ok else 1

    def running_text(self) -> str:
        now = time.monotonic()
        text = ", ".join(f"{label} ({clock(now - since)})" for label, since in self.running.items())
        return text if len(text) <= RUNNING_WIDTH else text[: RUNNING_WIDTH - 3] + "..."

    def close(self) -> None:
        """Called once at the end, also after an interrupt."""

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def eta(self) -> str:
        if not self.done:
            return "--:--"
        return clock(self.elapsed_s / self.done * (self.total - self.done))

    def line(self, outcome: Outcome) -> str:
        return f"[{self.done}/{self.total}] {outcome.server} {outcome.version}: {describe(outcome)}"


class LineProgress(Progress):
    """For logs and CI: one line per started and per finished audit."""

    def audit_started(self, label: str) -> None:
        if label in self.running:
            return
        super().audit_started(label)
        self.stream.write(f"started {label} ({len(self.running)} running)\n")
        self.stream.flush()

    def finished(self, outcome: Outcome) -> None:
        super().finished(outcome)
        self.stream.write(self.line(outcome) + "\n")
        self.stream.flush()


class LiveProgress(Progress):
    """For a terminal: a status line redrawn every second; failures stay on screen above it."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._repaint, name="hookconf-progress", daemon=True)

    def start(self, total: int, skipped: int) -> None:
        super().start(total, skipped)
        self._paint()
        self._thread.start()

    def audit_started(self, label: str) -> None:
        with self._lock:
            super().audit_started(label)
            self._paint()

    def finished(self, outcome: Outcome) -> None:
        with self._lock:
            super().finished(outcome)
            if not outcome.ok:
                self._write_above(self.line(outcome))
            self._paint()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        with self._lock:
            self._paint()
            self.stream.write("\n")
            self.stream.flush()

    def _repaint(self) -> None:
        while not self._stop.wait(REPAINT_INTERVAL_S):
            with self._lock:
                self._paint()

    def _paint(self) -> None:
        self.stream.write(f"\r\x1b[K{self.status()}")
        self.stream.flush()

    def _write_above(self, text: str) -> None:
        self.stream.write(f"\r\x1b[K{text}\n")

    def status(self) -> str:
        running = f"; running {self.running_text()}" if self.running else ""
        return (
            f"{self.done}/{self.total} done, {self.failures} failed, {clock(self.elapsed_s)} elapsed, ETA {self.eta()}"
            + running
        )


def make_progress(stream: TextIO) -> Progress:
    return LiveProgress(stream) if stream.isatty() else LineProgress(stream)


def completed_noting_starts(
    futures: Mapping[Future[Any], tuple[str, str]], progress: Progress
) -> Iterator[Future[Any]]:
    """The futures as they complete (as `concurrent.futures.as_completed`), telling `progress` of each one's
    start (server, version) as the executor runs it; one done before it was seen running started all the same."""
    pending = set(futures)
    while pending:
        for future in pending:
            if future.running():
                progress.audit_started(target_label(*futures[future]))
        done, pending = wait(pending, timeout=START_POLL_S, return_when=FIRST_COMPLETED)
        for future in done:
            progress.audit_started(target_label(*futures[future]))
            yield future


def describe(outcome: Outcome) -> str:
    took = f"in {outcome.duration_s:.1f} s"
    if outcome.ok and outcome.report_json:
        score = json.loads(outcome.report_json).get("score")
        return f"score {score if score is not None else 'n/a'} {took}"
    message = safe_text(" ".join((outcome.message or "no message").split()))
    if len(message) > MESSAGE_WIDTH:
        message = message[: MESSAGE_WIDTH - 3] + "..."
    return f"{outcome.kind} {took}: {message}"


def clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
