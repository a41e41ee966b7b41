"""The audit's event stream on a real fixture server: started, one verdict per result as it is decided, finished;
and `check --verbose`, which prints those verdicts on stderr and leaves the report on stdout as it was."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hookconf import COMPLIANCE_SUITE
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.engine.events import AuditEvent, AuditFinished, AuditStarted, VerdictReached
from hookconf.report.model import ResultEntry
from tests.support import CliRun, stdio_server

# what differs between two audits of the same server: the clock's figures
TIMED_FIELDS = {"durationMs", "timing", "resources", "latency"}
MILLISECONDS = re.compile(r"\d+(\.\d+)? ms")


def entry_key(entry: ResultEntry) -> str:
    return entry.model_dump_json(exclude={"duration_ms"})


def test_events_arrive_in_order_one_verdict_per_result() -> None:
    events: list[AuditEvent] = []
    config = parse_config({"server": stdio_server("good_server.py")})
    report = run_audit(config, RunOptions(), listener=events.append)

    first, *middle, last = events
    assert isinstance(first, AuditStarted)
    assert first.server == config.server.name
    assert list(first.tools) == [tool.name for tool in report.tools]
    compliance_ids = [entry.id for entry in report.results if entry.suite == COMPLIANCE_SUITE]
    assert compliance_ids
    assert set(compliance_ids) <= set(first.checks)
    assert all(isinstance(event, VerdictReached) for event in middle)
    heard = [event.entry for event in middle if isinstance(event, VerdictReached)]
    assert Counter(map(entry_key, heard)) == Counter(map(entry_key, report.results))
    # the hook suites' verdicts come tool by tool, in the report's order, before any compliance check's
    hooks = [entry_key(e) for e in report.results if e.suite != COMPLIANCE_SUITE]
    assert [entry_key(e) for e in heard][: len(hooks)] == hooks
    assert isinstance(last, AuditFinished)
    assert last.summary == report.summary
    assert last.timing == report.timing


def test_an_audit_without_a_listener_gives_the_same_results() -> None:
    config = parse_config({"server": stdio_server("good_server.py")})
    options = RunOptions(suites=("idempotency", "determinism"))
    heard: list[AuditEvent] = []
    with_listener = run_audit(config, options, listener=heard.append)
    without = run_audit(config, options)
    assert [entry_key(e) for e in with_listener.results] == [entry_key(e) for e in without.results]
    assert len(heard) == len(without.results) + 2


def untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: untimed(item) for key, item in value.items() if key not in TIMED_FIELDS}
    if isinstance(value, list):
        return [untimed(item) for item in value]
    return MILLISECONDS.sub("N ms", value) if isinstance(value, str) else value


def test_verbose_prints_one_line_per_result_and_leaves_stdout_alone(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    config = str(write_config(stdio_server("good_server.py")))
    quiet = run_cli("check", config, "--output", "json")
    verbose = run_cli("check", config, "--output", "json", "-v")

    assert quiet.exit_code == verbose.exit_code == 0
    assert quiet.stderr == ""
    assert untimed(verbose.json()) == untimed(quiet.json())
    results = verbose.json()["results"]
    lines = verbose.stderr.splitlines()
    assert len(lines) == len(results)
    assert Counter(_status_and_name(line) for line in lines) == Counter(map(_result_status_and_name, results))
    assert all(line.endswith(" ms)") for line in lines)


def test_verbose_lines_show_the_servers_text_safely(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    config = str(write_config(stdio_server("raw_server.py", "--hostile-text")))
    run = run_cli("check", config, "--suite", "dsgvo", "--output", "json", "-v")
    lines = run.stderr.splitlines()
    assert len(lines) == len(run.json()["results"])  # a newline in a tool name does not split its line
    assert all(line.isprintable() for line in lines)  # ESC, BEL, NUL and U+202E written out, not sent


def _status_and_name(line: str) -> tuple[str, str]:
    label, name = line.split()[:2]
    return label, name


def _result_status_and_name(result: dict[str, Any]) -> tuple[str, str]:
    label = {"indeterminate": "INDET"}.get(result["status"], result["status"].upper())
    return label, result.get("id") or result["suite"]
