"""`hookconf init`: a working config from the server itself (-- CMD, or a URL), and an example that names no package."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hookconf.config import load_config
from tests.support import FIXTURES, CliRun

CONFIG = "hook-conformance.config.json"


def test_without_a_server_the_example_names_no_package(
    run_cli: Callable[..., CliRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_cli("init", "--server-name", "memory")
    assert run.exit_code == 0, run.stderr
    server = load_config(tmp_path / CONFIG).server
    assert server.name == "memory"
    assert "memory" not in [server.command, *server.args]  # the name is not someone else's package to run
    assert server.command != "npx"


def test_from_a_command_it_writes_a_probe_per_read_only_tool_and_check_accepts_it(
    run_cli: Callable[..., CliRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_cli("init", "-e", "GREETING=hi", "--", sys.executable, str(FIXTURES / "good_server.py"))
    assert run.exit_code == 0, run.stderr
    assert "4 tools, a probe for each of the 3 read-only ones; the other 1 may write" in run.stdout
    written = json.loads((tmp_path / CONFIG).read_text(encoding="utf-8"))
    assert written["server"] == {
        "name": "good_server",
        "command": sys.executable,
        "args": [str(FIXTURES / "good_server.py")],
        "env": {"GREETING": "hi"},
    }
    assert [probe["name"] for probe in written["probes"]] == ["get_item", "add_numbers", "list_items"]
    check = run_cli("check", CONFIG, "--suite", "idempotency", "--output", "json")
    assert check.exit_code == 0, check.stderr
    sources = {tool["name"]: tool["argumentsSource"] for tool in check.json()["tools"]}
    assert sources == {"get_item": "probe", "add_numbers": "probe", "list_items": "probe", "delete_item": "generated"}


def test_from_a_url(
    run_cli: Callable[..., CliRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, external_good_http: str
) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_cli("init", "--server-name", "deployed", external_good_http)
    assert run.exit_code == 0, run.stderr
    server = load_config(tmp_path / CONFIG).server
    assert (server.name, server.transport, server.url) == ("deployed", "http", external_good_http)


def test_a_server_that_does_not_start_leaves_no_file(
    run_cli: Callable[..., CliRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_cli("init", "--", str(tmp_path / "no-such-server"))
    assert run.exit_code != 0
    assert "cannot start server" in run.stderr
    assert not (tmp_path / CONFIG).exists()
    misplaced = run_cli("init", "-H", "X-Key: 1", "--", sys.executable, str(FIXTURES / "good_server.py"))
    assert misplaced.exit_code == 2
    assert "-H and --auth are for a server reached by URL" in misplaced.stderr
