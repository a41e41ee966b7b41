"""A fleet of `command` fixtures run end to end: the store, the skip of stored audits, the tables."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pandas as pd
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


def test_scores_table_has_the_latest_and_previous_version_of_each_server(report_dir: Path) -> None:
    header, *rows = markdown_rows(report_dir / "scores.md")
    assert header == [
        "server",
        "versions",
        "latest",
        "latest audit",
        "previous",
        "previous audit",
        "idempotency",
        "side-effects",
        "latency",
        "determinism",
        "dsgvo",
    ]
    table = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    shop, lookup = table["shop"], table["lookup"]
    # 1.10 after 1.9: versions in their registry's order, not as strings
    assert (shop["versions"], shop["latest"], shop["previous"]) == ("3", "1.10", "1.9")
    # the tools it rests on; no compliance suite here: no grade; then the audit's wall time (the fleet's default
    # budget of 120 s cut nothing)
    assert re.fullmatch(r"hook 100\.0 \(4/4 tools\) · \d+\.\d s", shop["previous audit"]), shop["previous audit"]
    assert shop["latest audit"].startswith("hook ")
    assert not shop["latest audit"].startswith("hook 100.0")
    assert shop["idempotency"] == "75.0"  # get_price failed; list_prices, find_item and list_categories passed
    assert (lookup["versions"], lookup["latest"], lookup["previous"], lookup["previous audit"]) == ("1", "2.0", "", "")


def test_history_of_a_server_lists_every_version_on_demand(
    run_cli: Callable[..., CliRun], regressing_store: Path, tmp_path: Path
) -> None:
    run = run_cli("fleet", "report", "--store", str(regressing_store), "--out", str(tmp_path), "--server", "shop")
    history = run.stdout.split("History: shop\n", 1)[1].split("\nwrote ", 1)[0]
    versions = [line.split()[0] for line in history.splitlines()[2:] if line.strip()]
    assert versions == ["1.2", "1.9", "1.10"]


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


def test_results_parquet_has_a_row_per_check_with_audit_figures(report_dir: Path) -> None:
    rows = pd.read_parquet(report_dir / "results.parquet")
    shop_110 = rows[(rows["server"] == "shop") & (rows["version"] == "1.10")]
    assert set(shop_110["check"]) >= {"idempotency/get_price", "dsgvo/list_prices"}
    figures = shop_110[["score", "peak_rss_bytes", "startup_ms", "cpu_seconds"]]
    assert figures.notna().all().all()
    assert (figures > 0).all().all()
    regressed = shop_110[shop_110["check"] == "idempotency/get_price"].iloc[0]
    assert (regressed["status"], regressed["code"]) == ("fail", "IDEMP-001")
    # every stored version, in version order
    assert list(dict.fromkeys(zip(rows["server"], rows["version"], strict=True))) == [
        ("lookup", "2.0"),
        ("shop", "1.2"),
        ("shop", "1.9"),
        ("shop", "1.10"),
    ]


def test_html_report_is_self_contained(report_dir: Path) -> None:
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    assert page.count("<svg") >= 3
    assert page.count("<script") == 1  # the index's sort and search, inline
    assert "src=" not in page
    assert "IDEMP-001" in page
    assert '<table id="servers">' in page


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
        "results.parquet",
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
