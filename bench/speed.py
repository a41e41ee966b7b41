"""Speed on real servers: hookconf beside mcp-lighthouse 0.4.0 and the floor, target by target (issue 15).

Every target of the manifests (default: targets/reference.toml and targets/corpus.toml) is installed as
`hookconf fleet run` installs it (.hookconf-cache/), then timed three ways, alternating per target and per
round so that machine noise hits all three alike:

- floor: a raw JSON-RPC client in this file (stdlib only) spawns the server as the manifest configures it,
  sends initialize (for a server that rejects it, the 2026-07-28 server/discover), notifications/initialized
  and tools/list (every page), then stops it as hookconf does (stdin closed, SIGTERM, SIGKILL);
- lighthouse: `mcp-lighthouse scan --stdio "CMD"`, 0.4.0 from its own venv under .hookconf-cache/bench;
- hookconf: `hookconf check CONFIG` as a new user runs it, the config holding only the server (the
  manifest's command, args and env, a fresh workdir as cwd): default suites and timeoutMs, no probes.

Each run gets a fresh workdir with the manifest's setup done; floor and lighthouse run the server in an
audit sandbox (its own HOME and TMPDIR), as a fleet run does; `hookconf check` makes its own. Wall times
are whole processes, from spawn to exit; a run is stopped after --timeout seconds and counted as that.

Printed per target: the medians of the three, hookconf/lighthouse and hookconf/floor, and the slowest
tool call in hookconf's JSON report (the highest latency p95, which over 5 samples is the slowest timed
call; a call that got no answer counts as timeoutMs; a tool whose calls failed has no p95: the mean of
the calls its hook suites made stands for it); then the issue's three targets with PASS/MISS.

    python bench/speed.py [MANIFEST ...] [--rounds N] [--only SERVER[@VERSION]] [--timeout S] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probe import prepared_target  # noqa: E402
from reference_audit import CACHE, install_venv, lighthouse_score  # noqa: E402

from hookconf import HOOK_SUITES  # noqa: E402
from hookconf.checks.latency import TIMED_SAMPLES, WARMUP_CALLS  # noqa: E402
from hookconf.errors import HookconfError  # noqa: E402
from hookconf.fleet.errors import InstallError, SetupError  # noqa: E402
from hookconf.fleet.install import INSTALLERS  # noqa: E402
from hookconf.fleet.manifest import load_targets  # noqa: E402
from hookconf.wire.process import (  # noqa: E402
    STDIN_CLOSE_GRACE_S,
    TERMINATE_GRACE_S,
    clean_environment,
    process_tree,
    terminate,
)

if TYPE_CHECKING:
    from hookconf.config import ServerConfig
    from hookconf.fleet.manifest import Target

MANIFESTS = [ROOT / "targets" / "reference.toml", ROOT / "targets" / "corpus.toml"]
LIGHTHOUSE = "mcp-lighthouse==0.4.0"
LIGHTHOUSE_VENV = CACHE / "lighthouse-0.4.0"
SIDES = ("floor", "lighthouse", "hookconf")
HANDSHAKE_VERSION = "2025-11-25"
STATELESS_VERSION = "2026-07-28"
META = "io.modelcontextprotocol/"
CLIENT_INFO = {"name": "hookconf-speed-floor", "version": "0"}
# The issue's targets.
TOTAL_TO_LIGHTHOUSE = 2.0
PER_TARGET_TO_LIGHTHOUSE = 4.0
MEDIAN_TO_FLOOR = 2.0


# ------------------------------------------------------------------------------------------ floor


class FloorError(Exception):
    """The server did not get through spawn, handshake and tools/list."""


class FloorClient:
    """Newline-delimited JSON-RPC over the server's stdio, answers read by id: a notification or a line
    that is not JSON may come between them."""

    def __init__(self, process: subprocess.Popen[bytes], deadline: float) -> None:
        self.process = process
        self.deadline = deadline
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in iter(self.process.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(b"")  # end of stdout

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            self.process.stdin.flush()
        except OSError as exc:
            raise FloorError(f"the server closed its stdin ({exc.strerror})") from None

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id, self.next_id = self.next_id, self.next_id + 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self._next_message(method)
            if "method" in message and "id" in message:  # the server asks something: answer as a bare client
                self._answer(message)
            elif message.get("id") == request_id and ("result" in message or "error" in message):
                return message

    def _next_message(self, waiting_for: str) -> dict[str, Any]:
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise FloorError(f"no answer to {waiting_for} before the timeout")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line == b"":
                raise FloorError(
                    f"the server closed stdout (exit {self.process.poll()}) before answering {waiting_for}"
                )
            with suppress(ValueError):
                message = json.loads(line)
                if isinstance(message, dict):
                    return message

    def _answer(self, request: dict[str, Any]) -> None:
        if request["method"] == "ping":
            self.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
        else:
            self.send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}})

    def list_tools(self) -> int:
        """Handshake, then every page of tools/list; the number of tools."""
        answer = self.request(
            "initialize", {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        )
        extra: dict[str, Any] = {}
        if "error" in answer:  # a 2026-07-28-only server: no handshake, every request carries _meta
            extra = {
                "_meta": {
                    f"{META}protocolVersion": STATELESS_VERSION,
                    f"{META}clientCapabilities": {},
                    f"{META}clientInfo": CLIENT_INFO,
                }
            }
            discovered = self.request("server/discover", extra)
            if "error" in discovered:
                raise FloorError(f"initialize and server/discover both failed: {discovered['error']}")
        else:
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, cursor = 0, None
        while True:
            page = self.request("tools/list", {**extra, **({"cursor": cursor} if cursor else {})})
            if "error" in page:
                raise FloorError(f"tools/list failed: {page['error']}")
            tools += len(page["result"].get("tools") or [])
            cursor = page["result"].get("nextCursor")
            if not cursor:
                return tools


def floor_run(server: ServerConfig, timeout: float) -> float:
    """Seconds from spawn to the server's end, for spawn, handshake, tools/list and stop."""
    assert server.command is not None
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        try:
            process = subprocess.Popen(
                [server.command, *server.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=server.cwd,
                env=clean_environment(dict(server.env)),
                start_new_session=True,
            )
        except OSError as exc:
            raise FloorError(f"cannot start {server.command}: {exc.strerror}") from None
        try:
            FloorClient(process, time.monotonic() + timeout).list_tools()
        except FloorError as exc:
            _stop(process)
            raise FloorError(f"{exc}{_tail(stderr)}") from None
        _stop(process)
        return time.perf_counter() - started


def _stop(process: subprocess.Popen[bytes]) -> None:
    """As hookconf stops a server: stdin closed, a short grace, SIGTERM to its group, then SIGKILL."""
    if process.stdin is not None:
        with suppress(OSError):
            process.stdin.close()
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STDIN_CLOSE_GRACE_S)
        return
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=TERMINATE_GRACE_S)
        return
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _tail(stream: IO[bytes], chars: int = 300) -> str:
    stream.seek(0)
    text = stream.read().decode("utf-8", "replace").strip()
    return f"; stderr: ...{text[-chars:]}" if text else ""


