"""A fleet of `command` fixtures run end to end: the store, the skip of stored audits, the tables."""

from __future__ import annotations

import csv
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from hookconf.cli import main
from tests.support import CliRun

FLEET = Path(__file__).parent / "fleet"


@pytest.fixture(scope="module")
def regressing_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """shop 1.2, 1.9 (a tool dropped, two added) and 1.10 (regresses) and lookup 2.0, audited once for every
    test here."""
    store = tmp_path_factory.mktemp("fleet") / "hookconf.sqlite"
    code = main(
        [
            "fleet",
            "run",
            str(FLEET / "regressing.toml"),
            "--store",
            str(store),
            "--jobs",
            "2",
            "--cache",
            str(store.parent / "cache"),
        ]
    )
    assert code == 0
    return store


@pytest.fixture(scope="module")
def report_dir(regressing_store: Path) -> Path:
    out = regressing_store.parent / "out"
    assert main(["fleet", "report", "--store", str(regressing_store), "--out", str(out)]) == 0
    return out


def markdown_rows(path: Path, section: str | None = None) -> list[list[str]]:
    """The rows of the file's tables (header rows included), or of the table under '## SECTION'."""
    text = path.read_text(encoding="utf-8")
    if section is not None:
        text = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if not line.startswith("|--")]


def test_every_audit_is_stored_with_its_report(regressing_store: Path) -> None:
    db = sqlite3.connect(regressing_store)
    query = "SELECT server, version, outcome, hookconf_version, report_json IS NOT NULL FROM audits"
    rows = db.execute(query).fetchall()
    assert sorted(rows) == [
        ("lookup", "2.0", "audited", "0.1.0", 1),
        ("shop", "1.10", "audited", "0.1.0", 1),
        ("shop", "1.2", "audited", "0.1.0", 1),
        ("shop", "1.9", "audited", "0.1.0", 1),
    ]


def test_regression_table_names_the_check_that_regressed(report_dir: Path) -> None:
    header, *rows = markdown_rows(report_dir / "regressions.md")
    table = [dict(zip(header, row, strict=True)) for row in rows]
    assert [(r["server"], r["from"], r["to"]) for r in table] == [("shop", "1.2", "1.9"), ("shop", "1.9", "1.10")]
    fixed, regressed = table
    assert regressed["worse"] == "idempotency/get_price pass→fail (IDEMP-001)"
    assert regressed["better"] == ""
    assert float(regressed["score_delta"]) < 0
    assert fixed["better"] == "dsgvo/get_price warn→pass (DSGVO-002)"
    assert fixed["worse"] == ""
    assert regressed["grade"] == "- → -"  # the compliance suite did not run, so there is no grade


def test_regression_table_names_the_tools_a_release_added_and_removed(report_dir: Path) -> None:
    header, *rows = markdown_rows(report_dir / "regressions.md")
    reshaped, regressed = (dict(zip(header, row, strict=True)) for row in rows)
    assert (reshaped["tools"], reshaped["added"], reshaped["removed"]) == (
        "3 → 4",
        "2: find_item, list_categories",
        "1: daily_deal",
    )
    assert (regressed["tools"], regressed["added"], regressed["removed"]) == ("4 → 4", "", "")
    # A removed tool's checks are not in both releases, so they are neither worse nor better.
    assert "daily_deal" not in reshaped["worse"] + reshaped["better"]
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    assert "2: find_item, list_categories" in page
    assert "1: daily_deal" in page


def test_scores_table_has_versions_in_order_and_latest_suites(report_dir: Path) -> None:
    header, *rows = markdown_rows(report_dir / "scores.md")
    assert header[:5] == ["server", "1.2", "1.9", "1.10", "2.0"]
    assert header[5:] == ["latest", "idempotency", "side-effects", "latency", "determinism", "dsgvo"]
    shop = dict(zip(header, next(r for r in rows if r[0] == "shop"), strict=True))
    # the tools it rests on; no compliance suite here: no grade; then the audit's wall time (the fleet's default
    # budget of 120 s cut nothing)
    assert re.fullmatch(r"hook 100\.0 \(4/4 tools\) · \d+\.\d s", shop["1.9"]), shop["1.9"]
    assert shop["latest"] == "1.10"
    assert shop["idempotency"] == "75.0"  # get_price failed; list_prices, find_item and list_categories passed


