"""The store by column: schema 2 tables written at insert, the migration of a schema 1 store, `fleet import`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from hookconf.cli import main
from hookconf.fleet.outcome import Outcome, OutcomeKind
from hookconf.fleet.render import HTML_REGRESSIONS
from hookconf.fleet.store import FleetStore
from hookconf.fleet.tables import build_tables, store_tables
from hookconf.verdicts import Status
from tests.test_fleet_tables import report

# The audits table as schema 1 wrote it, and nothing else.
SCHEMA_1 = """
CREATE TABLE audits (
    id INTEGER PRIMARY KEY AUTOINCREMENT, fleet TEXT NOT NULL, server TEXT NOT NULL, version TEXT NOT NULL,
    source TEXT NOT NULL, hookconf_version TEXT NOT NULL, outcome TEXT NOT NULL, message TEXT,
    started_at TEXT NOT NULL, duration_s REAL NOT NULL, install_s REAL, cached_install INTEGER, report_json TEXT
);
PRAGMA user_version = 1;
"""
REPORTS = {
    ("shop", "1.0"): report(["a", "b"], [("idempotency", "a", Status.PASS), ("latency", "b", Status.PASS)]),
    ("shop", "1.1"): report(["a", "b"], [("idempotency", "a", Status.FAIL), ("latency", "b", Status.PASS)]),
    ("lookup", "2.0"): report(["q"], [("dsgvo", "q", Status.WARN)]),
}


def outcome(server: str, version: str, report_json: str | None, started_at: str = "2026-12-04T00:00:00Z") -> Outcome:
    return Outcome(
        fleet="stored",
        server=server,
        version=version,
        source="npm",
        kind=OutcomeKind.AUDITED if report_json else OutcomeKind.AUDIT_FAILED,
        started_at=started_at,
        duration_s=1.0,
        message=None if report_json else "the server exited",
        report_json=report_json,
    )


def schema_1_store(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_1)
    rows: list[tuple[object, ...]] = [
        ("stored", server, version, "npm", "0.1.0", "audited", None, "2026-12-04T00:00:00Z", 1.0, text)
        for (server, version), text in REPORTS.items()
    ]
    rows.append(
        ("stored", "broken", "1.0", "npm", "0.1.0", "audit-failed", "exited", "2026-12-04T00:00:00Z", 1.0, None)
    )
    with db:
        db.executemany(
            "INSERT INTO audits (fleet, server, version, source, hookconf_version, outcome, message, started_at, "
            "duration_s, report_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    db.close()
    return path


def counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        found = {table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("audits", "figures")}
        found |= {table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("results", "tools")}
        found["schema"] = db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()
    return found


EXPECTED = {"audits": 4, "figures": 3, "results": 5, "tools": 5, "schema": 2}


def test_add_writes_the_columns_of_each_report(tmp_path: Path) -> None:
    path = tmp_path / "hookconf.sqlite"
    with FleetStore(path) as store:
        store.add_many(outcome(server, version, text) for (server, version), text in REPORTS.items())
        store.add(outcome("broken", "1.0", None))
    assert counts(path) == EXPECTED
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT a.version, r.check_name, r.status FROM results r JOIN audits a ON a.id = r.audit_id "
        "WHERE a.server = 'shop' AND r.suite = 'idempotency' ORDER BY a.version"
    ).fetchall()
    assert rows == [("1.0", "idempotency/a", "pass"), ("1.1", "idempotency/a", "fail")]


def test_a_schema_1_store_gets_its_columns_once_and_loses_nothing(tmp_path: Path) -> None:
    path = schema_1_store(tmp_path / "old.sqlite")
    blobs = sqlite3.connect(path).execute("SELECT id, report_json FROM audits ORDER BY id").fetchall()
    FleetStore(path).close()
    assert counts(path) == EXPECTED
    FleetStore(path).close()  # opening it again adds nothing
    assert counts(path) == EXPECTED
    assert sqlite3.connect(path).execute("SELECT id, report_json FROM audits ORDER BY id").fetchall() == blobs


def test_the_tables_from_the_columns_match_the_tables_from_the_reports(tmp_path: Path) -> None:
    path = schema_1_store(tmp_path / "old.sqlite")
    with FleetStore(path) as store:
        from_columns = store_tables(store.connection)
        from_reports = build_tables(store.latest())
    pd.testing.assert_frame_equal(from_columns.regressions, from_reports.regressions)
    pd.testing.assert_frame_equal(from_columns.scores, from_reports.scores)
    (regression,) = from_columns.regressions.to_dict("records")
    assert regression["worse"] == "idempotency/a pass→fail"
    shop = from_columns.scores.set_index("server").loc["shop"]
    assert (shop["latest"], shop["previous"], shop["versions"]) == ("1.1", "1.0", 2)


def test_a_store_from_a_newer_hookconf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(Exception, match="newer hookconf"):
        FleetStore(path)


def test_import_merges_stores_and_json_reports_once(tmp_path: Path) -> None:
    old = schema_1_store(tmp_path / "machine-a.sqlite")
    other = tmp_path / "machine-b.sqlite"
    with FleetStore(other) as store:
        store.add(outcome("extra", "3.0", report(["z"]), started_at="2026-12-05T00:00:00Z"))
    loose = tmp_path / "check.json"
    loose.write_text(report(["solo"]), encoding="utf-8")
    merged = tmp_path / "merged.sqlite"
    sources = [str(old), str(other), str(loose)]
    assert main(["fleet", "import", *sources, "--store", str(merged)]) == 0
    assert counts(merged) == {"audits": 6, "figures": 5, "results": 5, "tools": 7, "schema": 2}
    assert main(["fleet", "import", *sources, "--store", str(merged)]) == 0  # all of it stored already
    assert counts(merged)["audits"] == 6
    assert sqlite3.connect(old).execute("PRAGMA user_version").fetchone() == (1,)  # a source store is only read
    names = sqlite3.connect(merged).execute("SELECT server, version FROM audits WHERE fleet = 'imported'").fetchall()
    assert names == [("fixture", "unknown")]  # the report's serverInfo names it


def test_import_refuses_a_file_that_is_neither(tmp_path: Path) -> None:
    stray = tmp_path / "notes.txt"
    stray.write_text("not a report", encoding="utf-8")
    assert main(["fleet", "import", str(stray), "--store", str(tmp_path / "s.sqlite")]) != 0


def test_without_pyarrow_the_results_are_written_as_csv(tmp_path: Path) -> None:
    path = schema_1_store(tmp_path / "old.sqlite")
    out = tmp_path / "out"
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from hookconf.cli import main\n"
        f"raise SystemExit(main(['fleet', 'report', '--store', {str(path)!r}, '--out', {str(out)!r}]))"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=120)
    results = pd.read_csv(out / "results.csv", dtype={"version": str})
    assert not (out / "results.parquet").exists()
    assert len(results) == 5
    assert list(dict.fromkeys(zip(results["server"], results["version"], strict=True))) == [
        ("lookup", "2.0"),
        ("shop", "1.0"),
        ("shop", "1.1"),
    ]


def test_report_html_shows_the_largest_drops_when_the_pairs_are_many(tmp_path: Path) -> None:
    path, out = tmp_path / "many.sqlite", tmp_path / "out"
    releases = HTML_REGRESSIONS + 20
    statuses = [Status.PASS, Status.FAIL, Status.WARN]
    with FleetStore(path) as store:
        store.add_many(
            outcome("busy", f"1.{n}", report(["a"], [("idempotency", "a", statuses[n % 3])])) for n in range(releases)
        )
    assert main(["fleet", "report", "--store", str(path), "--out", str(out)]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    assert f"The {HTML_REGRESSIONS} largest score drops of {releases - 1} pairs." in page
    regressions = (out / "regressions.md").read_text(encoding="utf-8")
    assert regressions.count("| busy ") == releases - 1  # the Markdown has every pair
