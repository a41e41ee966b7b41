"""Fixture servers on the real SDKs, audited through the CLI: each graded in the era it really speaks.

The SDKs are installed by this module's session fixture into `.hookconf-cache/test-sdks/` (gitignored): npm
prefixes for the TypeScript SDKs, uv venvs for the Python SDK 1.x and FastMCP; the Python SDK 2.x is the
project's own test dependency. A kit is installed once and reused while its marker (written last, naming the
pinned packages) matches; a half-done one is wiped and installed again. Only an unreachable registry skips
these tests, and under CI not even that.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookconf.config import parse_config
from hookconf.era import connect
from tests.support import FIXTURES, CliRun, free_port

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".hookconf-cache" / "test-sdks"
SDK_FIXTURES = FIXTURES / "sdk"
MARKER = "installed.txt"
INSTALL_TIMEOUT_S = 600
# what a client prints when it cannot reach the registry at all (as opposed to a package that fails to install)
UNREACHABLE = re.compile(
    r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|dns error"
    r"|failed to fetch|connection refused|tcp connect error",
    re.IGNORECASE,
)
STATELESS = "2026-07-28"
HANDSHAKE = "2025-11-25"
# The checks a 2026-07-28 grade over a connection pinned to the handshake era fails: the `_meta` rules, the
# caching hints, resultType and the validation of every message against the 2026-07-28 schema.
ERA_SENSITIVE_CHECKS = (
    "lifecycle-meta-required",
    "lifecycle-meta-protocol-version-required",
    "lifecycle-meta-client-capabilities-required",
    "lifecycle-meta-client-info-optional",
    "lifecycle-meta-tolerance",
    "lifecycle-string-id",
    "lifecycle-removed-methods",
    "lifecycle-discover-caching",
    "tools-list-caching",
    "resources-list-caching",
    "resources-read-caching",
    "resources-templates-caching",
    "prompts-list-caching",
    "schema-result-type",
    "schema-wire-valid",
    "tools-list",
    "resources-list",
    "prompts-list",
    "WIRE-001",
)


# --- the SDKs ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kit:
    name: str
    kind: str  # "npm" (a prefix) or "uv" (a venv)
    packages: tuple[str, ...]  # exact pins

    @property
    def path(self) -> Path:
        return CACHE / self.name

    @property
    def node_modules(self) -> str:
        return str(self.path / "node_modules")

    @property
    def python(self) -> str:
        return str(self.path / "bin" / "python")

    def complete(self) -> bool:
        marker = self.path / MARKER
        return marker.is_file() and marker.read_text(encoding="utf-8") == "\n".join(self.packages)


TS2 = Kit("npm-ts-sdk-2", "npm", ("@modelcontextprotocol/server@2.4.0", "zod@4.6.7"))
TS1 = Kit("npm-ts-sdk-1", "npm", ("@modelcontextprotocol/sdk@1.32.2", "zod@4.6.7"))
MCP1 = Kit("uv-mcp-1", "uv", ("mcp==1.30.0",))
FASTMCP = Kit("uv-fastmcp", "uv", ("fastmcp==4.1.6",))
KITS = (TS2, TS1, MCP1, FASTMCP)


class RegistryUnreachableError(Exception):
    """The package registry could not be reached: the SDK fixtures cannot be installed here."""


@pytest.fixture(scope="session")
def sdk_kits() -> None:
    """Every kit complete; the missing ones installed side by side (the time is printed with -s)."""
    if shutil.which("npm") is None:
        _cannot("npm is not installed (the TypeScript SDK fixtures need Node >= 20 and npm)")
    CACHE.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with _locked(CACHE / ".lock"):
        missing = [kit for kit in KITS if not kit.complete()]
        try:
            with ThreadPoolExecutor(max_workers=len(KITS)) as pool:
                list(pool.map(_install, missing))
        except RegistryUnreachableError as exc:
            _cannot(f"the package registry is unreachable, so the SDK fixtures cannot be installed: {exc}")
    if missing:
        print(f"\ninstalled {', '.join(k.name for k in missing)} in {time.monotonic() - started:.1f} s")


def _cannot(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One installer at a time per cache (test runs of one checkout may overlap)."""
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _install(kit: Kit) -> None:
    shutil.rmtree(kit.path, ignore_errors=True)
    kit.path.mkdir(parents=True)
    if kit.kind == "npm":
        _run(
            [
                "npm",
                "install",
                "--prefix",
                str(kit.path),
                "--save-exact",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                *kit.packages,
            ]
        )
    else:
        uv = [sys.executable, "-m", "uv"]
        _run([*uv, "venv", "--quiet", "--python", sys.executable, str(kit.path)])
        _run([*uv, "pip", "install", "--quiet", "--python", kit.python, *kit.packages])
    (kit.path / MARKER).write_text("\n".join(kit.packages), encoding="utf-8")


