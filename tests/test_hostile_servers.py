"""Servers that break the stream on purpose, audited as real processes: every fault is named at once and becomes
a verdict on the check it breaks (or, where nothing can be audited, an error that names it), never a wait for
the timeout and never a traceback."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import hookconf.engine.audit  # imported up front, so that the CLI's timings below measure the audit only
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.engine.compliance import ComplianceOptions
from hookconf.report.model import Report, ResultEntry
from hookconf.verdicts import Status
from tests.support import FIXTURES, CliRun, check_in_process, free_port, stdio_server, wait_for_port

TIMEOUT_MS = 20_000  # a wait for the timeout would show: every case below ends far sooner
PROMPT_S = 10.0  # a whole audit of the fixture, under load, with room to spare
HTTP_PROMPT_S = 1.0
assert hookconf.engine.audit


def audit(
    *flags: str, only: tuple[str, ...], suites: tuple[str, ...] = ("idempotency", "compliance")
) -> tuple[Report, float]:
    config = parse_config(
        {
            "server": stdio_server("raw_server.py", *flags),
            "timeoutMs": TIMEOUT_MS,
            "probes": [{"name": "alpha", "args": {"q": "abc"}}],
        }
    )
    started = time.monotonic()
    report = run_audit(config, RunOptions(suites=suites, tool="alpha", compliance=ComplianceOptions(only=only)))
    return report, time.monotonic() - started


def result(report: Report, key: str) -> ResultEntry:
    return next(r for r in report.results if r.id == key or (r.suite == key and r.tool == "alpha"))


def check_cli(tmp_path: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """The CLI in a process of its own: a traceback from any thread shows on its stderr."""
    config = tmp_path / "hook-conformance.config.json"
    config.write_text(json.dumps({"server": stdio_server("raw_server.py", *flags), "timeoutMs": TIMEOUT_MS}))
    started = time.monotonic()
    done = check_in_process(config)
    return done, time.monotonic() - started


# --- stdio: broken bytes and broken messages -----------------------------------------------------------------
def test_invalid_utf8_in_an_answer_fails_the_framing_check_naming_the_offset() -> None:
    report, elapsed = audit("--hostile", "invalid-utf8", only=("stdio-framing",))
    framing = result(report, "stdio-framing")
    assert framing.status is Status.FAIL
    assert "invalid UTF-8 at byte offset" in str(framing.details)
    assert "(bytes e9)" in str(framing.details)
    assert result(report, "idempotency").status is Status.PASS  # the text around the byte was still readable
    assert elapsed < PROMPT_S


def test_invalid_utf8_in_the_initialize_answer_is_a_verdict_not_an_abort() -> None:
    report, _ = audit("--hostile", "invalid-utf8", "--hostile-on", "initialize", only=("stdio-framing",))
    assert report.server.protocol_version == "2025-11-25"
    assert "invalid UTF-8 at byte offset" in str(result(report, "stdio-framing").details)


@pytest.mark.parametrize(
    ("kind", "cause"),
    [
        ("garbled", "not JSON: Unterminated string"),
        ("deep", "nested more than 128 levels deep"),
    ],
)
def test_an_unreadable_answer_ends_the_wait_and_fails_the_jsonrpc_check(kind: str, cause: str) -> None:
    report, elapsed = audit("--hostile", kind, only=("lifecycle-jsonrpc",))
    assert elapsed < PROMPT_S  # main waited 20 s per call
    jsonrpc = result(report, "lifecycle-jsonrpc")
    assert jsonrpc.status is Status.FAIL
    assert cause in str(jsonrpc.details)
    calls = result(report, "idempotency")
    assert calls.status is Status.INDETERMINATE
    assert f"(tools/call) could not be read: {cause}" in str(calls.details)


@pytest.mark.parametrize(
    ("flags", "cause"),
    [
        (("--hostile", "garbled", "--hostile-on", "initialize"), "(initialize) could not be read: not JSON"),
        (("--hostile", "deep", "--hostile-on", "tools/list"), "nested more than 128 levels deep"),
        (("--close-stdin-after-init",), "server closed its stdin"),
    ],
)
def test_a_server_that_cannot_be_audited_is_named_at_once_without_a_traceback(
    tmp_path: Path, flags: tuple[str, ...], cause: str
) -> None:
    done, elapsed = check_cli(tmp_path, *flags)
    assert done.returncode == 1
    assert cause in done.stderr
    assert "Traceback" not in done.stderr
    assert elapsed < PROMPT_S


def test_an_endless_line_is_cut_at_the_bound_and_fails_the_framing_check() -> None:
    before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report, elapsed = audit("--hostile", "oversized", only=("stdio-framing",))
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_kib) / 1024
    assert grown_mib < 256  # main read the line until the kernel killed it
    framing = result(report, "stdio-framing")
    assert framing.status is Status.FAIL
    assert "a stdout line longer than 32 MiB" in str(framing.details)
    assert "longer than 32 MiB" in str(result(report, "idempotency").details)
    assert elapsed < PROMPT_S


def test_a_closed_stdout_is_named_at_once_and_not_blamed_on_the_next_check() -> None:
    report, elapsed = audit("--close-stdout-after-list", only=("error-unknown-method",))
    assert "server closed its stdout (the process is still running)" in str(result(report, "idempotency").details)
    # It closed under the hook suites: the next check gets a new server, not the blame.
    assert result(report, "error-unknown-method").status is Status.PASS
    assert elapsed < PROMPT_S


# --- negotiation: a bad answer is a verdict -----------------------------------------------------------------
def test_responses_with_unknown_ids_fail_the_id_match_check_naming_them() -> None:
    report, elapsed = audit("--hostile", "wrong-id", "--hostile-on", "all", only=("lifecycle-id-match",))
    id_match = result(report, "lifecycle-id-match")
    assert id_match.status is Status.FAIL
    assert "100001" in str(id_match.details)
    assert "taken as the answer to request" in str(id_match.details)
    assert result(report, "idempotency").status is Status.PASS
    assert elapsed < PROMPT_S


@pytest.mark.parametrize(
    ("answered", "why"),
    [
        ("2025-13-45", "is not a published revision"),
        ("2026-07-28", "is a stateless revision, which has no initialize"),
    ],
)
def test_an_invalid_protocol_version_fails_its_check_in_a_full_report(answered: str, why: str) -> None:
    report, _ = audit("--bad-version", answered, only=("lifecycle-proto-version", "lifecycle-ping"))
    version = result(report, "lifecycle-proto-version")
    assert version.status is Status.FAIL
    assert f"protocolVersion {answered} {why}" in str(version.details)
    assert result(report, "lifecycle-ping").status is Status.PASS  # the audit went on
    assert report.server.protocol_version == "2025-11-25"
    assert any(f'protocolVersion "{answered}"' in warning for warning in report.warnings)


# --- HTTP: errors at once -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def status_server() -> Iterator[Callable[[int], str]]:
    """raw_server.py answering every POST with a given HTTP status, started outside hookconf."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(status: int) -> str:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, str(FIXTURES / "raw_server.py"), "--http", str(port), "--http-status", str(status)],
            stdin=subprocess.DEVNULL,
        )
        processes.append(process)
        wait_for_port(port, process)
        return f"127.0.0.1:{port}"

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=5)


