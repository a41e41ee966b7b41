"""Shared helpers: fixture-server configs, real HTTP fixture servers, and the CLI run in-process."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from hookconf.cli import main
from hookconf.report.model import Report
from hookconf.report.schema import report_schema

FIXTURES = Path(__file__).parent / "fixtures"


def stdio_server(script: str, *args: str) -> dict[str, Any]:
    return {"name": script.removesuffix(".py"), "transport": "stdio",
            "command": sys.executable, "args": [str(FIXTURES / script), *args]}


@dataclass
class CliRun:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


@pytest.fixture(scope="session")
def report_validator() -> Draft202012Validator:
    """The JSON Schema that `hookconf schema` prints, checked as a schema itself."""
    schema = report_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.fixture(scope="session", autouse=True)
def every_report_matches_the_schema(report_validator: Draft202012Validator) -> Iterator[None]:
    """Every report a test builds, in-process or through the CLI, is checked against the published schema
    in its JSON form, as `check --output json` prints it."""
    build = Report.__init__

    def build_and_validate(self: Report, /, **data: Any) -> None:
        build(self, **data)
        report_validator.validate(json.loads(self.to_json()))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Report, "__init__", build_and_validate)
        yield


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliRun]:
    def run(*argv: str) -> CliRun:
        code = main(list(argv))
        captured = capsys.readouterr()
        return CliRun(code, captured.out, captured.err)

    return run


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[..., Path]:
    def write(server: dict[str, Any], **settings: Any) -> Path:
        path = tmp_path / "hook-conformance.config.json"
        path.write_text(json.dumps({"server": server, **settings}), encoding="utf-8")
        return path

    return write


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_server(script: str) -> dict[str, Any]:
    """A config that has hookconf start the fixture as a streamable-HTTP server on a free port."""
    port = free_port()
    return {**stdio_server(script, "--http", str(port)), "transport": "http", "url": f"http://127.0.0.1:{port}/mcp"}


@pytest.fixture(scope="module")
def external_good_http() -> Iterator[str]:
    """A good fixture started outside hookconf, reached by URL only (as a deployed server would be)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(FIXTURES / "good_server.py"), "--http", str(port)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"fixture server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"fixture server did not listen on port {port} within {timeout_s} s")
