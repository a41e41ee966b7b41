"""The GitHub Action (action.yml): its shell steps run here as a runner would run them, on a real fixture server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import stdio_server

ACTION = Path(__file__).parent.parent / "action.yml"


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return loaded


def step(step_id: str) -> dict[str, Any]:
    return next(s for s in action()["runs"]["steps"] if s.get("id") == step_id)


def run_step(step_id: str, env: dict[str, str], cwd: Path) -> tuple[int, dict[str, str], str]:
    """Run a step's script with bash as the runner does (its env given): exit code, $GITHUB_OUTPUT, stderr."""
    outputs = cwd / f"{step_id}-outputs.txt"
    outputs.write_text("", encoding="utf-8")
    scripts = Path(sys.executable).parent  # hookconf's console script sits beside the test interpreter
    done = subprocess.run(
        ["bash", "-c", step(step_id)["run"]],
        env={**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ['PATH']}", "GITHUB_OUTPUT": str(outputs), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    pairs = [line.partition("=") for line in outputs.read_text(encoding="utf-8").splitlines()]
    return done.returncode, {key: value for key, _, value in pairs}, done.stderr


def audit_env(config: Path, cwd: Path, **extra: str) -> dict[str, str]:
    env = {"CONFIG": str(config), "MIN_GRADE": "", "EXTRA_ARGS": "", "REPORT": str(cwd / "r.json")}
    return {**env, "SARIF": str(cwd / "r.sarif"), **extra}


@pytest.fixture
def good_config(tmp_path: Path) -> Path:
    path = tmp_path / "hook-conformance.config.json"
    path.write_text(json.dumps({"server": stdio_server("good_server.py")}), encoding="utf-8")
    return path


def test_the_action_declares_its_inputs_and_pins_the_actions_it_uses() -> None:
    declared = action()
    assert set(declared["inputs"]) == {"config", "min-grade", "args", "upload-sarif", "python-version"}
    assert set(declared["outputs"]) == {"grade", "exit-code", "report", "sarif"}
    used = [s["uses"] for s in declared["runs"]["steps"] if "uses" in s]
    assert used
    assert all("@v" in reference for reference in used)


def test_the_audit_step_writes_the_report_the_sarif_and_the_grade(good_config: Path, tmp_path: Path) -> None:
    code, outputs, stderr = run_step("audit", audit_env(good_config, tmp_path), tmp_path)
    assert code == 0, stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    # the good fixture fails two optional compliance checks on purpose: no hook FAIL, so the run passes
    assert outputs["exit-code"] == "0"
    assert outputs["grade"] == report["grade"] == "A"
    sarif = json.loads(Path(outputs["sarif"]).read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    assert sarif["runs"][0]["results"]
    assert run_step("verdict", {"CODE": outputs["exit-code"]}, tmp_path)[0] == 0


def test_failures_fail_the_verdict_step(tmp_path: Path) -> None:
    config = tmp_path / "no-ping.json"
    server = stdio_server("compliance_server.py", "--defect", "no-ping")
    config.write_text(json.dumps({"server": server}), encoding="utf-8")
    env = audit_env(config, tmp_path, EXTRA_ARGS="--suite compliance --strict")
    code, outputs, stderr = run_step("audit", env, tmp_path)
    assert code == 0, stderr
    assert outputs["exit-code"] == "1"  # --strict: a required check (lifecycle-ping) failed
    assert run_step("verdict", {"CODE": outputs["exit-code"]}, tmp_path)[0] == 1


def test_min_grade_and_extra_args_reach_the_check(good_config: Path, tmp_path: Path) -> None:
    env = audit_env(good_config, tmp_path, MIN_GRADE="A", EXTRA_ARGS="--suite compliance --spec-version 2025-11-25")
    code, outputs, stderr = run_step("audit", env, tmp_path)
    assert code == 0, stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["specVersion"] == "2025-11-25"
    assert {entry["suite"] for entry in report["results"]} == {"compliance"}  # the hook suites did not run
    assert outputs["grade"] == "A"


def test_a_bad_config_fails_the_step_with_hookconfs_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"server": {"name": "x", "command": "true"}, "tryes": 3}), encoding="utf-8")
    code, outputs, stderr = run_step("audit", audit_env(bad, tmp_path), tmp_path)
    assert code == 2
    assert outputs["exit-code"] == "2"
    assert "tryes: unknown key" in stderr
