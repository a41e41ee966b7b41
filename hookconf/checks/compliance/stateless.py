"""The 2026-07-28 era: server/discover, the per-request `_meta` envelope, removed methods, result types.

A rejection of a malformed request is credited only when its conformant twin (the setup server/discover)
was served; otherwise the server may simply reject everything, and the check fails as not evaluable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hookconf import HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION, STATELESS_REVISIONS, __version__
from hookconf.checks.compliance.catalog import (
    STATELESS,
    Category,
    Outcome,
    compliance_check,
    failed,
    passed,
    skipped,
)
from hookconf.checks.compliance.context import (
    ComplianceContext,
    RawAnswer,
    describe,
    error_code,
    is_error,
    not_evaluable_rejection,
)
from hookconf.checks.compliance.errors import no_answer, noting_arrivals
from hookconf.era import dual_era_warning
from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.session import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    INPUT_REQUIRED,
    PROTOCOL_VERSION_KEY,
    discover_message,
    is_discover_result,
    stateless_meta,
)
from hookconf.validation import models_for, validation_errors
from hookconf.wire.http import VERSION_HEADER, HttpTransport
from hookconf.wire.transport import JsonObject

LIFECYCLE = "basic/lifecycle"
DATE_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
UNSUPPORTED_VERSION = "1999-01-01"
UNSUPPORTED_VERSION_CODE = -32022
INVALID_PARAMS = -32602
RETIRED_CODES = {-32002: "resource not found (now -32602)", -32042: "URL elicitation required (MRTR replaced it)"}
MRTR_METHODS = ("tools/call", "prompts/get", "resources/read")  # the methods that may answer input_required
RESULT_TYPES = ("complete", INPUT_REQUIRED)
REMOVED_METHODS: dict[str, JsonObject] = {
    "initialize": {"protocolVersion": LATEST_HANDSHAKE_REVISION, "capabilities": {},
                   "clientInfo": {"name": "hookconf", "version": __version__}},
    "ping": {},
    "logging/setLevel": {"level": "info"},
    "resources/subscribe": {"uri": "hookconf://removed-method-probe"},
}
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
LISTEN_TIMEOUT_S = 5.0  # over HTTP: how long the listen stream may take to send its first message
LIST_CAPABILITIES = {"tools": "tools/list", "resources": "resources/list", "prompts": "prompts/list"}


# --- server/discover ---------------------------------------------------------------------------------
def _discover(ctx: ComplianceContext) -> JsonObject | None:
    identity = ctx.session.identity
    return identity.discover_response if identity else None


def _discover_failure(ctx: ComplianceContext) -> Outcome | None:
    if ctx.discover_served:
        return None
    return failed(f"server/discover was not served: {describe(_discover(ctx) or None)}")


@compliance_check("lifecycle-discover", Category.LIFECYCLE, "server/discover returns a DiscoverResult", required=True,
                  revisions=STATELESS, spec="server/discover",
                  why="Servers MUST implement server/discover: it is how a client learns the versions, capabilities "
                  "and identity of a server without a handshake.",
                  fix="Answer server/discover with {supportedVersions, capabilities, ttlMs, cacheScope, resultType}.")
def check_discover(ctx: ComplianceContext) -> Outcome:
    if (failure := _discover_failure(ctx)) is not None:
        return failure
    errors = [e for v in ctx.session.violations if v.method == "server/discover" for e in v.errors]
    if errors:
        return failed(f"the answer does not match DiscoverResult: {'; '.join(errors[:3])}")
    result = ctx.handshake_result
    return passed(f"DiscoverResult with capabilities {', '.join(sorted(result.get('capabilities') or {})) or 'none'}")


@compliance_check("lifecycle-discover-versions", Category.LIFECYCLE, "supportedVersions are well formed",
                  required=True, revisions=STATELESS, spec="server/discover",
                  why="A client picks the revision of its later requests from supportedVersions.",
                  fix="List every revision you serve as a YYYY-MM-DD string, including 2026-07-28.")
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
        return failed(f"supportedVersions {versions} lacks {STATELESS_REVISIONS[-1]}, the revision it just served")
    return passed(f"supportedVersions {versions}")


def caching_problem(result: JsonObject) -> str | None:
    """What is wrong with a result's caching hints (ttlMs, cacheScope), or None."""
    ttl, scope = result.get("ttlMs"), result.get("cacheScope")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
        return f"ttlMs is {ttl!r}, not a non-negative integer"
    if scope not in ("public", "private"):
        return f"cacheScope is {scope!r}, not 'public' or 'private'"
    return None