def _run(command: list[str]) -> None:
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "npm_config_update_notifier": "false"},
        )
    except subprocess.TimeoutExpired as exc:
        raise RegistryUnreachableError(f"{' '.join(command[:4])} did not finish in {INSTALL_TIMEOUT_S} s") from exc
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip()
        if UNREACHABLE.search(output):
            raise RegistryUnreachableError(f"{' '.join(command[:4])}: {output[-600:]}")
        raise RuntimeError(f"{' '.join(command)} failed with exit code {done.returncode}:\n{output[-2000:]}")


# --- the fixture servers -------------------------------------------------------------------------------
def _stdio(name: str, command: str, *args: str) -> dict[str, Any]:
    return {"name": name, "transport": "stdio", "command": command, "args": list(args)}


def _http(name: str, command: str, *args: str) -> dict[str, Any]:
    """Started by hookconf on a free port; the fixture's last argument is that port."""
    port = free_port()
    return {
        "name": name,
        "transport": "http",
        "command": command,
        "args": [*args, str(port)],
        "url": f"http://127.0.0.1:{port}/mcp",
    }


def node() -> str:
    return shutil.which("node") or "node"


SERVERS: dict[str, Callable[[], dict[str, Any]]] = {
    "ts-sdk-2-stdio": lambda: _stdio(
        "ts-sdk-2", node(), str(SDK_FIXTURES / "ts2_server.cjs"), TS2.node_modules, "stdio"
    ),
    "ts-sdk-2-http": lambda: _http("ts-sdk-2", node(), str(SDK_FIXTURES / "ts2_server.cjs"), TS2.node_modules, "http"),
    "py-mcp-2-stdio": lambda: _stdio("py-mcp-2", sys.executable, str(SDK_FIXTURES / "py_mcp2_server.py")),
    "py-mcp-2-http": lambda: _http("py-mcp-2", sys.executable, str(SDK_FIXTURES / "py_mcp2_server.py"), "--http"),
    "fastmcp-stdio": lambda: _stdio("fastmcp", FASTMCP.python, str(SDK_FIXTURES / "fastmcp_server.py")),
    "ts-sdk-1-stdio": lambda: _stdio("ts-sdk-1", node(), str(SDK_FIXTURES / "ts1_server.cjs"), TS1.node_modules),
    "py-mcp-1-stdio": lambda: _stdio("py-mcp-1", MCP1.python, str(SDK_FIXTURES / "py_mcp1_server.py")),
}
DUAL_ERA = [
    "ts-sdk-2-stdio",
    pytest.param("ts-sdk-2-http", marks=pytest.mark.http),
    "py-mcp-2-stdio",
    pytest.param("py-mcp-2-http", marks=pytest.mark.http),
    "fastmcp-stdio",
]
HANDSHAKE_ONLY = ["ts-sdk-1-stdio", "py-mcp-1-stdio"]


def check(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path], fixture: str, *flags: str
) -> dict[str, Any]:
    """`hookconf check --output json` on a config naming the fixture, as a user runs it; the report."""
    config = write_config(SERVERS[fixture](), timeoutMs=10000)
    run = run_cli("check", "--output", "json", *flags, str(config))
    assert run.stdout, run.stderr
    report: dict[str, Any] = json.loads(run.stdout)
    return report


