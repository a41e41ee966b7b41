"""`hookconf fleet import`: other stores (from other machines, other runs) and JSON reports into one store.

A store is read as it is (opened read-only, whatever its schema); its rows go in as a fleet run would have
written them, so the column tables are filled at insert. A JSON report (`hookconf check --json`) becomes an
audited row named by the server's serverInfo (name and version). A row the store has already (same server,
version, hookconf version, start time and outcome) is left out, so importing the same source twice adds nothing.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookconf.fleet.errors import StoreError
from hookconf.fleet.outcome import Outcome, OutcomeKind
from hookconf.fleet.store import FleetStore

IMPORTED_FLEET = "imported"
SQLITE_MAGIC = b"SQLite format 3\x00"
STORED_COLUMNS = (
    "fleet, server, version, source, hookconf_version, outcome, message, started_at, duration_s, install_s, "
    "cached_install, report_json"
)


@dataclass(frozen=True)
class Imported:
    source: Path
    added: int
    already_stored: int


def import_sources(store: FleetStore, sources: list[Path]) -> list[Imported]:
    known = store.identities()
    summary = []
    for source in sources:
        outcomes = list(_read(source))
        fresh = [outcome for outcome in outcomes if _identity(outcome) not in known]
        store.add_many(fresh)
        known.update(_identity(outcome) for outcome in fresh)
        summary.append(Imported(source, len(fresh), len(outcomes) - len(fresh)))
    return summary


def _identity(outcome: Outcome) -> tuple[str, str, str, str, str]:
    return (outcome.server, outcome.version, outcome.hookconf_version, outcome.started_at, str(outcome.kind))


def _read(source: Path) -> Iterator[Outcome]:
    if not source.is_file():
        raise StoreError(f"{source}: no such file; pass a store (.sqlite) or a JSON report")
    with source.open("rb") as handle:
        is_store = handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    yield from _store_rows(source) if is_store else [_report_outcome(source)]


def _store_rows(source: Path) -> Iterator[Outcome]:
    db = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        rows = db.execute(f"SELECT {STORED_COLUMNS} FROM audits ORDER BY id")
        for row in rows:
            yield _stored_outcome(row)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{source} is not a hookconf store ({exc})") from exc
    finally:
        db.close()


def _stored_outcome(row: tuple[Any, ...]) -> Outcome:
    fleet, server, version, source, hookconf_version, outcome, message, started_at, duration_s, *rest = row
    install_s, cached_install, report_json = rest
    return Outcome(
        fleet=fleet,
        server=server,
        version=version,
        source=source,
        kind=OutcomeKind(outcome),
        started_at=started_at,
        duration_s=duration_s,
        message=message,
        report_json=report_json,
        install_s=install_s,
        cached_install=None if cached_install is None else bool(cached_install),
        hookconf_version=hookconf_version,
    )


def _report_outcome(source: Path) -> Outcome:
    try:
        text = source.read_text(encoding="utf-8")
        report = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"{source} is neither a hookconf store nor a JSON report ({exc})") from exc
    if not isinstance(report, dict) or not isinstance(report.get("results"), list):
        raise StoreError(f"{source} is not a hookconf report (no results); pass a 'hookconf check --json' file")
    server = report.get("server") or {}
    info = server.get("serverInfo") or {}
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(source.stat().st_mtime))
    duration_ms = report.get("durationMs")
    return Outcome(
        fleet=IMPORTED_FLEET,
        server=str(info.get("name") or server.get("name") or source.stem),
        version=str(info.get("version") or "unknown"),
        source="command",
        kind=OutcomeKind.AUDITED,
        started_at=started,
        duration_s=float(duration_ms) / 1000 if isinstance(duration_ms, int | float) else 0.0,
        report_json=text,
        hookconf_version=str((report.get("tool") or {}).get("version") or "unknown"),
    )
