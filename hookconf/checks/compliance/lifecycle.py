"""Lifecycle: how a client and a server agree on a revision and capabilities, ids, notifications the client may
send. The handshake era's initialize and ping, with the checks both eras share; the checks of 2026-07-28 only
are in lifecycle_stateless.py, which imports this module first so that the catalog lists them after these.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hookconf import HANDSHAKE_REVISIONS, STATELESS_REVISIONS
from hookconf.checks.backend import sandbox_note
from hookconf.checks.compliance.answers import (
    describe,
    is_error,
    not_evaluable_without_discover,
)
from hookconf.checks.compliance.catalog import (
    HANDSHAKE,
    Category,
    Outcome,
    advised,
    compliance_check,
    failed,
    passed,
    skipped,
    undecided,
)
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.checks.compliance.probe_cache import Key
from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.protocol import (
    LIFECYCLE_PAGE,
    META,
    SERVER_INFO_KEY,
    UNKNOWN_REVISION,
    initialize_params,
)
from hookconf.session import McpSession, result_meta
from hookconf.wire.recording import ID_MATCH, JSON_RPC
from hookconf.wire.transport import JsonObject

DATE_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
INIT_TIME_BUDGET_MS = 5000
CLIENT_CAPABILITY_REQUESTS = {
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
    "elicitation/create": "elicitation",
}
# initialize with an unknown version, then again, on a fresh session: lifecycle-version-negotiate and -reinit-reject
FRESH_HANDSHAKE: Key[dict[str, Any]] = Key("fresh-handshake")


def _init_result(ctx: ComplianceContext) -> JsonObject:
    """The InitializeResult, or the DiscoverResult since 2026-07-28."""
    return ctx.handshake_result


@compliance_check(
    "lifecycle-init",
    Category.LIFECYCLE,
    "Initialize handshake succeeds",
    required=True,
    revisions=HANDSHAKE,
    spec=f"{LIFECYCLE_PAGE}#initialization",
    lighthouse=("proto-init",),
    why="Every session starts with initialize; a server that fails it cannot be used at all.",
    fix="Answer initialize with protocolVersion, capabilities and serverInfo.",
)
def check_init(ctx: ComplianceContext) -> Outcome:
    result = _init_result(ctx)
    missing = [key for key in ("protocolVersion", "capabilities", "serverInfo") if key not in result]
    if missing:
        return failed(f"InitializeResult lacks {', '.join(missing)}")
    return passed(f"initialized in {ctx.identity.startup_ms if ctx.identity else 0:.0f} ms after spawn")


@compliance_check(
    "lifecycle-proto-version",
    Category.LIFECYCLE,
    "Returns a valid YYYY-MM-DD protocol version",
    required=True,
    revisions=HANDSHAKE,
    spec=f"{LIFECYCLE_PAGE}#version-negotiation",
    lighthouse=("proto-init-version",),
    why="The client decides from protocolVersion which rules the rest of the session follows.",
    fix="Answer with the offered revision when you support it, else with one you support.",
)
def check_proto_version(ctx: ComplianceContext) -> Outcome:
    version = _init_result(ctx).get("protocolVersion")
    if not isinstance(version, str) or not DATE_VERSION.match(version):
        return failed(f"protocolVersion {version!r} is not a YYYY-MM-DD string")
    if version in STATELESS_REVISIONS:
        return failed(
            f"protocolVersion {version} is a stateless revision, which has no initialize; an initialize "
            f"is answered with a handshake revision ({', '.join(HANDSHAKE_REVISIONS)})"
        )
    if version not in HANDSHAKE_REVISIONS:
        return failed(f"protocolVersion {version} is not a published revision ({', '.join(HANDSHAKE_REVISIONS)})")
    return passed(f"negotiated {version}")


@compliance_check(
    "lifecycle-server-info",
    Category.LIFECYCLE,
    "serverInfo has a name and a version",
    spec=f"{LIFECYCLE_PAGE}#initialization",
    lighthouse=("bp-server-info",),
    why="serverInfo (an Implementation) requires name and version; clients show and log them. "
    "Since 2026-07-28 it travels in each result's _meta (io.modelcontextprotocol/serverInfo).",
    fix="Set serverInfo to {name, version} (title is optional); since 2026-07-28 in the result's _meta.",
)
def check_server_info(ctx: ComplianceContext) -> Outcome:
    if (not_evaluable := not_evaluable_without_discover(ctx)) is not None:
        return not_evaluable
    result = _init_result(ctx)
    info = result_meta(result).get(SERVER_INFO_KEY) if ctx.stateless else result.get("serverInfo")
    if not isinstance(info, dict):
        return failed(f"{'_meta.' + SERVER_INFO_KEY if ctx.stateless else 'serverInfo'} is missing or not an object")
    missing = [key for key in ("name", "version") if not isinstance(info.get(key), str) or not info.get(key)]
    if missing:
        return failed(f"serverInfo lacks {' and '.join(missing)}")
    return passed(f"{info['name']} {info['version']}")


@compliance_check(
    "lifecycle-capabilities",
    Category.LIFECYCLE,
    "Returns a capabilities object",
    required=True,
    spec=f"{LIFECYCLE_PAGE}#capability-negotiation",
    lighthouse=("bp-capabilities-declared",),
    why="Capabilities tell the client which features it may use; without them it can use none.",
    fix='Answer initialize with capabilities, e.g. {"tools": {}} for a tool server.',
)
def check_capabilities(ctx: ComplianceContext) -> Outcome:
    if (not_evaluable := not_evaluable_without_discover(ctx)) is not None:
        return not_evaluable
    capabilities = _init_result(ctx).get("capabilities")
    if not isinstance(capabilities, dict):
        return failed(f"capabilities is {type(capabilities).__name__}, not an object")
    declared = ", ".join(sorted(capabilities)) or "none"
    return passed(f"declared: {declared}")


@compliance_check(
    "lifecycle-jsonrpc",
    Category.LIFECYCLE,
    "Every message is JSON-RPC 2.0",
    required=True,
    spec="basic#messages",
    lighthouse=("proto-jsonrpc-version",),
    why="MCP messages are JSON-RPC 2.0; a client may drop anything else.",
    fix='Put "jsonrpc": "2.0" in every response, request and notification.',
    after_all=True,
)
def check_jsonrpc(ctx: ComplianceContext) -> Outcome:
    messages = [m for m in ctx.received_messages() if isinstance(m, dict)]
    wrong = [m for m in messages if m.get("jsonrpc") != "2.0"]
    unreadable = [fault for recording in ctx.recordings() for fault in recording.faults(JSON_RPC)]
    problems = (
        [f"{len(unreadable)} messages could not be read as JSON-RPC, the first: {unreadable[0].detail}"]
        if unreadable
        else []
    )
    if wrong:
        problems.append(
            f'{len(wrong)} of {len(messages)} messages lack "jsonrpc": "2.0", e.g. jsonrpc={wrong[0].get("jsonrpc")!r}'
        )
    if problems:
        return failed("; ".join(problems))
    return passed(f"all {len(messages)} messages so far carry jsonrpc 2.0")


@compliance_check(
    "lifecycle-ping",
    Category.LIFECYCLE,
    "Responds to ping",
    required=True,
    revisions=HANDSHAKE,
    spec="basic/utilities/ping",
    why="Clients and hosts use ping to tell a live server from a stuck one.",
    fix="Answer ping with an empty result {}.",
)
def check_ping(ctx: ComplianceContext) -> Outcome:
    response = ctx.request("ping")
    if response is None:
        return failed("no answer to ping within the timeout")
    if is_error(response) or response.get("result") != {}:
        return failed(f"ping answered with {describe(response)}, expected an empty result")
    return passed("ping answered with {}")


@compliance_check(
    "lifecycle-instructions",
    Category.LIFECYCLE,
    "instructions, if present, is a string",
    spec=f"{LIFECYCLE_PAGE}#initialization",
    why="Clients may add instructions to the model's context; a non-string breaks them.",
    fix="Give instructions as a string, or leave it out.",
)
def check_instructions(ctx: ComplianceContext) -> Outcome:
    if (not_evaluable := not_evaluable_without_discover(ctx)) is not None:
        return not_evaluable
    result = _init_result(ctx)
    if "instructions" not in result:
        return skipped("the server gives no instructions")
    value = result["instructions"]
    if not isinstance(value, str):
        return failed(f"instructions is {type(value).__name__}, not a string")
    return passed(f"{len(value)} characters of instructions")


def _typed_id(request_id: Any) -> tuple[str, str]:
    """An id with its JSON type, so that true does not match 1, nor "1" match 1."""
    return type(request_id).__name__, json.dumps(request_id, sort_keys=True, default=str)


def _sent_request_ids(ctx: ComplianceContext) -> set[tuple[str, str]]:
    return {_typed_id(message.get("id")) for message in ctx.log.sent_requests()}


@compliance_check(
    "lifecycle-id-match",
    Category.LIFECYCLE,
    "Every response id matches a request id",
    required=True,
    spec="basic#responses",
    lighthouse=("proto-id-match",),
    why="Clients match answers to requests by id; a response with an unknown id is lost.",
    fix="Copy the request's id into its response unchanged (null only for unparseable requests).",
    after_all=True,
)
def check_id_match(ctx: ComplianceContext) -> Outcome:
    sent = _sent_request_ids(ctx)
    responses = [m for m in ctx.received_messages() if isinstance(m, dict) and "method" not in m]
    stray = [
        m.get("id")
        for m in responses
        if _typed_id(m.get("id")) not in sent and not (m.get("id") is None and is_error(m))
    ]
    faults = [fault for recording in ctx.recordings() for fault in recording.faults(ID_MATCH)]
    if stray:
        note = f"; {faults[0].detail}" if faults else ""
        return failed(f"{len(stray)} responses carry ids hookconf never sent: {json.dumps(stray[:5])[:200]}{note}")
    if faults:  # on a fresh or restarted session
        return failed(f"{len(faults)} responses matched no request, the first: {faults[0].detail}")
    return passed(f"all {len(responses)} responses matched a request")


@compliance_check(
    "lifecycle-string-id",
    Category.LIFECYCLE,
    "Supports string request ids",
    spec="basic#requests",
    why="JSON-RPC ids may be strings or integers; many clients use strings.",
    fix="Accept string ids and echo them back unchanged.",
)
def check_string_id(ctx: ComplianceContext) -> Outcome:
    request_id = "hookconf-string-id-1"
    method = ctx.keepalive_method
    answer = ctx.send_json(ctx.conformant({"jsonrpc": "2.0", "id": request_id, "method": method}), expect_id=request_id)
    if answer.response is None:
        return failed(f"a {method} with a string id got no answer carrying that id")
    if is_error(answer.response):
        return failed(f"a {method} with a string id was answered with {describe(answer.response)}")
    return passed("string id echoed")


@compliance_check(
    "lifecycle-version-negotiate",
    Category.LIFECYCLE,
    "Answers an unknown protocol version with one it supports",
    revisions=HANDSHAKE,
    spec=f"{LIFECYCLE_PAGE}#version-negotiation",
    fresh_session=True,
    why="A server must answer an unsupported requested version with a version it supports, "
    "so that old and new clients can still connect.",
    fix="When the offered protocolVersion is unknown, answer with your latest supported revision.",
)
def check_version_negotiate(ctx: ComplianceContext) -> Outcome:
    probe = _fresh_handshake(ctx)
    response = probe["first"]
    if response is None:
        return failed(f"no answer to initialize offering {UNKNOWN_REVISION}")
    if is_error(response):
        return failed(f"initialize offering {UNKNOWN_REVISION} was refused with {describe(response)}")
    version = (response.get("result") or {}).get("protocolVersion")
    if version == UNKNOWN_REVISION:
        return failed(f"the server echoed the unknown version {UNKNOWN_REVISION} instead of one it supports")
    return passed(f"offered {UNKNOWN_REVISION}, answered {version}")


@compliance_check(
    "lifecycle-reinit-reject",
    Category.LIFECYCLE,
    "Rejects a second initialize",
    revisions=HANDSHAKE,
    spec=f"{LIFECYCLE_PAGE}#initialization",
    fresh_session=True,
    why="Initialization happens once per session; a second one would silently reset its state.",
    fix="Answer an initialize on an initialized session with an error (e.g. -32600).",
    advice="a second initialize served or left unanswered; the spec says initialization comes first, "
    "and sets no rule for a second one",
)
def check_reinit_reject(ctx: ComplianceContext) -> Outcome:
    probe = _fresh_handshake(ctx)
    response = probe["second"]
    if probe["first"] is None or is_error(probe["first"]):
        return skipped("the first initialize of the fresh session failed (see lifecycle-version-negotiate)")
    if response is None:
        return advised("a second initialize got no answer at all; an error response is clearer")
    if is_error(response):
        return passed(f"second initialize rejected with {describe(response)}")
    return advised("a second initialize on an initialized session was answered with an InitializeResult")


def _fresh_handshake(ctx: ComplianceContext) -> dict[str, Any]:
    """One fresh session for both probes: initialize with an unknown version, then initialize again.

    A second initialize on the main session would be a client violation that changes what the
    server does next, so it goes to a session of its own (a new process on stdio).
    """
    return dict(ctx.probes.get_or_make(FRESH_HANDSHAKE, lambda: _handshake_twice(ctx)))


def _handshake_twice(ctx: ComplianceContext) -> dict[str, Any]:
    outcome: dict[str, Any] = {"first": None, "second": None}
    params = initialize_params(UNKNOWN_REVISION)
    with ctx.fresh_session() as session:
        outcome["first"] = _quiet_request(session, "initialize", params)
        if outcome["first"] is not None and not is_error(outcome["first"]):
            version = (outcome["first"].get("result") or {}).get("protocolVersion")
            _prepare_http(session, version)
            session.transport.notify("notifications/initialized")
            outcome["second"] = _quiet_request(session, "initialize", {**params, "protocolVersion": version})
    return outcome


def _prepare_http(session: McpSession, version: Any) -> None:
    if isinstance(version, str):
        session.transport.mirror_protocol_version(version)


def _quiet_request(session: McpSession, method: str, params: JsonObject) -> JsonObject | None:
    try:
        response = session.request(method, params)
    except (RequestTimeoutError, TransportClosedError):
        return None
    return response


@compliance_check(
    "lifecycle-logging",
    Category.LIFECYCLE,
    "logging/setLevel is accepted",
    required=True,
    capability="logging",
    revisions=HANDSHAKE,
    spec="server/utilities/logging",
    why="A server that declares logging must let the client choose the level.",
    fix="Answer logging/setLevel with {} and honour the level, or do not declare logging.",
)
def check_logging(ctx: ComplianceContext) -> Outcome:
    response = ctx.request("logging/setLevel", {"level": "warning"})
    if response is None:
        return failed("no answer to logging/setLevel")
    if is_error(response):
        return failed(f"logging is declared, but logging/setLevel was answered with {describe(response)}")
    return passed("logging/setLevel accepted")


@compliance_check(
    "lifecycle-logging-capability",
    Category.LIFECYCLE,
    "Log notifications only with the logging capability",
    spec="server/utilities/logging#capabilities",
    after_all=True,
    why="Servers that emit log message notifications MUST declare the logging capability; a client "
    "that was not told to expect them may drop them or count them as protocol errors.",
    fix='Declare "logging": {} in the capabilities, or send no notifications/message.',
)
def check_logging_capability(ctx: ComplianceContext) -> Outcome:
    received = ctx.all_received()
    if not received:
        return skipped("nothing was received to inspect")
    logs = [m for m in received if isinstance(m, dict) and m.get("method") == "notifications/message"]
    if not logs:
        return passed(f"{len(received)} messages, no log notifications")
    if (not_evaluable := not_evaluable_without_discover(ctx)) is not None:
        return not_evaluable
    if ctx.declared("logging"):
        return passed(f"{len(logs)} log notifications; the logging capability is declared")
    declared = ", ".join(sorted(ctx.capabilities)) or "none"
    return failed(
        f"{len(logs)} notifications/message arrived although the logging capability is not declared "
        f"(declared: {declared}); the first: {json.dumps(logs[0], ensure_ascii=False)[:160]}"
    )


@compliance_check(
    "lifecycle-completions",
    Category.LIFECYCLE,
    "completion/complete is accepted",
    required=True,
    capability="completions",
    spec="server/utilities/completion",
    why="A server that declares completions must answer completion/complete.",
    fix="Answer completion/complete with {completion: {values: [...]}}, or do not declare it.",
)
def check_completions(ctx: ComplianceContext) -> Outcome:
    ref = _completion_ref(ctx)
    if ref is None:
        return skipped("no prompt with arguments and no resource template to complete")
    response = ctx.request("completion/complete", ref)
    if response is None:
        return failed("no answer to completion/complete")
    if is_error(response):
        return failed(f"completion/complete answered with {describe(response)}")
    values = ((response.get("result") or {}).get("completion") or {}).get("values")
    if not isinstance(values, list):
        return failed("the result lacks completion.values")
    return passed(f"{len(values)} completion values")


def _completion_ref(ctx: ComplianceContext) -> JsonObject | None:
    if ctx.declared("prompts"):
        for prompt in ctx.listing("prompts/list", "prompts").items:
            arguments = [a for a in prompt.get("arguments") or [] if isinstance(a, dict) and a.get("name")]
            if arguments:
                return {
                    "ref": {"type": "ref/prompt", "name": prompt.get("name")},
                    "argument": {"name": arguments[0]["name"], "value": ""},
                }
    if ctx.declared("resources"):
        for template in ctx.listing("resources/templates/list", "resourceTemplates").items:
            variables = re.findall(r"\{([^}]+)\}", str(template.get("uriTemplate", "")))
            if variables:
                return {
                    "ref": {"type": "ref/resource", "uri": template["uriTemplate"]},
                    "argument": {"name": variables[0].lstrip("+#./;?&"), "value": ""},
                }
    return None


@compliance_check(
    "lifecycle-cancellation",
    Category.LIFECYCLE,
    "Tolerates a cancellation for an unknown request",
    revisions=HANDSHAKE,
    spec="basic/utilities/cancellation",
    why="Cancellations race with responses; a server must ignore one for a request it finished.",
    fix="Ignore notifications/cancelled for unknown or finished request ids.",
)
def check_cancellation(ctx: ComplianceContext) -> Outcome:
    ctx.notify("notifications/cancelled", {"requestId": 987654321, "reason": "hookconf test"})
    return (
        passed("still serving after a stray cancellation")
        if ctx.still_serving()
        else failed("the server stopped answering after notifications/cancelled for an unknown request")
    )


@compliance_check(
    "lifecycle-progress",
    Category.LIFECYCLE,
    "Tolerates a progress notification it did not ask for",
    revisions=HANDSHAKE,
    spec="basic/utilities/progress",
    why="Unknown progress tokens must be ignored, not crash the server.",
    fix="Ignore notifications/progress with tokens you do not know.",
)
def check_progress(ctx: ComplianceContext) -> Outcome:
    ctx.notify("notifications/progress", {"progressToken": "hookconf-unknown", "progress": 1})
    return (
        passed("still serving after a stray progress notification")
        if ctx.still_serving()
        else failed("the server stopped answering after a notifications/progress with an unknown token")
    )


@compliance_check(
    "lifecycle-list-changed",
    Category.LIFECYCLE,
    "list_changed only for capabilities declared with listChanged",
    revisions=HANDSHAKE,
    spec="server/tools#list-changed-notification",
    why="A client subscribes to list changes only where the server declared listChanged: true.",
    fix="Declare listChanged: true for every list whose changes you announce, or stop announcing them.",
    after_all=True,
)
def check_list_changed(ctx: ComplianceContext) -> Outcome:
    announced = {
        m["method"]
        for m in ctx.received_messages()
        if isinstance(m, dict) and str(m.get("method", "")).endswith("/list_changed") and "id" not in m
    }
    undeclared = [method for method in sorted(announced) if not ctx.declared(f"{method.split('/')[1]}.listChanged")]
    if undeclared:
        return failed(f"sent {', '.join(undeclared)} without declaring listChanged for it")
    return passed(f"announced: {', '.join(sorted(announced)) or 'nothing'}; all declared")


@compliance_check(
    "lifecycle-progress-token",
    Category.LIFECYCLE,
    "Progress notifications carry the request's token",
    spec="basic/utilities/progress",
    why="A client routes progress to the request that asked for it by its progressToken.",
    fix="Send notifications/progress only with the progressToken from the request's _meta.",
)
def check_progress_token(ctx: ComplianceContext) -> Outcome:
    tools = ctx.read_only_tools()
    if not tools:
        return skipped("no read-only tool to call with a progressToken")
    token = "hookconf-progress-1"
    before = len(ctx.received_messages())
    name = str(tools[0]["name"])  # one in service when there is one (read_only_tools puts those out of service last)
    response = ctx.call_tool(name, ctx.arguments_for(tools[0]), meta={"progressToken": token})
    if response is None:
        if ctx.backend_down(name):  # every tool is out of service: its silence is the backend's, not the token's
            return undecided(sandbox_note(ctx.out_of_service[name]))
        return failed("a tools/call with a progressToken got no answer")
    progress = [
        m
        for m in ctx.received_messages()[before:]
        if isinstance(m, dict) and m.get("method") == "notifications/progress"
    ]
    wrong = [m for m in progress if (m.get("params") or {}).get("progressToken") != token]
    if wrong:
        return failed(f"{len(wrong)} progress notifications carried another token")
    return passed(f"{len(progress)} progress notifications, all with the request's token")


def _server_requests(ctx: ComplianceContext, method: str) -> list[JsonObject]:
    return [m for m in ctx.received_messages() if isinstance(m, dict) and m.get("method") == method and "id" in m]


def _undeclared_client_feature(ctx: ComplianceContext, method: str) -> Outcome:
    sent = _server_requests(ctx, method)
    feature = CLIENT_CAPABILITY_REQUESTS[method]
    if sent:
        return failed(f"the server sent {len(sent)} {method} requests, but hookconf declared no {feature} capability")
    return passed(f"no {method} requests (hookconf declared no {feature} capability)")


@compliance_check(
    "lifecycle-sampling-capability",
    Category.LIFECYCLE,
    "No sampling requests to a client without sampling",
    revisions=HANDSHAKE,
    spec="client/sampling",
    why="Servers may ask for sampling only when the client declared the sampling capability.",
    fix="Check the client's capabilities before sending sampling/createMessage.",
    after_all=True,
)
def check_sampling_capability(ctx: ComplianceContext) -> Outcome:
    return _undeclared_client_feature(ctx, "sampling/createMessage")


@compliance_check(
    "lifecycle-roots-capability",
    Category.LIFECYCLE,
    "No roots requests to a client without roots",
    revisions=HANDSHAKE,
    spec="client/roots",
    why="Servers may ask for roots only when the client declared the roots capability.",
    fix="Check the client's capabilities before sending roots/list.",
    after_all=True,
)
def check_roots_capability(ctx: ComplianceContext) -> Outcome:
    return _undeclared_client_feature(ctx, "roots/list")


@compliance_check(
    "lifecycle-elicitation-capability",
    Category.LIFECYCLE,
    "No elicitation requests to a client without elicitation",
    spec="client/elicitation",
    revisions=("2025-06-18", "2025-11-25"),
    why="Servers may elicit input only when the client declared the elicitation capability.",
    fix="Check the client's capabilities before sending elicitation/create.",
    after_all=True,
)
def check_elicitation_capability(ctx: ComplianceContext) -> Outcome:
    return _undeclared_client_feature(ctx, "elicitation/create")


@compliance_check(
    "lifecycle-meta-tolerance",
    Category.LIFECYCLE,
    "Ignores unknown _meta fields",
    spec="basic#meta",
    why="_meta is open for extension; unknown keys must not make a request fail.",
    fix="Ignore _meta keys you do not know.",
)
def check_meta_tolerance(ctx: ComplianceContext) -> Outcome:
    method = ctx.keepalive_method
    response = ctx.request(method, {META: {"dev.hookconf/probe": {"nested": True}}})
    if response is None:
        return failed(f"a {method} with unknown _meta got no answer")
    if is_error(response):
        return failed(f"a {method} with unknown _meta was answered with {describe(response)}")
    return passed("unknown _meta ignored")


@compliance_check(
    "lifecycle-init-time",
    Category.LIFECYCLE,
    f"initialize answered within {INIT_TIME_BUDGET_MS // 1000} s of spawn",
    revisions=HANDSHAKE,
    spec=f"{LIFECYCLE_PAGE}#initialization",
    lighthouse=("perf-init-time",),
    why="Hosts start servers on demand; a slow start delays the user's first request.",
    fix="Defer heavy work (indexes, network) until a request needs it.",
    advice="a slow start; the spec sets no time limit",
)
def check_init_time(ctx: ComplianceContext) -> Outcome:
    identity = ctx.identity
    if identity is None or not ctx.started_by_audit:
        return skipped("hookconf did not start this server, so it cannot time its start")
    if identity.startup_ms > INIT_TIME_BUDGET_MS:
        return advised(f"initialize answered {identity.startup_ms:.0f} ms after spawn")
    return passed(f"initialize answered {identity.startup_ms:.0f} ms after spawn")
