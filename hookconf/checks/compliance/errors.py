"""Error handling: unknown methods, malformed JSON and requests, bad tool calls, cursors, ids; and the error codes
2026-07-28 retired."""

from __future__ import annotations

import json
from collections.abc import Callable

from hookconf.checks.compliance.answers import describe, error_code, is_error, not_evaluable
from hookconf.checks.compliance.catalog import (
    STATELESS,
    Category,
    Outcome,
    Rule,
    advised,
    compliance_check,
    failed,
    passed,
    skipped,
    warned,
)
from hookconf.checks.compliance.context import ComplianceContext, RawAnswer, probe_key
from hookconf.checks.compliance.probe_cache import Key
from hookconf.protocol import (
    BASE_PAGE,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RESOURCE_NOT_FOUND,
    URL_ELICITATION_REQUIRED,
)
from hookconf.verdicts import Status
from hookconf.wire.recording import RecordedMessage

UNKNOWN_METHOD = {"jsonrpc": "2.0", "id": "hookconf-unknown-method-1", "method": "hookconf/no-such-method"}
INVALID_REQUEST_MESSAGE = {"jsonrpc": "2.0", "id": "hookconf-invalid-request-1", "method": 42}
TRUNCATED_JSON = '{"jsonrpc": "2.0", "id": "hookconf-parse-1", "method": "ping"'
UNKNOWN_TOOL = "hookconf_no_such_tool_7f3a"
RETIRED_CODES = {
    RESOURCE_NOT_FOUND: f"resource not found (now {INVALID_PARAMS})",
    URL_ELICITATION_REQUIRED: "URL elicitation required (MRTR replaced it)",
}
LIST_KEYS = {"tools/list": "tools", "resources/list": "resources", "prompts/list": "prompts"}
GATED_METHODS = {
    "prompts": ("prompts/list", {}),
    "resources": ("resources/list", {}),
    "tools": ("tools/list", {}),
    "logging": ("logging/setLevel", {"level": "info"}),
}
LIST_CAPABILITIES = ("prompts", "resources", "tools")
UNDECLARED_ADVICE = (
    "a method of an undeclared capability answered without items (e.g. an empty list); the spec's "
    '"Only use capabilities that were successfully negotiated" binds the party that uses one, the '
    "client, and no sentence asks a server to refuse it (serving items does fail: a server that "
    "supports prompts, resources or tools MUST declare them)"
)
IS_ERROR_ADVICE = (
    "an isError tool result instead of a JSON-RPC error; the spec lists unknown tools and malformed "
    "requests under protocol errors, with no SHOULD"
)
INVALID_CURSOR_RULE = Rule(
    "Invalid cursors SHOULD result in an error with code -32602 (Invalid params).",
    "MCP server/utilities/pagination#error-handling, 2024-11-05 to 2026-07-28",
)


def unknown_method(ctx: ComplianceContext) -> RawAnswer:
    return _probe(ctx, "unknown-method", UNKNOWN_METHOD)


def invalid_request(ctx: ComplianceContext) -> RawAnswer:
    return _probe(ctx, "invalid-request", INVALID_REQUEST_MESSAGE)


def invalid_json(ctx: ComplianceContext) -> RawAnswer:
    return _probe(ctx, "invalid-json", TRUNCATED_JSON)


def _probe(ctx: ComplianceContext, key: str, message: object) -> RawAnswer:
    return noting_arrivals(ctx, key, lambda: ctx.probe(key, message))


def noting_arrivals(ctx: ComplianceContext, key: str, send: Callable[[], RawAnswer]) -> RawAnswer:
    """The answer to a probe sent once per key, keeping what else the server sent meanwhile (notifications,
    requests, stray lines), so that a missing answer can say what did arrive (see no_answer)."""
    return ctx.probes.get_or_make(probe_key(key), lambda: _sent_noting_arrivals(ctx, key, send))


