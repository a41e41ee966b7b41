"""Lifecycle, 2026-07-28 only: server/discover, the per-request `_meta` envelope, the removed methods and the
handshake side, subscriptions/listen, log notifications. The handshake era's checks and those both eras share are
in lifecycle.py.

A 2026-07-28 rejection of a malformed request is credited only when its conformant twin (the setup
server/discover) was served; otherwise the server may simply reject everything, and the check fails as not
evaluable.
"""

from __future__ import annotations

from typing import Any

from hookconf import HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION, STATELESS_REVISIONS
from hookconf.checks.compliance.answers import (
    describe,
    error_code,
    is_error,
    not_evaluable_rejection,
)
from hookconf.checks.compliance.catalog import (
    STATELESS,
    Category,
    Outcome,
    compliance_check,
    failed,
    passed,
    skipped,
)
from hookconf.checks.compliance.context import ComplianceContext, RawAnswer, probe_key
from hookconf.checks.compliance.errors import no_answer, noting_arrivals

# Importing lifecycle (for DATE_VERSION) also registers its checks first: the catalog lists the handshake
# era's lifecycle checks, then these, in the order they are declared.
from hookconf.checks.compliance.lifecycle import DATE_VERSION
from hookconf.era import dual_era_warning
from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.protocol import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LIFECYCLE_PAGE,
    METHOD_NOT_FOUND,
    PROTOCOL_VERSION_KEY,
    STATELESS_REVISION,
    UNKNOWN_REVISION,
    UNSUPPORTED_VERSION,
    discover_message,
    initialize_params,
    stateless_meta,
)
from hookconf.session import is_discover_result
from hookconf.wire.http import VERSION_HEADER
from hookconf.wire.transport import JsonObject

REMOVED_METHODS: dict[str, JsonObject] = {  # removed in 2026-07-28
    "initialize": initialize_params(LATEST_HANDSHAKE_REVISION),
    "ping": {},
    "logging/setLevel": {"level": "info"},
    "resources/subscribe": {"uri": "hookconf://removed-method-probe"},
}
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
LISTEN_TIMEOUT_S = 5.0  # over HTTP: how long the listen stream may take to send its first message
LIST_CAPABILITIES = {"tools": "tools/list", "resources": "resources/list", "prompts": "prompts/list"}


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
