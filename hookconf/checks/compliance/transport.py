"""Transport: stdio framing, and the streamable-HTTP rules (status codes, content types, sessions); then the
2026-07-28 rules: no server-initiated requests, no GET/DELETE or sessions, and the headers (MCP-Protocol-Version,
Mcp-Method, Mcp-Name) that mirror each request's body."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

from hookconf import LATEST_HANDSHAKE_REVISION
from hookconf.checks.compliance.answers import describe, error_code, is_error, not_evaluable_rejection
from hookconf.checks.compliance.catalog import (
    HANDSHAKE,
    STATELESS,
    Category,
    Outcome,
    Rule,
    compliance_check,
    failed,
    passed,
    since,
    skipped,
    warned,
)
from hookconf.checks.compliance.choice import failure_echoes, left_out, service_summary, text_parameters
from hookconf.checks.compliance.context import ComplianceContext, http_transport
from hookconf.checks.compliance.errors import unknown_method
from hookconf.protocol import HEADER_MISMATCH, HTTP_PAGE, METHOD_NOT_FOUND, STDIO_PAGE
from hookconf.session import is_discover_result
from hookconf.wire.http import (
    METHOD_HEADER,
    NAME_HEADER,
    SESSION_HEADER,
    TOO_MANY_REQUESTS,
    VERSION_HEADER,
    HttpExchange,
    HttpReply,
)
from hookconf.wire.recording import FRAMING

UNICODE_PAYLOAD = "hookconf ünïcødé ✓ 日本語 🚀"
JSON_TYPES = ("application/json", "text/event-stream")
CONCURRENT_REQUESTS = 5
OTHER_VERSION = LATEST_HANDSHAKE_REVISION  # a header that disagrees with the 2026-07-28 in _meta


def _ping(request_id: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"})


# --- stdio -------------------------------------------------------------------------------------------
@compliance_check(
    "stdio-framing",
    Category.TRANSPORT,
    "stdout carries only newline-delimited JSON-RPC",
    required=True,
    transport="stdio",
    stateless_required=False,
    spec=STDIO_PAGE,
    why="The client reads stdout as messages; any other line (a log, a banner) is a protocol error.",
    fix="Write logs to stderr; write only JSON-RPC messages, one per line, to stdout.",
    after_all=True,
)
def check_framing(ctx: ComplianceContext) -> Outcome:
    received = ctx.log.main.received()
    stray = [entry.raw for entry in received if not entry.is_json]
    problems = [fault.detail for other in ctx.recordings() for fault in other.faults(FRAMING)]
    if stray:
        shown = "; ".join(repr(line[:60]) for line in stray[:3])
        problems.insert(0, f"{len(stray)} of {len(received)} stdout lines are not JSON: {shown}")
    if problems:
        return failed("; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""))
    return passed(f"all {len(received)} stdout lines are JSON messages in UTF-8")


@compliance_check(
    "stdio-unicode",
    Category.TRANSPORT,
    "UTF-8 survives the round trip",
    transport="stdio",
    spec=STDIO_PAGE,
    why="Messages are UTF-8; a server that re-encodes them garbles every non-ASCII text.",
    fix="Read and write stdin/stdout as UTF-8 (not the locale's encoding).",
)
def check_unicode(ctx: ComplianceContext) -> Outcome:
    mangled = UNICODE_PAYLOAD.encode("utf-8").decode("latin-1")
    candidates = [(tool, params[0]) for tool in ctx.read_only_tools() if (params := text_parameters(tool))]
    # A tool whose backend is out of reach answers with that backend's error: the text comes back only if the error
    # repeats the argument, which its usual call shows.
    called = [
        (tool, param)
        for tool, param in candidates
        if not ctx.backend_down(str(tool["name"])) or failure_echoes(ctx, tool, param)
    ]
    unused = [tool for tool, param in candidates if (tool, param) not in called]
    if candidates and not called:
        return skipped(
            "the round trip could not be observed: every read-only tool with a text argument is out of "
            f"service, and its error does not repeat the argument ({service_summary(ctx, unused)})"
        )
    for tool, param in called:
        arguments = {**ctx.arguments_for(tool), param: UNICODE_PAYLOAD}
        output = json.dumps(ctx.call_tool(str(tool["name"]), arguments), ensure_ascii=False)
        if UNICODE_PAYLOAD in output:
            return passed(f"{tool['name']} echoed the non-ASCII text intact")
        if mangled in output:
            ctx.rests_on_evidence()  # the garbled form of hookconf's own text, whatever else failed
            return failed(f"{tool['name']} returned the text garbled: {mangled!r}")
    return skipped(
        "no read-only tool echoed its text argument, so the round trip could not be observed" + left_out(ctx, unused)
    )


@compliance_check(
    "stdio-unknown-method-recovers",
    Category.TRANSPORT,
    "Answers -32601 for unknown methods and keeps serving",
    transport="stdio",
    spec=STDIO_PAGE,
    why="One unknown method must not end a stdio session; the process serves one client only.",
    fix="Answer unknown methods with -32601 and keep reading stdin.",
)
def check_unknown_method_recovers(ctx: ComplianceContext) -> Outcome:
    answer = unknown_method(ctx)
    if not answer.still_serving:
        return failed("the server stopped serving after an unknown method")
    if error_code(answer.response) != METHOD_NOT_FOUND:
        return failed(f"unknown method answered with {error_code(answer.response)!r}, expected {METHOD_NOT_FOUND}")
    return passed(f"{METHOD_NOT_FOUND}, and still serving")


# --- streamable HTTP ---------------------------------------------------------------------------------
@compliance_check(
    "transport-post",
    Category.TRANSPORT,
    "Accepts JSON-RPC over HTTP POST",
    required=True,
    transport="http",
    spec=HTTP_PAGE,
    why="Streamable HTTP sends every client message as a POST to the MCP endpoint.",
    fix="Accept POST on the endpoint and answer requests with 200.",
)
def check_post(ctx: ComplianceContext) -> Outcome:
    first = _opening_exchange(ctx)
    opening = "server/discover" if ctx.stateless else "initialize"
    if first is None or first.status != 200:
        return failed(f"{opening} POST answered with status {first.status if first else 'none'}")
    return passed(f"{opening} POST answered 200")


def _opening_exchange(ctx: ComplianceContext) -> HttpExchange | None:
    """The first POST's exchange; the one it settled on when the setup server/discover was resent after a 429."""
    exchanges = ctx.http.exchanges
    if ctx.stateless and len(exchanges) > 1 and exchanges[0].status == TOO_MANY_REQUESTS:
        return exchanges[1]
    return exchanges[0] if exchanges else None