def _arrivals_key(key: str) -> Key[list[str]]:
    """What else the server sent while the probe `key` waited for its answer."""
    return Key("arrived", key)


def _sent_noting_arrivals(ctx: ComplianceContext, key: str, send: Callable[[], RawAnswer]) -> RawAnswer:
    mark = ctx.log.received_count()
    answer = send()
    ctx.probes.put(
        _arrivals_key(key),
        [
            _arrival(entry)
            for entry in ctx.log.received_since(mark)
            if not entry.is_json or _is_server_message(entry.message)
        ],
    )
    return answer


def _is_server_message(message: object) -> bool:
    items = message if isinstance(message, list) else [message]
    return any(isinstance(item, dict) and "method" in item for item in items)


def _arrival(entry: RecordedMessage) -> str:
    if not entry.is_json:
        return f"the non-JSON line {entry.raw.strip()[:60]!r}"
    item = next(
        i
        for i in (entry.message if isinstance(entry.message, list) else [entry.message])
        if isinstance(i, dict) and "method" in i
    )
    kind = "request" if "id" in item else "notification"
    params = f" {json.dumps(item['params'], ensure_ascii=False)[:80]}" if "params" in item else ""
    return f"the {kind} {item['method']}{params}"


def no_answer(ctx: ComplianceContext, key: str, to_what: str) -> str:
    """'no answer to X', naming what the server sent instead when something did arrive."""
    arrived = ctx.probes.get(_arrivals_key(key), [])
    if not arrived:
        return f"no answer to {to_what}"
    more = f" (and {len(arrived) - 1} more)" if len(arrived) > 1 else ""
    return f"no answer to {to_what}; meanwhile the server sent {arrived[0]}{more}"


def _survival(answer: RawAnswer, what: str, silence: str) -> Outcome:
    if not answer.still_serving:
        return failed(f"the server stopped answering after {what}")
    if answer.response is None:
        return passed(f"still serving after {what}; {silence}")
    return passed(f"still serving after {what}; it answered with {describe(answer.response)}")


@compliance_check(
    "error-unknown-method",
    Category.ERRORS,
    "Unknown method gets a JSON-RPC error",
    required=True,
    spec=f"{BASE_PAGE}#responses",
    why="A request must be answered; silence leaves the client waiting until its timeout.",
    fix="Answer unknown methods with error -32601 (Method not found).",
)
def check_unknown_method(ctx: ComplianceContext) -> Outcome:
    answer = unknown_method(ctx)
    if answer.response is None:
        return failed(
            no_answer(ctx, "unknown-method", "an unknown method")
            + ("" if answer.still_serving else "; the server stopped")
        )
    if not is_error(answer.response):
        return failed(f"an unknown method was answered with {describe(answer.response)}")
    return passed(f"answered with {describe(answer.response)}")


@compliance_check(
    "error-method-code",
    Category.ERRORS,
    "Unknown method uses -32601",
    stateless_required=True,
    spec=f"{BASE_PAGE}#responses",
    lighthouse=("robust-unknown-method",),
    why="-32601 tells the client the method does not exist, as opposed to failing.",
    fix="Use code -32601 for methods you do not implement; -32602/-32603 mean something else.",
)
def check_method_code(ctx: ComplianceContext) -> Outcome:
    code = error_code(unknown_method(ctx).response)
    if code is None:
        return skipped("the unknown method got no error to judge (see error-unknown-method)")
    if code != METHOD_NOT_FOUND:
        return failed(f"unknown method answered with {code}, expected {METHOD_NOT_FOUND}")
    return passed(str(METHOD_NOT_FOUND))


@compliance_check(
    "error-invalid-jsonrpc",
    Category.ERRORS,
    "Survives a malformed JSON-RPC request",
    required=True,
    stateless_required=False,
    spec=f"{BASE_PAGE}#requests",
    why="A bad request from one client must not take the server down for everyone.",
    fix="Validate each message and answer invalid ones with -32600; never crash on them.",
)
def check_invalid_jsonrpc(ctx: ComplianceContext) -> Outcome:
    what = "a request whose method is a number"
    return _survival(invalid_request(ctx), what, no_answer(ctx, "invalid-request", what))


