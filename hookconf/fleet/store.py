"""The SQLite history: one row per finished audit, committed the moment it arrives.

Rows are never updated: ``--force`` adds a newer row beside the old one, and the tables read the
newest row per (server, version). Only the fleet process writes, so workers never contend.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookconf.fleet.errors import StoreError
from hookconf.fleet.outcome import Outcome, OutcomeKind

SCHEMA_VERSION = 1
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
"""


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
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def __enter__(self) -> FleetStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def add(self, outcome: Outcome) -> None:
        """Store one outcome and commit at once: a crash after this line loses nothing."""
        with self._db:
            self._insert(outcome)

    def add_many(self, outcomes: Iterable[Outcome]) -> None:
        """Store many outcomes in one transaction (an import, a synthetic store): all or none."""
        with self._db:
            for outcome in outcomes:
                self._insert(outcome)

    def _insert(self, outcome: Outcome) -> None:
        self._db.execute(
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
