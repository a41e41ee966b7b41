"""Shared fixtures: the report schema check, real HTTP fixture servers, and the CLI run in-process.
Plain helpers live in tests/support.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from hookconf.cli import main
from hookconf.report.model import Report
from hookconf.report.schema import report_schema
from tests.support import FIXTURES, CliRun, free_port, wait_for_port


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


@pytest.fixture(scope="module")
def external_good_http() -> Iterator[str]:
    """A good fixture started outside hookconf, reached by URL only (as a deployed server would be)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(FIXTURES / "good_server.py"), "--http", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
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
