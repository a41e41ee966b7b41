"""The 2026-07-28 transport rules: no server-initiated requests, no GET/DELETE or sessions, and the
headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) that mirror each request's body."""

from __future__ import annotations

import json

from hookconf.checks.compliance.catalog import (
    STATELESS,
    Category,
    Outcome,
    compliance_check,
    failed,
    passed,
    skipped,
)
from hookconf.checks.compliance.context import ComplianceContext, describe, is_error, not_evaluable_rejection
from hookconf.session import is_discover_result
from hookconf.wire.http import METHOD_HEADER, NAME_HEADER, SESSION_HEADER, VERSION_HEADER, HttpReply

HTTP = "basic/transports#streamable-http"
STDIO = "basic/transports#stdio"
OTHER_VERSION = "2025-11-25"


@compliance_check("transport-no-server-requests", Category.TRANSPORT, "No server-initiated requests on any stream",
                  required=True, revisions=STATELESS, spec="basic#requests", after_all=True,
                  why="2026-07-28 has no server-to-client requests: a server that needs input answers input_required "
                  "(MRTR) instead, and a stateless client has nowhere to answer a request.",
                  fix="Replace sampling, elicitation and roots requests with input_required results.")
def check_no_server_requests(ctx: ComplianceContext) -> Outcome:
    messages = ctx.all_received()
    if not messages:
        return failed("nothing was received to inspect")
    requests = [m for m in messages if isinstance(m, dict) and "method" in m and "id" in m]
    if requests:
        return failed(f"{len(requests)} requests from the server: "
                      f"{', '.join(sorted({str(m['method']) for m in requests}))}")
    return passed(f"{len(messages)} messages, no requests from the server")


@compliance_check("stdio-cancellation", Category.TRANSPORT, "Ignores a cancellation of an unknown request",
                  transport="stdio", revisions=STATELESS, spec="basic/utilities/cancellation",
                  why="Cancellations race with answers; one for a request that is done must change nothing.",
                  fix="Ignore notifications/cancelled for request ids you do not know.")
def check_stdio_cancellation(ctx: ComplianceContext) -> Outcome:
    ctx.session.transport.notify("notifications/cancelled", {"requestId": "hookconf-unknown-request",
                                                             "reason": "hookconf test"})
    if ctx.still_serving():
        return passed("still serving after a cancellation of an unknown request")
    return failed("the server stopped answering after notifications/cancelled for an unknown request")


# --- HTTP ------------------------------------------------------------------------------------------
def _discover_reply(ctx: ComplianceContext, request_id: str, headers: dict[str, str]) -> HttpReply:
    """A conformant server/discover whose headers are changed as given ("" removes one)."""
    return ctx.http.raw_request("POST", body=ctx.keepalive_body(request_id), headers=headers)


def _header_rejected(ctx: ComplianceContext, reply: HttpReply, what: str) -> Outcome:
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    answer = reply.response
    if 400 <= reply.status < 500 or is_error(answer):
        return passed(f"{what}: rejected with HTTP {reply.status}, {describe(answer)}")
    return failed(f"{what}: answered HTTP {reply.status} with {describe(answer)}; expected 400 (-32020)")


@compliance_check("transport-header-version-required", Category.TRANSPORT, "Rejects a missing MCP-Protocol-Version",
                  required=True, transport="http", revisions=STATELESS, spec=f"{HTTP}#protocol-version-header",
                  why="Intermediaries route and authorize by the version header; a request without it is malformed.",
                  fix="Answer a POST without MCP-Protocol-Version with 400 and -32020.")
