"""Layers: reading what a fleet stored imports none of what audits a server.

Each probe runs in a fresh interpreter, since this one has imported everything the other tests use.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hookconf.fleet.outcome import Outcome, OutcomeKind
from hookconf.fleet.store import FleetStore
from tests.test_fleet_tables import report

# The audit stack (sessions, transports, checks, the runners) and the third-party modules only it needs.
AUDIT_STACK = (
    "hookconf.session",
    "hookconf.session_pool",
    "hookconf.engine.audit",
    "hookconf.engine.compliance",
    "hookconf.era",
    "hookconf.budget",
    "hookconf.scoring",
    "hookconf.wire",
    "hookconf.checks",
    "hookconf.fleet.worker",
    "hookconf.fleet.execute",
    "hookconf.fleet.install",
    "httpx2",
    "psutil",
    "mcp_types",
    "mcp",
)
READ_PATH = ("hookconf.fleet.store", "hookconf.fleet.tables", "hookconf.fleet.render", "hookconf.fleet.cli")
# Only what builds the tables and charts imports pandas and matplotlib.
TABLE_LIBRARIES = ("pandas", "matplotlib")

LOADED = """
import json, sys
def loaded(prefixes):
    return sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
"""


def loaded_after(code: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules under these prefixes that are in sys.modules after running `code` in a new interpreter."""
    probe = f"{LOADED}\n{code}\nprint(json.dumps(loaded({list(prefixes)!r})))"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    found: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return found


def test_importing_the_store_tables_and_report_loads_no_audit_module() -> None:
    imports = "\n".join(f"import {module}" for module in READ_PATH)
    assert loaded_after(imports, AUDIT_STACK) == []


def test_the_store_alone_loads_neither_pandas_nor_matplotlib() -> None:
    assert loaded_after("import hookconf.fleet.store", TABLE_LIBRARIES) == []


def test_fleet_report_runs_without_the_audit_stack(tmp_path: Path) -> None:
    store, out = tmp_path / "hookconf.sqlite", tmp_path / "out"
    with FleetStore(store) as fleet:
        fleet.add(
            Outcome(
                fleet="layers",
                server="one",
                version="1.0",
                source="command",
                kind=OutcomeKind.AUDITED,
                started_at="2026-12-04T00:00:00Z",
                duration_s=1.0,
                report_json=report(["a"]),
            )
        )
        fleet.add(
            Outcome(
                fleet="layers",
                server="two",
                version="1.0",
                source="command",
                kind=OutcomeKind.AUDIT_FAILED,
                started_at="2026-12-04T00:00:00Z",
                duration_s=1.0,
                message="the server exited",
            )
        )
    command = (
        f"from hookconf.cli import main\nassert main(['fleet', 'report', '--store', {str(store)!r}, "
        f"'--out', {str(out)!r}]) == 0"
    )
    assert loaded_after(command, AUDIT_STACK) == []
    assert (out / "report.html").is_file()  # the report was written, so its whole path was taken
