"""Tools, resources and prompts: the lists, their pagination, and one call, read and get each; each category
ends with its 2026-07-28 checks (the caching hints of its results, and what else that revision added)."""

from __future__ import annotations

import time

from hookconf.checks.backend import sandbox_note
from hookconf.checks.compliance.answers import backend_failure, describe, error_code, is_error
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
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.checks.compliance.errors import RETIRED_CODES
from hookconf.checks.compliance.lifecycle_stateless import caching_problem
from hookconf.protocol import INVALID_PARAMS, METHOD_NOT_FOUND
from hookconf.session import Listing
from hookconf.wire.transport import JsonObject

CONTENT_TYPES = {"text", "image", "audio", "resource_link", "resource"}
TOOLS_LIST_BUDGET_MS = 3000


def _list_outcome(listing: Listing, what: str) -> Outcome:
    if listing.error is not None:
        return failed(f"{what} failed with {describe({'error': listing.error})}")
    return passed(f"{len(listing.items)} {what.split('/', maxsplit=1)[0]} over {listing.pages} page(s)")


def _schema_errors(ctx: ComplianceContext, method: str) -> list[str]:
    return [f"{'; '.join(v.errors)}" for v in ctx.schema_violations(method)]


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
        if listing.error.get("code") == METHOD_NOT_FOUND and method == "resources/templates/list":
            return skipped(f"resources/templates/list is not supported ({METHOD_NOT_FOUND})")
        return failed(f"{method} failed with {describe({'error': listing.error})}; no result to inspect")
    return _caching_outcome(ctx, method)


@compliance_check(
    "tools-list",
    Category.TOOLS,
    "tools/list returns a valid list",
    required=True,
    capability="tools",
    spec="server/tools#listing-tools",
    lighthouse=("schema-tools-list",),
    why="A tool server is used through tools/list; a broken list hides every tool.",
    fix="Answer tools/list with {tools: [...], nextCursor?} matching the schema.",
)
def check_tools_list(ctx: ComplianceContext) -> Outcome:
    listing = ctx.listing("tools/list", "tools")
    errors = _schema_errors(ctx, "tools/list")
    if errors:
        return failed(f"tools/list result does not match ListToolsResult: {errors[0]}")
    return _list_outcome(listing, "tools/list")


@compliance_check(
    "tools-call",
    Category.TOOLS,
    "tools/call answers in the CallToolResult format",
    capability="tools",
    stateless_required=True,
    spec="server/tools#calling-tools",
    why="Clients read content (and structuredContent) from every tool result.",
    fix="Answer tools/call with {content: [...], isError?, structuredContent?}.",
)
def check_tools_call(ctx: ComplianceContext) -> Outcome:
    tools = ctx.read_only_tools()
    if not tools:
        return skipped("no read-only tool to call safely (destructive tools are never called)")
    tool = tools[0]
    response = ctx.baseline(tool)
    if response is None:
        return failed(f"no answer to tools/call {tool['name']}")
    if is_error(response):
        if (backend := backend_failure(response)) is not None:
            return undecided(sandbox_note(backend))
        return skipped(f"{tool['name']} answered with {describe(response)}; add a probe with valid arguments")
    content = (response.get("result") or {}).get("content")
    if not isinstance(content, list):
        return failed(f"{tool['name']} result has no content array")
    return passed(f"{tool['name']} returned {len(content)} content item(s)")


@compliance_check(
    "tools-pagination",
    Category.TOOLS,
    "tools/list pagination works",
    capability="tools",
    spec="server/utilities/pagination",
    why="Large tool sets are paged; a client follows nextCursor until it is absent.",
    fix="Give nextCursor only while there are more pages, and accept it as cursor.",
)
def check_tools_pagination(ctx: ComplianceContext) -> Outcome:
    return _pagination(ctx.listing("tools/list", "tools"), "tools/list")