def check_version_header_required(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-no-version-header", {VERSION_HEADER: ""})
    return _header_rejected(ctx, reply, "a server/discover without MCP-Protocol-Version")


@compliance_check("transport-header-version-mismatch", Category.TRANSPORT,
                  "Rejects a header/_meta protocol version mismatch", required=True, transport="http",
                  revisions=STATELESS, spec=f"{HTTP}#protocol-version-header",
                  why="The header and _meta must name the same version, or the request means two things at once.",
                  fix="Answer a POST whose MCP-Protocol-Version differs from _meta's protocolVersion with 400 "
                  "(-32020).")
def check_version_header_mismatch(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-version-mismatch", {VERSION_HEADER: OTHER_VERSION})
    return _header_rejected(ctx, reply, f"a server/discover with MCP-Protocol-Version {OTHER_VERSION}")


@compliance_check("transport-header-method-required", Category.TRANSPORT, "Rejects a missing Mcp-Method",
                  required=True, transport="http", revisions=STATELESS, spec=f"{HTTP}#standard-headers",
                  why="Gateways route and rate-limit by Mcp-Method without parsing bodies; it must be there.",
                  fix="Answer a POST without Mcp-Method with 400 and -32020.")
def check_method_header_required(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-no-method-header", {METHOD_HEADER: ""})
    return _header_rejected(ctx, reply, "a server/discover without Mcp-Method")


@compliance_check("transport-header-method-mismatch", Category.TRANSPORT, "Rejects an Mcp-Method/body mismatch",
                  required=True, transport="http", revisions=STATELESS, spec=f"{HTTP}#standard-headers",
                  why="A header that disagrees with the body lets a request pass a gateway's rules as another method.",
                  fix="Answer a POST whose Mcp-Method differs from the body's method with 400 (-32020).")
def check_method_header_mismatch(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-method-mismatch", {METHOD_HEADER: "tools/list"})
    return _header_rejected(ctx, reply, "a server/discover sent with Mcp-Method: tools/list")


@compliance_check("transport-header-name-mismatch", Category.TRANSPORT, "Rejects an Mcp-Name/body mismatch",
                  transport="http", capability="tools", revisions=STATELESS, spec=f"{HTTP}#standard-headers",
                  why="Gateways allow or deny tools by Mcp-Name; a body naming another tool slips past them.",
                  fix="Answer a tools/call whose Mcp-Name differs from params.name with 400 (-32020).")
def check_name_header_mismatch(ctx: ComplianceContext) -> Outcome:
    tools = ctx.read_only_tools()
    if not tools:
        return skipped("no read-only tool to name (a mismatch a server fails to catch would call the tool)")
    tool = tools[0]
    message = ctx.conformant({"jsonrpc": "2.0", "id": "hookconf-name-mismatch", "method": "tools/call",
                              "params": {"name": tool["name"], "arguments": ctx.arguments_for(tool)}})
    reply = ctx.http.raw_request("POST", body=json.dumps(message), headers={NAME_HEADER: "hookconf-other-tool"})
    return _header_rejected(ctx, reply, f"tools/call {tool['name']} sent with Mcp-Name: hookconf-other-tool")


@compliance_check("transport-header-case-insensitive", Category.TRANSPORT, "Header names are case-insensitive",
                  transport="http", revisions=STATELESS, spec=f"{HTTP}#standard-headers",
                  why="HTTP header names are case-insensitive; proxies often lower-case them.",
                  fix="Look headers up without regard to case.")
def check_header_case(ctx: ComplianceContext) -> Outcome:
    lower = {VERSION_HEADER.lower(): str(ctx.http.protocol_version), METHOD_HEADER.lower(): ctx.keepalive_method}
    reply = _discover_reply(ctx, "hookconf-lower-case-headers", lower)
    if is_discover_result(reply.response):
        return passed("lower-case mcp-protocol-version and mcp-method were accepted")
    return failed(f"lower-case header names got HTTP {reply.status}, {describe(reply.response)}")


def _judge_405(reply: HttpReply, method: str) -> Outcome:
    if reply.status == 405:
        return passed(f"{method} answered 405")
    return failed(f"{method} answered {reply.status} ({reply.content_type or 'no content type'}); 2026-07-28 has no "
                  f"{method} endpoint, expected 405")


@compliance_check("transport-get-removed", Category.TRANSPORT, "GET returns 405", transport="http",
                  revisions=STATELESS, spec=HTTP,
                  why="2026-07-28 replaced the GET stream with subscriptions/listen; a GET must be refused.",
                  fix="Answer GET on the MCP endpoint with 405 Method Not Allowed.")
def check_get_removed(ctx: ComplianceContext) -> Outcome:
    reply = ctx.http.raw_request("GET", headers={"Accept": "text/event-stream", "Content-Type": ""},
                                 timeout_s=min(ctx.session.timeout_s, 5.0))
    return _judge_405(reply, "GET")


@compliance_check("transport-delete-removed", Category.TRANSPORT, "DELETE returns 405", transport="http",
                  revisions=STATELESS, spec=HTTP,
                  why="There are no sessions to end in 2026-07-28; DELETE must be refused.",
                  fix="Answer DELETE on the MCP endpoint with 405 Method Not Allowed.")
def check_delete_removed(ctx: ComplianceContext) -> Outcome:
    return _judge_405(ctx.http.raw_request("DELETE", headers={"Content-Type": ""}), "DELETE")


@compliance_check("transport-session-ignored", Category.TRANSPORT, "Ignores Mcp-Session-Id", transport="http",
                  revisions=STATELESS, spec=HTTP,
                  why="2026-07-28 is stateless: a session header left over from an older client must not break "
                  "requests.",
                  fix="Ignore Mcp-Session-Id on 2026-07-28 requests.")
def check_session_ignored(ctx: ComplianceContext) -> Outcome:
    reply = _discover_reply(ctx, "hookconf-session-ignored", {SESSION_HEADER: "hookconf-unknown-session"})
    if is_discover_result(reply.response):
        return passed("a request with an unknown Mcp-Session-Id was served")
    return failed(f"a request with Mcp-Session-Id got HTTP {reply.status}, {describe(reply.response)}")