# --------------------------------------------------------------------------------- lighthouse, hookconf


@dataclass
class Completed:
    seconds: float
    timed_out: bool
    returncode: int | None
    stdout: str
    stderr: str


def timed(argv: list[str], *, env: dict[str, str] | None, cwd: Path, timeout: float) -> Completed:
    """Wall time of a whole process; after `timeout` its process tree (the server too) is ended."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        return Completed(time.perf_counter() - started, False, process.returncode, stdout, stderr)
    except subprocess.TimeoutExpired:
        elapsed = time.perf_counter() - started
        terminate(process_tree(process.pid))
        stdout, stderr = process.communicate()
        return Completed(elapsed, True, None, stdout, stderr)
    except BaseException:
        terminate(process_tree(process.pid))
        raise


def lighthouse_run(server: ServerConfig, workdir: Path, timeout: float) -> Run:
    assert server.command is not None
    # It splits the command with shlex and passes its own environment and cwd to the server.
    command = shlex.join([server.command, *server.args])
    done = timed(
        [str(LIGHTHOUSE_VENV / "bin" / "mcp-lighthouse"), "scan", "--stdio", command],
        env=clean_environment(dict(server.env)),
        cwd=workdir,
        timeout=timeout,
    )
    if done.timed_out:
        return Run("lighthouse", done.seconds, timed_out=True, error=f"stopped after {timeout:g} s")
    score = lighthouse_score(done.stdout)
    if score is None:
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:]  # a traceback's exception
        return Run("lighthouse", done.seconds, error=f"no score (exit {done.returncode}): {_gist(' '.join(last))}")
    return Run("lighthouse", done.seconds, note=score)


def hookconf_run(server: ServerConfig, timeout: float) -> Run:
    """`hookconf check` with a config holding nothing but the server, as a new user writes it."""
    launch = server.model_dump(include={"name", "command", "args", "env", "cwd"}, exclude_none=True)
    with tempfile.TemporaryDirectory(prefix="hookconf-speed-config-") as folder:
        config = Path(folder) / "hookconf.json"
        config.write_text(json.dumps({"server": launch}), encoding="utf-8")
        done = timed(
            [sys.executable, "-m", "hookconf", "check", str(config), "--output", "json"],
            env=None,
            cwd=Path(folder),
            timeout=timeout,
        )
    if done.timed_out:
        return Run("hookconf", done.seconds, timed_out=True, error=f"stopped after {timeout:g} s")
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return Run("hookconf", done.seconds, error=f"no report (exit {done.returncode}): {_gist(done.stderr)}")
    slowest = slowest_call(report)
    return Run(
        "hookconf",
        done.seconds,
        note=f"grade {report.get('grade')}, {len(report.get('tools', []))} tools",
        slowest_call_ms=slowest[1] if slowest else None,
        slowest_tool=slowest[0] if slowest else None,
        report_ms=report.get("durationMs"),
        longest_check=longest_check(report),
    )


def _gist(text: str, chars: int = 240) -> str:
    """An error message on one line, cut to its beginning."""
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else f"{flat[:chars]}..."


P95 = re.compile(r"\bp95 ([0-9.]+) ms")
HUNG = re.compile(r"no answer within timeoutMs \(([0-9]+) ms\)")


def longest_check(report: dict[str, Any]) -> str | None:
    """The result that took longest, as 'suite tool-or-check-id: N ms': where the audit's time went."""
    results = [entry for entry in report.get("results", []) if isinstance(entry.get("durationMs"), int | float)]
    if not results:
        return None
    entry = max(results, key=lambda item: float(item["durationMs"]))
    return f"{entry.get('suite')} {entry.get('id') or entry.get('tool')}: {float(entry['durationMs']):.0f} ms"


