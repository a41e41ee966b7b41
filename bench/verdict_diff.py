"""Two fleet stores of the same targets side by side: audit time, calls per tool, and every verdict.

For a change that should make audits faster without making any verdict worse: run the fleet once with the
old code and once with the new (each into its own --store, with --force), then

    python bench/verdict_diff.py BEFORE.sqlite AFTER.sqlite

It prints, per audit, the time and calls before and after, the tools whose calls changed and every verdict
whose status or code changed. A verdict is worse when it became FAIL or WARN from anything milder; a PASS
that became INDETERMINATE is listed but not counted (it may, when the call it rested on never worked: read
those lines). Exits 1 when any verdict is worse.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEVERITY = {"pass": 0, "advice": 0, "skip": 0, "indeterminate": 1, "warn": 2, "fail": 3}
DETAILS_CHARS = 200


@dataclass(frozen=True)
class Audit:
    seconds: float
    calls: dict[str, int]
    verdicts: dict[tuple[str, str], tuple[str, str | None, str]]  # (check or suite, tool) -> status, code, details


def load(store: Path) -> dict[tuple[str, str], Audit]:
    """The newest audit of each (server, version) in the store that has a report."""
    audits: dict[tuple[str, str], Audit] = {}
    rows = sqlite3.connect(store).execute(
        "select server, version, duration_s, report_json from audits where report_json is not null order by id"
    )
    for server, version, seconds, report_json in rows:
        report: dict[str, Any] = json.loads(report_json)
        verdicts = {
            (entry.get("id") or entry["suite"], entry["tool"]): (
                entry["status"],
                entry.get("code"),
                entry.get("details") or "",
            )
            for entry in report.get("results", [])
        }
        calls = {tool["name"]: tool["calls"] for tool in report.get("tools", [])}
        audits[(server, version)] = Audit(seconds, calls, verdicts)
    return audits


def worse(before: str, after: str) -> bool:
    if after in ("fail", "warn"):
        return SEVERITY[after] > SEVERITY[before]
    return False


def compare(before: dict[tuple[str, str], Audit], after: dict[tuple[str, str], Audit]) -> int:
    """Print the comparison; the number of verdicts that got worse."""
    worse_count = 0
    for target in sorted(before):
        if target not in after:
            print(f"== {target[0]} {target[1]}: not in the second store")
            continue
        old, new = before[target], after[target]
        print(
            f"== {target[0]} {target[1]}: {old.seconds:.1f} s -> {new.seconds:.1f} s, "
            f"calls {sum(old.calls.values())} -> {sum(new.calls.values())}"
        )
        for tool in sorted(set(old.calls) | set(new.calls)):
            if old.calls.get(tool) != new.calls.get(tool):
                print(f"   calls {tool}: {old.calls.get(tool)} -> {new.calls.get(tool)}")
        for key in sorted(set(old.verdicts) | set(new.verdicts)):
            was, now = old.verdicts.get(key), new.verdicts.get(key)
            if was is None or now is None:
                print(f"   {key[0]} {key[1]}: only {'before' if now is None else 'after'}")
                continue
            if was[:2] != now[:2]:
                got_worse = worse(was[0], now[0])
                worse_count += got_worse
                print(
                    f"   {'WORSE ' if got_worse else ''}{key[0]} {key[1]}: {was[0]} {was[1] or ''} -> "
                    f"{now[0]} {now[1] or ''}: {now[2][:DETAILS_CHARS]}"
                )
    total_before = sum(audit.seconds for audit in before.values())
    total_after = sum(after[target].seconds for target in before if target in after)
    print(f"total {total_before:.1f} s -> {total_after:.1f} s; verdicts worse: {worse_count}")
    return worse_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    sys.exit(1 if compare(load(args.before), load(args.after)) else 0)


if __name__ == "__main__":
    main()