def _pagination(listing: Listing, method: str) -> Outcome:
    if listing.error is not None:
        if listing.pages > 0:
            return failed(f"{method} failed on page {listing.pages + 1} with {describe({'error': listing.error})}")
        return skipped(f"{method} itself failed")
    if listing.pages < 2:
        return skipped(f"{method} returned a single page; nothing to page through")
    return passed(f"followed nextCursor over {listing.pages} pages")


@compliance_check(
    "tools-content-types",
    Category.TOOLS,
    "Tool content items have valid types",
    capability="tools",
    stateless_required=True,
    spec="server/tools#tool-result",
    why="Clients render content by type; an unknown type is dropped or breaks rendering.",
    fix=f"Use content types {', '.join(sorted(CONTENT_TYPES))}.",
    after_all=True,
)
def check_content_types(ctx: ComplianceContext) -> Outcome:
    items = _content_items(ctx)
    if not items:
        return skipped("no tool result with content was received")
    bad = sorted({str(item.get("type")) for item in items if item.get("type") not in CONTENT_TYPES})
    if bad:
        return failed(f"content types not in the spec: {', '.join(bad)}")
    return passed(f"{len(items)} content items, types {', '.join(sorted({str(i['type']) for i in items}))}")


def _content_items(ctx: ComplianceContext) -> list[JsonObject]:
    items: list[JsonObject] = []
    for message in ctx.received_messages():
        result = message.get("result") if isinstance(message, dict) else None
        content = result.get("content") if isinstance(result, dict) else None
        if isinstance(content, list):
            items.extend(item for item in content if isinstance(item, dict))
    return items


@compliance_check(
    "tools-call-missing-args",
    Category.TOOLS,
    "A call missing required arguments is rejected",
    capability="tools",
    spec="server/tools#error-handling",
    lighthouse=("robust-missing-args",),
    why="A tool that runs without its required arguments acts on garbage; the model learns nothing.",
    fix="Validate arguments against the inputSchema; answer with isError: true or -32602.",
)
def check_missing_args(ctx: ComplianceContext) -> Outcome:
    tool = next((t for t in ctx.read_only_tools() if (t.get("inputSchema") or {}).get("required")), None)
    if tool is None:
        return skipped("no read-only tool with required arguments")
    response = ctx.call_tool(str(tool["name"]), {})
    if response is None:
        return failed(f"no answer to {tool['name']} without its required arguments")
    result = response.get("result")
    if is_error(response) or (isinstance(result, dict) and result.get("isError") is True):
        if (backend := backend_failure(response)) is not None:
            # The tool went on to its backend without the arguments: that is no validation.
            return undecided(sandbox_note(backend))
        return passed(f"{tool['name']} without {', '.join(tool['inputSchema']['required'])} was rejected")
    return failed(
        f"{tool['name']} ran without its required arguments "
        f"({', '.join(map(str, tool['inputSchema']['required']))}) and reported success"
    )


@compliance_check(
    "tools-unique-names",
    Category.TOOLS,
    "Tool names are unique",
    capability="tools",
    spec="server/tools#tool",
    lighthouse=("schema-no-duplicate-tools",),
    why="Tools are called by name; a duplicate name makes one of them unreachable.",
    fix="Give every tool its own name.",
)
def check_unique_names(ctx: ComplianceContext) -> Outcome:
    names = [str(t.get("name")) for t in ctx.tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        return failed(f"listed more than once: {', '.join(duplicates)}")
    return passed(f"{len(names)} distinct names")


@compliance_check(
    "tools-list-time",
    Category.TOOLS,
    f"tools/list answers within {TOOLS_LIST_BUDGET_MS // 1000} s",
    capability="tools",
    spec="server/tools#listing-tools",
    lighthouse=("perf-tools-list-time",),
    why="Hosts list tools at every start; a slow list delays every session.",
    fix="Build the tool list without network or disk work at request time.",
    advice="a slow tools/list; the spec sets no time limit",
)
def check_tools_list_time(ctx: ComplianceContext) -> Outcome:
    started = time.monotonic()
    response = ctx.request("tools/list", {})
    elapsed_ms = (time.monotonic() - started) * 1000
    if response is None:
        return failed("no answer to tools/list")
    if elapsed_ms > TOOLS_LIST_BUDGET_MS:
        return advised(f"tools/list took {elapsed_ms:.0f} ms")
    return passed(f"tools/list answered in {elapsed_ms:.0f} ms")


# --- tools, 2026-07-28 only: caching hints, a stable order ---------------------------------------
@compliance_check(
    "tools-list-caching",
    Category.TOOLS,
    "tools/list carries caching hints",
    required=True,
    capability="tools",
    revisions=STATELESS,
    spec="server/tools#listing-tools",
    why="Clients cache the tool list for ttlMs instead of listing before every call.",
    fix="Add ttlMs and cacheScope to every tools/list result.",
)
def check_tools_list_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "tools/list", "tools")