SERIES_CALLS = re.compile(r"\ball (\d+) calls failed|\bseries stopped after (\d+) calls?\b")


def series_calls(suite_results: list[dict[str, Any]]) -> int:
    """How many calls a tool's shared hook-suite series made, as its verdicts say when the series was cut
    short (a repeated failure, a dead backend, the series time cap); the full series otherwise."""
    counts = [
        int(match[1] or match[2])
        for entry in suite_results
        for match in SERIES_CALLS.finditer(str(entry.get("details", "")))
    ]
    return max(1, min(counts)) if counts else WARMUP_CALLS + TIMED_SAMPLES


def slowest_call(report: dict[str, Any]) -> tuple[str, float] | None:
    """The slowest single tool call the report shows, as (tool and how it was read, milliseconds), from
    each tool's latency result: its p95 (over 5 timed samples, the slowest of them); timeoutMs for a call
    that got no answer; for a tool whose calls failed (no p95), the mean of the calls its hook suites made
    (the durations of its hook-suite results over the calls its series made). None when
    the latency suite called no tool."""
    found: list[tuple[str, float]] = []
    results = [entry for entry in report.get("results", []) if isinstance(entry.get("durationMs"), int | float)]
    for entry in results:
        if entry.get("suite") != "latency" or entry.get("status") == "skip":
            continue
        details, tool = str(entry.get("details", "")), str(entry.get("tool"))
        if measured := entry.get("latency"):  # schema 1.4 on; the details' text in reports before it
            found.append((f"{tool}, p95", float(measured["p95Ms"])))
        elif match := P95.search(details):
            found.append((f"{tool}, p95", float(match[1])))
        elif match := HUNG.search(details):
            found.append((f"{tool}, hung", float(match[1])))
        else:
            suites = [other for other in results if other.get("tool") == tool and other.get("suite") in HOOK_SUITES]
            spent = sum(float(other["durationMs"]) for other in suites)
            found.append((f"{tool}, mean", spent / series_calls(suites)))
    return max(found, key=lambda item: item[1]) if found else None


