"""The audit's time budget and its wall time by phase: what a budget cuts is skipped, never failed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookconf.budget import BUDGET_SKIP, FLEET_BUDGET_S
from hookconf.config import parse_config
from hookconf.errors import ConfigError
from hookconf.fleet.errors import ManifestError
from hookconf.fleet.manifest import Target, load_manifest
from hookconf.fleet.store import StoredAudit
from hookconf.fleet.tables import audits_frame, regressions_table, results_frame, score_cell
from hookconf.fleet.worker import audit_config
from hookconf.report.formats import github, html, human, markdown
from hookconf.report.model import Report
from tests.support import CliRun, stdio_server

Run = Callable[..., CliRun]
WriteConfig = Callable[..., Path]
GOOD_CALLABLE_TOOLS = ["get_item", "add_numbers", "list_items"]  # delete_item is never called: nothing to cut
# In the server's order: random_text fails IDEMP-001 at once; slow_tool's suites take 2.5 s or more (4 tries and
# 5 latency samples of 0.3 s each), so the budget of 1.5 s is always spent before counter_peek, which fails
# SIDE-001 when it is audited.
SLOW_THEN_FAILING: dict[str, Any] = {
    "tries": 4,
    "toolFilter": ["random_text", "slow_tool", "counter_peek"],
    "probes": [{"name": "counter_peek", "args": {}, "stateProbe": {"tool": "counter_value", "args": {}}}],
}


def assert_timing_adds_up(report: dict[str, Any]) -> None:
    timing = report["timing"]
    parts = [timing["startupMs"], timing["hookMs"], timing["complianceMs"]]
    assert all(part >= 0 for part in parts)
    assert sum(parts) <= timing["totalMs"] + 0.5  # each figure is rounded to 0.1 ms


def assert_cut_by_budget(entry: dict[str, Any]) -> None:
    assert entry["status"] == "skip", entry
    assert entry["details"].startswith(f"{BUDGET_SKIP}: the audit's "), entry


def test_a_budget_spent_at_start_up_skips_every_tool_and_check_and_fails_nothing(
    run_cli: Run, write_config: WriteConfig
) -> None:
    config = write_config(stdio_server("good_server.py"), tries=2)
    run = run_cli("check", str(config), "--budget", "0.001", "--strict", "--min-grade", "A", "--output", "json")
    report = run.json()
    assert run.exit_code == 0, run.stderr  # no verdict ran, so none fails; --min-grade has no grade to judge
    budget = report["budget"]
    assert budget["seconds"] == 0.001
    assert budget["exhausted"] is True
    assert budget["cutTools"] == GOOD_CALLABLE_TOOLS
    assert budget["cutChecks"], "every compliance check that applies is cut"
    assert report["summary"]["failed"] == 0
    for entry in report["results"]:
        if entry["tool"] in GOOD_CALLABLE_TOOLS or entry.get("id") in budget["cutChecks"]:
            assert_cut_by_budget(entry)
    assert {e["id"] for e in report["results"] if BUDGET_SKIP in e["details"] and e["id"]} == set(budget["cutChecks"])
    # a grade over no measured check would be an F the server did not earn
    assert report["grade"] is None
    assert report["compliance"] is None
    assert all(tool["called"] is False and tool["score"] is None for tool in report["tools"])
    assert_timing_adds_up(report)
    shown = Report.model_validate(report)
    assert (
        "Budget: 0.001 s, ran out: skipped the suites of 3 tools (get_item, add_numbers, list_items) and "
        f"{len(budget['cutChecks'])} compliance checks" in human.render(shown)
    )
    assert "\nTime: " in human.render(shown)
    assert "time budget 0.001 s, ran out: skipped the suites of 3 tools" in github.render(shown)
    for text in (markdown.render(shown), html.render(shown)):
        assert "budget 0.001 s, ran out" in text
        assert "time " in text


def test_a_budget_that_runs_out_midway_skips_the_rest_and_keeps_the_exit_code_of_what_ran(
    run_cli: Run, write_config: WriteConfig
) -> None:
    config = write_config(stdio_server("broken_server.py"), **SLOW_THEN_FAILING)
    run = run_cli("check", str(config), "--budget", "1.5", "--output", "json")
    report = run.json()
    budget = report["budget"]
    assert budget["exhausted"] is True
    assert "counter_peek" in budget["cutTools"]
    # a tool is cut only once the budget is spent: random_text ran unless start-up alone took the budget
    assert "random_text" not in budget["cutTools"] or report["timing"]["startupMs"] >= 1500
    assert [e["status"] for e in report["results"] if e["tool"] == "counter_peek"] == ["skip"] * 5
    for entry in report["results"]:
        if entry["tool"] in budget["cutTools"] or entry.get("id") in budget["cutChecks"]:
            assert_cut_by_budget(entry)
    hook_failures = [
        (e["tool"], e["code"]) for e in report["results"] if e["status"] == "fail" and e["suite"] != "compliance"
    ]
    ran = "random_text" not in budget["cutTools"]
    assert hook_failures == ([("random_text", "IDEMP-001")] if ran else [])
    assert run.exit_code == (1 if ran else 0)  # what the verdicts that ran give; the cut SIDE-001 is none
    assert_timing_adds_up(report)
    assert report["timing"]["totalMs"] >= 1500


def test_without_a_budget_the_cut_tool_fails_and_the_report_has_timing_only(
    run_cli: Run, write_config: WriteConfig
) -> None:
    """The control for the test above: counter_peek, audited, fails; so its skip there was the budget's."""
    config = write_config(stdio_server("broken_server.py"), **SLOW_THEN_FAILING)
    run = run_cli("check", str(config), "--tool", "counter_peek", "--suite", "side-effects", "--output", "json")
    report = run.json()
    assert run.exit_code == 1
    assert [(e["status"], e["code"]) for e in report["results"]] == [("fail", "SIDE-001")]
    assert report["budget"] is None
    assert_timing_adds_up(report)
    assert report["timing"]["complianceMs"] == 0  # the compliance suite did not run