@compliance_check(
    "error-invalid-request-code",
    Category.ERRORS,
    "Invalid request answered with -32600",
    spec=f"{BASE_PAGE}#requests",
    why="JSON-RPC 2.0 answers an Invalid Request with -32600; silence leaves the client hanging.",
    fix="Answer a request that is valid JSON but not a valid request with error -32600.",
)
def check_invalid_request_code(ctx: ComplianceContext) -> Outcome:
    answer = invalid_request(ctx)
    code = error_code(answer.response)
    if answer.response is None:
        return failed(
            f"{no_answer(ctx, 'invalid-request', 'an invalid request (its method is a number)')}; "
            "JSON-RPC requires -32600"
        )
    if code != INVALID_REQUEST:
        return failed(f"invalid request answered with {describe(answer.response)}, expected {INVALID_REQUEST}")
    return passed(str(INVALID_REQUEST))


@compliance_check(
    "error-invalid-json",
    Category.ERRORS,
    "Survives invalid JSON",
    spec=f"{BASE_PAGE}#messages",
    lighthouse=("robust-malformed-json",),
    why="A truncated message must not crash the server or desynchronize its input.",
    fix="Catch parse errors per message, answer -32700, and go on reading.",
)
def check_invalid_json(ctx: ComplianceContext) -> Outcome:
    what = "a truncated JSON message"
    return _survival(invalid_json(ctx), what, no_answer(ctx, "invalid-json", what))


@compliance_check(
    "error-parse-code",
    Category.ERRORS,
    "Invalid JSON answered with -32700 and id null",
    spec=f"{BASE_PAGE}#messages",
    why="JSON-RPC 2.0 answers unparseable input with -32700 and id null (the id cannot be read).",
    fix='Answer unparseable input with {"jsonrpc": "2.0", "id": null, "error": {"code": -32700, ...}}.',
)
def check_parse_code(ctx: ComplianceContext) -> Outcome:
    answer = invalid_json(ctx)
    response = answer.response
    if response is None:
        return failed(f"{no_answer(ctx, 'invalid-json', 'the invalid JSON')}; JSON-RPC requires a {PARSE_ERROR} error")
    if error_code(response) != PARSE_ERROR:
        return failed(f"invalid JSON answered with {describe(response)}, expected {PARSE_ERROR}")
    if not isinstance(response, dict) or response.get("id") is not None:
        carried = response.get("id") if isinstance(response, dict) else "?"
        return failed(f"the {PARSE_ERROR} error carries id {carried!r}, expected null")
    return passed(f"{PARSE_ERROR} with id null")


def _judge_bad_call(response: object, what: str) -> Outcome:
    if response is None:
        return failed(f"no answer to {what}")
    code = error_code(response)
    if code == INTERNAL_ERROR:
        return failed(
            f"{what} answered with {INTERNAL_ERROR} (internal error): the server failed instead of rejecting "
            "the request; use -32602"
        )
    if is_error(response):
        return passed(f"rejected with {describe(response)}")
    result = response.get("result") if isinstance(response, dict) else None
    if isinstance(result, dict) and result.get("isError") is True:
        return advised(
            f"{what} answered with a tool result with isError: true; the spec lists this case "
            "under protocol errors (JSON-RPC errors), with no SHOULD"
        )
    return failed(f"{what} was answered with a success result")


@compliance_check(
    "error-missing-params",
    Category.ERRORS,
    "tools/call without a name is rejected",
    capability="tools",
    spec="server/tools#error-handling",
    why="A call that names no tool cannot succeed; the client must learn that from an error.",
    fix="Answer tools/call without params.name with -32602 (Invalid params).",
    advice=IS_ERROR_ADVICE,
)
def check_missing_params(ctx: ComplianceContext) -> Outcome:
    return _judge_bad_call(ctx.request("tools/call", {"arguments": {}}), "tools/call without a name")