# ------------------------------------------------------------------------------------------ the bench


@dataclass
class Run:
    side: str
    seconds: float | None  # None: the run failed before it could be timed
    timed_out: bool = False
    error: str | None = None
    note: str | None = None
    slowest_call_ms: float | None = None  # hookconf only
    slowest_tool: str | None = None
    report_ms: float | None = None  # hookconf only: the report's own durationMs
    longest_check: str | None = None  # hookconf only: the result that took longest
    round: int = 0


@dataclass
class TargetFigures:
    server: str
    version: str
    manifest: str
    failure: str | None = None  # could not be installed or set up: not timed
    runs: list[Run] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.server} {self.version}"

    def median(self, side: str) -> float | None:
        """Median wall time of the side's runs that ended (a timed-out run counts as the timeout); None if
        a run failed: its time would measure the failure, not the tool."""
        runs = [run for run in self.runs if run.side == side]
        if not runs or any(run.error and not run.timed_out for run in runs):
            return None
        return statistics.median(run.seconds or 0.0 for run in runs)

    def slowest_call_s(self) -> float | None:
        calls = [run.slowest_call_ms for run in self.runs if run.side == "hookconf" and run.slowest_call_ms]
        return statistics.median(calls) / 1000 if calls else None

    def timed_out(self, side: str) -> bool:
        return any(run.timed_out for run in self.runs if run.side == side)

    def errors(self) -> list[str]:
        return sorted({f"{run.side}: {run.error}" for run in self.runs if run.error})


def side_run(side: str, target: Target, timeout: float) -> Run:
    try:
        with prepared_target(target, sandboxed=side != "hookconf") as (server, workdir):
            if side == "floor":
                try:
                    return Run("floor", floor_run(server, timeout))
                except FloorError as exc:
                    return Run("floor", None, error=str(exc))
            if side == "lighthouse":
                return lighthouse_run(server, workdir, timeout)
            return hookconf_run(server, timeout)
    except (InstallError, SetupError) as exc:
        return Run(side, None, error=str(exc))


def install(targets: list[Target]) -> dict[tuple[str, str], str]:
    """Install every target (from the cache when it is there); the failures, by target."""
    failures = {}
    for target in targets:
        if target.resolve_error is not None:
            failures[target.key] = target.resolve_error
        elif target.url or target.source == "http":
            failures[target.key] = "an HTTP server: the floor and this bench speak stdio only"
        elif (installer := INSTALLERS.get(target.source)) is not None:
            try:
                installed = installer.ensure(target, ROOT / ".hookconf-cache")
            except InstallError as exc:
                failures[target.key] = f"install failed: {exc}"
                continue
            if not installed.cached:
                print(f"installed {target.label} in {installed.seconds:.0f} s", file=sys.stderr)
    return failures


def rotation(round_index: int, target_index: int) -> Sequence[str]:
    """The three sides in an order that moves on with every target and every round: none always goes
    first, on a cold file cache, or last, behind the others' leftovers."""
    shift = (round_index + target_index) % len(SIDES)
    return SIDES[shift:] + SIDES[:shift]


def bench(targets: list[Target], rounds: int, timeout: float) -> list[TargetFigures]:
    failures = install(targets)
    figures = [TargetFigures(t.server, t.version, t.manifest, failures.get(t.key)) for t in targets]
    for round_index in range(rounds):
        for index, (target, entry) in enumerate(zip(targets, figures, strict=True)):
            if entry.failure:
                continue
            for side in rotation(round_index, index):
                run = side_run(side, target, timeout)
                run.round = round_index + 1
                entry.runs.append(run)
                status = f"{run.seconds:.2f} s" if run.seconds is not None else "-"
                status += f" ({run.error})" if run.error else ""
                print(f"[round {round_index + 1}/{rounds}] {entry.label}: {side} {status}", file=sys.stderr, flush=True)
    return figures


# ----------------------------------------------------------------------------------------- the report


@dataclass
class Verdicts:
    total_floor: float
    total_lighthouse: float
    total_hookconf: float
    compared: list[str]
    over_limit: list[tuple[str, float, float]]  # target, hookconf seconds, its limit
    median_to_floor: float | None
    lines: list[str]