@compliance_check(
    "transport-content-type",
    Category.TRANSPORT,
    "Answers with application/json or text/event-stream",
    required=True,
    transport="http",
    spec=HTTP_PAGE,
    why="The client parses the answer by its content type; anything else cannot be read.",
    fix="Answer requests with Content-Type application/json or text/event-stream.",
    after_all=True,
)
def check_content_type(ctx: ComplianceContext) -> Outcome:
    answered = [e for e in ctx.http.exchanges if e.status == 200]
    bad = sorted({e.content_type for e in answered if not e.content_type.startswith(JSON_TYPES)})
    if bad:
        return failed(f"content types {', '.join(map(repr, bad))} in answers to requests")
    return passed(f"{len(answered)} answers, all JSON or SSE")


@compliance_check(
    "transport-content-type-init",
    Category.TRANSPORT,
    "The initialize answer has a valid content type",
    transport="http",
    revisions=HANDSHAKE,
    spec=HTTP_PAGE,
    why="The first answer decides whether the client can talk to the server at all.",
    fix="Answer initialize with application/json or text/event-stream.",
)
def check_content_type_init(ctx: ComplianceContext) -> Outcome:
    first = ctx.http.exchanges[0] if ctx.http.exchanges else None
    if first is None or not first.content_type.startswith(JSON_TYPES):
        return failed(f"initialize answered with content type {first.content_type if first else None!r}")
    return passed(first.content_type)


