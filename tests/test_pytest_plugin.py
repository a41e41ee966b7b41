"""The pytest plugin: `pytest --hookconf CONFIG` makes each verdict of the audit a test, run in a pytest of its own."""

from __future__ import annotations

import json
from collections import Counter
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import hookconf
from tests.support import stdio_server

pytest_plugins = ["pytester"]


def plugin_args() -> list[str]:
    """-p for a source tree where the entry point is not installed (pytest refuses the plugin loaded twice)."""
    installed = any(point.value == "hookconf.pytest_plugin" for point in entry_points(group="pytest11"))
    return [] if installed else ["-p", "hookconf.pytest_plugin"]


@pytest.fixture(scope="module")
def config_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plugin") / "hookconf.json"
    path.write_text(json.dumps({"server": stdio_server("good_server.py")}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def statuses(config_path: Path) -> Counter[str]:
    return Counter(entry.status.value for entry in hookconf.audit(config_path).results)


def test_each_verdict_is_a_test_with_its_outcome(
    pytester: pytest.Pytester, config_path: Path, statuses: Counter[str]
) -> None:
    result = pytester.runpytest_subprocess(*plugin_args(), "--hookconf", str(config_path), "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == statuses["fail"] > 0
    assert outcomes.get("skipped", 0) == statuses["skip"] + statuses["indeterminate"]
    assert outcomes.get("passed", 0) == statuses["pass"] + statuses["warn"] + statuses["advice"]
    assert outcomes.get("warnings", 0) >= statuses["warn"]
    result.stdout.fnmatch_lines(["*hookconf.json::compliance::*"])


def test_markers_select_a_suite(pytester: pytest.Pytester, config_path: Path) -> None:
    args = [*plugin_args(), "--hookconf", str(config_path), "-p", "no:cacheprovider", "--strict-markers"]
    result = pytester.runpytest_subprocess(*args, "-m", "hookconf and idempotency", "--collect-only", "-q")
    collected = [line for line in result.stdout.lines if "::" in line]
    assert collected
    assert all("::idempotency::" in line for line in collected)


def test_the_report_fixture_gives_a_test_the_whole_report(pytester: pytest.Pytester, config_path: Path) -> None:
    pytester.makepyfile(
        """
        def test_grade(hookconf_report):
            assert hookconf_report.grade == "A"
            assert hookconf_report.server.name == "good_server"
        """
    )
    result = pytester.runpytest_subprocess(
        *plugin_args(), "--hookconf", str(config_path), "-p", "no:cacheprovider", "-k", "test_grade"
    )
    result.assert_outcomes(passed=1)


def test_a_config_that_cannot_be_audited_is_a_collection_error_that_says_why(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"server": {"name": "x", "command": "true"}, "tryes": 3}), encoding="utf-8")
    result = pytester.runpytest_subprocess(*plugin_args(), "--hookconf", str(bad), "-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        ["*ERROR collecting*bad.json*", "hookconf: *bad.json: invalid config", "*tryes: unknown key*"]
    )
    assert "Traceback" not in result.stdout.str()
    assert "pytest_plugin.py" not in result.stdout.str()
