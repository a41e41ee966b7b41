"""The audit sandbox: a server's writes stay out of the real HOME and TMPDIR, detached children end with
the audit, and a read-only tool that writes into the sandbox fails SIDE-001."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from hookconf.config import ServerConfig
from hookconf.session import open_session
from hookconf.wire.process import ServerProcess, process_tree
from hookconf.wire.sandbox import CallWatch, Sandbox, changes_between
from tests.support import FIXTURES, CliRun, stdio_server


@pytest.fixture
def own_home_and_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The HOME and TMPDIR hookconf itself runs with, so that whatever lands there can be seen exactly."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))  # gettempdir() caches its first answer
    return home, tmp


def littering_server(pidfile: Path) -> dict[str, object]:
    return {**stdio_server("raw_server.py", "--litter"), "env": {"RAW_FIXTURE_PIDFILE": str(pidfile)}}


def detached_pids(pidfile: Path) -> list[int]:
    return [int(line) for line in pidfile.read_text(encoding="utf-8").split()]


def running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def ends_soon(pid: int, within_s: float = 5.0) -> bool:
    """A process hookconf killed but did not reap itself takes a moment to die."""
    deadline = time.monotonic() + within_s
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_server_writes_into_its_sandbox_and_its_detached_children_end(
    own_home_and_tmp: tuple[Path, Path],
    tmp_path: Path,
    write_config: Callable[..., Path],
    run_cli: Callable[..., CliRun],
) -> None:
    home, tmp = own_home_and_tmp
    pidfile = tmp_path / "detached.pid"
    run = run_cli("check", str(write_config(littering_server(pidfile), tries=2)), "--output", "json")
    assert run.exit_code == 1, run.stderr
    assert list(home.iterdir()) == []
    assert list(tmp.iterdir()) == []
    pids = detached_pids(pidfile)
    assert pids, "the fixture detached a grandchild"
    assert not [pid for pid in pids if running(pid)]

    report = run.json()
    side_effects = {r["tool"]: r for r in report["results"] if r["suite"] == "side-effects"}
    assert (side_effects["alpha"]["status"], side_effects["alpha"]["code"]) == ("fail", "SIDE-001")
    assert "~/.raw-fixture/alpha-calls.log" in side_effects["alpha"]["details"]
    # beta writes nothing: without a stateProbe that is still no proof of purity
    assert (side_effects["beta"]["status"], side_effects["beta"]["code"]) == ("indeterminate", "SIDE-002")
    tools = {tool["name"]: tool for tool in report["tools"]}
    alpha_changes = tools["alpha"]["sandbox"]["changes"]
    assert [(c["path"], c["change"]) for c in alpha_changes] == [("~/.raw-fixture/alpha-calls.log", "created")]
    assert alpha_changes[0]["size"] > 0
    # start-up writes (startup.txt, $TMPDIR/raw-fixture-PID.tmp), the spare server's included, are no tool's
    assert tools["beta"]["sandbox"] == {"created": 0, "changed": 0, "removed": 0, "changes": []}


def test_keep_workdir_keeps_the_sandbox_and_says_where(
    own_home_and_tmp: tuple[Path, Path],
    tmp_path: Path,
    write_config: Callable[..., Path],
    run_cli: Callable[..., CliRun],
) -> None:
    pidfile = tmp_path / "detached.pid"
    run = run_cli(
        "check", str(write_config(littering_server(pidfile), tries=2)), "--suite", "idempotency", "--keep-workdir"
    )
    kept = Path(run.stderr.split("kept at ", 1)[1].strip())
    try:
        assert kept.parent == own_home_and_tmp[1]
        assert (kept / "home" / ".raw-fixture" / "startup.txt").is_file()
        assert (kept / "home" / ".raw-fixture" / "alpha-calls.log").is_file()
        assert list((kept / "tmp").glob("raw-fixture-*.tmp"))
        assert not [pid for pid in detached_pids(pidfile) if running(pid)]
    finally:
        shutil.rmtree(kept)
    assert list(own_home_and_tmp[0].iterdir()) == []


def test_the_human_report_names_what_a_tool_wrote(
    own_home_and_tmp: tuple[Path, Path],
    tmp_path: Path,
    write_config: Callable[..., Path],
    run_cli: Callable[..., CliRun],
) -> None:
    config = write_config(littering_server(tmp_path / "detached.pid"), tries=2)
    run = run_cli("check", str(config), "--suite", "side-effects", "--tool", "alpha")
    assert "  sandbox: 1 created: ~/.raw-fixture/alpha-calls.log (" in run.stdout
    assert "SIDE-001" in run.stdout


def test_the_configs_home_wins_and_the_rest_is_the_sandbox(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "sandbox")
    server = ServerConfig.model_validate(
        {**stdio_server("raw_server.py", "--env-dump"), "env": {"HOME": str(tmp_path / "chosen")}}
    )
    session = open_session(sandbox.applied_to_server(server), timeout_s=10)
    try:
        session.initialize()
        outcome = session.call_tool("alpha", {"q": "abc"})
    finally:
        session.close()
    assert outcome.result is not None
    environment = json.loads(outcome.result["content"][0]["text"])
    assert environment["HOME"] == str(tmp_path / "chosen")
    assert environment["TMPDIR"] == str(sandbox.root / "tmp")
    assert environment["XDG_CACHE_HOME"] == str(sandbox.root / "home" / ".cache")
    assert environment["XDG_RUNTIME_DIR"] == str(sandbox.root / "run")
    assert (sandbox.root / "run").stat().st_mode & 0o777 == 0o700


def test_a_call_watch_counts_only_the_tools_own_calls(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "sandbox")
    home = sandbox.root / "home"
    (home / "at-start-up").write_text("x")
    watch = CallWatch(sandbox)
    watch.before_call(own=True)
    (home / "scratch").write_text("made by the tool")
    (home / "at-start-up").write_text("rewritten")
    watch.before_call(own=False)  # a state probe: what happens now is not the tool's
    (home / "by-the-probe").write_text("y")
    watch.before_call(own=True)
    (home / "scratch").unlink()  # created, then removed: nothing left to report
    os.mkdir(home / "made-dir")
    changes = [(c.path, c.change, c.size) for c in watch.changes()]
    assert changes == [("~/at-start-up", "changed", 9), ("~/made-dir", "created", None)]


def test_changes_between_escapes_control_characters_in_names(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "sandbox")
    before = sandbox.snapshot()
    (sandbox.root / "tmp" / "evil\x1b[31mname").write_text("x")
    (changed,) = changes_between(before, sandbox.snapshot())
    assert changed.path == "$TMPDIR/evil\\u001b[31mname"


def test_a_server_that_locks_its_files_is_still_removed(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "sandbox")
    locked = sandbox.root / "home" / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "file").write_text("x")
    (locked / "inner").chmod(0)
    locked.chmod(0o500)
    sandbox.close()
    assert not sandbox.root.exists()


def run_littering_fleet(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`fleet run` in a process of its own whose HOME and TMPDIR are tmp_path/home and tmp_path/tmp."""
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    manifest = tmp_path / "litter.toml"
    manifest.write_text(
        f"""
[fleet]
name = "litter"
config = {{ tries = 2, suites = ["idempotency", "side-effects"] }}

[[servers]]
name = "raw"
source = "command"
command = "{{python}}"
args = ["{FIXTURES / "raw_server.py"}", "--litter"]
env = {{ RAW_FIXTURE_PIDFILE = "{tmp_path / "detached.pid"}" }}
setup = ["sh -c 'echo made-by-setup > $HOME/setup.txt'"]
versions = ["1"]
""",
        encoding="utf-8",
    )
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "hookconf",
            "fleet",
            "run",
            str(manifest),
            "--store",
            str(tmp_path / "hookconf.sqlite"),
            "--jobs",
            "1",
            "--cache",
            str(tmp_path / "cache"),
            *extra,
        ],
        env={**os.environ, "HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_fleet_audit_and_its_setup_leave_nothing_in_home_or_tmp(tmp_path: Path) -> None:
    completed = run_littering_fleet(tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert list((tmp_path / "home").iterdir()) == []
    assert list((tmp_path / "tmp").iterdir()) == []
    pids = detached_pids(tmp_path / "detached.pid")
    assert pids
    assert not [pid for pid in pids if running(pid)]
    (report_json,) = sqlite3.connect(tmp_path / "hookconf.sqlite").execute("SELECT report_json FROM audits").fetchone()
    report = json.loads(report_json)
    alpha = next(r for r in report["results"] if r["tool"] == "alpha" and r["suite"] == "side-effects")
    assert alpha["code"] == "SIDE-001"
    tools = {tool["name"]: tool for tool in report["tools"]}
    assert [c["path"] for c in tools["alpha"]["sandbox"]["changes"]] == ["~/.raw-fixture/alpha-calls.log"]


def test_a_fleet_keeps_workdir_and_sandbox_when_asked(tmp_path: Path) -> None:
    completed = run_littering_fleet(tmp_path, "--keep-workdir")
    assert completed.returncode == 0, completed.stderr
    line = next(line for line in completed.stdout.splitlines() if line.startswith("  kept for raw 1: "))
    workdir, sandbox = (Path(path) for path in line.removeprefix("  kept for raw 1: ").split(", "))
    assert workdir.parent == sandbox.parent == tmp_path / "tmp"
    assert workdir.is_dir()
    assert (sandbox / "home" / "setup.txt").read_text(encoding="utf-8") == "made-by-setup\n"
    assert (sandbox / "home" / ".raw-fixture" / "alpha-calls.log").is_file()
    assert not [pid for pid in detached_pids(tmp_path / "detached.pid") if running(pid)]
    assert list((tmp_path / "home").iterdir()) == []


def test_a_grandchild_left_in_the_servers_process_group_ends_with_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    # the subshell exits at once, so `sleep` leaves the server's tree but stays in its process group
    process = ServerProcess("sh", ["-c", f"(sleep 600 & echo $! > {pidfile}); exec cat"], {}, None)
    deadline = time.monotonic() + 10
    while not (pidfile.exists() and pidfile.read_text(encoding="utf-8").endswith("\n")):
        assert time.monotonic() < deadline, "the server did not start its grandchild"
        time.sleep(0.01)
    (grandchild,) = detached_pids(pidfile)
    assert running(grandchild)
    assert grandchild not in [p.pid for p in process_tree(process.pid)]
    process.stop()
    assert ends_soon(grandchild)
