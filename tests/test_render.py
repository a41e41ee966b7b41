"""`hookconf render REPORT.json --output FORMAT`: a stored report in any format, without auditing again."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import CliRun, check_in_process, stdio_server


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("render")
    config = folder / "hookconf.json"
    config.write_text(json.dumps({"server": stdio_server("good_server.py")}), encoding="utf-8")
    done = check_in_process(config)
    assert done.returncode in (0, 1), done.stderr
    path = folder / "report.json"
    path.write_text(done.stdout, encoding="utf-8")
    return path


def test_rendering_json_gives_back_the_stored_report(run_cli: Callable[..., CliRun], stored: Path) -> None:
    run = run_cli("render", str(stored), "--output", "json")
    assert run.exit_code == 0
    assert run.stdout == stored.read_text(encoding="utf-8")


def test_rendering_junit_has_a_testcase_per_result(run_cli: Callable[..., CliRun], stored: Path) -> None:
    run = run_cli("render", str(stored), "--output", "junit")
    assert run.exit_code == 0
    cases = ET.fromstring(run.stdout).iter("testcase")
    assert sum(1 for _ in cases) == len(json.loads(stored.read_text(encoding="utf-8"))["results"])


def test_rendering_the_human_output_needs_no_server(run_cli: Callable[..., CliRun], stored: Path) -> None:
    run = run_cli("render", str(stored))
    assert run.exit_code == 0
    assert "Protocol compliance" in run.stdout


def test_a_file_that_is_no_report_exits_2_saying_so(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    run = run_cli("render", str(other), "--output", "sarif")
    assert run.exit_code == 2
    assert "not a hookconf report" in run.stderr
    assert "Traceback" not in run.stderr