@compliance_check(
    "tools-list-deterministic-order",
    Category.TOOLS,
    "tools/list order is deterministic",
    capability="tools",
    revisions=STATELESS,
    spec="server/tools#listing-tools",
    why="Cached and fresh lists are compared by clients and gateways; a shuffled order looks like a "
    "change and defeats caching.",
    fix="List tools in a stable order (e.g. registration order or sorted by name).",
)
def check_deterministic_order(ctx: ComplianceContext) -> Outcome:
    ctx.listing("tools/list", "tools")
    while len(ctx.tool_listings) < 2:
        if ctx.list_tools_again().error is not None:
            return failed("a repeated tools/list failed")
    orders = [[str(t.get("name")) for t in listing] for listing in ctx.tool_listings]
    changed = [n for n, order in enumerate(orders[1:], start=2) if order != orders[0]]
    if changed:
        return failed(
            f"listing {changed[0]} orders the tools differently: {orders[changed[0] - 1][:5]} "
            f"instead of {orders[0][:5]}"
        )
    return passed(f"{len(orders)} listings in the same order")


# --- resources -----------------------------------------------------------------------------------
@compliance_check(
    "resources-list",
    Category.RESOURCES,
    "resources/list returns a valid list",
    required=True,
    capability="resources",
    spec="server/resources#listing-resources",
    why="A resource server is browsed through resources/list.",
    fix="Answer resources/list with {resources: [...], nextCursor?}.",
)
def check_resources_list(ctx: ComplianceContext) -> Outcome:
    listing = ctx.listing("resources/list", "resources")
    errors = _schema_errors(ctx, "resources/list")
    if errors:
        return failed(f"resources/list result does not match ListResourcesResult: {errors[0]}")
    return _list_outcome(listing, "resources/list")


@compliance_check(
    "resources-read",
    Category.RESOURCES,
    "resources/read returns contents",
    capability="resources",
    stateless_required=True,
    spec="server/resources#reading-resources",
    why="Clients read a listed resource by its uri and expect contents with uri and text or blob.",
    fix="Answer resources/read with {contents: [{uri, mimeType?, text | blob}]}.",
)
def check_resources_read(ctx: ComplianceContext) -> Outcome:
    resources = [r for r in ctx.listing("resources/list", "resources").items if isinstance(r.get("uri"), str)]
    if not resources:
        return skipped("no listed resource with a uri to read")
    uri = resources[0]["uri"]
    response = ctx.request("resources/read", {"uri": uri})
    if response is None:
        return failed(f"no answer to resources/read {uri}")
    if is_error(response):
        return failed(f"resources/read of the listed {uri} failed with {describe(response)}")
    contents = (response.get("result") or {}).get("contents")
    if not isinstance(contents, list) or not contents:
        return failed(f"resources/read {uri} returned no contents")
    bad = [c for c in contents if not isinstance(c, dict) or "uri" not in c or not ({"text", "blob"} & set(c))]
    if bad:
        return failed(f"{len(bad)} content item(s) lack uri or text/blob")
    return passed(f"read {uri}: {len(contents)} content item(s)")