@compliance_check(
    "transport-notification-202",
    Category.TRANSPORT,
    "Notifications are answered 202 Accepted",
    transport="http",
    spec=HTTP_PAGE,
    why="A POST that carries only a notification has nothing to answer: the spec asks for 202, no body.",
    fix="Answer POSTs of notifications (and responses) with 202 and an empty body.",
)
def check_notification_202(ctx: ComplianceContext) -> Outcome:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": "hookconf-none", "reason": "transport check"},
        }
    )
    reply = ctx.http.raw_request("POST", body=body)
    if reply.status != 202:
        return failed(f"a notification was answered with {reply.status}, expected 202")
    return passed("202")


@compliance_check(
    "transport-content-type-reject",
    Category.TRANSPORT,
    "Rejects a non-JSON Content-Type",
    transport="http",
    spec=HTTP_PAGE,
    why="A body that is not declared as JSON may not be JSON; accepting it invites confusion attacks.",
    fix="Answer POSTs whose Content-Type is not application/json with 415 (or 400).",
)
def check_content_type_reject(ctx: ComplianceContext) -> Outcome:
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    reply = ctx.http.raw_request(
        "POST", body=ctx.keepalive_body("hookconf-ct-1"), headers={"Content-Type": "text/plain"}
    )
    if 400 <= reply.status < 500:
        return passed(f"text/plain rejected with {reply.status}")
    return failed(f"a text/plain POST was answered with {reply.status}")


@compliance_check(
    "transport-session-id",
    Category.TRANSPORT,
    "Enforces Mcp-Session-Id after initialization",
    transport="http",
    revisions=HANDSHAKE,
    spec=f"{HTTP_PAGE}#session-management",
    why="A server that issues session ids must require them, or sessions can be mixed up.",
    fix="Answer requests without the Mcp-Session-Id header with 400 once you issued one.",
)
def check_session_id(ctx: ComplianceContext) -> Outcome:
    if not ctx.http.session_id:
        return skipped("the server issued no session id (stateless)")
    reply = ctx.http.raw_request("POST", body=_ping("hookconf-nosession-1"), session=False)
    if reply.status == 400:
        return passed("a request without the session id was answered 400")
    return failed(f"a request without {SESSION_HEADER} was answered with {reply.status}, expected 400")


@compliance_check(
    "transport-session-invalid",
    Category.TRANSPORT,
    "Answers 404 for an unknown session id",
    transport="http",
    revisions=HANDSHAKE,
    spec=f"{HTTP_PAGE}#session-management",
    why="404 tells the client its session is gone and it must initialize again.",
    fix="Answer requests with an unknown Mcp-Session-Id with 404.",
)
def check_session_invalid(ctx: ComplianceContext) -> Outcome:
    if not ctx.http.session_id:
        return skipped("the server issued no session id (stateless)")
    reply = ctx.http.raw_request(
        "POST", body=_ping("hookconf-badsession-1"), headers={SESSION_HEADER: "hookconf-unknown-session"}
    )
    if reply.status == 404:
        return passed("404")
    return failed(f"an unknown session id was answered with {reply.status}, expected 404")


def _get(ctx: ComplianceContext, session: bool) -> HttpReply:
    return ctx.http.raw_request(
        "GET",
        headers={"Accept": "text/event-stream", "Content-Type": ""},
        session=session,
        timeout_s=min(ctx.timeout_s, 5.0),
    )


def _judge_get(reply: HttpReply, allowed: tuple[int, ...]) -> Outcome:
    if reply.status == 200 and reply.content_type.startswith("text/event-stream"):
        return passed("GET opened an SSE stream")
    if reply.status in allowed:
        return passed(f"GET answered {reply.status}")
    return failed(
        f"GET answered {reply.status} ({reply.content_type or 'no content type'}); expected an SSE "
        f"stream or {' / '.join(map(str, allowed))}"
    )


