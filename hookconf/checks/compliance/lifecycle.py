"""Lifecycle: how a client and a server agree on a revision and capabilities, ids, notifications the client may
send. The handshake era's initialize and ping first, with the checks both eras share; then the 2026-07-28
section: server/discover, the per-request `_meta` envelope, the removed methods, subscriptions/listen.

A 2026-07-28 rejection of a malformed request is credited only when its conformant twin (the setup
server/discover) was served; otherwise the server may simply reject everything, and the check fails as not
evaluable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hookconf import HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION, STATELESS_REVISIONS
from hookconf.checks.backend import sandbox_note
from hookconf.checks.compliance.answers import (
    describe,
    error_code,
    is_error,
    not_evaluable_rejection,
    not_evaluable_without_discover,
)
from hookconf.checks.compliance.catalog import (
    HANDSHAKE,
    STATELESS,
    Category,
    Outcome,
    advised,
    compliance_check,
    failed,
    passed,
    skipped,
    undecided,
)
from hookconf.checks.compliance.context import ComplianceContext, RawAnswer, probe_key
from hookconf.checks.compliance.errors import no_answer, noting_arrivals
from hookconf.checks.compliance.probe_cache import Key
from hookconf.era import dual_era_warning
from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.protocol import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LIFECYCLE_PAGE,
    META,
    METHOD_NOT_FOUND,
    PROTOCOL_VERSION_KEY,
    SERVER_INFO_KEY,
    STATELESS_REVISION,
    UNKNOWN_REVISION,
    UNSUPPORTED_VERSION,
    discover_message,
    initialize_params,
    stateless_meta,
)
from hookconf.session import McpSession, is_discover_result, result_meta
from hookconf.wire.http import VERSION_HEADER
from hookconf.wire.recording import ID_MATCH, JSON_RPC
from hookconf.wire.transport import JsonObject

DATE_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
INIT_TIME_BUDGET_MS = 5000
CLIENT_CAPABILITY_REQUESTS = {
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
    "elicitation/create": "elicitation",
}
REMOVED_METHODS: dict[str, JsonObject] = {  # removed in 2026-07-28
    "initialize": initialize_params(LATEST_HANDSHAKE_REVISION),
    "ping": {},
    "logging/setLevel": {"level": "info"},
    "resources/subscribe": {"uri": "hookconf://removed-method-probe"},
}
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
LISTEN_TIMEOUT_S = 5.0  # over HTTP: how long the listen stream may take to send its first message
LIST_CAPABILITIES = {"tools": "tools/list", "resources": "resources/list", "prompts": "prompts/list"}
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


# --- 2026-07-28 only: server/discover ----------------------------------------------------------------
def _discover(ctx: ComplianceContext) -> JsonObject | None:
    identity = ctx.identity
    return identity.discover_response if identity else None


def _discover_failure(ctx: ComplianceContext) -> Outcome | None:
    if ctx.discover_served:
        return None
    return failed(f"server/discover was not served: {describe(_discover(ctx) or None)}")


@compliance_check(
    "lifecycle-discover",
    Category.LIFECYCLE,
    "server/discover returns a DiscoverResult",
    required=True,
    revisions=STATELESS,
    spec="server/discover",
    why="Servers MUST implement server/discover: it is how a client learns the versions, capabilities "
    "and identity of a server without a handshake.",
    fix="Answer server/discover with {supportedVersions, capabilities, ttlMs, cacheScope, resultType}.",
)
def check_discover(ctx: ComplianceContext) -> Outcome:
    if (failure := _discover_failure(ctx)) is not None:
        return failure
    errors = [e for v in ctx.schema_violations("server/discover") for e in v.errors]
    if errors:
        return failed(f"the answer does not match DiscoverResult: {'; '.join(errors[:3])}")
    result = ctx.handshake_result
    return passed(f"DiscoverResult with capabilities {', '.join(sorted(result.get('capabilities') or {})) or 'none'}")


@compliance_check(
    "lifecycle-discover-versions",
    Category.LIFECYCLE,
    "supportedVersions are well formed",
    required=True,
    revisions=STATELESS,
    spec="server/discover",
    why="A client picks the revision of its later requests from supportedVersions.",
    fix="List every revision you serve as a YYYY-MM-DD string, including 2026-07-28.",
)
def check_discover_versions(ctx: ComplianceContext) -> Outcome:
    if (failure := _discover_failure(ctx)) is not None:
        return failure
    versions = ctx.handshake_result.get("supportedVersions")
    if not isinstance(versions, list) or not versions:
        return failed(f"supportedVersions is {versions!r}, not a non-empty list")
    bad = [v for v in versions if not isinstance(v, str) or not DATE_VERSION.match(v)]
    if bad:
        return failed(f"not YYYY-MM-DD revisions: {bad}")
    if not set(STATELESS_REVISIONS) & set(versions):
        return failed(f"supportedVersions {versions} lacks {STATELESS_REVISION}, the revision it just served")
    return passed(f"supportedVersions {versions}")


def caching_problem(result: JsonObject) -> str | None:
    """What is wrong with a result's caching hints (ttlMs, cacheScope), or None."""
    ttl, scope = result.get("ttlMs"), result.get("cacheScope")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
        return f"ttlMs is {ttl!r}, not a non-negative integer"
    if scope not in ("public", "private"):
        return f"cacheScope is {scope!r}, not 'public' or 'private'"
    return None


