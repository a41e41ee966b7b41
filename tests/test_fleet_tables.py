"""The fleet tables from a store of known reports (written as a fleet run writes them), reported by the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from hookconf import __version__
from hookconf.cli import main
from hookconf.fleet.outcome import Outcome, OutcomeKind
from hookconf.fleet.store import FleetStore
from hookconf.fleet.tables import listed_tools
from hookconf.report.model import Report, ResultEntry, ServerInfo, ToolEntry, ToolInfo, summarize
from hookconf.verdicts import Status
from tests.support import CliRun
from tests.test_fleet_run import markdown_rows

WIDE_BEFORE = [f"t{n:02d}" for n in range(90)]
WIDE_AFTER = WIDE_BEFORE[:11]  # the release that dropped 79 of its 90 tools
DROPPED = WIDE_BEFORE[11:]
LISTING_ERROR = "tools/list answered -32601 Method not found"
OLD_LISTING_WARNING = f"No tools audited: {LISTING_ERROR}"  # all that reports before schema 1.3 said


def report(
    tools: Sequence[str],
    verdicts: Sequence[tuple[str, str, Status]] = (),
    warnings: Sequence[str] = (),
    listing_error: str | None = None,
) -> str:
    """A report as `hookconf check` writes it: these tools listed, these (suite, tool, status) results."""
    results = [
        ResultEntry(suite=suite, tool=tool, status=status, code=None, title=None, details="", durationMs=1.0)
        for suite, tool, status in verdicts
    ]
    built = Report(
        tool=ToolInfo(version=__version__),
        server=ServerInfo(
            name="fixture", transport="stdio", serverInfo={}, protocolVersion="2025-11-25", capabilities={"tools": {}}
        ),
        score=None,
        tools=[ToolEntry(name=name, score=None, calls=0, arguments={}, argumentsSource="generated") for name in tools],
        results=results,
        resources=None,
        schemaViolations=[],
        summary=summarize(results),
        durationMs=10.0,
        warnings=list(warnings),
        listingError=listing_error,
    )
    return built.to_json()


def report_before_listing_error(tools: Sequence[str], warnings: Sequence[str]) -> str:
    """A report as hookconf wrote it before `listingError` existed (schema 1.2)."""
    data = json.loads(report(tools, warnings=warnings))
    del data["listingError"]
    return json.dumps({**data, "schemaVersion": "1.2"})


@pytest.fixture(scope="module")
def known_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """wide 1.0 -> 2.0 drops 79 tools; unlisted 2.0 could not list its tools (and says so in listingError, its
    warning worded otherwise), legacy 2.0 too (in an older report, by its warning only); narrow has one version."""
    store = tmp_path_factory.mktemp("tables") / "hookconf.sqlite"
    audits = {
        ("wide", "1.0"): report(WIDE_BEFORE),
        ("wide", "2.0"): report(
            WIDE_AFTER,
            [
                ("idempotency", "t00", Status.PASS),
                ("idempotency", "t01", Status.WARN),
                ("latency", "t00", Status.INDETERMINATE),
                ("latency", "t01", Status.SKIP),
            ],
        ),
        ("narrow", "1.0"): report(["a"], [("idempotency", "a", Status.FAIL), ("latency", "a", Status.PASS)]),
        ("unlisted", "1.0"): report(["x", "y"]),
        ("unlisted", "2.0"): report([], warnings=["the tools could not be read"], listing_error=LISTING_ERROR),
        ("legacy", "1.0"): report(["p"]),
        ("legacy", "2.0"): report_before_listing_error([], warnings=[OLD_LISTING_WARNING]),
    }
    with FleetStore(store) as fleet:
        for (server, version), report_json in audits.items():
            fleet.add(
                Outcome(
                    fleet="known",
                    server=server,
                    version=version,
                    source="command",
                    kind=OutcomeKind.AUDITED,
                    started_at="2026-12-04T00:00:00Z",
                    duration_s=1.0,
                    report_json=report_json,
                )
            )
    return store


@pytest.fixture(scope="module")
def known_report(known_store: Path) -> Path:
    out = known_store.parent / "out"
    assert main(["fleet", "report", "--store", str(known_store), "--out", str(out)]) == 0
    return out


def regressions(out: Path) -> dict[str, dict[str, str]]:
    header, *rows = markdown_rows(out / "regressions.md")
    return {row[0]: dict(zip(header, row, strict=True)) for row in rows}


def test_a_release_that_dropped_most_tools_says_how_many_and_which(known_report: Path) -> None:
    wide = regressions(known_report)["wide"]
    assert wide["tools"] == "90 → 11"
    assert wide["added"] == ""
    assert wide["removed"] == "79: t11, t12, t13, t14, t15 +74 more"  # the table cell names the first few
    full = f"79: {', '.join(DROPPED)}"
    assert f"- wide 1.0 → 2.0, removed: {full}" in (known_report / "regressions.md").read_text(encoding="utf-8")
    assert full in (known_report / "report.html").read_text(encoding="utf-8")


def test_a_release_whose_tools_could_not_be_listed_is_not_said_to_drop_them(known_report: Path) -> None:
    unlisted = regressions(known_report)["unlisted"]
    assert (unlisted["tools"], unlisted["added"], unlisted["removed"]) == ("2 → -", "", "")
    legacy = regressions(known_report)["legacy"]
    assert (legacy["tools"], legacy["added"], legacy["removed"]) == ("1 → -", "", "")


def test_the_listing_error_decides_whether_the_tools_are_known_and_old_reports_fall_back_to_the_warning() -> None:
    def listed(report_json: str) -> tuple[str, ...] | None:
        return listed_tools(json.loads(report_json))

    assert listed(report([], warnings=["worded in any way"], listing_error=LISTING_ERROR)) is None
    assert listed(report(["a"], warnings=[OLD_LISTING_WARNING])) == ("a",)  # the field, not the text, decides
    assert listed(report_before_listing_error([], warnings=[OLD_LISTING_WARNING])) is None
    assert listed(report_before_listing_error(["b", "a"], warnings=[])) == ("a", "b")


def test_terminal_names_the_first_dropped_tools(
    run_cli: Callable[..., CliRun], known_store: Path, tmp_path: Path
) -> None:
    run = run_cli("fleet", "report", "--store", str(known_store), "--out", str(tmp_path))
    assert run.exit_code == 0
    assert "79: t11, t12, t13 +76 more" in run.stdout


def test_ecosystem_suites_count_every_status_of_the_latest_versions(known_report: Path) -> None:
    header, *rows = markdown_rows(known_report / "ecosystem.md", "Suites")
    assert header == [
        "suite",
        "servers",
        "results",
        "pass",
        "warn",
        "indeterminate",
        "fail",
        "skip",
        "pass %",
        "warn %",
        "indeterminate %",
        "fail %",
        "skip %",
    ]
    suites = {row[0]: row[1:] for row in rows}
    # wide 2.0 and narrow 1.0 (unlisted 2.0 has no results); wide 1.0 is not the latest and is left out.
    assert suites == {
        "idempotency": ["2", "3", "1", "1", "0", "1", "0", "33.3", "33.3", "0.0", "33.3", "0.0"],
        "latency": ["2", "3", "1", "0", "1", "0", "1", "33.3", "0.0", "33.3", "0.0", "33.3"],
    }