@compliance_check(
    "transport-get",
    Category.TRANSPORT,
    "GET without a session: SSE stream, 405 or 400",
    transport="http",
    revisions=HANDSHAKE,
    spec=f"{HTTP_PAGE}#listening-for-messages-from-the-server",
    why="GET opens the server-to-client stream; a server without one says 405.",
    fix="Answer GET with text/event-stream or 405 Method Not Allowed.",
)
def check_get(ctx: ComplianceContext) -> Outcome:
    return _judge_get(_get(ctx, session=False), (405, 400) if ctx.http.session_id else (405,))


@compliance_check(
    "transport-get-stream",
    Category.TRANSPORT,
    "GET with the session: SSE stream or 405",
    transport="http",
    revisions=HANDSHAKE,
    spec=f"{HTTP_PAGE}#listening-for-messages-from-the-server",
    why="Within a session, GET is how the server reaches the client outside a request.",
    fix="Answer GET with the session id with text/event-stream, or 405.",
)
def check_get_stream(ctx: ComplianceContext) -> Outcome:
    return _judge_get(_get(ctx, session=True), (405,))


@compliance_check(
    "transport-delete",
    Category.TRANSPORT,
    "DELETE ends a session, or is 405",
    transport="http",
    fresh_session=True,
    revisions=HANDSHAKE,
    spec=f"{HTTP_PAGE}#session-management",
    why="Clients end sessions with DELETE; a server that does not allow it says 405.",
    fix="Answer DELETE with the session id with 200/204 (and forget the session), or 405.",
    should=Rule(
        "The server MAY terminate the session at any time, after which it MUST respond to "
        "requests containing that session ID with HTTP 404 Not Found.",
        "MCP basic/transports#session-management, 2025-03-26 to 2025-11-25",
    ),
)
def check_delete(ctx: ComplianceContext) -> Outcome:
    if not ctx.http.session_id:
        return skipped("the server issued no session id (stateless)")
    with ctx.fresh_session() as session:
        session.initialize()
        transport = http_transport(session)
        reply = transport.raw_request("DELETE", headers={"Content-Type": ""})
        after = transport.raw_request("POST", body=_ping("hookconf-after-delete"))
        transport.session_id = None  # already ended: no second DELETE at close
    if reply.status == 405:
        return passed("DELETE not allowed (405)")
    if reply.status not in (200, 202, 204):
        return failed(f"DELETE answered {reply.status}")
    if after.status != 404:
        return warned(f"DELETE answered {reply.status}, but the session still answered ({after.status}, expected 404)")
    return passed(f"DELETE answered {reply.status}; the session is gone (404 afterwards)")


def _batch(ctx: ComplianceContext) -> HttpReply:
    body = json.dumps([json.loads(ctx.keepalive_body(f"hookconf-batch-{n}")) for n in (1, 2)])
    return ctx.http.raw_request("POST", body=body)


@compliance_check(
    "transport-batch-reject",
    Category.TRANSPORT,
    "Rejects JSON-RPC batches",
    required=True,
    transport="http",
    spec="basic#json-rpc-batching",
    revisions=since("2025-06-18"),
    why="2025-06-18 removed batching; a server must not process an array of requests.",
    fix="Answer an array body with an error (400 with a JSON-RPC error -32600).",
)
def check_batch_reject(ctx: ComplianceContext) -> Outcome:
    reply = _batch(ctx)
    answer = reply.messages[0] if reply.messages else None
    if isinstance(answer, list) and any(isinstance(m, dict) and "result" in m for m in answer):
        return failed(f"a batch was processed ({reply.status}, {len(answer)} answers)")
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    if reply.status >= 400 or is_error(answer):
        return passed(f"batch rejected ({reply.status})")
    return failed(f"a batch was answered {reply.status} without an error")