@compliance_check("lifecycle-discover-caching", Category.LIFECYCLE, "server/discover carries caching hints",
                  required=True, revisions=STATELESS, spec="server/discover",
                  why="Clients cache the DiscoverResult for ttlMs; without hints they must ask before every request.",
                  fix="Add ttlMs (milliseconds, 0 for no caching) and cacheScope ('public' or 'private').")
def check_discover_caching(ctx: ComplianceContext) -> Outcome:
    if (failure := _discover_failure(ctx)) is not None:
        return failure
    problem = caching_problem(ctx.handshake_result)
    if problem:
        return failed(f"DiscoverResult: {problem}")
    result = ctx.handshake_result
    return passed(f"ttlMs {result['ttlMs']}, cacheScope {result['cacheScope']}")


# --- the _meta envelope ------------------------------------------------------------------------------
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
    answer: RawAnswer = ctx.memo[key]
    status = answer.http.status if answer.http is not None else None
    if (rejection := _rejection(ctx, answer.response, status, what)) is not None:
        return rejection
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    if answer.response is None:
        return failed(f"{no_answer(ctx, key, what)}; it must be rejected with an error")
    return failed(f"{what} was served ({describe(answer.response)}); it must be rejected")


@compliance_check("lifecycle-meta-required", Category.LIFECYCLE, "Rejects a request without _meta", required=True,
                  revisions=STATELESS, spec="basic#meta",
                  why="Every 2026-07-28 request carries its protocol version and client capabilities in _meta; a "
                  "server that guesses them serves requests under rules the client never asked for.",
                  fix="Answer a request without params._meta with -32602 (Invalid params).")
def check_meta_required(ctx: ComplianceContext) -> Outcome:
    _discover_with(ctx, "meta-missing", None)
    return _rejected(ctx, "meta-missing", "a server/discover without _meta")


@compliance_check("lifecycle-meta-protocol-version-required", Category.LIFECYCLE,
                  "Rejects _meta without protocolVersion", required=True, revisions=STATELESS, spec="basic#meta",
                  why="The protocol version in _meta decides which revision's rules apply to the request.",
                  fix=f"Answer a request whose _meta lacks {PROTOCOL_VERSION_KEY} with -32602.")
def check_meta_protocol_version(ctx: ComplianceContext) -> Outcome:
    _discover_with(ctx, "meta-no-version", _without(PROTOCOL_VERSION_KEY))
    return _rejected(ctx, "meta-no-version", "a server/discover whose _meta has no protocolVersion")


@compliance_check("lifecycle-meta-client-capabilities-required", Category.LIFECYCLE,
                  "Rejects _meta without clientCapabilities", required=True, revisions=STATELESS, spec="basic#meta",
                  why="Capabilities are declared per request; a server must not infer them from earlier requests.",
                  fix=f"Answer a request whose _meta lacks {CLIENT_CAPABILITIES_KEY} with -32602.")
def check_meta_client_capabilities(ctx: ComplianceContext) -> Outcome:
    _discover_with(ctx, "meta-no-capabilities", _without(CLIENT_CAPABILITIES_KEY))
    return _rejected(ctx, "meta-no-capabilities", "a server/discover whose _meta has no clientCapabilities")


@compliance_check("lifecycle-meta-client-info-optional", Category.LIFECYCLE, "Serves _meta without clientInfo",
                  required=True, revisions=STATELESS, spec="basic#meta",
                  why="clientInfo is optional (clients SHOULD send it); refusing requests without it locks out "
                  "clients configured not to identify themselves.",
                  fix=f"Accept requests whose _meta has no {CLIENT_INFO_KEY}.")
