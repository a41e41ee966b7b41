"""The verdict ledger: every FAIL/WARN hookconf gave on the corpus, judged REAL or FALSE.

Reads the newest audit of every (server, version) in a fleet store, takes every result whose status
is `fail` or `warn`, groups them by (server, version, check id or finding code, normalised reason)
and matches each group to an entry of the ledger (bench/ledger.toml). Prints the totals per
server-version and overall (verdicts, REAL, FALSE, unjudged, false share) and the groups no entry
judges yet; `--stubs` prints those as ledger entries to fill in.

    python bench/ledger.py [--store reports/corpus.sqlite] [--ledger bench/ledger.toml] [--stubs]

A reason is normalised before matching: numbers, paths, quoted tool names of the audit's temporary
directories and timings are masked, only the first line is kept (see `normalise`). An entry's
`reason` is a glob over the normalised reason (`*` matches anything), and its `servers` are globs
over `SERVER@VERSION` (`context7@*`, or `*` for a shared entry whose evidence applies to all).
The false share is FALSE / (REAL + FALSE): the share of judged FAIL/WARN verdicts that were wrong.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sqlite3
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_STORE = ROOT / "reports" / "corpus.sqlite"
DEFAULT_LEDGER = ROOT / "bench" / "ledger.toml"
DEFAULT_MANIFEST = "targets/corpus.toml"
FLAGGED = ("fail", "warn")
VERDICTS = ("REAL", "FALSE")
REASON_LIMIT = 240

_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<![\w/])(?:/[\w.@+~-]+){2,}/?"), "<path>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|s|KB|MB|KiB|MiB|bytes)\b"), "<measure>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T[\d:.]+Z?"), "<time>"),
    (re.compile(r"(?<![\w-])-?\d+(?:\.\d+)?(?![\w-])"), "<n>"),
)
# Protocol revisions and JSON-RPC codes say what a reason is about; they stay readable.
_KEEP = re.compile(r"\d{4}-\d{2}-\d{2}|-32\d{3}")


def normalise(reason: str | None) -> str:
    """The part of a reason that says why, without what changes from run to run."""
    first = (reason or "").strip().splitlines()[0] if (reason or "").strip() else ""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match[0])
        return f"\x00{_letters(len(kept) - 1)}\x00"

    text = _KEEP.sub(keep, first)
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    text = re.sub(r"\x00([a-z]+)\x00", lambda match: kept[_index(match[1])], text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:REASON_LIMIT]


def _letters(index: int) -> str:
    """A placeholder index the number mask cannot touch."""
    return "".join(chr(ord("a") + int(digit)) for digit in str(index))


def _index(letters: str) -> int:
    return int("".join(str(ord(letter) - ord("a")) for letter in letters))


@dataclass(frozen=True)
class Flag:
    """One FAIL or WARN result of one audit."""

    target: str  # SERVER@VERSION
    check: str  # compliance check id or finding code
    tool: str | None
    status: str
    reason: str  # normalised


@dataclass
class Group:
    target: str
    check: str
    reason: str
    statuses: Counter[str] = field(default_factory=Counter)
    tools: set[str] = field(default_factory=set)

    @property
    def count(self) -> int:
        return sum(self.statuses.values())


@dataclass(frozen=True)
class Entry:
    servers: tuple[str, ...]
    check: str
    reason: str
    verdict: str
    why: str
    tools: tuple[str, ...] = ("*",)
    cause: str = ""
    probe: str = ""
    evidence: str = ""

    def matches(self, flag: Flag) -> bool:
        return (
            self.check == flag.check
            and _any_glob(flag.target, self.servers)
            and fnmatch.fnmatchcase(flag.reason, self.reason)
            and (flag.tool is None or _any_glob(flag.tool, self.tools))
        )


@dataclass(frozen=True)
class Missed:
    """A real defect of a corpus server that hookconf should flag (a FAIL or WARN with `check`)."""

    servers: tuple[str, ...]
    check: str
    why: str
    tools: tuple[str, ...] = ("*",)

    def caught_by(self, flag: Flag) -> bool:
        return (
            self.check == flag.check
            and _any_glob(flag.target, self.servers)
            and (flag.tool is None or _any_glob(flag.tool, self.tools))
        )


def _any_glob(text: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(text, pattern) for pattern in patterns)


def flags_of(target: str, report: Mapping[str, Any]) -> list[Flag]:
    flags = []
    for result in report.get("results", []):
        if result.get("status") not in FLAGGED:
            continue
        check = result.get("id") or result.get("code") or f"{result.get('suite')}?"
        tool = result.get("tool") if result.get("tool") not in (None, "(server)") else None
        flags.append(Flag(target, str(check), tool, str(result["status"]), normalise(result.get("details"))))
    return flags


def group(flags: Iterable[Flag]) -> list[Group]:
    groups: dict[tuple[str, str, str], Group] = {}
    for flag in flags:
        key = (flag.target, flag.check, flag.reason)
        item = groups.setdefault(key, Group(*key))
        item.statuses[flag.status] += 1
        if flag.tool:
            item.tools.add(flag.tool)
    return list(groups.values())


def judge(flag: Flag, entries: Sequence[Entry]) -> Entry | None:
    """The first entry that judges this verdict (entries are read in order: put tool-specific ones first)."""
    return next((entry for entry in entries if entry.matches(flag)), None)


def parse_ledger(data: Mapping[str, Any]) -> list[Entry]:
    entries = []
    for index, raw in enumerate(data.get("entry", [])):
        verdict = str(raw.get("verdict", "")).upper()
        if verdict not in VERDICTS:
            raise ValueError(f"entry {index + 1} ({raw.get('check')}): verdict must be REAL or FALSE, not {verdict!r}")
        servers = raw.get("servers", raw.get("server", "*"))
        tools = raw.get("tools", "*")
        entries.append(
            Entry(
                servers=tuple([servers] if isinstance(servers, str) else servers),
                check=str(raw["check"]),
                tools=tuple([tools] if isinstance(tools, str) else tools),
                reason=str(raw.get("reason", "*")),
                verdict=verdict,
                why=str(raw.get("why", "")),
                cause=str(raw.get("cause", "")),
                probe=str(raw.get("probe", "")),
                evidence=str(raw.get("evidence", "")),
            )
        )
    return entries


def parse_missed(data: Mapping[str, Any]) -> list[Missed]:
    missed = []
    for raw in data.get("missed", []):
        servers, tools = raw.get("servers", "*"), raw.get("tools", "*")
        missed.append(
            Missed(
                servers=tuple([servers] if isinstance(servers, str) else servers),
                check=str(raw["check"]),
                why=str(raw.get("why", "")),
                tools=tuple([tools] if isinstance(tools, str) else tools),
            )
        )
    return missed


def load_ledger(path: Path) -> tuple[list[Entry], list[Missed]]:
    if not path.exists():
        return [], []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return parse_ledger(data), parse_missed(data)


def load_store(path: Path) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The newest report of every SERVER@VERSION, and the targets whose audit produced no report."""
    if not path.exists():
        raise SystemExit(f"ledger.py: no store at {path}; run `hookconf fleet run targets/corpus.toml --store {path}`")
    import json

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT server, version, outcome, message, report_json FROM audits WHERE id IN "
        "(SELECT MAX(id) FROM audits GROUP BY server, version) ORDER BY server, version"
    )
    reports: dict[str, dict[str, Any]] = {}
    missing: dict[str, str] = {}
    for server, version, outcome, message, report_json in rows:
        target = f"{server}@{version}"
        if report_json:
            reports[target] = json.loads(report_json)
        else:
            missing[target] = f"{outcome}: {(message or '').strip().splitlines()[0] if message else ''}"
    db.close()
    return reports, missing


