"""The SQLite history: one row per finished audit, committed the moment it arrives.

Rows are never updated: ``--force`` adds a newer row beside the old one, and the tables read the
newest row per (server, version). Only the fleet process writes, so workers never contend.

Each audit keeps its report as JSON (for render and diff), and from schema 2 on its figures, check results
and listed tools also as rows of their own tables (`figures`, `results`, `tools`; a result names its check
by an id into `checks`, which describes each distinct check once), written in the same transaction: the
fleet report reads those columns with SQL and parses no report. A store of schema 1 gets them filled from
its reports when it is opened (nothing else changes; running it twice does nothing more).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookconf.fleet.columns import CHECK_COLUMNS, FIGURE_COLUMNS, AuditRows, audit_rows
from hookconf.fleet.errors import StoreError
from hookconf.fleet.outcome import Outcome, OutcomeKind

SCHEMA_VERSION = 2
MIGRATION_BATCH = 200  # reports parsed at a time while a schema 1 store gets its columns
# An outcome of these kinds says something about the server, so a rerun skips it; the others
# (an install, setup or hookconf failure) never reached the server and are tried again.
FINAL_KINDS = (OutcomeKind.AUDITED, OutcomeKind.AUDIT_FAILED)

SCHEMA = """
CREATE TABLE IF NOT EXISTS audits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    fleet TEXT NOT NULL,
    server TEXT NOT NULL,
    version TEXT NOT NULL,
    source TEXT NOT NULL,
    hookconf_version TEXT NOT NULL,
    outcome TEXT NOT NULL,
    message TEXT,
    started_at TEXT NOT NULL,
    duration_s REAL NOT NULL,
    install_s REAL,
    cached_install INTEGER,
    report_json TEXT
);
CREATE INDEX IF NOT EXISTS audits_by_target ON audits (server, version, hookconf_version);
CREATE TABLE IF NOT EXISTS figures (
    audit_id INTEGER PRIMARY KEY REFERENCES audits (id),
    score REAL,
    grade TEXT,
    compliance_score REAL,
    spec_version TEXT,
    protocol TEXT,
    startup_ms REAL,
    peak_rss_bytes INTEGER,
    cpu_seconds REAL,
    peak_threads INTEGER,
    peak_children INTEGER,
    worst_p95_ms REAL,
    tools_called INTEGER,
    tools_listed INTEGER,
    tools_known INTEGER NOT NULL,
    audit_s REAL,
    startup_s REAL,
    hook_s REAL,
    compliance_s REAL,
    budget_cut INTEGER
);
CREATE TABLE IF NOT EXISTS checks (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    check_name TEXT NOT NULL,
    suite TEXT,
    tool TEXT,
    check_id TEXT,
    code TEXT,
    category TEXT,
    required INTEGER,
    graded INTEGER,
    title TEXT
);
CREATE TABLE IF NOT EXISTS results (
    audit_id INTEGER NOT NULL REFERENCES audits (id),
    check_name TEXT NOT NULL,
    entry INTEGER NOT NULL,
    check_ref INTEGER NOT NULL REFERENCES checks (id),
    suite TEXT,
    status TEXT,
    code TEXT,
    duration_ms REAL,
    PRIMARY KEY (audit_id, check_name, entry)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tools (
    audit_id INTEGER NOT NULL REFERENCES audits (id),
    name TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tools_by_audit ON tools (audit_id);
"""
INSERT_FIGURES = f"INSERT INTO figures (audit_id, {', '.join(FIGURE_COLUMNS)}) VALUES (?{', ?' * len(FIGURE_COLUMNS)})"
INSERT_CHECK = f"INSERT OR IGNORE INTO checks (key, {', '.join(CHECK_COLUMNS)}) VALUES (?{', ?' * len(CHECK_COLUMNS)})"
INSERT_RESULT = (
    "INSERT INTO results (audit_id, check_name, entry, check_ref, suite, status, code, duration_ms) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


@dataclass(frozen=True)
class StoredAudit:
    id: int
    fleet: str
    server: str
    version: str
    source: str
    hookconf_version: str
    outcome: str
    message: str | None
    started_at: str
    duration_s: float
    report: dict[str, Any] | None


class FleetStore:
    def __init__(self, path: Path, *, create: bool = True) -> None:
        if not create and not path.is_file():
            raise StoreError(
                f"no store at {path}; run 'hookconf fleet run targets/*.toml' first, "
                "or pass --store with the file a run wrote"
            )
        self.path = path
        self._check_ids: dict[str, int] = {}  # check key -> id in `checks`, of rows committed or being written
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")  # readers (a report, a test) never block the writer
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a hookconf store ({exc}); pass another --store") from exc
        except OSError as exc:
            raise StoreError(f"cannot create the store {path}: {exc.strerror}") from exc

    def _migrate(self) -> None:
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer hookconf (store schema {version}); "
                "upgrade hookconf or use another --store"
            )
        with self._db:
            self._db.executescript(SCHEMA)
            if version < SCHEMA_VERSION:
                self._fill_columns()
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _fill_columns(self) -> None:
        """Schema 1 to 2: the column tables of every stored report that has none yet (so running it again,
        or after a crash, adds nothing twice). Reports are parsed a batch at a time, not all at once."""
        pending = self._db.execute(
            "SELECT id, report_json FROM audits WHERE report_json IS NOT NULL "
            "AND id NOT IN (SELECT audit_id FROM figures) ORDER BY id"
        )
        while batch := pending.fetchmany(MIGRATION_BATCH):
            for audit_id, report_json in batch:
                self._write_columns(int(audit_id), _parsed(int(audit_id), report_json))

    def __enter__(self) -> FleetStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def add(self, outcome: Outcome) -> None:
        """Store one outcome and commit at once: a crash after this line loses nothing."""
        self.add_many([outcome])

    def add_many(self, outcomes: Iterable[Outcome]) -> None:
        """Store many outcomes in one transaction (an import, a synthetic store): all or none."""
        try:
            with self._db:
                for outcome in outcomes:
                    self._insert(outcome)
        except BaseException:
            self._check_ids.clear()  # the checks this transaction added are gone with it
            raise

    def _insert(self, outcome: Outcome) -> None:
        cursor = self._db.execute(
            "INSERT INTO audits (fleet, server, version, source, hookconf_version, outcome, message, "
            "started_at, duration_s, install_s, cached_install, report_json) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                outcome.fleet,
                outcome.server,
                outcome.version,
                outcome.source,
                outcome.hookconf_version,
                str(outcome.kind),
                outcome.message,
                outcome.started_at,
                outcome.duration_s,
                outcome.install_s,
                outcome.cached_install,
                outcome.report_json,
            ),
        )
        if outcome.report_json is not None and cursor.lastrowid is not None:
            self._write_columns(cursor.lastrowid, _parsed(cursor.lastrowid, outcome.report_json))

    def _write_columns(self, audit_id: int, report: dict[str, Any]) -> None:
        rows: AuditRows = audit_rows(report)
        self._db.execute(INSERT_FIGURES, (audit_id, *rows.figures))
        results = []
        for entry, (check, status, duration_ms) in enumerate(rows.results):
            name, suite, _, _, code, *_ = check
            results.append((audit_id, name, entry, self._check_ref(check), suite, status, code, duration_ms))
        self._db.executemany(INSERT_RESULT, results)
        self._db.executemany("INSERT INTO tools (audit_id, name) VALUES (?, ?)", [(audit_id, n) for n in rows.tools])

    def _check_ref(self, check: tuple[Any, ...]) -> int:
        """The id of this check as `checks` describes it (what it checks, its code and title), added if new:
        the results of every audit share one row per distinct check, and are stored and read as small ids."""
        key = json.dumps(check)
        if key not in self._check_ids:
            self._db.execute(INSERT_CHECK, (key, *check))
            found = self._db.execute("SELECT id FROM checks WHERE key = ?", (key,)).fetchone()
            self._check_ids[key] = int(found[0])
        return self._check_ids[key]

    @property
    def connection(self) -> sqlite3.Connection:
        """The open database, for the report's SQL (read only: every write goes through add)."""
        return self._db

    def finished_keys(self, hookconf_version: str) -> set[tuple[str, str]]:
        """(server, version) pairs this hookconf version has a final result for."""
        marks = ", ".join("?" for _ in FINAL_KINDS)
        rows = self._db.execute(
            f"SELECT DISTINCT server, version FROM audits WHERE hookconf_version = ? AND outcome IN ({marks})",
            (hookconf_version, *map(str, FINAL_KINDS)),
        )
        return {(server, version) for server, version in rows}

    def durations(self) -> dict[tuple[str, str], float]:
        """How long the newest audit of each (server, version) took, to start the long ones first."""
        rows = self._db.execute(
            "SELECT server, version, duration_s FROM audits WHERE id IN "
            "(SELECT MAX(id) FROM audits GROUP BY server, version)"
        )
        return {(server, version): float(duration) for server, version, duration in rows}

    def latest(self) -> list[StoredAudit]:
        """The newest row of every (server, version), whatever hookconf version wrote it."""
        rows = self._db.execute(
            "SELECT id, fleet, server, version, source, hookconf_version, outcome, message, started_at, "
            "duration_s, report_json FROM audits WHERE id IN (SELECT MAX(id) FROM audits GROUP BY server, version) "
            "ORDER BY server, id"
        )
        return list(self._stored(rows))

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM audits").fetchone()[0])

    def identities(self) -> set[tuple[str, str, str, str, str]]:
        """(server, version, hookconf version, started at, outcome) of every row: what an import compares
        to leave out what the store has already."""
        rows = self._db.execute("SELECT server, version, hookconf_version, started_at, outcome FROM audits")
        return {(row[0], row[1], row[2], row[3], row[4]) for row in rows}

    @staticmethod
    def _stored(rows: Iterator[tuple[Any, ...]]) -> Iterator[StoredAudit]:
        for (
            audit_id,
            fleet,
            server,
            version,
            source,
            hookconf_version,
            outcome,
            message,
            started_at,
            duration_s,
            report_json,
        ) in rows:
            yield StoredAudit(
                id=audit_id,
                fleet=fleet,
                server=server,
                version=version,
                source=source,
                hookconf_version=hookconf_version,
                outcome=outcome,
                message=message,
                started_at=started_at,
                duration_s=duration_s,
                report=json.loads(report_json) if report_json else None,
            )


def _parsed(audit_id: int, report_json: str) -> dict[str, Any]:
    try:
        report = json.loads(report_json)
    except json.JSONDecodeError as exc:
        raise StoreError(f"the report of audit {audit_id} is not JSON ({exc}); the store is damaged") from exc
    if not isinstance(report, dict):
        raise StoreError(f"the report of audit {audit_id} is not a JSON object; the store is damaged")
    return report