def check_meta_client_info(ctx: ComplianceContext) -> Outcome:
    answer = _discover_with(ctx, "meta-no-client-info", _without(CLIENT_INFO_KEY))
    if is_discover_result(answer.response):
        return passed("a server/discover without clientInfo was served")
    return failed(f"a server/discover without clientInfo got {describe(answer.response)}; clientInfo is optional")


@compliance_check("lifecycle-version-unsupported", Category.LIFECYCLE, "Rejects an unsupported protocol version",
                  required=True, revisions=STATELESS, spec=f"{LIFECYCLE}#version-negotiation",
                  why="-32022 with data.supported tells the client which revision to retry with; any other answer "
                  "leaves it guessing.",
                  fix="Answer an unknown _meta protocolVersion with -32022 and data {requested, supported: [...]} "
                  "(HTTP 400).")
def check_version_unsupported(ctx: ComplianceContext) -> Outcome:
    meta = {**stateless_meta(), PROTOCOL_VERSION_KEY: UNSUPPORTED_VERSION}
    answer = _discover_with(ctx, "version-unsupported", meta, version=UNSUPPORTED_VERSION)
    if (not_evaluable := not_evaluable_rejection(ctx)) is not None:
        return not_evaluable
    code = error_code(answer.response)
    if code != UNSUPPORTED_VERSION_CODE:
        return failed(f"protocolVersion {UNSUPPORTED_VERSION} got {describe(answer.response)}, expected -32022")
    data = answer.response["error"].get("data") if isinstance(answer.response, dict) else None
    supported = data.get("supported") if isinstance(data, dict) else None
    if not isinstance(supported, list):
        return failed(f"-32022 without data.supported (data is {data!r}): the client cannot tell what to retry with")
    return passed(f"-32022, supported {supported}")


# --- removed methods, the legacy side, handlers ------------------------------------------------------
@compliance_check("lifecycle-removed-methods", Category.LIFECYCLE, "Removed legacy methods are rejected",
                  revisions=STATELESS, spec=LIFECYCLE,
                  why="2026-07-28 removed initialize, ping, logging/setLevel and resources/subscribe; serving them "
                  "on a stateless request mixes the eras' rules.",
                  fix="Answer the removed methods with -32601 on 2026-07-28 requests.")
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


@compliance_check("lifecycle-dual-era", Category.LIFECYCLE, "Legacy initialize probe (informational)",
                  revisions=STATELESS, spec=f"{LIFECYCLE}#initialization", graded=False, fresh_session=True,
                  why="A server that also serves initialize speaks the handshake era too; its grade here is for "
                  "2026-07-28 only.",
                  fix="Nothing to fix; pin --spec-version to a handshake revision to grade the other side.")
def check_dual_era(ctx: ComplianceContext) -> Outcome:
    with ctx.fresh_session() as session:
        ctx.other_recordings.remove(session.transport.recording)  # the legacy side is not graded here
        try:
            response = session.request("initialize", dict(REMOVED_METHODS["initialize"]))
        except (RequestTimeoutError, TransportClosedError) as exc:
            return passed(f"initialize in a fresh {'process' if ctx.transport_kind == 'stdio' else 'session'} "
                          f"got no answer ({exc}): 2026-07-28 only")
    version = ((response.get("result") or {}) if not is_error(response) else {}).get("protocolVersion")
    if version is None:
        return passed(f"initialize rejected with {describe(response)}: 2026-07-28 only")
    if not ctx.discover_served:
        return passed(f"legacy-only: initialize served ({version}) while server/discover was rejected; run with "
                      "--spec-version auto to grade its era")
    listed = [v for v in ctx.handshake_result.get("supportedVersions") or [] if v in HANDSHAKE_REVISIONS]
    if not listed:
        ctx.warnings.append(dual_era_warning(str(version), "a fresh initialize was served"))
    return passed(f"dual-era: initialize served with protocolVersion {version}")


@compliance_check("lifecycle-capability-handlers-match", Category.LIFECYCLE, "Capability declarations match handlers",
                  revisions=STATELESS, spec=f"{LIFECYCLE}#capability-negotiation",
                  why="A declared capability whose methods are missing sends clients into errors they cannot avoid.",
                  fix="Implement the list method of every capability you declare, or do not declare it.")