@compliance_check(
    "lifecycle-discover-caching",
    Category.LIFECYCLE,
    "server/discover carries caching hints",
    required=True,
    revisions=STATELESS,
    spec="server/discover",
    why="Clients cache the DiscoverResult for ttlMs; without hints they must ask before every request.",
    fix="Add ttlMs (milliseconds, 0 for no caching) and cacheScope ('public' or 'private').",
)
def check_discover_caching(ctx: ComplianceContext) -> Outcome:
    if (failure := _discover_failure(ctx)) is not None:
        return failure
    problem = caching_problem(ctx.handshake_result)
    if problem:
        return failed(f"DiscoverResult: {problem}")
    result = ctx.handshake_result
    return passed(f"ttlMs {result['ttlMs']}, cacheScope {result['cacheScope']}")


# --- 2026-07-28 only: the _meta envelope -------------------------------------------------------------
def _discover_with(ctx: ComplianceContext, key: str, meta: JsonObject | None, version: str | None = None) -> RawAnswer:
    """A server/discover whose `_meta` is `meta` exactly (None: no _meta at all), sent once per key."""
    request_id = f"hookconf-{key}"
    message = discover_message(request_id, meta)
    if meta is None:
        message["params"] = {}
    headers = {VERSION_HEADER: version} if version else None
    return noting_arrivals(ctx, key, lambda: ctx.send_json(message, request_id, headers=headers))


def _without(key: str) -> JsonObject:
    return {k: v for k, v in stateless_meta().items() if k != key}


def _rejection(ctx: ComplianceContext, response: Any, status: int | None, what: str) -> Outcome | None:
    """The verdict on a rejection (a JSON-RPC error, or an HTTP 4xx with or without one); None when it is none."""
    if not is_error(response) and not (status is not None and 400 <= status < 500):
        return None
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    http = f"HTTP {status}, " if status is not None else ""
    return passed(f"{what} rejected ({http}{describe(response)})")


def _rejected(ctx: ComplianceContext, key: str, what: str) -> Outcome:
    """The verdict on the probe sent under `key` (by _discover_with), which must be rejected."""
    answer = ctx.probes[probe_key(key)]
    status = answer.http.status if answer.http is not None else None
    if (rejection := _rejection(ctx, answer.response, status, what)) is not None:
        return rejection
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    if answer.response is None:
        return failed(f"{no_answer(ctx, key, what)}; it must be rejected with an error")
    return failed(f"{what} was served ({describe(answer.response)}); it must be rejected")


@compliance_check(
    "lifecycle-meta-required",
    Category.LIFECYCLE,
    "Rejects a request without _meta",
    required=True,
    revisions=STATELESS,
    spec="basic#meta",
    why="Every 2026-07-28 request carries its protocol version and client capabilities in _meta; a "
    "server that guesses them serves requests under rules the client never asked for.",
    fix="Answer a request without params._meta with -32602 (Invalid params).",
)
def check_meta_required(ctx: ComplianceContext) -> Outcome:
    _discover_with(ctx, "meta-missing", None)
    return _rejected(ctx, "meta-missing", "a server/discover without _meta")


@compliance_check(
    "lifecycle-meta-protocol-version-required",
    Category.LIFECYCLE,
    "Rejects _meta without protocolVersion",
    required=True,
    revisions=STATELESS,
    spec="basic#meta",
    why="The protocol version in _meta decides which revision's rules apply to the request.",
    fix=f"Answer a request whose _meta lacks {PROTOCOL_VERSION_KEY} with -32602.",
)
def check_meta_protocol_version(ctx: ComplianceContext) -> Outcome:
    _discover_with(ctx, "meta-no-version", _without(PROTOCOL_VERSION_KEY))
    return _rejected(ctx, "meta-no-version", "a server/discover whose _meta has no protocolVersion")