@compliance_check(
    "tools-call-unknown",
    Category.ERRORS,
    "Unknown tool name is rejected",
    capability="tools",
    spec="server/tools#error-handling",
    lighthouse=("robust-invalid-tool",),
    why="Unknown tools are a protocol error; a success or an internal error misleads the client.",
    fix="Answer tools/call for an unknown name with -32602 (Unknown tool).",
    advice=IS_ERROR_ADVICE,
)
def check_unknown_tool(ctx: ComplianceContext) -> Outcome:
    return _judge_bad_call(ctx.call_tool(UNKNOWN_TOOL, {}), f"tools/call of the unknown tool {UNKNOWN_TOOL!r}")


@compliance_check(
    "error-capability-gated",
    Category.ERRORS,
    "What the server serves, it declares as a capability",
    spec="basic/lifecycle#capability-negotiation",
    why="Clients that respect the negotiation never ask for an undeclared feature: prompts, resources "
    "or tools served without their capability stay hidden from them.",
    fix="Declare every capability whose items you serve; answer methods of others with -32601.",
    advice=UNDECLARED_ADVICE,
)
def check_capability_gated(ctx: ComplianceContext) -> Outcome:
    undeclared = [name for name in LIST_CAPABILITIES if not ctx.declared(name)]
    # logging/setLevel is gone in 2026-07-28 for every server, so it says nothing about gating there; it is
    # probed only when no list is left to probe, as accepting it may change what the server logs
    if not undeclared and not ctx.stateless and not ctx.declared("logging"):
        undeclared = ["logging"]
    if not undeclared:
        return skipped("the server declares every capability hookconf can probe")
    outcomes: list[Outcome] = []
    for name in undeclared:
        outcomes.append(_gated(ctx, name))
        if outcomes[-1].status is Status.FAIL:  # nothing later can change the verdict
            return outcomes[-1]
    advice = next((o for o in outcomes if o.status is Status.ADVICE), None)
    return advice or passed("; ".join(o.details for o in outcomes))


def _gated(ctx: ComplianceContext, capability: str) -> Outcome:
    """One method of a capability the server did not declare: a rule is broken only by silence (JSON-RPC
    answers every request) or by items served (the server supports the feature, so it MUST declare it)."""
    method, params = GATED_METHODS[capability]
    response = ctx.request(method, params)
    if response is None:
        return failed(f"no answer to {method} (capability {capability} not declared); JSON-RPC answers every request")
    if is_error(response):
        return passed(f"{method} (not declared) rejected with {describe(response)}")
    result = response.get("result")
    items = result.get(LIST_KEYS.get(method, "")) if isinstance(result, dict) else None
    if isinstance(items, list) and items:
        names = ", ".join(
            repr(str(item.get("name") or item.get("uri"))) for item in items[:3] if isinstance(item, dict)
        )
        count = f"{len(items)} item{'s' if len(items) > 1 else ''}"
        return failed(
            f"{method} listed {count} ({names}) although the {capability} capability is not declared; the "
            f'spec: "Servers that support {capability} MUST declare the `{capability}` capability" '
            f"(MCP server/{capability}#capabilities, every revision)"
        )
    answer = f"an empty {LIST_KEYS[method]} list" if isinstance(items, list) else describe(response)
    return advised(f"{method} was answered with {answer} although the {capability} capability is not declared")


