"""`check` without a config file (a command after --, a URL, an MCP client's config), several outputs per run,
and --watch."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import FIXTURES, CliRun, stdio_server

GOOD = [sys.executable, str(FIXTURES / "good_server.py")]


def test_a_command_after_the_double_dash(run_cli: Callable[..., CliRun]) -> None:
    run = run_cli("check", "--suite", "dsgvo", "--output", "json", "--", *GOOD)
    assert run.exit_code == 0, run.stderr
    report = run.json()
    assert report["server"]["name"] == "good_server"
    assert report["config"] is None
    assert {tool["name"] for tool in report["tools"]} == {"add_numbers", "delete_item", "get_item", "list_items"}


def test_a_url(run_cli: Callable[..., CliRun], external_good_http: str) -> None:
    run = run_cli("check", external_good_http, "--suite", "compliance", "--output", "json")
    assert run.exit_code == 0, run.stderr
    assert run.json()["server"]["transport"] == "http"


def test_a_config_file_is_named_in_the_report(
    run_cli: Callable[..., CliRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "hookconf.json").write_text(json.dumps({"server": stdio_server("good_server.py")}))
    run = run_cli("check", "mcp/hookconf.json", "--suite", "compliance", "--output", "sarif")
    assert run.exit_code == 0, run.stderr
    results = run.json()["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"mcp/hookconf.json"}


def test_the_servers_of_an_mcp_client_config(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    client = tmp_path / ".mcp.json"
    entry = {"command": GOOD[0], "args": GOOD[1:]}
    client.write_text(json.dumps({"mcpServers": {"one": entry, "two": entry}}), encoding="utf-8")
    both = run_cli("check", "--from", str(client), "--suite", "dsgvo")
    assert both.exit_code == 0, both.stderr
    assert [line for line in both.stdout.splitlines() if line.startswith("== ")] == ["== one", "== two"]
    one = run_cli("check", "--from", str(client), "--server", "two", "--suite", "dsgvo", "--output", "json")
    assert one.json()["server"]["name"] == "two"
    missing = run_cli("check", "--from", str(client), "--server", "three")
    assert missing.exit_code == 2
    assert "--server three: not in" in missing.stderr
    assert "it has one, two" in missing.stderr


def test_several_outputs_from_one_audit(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    junit, sarif = tmp_path / "hookconf.xml", tmp_path / "hookconf.sarif"
    run = run_cli(
        "check", "--suite", "dsgvo", "--output", "json", "--report", f"junit={junit}", "--report", f"sarif={sarif}",
        "--", *GOOD,
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    report = run.json()
    cases = list(ET.fromstring(junit.read_text(encoding="utf-8")).iter("testcase"))
    assert len(cases) == len(report["results"])
    assert json.loads(sarif.read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_an_unknown_check_is_refused_before_any_server_starts(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    started = tmp_path / "started"
    run = run_cli("check", "--only", "lifecycle-pnig", "--", "sh", "-c", f"touch {started}; sleep 5")
    assert run.exit_code == 2
    assert "unknown category or check id lifecycle-pnig (did you mean 'lifecycle-ping'?)" in run.stderr
    assert not started.exists()


def test_bad_command_line_targets_say_what_to_do(run_cli: Callable[..., CliRun]) -> None:
    nothing = run_cli("check")
    assert nothing.exit_code == 2
    assert "name the server" in nothing.stderr
    pair = run_cli("check", "-e", "NOEQUALS", "--", *GOOD)
    assert pair.exit_code == 2
    assert "-e 'NOEQUALS': write it as KEY=VALUE" in pair.stderr
    header = run_cli("check", "-H", "no-colon", "--", *GOOD)
    assert header.exit_code == 2
    assert "-H 'no-colon': expected 'Name: value'" in header.stderr
    timeout = run_cli("check", "--timeout", "0", "--", *GOOD)
    assert timeout.exit_code == 2
    assert "timeoutMs" in timeout.stderr
    with pytest.raises(SystemExit):  # argparse: a usage error, exit 2
        run_cli("check", "--report", "nope=x.txt", "--", *GOOD)


def test_watch_audits_again_after_a_change_and_ends_on_ctrl_c(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    shutil.copy(FIXTURES / "good_server.py", server)
    argv = [sys.executable, "-m", "hookconf", "check", "--watch", str(tmp_path), "--suite", "idempotency"]
    watching = subprocess.Popen(
        [*argv, "--", sys.executable, str(server)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        lines = _lines_of(watching)
        assert _wait_for_line(lines, "Hook score")
        server.write_text(server.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        assert _wait_for_line(lines, "changed: server.py; auditing again")
        assert _wait_for_line(lines, "hookconf diff: server -> server")  # what changed, not the whole report
        assert _wait_for_line(lines, "0 newly failing, 0 fixed, 0 newly skipped; no regressions")
        watching.send_signal(signal.SIGINT)
        assert watching.wait(timeout=30) == 0
    finally:
        if watching.poll() is None:
            watching.kill()


def _lines_of(process: subprocess.Popen[str]) -> queue.Queue[str]:
    """The process's stdout lines as they come, read in a thread (a wait for one must be able to give up)."""
    lines: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    assert stdout is not None

    def read() -> None:
        for line in stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _wait_for_line(lines: queue.Queue[str], text: str, timeout_s: float = 90) -> bool:
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            if text in lines.get(timeout=left):
                return True
        except queue.Empty:
            return False
    return False