@compliance_check(
    "lifecycle-meta-client-capabilities-required",
    Category.LIFECYCLE,
    "Rejects _meta without clientCapabilities",
    required=True,
    revisions=STATELESS,
    spec="basic#meta",
    why="Capabilities are declared per request; a server must not infer them from earlier requests.",
    fix=f"Answer a request whose _meta lacks {CLIENT_CAPABILITIES_KEY} with -32602.",
)
def check_meta_client_capabilities(ctx: ComplianceContext) -> Outcome:
    _discover_with(ctx, "meta-no-capabilities", _without(CLIENT_CAPABILITIES_KEY))
    return _rejected(ctx, "meta-no-capabilities", "a server/discover whose _meta has no clientCapabilities")


@compliance_check(
    "lifecycle-meta-client-info-optional",
    Category.LIFECYCLE,
    "Serves _meta without clientInfo",
    required=True,
    revisions=STATELESS,
    spec="basic#meta",
    why="clientInfo is optional (clients SHOULD send it); refusing requests without it locks out "
    "clients configured not to identify themselves.",
    fix=f"Accept requests whose _meta has no {CLIENT_INFO_KEY}.",
)
def check_meta_client_info(ctx: ComplianceContext) -> Outcome:
    answer = _discover_with(ctx, "meta-no-client-info", _without(CLIENT_INFO_KEY))
    if is_discover_result(answer.response):
        return passed("a server/discover without clientInfo was served")
    return failed(f"a server/discover without clientInfo got {describe(answer.response)}; clientInfo is optional")


@compliance_check(
    "lifecycle-version-unsupported",
    Category.LIFECYCLE,
    "Rejects an unsupported protocol version",
    required=True,
    revisions=STATELESS,
    spec=f"{LIFECYCLE_PAGE}#version-negotiation",
    why="-32022 with data.supported tells the client which revision to retry with; any other answer "
    "leaves it guessing.",
    fix="Answer an unknown _meta protocolVersion with -32022 and data {requested, supported: [...]} (HTTP 400).",
)
def check_version_unsupported(ctx: ComplianceContext) -> Outcome:
    meta = {**stateless_meta(), PROTOCOL_VERSION_KEY: UNKNOWN_REVISION}
    answer = _discover_with(ctx, "version-unsupported", meta, version=UNKNOWN_REVISION)
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    code = error_code(answer.response)
    if code != UNSUPPORTED_VERSION:
        return failed(
            f"protocolVersion {UNKNOWN_REVISION} got {describe(answer.response)}, expected {UNSUPPORTED_VERSION}"
        )
    data = answer.response["error"].get("data") if isinstance(answer.response, dict) else None
    supported = data.get("supported") if isinstance(data, dict) else None
    if not isinstance(supported, list):
        return failed(
            f"{UNSUPPORTED_VERSION} without data.supported (data is {data!r}): the client cannot tell what "
            "to retry with"
        )
    return passed(f"{UNSUPPORTED_VERSION}, supported {supported}")


# --- 2026-07-28 only: removed methods, the handshake side, handlers ----------------------------------
@compliance_check(
    "lifecycle-removed-methods",
    Category.LIFECYCLE,
    "Removed legacy methods are rejected",
    revisions=STATELESS,
    spec=LIFECYCLE_PAGE,
    why="2026-07-28 removed initialize, ping, logging/setLevel and resources/subscribe; serving them "
    "on a stateless request mixes the eras' rules.",
    fix="Answer the removed methods with -32601 on 2026-07-28 requests.",
)
def check_removed_methods(ctx: ComplianceContext) -> Outcome:
    served, codes = [], []
    for method, params in REMOVED_METHODS.items():
        response = ctx.request(method, dict(params))
        if response is not None and not is_error(response):
            served.append(method)
        codes.append(f"{method} {error_code(response) if response is not None else 'no answer'}")
    if served:
        return failed(f"served although removed: {', '.join(served)}")
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    return passed(f"rejected: {', '.join(codes)}")


@compliance_check(
    "lifecycle-dual-era",
    Category.LIFECYCLE,
    "Legacy initialize probe (informational)",
    revisions=STATELESS,
    spec=f"{LIFECYCLE_PAGE}#initialization",
    graded=False,
    fresh_session=True,
    why="A server that also serves initialize speaks the handshake era too; its grade here is for 2026-07-28 only.",
    fix="Nothing to fix; pin --spec-version to a handshake revision to grade the other side.",
)
def check_dual_era(ctx: ComplianceContext) -> Outcome:
    with ctx.fresh_session(recorded=False) as session:  # the handshake side is not graded here
        try:
            response = session.request("initialize", dict(REMOVED_METHODS["initialize"]))
        except (RequestTimeoutError, TransportClosedError) as exc:
            return passed(
                f"initialize in a fresh {'process' if ctx.transport_kind == 'stdio' else 'session'} "
                f"got no answer ({exc}): 2026-07-28 only"
            )
    version = ((response.get("result") or {}) if not is_error(response) else {}).get("protocolVersion")
    if version is None:
        return passed(f"initialize rejected with {describe(response)}: 2026-07-28 only")
    if not ctx.discover_served:
        return passed(
            f"legacy-only: initialize served ({version}) while server/discover was rejected; run with "
            "--spec-version auto to grade its era"
        )
    listed = [v for v in ctx.handshake_result.get("supportedVersions") or [] if v in HANDSHAKE_REVISIONS]
    if not listed:
        ctx.warnings.append(dual_era_warning(str(version), "a fresh initialize was served"))
    return passed(f"dual-era: initialize served with protocolVersion {version}")