@compliance_check(
    "resources-templates",
    Category.RESOURCES,
    "resources/templates/list works or is not found",
    capability="resources",
    spec="server/resources#resource-templates",
    why="Clients ask for templates; a server without them must say so with -32601 or an empty list.",
    fix="Answer resources/templates/list with {resourceTemplates: [...]} (or -32601).",
)
def check_resources_templates(ctx: ComplianceContext) -> Outcome:
    listing = ctx.listing("resources/templates/list", "resourceTemplates")
    if listing.error is not None:
        if listing.error.get("code") == METHOD_NOT_FOUND:
            return passed(f"templates not supported ({METHOD_NOT_FOUND})")
        return failed(f"resources/templates/list failed with {describe({'error': listing.error})}")
    return passed(f"{len(listing.items)} templates")


@compliance_check(
    "resources-pagination",
    Category.RESOURCES,
    "resources/list pagination works",
    capability="resources",
    spec="server/utilities/pagination",
    why="Large resource sets are paged; a client follows nextCursor until it is absent.",
    fix="Give nextCursor only while there are more pages, and accept it as cursor.",
)
def check_resources_pagination(ctx: ComplianceContext) -> Outcome:
    return _pagination(ctx.listing("resources/list", "resources"), "resources/list")


@compliance_check(
    "resources-subscribe",
    Category.RESOURCES,
    "resources/subscribe and unsubscribe are accepted",
    required=True,
    capability="resources.subscribe",
    revisions=HANDSHAKE,
    spec="server/resources#subscriptions",
    why="A server that declares subscribe must accept subscriptions to its resources.",
    fix="Answer resources/subscribe and resources/unsubscribe with {}, or do not declare subscribe.",
)
def check_resources_subscribe(ctx: ComplianceContext) -> Outcome:
    resources = [r for r in ctx.listing("resources/list", "resources").items if isinstance(r.get("uri"), str)]
    if not resources:
        return skipped("no listed resource to subscribe to")
    uri = resources[0]["uri"]
    for method in ("resources/subscribe", "resources/unsubscribe"):
        response = ctx.request(method, {"uri": uri})
        if response is None or is_error(response):
            return failed(f"{method} {uri} answered with {describe(response)}")
    return passed(f"subscribed to and unsubscribed from {uri}")


# --- resources, 2026-07-28 only: caching hints, -32602 for an unknown one ------------------------
@compliance_check(
    "resources-list-caching",
    Category.RESOURCES,
    "resources/list carries caching hints",
    required=True,
    capability="resources",
    revisions=STATELESS,
    spec="server/resources#listing-resources",
    why="Clients cache the resource list for ttlMs.",
    fix="Add ttlMs and cacheScope to every resources/list result.",
)
def check_resources_list_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "resources/list", "resources")


@compliance_check(
    "resources-templates-caching",
    Category.RESOURCES,
    "resources/templates/list carries caching hints",
    capability="resources",
    revisions=STATELESS,
    spec="server/resources#resource-templates",
    why="Clients cache the template list for ttlMs.",
    fix="Add ttlMs and cacheScope to every resources/templates/list result.",
)
def check_templates_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "resources/templates/list", "resourceTemplates")


@compliance_check(
    "resources-read-caching",
    Category.RESOURCES,
    "resources/read carries caching hints",
    required=True,
    capability="resources",
    revisions=STATELESS,
    spec="server/resources#reading-resources",
    why="Clients cache resource contents for ttlMs instead of reading them again.",
    fix="Add ttlMs and cacheScope to every resources/read result.",
)
def check_read_caching(ctx: ComplianceContext) -> Outcome:
    if not ctx.results_for("resources/read"):
        uris = [r["uri"] for r in ctx.listing("resources/list", "resources").items if isinstance(r.get("uri"), str)]
        if not uris:
            return skipped("no listed resource to read")
        ctx.request("resources/read", {"uri": uris[0]})
    return _caching_outcome(ctx, "resources/read")


