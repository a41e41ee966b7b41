"""Normalization, argument generation and scoring: the pure functions behind the verdicts."""

from __future__ import annotations

import jsonschema
import pytest

from hookconf.checks.arguments import generated_arguments
from hookconf.checks.backend import unreachable_backend
from hookconf.checks.compliance.answers import backend_failure, failure_text, not_evaluable
from hookconf.checks.normalize import (
    ISO_TIMESTAMP,
    TIMESTAMP_MASK,
    UUID,
    canonical,
    differs_only_in_floats,
    equal_within,
    mask,
    normalized_output,
    shape,
)
from hookconf.checks.registry import SuiteResult
from hookconf.scoring import server_score, tool_score
from hookconf.session import CallOutcome
from hookconf.verdicts import Status


def text_result(text: str) -> CallOutcome:
    return CallOutcome(duration_ms=1.0, result={"content": [{"type": "text", "text": text}]})


def test_json_in_text_content_is_compared_as_json() -> None:
    first = normalized_output(text_result('{"b": 1, "a": [1, 2]}'))
    second = normalized_output(text_result('{"a":[1,2],"b":1}'))
    assert canonical(first) == canonical(second)
    assert canonical(normalized_output(text_result("not json {"))) != canonical(first)


def test_plain_text_stays_text() -> None:
    assert normalized_output(text_result("hello"))["content"][0]["text"] == "hello"
    assert normalized_output(text_result("{broken"))["content"][0]["text"] == "{broken"


def test_errors_and_timeouts_normalize_to_distinct_values() -> None:
    error = CallOutcome(duration_ms=1.0, error={"code": -32602, "message": "bad"})
    timeout = CallOutcome(duration_ms=1.0, timed_out=True)
    assert normalized_output(error) != normalized_output(timeout)
    assert normalized_output(error)["error"]["code"] == -32602


@pytest.mark.parametrize(
    "stamp",
    ["2026-12-03T06:02:39Z", "2026-12-03T06:02:39.123456+00:00", "2026-12-03 06:02:39", "2026-12-03T06:02:39.5-05:00"],
)
def test_iso_timestamps_are_masked(stamp: str) -> None:
    assert mask({"at": f"seen {stamp} ok"}, ISO_TIMESTAMP, TIMESTAMP_MASK) == {"at": f"seen {TIMESTAMP_MASK} ok"}


def test_plain_dates_and_numbers_are_not_timestamps() -> None:
    assert ISO_TIMESTAMP.search("version 2026.12.03") is None
    assert ISO_TIMESTAMP.search("id 20261203060239") is None


def test_uuids_are_recognized_in_any_case() -> None:
    assert UUID.search("req 3F2504E0-4F89-11D3-9A0C-0305E82C3301 done")
    assert UUID.search("3f2504e0-4f89-11d3-9a0c-0305e82c330") is None  # one digit short


def test_float_tolerance_is_relative_or_absolute() -> None:
    assert equal_within({"x": 1.0}, {"x": 1.0 + 1e-12}, 1e-9)
    assert not equal_within({"x": 1.0}, {"x": 1.001}, 1e-9)
    assert equal_within({"x": 1.0}, {"x": 1.001}, 1e-2)
    assert not equal_within([1, 2], [1, 2, 3], 1.0)
    assert not equal_within(True, 1, 1.0)  # a boolean is not the number 1


def test_float_drift_is_told_apart_from_other_changes() -> None:
    assert differs_only_in_floats([{"v": 0.5001}, {"v": 0.5002}])
    assert not differs_only_in_floats([{"v": 1}, {"v": 2}])  # integers changing are not drift
    assert not differs_only_in_floats([{"v": 0.5}, {"v": 0.5, "w": 1}])
    assert not differs_only_in_floats([{"v": "a"}, {"v": "b"}])


def test_shape_ignores_values_but_not_structure() -> None:
    assert shape({"a": 1, "b": ["x"]}) == shape({"b": ["y", "z"], "a": 2.5})
    assert shape({"a": 1}) != shape({"a": 1, "b": [1, 2]})
    assert shape({"a": 1}) != shape({"a": "1"})


def test_generated_arguments_satisfy_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 5},
            "limit": {"type": "integer", "minimum": 3},
            "mode": {"enum": ["fast", "slow"]},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "nested": {"type": "object", "properties": {"flag": {"type": "boolean"}}, "required": ["flag"]},
            "optional": {"type": "string"},
        },
        "required": ["query", "limit", "mode", "when", "tags", "nested"],
    }
    arguments, note = generated_arguments(schema)
    assert note is None
    jsonschema.validate(arguments, schema)
    assert "optional" not in arguments  # minimal: only what is required


def test_generated_arguments_note_when_the_schema_cannot_be_met() -> None:
    digits = {"type": "string", "pattern": "^[0-9]+$"}
    arguments, note = generated_arguments({"type": "object", "properties": {"n": digits}, "required": ["n"]})
    assert "n" in arguments
    assert note is not None
    assert "add a probe" in note


def results(*statuses: tuple[str, Status]) -> list[SuiteResult]:
    return [SuiteResult(suite, "t", status, "") for suite, status in statuses]