def check_capability_handlers(ctx: ComplianceContext) -> Outcome:
    declared = [cap for cap in LIST_CAPABILITIES if ctx.declared(cap)]
    if not declared:
        return skipped("the server declares no tools, resources or prompts")
    missing = [f"{LIST_CAPABILITIES[cap]} ({error_code({'error': listing.error})})" for cap in declared
               if (listing := ctx.listing(LIST_CAPABILITIES[cap], cap)).error is not None
               and listing.error.get("code") == -32601]
    if missing:
        return failed(f"declared but not implemented: {', '.join(missing)}")
    return passed(f"{', '.join(declared)}: declared and served")


# --- subscriptions/listen ----------------------------------------------------------------------------
def _listen_filter(ctx: ComplianceContext) -> JsonObject:
    wanted = {"toolsListChanged": "tools.listChanged", "promptsListChanged": "prompts.listChanged",
              "resourcesListChanged": "resources.listChanged"}
    return {key: True for key, capability in wanted.items() if ctx.declared(capability)}


def _first_listen_message(ctx: ComplianceContext, request_id: str, params: JsonObject) -> tuple[int | None, Any]:
    """The HTTP status (None on stdio) and the message that opens the stream: on HTTP the stream's first, on
    stdio the acknowledgement or the request's own answer, whichever comes first (other notifications may
    come in between there)."""
    message = ctx.conformant({"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen", "params": params})
    transport = ctx.session.transport
    if isinstance(transport, HttpTransport):
        return transport.first_message(json.dumps(message), min(ctx.session.timeout_s, LISTEN_TIMEOUT_S))
    first = transport.send_then_ping(json.dumps(message), request_id, ctx.session.timeout_s,
                                     or_notification=ACKNOWLEDGED)
    if first is not None:
        transport.notify("notifications/cancelled", {"requestId": request_id, "reason": "probe done"})
    return None, first


@compliance_check("lifecycle-subscriptions-listen", Category.LIFECYCLE, "subscriptions/listen acknowledges first",
                  revisions=STATELESS, spec="basic/utilities/subscriptions",
                  why="A client learns which notifications it will get from the acknowledgement that opens the stream.",
                  fix=f"Answer subscriptions/listen first with {ACKNOWLEDGED} (or reject it with an error if you do "
                  "not support it).")
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


# --- results: caching hints, resultType, input_required ----------------------------------------------
def _caching_outcome(ctx: ComplianceContext, method: str) -> Outcome:
    results = ctx.results_for(method)
    if not results:
        return failed(f"no {method} result was received to inspect")
    problems = [p for _, result in results if (p := caching_problem(result))]
    if problems:
        return failed(f"{len(problems)} of {len(results)} {method} results: {problems[0]}")
    return passed(f"{len(results)} {method} result(s) carry ttlMs and cacheScope")


def _listing_caching(ctx: ComplianceContext, method: str, key: str) -> Outcome:
    listing = ctx.listing(method, key)
    if listing.error is not None and not ctx.results_for(method):
        if listing.error.get("code") == -32601 and method == "resources/templates/list":
            return skipped("resources/templates/list is not supported (-32601)")
        return failed(f"{method} failed with {describe({'error': listing.error})}; no result to inspect")
    return _caching_outcome(ctx, method)


@compliance_check("tools-list-caching", Category.TOOLS, "tools/list carries caching hints", required=True,
                  capability="tools", revisions=STATELESS, spec="server/tools#listing-tools",
                  why="Clients cache the tool list for ttlMs instead of listing before every call.",
                  fix="Add ttlMs and cacheScope to every tools/list result.")
def check_tools_list_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "tools/list", "tools")


@compliance_check("resources-list-caching", Category.RESOURCES, "resources/list carries caching hints", required=True,
                  capability="resources", revisions=STATELESS, spec="server/resources#listing-resources",
                  why="Clients cache the resource list for ttlMs.",
                  fix="Add ttlMs and cacheScope to every resources/list result.")
