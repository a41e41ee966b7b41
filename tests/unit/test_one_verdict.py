"""Hook suites and compliance checks share one check model: both registries record a check as a CheckDeclaration
(id, title, judging function), and both kinds of check judge with a Verdict."""

from __future__ import annotations

from typing import Any

import pytest

from hookconf.checks import SUITES
from hookconf.checks.compliance import CHECKS
from hookconf.checks.registry import CheckDeclaration, SuiteResult
from hookconf.verdicts import Status, Verdict
from hookconf.wire.transcript import ScriptedServer, in_turn, result, when
from tests.transcript import compliance_context, good_server, text, tool_context

pytestmark = pytest.mark.unit

GOOD = good_server()


def diverging() -> ScriptedServer:
    """read_value answers with a new count at each call."""
    return GOOD.but({when("tools/call", name="read_value"): in_turn(*(result(text(f"count {n}")) for n in range(3)))})


PING_WITH_A_BODY = GOOD.but({"ping": result({"pong": True})})


def test_a_hook_suite_judges_with_a_verdict_carrying_its_finding_code() -> None:
    ctx = tool_context(diverging(), "read_value")
    try:
        judged = SUITES["idempotency"].judge(ctx)
    finally:
        ctx.session.close()
    assert judged == Verdict(Status.FAIL, "3 identical calls returned different output", "IDEMP-001")


def test_a_compliance_check_judges_with_a_verdict_too() -> None:
    with compliance_context(GOOD) as ctx:
        ctx.session.list_tools()
        answered = CHECKS["lifecycle-ping"].judge(ctx)
    with compliance_context(PING_WITH_A_BODY) as ctx:
        ctx.session.list_tools()
        misanswered = CHECKS["lifecycle-ping"].judge(ctx)
    assert type(answered) is Verdict
    assert (answered.status, answered.code) == (Status.PASS, None)
    assert type(misanswered) is Verdict
    assert misanswered.status is Status.FAIL


def test_a_suite_run_places_its_verdict_with_the_suite_and_the_tool() -> None:
    ctx = tool_context(diverging(), "read_value")
    try:
        placed = SUITES["idempotency"].run(ctx)
    finally:
        ctx.session.close()
    assert placed == SuiteResult.of("idempotency", "read_value", placed.verdict)
    assert (placed.suite, placed.tool, placed.status, placed.code) == (
        "idempotency",
        "read_value",
        Status.FAIL,
        "IDEMP-001",
    )


def test_both_registries_hold_check_declarations_with_an_id_and_a_title() -> None:
    declarations: list[CheckDeclaration[Any]] = [*SUITES.values(), *CHECKS.values()]
    assert all(isinstance(declaration, CheckDeclaration) for declaration in declarations)
    assert [d.id for d in declarations] == [*SUITES, *CHECKS]
    assert all(d.title for d in declarations)
    assert all(check.run is check.judge for check in CHECKS.values())  # the compliance runner's name for it