@compliance_check(
    "transport-batch-support",
    Category.TRANSPORT,
    "Processes JSON-RPC batches",
    required=True,
    transport="http",
    spec="basic#batching",
    revisions=("2025-03-26",),
    why="2025-03-26 requires servers to accept batches of requests and notifications.",
    fix="Answer an array of requests with an array of their responses.",
)
def check_batch_support(ctx: ComplianceContext) -> Outcome:
    reply = _batch(ctx)
    answer = reply.messages[0] if reply.messages else None
    if isinstance(answer, list) and len(answer) == 2:
        return passed("a batch of two pings got two answers")
    return failed(f"a batch of two pings was answered {reply.status} with {str(answer)[:80]}")


@compliance_check(
    "transport-concurrent",
    Category.TRANSPORT,
    "Handles concurrent requests",
    transport="http",
    spec=HTTP_PAGE,
    why="Clients send requests in parallel; each POST must get its own answer.",
    fix="Serve POSTs concurrently and route each answer to its own request.",
)
def check_concurrent(ctx: ComplianceContext) -> Outcome:
    with ThreadPoolExecutor(CONCURRENT_REQUESTS) as pool:
        answers = list(pool.map(lambda _: ctx.request(ctx.keepalive_method), range(CONCURRENT_REQUESTS)))
    good = sum(1 for a in answers if a is not None and not is_error(a))
    if good < CONCURRENT_REQUESTS:
        return failed(f"{good} of {CONCURRENT_REQUESTS} concurrent {ctx.keepalive_method} requests answered")
    return passed(f"{CONCURRENT_REQUESTS} concurrent {ctx.keepalive_method} requests answered")


@compliance_check(
    "transport-sse-event-field",
    Category.TRANSPORT,
    "SSE events carrying messages are 'message' events",
    transport="http",
    revisions=HANDSHAKE,
    spec=HTTP_PAGE,
    why="Clients listen for the default 'message' event; other event names are not delivered.",
    fix="Send JSON-RPC messages as `event: message` (or with no event field).",
    after_all=True,
)
def check_sse_event_field(ctx: ComplianceContext) -> Outcome:
    events = [event for exchange in ctx.http.exchanges for event in exchange.sse_events]
    if not events:
        return skipped("the server answered with JSON, not SSE")
    other = sorted({e.event for e in events if e.event not in (None, "message")})
    if other:
        return failed(f"messages sent as SSE events named {', '.join(map(repr, other))}")
    return passed(f"{len(events)} SSE message events")


# --- 2026-07-28 only: both transports ----------------------------------------------------------------
@compliance_check(
    "transport-no-server-requests",
    Category.TRANSPORT,
    "No server-initiated requests on any stream",
    required=True,
    revisions=STATELESS,
    spec="basic#requests",
    after_all=True,
    why="2026-07-28 has no server-to-client requests: a server that needs input answers input_required "
    "(MRTR) instead, and a stateless client has nowhere to answer a request.",
    fix="Replace sampling, elicitation and roots requests with input_required results.",
)
def check_no_server_requests(ctx: ComplianceContext) -> Outcome:
    messages = ctx.all_received()
    if not messages:
        return failed("nothing was received to inspect")
    requests = [m for m in messages if isinstance(m, dict) and "method" in m and "id" in m]
    if requests:
        return failed(
            f"{len(requests)} requests from the server: {', '.join(sorted({str(m['method']) for m in requests}))}"
        )
    return passed(f"{len(messages)} messages, no requests from the server")


@compliance_check(
    "stdio-cancellation",
    Category.TRANSPORT,
    "Ignores a cancellation of an unknown request",
    transport="stdio",
    revisions=STATELESS,
    spec="basic/utilities/cancellation",
    why="Cancellations race with answers; one for a request that is done must change nothing.",
    fix="Ignore notifications/cancelled for request ids you do not know.",
)
def check_stdio_cancellation(ctx: ComplianceContext) -> Outcome:
    ctx.notify("notifications/cancelled", {"requestId": "hookconf-unknown-request", "reason": "hookconf test"})
    if ctx.still_serving():
        return passed("still serving after a cancellation of an unknown request")
    return failed("the server stopped answering after notifications/cancelled for an unknown request")


