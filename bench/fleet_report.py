"""`hookconf fleet report` timed on synthetic stores of growing size: wall time, peak RSS, output sizes.

Each size gets a store from bench/synthetic_store.py (built once, kept in --work so reruns reuse it); the report
runs as a subprocess, and its peak RSS is that child's own ru_maxrss (os.wait4). Seeds as synthetic_store.py takes them.

    python bench/fleet_report.py [--audits 200 2000 20000] [--work /tmp/hookconf-fleet-bench] [--seeds STORE|DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SEEDS = ROOT / "reports" / "corpus.sqlite"
MIB = 1024 * 1024


def build_store(audits: int, work: Path, seeds: Path) -> Path:
    store = work / f"fleet-{audits}.sqlite"
    if not store.exists():
        script = ROOT / "bench" / "synthetic_store.py"
        argv = [sys.executable, str(script), "--audits", str(audits), "--out", str(store), "--seeds", str(seeds)]
        subprocess.run(argv, check=True)
    return store


def time_report(store: Path, out: Path) -> dict[str, float]:
    argv = [sys.executable, "-m", "hookconf", "fleet", "report", "--store", str(store), "--out", str(out)]
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage: ru_maxrss in KiB on Linux
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"fleet report failed ({child.returncode}) on {store}")
    sizes = {path.name: path.stat().st_size / MIB for path in sorted(out.iterdir()) if path.is_file()}
    return {"wall_s": wall, "peak_rss_mib": usage.ru_maxrss / 1024, **sizes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--audits", type=int, nargs="+", default=[200, 2000, 20000])
    parser.add_argument("--work", type=Path, default=Path("/tmp/hookconf-fleet-bench"))
    parser.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    for audits in sorted(args.audits):
        store = build_store(audits, args.work, args.seeds)
        figures = time_report(store, args.work / f"out-{audits}")
        store_mib = store.stat().st_size / MIB
        shown = ", ".join(f"{name} {value:.1f}" for name, value in figures.items())
        print(f"{audits} audits (store {store_mib:.0f} MiB): {shown} (sizes in MiB)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
