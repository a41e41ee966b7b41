"""Compliance checks against a hand-written fixture that is correct by default and broken one defect at a time."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from hookconf import COMPLIANCE_SUITE
from hookconf.checks.compliance import CHECKS, Category, ComplianceCheck
from hookconf.checks.compliance.answers import failure_text
from hookconf.checks.compliance.catalog import STATELESS
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.engine.compliance import ComplianceOptions, planned_checks, prepare_compliance, run_compliance
from hookconf.era import connect
from hookconf.protocol import UNKNOWN_REVISION
from hookconf.report.formats import github, human, sarif
from hookconf.report.model import Report
from hookconf.session import open_session
from hookconf.session_pool import SessionPool
from tests.support import FIXTURES, free_port, http_server, stdio_server, wait_for_port

SCRIPT = "compliance_server.py"

# defect -> the check it must make fail; each runs against a fresh fixture over stdio.
STDIO_DEFECTS = {
    "stdout-noise": "stdio-framing",
    "unknown-method-internal": "error-method-code",
    "silent-parse-error": "error-parse-code",
    "parse-error-id-zero": "error-parse-code",
    "silent-invalid-request": "error-invalid-request-code",
    "crash-on-invalid-json": "error-invalid-json",
    "unknown-tool-internal": "tools-call-unknown",
    "missing-name-success": "error-missing-params",
    "no-arg-validation": "tools-call-missing-args",
    "no-ping": "lifecycle-ping",
    "jsonrpc-1": "lifecycle-jsonrpc",
    "error-id-null": "error-id-echo",
    "reject-unknown-version": "lifecycle-version-negotiate",
    "no-string-ids": "lifecycle-string-id",
    "stacktrace": "security-error-no-stacktrace",
    "internal-ip": "security-error-no-internal-ip",
    "poisoned-description": "security-tool-description-poisoning",
    "rug-pull": "security-tool-rug-pull",
    "command-injection": "security-command-injection",
    "path-traversal": "security-path-traversal",
    "sql-injection": "security-sql-injection",
    "ssrf": "security-ssrf-internal",
    "crash-on-large-input": "security-oversized-input",
    "bad-annotations": "tools-annotations",
    "bad-input-schema": "tools-schema",
    "bad-output-schema": "tools-output-schema",
    "duplicate-tools": "tools-unique-names",
    "bad-tool-name": "tools-name-format",
    "resource-missing-uri": "resources-schema",
    "resource-read-no-uri": "resources-read",
    "prompt-missing-name": "prompts-schema",
    "prompt-get-no-role": "prompts-get",
    "logging-not-implemented": "lifecycle-logging",
    "undeclared-list-changed": "lifecycle-list-changed",
    "sampling-request": "lifecycle-sampling-capability",
    "cursor-internal": "error-invalid-cursor",
    "mojibake": "stdio-unicode",
    "log-without-capability": "lifecycle-logging-capability",
    "log-parse-error": "error-parse-code",
}
# defect -> the check that reports it as advice: no spec sentence asks for what the defect takes away.
ADVICE_DEFECTS = {
    "accept-reinit": "lifecycle-reinit-reject",
    "cross-reference": "security-tool-cross-reference",
    "no-titles": "tools-title-field",
}
HTTP_DEFECTS = {
    "http-notification-200": "transport-notification-202",
    "http-any-content-type": "transport-content-type-reject",
    "http-no-session-check": "transport-session-id",
    "http-unknown-session-ok": "transport-session-invalid",
    "http-get-500": "transport-get-stream",
    "http-delete-500": "transport-delete",
    "http-accept-batch": "transport-batch-reject",
    "http-event-name": "transport-sse-event-field",
    "http-no-origin-check": "security-origin-validation",
    "http-weak-session-id": "security-session-entropy",
}


def compliance_audit(server: dict[str, Any], **options: Any) -> Report:
    config = parse_config({"server": server, "suites": [COMPLIANCE_SUITE], "timeoutMs": 5000})
    return run_audit(config, RunOptions(suites=(COMPLIANCE_SUITE,), compliance=ComplianceOptions(**options)))


def statuses(report: Report) -> dict[str, str]:
    return {r.id: r.status for r in report.results if r.id}


def verdict(report: Report, check_id: str) -> tuple[str, str]:
    entry = next(r for r in report.results if r.id == check_id)
    return entry.status, entry.details


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_correct_server_gets_no_false_verdicts(transport: str) -> None:
    server = stdio_server(SCRIPT) if transport == "stdio" else http_server(SCRIPT)
    report = compliance_audit(server)
    wrong = {check: status for check, status in statuses(report).items() if status in ("fail", "warn", "indeterminate")}
    assert wrong == {}, [r.details for r in report.results if r.id in wrong]
    assert report.grade == "A"
    assert report.compliance_score == 100
    assert report.spec_version == "2025-11-25"


@pytest.mark.parametrize(("defect", "check_id"), list(STDIO_DEFECTS.items()))
def test_each_stdio_defect_fails_its_check(defect: str, check_id: str) -> None:
    report = compliance_audit(stdio_server(SCRIPT, "--defect", defect))
    status, details = verdict(report, check_id)
    assert status in ("fail", "warn"), details
    assert report.compliance is not None


@pytest.mark.http
@pytest.mark.parametrize(("defect", "check_id"), list(HTTP_DEFECTS.items()))
def test_each_http_defect_fails_its_check(defect: str, check_id: str) -> None:
    server = http_server(SCRIPT)
    server["args"] = [*server["args"], "--defect", defect]
    status, details = verdict(compliance_audit(server, only=["transport", "security", "lifecycle"]), check_id)
    assert status in ("fail", "warn"), details


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_notifications_between_responses_change_nothing(transport: str) -> None:
    server = stdio_server(SCRIPT, "--chatty") if transport == "stdio" else http_server(SCRIPT)
    if transport == "http":
        server["args"] = [*server["args"], "--chatty"]
    report = compliance_audit(server)
    assert set(statuses(report).values()) <= {"pass", "skip"}, [
        (r.id, r.details) for r in report.results if r.status not in ("pass", "skip")
    ]


@pytest.mark.http
def test_json_responses_instead_of_sse() -> None:
    server = http_server(SCRIPT)
    server["args"] = [*server["args"], "--json-responses"]
    report = compliance_audit(server)
    assert report.grade == "A"
    assert verdict(report, "transport-sse-event-field")[0] == "skip"


@pytest.mark.http
def test_sse_priming_event_with_empty_data_is_skipped_over() -> None:
    report = compliance_audit(http_server(SCRIPT), only=["transport"])
    assert verdict(report, "transport-post")[0] == "pass"
    assert verdict(report, "transport-sse-event-field")[0] == "pass"


def test_a_server_that_dies_is_restarted_for_the_checks_after() -> None:
    report = compliance_audit(stdio_server(SCRIPT, "--defect", "crash-on-invalid-json"))
    status, details = verdict(report, "error-invalid-json")
    assert status == "fail"
    assert "server died under this check" in details
    assert "exit code 1" in details
    assert "fatal: unexpected token" in details
    order = [r.id for r in report.results if r.id]
    later = order[order.index("error-invalid-json") + 1 :]
    assert later, "checks ran after the crash"
    assert all(statuses(report)[c] != "fail" for c in later if c != "error-parse-code"), [
        (r.id, r.details) for r in report.results if r.id in later and r.status == "fail"
    ]


def test_a_server_that_hangs_is_replaced_rather_than_waited_out_by_every_later_check() -> None:
    timeout_s = 2.0
    config = parse_config(
        {
            "server": stdio_server(SCRIPT, "--defect", "hang-on-invalid-json"),
            "suites": [COMPLIANCE_SUITE],
            "timeoutMs": int(timeout_s * 1000),
        }
    )
    started = time.monotonic()
    report = run_audit(config, RunOptions(suites=(COMPLIANCE_SUITE,)))
    elapsed = time.monotonic() - started
    status, details = verdict(report, "error-invalid-json")
    assert status == "fail"
    assert "the server hung under this check" in details
    order = [r.id for r in report.results if r.id]
    later = order[order.index("error-invalid-json") + 1 :]
    assert all(statuses(report)[c] != "fail" for c in later if c != "error-parse-code"), [
        (r.id, r.details) for r in report.results if r.id in later and r.status == "fail"
    ]
    # One timeout and one ping probe for the hang, not one timeout per later check (about 40 of them).
    assert elapsed < 5 * timeout_s + 10, elapsed


@pytest.mark.http
def test_a_hung_server_reached_by_url_ends_the_run_instead_of_timing_out_every_check() -> None:
    port = free_port()
    argv = [sys.executable, str(FIXTURES / SCRIPT), "--http", str(port), "--defect", "hang-on-invalid-json"]
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        config = parse_config(
            {
                "server": {"name": "deployed", "transport": "http", "url": f"http://127.0.0.1:{port}/mcp"},
                "suites": [COMPLIANCE_SUITE],
                "timeoutMs": 2000,
            }
        )
        started = time.monotonic()
        report = run_audit(config, RunOptions(suites=(COMPLIANCE_SUITE,)))
        elapsed = time.monotonic() - started
    finally:
        process.kill()
        process.wait()
    status, details = verdict(report, "error-invalid-json")
    assert (status, "the server hung under this check" in details) == ("fail", True), details
    order = [r.id for r in report.results if r.id]
    later = [r for r in report.results if r.id in order[order.index("error-invalid-json") + 1 :]]
    # hookconf did not start it, so it cannot restart it: what would each have waited out a timeout is skipped.
    assert all(r.status == "skip" for r in later), [(r.id, r.status, r.details) for r in later if r.status != "skip"]
    assert any(r.details == "not run: the server stopped answering under error-invalid-json" for r in later)
    assert elapsed < 10, elapsed


@pytest.mark.http
def test_auth_checks_with_a_token() -> None:
    server = http_server(SCRIPT)
    server["args"] = [*server["args"], "--require-token", "s3cret"]
    server["headers"] = {"Authorization": "Bearer s3cret"}
    report = compliance_audit(server, only=["security"])
    for check in (
        "security-auth-required",
        "security-www-authenticate",
        "security-auth-malformed",
        "security-session-not-auth",
        "security-token-in-uri",
        "security-oauth-metadata",
    ):
        assert verdict(report, check)[0] == "pass", verdict(report, check)


@pytest.mark.http
@pytest.mark.parametrize(
    ("defect", "check_id"),
    [
        ("auth-no-www-authenticate", "security-www-authenticate"),
        ("auth-query-token", "security-token-in-uri"),
        ("auth-session-bypass", "security-session-not-auth"),
    ],
)
def test_auth_defects(defect: str, check_id: str) -> None:
    server = http_server(SCRIPT)
    server["args"] = [*server["args"], "--require-token", "s3cret", "--defect", defect]
    server["headers"] = {"Authorization": "Bearer s3cret"}
    assert verdict(compliance_audit(server, only=["security"]), check_id)[0] == "fail"


def test_auth_checks_skip_without_credentials() -> None:
    report = compliance_audit(stdio_server(SCRIPT), only=["security"])
    assert verdict(report, "security-auth-required") == ("skip", "http only; this server is audited over stdio")


@pytest.mark.http
def test_auth_absent_is_not_a_failure() -> None:
    report = compliance_audit(http_server(SCRIPT), only=["security"])
    status, details = verdict(report, "security-auth-required")
    assert status == "skip"
    assert "MCP does not require auth" in details


def test_silence_is_detected_without_waiting_for_the_timeout() -> None:
    started = time.monotonic()
    report = compliance_audit(stdio_server(SCRIPT, "--defect", "silent-parse-error"), only=["errors"])
    assert verdict(report, "error-parse-code")[0] == "fail"
    assert time.monotonic() - started < 5  # the timeout is 5 s per request; silence costs a ping


def test_injection_payloads_repeated_by_an_echo_tool_are_not_evidence() -> None:
    report = compliance_audit(stdio_server(SCRIPT), only=["security"])
    for check in ("security-command-injection", "security-sql-injection", "security-path-traversal"):
        status, details = verdict(report, check)
        assert status == "pass", details
        assert "payloads reached the tool" in details


def test_only_and_skip_select_categories_and_ids() -> None:
    report = compliance_audit(stdio_server(SCRIPT), only=["lifecycle", "error-parse-code"], skip=["lifecycle-ping"])
    ids = {r.id for r in report.results}
    assert "error-parse-code" in ids
    assert "lifecycle-init" in ids
    assert "lifecycle-ping" not in ids
    assert "tools-list" not in ids


def test_grade_counts_only_what_was_measured() -> None:
    report = compliance_audit(stdio_server(SCRIPT, "--no-prompts"))
    assert verdict(report, "prompts-list")[0] == "skip"
    assert report.compliance is not None
    prompts = next((c for c in report.compliance.categories if c.name == "prompts"), None)
    assert prompts is not None
    assert prompts.score is None


@pytest.mark.parametrize(
    ("defect", "status", "says"),
    [
        (
            "ungated-prompts",
            "fail",
            "prompts/list listed 1 item ('greet') although the prompts capability is not declared",
        ),
        ("ungated-empty-prompts", "advice", "prompts/list was answered with an empty prompts list"),
        (None, "pass", "prompts/list (not declared) rejected with error -32601"),
    ],
)
def test_an_undeclared_capability_fails_only_when_the_server_serves_its_items(
    defect: str | None, status: str, says: str
) -> None:
    # "Servers that support prompts MUST declare the prompts capability"; no sentence asks a server to refuse
    # a method of a capability it did not declare, so an empty answer is advice
    args = ["--no-prompts", *(["--defect", defect] if defect else [])]
    verdict_status, details = verdict(
        compliance_audit(stdio_server(SCRIPT, *args), only=["errors"]), "error-capability-gated"
    )
    assert (verdict_status, says in details) == (status, True), details
    if status == "fail":
        assert "Servers that support prompts MUST declare the `prompts` capability" in details


@pytest.mark.http
def test_a_guessable_session_id_is_a_warning_on_the_spec_should() -> None:
    server = http_server(SCRIPT)
    server["args"] = [*server["args"], "--defect", "http-weak-session-id"]
    status, details = verdict(compliance_audit(server, only=["security-session-entropy"]), "security-session-entropy")
    assert status == "warn", details
    assert details.startswith("session id '1' is short or guessable; the spec: ")
    assert "The session ID SHOULD be globally unique and cryptographically secure" in details


def test_lighthouse_profile_reports_its_five_categories() -> None:
    report = compliance_audit(stdio_server(SCRIPT, "--defect", "no-ping"), lighthouse_profile=True)
    assert report.compliance is not None
    assert report.compliance.lighthouse is not None
    assert [(c.name, c.weight) for c in report.compliance.lighthouse] == [
        ("protocol", 40),
        ("schema", 25),
        ("robustness", 20),
        ("practices", 10),
        ("performance", 5),
    ]
    assert report.compliance.lighthouse_score is not None


def test_every_lighthouse_check_is_mapped() -> None:
    from hookconf.scoring import LIGHTHOUSE_CATEGORIES, lighthouse_check_map

    mapping = lighthouse_check_map()
    lighthouse_ids = [i for _, _, ids in LIGHTHOUSE_CATEGORIES for i in ids]
    assert len(lighthouse_ids) == 21
    assert [i for i in lighthouse_ids if i not in mapping] == []


# Where each category's checks live, for both eras: one module per category (features holds three), but for
# lifecycle, whose 2026-07-28-only checks have a module of their own.
STATELESS_ONLY_MODULES = {Category.LIFECYCLE: "lifecycle_stateless"}
CATEGORY_MODULES = {
    Category.TRANSPORT: "transport",
    Category.LIFECYCLE: "lifecycle",
    Category.TOOLS: "features",
    Category.RESOURCES: "features",
    Category.PROMPTS: "features",
    Category.ERRORS: "errors",
    Category.SCHEMA: "schema",
    Category.SECURITY: "security",
    Category.PRACTICES: "schema",
}


def module_of(check: ComplianceCheck) -> str:
    if check.revisions == STATELESS and check.category in STATELESS_ONLY_MODULES:
        return STATELESS_ONLY_MODULES[check.category]
    return CATEGORY_MODULES[check.category]


def test_each_check_lives_in_the_module_of_its_category() -> None:
    misplaced = [
        (check.id, check.run.__module__)
        for check in CHECKS.values()
        if check.run.__module__ != f"hookconf.checks.compliance.{module_of(check)}"
    ]
    assert misplaced == []


def test_the_catalog_lists_lifecycles_handshake_era_checks_before_its_stateless_ones() -> None:
    # The catalog's order within a category is the order of registration: lifecycle_stateless imports lifecycle.
    modules = [
        check.run.__module__.rsplit(".", 1)[1] for check in CHECKS.values() if check.category is Category.LIFECYCLE
    ]
    assert modules == sorted(modules, key=lambda module: module == "lifecycle_stateless")
    assert modules[-1] == "lifecycle_stateless"


def test_the_catalog_lists_its_checks_category_by_category() -> None:
    categories = [check.category for check in CHECKS.values()]
    assert categories == sorted(categories, key=list(Category).index)


def test_the_checks_run_in_their_old_order_not_the_catalogs() -> None:
    # A verdict can rest on what ran before it: tools-call picks a tool no earlier check found out of service.
    order = [check.id for check in planned_checks(ComplianceOptions())]
    assert order[0] == "error-unknown-method"
    assert order.index("tools-call") < order.index("lifecycle-progress-token") < order.index("security-sql-injection")
    assert order.index("security-rate-limiting") < order.index("lifecycle-discover") < order.index("stdio-unicode")
    assert order.index("transport-session-ignored") < order.index("stdio-unicode")


def test_the_fresh_server_is_started_before_the_checks_and_serves_the_first_fresh_check() -> None:
    # The spare process boots while the hook suites run; the first fresh-session check uses it.
    config = parse_config({"server": stdio_server(SCRIPT), "suites": [COMPLIANCE_SUITE], "timeoutMs": 5000})
    connection = connect(config.server, 5.0, config.spec_version)
    with SessionPool(config.server, 5.0, main=connection.session) as pool:
        run = prepare_compliance(config, connection.session, pool, ComplianceOptions())
        assert pool.spare is not None
        assert pool.spare.process is not None
        assert pool.spare.process.exit_code() is None  # running before any check
        spare_recording = pool.recordings[0]
        run_compliance(run)
    offers = [
        m.message["params"]["protocolVersion"]
        for m in spare_recording.messages()
        if m.direction == "sent" and m.is_json and m.message.get("method") == "initialize"
    ]
    assert offers[:1] == [UNKNOWN_REVISION]  # lifecycle-version-negotiate, the first fresh check, ran on it
    reported = [entry.id for entry in run.entries]
    assert reported == [check_id for check_id in CHECKS if check_id in reported]  # catalog order, not run order


def test_advice_is_reported_and_never_counted_as_a_problem() -> None:
    args = [arg for defect in ADVICE_DEFECTS for arg in ("--defect", defect)]
    report = compliance_audit(stdio_server(SCRIPT, *args))
    for check_id in ADVICE_DEFECTS.values():
        status, details = verdict(report, check_id)
        assert status == "advice", details
    assert "add -> fetch_url" in verdict(report, "security-tool-cross-reference")[1]
    assert (report.grade, report.compliance_score) == ("A", 100)  # as for the correct server
    assert report.summary.warned == 0
    assert report.summary.advice == len(ADVICE_DEFECTS)
    assert report.compliance is not None
    assert sum(c.advice for c in report.compliance.categories) == len(ADVICE_DEFECTS)
    assert sarif.render(report).count('"ruleId"') == 0
    github_lines = github.render(report).splitlines()
    assert not [line for line in github_lines if line.startswith(("::warning", "::error"))]
    assert sum(line.startswith("::notice title=hookconf advice ") for line in github_lines) == len(ADVICE_DEFECTS)
    text = human.render(report)
    assert "ADVICE lifecycle-reinit-reject: a second initialize" in text
    assert "advice: no spec rule asks for it" in text


def test_log_notifications_without_the_logging_capability_fail_quoting_what_arrived() -> None:
    status, details = verdict(
        compliance_audit(stdio_server(SCRIPT, "--defect", "log-without-capability")), "lifecycle-logging-capability"
    )
    assert status == "fail"
    assert (
        "although the logging capability is not declared (declared: completions, prompts, resources, tools)" in details
    )
    assert '"method": "notifications/message"' in details
    assert '"data": "handling ' in details


def test_log_notifications_with_the_logging_capability_pass() -> None:
    status, details = verdict(compliance_audit(stdio_server(SCRIPT, "--chatty")), "lifecycle-logging-capability")
    assert status == "pass"
    assert "the logging capability is declared" in details


def test_no_answer_names_what_arrived_instead() -> None:
    status, details = verdict(compliance_audit(stdio_server(SCRIPT, "--defect", "log-parse-error")), "error-parse-code")
    assert status == "fail"
    assert details.startswith(
        "no answer to the invalid JSON; meanwhile the server sent the notification "
        'notifications/message {"level": "error"'
    )
    assert "unparseable input" in details


@pytest.mark.parametrize(
    ("defect", "check_id", "quoted"),
    [
        ("bad-tool-name", "tools-name-format", "Tool names SHOULD be between 1 and 128 characters"),
        ("cursor-internal", "error-invalid-cursor", "Invalid cursors SHOULD result in an error with code -32602"),
    ],
)
def test_a_warning_quotes_the_spec_sentence_it_rests_on(defect: str, check_id: str, quoted: str) -> None:
    status, details = verdict(compliance_audit(stdio_server(SCRIPT, "--defect", defect)), check_id)
    assert status == "warn"
    assert f'; the spec: "{quoted}' in details


# --- attribution: an input is blamed only when the same call succeeds without it ----------------------
INJECTION_CHECKS = (
    "security-command-injection",
    "security-sql-injection",
    "security-path-traversal",
    "security-ssrf-internal",
)
NOT_EVALUABLE = "not evaluable: the call fails without"


@pytest.mark.parametrize("transport", ["stdio", pytest.param("http", marks=pytest.mark.http)])
def test_an_unreachable_backend_is_the_sandbox_not_the_server(transport: str) -> None:
    server = stdio_server(SCRIPT, "--toolset", "backend-down") if transport == "stdio" else http_server(SCRIPT)
    if transport == "http":
        server["args"] = [*server["args"], "--toolset", "backend-down"]
    report = compliance_audit(server)
    status, details = verdict(report, "resources-list")
    assert status == "indeterminate", details
    assert "could not reach a backend (error -32603: connect ECONNREFUSED 127.0.0.1:" in details
    status, details = verdict(report, "tools-call")  # query_db: -32603 naming the refused connection
    assert status == "indeterminate", details
    assert "could not reach a backend" in details
    assert "Connection refused" in details
    for check in INJECTION_CHECKS:  # both tools fail without the payload: one as -32603, one as isError
        status, details = verdict(report, check)
        assert status == "indeterminate", (check, details)
        assert details.startswith(NOT_EVALUABLE), details
        assert "query_db: error -32603" in details
        assert "search_index: isError" in details
    blamed = {r.id: r.details for r in report.results if r.id and r.status in ("fail", "warn")}
    assert blamed == {}


def test_a_tool_that_fails_for_every_input_makes_input_checks_not_evaluable() -> None:
    report = compliance_audit(stdio_server(SCRIPT, "--toolset", "always-failing"), only=["security", "tools"])
    for check in ("security-extra-params", *INJECTION_CHECKS):
        status, details = verdict(report, check)
        assert status == "indeterminate", (check, details)
        assert details.startswith(NOT_EVALUABLE), details
        assert "broken_lookup: error -32603: Internal error: the lookup table is corrupt" in details
    status, details = verdict(report, "security-oversized-input")  # it survives: that is what is claimed
    assert status == "pass", details


def test_extra_params_fail_when_only_the_extra_argument_breaks_the_call() -> None:
    report = compliance_audit(stdio_server(SCRIPT, "--toolset", "strict-args"), only=["security"])
    assert verdict(report, "security-extra-params") == (
        "fail",
        "strict_echo failed with -32603 on an extra argument; without it the same call succeeds",
    )
    status, details = verdict(report, "security-command-injection")
    assert status == "pass", details
    assert "in strict_echo" in details
    assert "not evaluable (failing without the payload too): broken_lookup" in details


def test_injection_evidence_fails_even_where_the_usual_call_fails() -> None:
    # read_doc with its generated argument finds no document; the traversal payload still reads /etc/passwd.
    status, details = verdict(
        compliance_audit(stdio_server(SCRIPT, "--defect", "path-traversal"), only=["security-path-traversal"]),
        "security-path-traversal",
    )
    assert status == "fail", details
    assert "read_doc" in details


def test_one_baseline_call_per_tool_reusing_an_identical_earlier_call() -> None:
    config = parse_config(
        {"server": stdio_server(SCRIPT, "--toolset", "strict-args"), "suites": [COMPLIANCE_SUITE], "timeoutMs": 5000}
    )
    session = open_session(config.server, 5.0)
    try:
        session.initialize()
        ctx = ComplianceContext(
            config, session, "2025-11-25", auth_configured=False, pool=SessionPool(config.server, 5.0)
        )
        broken, strict = ctx.tools
        session.call_tool(str(strict["name"]), ctx.arguments_for(strict))  # as a hook suite would
        assert failure_text(ctx.baseline(strict)) is None
        assert failure_text(ctx.baseline(broken)) == "error -32603: Internal error: the lookup table is corrupt"
        assert failure_text(ctx.baseline(broken)) is not None
        sent = [
            m.message["params"]["name"]
            for m in session.transport.recording.messages()
            if m.direction == "sent" and isinstance(m.message, dict) and m.message.get("method") == "tools/call"
        ]
        assert sent == ["strict_echo", "broken_lookup"]
    finally:
        session.close()


def test_a_call_that_got_no_answer_is_not_made_again_as_a_baseline() -> None:
    config = parse_config({"server": stdio_server("broken_server.py"), "suites": [COMPLIANCE_SUITE], "timeoutMs": 5000})
    session = open_session(config.server, 5.0)
    try:
        session.initialize()
        ctx = ComplianceContext(
            config,
            session,
            session.identity.protocol_version if session.identity else "",
            auth_configured=False,
            pool=SessionPool(config.server, 5.0),
        )
        hang = next(t for t in ctx.tools if t["name"] == "hang_forever")
        assert session.call_tool("hang_forever", ctx.arguments_for(hang), timeout_s=0.5).timed_out
        assert ctx.baseline(hang) is None
        assert session.calls_by_tool["hang_forever"] == 1
    finally:
        session.close()


def test_a_tool_that_reaches_for_its_backend_without_its_arguments_has_not_validated_them() -> None:
    report = compliance_audit(
        stdio_server(SCRIPT, "--toolset", "backend-down", "--defect", "no-arg-validation"),
        only=["tools-call-missing-args"],
    )
    status, details = verdict(report, "tools-call-missing-args")
    assert status == "indeterminate", details
    assert details.startswith("the server could not reach a backend (error -32603: database unavailable")