def judged(figures: list[TargetFigures]) -> Verdicts:
    """The issue's three targets over the targets that all three sides got through. A hookconf run stopped at
    the timeout counts as the timeout (at least); one of the others leaves its target out: a bound is no
    yardstick."""
    complete = [
        f
        for f in figures
        if all(f.median(side) is not None for side in SIDES)
        and not f.timed_out("floor")
        and not f.timed_out("lighthouse")
    ]
    totals = {side: sum(f.median(side) or 0.0 for f in complete) for side in SIDES}
    over = []
    for entry in complete:
        hookconf, lighthouse = entry.median("hookconf") or 0.0, entry.median("lighthouse") or 0.0
        limit = PER_TARGET_TO_LIGHTHOUSE * lighthouse + (entry.slowest_call_s() or 0.0)
        if hookconf > limit:
            over.append((entry.label, hookconf, limit))
    to_floor = [(f.median("hookconf") or 0.0) / (f.median("floor") or 1.0) for f in complete]
    median_to_floor = statistics.median(to_floor) if to_floor else None
    if not complete:
        return Verdicts(0.0, 0.0, 0.0, [], [], None, ["n/a: no target that all three got through"])
    ratio = totals["hookconf"] / totals["lighthouse"] if totals["lighthouse"] else float("inf")
    worst = max(over, key=lambda item: item[1] / item[2], default=None)
    lines = [
        f"{_verdict(ratio <= TOTAL_TO_LIGHTHOUSE)}  total hookconf <= {TOTAL_TO_LIGHTHOUSE:g}x total lighthouse: "
        f"{totals['hookconf']:.1f} s against {totals['lighthouse']:.1f} s ({ratio:.2f}x)",
        f"{_verdict(not over)}  no target above {PER_TARGET_TO_LIGHTHOUSE:g}x lighthouse + its slowest call: "
        f"{len(over)} of {len(complete)} above"
        + (f"; worst {worst[0]}: {worst[1]:.1f} s against a limit of {worst[2]:.1f} s" if worst else ""),
        f"{_verdict(median_to_floor is not None and median_to_floor <= MEDIAN_TO_FLOOR)}  median hookconf/floor "
        f"<= {MEDIAN_TO_FLOOR:g}: " + (f"{median_to_floor:.2f}" if median_to_floor is not None else "n/a"),
    ]
    return Verdicts(
        totals["floor"],
        totals["lighthouse"],
        totals["hookconf"],
        [f.label for f in complete],
        over,
        median_to_floor,
        lines,
    )


def _verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"


def _seconds(entry: TargetFigures, side: str) -> str:
    median = entry.median(side)
    if median is None:
        return "failed"
    return f"{'>' if entry.timed_out(side) else ''}{median:.2f}"


def _ratio(numerator: float | None, denominator: float | None) -> str:
    return f"{numerator / denominator:.2f}" if numerator is not None and denominator else "-"