def test_tool_score_weights_follow_the_seed() -> None:
    all_pass = results(
        ("idempotency", Status.PASS),
        ("side-effects", Status.PASS),
        ("latency", Status.PASS),
        ("determinism", Status.PASS),
        ("dsgvo", Status.PASS),
    )
    assert tool_score(all_pass) == 100
    mixed = results(
        ("idempotency", Status.FAIL),
        ("side-effects", Status.INDETERMINATE),
        ("latency", Status.WARN),
        ("determinism", Status.PASS),
        ("dsgvo", Status.PASS),
    )
    # (30*0 + 25*50 + 20*60 + 15*100 + 10*100) / 100
    assert tool_score(mixed) == 49.5


def test_skips_are_left_out_of_the_score() -> None:
    only_dsgvo = results(("idempotency", Status.SKIP), ("latency", Status.SKIP), ("dsgvo", Status.WARN))
    assert tool_score(only_dsgvo) == 60
    assert tool_score(results(("idempotency", Status.SKIP))) is None


def test_server_score_is_the_mean_of_tool_scores() -> None:
    assert server_score([100, 50, None]) == 75
    assert server_score([None]) is None


@pytest.mark.parametrize(
    "text",
    [
        "Error searching libraries: TypeError: fetch failed",
        "connect ECONNREFUSED 127.0.0.1:5432",
        "getaddrinfo ENOTFOUND api.example.com",
        "HTTPSConnectionPool(host='api.x.io', port=443): Max retries exceeded with url: /v1",
        "[Errno -3] Temporary failure in name resolution",
        "database unavailable: ConnectionRefusedError: [Errno 111] Connection refused",
        "dial tcp: lookup api.example.com on 127.0.0.53:53: no such host",
        "java.net.UnknownHostException: api.example.com",
        "Cannot connect to host api.example.com:443 ssl:default [Name or service not known]",
        "ConnectTimeoutError: Connect Timeout Error (attempted address: api.example.com:443) UND_ERR_CONNECT_TIMEOUT",
        "HTTPSConnectionPool(host='api.example.com', port=443): Read timed out. (read timeout=10)",
        "AxiosError: timeout of 10000ms exceeded",
    ],
)
def test_an_error_naming_an_unreachable_backend_is_recognised(text: str) -> None:
    assert unreachable_backend(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Unknown tool: frobnicate",
        "Invalid arguments: 'path' is required",
        "hello from hookconf",
        "Connection established with 3 entities",
        "Refused: the path is outside the allowed directories",
    ],
)
def test_ordinary_errors_and_outputs_do_not_name_a_backend(text: str) -> None:
    assert unreachable_backend(text) is None


# Answers as recorded from real servers and the compliance fixture.
@pytest.mark.parametrize(
    ("response", "text"),
    [
        ({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "ok"}]}}, None),
        ({"jsonrpc": "2.0", "id": 3, "result": {"content": [], "isError": False}}, None),
        (None, "no answer"),
        (
            {"jsonrpc": "2.0", "id": 4, "error": {"code": -32603, "message": "connect ECONNREFUSED 127.0.0.1:5432"}},
            "error -32603: connect ECONNREFUSED 127.0.0.1:5432",
        ),
        (
            {"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "Invalid params", "data": {"field": "q"}}},
            'error -32602: Invalid params ({"field": "q"})',
        ),
        (
            {
                "jsonrpc": "2.0",
                "id": 6,
                "result": {
                    "isError": True,
                    "content": [
                        {"type": "text", "text": "Error searching libraries:"},
                        {"type": "text", "text": "TypeError: fetch failed"},
                    ],
                },
            },
            "isError: Error searching libraries: TypeError: fetch failed",
        ),
    ],
)
def test_failure_text_says_why_an_answer_is_no_success(response: object, text: str | None) -> None:
    assert failure_text(response) == text


def test_a_backend_failure_is_recognised_in_both_shapes_of_a_failed_call() -> None:
    as_error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "getaddrinfo ENOTFOUND api.x.io"}}
    as_tool_result = {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "isError": True,
            "content": [
                {
                    "type": "text",
                    "text": "request to https://api.x.io failed, reason: connect ECONNREFUSED 10.0.0.1:443",
                }
            ],
        },
    }
    assert backend_failure(as_error) == "error -32603: getaddrinfo ENOTFOUND api.x.io"
    assert backend_failure(as_tool_result) == (
        "isError: request to https://api.x.io failed, reason: connect ECONNREFUSED 10.0.0.1:443"
    )
    assert backend_failure({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Unknown tool: x"}}) is None
    assert (
        backend_failure(
            {"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "connect ECONNREFUSED"}]}}
        )
        is None
    )  # a successful result, whatever it says


def test_not_evaluable_is_indeterminate_and_names_the_failure_without_the_input() -> None:
    outcome = not_evaluable("the extra argument", "get_docs: error -32603: " + "x" * 400)
    assert outcome.status is Status.INDETERMINATE
    assert outcome.details.startswith("not evaluable: the call fails without the extra argument as well: get_docs:")
    assert len(outcome.details) < 400
