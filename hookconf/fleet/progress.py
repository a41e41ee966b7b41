"""Progress of a fleet run: a live status line on a terminal, one line per audit elsewhere."""

from __future__ import annotations

import json
import threading
import time
from typing import TextIO

from hookconf.fleet.outcome import Outcome
from hookconf.safe_text import safe_text

REPAINT_INTERVAL_S = 1.0
MESSAGE_WIDTH = 240


class Progress:
    """Counts finished audits; subclasses decide how to show them."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = 0
        self.done = 0
        self.failures = 0
        self.started = time.monotonic()

    def start(self, total: int, skipped: int) -> None:
        self.total, self.started = total, time.monotonic()
        if skipped:
            self.stream.write(
                f"{skipped} target(s) already stored for this hookconf version: skipped (--force audits them again)\n"
            )
        self.stream.write(f"auditing {total} target(s)\n")
        self.stream.flush()

    def finished(self, outcome: Outcome) -> None:
        self.done += 1
        self.failures += 0 if outcome.ok else 1

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
    """For logs and CI: one line per finished audit."""

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
        return (
            f"{self.done}/{self.total} done, {self.failures} failed, {clock(self.elapsed_s)} elapsed, ETA {self.eta()}"
        )


def make_progress(stream: TextIO) -> Progress:
    return LiveProgress(stream) if stream.isatty() else LineProgress(stream)


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