def test_ecosystem_counts_failing_checks_across_servers(report_dir: Path) -> None:
    text = (report_dir / "ecosystem.md").read_text(encoding="utf-8")
    failing = next(row for row in markdown_rows(report_dir / "ecosystem.md") if row[0] == "IDEMP-001")
    assert failing[2:] == ["1", "50.0"]  # one of the two servers' latest versions fails it
    for section in ("Grades", "Scores", "Failing checks", "Suites", "Resources"):
        assert f"## {section}" in text
    header, *rows = markdown_rows(report_dir / "ecosystem.md", "Suites")
    suites = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    # shop 1.10: four tools, get_price fails (IDEMP-001); lookup 2.0: one tool that passes.
    idempotency = suites["idempotency"]
    assert [idempotency[s] for s in ("servers", "results", "pass", "warn", "indeterminate", "fail", "skip")] == [
        "2",
        "5",
        "4",
        "0",
        "0",
        "1",
        "0",
    ]
    assert (idempotency["pass %"], idempotency["fail %"]) == ("80.0", "20.0")


def test_results_csv_has_a_row_per_check_with_audit_figures(report_dir: Path) -> None:
    with (report_dir / "results.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    shop_110 = [r for r in rows if (r["server"], r["version"]) == ("shop", "1.10")]
    assert {r["check"] for r in shop_110} >= {"idempotency/get_price", "dsgvo/list_prices"}
    assert all(r["score"] and r["peak_rss_bytes"] and r["startup_ms"] and r["cpu_seconds"] for r in shop_110)
    regressed = next(r for r in shop_110 if r["check"] == "idempotency/get_price")
    assert (regressed["status"], regressed["code"]) == ("fail", "IDEMP-001")


def test_html_report_is_self_contained(report_dir: Path) -> None:
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    assert page.count("<svg") >= 3
    assert "<script" not in page
    assert "src=" not in page
    assert "IDEMP-001" in page


def test_a_second_run_skips_what_is_stored(run_cli: Callable[..., CliRun], regressing_store: Path) -> None:
    run = run_cli("fleet", "run", str(FLEET / "regressing.toml"), "--store", str(regressing_store))
    assert run.exit_code == 0
    assert "4 target(s) already stored" in run.stderr
    assert "0 audited, 0 failed, 4 skipped" in run.stdout
    assert sqlite3.connect(regressing_store).execute("SELECT COUNT(*) FROM audits").fetchone() == (4,)


def test_terminal_report_prints_the_tables(
    run_cli: Callable[..., CliRun], regressing_store: Path, tmp_path: Path
) -> None:
    run = run_cli("fleet", "report", "--store", str(regressing_store), "--out", str(tmp_path))
    assert run.exit_code == 0
    assert run.stdout.startswith("Scores\n")
    assert "idempotency/get_price pass→fail (IDEMP-001)" in run.stdout
    assert "2: find_item, list_categories" in run.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "ecosystem.md",
        "regressions.md",
        "report.html",
        "results.csv",
        "scores.md",
    ]


def test_a_release_that_changes_era_is_not_compared_check_by_check(tmp_path: Path) -> None:
    store, out = tmp_path / "hookconf.sqlite", tmp_path / "out"
    assert (
        main(
            [
                "fleet",
                "run",
                str(FLEET / "era_change.toml"),
                "--store",
                str(store),
                "--jobs",
                "2",
                "--cache",
                str(tmp_path / "cache"),
            ]
        )
        == 0
    )
    assert main(["fleet", "report", "--store", str(store), "--out", str(out)]) == 0
    header, *rows = markdown_rows(out / "regressions.md")
    (row,) = [dict(zip(header, row, strict=True)) for row in rows]
    assert row["spec"] == "2025-11-25 → 2026-07-28"
    # Same ids, different catalogs: no compliance check is listed as worse or better.
    assert "compliance/" not in row["worse"] + row["better"]
