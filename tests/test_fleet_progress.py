"""The fleet's progress shows the audits under way as well as the finished ones, fed by the executor's futures."""

from __future__ import annotations

import io
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from hookconf.fleet.outcome import Outcome, OutcomeKind
from hookconf.fleet.progress import LineProgress, LiveProgress, completed_noting_starts


def outcome(server: str, kind: OutcomeKind = OutcomeKind.AUDITED) -> Outcome:
    return Outcome(
        fleet="f",
        server=server,
        version="1.0",
        source="command",
        kind=kind,
        started_at="2026-12-04T00:00:00Z",
        duration_s=1.0,
        message="setup failed" if kind is not OutcomeKind.AUDITED else None,
        report_json='{"score": 90}' if kind is OutcomeKind.AUDITED else None,
    )


def test_line_progress_writes_a_line_when_an_audit_starts_and_keeps_the_finished_line() -> None:
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.start(2, 0)
    progress.audit_started("one 1.0")
    progress.audit_started("two 1.0")
    progress.audit_started("one 1.0")  # told twice (seen running, then done): one line
    progress.finished(outcome("one"))
    assert stream.getvalue().splitlines() == [
        "auditing 2 target(s)",
        "started one 1.0 (1 running)",
        "started two 1.0 (2 running)",
        "[1/2] one 1.0: score 90 in 1.0 s",
    ]
    assert list(progress.running) == ["two 1.0"]


def test_live_progress_status_names_the_running_audits() -> None:
    progress = LiveProgress(io.StringIO())
    progress.total = 2
    progress.audit_started("one 1.0")
    progress.audit_started("two 1.0")
    assert progress.status().startswith("0/2 done, 0 failed")
    assert "; running one 1.0 (00:00), two 1.0 (00:00)" in progress.status()
    progress.finished(outcome("one", OutcomeKind.SETUP_FAILED))
    assert progress.status().endswith("; running two 1.0 (00:00)")
    progress.finished(outcome("two"))
    assert "running" not in progress.status()


class Recorder(LineProgress):
    def __init__(self, release: threading.Event) -> None:
        super().__init__(io.StringIO())
        self.release = release
        self.seen: list[tuple[str, str, bool]] = []  # (what, label, released yet)

    def audit_started(self, label: str) -> None:
        if label not in self.running:
            self.seen.append(("started", label, self.release.is_set()))
        super().audit_started(label)


def test_an_audit_shows_as_started_while_it_runs_and_each_start_comes_before_its_finish() -> None:
    release = threading.Event()
    progress = Recorder(release)
    with ThreadPoolExecutor(max_workers=1) as executor:
        timer = threading.Timer(1.0, release.set)
        timer.start()
        slow: Future[bool] = executor.submit(release.wait, 10)
        quick: Future[bool] = executor.submit(lambda: True)
        futures: dict[Future[bool], tuple[str, str]] = {slow: ("slow", "1.0"), quick: ("quick", "1.0")}
        for future in completed_noting_starts(futures, progress):
            progress.seen.append(("done", " ".join(futures[future]), release.is_set()))
        timer.join()
    assert progress.seen[0] == ("started", "slow 1.0", False)  # shown while it ran, before it was let go
    for position, (what, label, _) in enumerate(progress.seen):
        if what == "done":
            assert ("started", label) in {(w, name) for w, name, _ in progress.seen[:position]}
    assert sorted(label for what, label, _ in progress.seen if what == "done") == ["quick 1.0", "slow 1.0"]
