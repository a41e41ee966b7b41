"""`hookconf mcp`: hookconf served over MCP on stdio, audited by hookconf itself and used as a client would."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookconf.config import parse_config
from hookconf.session import McpSession, open_session
from tests.support import FIXTURES, check_in_process, stdio_server

HOOKCONF_MCP = {"name": "hookconf-mcp", "command": sys.executable, "args": ["-m", "hookconf", "mcp"]}
TIMEOUT_S = 60.0


def self_audit(spec_version: str, tmp_path: Path) -> dict[str, Any]:
    config = tmp_path / f"mcp-{spec_version}.json"
    config.write_text(json.dumps({"server": HOOKCONF_MCP, "specVersion": spec_version}), encoding="utf-8")
    done = check_in_process(config)
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize(("spec_version", "graded"), [("auto", "2026-07-28"), ("2025-11-25", "2025-11-25")])
def test_hookconf_mcp_passes_its_own_audit_with_grade_a_and_no_fail(
    spec_version: str, graded: str, tmp_path: Path
) -> None:
    report = self_audit(spec_version, tmp_path)
    assert report["specVersion"] == graded
    assert report["grade"] == "A"
    failed = [f"{r.get('id') or r.get('code')}: {r['details']}" for r in report["results"] if r["status"] == "fail"]
    assert failed == []
    # the audit tool starts programs: hookconf leaves it uncalled; the tools that only read are called
    called = {tool["name"]: tool["called"] for tool in report["tools"]}
    assert called == {"audit_server": False, "explain_check": True, "list_checks": True, "diff_reports": True}


@pytest.fixture(scope="module")
def client() -> Iterator[McpSession]:
    session = open_session(parse_config({"server": HOOKCONF_MCP}).server, TIMEOUT_S)
    try:
        session.initialize()
        yield session
    finally:
        session.close()


def answer(session: McpSession, tool: str, arguments: dict[str, Any], error: bool = False) -> dict[str, Any]:
    """The tool's result, which must be an error result when `error`, else a successful one."""
    outcome = session.call_tool(tool, arguments, timeout_s=TIMEOUT_S)
    assert outcome.result is not None, outcome.describe_failure()
    assert bool(outcome.result.get("isError")) is error, outcome.result
    return outcome.result


def structured(session: McpSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    content: dict[str, Any] = answer(session, tool, arguments)["structuredContent"]
    return content


def text(result: dict[str, Any]) -> str:
    return "\n".join(str(block.get("text")) for block in result["content"])


def test_audit_server_audits_a_server_and_returns_its_grade_and_problems(client: McpSession, tmp_path: Path) -> None:
    broken = stdio_server("broken_server.py")
    saved = tmp_path / "broken.json"
    summary = structured(
        client, "audit_server", {"command": broken["command"], "args": broken["args"], "report_path": str(saved)}
    )
    report = json.loads(saved.read_text(encoding="utf-8"))
    assert summary["grade"] == report["grade"]
    assert summary["summary"] == report["summary"]
    problems = [r for r in report["results"] if r["status"] in ("fail", "warn", "indeterminate")]
    assert len(summary["problems"]) == min(len(problems), 50) > 0
    assert {p["id"] for p in summary["problems"]} <= {r.get("id") or r.get("code") for r in problems}
    assert summary["report_path"] == str(saved.resolve())


def test_audit_server_says_what_is_wrong_with_its_arguments(client: McpSession) -> None:
    assert "give either command" in text(answer(client, "audit_server", {}, error=True))
    unstartable = answer(client, "audit_server", {"command": str(FIXTURES / "no-such-server")}, error=True)
    assert "cannot start server" in text(unstartable)


def test_explain_check_explains_codes_and_check_ids_and_refuses_unknown_ones(client: McpSession) -> None:
    assert text(answer(client, "explain_check", {"code": "idemp-001"})).startswith("IDEMP-001  ")
    assert "How to fix:" in text(answer(client, "explain_check", {"code": "lifecycle-ping"}))
    assert "unknown finding code" in text(answer(client, "explain_check", {"code": "NOPE-999"}, error=True))


def test_diff_reports_compares_two_stored_reports(client: McpSession, tmp_path: Path) -> None:
    good = stdio_server("good_server.py")
    paths = []
    for name in ("base", "current"):
        path = tmp_path / f"{name}.json"
        structured(client, "audit_server", {"command": good["command"], "args": good["args"], "report_path": str(path)})
        paths.append(str(path))
    diff = structured(client, "diff_reports", {"base_path": paths[0], "current_path": paths[1]})
    assert diff["regressed"] is False
    assert diff["text"].strip()
    missing = answer(
        client, "diff_reports", {"base_path": str(tmp_path / "absent.json"), "current_path": paths[1]}, True
    )
    assert "no such file" in text(missing)
