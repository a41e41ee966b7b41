"""A synthetic fleet store of N audits built from real reports, to measure `hookconf fleet report` at scale.

It audits nothing itself: the seed reports come from a store a fleet run wrote (`nox -s corpus` writes
reports/corpus.sqlite, `nox -s audit_all` the reference servers' store) or from a directory of JSON reports
(`hookconf check ... --json` output). Every synthetic audit is a copy of one seed report, with its full set
of check results; a few results per copy change status (pass, warn, fail) and the scores move with them, so
that releases of one server regress and improve as real ones do. Servers get 1 to 6 versions each.

    python bench/synthetic_store.py --audits 20000 --out /tmp/fleet-20k.sqlite [--seeds reports/corpus.sqlite]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hookconf.fleet.outcome import Outcome, OutcomeKind  # noqa: E402
from hookconf.fleet.store import FleetStore  # noqa: E402

DEFAULT_SEEDS = ROOT / "reports" / "corpus.sqlite"
FLIP_SHARE = 0.03  # of each copy's results, how many change status
FAILED_SHARE = 0.04  # audits that never reached the server (no report), as a fleet has them
MAX_VERSIONS = 6
FLIPS = ("pass", "warn", "fail")


def seed_reports(source: Path) -> list[tuple[str, dict[str, Any]]]:
    """(registry, report) pairs from a store (read-only) or from the *.json reports in a directory."""
    if source.is_dir():
        return [("command", json.loads(path.read_text(encoding="utf-8"))) for path in sorted(source.glob("*.json"))]
    db = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT source, report_json FROM audits WHERE report_json IS NOT NULL").fetchall()
    finally:
        db.close()
    return [(registry, json.loads(text)) for registry, text in rows]


def synthetic_outcomes(seeds: list[tuple[str, dict[str, Any]]], audits: int, rng: random.Random) -> Iterator[Outcome]:
    made, server = 0, 0
    while made < audits:
        registry, seed = rng.choice(seeds)
        versions = min(rng.randint(1, MAX_VERSIONS), audits - made)
        for minor in range(versions):
            yield _outcome(f"server-{server:05d}", f"1.{minor}.0", registry, seed, rng)
        made += versions
        server += 1


def _outcome(server: str, version: str, registry: str, seed: dict[str, Any], rng: random.Random) -> Outcome:
    failed = rng.random() < FAILED_SHARE
    return Outcome(
        fleet="synthetic",
        server=server,
        version=version,
        source=registry,
        kind=OutcomeKind.AUDIT_FAILED if failed else OutcomeKind.AUDITED,
        started_at="2026-12-04T00:00:00Z",
        duration_s=round(rng.uniform(2, 120), 1),
        message="the server exited with status 1" if failed else None,
        report_json=None if failed else json.dumps(_varied(seed, rng)),
    )


def _varied(seed: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    report = copy.deepcopy(seed)
    results = report.get("results") or []
    for entry in rng.sample(results, k=int(len(results) * FLIP_SHARE)):
        if entry.get("status") in FLIPS:
            entry["status"] = rng.choice(FLIPS)
    for field in ("score", "complianceScore"):
        if isinstance(report.get(field), int | float):
            report[field] = round(min(100.0, max(0.0, report[field] + rng.uniform(-15, 15))), 1)
    if isinstance(report.get("complianceScore"), float):
        report["grade"] = _grade(report["complianceScore"])
    resources = report.get("resources") or {}
    for field in ("startupMs", "cpuSeconds"):
        if isinstance(resources.get(field), int | float):
            resources[field] = round(resources[field] * rng.uniform(0.5, 2.0), 2)
    return report


def _grade(score: float) -> str:
    for floor, grade in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if score >= floor:
            return grade
    return "F"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--audits", type=int, required=True, help="how many audits the store gets")
    parser.add_argument("--out", type=Path, required=True, help="the store to write (must not exist)")
    parser.add_argument(
        "--seeds", type=Path, default=DEFAULT_SEEDS, help=f"a store or a directory of JSON reports ({DEFAULT_SEEDS})"
    )
    parser.add_argument("--seed", type=int, default=13, help="random seed, for the same store every time")
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists; pass a new path")
    if not args.seeds.exists():
        parser.error(f"no seed reports at {args.seeds}; run 'nox -s corpus' first or pass --seeds")
    seeds = seed_reports(args.seeds)
    if not seeds:
        parser.error(f"{args.seeds} holds no reports")
    rng = random.Random(args.seed)
    with FleetStore(args.out) as store:
        store.add_many(synthetic_outcomes(seeds, args.audits, rng))
        count = store.count()
    print(f"{args.out}: {count} audits from {len(seeds)} seed reports")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