def test_budget_in_the_config_and_on_the_command_line() -> None:
    server = stdio_server("good_server.py")
    assert parse_config({"server": server}).budget is None
    assert parse_config({"server": server, "budgetS": 30}).budget == 30
    assert parse_config({"server": server, "budgetS": 0}).budget is None  # 0: no budget
    with pytest.raises(ConfigError, match="budgetS"):
        parse_config({"server": server, "budgetS": -1})


def test_a_budget_flag_overrides_the_config(run_cli: Run, write_config: WriteConfig) -> None:
    config = write_config(stdio_server("good_server.py"), budgetS=0.001)
    run = run_cli("check", str(config), "--budget", "0", "--suite", "dsgvo", "--output", "json")
    assert run.json()["budget"] is None


def target(config: dict[str, Any]) -> Target:
    return Target(
        fleet="f",
        manifest="m.toml",
        manifest_dir="/tmp",
        server="s",
        version="1",
        source="command",
        command="server",
        config=config,
    )


def test_a_fleet_audit_has_a_budget_by_default_which_the_manifest_can_change() -> None:
    values = {
        "workdir": "/tmp/w",
        "prefix": "/tmp",
        "version": "1",
        "manifest_dir": "/tmp",
        "python": "py",
        "port": "1",
    }
    assert audit_config(target({}), values, None).budget == FLEET_BUDGET_S == 120
    assert audit_config(target({"budgetS": 30}), values, None).budget == 30
    assert audit_config(target({"budgetS": 0}), values, None).budget is None


def test_a_manifest_budget_is_validated(tmp_path: Path) -> None:
    manifest = tmp_path / "fleet.toml"
    server = '[[servers]]\nname = "s"\nsource = "command"\ncommand = "x"\nversions = ["1"]\n'
    manifest.write_text('[fleet]\nname = "f"\nconfig = { budgetS = 60 }\n' + server, encoding="utf-8")
    assert load_manifest(manifest).fleet.config == {"budgetS": 60}
    manifest.write_text('[fleet]\nname = "f"\nconfig = { budgetS = -5 }\n' + server, encoding="utf-8")
    with pytest.raises(ManifestError, match="budgetS"):
        load_manifest(manifest)


def stored(version: str, report: dict[str, Any]) -> StoredAudit:
    return StoredAudit(
        id=int(version[0]),
        fleet="f",
        server="s",
        version=version,
        source="npm",
        hookconf_version="0.1.0",
        outcome="audited",
        message=None,
        started_at="2026-12-04T00:00:00Z",
        duration_s=1.0,
        report=report,
    )


def timed(total_ms: float, budget: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "score": 80.0,
        "timing": {"startupMs": 900.0, "hookMs": total_ms - 1000, "complianceMs": 50.0, "totalMs": total_ms},
        "budget": budget,
        "results": [
            {"suite": "latency", "tool": "t", "status": "pass", "code": None, "details": "p95 5 ms", "durationMs": 12.5}
        ],
    }


def test_fleet_tables_show_the_audit_time_and_what_the_budget_cut() -> None:
    audits = [
        stored("1.0", timed(8000.0)),
        stored(
            "2.0",
            timed(
                121500.0, {"seconds": 120, "exhausted": True, "cutTools": ["a", "b"], "cutChecks": ["lifecycle-ping"]}
            ),
        ),
        stored("3.0", {"score": 80.0}),
    ]  # a report stored before reports carried timing
    frame = audits_frame(audits)
    cells = {row.version: score_cell(row) for row in frame.itertuples()}
    assert cells == {"1.0": "hook 80.0 · 8.0 s", "2.0": "hook 80.0 · 121.5 s, budget cut 3", "3.0": "hook 80.0"}
    assert frame["hook_s"].tolist()[:2] == [7.0, 120.5]
    regressions = regressions_table(frame, results_frame(audits))
    assert regressions["audit_s_delta"].tolist()[0] == 113.5
    results = results_frame(audits)
    assert results[["duration_ms", "audit_s"]].values.tolist()[0] == [12.5, 8.0]