@dataclass
class Tally:
    verdicts: int = 0
    real: int = 0
    false: int = 0

    @property
    def unjudged(self) -> int:
        return self.verdicts - self.real - self.false

    def add(self, count: int, verdict: str | None) -> None:
        self.verdicts += count
        if verdict == "REAL":
            self.real += count
        elif verdict == "FALSE":
            self.false += count

    def false_share(self) -> str:
        judged = self.real + self.false
        return f"{100 * self.false / judged:.1f} %" if judged else "n/a"


def tally(flags: Sequence[Flag], entries: Sequence[Entry]) -> tuple[dict[str, Tally], Tally, list[Group]]:
    """Totals per target and overall, and the unjudged verdicts as groups."""
    per_target: dict[str, Tally] = {}
    total = Tally()
    unjudged = []
    for flag in flags:
        entry = judge(flag, entries)
        verdict = entry.verdict if entry else None
        per_target.setdefault(flag.target, Tally()).add(1, verdict)
        total.add(1, verdict)
        if entry is None:
            unjudged.append(flag)
    return per_target, total, group(unjudged)


def render_table(per_target: Mapping[str, Tally], total: Tally, targets: Iterable[str]) -> str:
    rows = [("server@version", "verdicts", "REAL", "FALSE", "unjudged", "false share")]
    for target in targets:
        t = per_target.get(target, Tally())
        rows.append((target, str(t.verdicts), str(t.real), str(t.false), str(t.unjudged), t.false_share()))
    rows.append(
        ("TOTAL", str(total.verdicts), str(total.real), str(total.false), str(total.unjudged), total.false_share())
    )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    )


