"""The same fleet fanned out over a dask.distributed cluster gives the same stored audits as the local pool."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hookconf.cli import main

FLEET = Path(__file__).parent / "fleet"


def stored_verdicts(store: Path) -> dict[tuple[str, str], dict[tuple[str, str], str]]:
    """(server, version) -> {(suite, tool): status} of every stored audit."""
    rows = sqlite3.connect(store).execute("SELECT server, version, outcome, report_json FROM audits").fetchall()
    verdicts = {}
    for server, version, outcome, report_json in rows:
        assert outcome == "audited", (server, version, outcome)
        report = json.loads(report_json)
        verdicts[(server, version)] = {(r["suite"], r["tool"]): r["status"] for r in report["results"]}
    return verdicts


def test_dask_cluster_audits_the_fleet_like_the_local_pool(tmp_path: Path) -> None:
    manifest, cache = str(FLEET / "regressing.toml"), str(tmp_path / "cache")
    local, dask = tmp_path / "local.sqlite", tmp_path / "dask.sqlite"
    assert main(["fleet", "run", manifest, "--store", str(local), "--cache", cache, "--jobs", "2"]) == 0
    # No --scheduler: hookconf starts a local cluster of two worker processes and closes it afterwards.
    assert (
        main(["fleet", "run", manifest, "--store", str(dask), "--cache", cache, "--jobs", "2", "--executor", "dask"])
        == 0
    )
    on_dask = stored_verdicts(dask)
    assert set(on_dask) == {("shop", "1.2"), ("shop", "1.9"), ("shop", "1.10"), ("lookup", "2.0")}
    assert on_dask == stored_verdicts(local)
    assert on_dask[("shop", "1.10")][("idempotency", "get_price")] == "fail"  # the regression, seen on dask too