@compliance_check(
    "resources-not-found",
    Category.RESOURCES,
    "A nonexistent resource is answered with -32602",
    required=True,
    capability="resources",
    revisions=STATELESS,
    spec="server/resources#error-handling",
    why="2026-07-28 reports an unknown resource as invalid params (-32602); the old -32002 is retired.",
    fix="Answer resources/read of an unknown uri with -32602.",
)
def check_resource_not_found(ctx: ComplianceContext) -> Outcome:
    uri = "hookconf://no-such-resource/7f3a"
    response = ctx.request("resources/read", {"uri": uri})
    code = error_code(response)
    if code == INVALID_PARAMS:
        return passed(f"{INVALID_PARAMS} for an unknown resource")
    if response is not None and not is_error(response):
        return failed(f"resources/read of {uri} was answered with a result")
    retired = f" ({RETIRED_CODES[code]}, retired)" if code in RETIRED_CODES else ""
    return failed(f"resources/read of {uri} got {describe(response)}{retired}, expected {INVALID_PARAMS}")


# --- prompts -------------------------------------------------------------------------------------
@compliance_check(
    "prompts-list",
    Category.PROMPTS,
    "prompts/list returns a valid list",
    required=True,
    capability="prompts",
    spec="server/prompts#listing-prompts",
    why="A prompt server offers its prompts through prompts/list.",
    fix="Answer prompts/list with {prompts: [...], nextCursor?}.",
)
def check_prompts_list(ctx: ComplianceContext) -> Outcome:
    listing = ctx.listing("prompts/list", "prompts")
    errors = _schema_errors(ctx, "prompts/list")
    if errors:
        return failed(f"prompts/list result does not match ListPromptsResult: {errors[0]}")
    return _list_outcome(listing, "prompts/list")


@compliance_check(
    "prompts-get",
    Category.PROMPTS,
    "prompts/get returns messages",
    capability="prompts",
    stateless_required=True,
    spec="server/prompts#getting-a-prompt",
    why="Clients insert a prompt's messages into the conversation; each needs a role and content.",
    fix="Answer prompts/get with {messages: [{role, content}], description?}.",
)
def check_prompts_get(ctx: ComplianceContext) -> Outcome:
    prompts = [p for p in ctx.listing("prompts/list", "prompts").items if isinstance(p.get("name"), str)]
    if not prompts:
        return skipped("no listed prompt with a name")
    prompt = prompts[0]
    arguments = {
        a["name"]: "hookconf"
        for a in prompt.get("arguments") or []
        if isinstance(a, dict) and a.get("required") and isinstance(a.get("name"), str)
    }
    response = ctx.request("prompts/get", {"name": prompt["name"], "arguments": arguments})
    if response is None:
        return failed(f"no answer to prompts/get {prompt['name']}")
    if is_error(response):
        return failed(f"prompts/get {prompt['name']} failed with {describe(response)}")
    messages = (response.get("result") or {}).get("messages")
    if not isinstance(messages, list):
        return failed("the result has no messages array")
    bad = [
        m
        for m in messages
        if not isinstance(m, dict)
        or m.get("role") not in ("user", "assistant")
        or not isinstance(m.get("content"), dict)
    ]
    if bad:
        return failed(f"{len(bad)} message(s) lack a user/assistant role or a content object")
    return passed(f"{prompt['name']}: {len(messages)} message(s)")


@compliance_check(
    "prompts-pagination",
    Category.PROMPTS,
    "prompts/list pagination works",
    capability="prompts",
    spec="server/utilities/pagination",
    why="Large prompt sets are paged; a client follows nextCursor until it is absent.",
    fix="Give nextCursor only while there are more pages, and accept it as cursor.",
)
def check_prompts_pagination(ctx: ComplianceContext) -> Outcome:
    return _pagination(ctx.listing("prompts/list", "prompts"), "prompts/list")


# --- prompts, 2026-07-28 only: caching hints -----------------------------------------------------
@compliance_check(
    "prompts-list-caching",
    Category.PROMPTS,
    "prompts/list carries caching hints",
    required=True,
    capability="prompts",
    revisions=STATELESS,
    spec="server/prompts#listing-prompts",
    why="Clients cache the prompt list for ttlMs.",
    fix="Add ttlMs and cacheScope to every prompts/list result.",
)
def check_prompts_list_caching(ctx: ComplianceContext) -> Outcome:
    return _listing_caching(ctx, "prompts/list", "prompts")
