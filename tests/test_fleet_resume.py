"""A fleet run interrupted mid-way (Ctrl-C, or killed outright) and run again: nothing lost, nothing twice."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import psutil
import pytest

from tests.support import CliRun

FLEET = Path(__file__).parent / "fleet"
MANIFEST = FLEET / "resume.toml"
TARGETS = 8
STORED_BEFORE_INTERRUPT = 2


def stored(store: Path) -> list[tuple[int, str, str]]:
    try:
        with sqlite3.connect(store) as db:
            return db.execute("SELECT id, version, started_at FROM audits ORDER BY id").fetchall()
    except sqlite3.OperationalError:
        return []  # not created yet


@contextlib.contextmanager
def sigint_handled() -> Iterator[None]:
    """Ctrl-C as a terminal delivers it: a shell without job control starts background jobs with SIGINT
    ignored, which a child inherits across exec; a handler (here Python's own) is reset to the default."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupted_run(store: Path, sig: signal.Signals) -> subprocess.CompletedProcess[str]:
    """Start a fleet run as a terminal would (its own process group), signal the group mid-way."""
    with sigint_handled():
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hookconf",
                "fleet",
                "run",
                str(MANIFEST),
                "--store",
                str(store),
                "--jobs",
                "2",
                "--cache",
                str(store.parent / "cache"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while len(stored(store)) < STORED_BEFORE_INTERRUPT:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the fleet stored nothing within 60 s"
        time.sleep(0.02)
    os.killpg(process.pid, sig)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def fixture_servers() -> list[psutil.Process]:
    script = str(FLEET / "stdlib_server.py")
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if script in (proc.info["cmdline"] or []):
            found.append(proc)
    return found


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "killed"])
def test_interrupted_run_resumes_without_loss_or_duplicates(
    run_cli: Callable[..., CliRun], tmp_path: Path, sig: signal.Signals
) -> None:
    store = tmp_path / "hookconf.sqlite"
    interrupted = interrupted_run(store, sig)
    before = stored(store)
    assert STORED_BEFORE_INTERRUPT <= len(before) < TARGETS
    if sig is signal.SIGINT:
        assert interrupted.returncode == 130
        assert "run the same command again" in interrupted.stderr
        assert "Traceback" not in interrupted.stderr
        # Every audited server is stopped with its worker (allowing the grace period of its SIGTERM).
        _, alive = psutil.wait_procs(fixture_servers(), timeout=10)
        assert alive == []
    else:
        assert interrupted.returncode == -signal.SIGKILL

    resumed = run_cli(
        "fleet", "run", str(MANIFEST), "--store", str(store), "--jobs", "2", "--cache", str(tmp_path / "cache")
    )
    assert resumed.exit_code == 0
    assert f"{len(before)} target(s) already stored" in resumed.stderr
    after = stored(store)
    assert after[: len(before)] == before  # what finished before the interrupt is kept as it was
    assert sorted(version for _, version, _ in after) == sorted(str(n) for n in range(1, TARGETS + 1))


def test_force_audits_again_and_the_tables_read_the_newest(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    store = tmp_path / "hookconf.sqlite"
    args = ("fleet", "run", str(MANIFEST), "--store", str(store), "--server", "lookup", "--version", "3")
    assert run_cli(*args).exit_code == 0
    assert run_cli(*args).exit_code == 0  # stored: skipped
    assert len(stored(store)) == 1
    assert run_cli(*args, "--force").exit_code == 0
    assert len(stored(store)) == 2
    report = run_cli("fleet", "report", "--store", str(store), "--out", str(tmp_path / "out"))
    assert report.exit_code == 0
    results = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert len(results[(results["server"] == "lookup") & (results["version"] == "3")]) == 5  # one audit