# --- 2026-07-28 only: streamable HTTP ----------------------------------------------------------------
def _discover_reply(ctx: ComplianceContext, request_id: str, headers: dict[str, str]) -> HttpReply:
    """A conformant server/discover whose headers are changed as given ("" removes one)."""
    return ctx.http.raw_request("POST", body=ctx.keepalive_body(request_id), headers=headers)


def _header_rejected(ctx: ComplianceContext, reply: HttpReply, what: str) -> Outcome:
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    answer = reply.response
    if 400 <= reply.status < 500 or is_error(answer):
        return passed(f"{what}: rejected with HTTP {reply.status}, {describe(answer)}")
    return failed(f"{what}: answered HTTP {reply.status} with {describe(answer)}; expected 400 ({HEADER_MISMATCH})")


@compliance_check(
    "transport-header-version-required",
    Category.TRANSPORT,
    "Rejects a missing MCP-Protocol-Version",
    required=True,
    transport="http",
    revisions=STATELESS,
    spec=f"{HTTP_PAGE}#protocol-version-header",
    why="Intermediaries route and authorize by the version header; a request without it is malformed.",
    fix="Answer a POST without MCP-Protocol-Version with 400 and -32020.",
)
def check_version_header_required(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-no-version-header", {VERSION_HEADER: ""})
    return _header_rejected(ctx, reply, "a server/discover without MCP-Protocol-Version")


@compliance_check(
    "transport-header-version-mismatch",
    Category.TRANSPORT,
    "Rejects a header/_meta protocol version mismatch",
    required=True,
    transport="http",
    revisions=STATELESS,
    spec=f"{HTTP_PAGE}#protocol-version-header",
    why="The header and _meta must name the same version, or the request means two things at once.",
    fix="Answer a POST whose MCP-Protocol-Version differs from _meta's protocolVersion with 400 (-32020).",
)
def check_version_header_mismatch(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-version-mismatch", {VERSION_HEADER: OTHER_VERSION})
    return _header_rejected(ctx, reply, f"a server/discover with MCP-Protocol-Version {OTHER_VERSION}")


@compliance_check(
    "transport-header-method-required",
    Category.TRANSPORT,
    "Rejects a missing Mcp-Method",
    required=True,
    transport="http",
    revisions=STATELESS,
    spec=f"{HTTP_PAGE}#standard-headers",
    why="Gateways route and rate-limit by Mcp-Method without parsing bodies; it must be there.",
    fix="Answer a POST without Mcp-Method with 400 and -32020.",
)
def check_method_header_required(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-no-method-header", {METHOD_HEADER: ""})
    return _header_rejected(ctx, reply, "a server/discover without Mcp-Method")


@compliance_check(
    "transport-header-method-mismatch",
    Category.TRANSPORT,
    "Rejects an Mcp-Method/body mismatch",
    required=True,
    transport="http",
    revisions=STATELESS,
    spec=f"{HTTP_PAGE}#standard-headers",
    why="A header that disagrees with the body lets a request pass a gateway's rules as another method.",
    fix="Answer a POST whose Mcp-Method differs from the body's method with 400 (-32020).",
)
def check_method_header_mismatch(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-method-mismatch", {METHOD_HEADER: "tools/list"})
    return _header_rejected(ctx, reply, "a server/discover sent with Mcp-Method: tools/list")


@compliance_check(
    "transport-header-name-mismatch",
    Category.TRANSPORT,
    "Rejects an Mcp-Name/body mismatch",
    transport="http",
    capability="tools",
    revisions=STATELESS,
    spec=f"{HTTP_PAGE}#standard-headers",
    why="Gateways allow or deny tools by Mcp-Name; a body naming another tool slips past them.",
    fix="Answer a tools/call whose Mcp-Name differs from params.name with 400 (-32020).",
)
def check_name_header_mismatch(ctx: ComplianceContext) -> Outcome:
    tools = ctx.read_only_tools()
    if not tools:
        return skipped("no read-only tool to name (a mismatch a server fails to catch would call the tool)")
    tool = tools[0]
    message = ctx.conformant(
        {
            "jsonrpc": "2.0",
            "id": "hookconf-name-mismatch",
            "method": "tools/call",
            "params": {"name": tool["name"], "arguments": ctx.arguments_for(tool)},
        }
    )
    reply = ctx.http.raw_request("POST", body=json.dumps(message), headers={NAME_HEADER: "hookconf-other-tool"})
    return _header_rejected(ctx, reply, f"tools/call {tool['name']} sent with Mcp-Name: hookconf-other-tool")


@compliance_check(
    "transport-header-case-insensitive",
    Category.TRANSPORT,
    "Header names are case-insensitive",
    transport="http",
    revisions=STATELESS,
    spec=f"{HTTP_PAGE}#standard-headers",
    why="HTTP header names are case-insensitive; proxies often lower-case them.",
    fix="Look headers up without regard to case.",
)
def check_header_case(ctx: ComplianceContext) -> Outcome:
    lower = {VERSION_HEADER.lower(): str(ctx.http.protocol_version), METHOD_HEADER.lower(): ctx.keepalive_method}
    reply = _discover_reply(ctx, "hookconf-lower-case-headers", lower)
    if is_discover_result(reply.response):
        return passed("lower-case mcp-protocol-version and mcp-method were accepted")
    return failed(f"lower-case header names got HTTP {reply.status}, {describe(reply.response)}")


def _judge_405(reply: HttpReply, method: str) -> Outcome:
    if reply.status == 405:
        return passed(f"{method} answered 405")
    return failed(
        f"{method} answered {reply.status} ({reply.content_type or 'no content type'}); 2026-07-28 has no "
        f"{method} endpoint, expected 405"
    )


@compliance_check(
    "transport-get-removed",
    Category.TRANSPORT,
    "GET returns 405",
    transport="http",
    revisions=STATELESS,
    spec=HTTP_PAGE,
    why="2026-07-28 replaced the GET stream with subscriptions/listen; a GET must be refused.",
    fix="Answer GET on the MCP endpoint with 405 Method Not Allowed.",
)
def check_get_removed(ctx: ComplianceContext) -> Outcome:
    reply = ctx.http.raw_request(
        "GET", headers={"Accept": "text/event-stream", "Content-Type": ""}, timeout_s=min(ctx.timeout_s, 5.0)
    )
    return _judge_405(reply, "GET")


@compliance_check(
    "transport-delete-removed",
    Category.TRANSPORT,
    "DELETE returns 405",
    transport="http",
    revisions=STATELESS,
    spec=HTTP_PAGE,
    why="There are no sessions to end in 2026-07-28; DELETE must be refused.",
    fix="Answer DELETE on the MCP endpoint with 405 Method Not Allowed.",
)
def check_delete_removed(ctx: ComplianceContext) -> Outcome:
    return _judge_405(ctx.http.raw_request("DELETE", headers={"Content-Type": ""}), "DELETE")


@compliance_check(
    "transport-session-ignored",
    Category.TRANSPORT,
    "Ignores Mcp-Session-Id",
    transport="http",
    revisions=STATELESS,
    spec=HTTP_PAGE,
    why="2026-07-28 is stateless: a session header left over from an older client must not break requests.",
    fix="Ignore Mcp-Session-Id on 2026-07-28 requests.",
)
def check_session_ignored(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-session-ignored", {SESSION_HEADER: "hookconf-unknown-session"})
    if is_discover_result(reply.response):
        return passed("a request with an unknown Mcp-Session-Id was served")
    return failed(f"a request with Mcp-Session-Id got HTTP {reply.status}, {describe(reply.response)}")
