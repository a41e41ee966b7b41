"""Snapshot of the terminal report; timing figures are masked, everything else must match."""

from __future__ import annotations

import os
import re
from pathlib import Path

from hookconf import HOOK_SUITES
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.report.formats import human
from tests.support import stdio_server

SNAPSHOTS = Path(__file__).parent / "snapshots"
TIMINGS = re.compile(r"\d+(\.\d+)? (ms|MiB|s)\b")
THREADS = re.compile(r"peak threads \d+")  # the SDK's worker threads come and go


def masked(text: str) -> str:
    return THREADS.sub("peak threads <n>", TIMINGS.sub("<n> \\2", text))


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("HOOKCONF_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_human_report_of_the_broken_server() -> None:
    server = stdio_server("broken_server.py")
    server["name"] = "broken"
    config = parse_config(
        {
            "server": server,
            "tries": 3,
            "timeoutMs": 1500,
            "thresholds": {"latencyP50Ms": 100, "latencyP95Ms": 200},
            "toolFilter": ["random_text", "timestamped", "slow_tool", "wipe_everything", "undocumented"],
        }
    )
    text = human.render(run_audit(config, RunOptions(suites=HOOK_SUITES)))
    check_snapshot("broken_server.human.txt", masked(text))
    assert text.rstrip().splitlines()[-1].startswith("12 passed, 3 failed, 4 skipped")