def check_resources_list_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "resources/list", "resources")


@compliance_check("resources-templates-caching", Category.RESOURCES, "resources/templates/list carries caching hints",
                  capability="resources", revisions=STATELESS, spec="server/resources#resource-templates",
                  why="Clients cache the template list for ttlMs.",
                  fix="Add ttlMs and cacheScope to every resources/templates/list result.")
def check_templates_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "resources/templates/list", "resourceTemplates")


@compliance_check("prompts-list-caching", Category.PROMPTS, "prompts/list carries caching hints", required=True,
                  capability="prompts", revisions=STATELESS, spec="server/prompts#listing-prompts",
                  why="Clients cache the prompt list for ttlMs.",
                  fix="Add ttlMs and cacheScope to every prompts/list result.")
def check_prompts_list_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "prompts/list", "prompts")


@compliance_check("resources-read-caching", Category.RESOURCES, "resources/read carries caching hints", required=True,
                  capability="resources", revisions=STATELESS, spec="server/resources#reading-resources",
                  why="Clients cache resource contents for ttlMs instead of reading them again.",
                  fix="Add ttlMs and cacheScope to every resources/read result.")
def check_read_caching(ctx: ComplianceContext) -> Outcome:
    if not ctx.results_for("resources/read"):
        uris = [r["uri"] for r in ctx.listing("resources/list", "resources").items if isinstance(r.get("uri"), str)]
        if not uris:
            return skipped("no listed resource to read")
        ctx.request("resources/read", {"uri": uris[0]})
    return _caching_outcome(ctx, "resources/read")


@compliance_check("resources-not-found", Category.RESOURCES, "A nonexistent resource is answered with -32602",
                  required=True, capability="resources", revisions=STATELESS,
                  spec="server/resources#error-handling",
                  why="2026-07-28 reports an unknown resource as invalid params (-32602); the old -32002 is retired.",
                  fix="Answer resources/read of an unknown uri with -32602.")
def check_resource_not_found(ctx: ComplianceContext) -> Outcome:
    uri = "hookconf://no-such-resource/7f3a"
    response = ctx.request("resources/read", {"uri": uri})
    code = error_code(response)
    if code == INVALID_PARAMS:
        return passed("-32602 for an unknown resource")
    if response is not None and not is_error(response):
        return failed(f"resources/read of {uri} was answered with a result")
    retired = f" ({RETIRED_CODES[code]}, retired)" if code in RETIRED_CODES else ""
    return failed(f"resources/read of {uri} got {describe(response)}{retired}, expected -32602")


@compliance_check("error-retired-codes", Category.ERRORS, "No retired error codes", revisions=STATELESS,
                  spec="basic#error-codes", after_all=True,
                  why="-32002 and -32042 are retired and never reused; clients of 2026-07-28 do not know them.",
                  fix="Use -32602 for unknown resources; use input_required results instead of -32042.")
def check_retired_codes(ctx: ComplianceContext) -> Outcome:
    messages = ctx.all_received()
    if not messages:
        return failed("nothing was received to inspect")
    errors = [m["error"] for m in messages if isinstance(m, dict) and isinstance(m.get("error"), dict)]
    retired = sorted({f"{e.get('code')} ({RETIRED_CODES[e.get('code')]})" for e in errors
                      if e.get("code") in RETIRED_CODES})
    if retired:
        return failed(f"retired codes used: {', '.join(retired)}")
    return passed(f"{len(errors)} errors, none with a retired code")


@compliance_check("schema-result-type", Category.SCHEMA, "Every result carries resultType", required=True,
                  revisions=STATELESS, spec="basic#responses", after_all=True,
                  why="Clients decide how to parse a result from resultType: 'complete' or 'input_required'.",
                  fix="Add \"resultType\": \"complete\" to every result (\"input_required\" where input is needed).")
def check_result_type(ctx: ComplianceContext) -> Outcome:
    results = ctx.results_for()
    if not results:
        return failed("no result was received to inspect")
    bad = sorted({f"{method} ({result.get('resultType')!r})" for method, result in results
                  if result.get("resultType") not in RESULT_TYPES})
    if bad:
        return failed(f"results without a valid resultType: {', '.join(bad[:6])}")
    return passed(f"all {len(results)} results carry resultType")