def url_of(target: str, status_server: Callable[[int], str]) -> str:
    if target == "refused":
        return f"http://127.0.0.1:{free_port()}/mcp"  # a closed port
    if target == "dns":
        return "http://mcp-fixture.invalid/mcp"  # .invalid never resolves (RFC 6761)
    if target == "tls":
        return f"https://{status_server(200)}/mcp"  # TLS spoken to a plain-HTTP server
    return f"http://{status_server(int(target))}/mcp"


def http_check(run_cli: Callable[..., CliRun], write_config: Callable[..., Path], url: str) -> tuple[CliRun, float]:
    config = write_config({"name": "remote", "transport": "http", "url": url}, timeoutMs=30_000)
    started = time.monotonic()
    run = run_cli("check", str(config), "--output", "json")
    return run, time.monotonic() - started


@pytest.mark.http
@pytest.mark.parametrize(
    ("target", "cause"),
    [
        ("refused", "connection refused"),
        ("dns", "DNS lookup of mcp-fixture.invalid failed"),
        ("tls", "TLS handshake failed"),
        ("501", "HTTP 501 Not Implemented with no JSON-RPC answer (body: 'raw-fixture answers 501')"),
        ("404", "HTTP 404 Not Found with no JSON-RPC answer"),
    ],
)
def test_an_http_error_ends_the_audit_at_once_naming_the_cause(
    run_cli: Callable[..., CliRun],
    write_config: Callable[..., Path],
    status_server: Callable[[int], str],
    target: str,
    cause: str,
) -> None:
    run, elapsed = http_check(run_cli, write_config, url_of(target, status_server))
    assert run.exit_code == 1  # the README's code for a server that cannot be audited
    assert cause in run.stderr
    assert elapsed < HTTP_PROMPT_S  # main waited the whole 30 s timeout