@compliance_check(
    "error-invalid-cursor",
    Category.ERRORS,
    "An invalid cursor is rejected with -32602",
    spec="server/utilities/pagination#error-handling",
    why="Invalid cursors SHOULD give -32602 so that the client restarts its listing.",
    fix="Answer an unknown cursor with -32602 (Invalid params).",
    should=INVALID_CURSOR_RULE,
)
def check_invalid_cursor(ctx: ComplianceContext) -> Outcome:
    method = next((GATED_METHODS[cap][0] for cap in ("tools", "resources", "prompts") if ctx.declared(cap)), None)
    if method is None:
        return skipped("no list capability declared")
    response = ctx.request(method, {"cursor": "hookconf-invalid-cursor"})
    if response is None:
        return failed(f"no answer to {method} with an invalid cursor")
    code = error_code(response)
    if code == INVALID_PARAMS:
        return passed(f"{method} rejected the cursor with {INVALID_PARAMS}")
    first_page = ctx.listing(method, LIST_KEYS[method])
    if first_page.error is not None and first_page.pages == 0:
        return not_evaluable("the cursor", f"{method}: {describe({'error': first_page.error})}")
    # the rule is a SHOULD, so even -32603 (the server failing on the cursor) is a warning
    return warned(f"{method} with an invalid cursor answered with {describe(response)}, not {INVALID_PARAMS}")


@compliance_check(
    "error-id-echo",
    Category.ERRORS,
    "Errors echo the request id",
    spec=f"{BASE_PAGE}#responses",
    why="An error with the wrong id cannot be matched to its request: the client waits forever.",
    fix="Copy the request's id into every error response (null only when it could not be read).",
)
def check_id_echo(ctx: ComplianceContext) -> Outcome:
    answer = unknown_method(ctx)
    if not is_error(answer.response):
        return skipped("no error response to a request with an id (see error-unknown-method)")
    sent_id = UNKNOWN_METHOD["id"]
    echoed = answer.response.get("id") if isinstance(answer.response, dict) else None
    if echoed != sent_id:
        return failed(f"the error for request id {sent_id!r} carries id {echoed!r}")
    return passed("request id echoed on the error")


@compliance_check(
    "error-response-format",
    Category.ERRORS,
    "Error objects have an integer code and a string message",
    spec=f"{BASE_PAGE}#responses",
    lighthouse=("proto-error-format",),
    why="Clients read error.code to decide what to do and show error.message to users.",
    fix='Send errors as {"code": <integer>, "message": <string>, "data"?: ...}.',
    after_all=True,
)
def check_error_format(ctx: ComplianceContext) -> Outcome:
    unknown_method(ctx)
    errors = [m["error"] for m in ctx.error_responses()]
    if not errors:
        return skipped("the server sent no error responses")
    bad = [
        e
        for e in errors
        if not isinstance(e.get("code"), int)
        or isinstance(e.get("code"), bool)
        or not isinstance(e.get("message"), str)
    ]
    if bad:
        return failed(f"{len(bad)} of {len(errors)} errors lack an integer code or a string message: {bad[0]}")
    return passed(f"all {len(errors)} errors well formed")


# --- 2026-07-28 only ---------------------------------------------------------------------------------
@compliance_check(
    "error-retired-codes",
    Category.ERRORS,
    "No retired error codes",
    revisions=STATELESS,
    spec="basic#error-codes",
    after_all=True,
    why="-32002 and -32042 are retired and never reused; clients of 2026-07-28 do not know them.",
    fix="Use -32602 for unknown resources; use input_required results instead of -32042.",
)
def check_retired_codes(ctx: ComplianceContext) -> Outcome:
    messages = ctx.all_received()
    if not messages:
        return failed("nothing was received to inspect")
    errors = [m["error"] for m in messages if isinstance(m, dict) and isinstance(m.get("error"), dict)]
    retired = sorted(
        {f"{e.get('code')} ({RETIRED_CODES[e.get('code')]})" for e in errors if e.get("code") in RETIRED_CODES}
    )
    if retired:
        return failed(f"retired codes used: {', '.join(retired)}")
    return passed(f"{len(errors)} errors, none with a retired code")