def stub(item: Group, manifest: str) -> str:
    tools = f"  # tools: {', '.join(sorted(item.tools))}" if item.tools else ""
    statuses = ", ".join(f"{count} {status}" for status, count in sorted(item.statuses.items()))
    return "\n".join(
        [
            "[[entry]]",
            f"servers = [{_toml_string(item.target)}]  # {statuses}{tools}",
            f"check = {_toml_string(item.check)}",
            f"reason = {_toml_string(_glob_escape(item.reason))}",
            'verdict = ""  # REAL or FALSE',
            'why = ""',
            'cause = ""',
            f"probe = {_toml_string(f'python bench/probe.py --target {manifest}:{item.target} --method tools/list')}",
            'evidence = """\n"""',
            "",
        ]
    )


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def report_missed(missed: Sequence[Missed], flags: Sequence[Flag], targets: set[str]) -> None:
    """Real defects the ledger knows hookconf should flag: caught now, or still missed."""
    relevant = [item for item in missed if any(_any_glob(target, item.servers) for target in targets)]
    if not relevant:
        return
    caught = [item for item in relevant if any(item.caught_by(flag) for flag in flags)]
    print(f"\nknown defects: {len(caught)} of {len(relevant)} flagged")
    for item in relevant:
        status = "caught" if item in caught else "MISSED"
        print(f"  {status:6}  {', '.join(item.servers)}  {item.check}  {item.why[:90]}")


def unused_entries(entries: Sequence[Entry], flags: Sequence[Flag]) -> list[Entry]:
    return [entry for entry in entries if not any(entry.matches(flag) for flag in flags)]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ledger.py", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"fleet store (default {DEFAULT_STORE})")
    parser.add_argument("--ledger", type=Path, default=DEFAULT_LEDGER, help=f"the ledger (default {DEFAULT_LEDGER})")
    parser.add_argument("--manifest", default=DEFAULT_MANIFEST, help="named in the stubs' probe commands")
    parser.add_argument("--stubs", action="store_true", help="print the unjudged groups as ledger entries")
    parser.add_argument("--server", help="only targets whose SERVER@VERSION matches this glob")
    parser.add_argument("--groups", action="store_true", help="list every group with its verdict")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    reports, missing = load_store(args.store)
    entries, missed = load_ledger(args.ledger)
    selected = {t: r for t, r in reports.items() if not args.server or fnmatch.fnmatchcase(t, args.server)}
    flags = [flag for target, report in selected.items() for flag in flags_of(target, report)]
    per_target, total, unjudged = tally(flags, entries)
    if args.stubs:
        print("\n".join(stub(item, args.manifest) for item in unjudged))
        return 0
    print(render_table(per_target, total, sorted(selected)))
    if args.groups:
        print("\nverdicts by entry:")
        counts = Counter(
            (entry.verdict if entry else "?", flag.target, flag.check, flag.reason)
            for flag in flags
            for entry in [judge(flag, entries)]
        )
        for (verdict, target, check, reason), count in counts.items():
            print(f"  {verdict:5} {count:3}  {target}  {check}  {reason}")
    report_missed(missed, flags, set(selected))
    causes = Counter(
        entry.cause or "(no cause given)"
        for flag in flags
        for entry in [judge(flag, entries)]
        if entry is not None and entry.verdict == "FALSE"
    )
    if causes:
        print("\nFALSE verdicts by cause:")
        for cause, count in causes.most_common():
            print(f"  {count:4}  {cause}")
    for target, why in sorted(missing.items()):
        print(f"no report: {target}: {why}")
    if unjudged:
        print(f"\n{len(unjudged)} unjudged group(s) ({total.unjudged} verdicts):")
        for item in unjudged:
            print(f"  {item.count:3}  {item.target}  {item.check}  {item.reason}")
    stale = [entry for entry in unused_entries(entries, flags) if any(_any_glob(t, entry.servers) for t in selected)]
    if stale:
        print(
            f"\n{len(stale)} ledger entr{'y' if len(stale) == 1 else 'ies'} matched nothing in this store "
            "(fixed, or the reason changed):"
        )
        for entry in stale:
            print(f"  {entry.verdict:5}  {', '.join(entry.servers)}  {entry.check}  {entry.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