@compliance_check(
    "lifecycle-capability-handlers-match",
    Category.LIFECYCLE,
    "Capability declarations match handlers",
    revisions=STATELESS,
    spec=f"{LIFECYCLE_PAGE}#capability-negotiation",
    why="A declared capability whose methods are missing sends clients into errors they cannot avoid.",
    fix="Implement the list method of every capability you declare, or do not declare it.",
)
def check_capability_handlers(ctx: ComplianceContext) -> Outcome:
    declared = [cap for cap in LIST_CAPABILITIES if ctx.declared(cap)]
    if not declared:
        return skipped("the server declares no tools, resources or prompts")
    missing = [
        f"{LIST_CAPABILITIES[cap]} ({error_code({'error': listing.error})})"
        for cap in declared
        if (listing := ctx.listing(LIST_CAPABILITIES[cap], cap)).error is not None
        and listing.error.get("code") == METHOD_NOT_FOUND
    ]
    if missing:
        return failed(f"declared but not implemented: {', '.join(missing)}")
    return passed(f"{', '.join(declared)}: declared and served")


# --- 2026-07-28 only: subscriptions/listen -----------------------------------------------------------
def _listen_filter(ctx: ComplianceContext) -> JsonObject:
    wanted = {
        "toolsListChanged": "tools.listChanged",
        "promptsListChanged": "prompts.listChanged",
        "resourcesListChanged": "resources.listChanged",
    }
    return {key: True for key, capability in wanted.items() if ctx.declared(capability)}


def _first_listen_message(ctx: ComplianceContext, request_id: str, params: JsonObject) -> tuple[int | None, Any]:
    """The HTTP status (None on stdio) and the message that opens the stream: on HTTP the stream's first, on
    stdio the acknowledgement or the request's own answer, whichever comes first (other notifications may
    come in between there)."""
    message = ctx.conformant({"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen", "params": params})
    return ctx.first_stream_message(message, request_id, opened_by=ACKNOWLEDGED, first_wait_s=LISTEN_TIMEOUT_S)


@compliance_check(
    "lifecycle-subscriptions-listen",
    Category.LIFECYCLE,
    "subscriptions/listen acknowledges first",
    revisions=STATELESS,
    spec="basic/utilities/subscriptions",
    why="A client learns which notifications it will get from the acknowledgement that opens the stream.",
    fix=f"Answer subscriptions/listen first with {ACKNOWLEDGED} (or reject it with an error if you do not support it).",
)
def check_subscriptions_listen(ctx: ComplianceContext) -> Outcome:
    status, first = _first_listen_message(ctx, "hookconf-listen-1", {"notifications": _listen_filter(ctx)})
    if (rejection := _rejection(ctx, first, status, "not supported:")) is not None:
        return rejection
    method = first.get("method") if isinstance(first, dict) else None
    if method == ACKNOWLEDGED:
        return passed(f"acknowledged {((first.get('params') or {}).get('notifications'))}")
    if first is None:
        return failed("subscriptions/listen was neither acknowledged nor rejected")
    return failed(f"the first message on the stream was {method or describe(first)}, not the acknowledgement")


# --- 2026-07-28 only: log notifications --------------------------------------------------------------
@compliance_check(
    "lifecycle-log-level-gating",
    Category.LIFECYCLE,
    "No log notifications without logLevel",
    required=True,
    revisions=STATELESS,
    spec="server/utilities/logging",
    after_all=True,
    why="Without io.modelcontextprotocol/logLevel in a request's _meta the server MUST NOT send "
    "notifications/message for it; hookconf never sets one.",
    fix="Send log notifications only for requests whose _meta sets logLevel, at or above that level.",
)
def check_log_level_gating(ctx: ComplianceContext) -> Outcome:
    messages = ctx.all_received()
    if not messages:
        return failed("nothing was received to inspect")
    logs = [m for m in messages if isinstance(m, dict) and m.get("method") == "notifications/message"]
    if logs:
        return failed(
            f"{len(logs)} notifications/message although no request set a logLevel, e.g. "
            f"{str(logs[0].get('params'))[:100]}"
        )
    return passed(f"{len(messages)} messages, no log notifications")
