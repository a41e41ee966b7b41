"""Hook audit of the good fixture server against the floor, and `hookconf --help` start-up.

The floor is a raw client that spawns the server, initializes and lists tools: no audit can be
faster than that. Runs alternate between the two so that machine noise hits both alike; the
ratios of medians are the figures to read, not the absolute times.

    python bench/hook_audit.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOOD_SERVER = ROOT / "tests" / "fixtures" / "good_server.py"
PROBES = [
    {"name": name, "args": args, "stateProbe": {"tool": "list_items", "args": {}}}
    for name, args in [("get_item", {"id": "a"}), ("add_numbers", {"a": 1, "b": 2}), ("list_items", {})]
]


def floor_client() -> None:
    """Spawn, initialize, notifications/initialized, tools/list, close: the least any audit does."""
    server = subprocess.Popen(
        [sys.executable, str(GOOD_SERVER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "floor", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    for message in messages:
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        if "id" in message:
            while json.loads(server.stdout.readline()).get("id") != message["id"]:
                pass
    server.stdin.close()
    server.wait(timeout=10)


def hookconf_audit() -> None:
    from hookconf import HOOK_SUITES
    from hookconf.config import parse_config
    from hookconf.engine.audit import RunOptions, run_audit

    config = parse_config(
        {"server": {"name": "good", "command": sys.executable, "args": [str(GOOD_SERVER)]}, "probes": PROBES}
    )
    # The hook suites only: the compliance suite's cost is measured against mcp-lighthouse in reference_audit.py.
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    assert report.summary.failed == 0, report.summary  # the hook suites alone ran: any failure is theirs


def seconds(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run_command(*argv: str) -> None:
    subprocess.run([sys.executable, *argv], check=True, capture_output=True, cwd=ROOT)


def compare(label: str, floor: Callable[[], object], measured: Callable[[], object], runs: int) -> None:
    floor_times, measured_times = [], []
    for _ in range(runs):
        floor_times.append(seconds(floor))
        measured_times.append(seconds(measured))
    floor_median, measured_median = statistics.median(floor_times), statistics.median(measured_times)
    print(
        f"{label}: floor {floor_median * 1000:.0f} ms, hookconf {measured_median * 1000:.0f} ms, "
        f"ratio {measured_median / floor_median:.2f} (medians of {runs} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    hookconf_audit()  # warm the file cache and the imports once, for both sides
    compare(
        "hook audit of the good fixture (4 tools, 5 suites) vs spawn+initialize+tools/list",
        floor_client,
        hookconf_audit,
        runs,
    )
    compare(
        "`hookconf --help` vs a bare interpreter start",
        lambda: run_command("-c", "pass"),
        lambda: run_command("-m", "hookconf", "--help"),
        runs,
    )
    probe = "import sys, hookconf.cli; print(sorted(m for m in ('pandas', 'mcp_types', 'httpx2') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout.strip()
    print(f"heavy modules imported by the CLI entry point: {loaded}")


if __name__ == "__main__":
    main()