def flagged(report: dict[str, Any], checks: tuple[str, ...] | None = None) -> dict[str, str]:
    """The FAIL and WARN verdicts (of `checks`, when named), by check id, with their details."""
    found = {}
    for result in report["results"]:
        check_id = result.get("id") or result.get("code")
        if result["status"] in ("fail", "warn") and (checks is None or check_id in checks):
            found[f"{check_id} [{result.get('tool')}]"] = str(result.get("details"))
    return found


# --- tests ---------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("sdk_kits")
@pytest.mark.parametrize("fixture", DUAL_ERA)
def test_a_dual_era_sdk_server_is_graded_2026_on_a_2026_connection(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path], fixture: str
) -> None:
    report = check(run_cli, write_config, fixture)
    assert (report["era"], report["specVersion"]) == ("stateless", STATELESS)
    assert report["detection"] == f"server/discover answered with supportedVersions [{STATELESS}]"
    assert flagged(report, ERA_SENSITIVE_CHECKS) == {}
    assert report["compliance"]["grade"] == "A"


@pytest.mark.usefixtures("sdk_kits")
def test_pinning_2026_on_the_typescript_sdk_2_keeps_the_connection_in_2026(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    report = check(run_cli, write_config, "ts-sdk-2-stdio", "--spec-version", STATELESS)
    assert (report["era"], report["specVersion"]) == ("stateless", STATELESS)
    assert report["detection"] == f"pinned with --spec-version {STATELESS}"
    assert flagged(report, ERA_SENSITIVE_CHECKS) == {}
    assert report["compliance"]["grade"] == "A"


@pytest.mark.usefixtures("sdk_kits")
def test_pinning_the_handshake_era_on_the_typescript_sdk_2_grades_its_handshake_side(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    report = check(run_cli, write_config, "ts-sdk-2-stdio", "--spec-version", HANDSHAKE)
    assert (report["era"], report["specVersion"]) == ("handshake", HANDSHAKE)
    assert report["compliance"]["grade"] == "A"


@pytest.mark.usefixtures("sdk_kits")
@pytest.mark.parametrize("fixture", HANDSHAKE_ONLY)
def test_a_handshake_only_sdk_server_is_graded_in_the_handshake_era(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path], fixture: str
) -> None:
    report = check(run_cli, write_config, fixture)
    assert (report["era"], report["specVersion"]) == ("handshake", HANDSHAKE)
    assert report["detection"].endswith(", legacy")
    assert report["warnings"] == []
    assert report["compliance"]["grade"] == "A"


@pytest.mark.usefixtures("sdk_kits")
def test_every_request_before_the_era_is_decided_carries_the_2026_envelope() -> None:
    """The TypeScript SDK 2.x stdio entry pins a connection to the handshake era on its first message
    without `_meta` after server/discover: the probe sends none."""
    config = parse_config({"server": SERVERS["ts-sdk-2-stdio"](), "timeoutMs": 10000})
    connection = connect(config.server, 10.0)
    try:
        assert connection.era.revision == STATELESS
        sent = [
            entry.message for entry in connection.session.transport.recording.messages() if entry.direction == "sent"
        ]
        claimless = [
            message
            for message in sent
            if "io.modelcontextprotocol/protocolVersion" not in ((message.get("params") or {}).get("_meta") or {})
        ]
        assert [m["method"] for m in sent] == ["server/discover", "ping"]
        assert claimless == []
        # the connection is still a 2026-07-28 one: a list result carries its caching hints and resultType
        tools = connection.session.request("tools/list")["result"]
        assert {"ttlMs", "cacheScope", "resultType"} <= set(tools)
    finally:
        connection.session.close()


def test_a_discover_answer_that_comes_after_the_ping_rejection_still_decides_the_era() -> None:
    """A server that rejects the enveloped ping does not speak the handshake era: its discover answer is
    awaited for the whole timeout, not a few round trips."""
    server = _stdio("late-discover", sys.executable, str(SDK_FIXTURES / "late_discover_server.py"))
    connection = connect(parse_config({"server": server}).server, 5.0)
    try:
        assert connection.era.revision == STATELESS
        assert connection.era.detection == f"server/discover answered with supportedVersions [{STATELESS}]"
    finally:
        connection.session.close()