@compliance_check("schema-no-input-required-on-lists", Category.SCHEMA, "input_required only on MRTR methods",
                  required=True, revisions=STATELESS, spec="basic#responses", after_all=True,
                  why="Only tools/call, prompts/get and resources/read may ask the client for input; a list or "
                  "discover that does leaves the client nothing to retry.",
                  fix="Answer lists, server/discover and completions with complete results.")
def check_no_input_required_on_lists(ctx: ComplianceContext) -> Outcome:
    results = ctx.results_for()
    if not results:
        return failed("no result was received to inspect")
    wrong = sorted({method for method, result in results
                    if result.get("resultType") == INPUT_REQUIRED and method not in MRTR_METHODS})
    if wrong:
        return failed(f"input_required answered to {', '.join(wrong)}")
    return passed(f"{len(results)} results; input_required only where allowed")


@compliance_check("schema-input-required-shape", Category.SCHEMA, "InputRequiredResult is well formed",
                  revisions=STATELESS, spec="basic#responses", after_all=True,
                  why="A client can only answer an input request it can read: inputRequests or requestState must be "
                  "there and match the schema.",
                  fix="Send input_required results with inputRequests and/or requestState, as the schema defines.")
def check_input_required_shape(ctx: ComplianceContext) -> Outcome:
    asked = [result for _, result in ctx.results_for() if result.get("resultType") == INPUT_REQUIRED]
    if not asked:
        return skipped("no input_required result was received")
    model = models_for(STATELESS_REVISIONS[-1]).InputRequiredResult
    problems = [("; ".join(validation_errors(model, result)) or
                 ("neither inputRequests nor requestState" if not {"inputRequests", "requestState"} & set(result)
                  else "")) for result in asked]
    problems = [p for p in problems if p]
    if problems:
        return failed(f"{len(problems)} of {len(asked)} input_required results: {problems[0]}")
    return passed(f"{len(asked)} input_required results well formed")


@compliance_check("lifecycle-log-level-gating", Category.LIFECYCLE, "No log notifications without logLevel",
                  required=True, revisions=STATELESS, spec="server/utilities/logging", after_all=True,
                  why="Without io.modelcontextprotocol/logLevel in a request's _meta the server MUST NOT send "
                  "notifications/message for it; hookconf never sets one.",
                  fix="Send log notifications only for requests whose _meta sets logLevel, at or above that level.")
def check_log_level_gating(ctx: ComplianceContext) -> Outcome:
    messages = ctx.all_received()
    if not messages:
        return failed("nothing was received to inspect")
    logs = [m for m in messages if isinstance(m, dict) and m.get("method") == "notifications/message"]
    if logs:
        return failed(f"{len(logs)} notifications/message although no request set a logLevel, e.g. "
                      f"{str(logs[0].get('params'))[:100]}")
    return passed(f"{len(messages)} messages, no log notifications")


@compliance_check("tools-list-deterministic-order", Category.TOOLS, "tools/list order is deterministic",
                  capability="tools", revisions=STATELESS, spec="server/tools#listing-tools",
                  why="Cached and fresh lists are compared by clients and gateways; a shuffled order looks like a "
                  "change and defeats caching.",
                  fix="List tools in a stable order (e.g. registration order or sorted by name).")
def check_deterministic_order(ctx: ComplianceContext) -> Outcome:
    ctx.listing("tools/list", "tools")
    while len(ctx.session.tool_listings) < 2:
        if ctx.session.list_all("tools/list", "tools").error is not None:
            return failed("a repeated tools/list failed")
    orders = [[str(t.get("name")) for t in listing] for listing in ctx.session.tool_listings]
    changed = [n for n, order in enumerate(orders[1:], start=2) if order != orders[0]]
    if changed:
        return failed(f"listing {changed[0]} orders the tools differently: {orders[changed[0] - 1][:5]} "
                      f"instead of {orders[0][:5]}")
    return passed(f"{len(orders)} listings in the same order")
