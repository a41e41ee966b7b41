"""A compliance warning rests on a spec sentence it quotes; what no sentence asks for is advice, never counted."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from hookconf.checks.compliance import CHECKS, ComplianceCheck
from hookconf.checks.compliance.catalog import Category, Outcome, Rule, compliance_check, passed, warned
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.engine.compliance import grade
from hookconf.fleet.store import StoredAudit
from hookconf.fleet.tables import AUDITED, build_tables, suite_statuses
from hookconf.report.keys import SERVER_SCOPE
from hookconf.report.model import ResultEntry
from hookconf.verdicts import Status
from tests.support import CliRun

DOC = Path(__file__).parent.parent / "docs" / "warnings-and-advice.md"
DOC_ROW = re.compile(r"^\| `(?P<id>[a-z0-9-]+)` \| (?P<verdict>warning|advice) \|", re.MULTILINE)
RULE_WORDS = re.compile(r"\b(SHOULD|RECOMMENDED|MUST)\b")


def _source(check: ComplianceCheck) -> str:
    """The check's function and the helpers of its module that it calls."""
    run = inspect.unwrap(check.run)
    module = inspect.getmodule(run)
    helpers = [
        helper
        for name in run.__code__.co_names
        if inspect.isfunction(helper := getattr(module, name, None)) and helper.__module__ == run.__module__
    ]
    return "".join(inspect.getsource(function) for function in (run, *helpers))


@pytest.mark.parametrize("check", list(CHECKS.values()), ids=lambda check: check.id)
def test_every_check_that_warns_cites_a_rule_and_every_one_that_advises_says_why(check: ComplianceCheck) -> None:
    source = _source(check)
    assert ("warned(" in source) == (check.should is not None), "a check warns exactly when it cites a rule"
    assert ("advised(" in source) == (check.advice is not None), "a check advises exactly when it says why"
    if check.should is not None:
        assert RULE_WORDS.search(check.should.quote), check.should.quote
        assert check.should.source.startswith(("MCP ", "JSON-RPC", "RFC ")), check.should.source


def test_the_document_lists_every_check_that_warns_or_advises() -> None:
    rows = {match["id"]: match["verdict"] for match in DOC_ROW.finditer(DOC.read_text(encoding="utf-8"))}
    catalog = {
        check.id: "warning" if check.should else "advice" for check in CHECKS.values() if check.should or check.advice
    }
    assert rows == catalog


def test_a_warning_without_a_rule_is_recorded_as_advice_and_one_with_a_rule_quotes_it() -> None:
    def warns(ctx: ComplianceContext) -> Outcome:
        return warned("something odd")

    rule = Rule("Servers SHOULD be tidy.", "MCP basic#tidiness")
    try:
        compliance_check("test-warns-without-rule", Category.LIFECYCLE, "t", spec="basic", why="w", fix="f")(warns)
        compliance_check("test-warns-with-rule", Category.LIFECYCLE, "t", spec="basic", why="w", fix="f", should=rule)(
            warns
        )
        ctx = cast(ComplianceContext, None)
        assert CHECKS["test-warns-without-rule"].run(ctx) == Outcome(Status.ADVICE, "something odd")
        assert CHECKS["test-warns-with-rule"].run(ctx) == Outcome(
            Status.WARN, 'something odd; the spec: "Servers SHOULD be tidy." (MCP basic#tidiness)'
        )
    finally:
        CHECKS.pop("test-warns-without-rule", None)
        CHECKS.pop("test-warns-with-rule", None)


def _tools_context(*tools: dict[str, Any]) -> ComplianceContext:
    """The part of a context that the tool-definition checks read: the listed tools."""
    return cast(ComplianceContext, SimpleNamespace(tools=list(tools)))


def test_verdicts_on_recorded_tool_lists() -> None:
    untitled = _tools_context({"name": "search", "description": "Searches the notes by a phrase."})
    assert CHECKS["tools-title-field"].run(untitled).status is Status.ADVICE
    assert CHECKS["bp-tool-name-format"].run(_tools_context({"name": "getUser"})).status is Status.ADVICE
    badly_named = CHECKS["tools-name-format"].run(_tools_context({"name": "my tool!"}))
    assert badly_named.status is Status.WARN
    assert "'my tool!'" in badly_named.details
    assert "SHOULD be the only allowed characters" in badly_named.details
    assert CHECKS["tools-name-format"].run(_tools_context({"name": "get.user-v2"})) == passed("1 names well formed")


def _entry(check_id: str, status: Status, required: bool) -> ResultEntry:
    return ResultEntry(
        suite="compliance",
        tool=SERVER_SCOPE,
        status=status,
        code=None,
        title=None,
        details="",
        durationMs=0.0,
        id=check_id,
        category="lifecycle",
        required=required,
        graded=True,
    )


@pytest.mark.parametrize("required", [True, False])
def test_advice_leaves_the_grade_where_a_pass_would(required: bool) -> None:
    others = [_entry("a", Status.FAIL, True), _entry("b", Status.PASS, True), _entry("c", Status.FAIL, False)]
    with_pass = grade([*others, _entry("x", Status.PASS, required)], "2025-11-25", lighthouse_profile=True)
    with_advice = grade([*others, _entry("x", Status.ADVICE, required)], "2025-11-25", lighthouse_profile=True)
    assert (with_advice.grade, with_advice.score, with_advice.required_failed) == (
        with_pass.grade,
        with_pass.score,
        with_pass.required_failed,
    )
    (category,) = with_advice.categories
    assert (category.score, category.failed, category.warned, category.advice) == (
        with_pass.categories[0].score,
        2,
        0,
        1,
    )


def _stored(version: str, status: str) -> StoredAudit:
    def entry(check_id: str, verdict: str) -> dict[str, Any]:
        return {
            "suite": "compliance",
            "tool": SERVER_SCOPE,
            "status": verdict,
            "code": None,
            "title": "t",
            "details": "",
            "durationMs": 0.0,
            "id": check_id,
            "category": "schema",
            "required": False,
        }

    results = [entry("tools-title-field", status), entry("tools-schema", "pass")]
    report = {"score": None, "grade": "A", "complianceScore": 100.0, "specVersion": "2025-11-25", "results": results}
    return StoredAudit(
        id=1,
        fleet="f",
        server="s",
        version=version,
        source="pypi",
        hookconf_version="0",
        outcome=AUDITED,
        message=None,
        started_at="",
        duration_s=1.0,
        report=report,
    )


def test_fleet_tables_count_advice_as_no_problem() -> None:
    tables = build_tables([_stored("1.0", "pass"), _stored("1.1", "advice")])
    (regression,) = tables.regressions.to_dict("records")
    assert (regression["worse"], regression["better"]) == ("", "")
    latest = tables.results[tables.results["version"] == "1.1"]
    (compliance,) = suite_statuses(latest).to_dict("records")
    assert (compliance["results"], compliance["pass"], compliance["warn"], compliance["fail"]) == (2, 1, 0, 0)
    assert (compliance["advice"], compliance["advice %"]) == (1, 50.0)
    assert tables.scores.set_index("server").loc["s", "compliance"] == 100.0


def test_explain_shows_the_rule_or_why_it_is_advice(run_cli: Callable[..., CliRun]) -> None:
    cursor = run_cli("explain", "error-invalid-cursor").stdout
    assert 'Warnings rest on: "Invalid cursors SHOULD result in an error with code -32602' in cursor
    title = run_cli("explain", "tools-title-field").stdout
    assert "Advice, never counted as a problem: tools without a title" in title
    assert "Warnings rest on" not in title
