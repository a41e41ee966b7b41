"""A fleet of N targets of a tiny real stdio server, on the local process pool and on a dask.distributed cluster.

Every target is the same small server (tests/fixtures/compliance_server.py: standard library only, correct by
default), so the audits cost alike and what differs between the two runs is the engine. Each run audits all N into a
fresh store with `hookconf fleet run` as a user runs it; the two executors alternate per round. Printed per executor:
wall time, audits per minute, and the engine's overhead per audit: the time the worker slots spent outside audits
((wall x jobs - the sum of the audits' own durations) / N), i.e. what the executor adds beyond the audits.

    python bench/fleet_scale.py [--targets 200] [--jobs N] [--rounds 1]

Needs the dask extra (`pip install '.[dask]'`) for the dask runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY_SERVER = ROOT / "tests" / "fixtures" / "compliance_server.py"
EXECUTORS = ("local", "dask")


@dataclass
class Run:
    executor: str
    wall_s: float
    audited: int
    audit_s: float  # the sum of the audits' own durations, as the store records them

    def per_minute(self) -> float:
        return self.audited / self.wall_s * 60

    def overhead_s(self, jobs: int) -> float:
        return (self.wall_s * jobs - self.audit_s) / max(self.audited, 1)


def manifest_text(targets: int) -> str:
    """A fleet of `targets` copies of the tiny server, each its own target (source "command")."""
    command, server = json.dumps(sys.executable), json.dumps(str(TINY_SERVER))  # JSON strings are TOML strings
    lines = ['[fleet]\nname = "scale"\n\n[fleet.config]\ntimeoutMs = 10000\n']
    for index in range(targets):
        lines.append(
            f'[[servers]]\nname = "tiny-{index:04d}"\nsource = "command"\ncommand = {command}\n'
            f'args = [{server}]\nversions = ["1"]\n'
        )
    return "\n".join(lines)


def fleet_run(manifest: Path, executor: str, jobs: int, store: Path) -> Run:
    argv = [sys.executable, "-m", "hookconf", "fleet", "run", str(manifest), "--executor", executor]
    argv += ["--jobs", str(jobs), "--store", str(store), "--force"]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env={**os.environ, "NO_COLOR": "1"})
    wall_s = time.monotonic() - started
    if done.returncode not in (0, 1):
        sys.exit(f"{executor}: fleet run exited {done.returncode}: {done.stderr[-2000:]}")
    with sqlite3.connect(store) as db:
        audited, audit_s = db.execute(
            "select count(*), sum(duration_s) from audits where outcome = 'audited'"
        ).fetchone()
    return Run(executor, wall_s, int(audited), float(audit_s or 0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    runs: dict[str, list[Run]] = {executor: [] for executor in EXECUTORS}
    with tempfile.TemporaryDirectory(prefix="hookconf-scale-") as folder:
        manifest = Path(folder) / "scale.toml"
        manifest.write_text(manifest_text(args.targets), encoding="utf-8")
        for round_number in range(args.rounds):
            order = EXECUTORS if round_number % 2 == 0 else EXECUTORS[::-1]
            for executor in order:
                run = fleet_run(manifest, executor, args.jobs, Path(folder) / f"{executor}-{round_number}.sqlite")
                runs[executor].append(run)
                print(
                    f"[round {round_number + 1}/{args.rounds}] {executor}: {run.audited} audited in {run.wall_s:.1f} s"
                )
    setting = f"--jobs {args.jobs}, {args.rounds} round(s), {os.cpu_count()} CPUs"
    print(f"\n{args.targets} targets of {TINY_SERVER.name}, {setting}")
    print(f"{'executor':<10}{'wall s':>9}{'audits/min':>12}{'mean audit s':>14}{'overhead s/audit':>18}")
    for executor, done in runs.items():
        wall = statistics.median(r.wall_s for r in done)
        per_minute = statistics.median(r.per_minute() for r in done)
        mean_audit = statistics.median(r.audit_s / max(r.audited, 1) for r in done)
        overhead = statistics.median(r.overhead_s(args.jobs) for r in done)
        print(f"{executor:<10}{wall:>9.1f}{per_minute:>12.1f}{mean_audit:>14.2f}{overhead:>18.3f}")


if __name__ == "__main__":
    main()