def table(figures: list[TargetFigures], verdicts: Verdicts, rounds: int) -> str:
    rows = [
        f"{'target':<36} {'floor s':>8} {'lighthouse s':>12} {'hookconf s':>10} {'hc/lh':>6} {'hc/floor':>8}"
        f"  slowest call"
    ]
    notes = []
    for entry in figures:
        if entry.failure:
            rows.append(f"{entry.label:<36} not timed: {entry.failure.splitlines()[0][:120]}")
            continue
        slowest = entry.slowest_call_s()
        tool = next((r.slowest_tool for r in entry.runs if r.side == "hookconf" and r.slowest_tool), None)
        hookconf = entry.median("hookconf")
        rows.append(
            f"{entry.label:<36} {_seconds(entry, 'floor'):>8} {_seconds(entry, 'lighthouse'):>12} "
            f"{_seconds(entry, 'hookconf'):>10} {_ratio(hookconf, entry.median('lighthouse')):>6} "
            f"{_ratio(hookconf, entry.median('floor')):>8}  "
            + (f"{slowest:.2f} s ({tool})" if slowest is not None else "n/a")
        )
        notes += [f"  {entry.label}: {error[:300]}" for error in entry.errors()]
        derailed = {r.note for r in entry.runs if r.side == "lighthouse" and r.note and "derailed" in r.note}
        notes += [f"  {entry.label}: lighthouse {note}" for note in sorted(derailed)]
    rows.append(
        f"{f'total ({len(verdicts.compared)} of {len(figures)} targets)':<36} "
        f"{verdicts.total_floor:>8.1f} {verdicts.total_lighthouse:>12.1f} {verdicts.total_hookconf:>10.1f} "
        f"{_ratio(verdicts.total_hookconf, verdicts.total_lighthouse):>6} "
        f"{_ratio(verdicts.total_hookconf, verdicts.total_floor):>8}"
    )
    text = [
        f"Wall seconds, medians of {rounds} round(s); '>': a run stopped at the timeout.",
        "Slowest call, from hookconf's report: the highest latency p95 (hung: timeoutMs; mean: a tool whose calls",
        "failed, the mean of its hook suites' calls). Totals: the targets that all three got through (a hookconf",
        "run stopped at the timeout counts as the timeout).",
        *rows,
    ]
    if notes:
        text += ["", "Runs that failed or are not comparable:", *notes]
    if verdicts.over_limit:
        text += [
            "",
            "Above 4x lighthouse + slowest call:",
            *[
                f"  {label}: {seconds:.1f} s, limit {limit:.1f} s; longest check {_longest(figures, label)}"
                for label, seconds, limit in verdicts.over_limit
            ],
        ]
    return "\n".join([*text, "", "Issue 15's targets:", *[f"  {line}" for line in verdicts.lines]])


def _longest(figures: list[TargetFigures], label: str) -> str:
    runs = [run for entry in figures if entry.label == label for run in entry.runs if run.longest_check]
    return runs[-1].longest_check or "-" if runs else "-"


def provenance() -> dict[str, Any]:
    from hookconf import __version__

    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "hookconf"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "commit": commit + ("+uncommitted hookconf changes" if dirty else ""),
        "hookconf": __version__,
        "lighthouse": LIGHTHOUSE,
        "cpus": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "startedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


# ---------------------------------------------------------------------------------------------- main


def selected(manifests: list[Path], only: list[str]) -> list[Target]:
    """The manifests' targets; `only` narrows to SERVER or SERVER@VERSION."""
    servers = [item.partition("@")[0] for item in only]
    targets = load_targets(manifests, servers)
    versions = {item.partition("@")[0]: item.partition("@")[2] for item in only if "@" in item}
    return [t for t in targets if t.server not in versions or versions[t.server] == t.version]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="speed.py",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Lines as 'round N: target: side seconds' go to stderr as it runs.",
    )
    parser.add_argument(
        "manifests",
        nargs="*",
        type=Path,
        default=MANIFESTS,
        help="fleet manifests (default: targets/reference.toml targets/corpus.toml)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side per target (default 3; medians)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="SERVER[@VERSION]",
        help="only this server (all its versions, or one); repeat for several",
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds one run may take before it is stopped (default 300)"
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the raw figures here")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        targets = selected(args.manifests, args.only)
    except HookconfError as exc:  # a bad manifest or an unknown --only: its message says which
        print(f"speed.py: {str(exc).replace('--server', '--only')}", file=sys.stderr)
        return 2
    if not targets:
        print("speed.py: no target matches", file=sys.stderr)
        return 2
    install_venv(LIGHTHOUSE_VENV, [LIGHTHOUSE], "mcp-lighthouse")
    started = provenance()
    figures = bench(targets, args.rounds, args.timeout)
    verdicts = judged(figures)
    print(
        f"hookconf {started['hookconf']} at {started['commit']}, {LIGHTHOUSE}, {len(targets)} targets, "
        f"{args.rounds} round(s); load average {started['loadavg'][0]:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end, {os.cpu_count()} CPUs"
    )
    print(table(figures, verdicts, args.rounds))
    if args.json:
        raw = {
            **started,
            "loadavgAtEnd": os.getloadavg(),
            "rounds": args.rounds,
            "timeoutS": args.timeout,
            "targets": [
                {
                    **asdict(entry),
                    "medians": {side: entry.median(side) for side in SIDES},
                    "slowestCallS": entry.slowest_call_s(),
                }
                for entry in figures
            ],
            "verdicts": asdict(verdicts),
        }
        args.json.write_text(json.dumps(raw, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
