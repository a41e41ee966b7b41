"""The reference fleet with --jobs 1 against --jobs N (default: the number of cores), side by side.

Installs are warmed first (that first run is timed too: it is the cold figure when the cache was
empty), and its store seeds every timed run: each starts from a copy and audits everything again
with --force, as a re-audit of a known fleet does (longest audits first, by the seed's durations).
The two settings alternate so that machine noise hits both alike; read the ratio of the medians.

    python bench/fleet_jobs.py [MANIFEST ...] [--jobs N] [--runs R] [--cache DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MANIFEST = ROOT / "targets" / "reference.toml"


def fleet_run(manifests: list[Path], jobs: int, cache: Path, store: Path, seed: Path | None = None) -> float:
    argv = [
        sys.executable,
        "-m",
        "hookconf",
        "fleet",
        "run",
        *map(str, manifests),
        "--jobs",
        str(jobs),
        "--cache",
        str(cache),
        "--store",
        str(store),
    ]
    if seed is not None:
        shutil.copyfile(seed, store)
        argv.append("--force")
    started = time.perf_counter()
    completed = subprocess.run(argv, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):  # 1: some target failed, which is a result, not a broken bench
        sys.exit(f"fleet run failed (exit {completed.returncode}):\n{completed.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("manifests", nargs="*", type=Path, default=[DEFAULT_MANIFEST])
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="the parallel setting")
    parser.add_argument("--runs", type=int, default=1, help="timed runs of each setting")
    parser.add_argument("--cache", type=Path, default=ROOT / ".hookconf-cache", help="install cache to use")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hookconf-bench-") as scratch:
        seed = Path(scratch) / "seed.sqlite"
        warm_up = fleet_run(args.manifests, args.jobs, args.cache, seed)
        print(f"first run (installs whatever the cache lacks), --jobs {args.jobs}: {warm_up:.1f} s")
        store = Path(scratch) / "store.sqlite"
        serial, parallel = [], []
        for _ in range(args.runs):
            serial.append(fleet_run(args.manifests, 1, args.cache, store, seed))
            parallel.append(fleet_run(args.manifests, args.jobs, args.cache, store, seed))
    serial_median, parallel_median = statistics.median(serial), statistics.median(parallel)
    print(
        f"--jobs 1 runs: {', '.join(f'{t:.1f}' for t in serial)} s; "
        f"--jobs {args.jobs} runs: {', '.join(f'{t:.1f}' for t in parallel)} s"
    )
    print(
        f"--jobs 1: {serial_median:.1f} s, --jobs {args.jobs}: {parallel_median:.1f} s, "
        f"ratio {serial_median / parallel_median:.2f} (medians of {args.runs} run(s), installs cached)"
    )


if __name__ == "__main__":
    main()
