"""The hook suites on the edge fixture: unannotated tools, errors without isError, an unreachable backend,
and scores that say what they rest on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hookconf import HOOK_SUITES
from hookconf.checks.call_errors import disguised_error, undecidable
from hookconf.checks.dsgvo import describes_changes
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.fleet.store import StoredAudit
from hookconf.fleet.tables import audits_frame, score_cell
from hookconf.report.formats import html, human, markdown
from hookconf.report.model import Report, ResultEntry
from hookconf.session import CallOutcome
from tests.support import CliRun, stdio_server

CALLING_SUITES = ("idempotency", "side-effects", "latency", "determinism")
COMPARING_SUITES = ("idempotency", "latency", "determinism")
UNANNOTATED = ("list_notes", "run_query", "rename_note")


def audit(**settings: Any) -> Report:
    config = parse_config({"server": stdio_server("hook_edge_server.py"), "tries": 3, "timeoutMs": 5000, **settings})
    return run_audit(config, RunOptions(suites=HOOK_SUITES))


@pytest.fixture(scope="module")
def report() -> Report:
    return audit()


@pytest.fixture(scope="module")
def unannotated_report() -> Report:
    """Only tools that carry no annotation: nothing may be called, so there is nothing to score."""
    return audit(toolFilter=list(UNANNOTATED))


def outcome(report: Report, tool: str, suite: str) -> ResultEntry:
    return next(r for r in report.results if r.tool == tool and r.suite == suite)


def entries(report: Report, tool: str, code: str) -> list[ResultEntry]:
    return [r for r in report.results if r.tool == tool and r.code == code]


@pytest.mark.parametrize("tool", UNANNOTATED)
def test_unannotated_tool_is_skipped_with_the_annotation_finding(report: Report, tool: str) -> None:
    for suite in CALLING_SUITES:
        entry = outcome(report, tool, suite)
        assert (entry.status, entry.code) == ("skip", "ANNOT-001")
        assert entry.details == (
            "no readOnlyHint/destructiveHint annotation: not called, hook readiness unknown; annotate it"
        )
    entry_tool = next(t for t in report.tools if t.name == tool)
    assert (entry_tool.calls, entry_tool.called, entry_tool.score) == (0, False, None)


@pytest.mark.parametrize("tool", ["list_notes", "run_query"])
def test_a_tool_that_only_reads_is_not_accused_of_destroying_data(report: Report, tool: str) -> None:
    assert outcome(report, tool, "dsgvo").code != "DSGVO-001"


def test_a_tool_described_as_changing_something_needs_deletion_docs(report: Report) -> None:
    assert (outcome(report, "rename_note", "dsgvo").status, outcome(report, "rename_note", "dsgvo").code) == (
        "fail",
        "DSGVO-001",
    )


def test_the_annotation_finding_names_only_the_missing_hint(report: Report) -> None:
    entry = outcome(report, "append_note", "idempotency")
    assert (entry.status, entry.code) == ("skip", "ANNOT-001")
    assert "no destructiveHint annotation" in entry.details


def test_declared_destructive_tool_keeps_dsgvo_001_and_is_not_called(report: Report) -> None:
    assert (outcome(report, "reset_notebook", "dsgvo").status, outcome(report, "reset_notebook", "dsgvo").code) == (
        "fail",
        "DSGVO-001",
    )
    skipped = outcome(report, "reset_notebook", "idempotency")
    assert (skipped.status, skipped.code) == ("skip", None)
    assert "destructiveHint: true" in skipped.details
    tool = next(t for t in report.tools if t.name == "reset_notebook")
    assert (tool.calls, tool.score) == (0, None)


def test_backend_failure_answered_as_success_is_indeterminate_and_warned(report: Report) -> None:
    for suite in COMPARING_SUITES:
        entry = outcome(report, "search_library", suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-004"), entry.details
        assert "fetch failed" in entry.details
        assert "offline" in entry.details
    (warning,) = entries(report, "search_library", "CALL-003")
    assert warning.status == "warn"
    assert "SHOULD be reported inside the result object" in warning.details
    # IDEMP, SIDE (no state probe), LAT, DET indeterminate (50) and DSGVO pass (100): 5500 / 100.
    assert next(t for t in report.tools if t.name == "search_library").score == 55.0


def test_error_answered_as_success_is_not_a_pass(report: Report) -> None:
    for suite in COMPARING_SUITES:
        entry = outcome(report, "lookup_word", suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-001"), entry.details
        assert "while isError is false (Error: the lookup table is corrupt)" in entry.details
    assert [w.status for w in entries(report, "lookup_word", "CALL-003")] == ["warn"]


def test_unreachable_backend_reported_with_is_error_is_the_sandbox(report: Report) -> None:
    for suite in COMPARING_SUITES:
        entry = outcome(report, "fetch_status", suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-004"), entry.details
        assert "Connection refused" in entry.details
    assert entries(report, "fetch_status", "CALL-003") == []  # it did set isError


def test_ordinary_answer_that_mentions_errors_passes(report: Report) -> None:
    assert {outcome(report, "sync_stats", suite).status for suite in COMPARING_SUITES} == {"pass"}
    assert entries(report, "sync_stats", "CALL-003") == []


def test_coverage_counts_the_tools_called(report: Report) -> None:
    assert report.coverage is not None
    assert (report.coverage.tools_listed, report.coverage.tools_called) == (9, 4)
    assert report.coverage.suites_run == list(HOOK_SUITES)
    # search_library, lookup_word, fetch_status 55 each, sync_stats 87.5 (only SIDE-002 undecided): mean 63.1
    assert report.score == 63.1
    assert "hook score 63.1/100 (4/9 tools called, 5 suites)" in markdown.render(report)


def test_no_tool_called_means_no_score(unannotated_report: Report) -> None:
    assert unannotated_report.score is None
    assert unannotated_report.coverage is not None
    assert (unannotated_report.coverage.tools_called, unannotated_report.coverage.suites_run) == (0, [])
    # dsgvo ran for every tool, yet a heuristic alone scores nothing
    assert {r.status for r in unannotated_report.results if r.suite == "dsgvo"} != {"skip"}
    text = human.render(unannotated_report)
    assert "Hook score: n/a (0/3 tools called, 0 suites)" in text
    assert "list_notes  (score n/a: not called)" in text
    assert "| list\\_notes | n/a: not called |" in markdown.render(unannotated_report)
    page = html.render(unannotated_report)
    assert "hook score (0/3 tools called, 0 suites)" in page
    assert '<td class="nowrap">not called</td>' in page


def test_new_codes_are_listed_and_explained(run_cli: Callable[..., CliRun]) -> None:
    rows = {line.split()[0]: line.split()[1:3] for line in run_cli("list").stdout.split("\n\n")[0].splitlines()[1:]}
    assert rows["ANNOT-001"] == ["*", "ADVICE"]  # its tools' suites skip; the finding itself is advice
    assert rows["CALL-003"] == ["protocol", "WARN"]
    assert rows["CALL-004"] == ["*", "INDETERMINATE"]
    explained = run_cli("explain", "CALL-003").stdout
    assert "SHOULD be reported inside the result object, with `isError` set to true" in explained
    assert "https://modelcontextprotocol.io/specification/2025-11-25/schema#calltoolresult" in explained
    annotation = run_cli("explain", "annot-001").stdout
    assert "never counted against the server" in annotation
    assert "severity: ADVICE" in annotation


def stored(version: str, report: dict[str, Any]) -> StoredAudit:
    return StoredAudit(
        id=1,
        fleet="f",
        server="s",
        version=version,
        source="npm",
        hookconf_version="0.1.0",
        outcome="audited",
        message=None,
        started_at="2026-12-04T00:00:00Z",
        duration_s=1.0,
        report=report,
    )


def test_fleet_score_cells_show_coverage_and_n_a() -> None:
    frame = audits_frame(
        [
            stored("1.0", {"score": None, "coverage": {"toolsListed": 9, "toolsCalled": 0, "suitesRun": []}}),
            stored(
                "2.0",
                {
                    "score": 71.5,
                    "grade": "A",
                    "complianceScore": 92.6,
                    "coverage": {"toolsListed": 9, "toolsCalled": 4, "suitesRun": list(HOOK_SUITES)},
                },
            ),
            stored("3.0", {"score": 80.0}),  # a report stored before reports carried coverage
        ]
    )
    cells = {row.version: score_cell(row) for row in frame.itertuples()}
    assert cells == {"1.0": "hook n/a (0/9 tools)", "2.0": "hook 71.5 (4/9 tools) · A 92.6", "3.0": "hook 80.0"}


# --- the classifiers, on answers seen from real servers ----------------------------------------------------


def text_outcome(text: str, is_error: bool = False) -> CallOutcome:
    return CallOutcome(duration_ms=1.0, result={"content": [{"type": "text", "text": text}], "isError": is_error})


@pytest.mark.parametrize(
    "text",
    [
        "Error searching libraries: TypeError: fetch failed",
        "Error: the lookup table is corrupt",
        "ERROR 500 from upstream",
        "Failed to fetch https://example.org/x",
        "TypeError: Cannot read properties of undefined (reading 'map')",
        'Traceback (most recent call last):\n  File "x.py", line 1',
        "connect ECONNREFUSED 127.0.0.1:5432",
        '{"error": "not found"}',
        '{"success": false, "error": "quota exceeded"}',
    ],
)
def test_errors_in_disguise_are_recognised(text: str) -> None:
    assert disguised_error(text_outcome(text)) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Error rate: 0%. Errors: none.",
        "Error handling in Go: return the error as the last value.",
        "error-free run",
        "Echo: Error: x",
        '{"error": null, "items": []}',
        "No results found",
        "Current time in UTC: 2026-12-04T00:00:00Z",
        "x" * 400 + " ECONNREFUSED",  # a long answer that mentions a backend error is content
    ],
)
def test_ordinary_answers_are_not_taken_for_errors(text: str) -> None:
    assert disguised_error(text_outcome(text)) is None


def test_an_error_text_the_input_asked_for_is_no_evidence() -> None:
    # server-everything's get-annotated-message: messageType "error" answers with an example error message
    answer = text_outcome("Error: Operation failed")
    assert disguised_error(answer, {"messageType": "error", "includeImage": False}) is None
    assert disguised_error(answer, {"messageType": "success"}) is not None


def test_a_backend_error_the_input_named_is_no_evidence() -> None:
    answer = text_outcome("ECONNREFUSED: the peer refused the connection (a Node.js system error)")
    assert disguised_error(answer, {"code": "ECONNREFUSED"}) is None
    assert disguised_error(answer, {"code": "EPIPE"}) is not None


def test_an_error_result_with_is_error_set_is_not_in_disguise() -> None:
    assert disguised_error(text_outcome("Error: x", is_error=True)) is None


def test_a_series_with_one_disguised_error_cannot_be_judged() -> None:
    series = [text_outcome("ok"), text_outcome("Error: x"), text_outcome("ok")]
    verdict = undecidable(series, {})
    assert verdict is not None
    assert verdict.code == "CALL-001"
    assert "1 of 3 calls" in verdict.reason
    assert undecidable([text_outcome("ok")] * 3, {}) is None


@pytest.mark.parametrize(
    ("description", "changes"),
    [
        ("Run a read-only SQL query", False),
        ("Lists the notes.", False),
        ("Check for updates", False),
        ("Returns JSON written by the server", False),
        ("Lists files that may be deleted", False),
        ("Reads a file. Does not modify anything.", False),
        ("Deletes a file permanently", True),
        ("Create or update a file", True),
        ("Use this to remove entities", True),
        ("Wipes the store.", True),
        ("Renames a note.", True),
    ],
)
def test_describes_changes(description: str, changes: bool) -> None:
    assert describes_changes(description) is changes


# --- a tool that writes without destroying, and a timeout behind a backend out of reach ---------------------


def test_a_tool_not_annotated_read_only_is_not_called_even_when_it_destroys_nothing() -> None:
    config = parse_config(
        {
            "server": stdio_server("hook_edge_server.py", "--additive"),
            "tries": 3,
            "timeoutMs": 5000,
            "toolFilter": ["create_note"],
        }
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    for suite in CALLING_SUITES:
        entry = outcome(report, "create_note", suite)
        assert (entry.status, entry.code) == ("skip", None), entry.details
        assert entry.details == (
            "not called: not annotated readOnlyHint: true (it may write; destructiveHint: "
            "false only says it does not destroy); allowDestructive opts it in"
        )
    tool = next(t for t in report.tools if t.name == "create_note")
    assert (tool.calls, tool.called, tool.score) == (0, False, None)


def test_allow_destructive_opts_in_a_tool_that_destroys_nothing() -> None:
    config = parse_config(
        {
            "server": stdio_server("hook_edge_server.py", "--additive"),
            "tries": 3,
            "timeoutMs": 5000,
            "toolFilter": ["create_note"],
            "allowDestructive": ["create_note"],
        }
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    assert outcome(report, "create_note", "idempotency").status == "pass"
    assert next(t for t in report.tools if t.name == "create_note").called


def test_a_timeout_after_an_unreachable_backend_is_the_sandbox_not_latency() -> None:
    # the first call fails on DNS, the next hangs past timeoutMs: a resolver that stalls, as notion's did
    config = parse_config(
        {
            "server": stdio_server("hook_edge_server.py", "--dns-stall"),
            "tries": 3,
            "timeoutMs": 1500,
            "toolFilter": ["lookup_host"],
        }
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    entry = outcome(report, "lookup_host", "latency")
    assert (entry.status, entry.code) == ("indeterminate", "CALL-004"), entry.details
    assert entry.details == (
        "a call got no answer within timeoutMs (1500 ms), and the server could not reach a "
        "backend (Error executing tool lookup_host: getaddrinfo ENOTFOUND api.example.com); "
        "hookconf audits offline, so this says nothing about the server itself"
    )
    assert not [r for r in report.results if r.code == "LAT-001"]


def test_a_timeout_with_no_backend_error_still_fails_the_budget() -> None:
    config = parse_config(
        {"server": stdio_server("broken_server.py"), "tries": 3, "timeoutMs": 1500, "toolFilter": ["hang_forever"]}
    )
    entry = outcome(run_audit(config, RunOptions(suites=("latency",))), "hang_forever", "latency")
    assert (entry.status, entry.code) == ("fail", "LAT-001")
    assert entry.details == "a call got no answer within timeoutMs (1500 ms); the tool is not called again"


@pytest.mark.parametrize("tool", ["open_document", "list_columns"])
def test_an_answer_that_the_named_thing_does_not_exist_is_an_error(tool: str) -> None:
    config = parse_config(
        {
            "server": stdio_server("hook_edge_server.py", "--not-found"),
            "tries": 3,
            "timeoutMs": 5000,
            "toolFilter": [tool],
        }
    )
    report = run_audit(config, RunOptions(suites=HOOK_SUITES))
    for suite in COMPARING_SUITES:
        entry = outcome(report, tool, suite)
        assert (entry.status, entry.code) == ("indeterminate", "CALL-001"), entry.details
    (warning,) = entries(report, tool, "CALL-003")
    assert warning.status == "warn"
    assert "not exist" in warning.details or "not found" in warning.details


# office-word and motherduck (the corpus), with the arguments hookconf generated for them
@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("Document hookconf.docx does not exist", {"filename": "hookconf"}),
        ("Document hookconf does not exist", {"filename": "hookconf"}),
        ('{"valid":false,"message":"Document hookconf.docx does not exist","report":{}}', {"filename": "hookconf"}),
        (
            '{\n  "success": false,\n  "database": "memory",\n  "schema": "main",\n  "table": "hookconf",\n  "error": '
            '"Table or view not found: memory.main.hookconf",\n  "errorType": "NotFoundError"\n}',
            {"table": "hookconf"},
        ),
        ('{"success": false, "error": "Document hookconf.docx does not exist"}', {"filename": "hookconf"}),
    ],
)
def test_errors_saying_the_named_thing_is_missing_are_recognised(text: str, arguments: dict[str, Any]) -> None:
    assert disguised_error(text_outcome(text), arguments) is not None


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("No Word documents found in .", {}),  # office-word list_available_documents: an empty listing
        ('{"success": true, "database": "memory", "schema": "all", "tables": [], "tableCount": 0}', {}),
        ('{"success": false, "database": "memory", "tables": []}', {}),  # no error named
        ('{"query": "hookconf", "suggestions": []}', {"query": "hookconf"}),
        ("Document report.docx does not exist", {"filename": "hookconf"}),  # not the thing the call named
        ("File hookconf not found", {}),  # no argument to name
        ("Loaded the settings.\nhookconf.toml not found, defaults used.", {"path": "hookconf"}),  # a log, not an answer
        ("Checks whether a document exists: hookconf.docx exists", {"filename": "hookconf"}),
    ],
)
def test_answers_that_do_not_say_the_named_thing_is_missing_are_not_errors(
    text: str, arguments: dict[str, Any]
) -> None:
    assert disguised_error(text_outcome(text), arguments) is None
