"""Security: tool definitions, leaks in errors, injection probes judged on evidence, HTTP auth and origin."""

from __future__ import annotations

import ipaddress
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from hookconf import LATEST_HANDSHAKE_REVISION
from hookconf.checks.compliance.answers import describe, error_code, failure_text, is_error, not_evaluable
from hookconf.checks.compliance.catalog import (
    HANDSHAKE,
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
from hookconf.checks.compliance.choice import left_out, service_summary, takes_an_address, text_parameters
from hookconf.checks.compliance.context import ComplianceContext
from hookconf.checks.compliance.errors import UNKNOWN_TOOL
from hookconf.checks.normalize import canonical
from hookconf.protocol import AUTH_PAGE, INTERNAL_ERROR, SECURITY_PAGE, initialize_params
from hookconf.wire.transport import JsonObject

POISONING = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"ignore (all |any )?(previous|prior|above|earlier) (instructions|prompts)",
        r"</?important>",
        r"do not (tell|inform|mention|reveal)\b.{0,30}\buser",
        r"~/\.ssh|\bid_rsa\b|\.aws/credentials|/etc/passwd",
        r"\bsystem prompt\b",
        r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069]",  # zero-width and bidi control characters
    )
]
INSTRUCTION_BEFORE = re.compile(r"\b(call|use|invoke|run|execute|trigger)\b[^.]{0,30}$", re.IGNORECASE)
STACK_TRACE = [
    re.compile(p)
    for p in (
        r"Traceback \(most recent call last\)",
        r'File "[^"]+", line \d+',
        r"\n\s+at [\w.<>$]+ \(.*:\d+:\d+\)",
        r"\bat [\w./-]+\.(js|ts|mjs|cjs):\d+:\d+",
        r"Exception in thread \"",
    )
]
IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
# Twice asyncio's default 64 KiB line limit, which is where many Python servers choke; larger
# probes only measure how slowly a server logs the argument back.
OVERSIZED_BYTES = 128 * 1024
CANARY_POLL_S = 0.02  # how soon the canary notices shutdown (the standard library's default is 0.5 s)
SECURE_SESSION_ID_RULE = Rule(
    "The session ID SHOULD be globally unique and cryptographically secure (e.g., a securely generated UUID, a JWT, "
    "or a cryptographic hash).",
    "MCP basic/transports#session-management, 2025-03-26 to 2025-11-25",
)
MAX_TOOLS_PROBED = 4
MAX_PARAMS_PER_TOOL = 2


# --- tool definitions ------------------------------------------------------------------------------
@compliance_check(
    "security-tool-schema-defined",
    Category.SECURITY,
    "Every tool defines an inputSchema",
    capability="tools",
    spec="server/tools#tool",
    why="Without an inputSchema a client cannot validate what the model sends to the tool.",
    fix="Give every tool an inputSchema (an object schema, even if empty).",
)
def check_schema_defined(ctx: ComplianceContext) -> Outcome:
    missing = [str(t.get("name")) for t in ctx.tools if not isinstance(t.get("inputSchema"), dict)]
    if missing:
        return failed(f"no inputSchema: {', '.join(missing)}")
    return passed(f"{len(ctx.tools)} tools define an inputSchema")


def _texts(tool: JsonObject) -> Iterator[tuple[str, str]]:
    yield "description", str(tool.get("description") or "")
    properties = (tool.get("inputSchema") or {}).get("properties") if isinstance(tool.get("inputSchema"), dict) else {}
    for name, schema in (properties or {}).items():
        if isinstance(schema, dict) and isinstance(schema.get("description"), str):
            yield f"{name}.description", schema["description"]


@compliance_check(
    "security-tool-description-poisoning",
    Category.SECURITY,
    "Tool descriptions carry no hidden instructions",
    capability="tools",
    spec=SECURITY_PAGE,
    why="Descriptions go into the model's context; hidden instructions there steer the model (tool poisoning).",
    fix="Describe what the tool does; never address the model with instructions, secrets or hidden text.",
)
def check_description_poisoning(ctx: ComplianceContext) -> Outcome:
    hits = [
        f"{tool.get('name')}.{where}: {match.group(0)!r}"
        for tool in ctx.tools
        for where, text in _texts(tool)
        for pattern in POISONING
        if (match := pattern.search(text))
    ]
    if hits:
        return failed("; ".join(hits[:5]))
    return passed(f"{len(ctx.tools)} descriptions free of injection patterns")


def _distinctive(name: str) -> bool:
    """A name that cannot be an ordinary word: it has a separator or an inner capital."""
    return bool(re.search(r"[_.-]", name) or re.search(r"[a-z][A-Z]", name))


@compliance_check(
    "security-tool-cross-reference",
    Category.SECURITY,
    "Tools do not direct the model to other tools",
    capability="tools",
    spec=SECURITY_PAGE,
    why="A description that tells the model to call another tool can chain tools behind the user's "
    "back (tool shadowing).",
    fix="Keep each description about its own tool.",
    advice="descriptions that name or direct to other tools; no spec sentence forbids it, and a "
    'deprecation note ("use X instead") reads the same as an attack',
)
def check_cross_reference(ctx: ComplianceContext) -> Outcome:
    names = {str(t.get("name")) for t in ctx.tools}
    instructions: list[str] = []
    mentions: list[str] = []
    for tool in ctx.tools:
        text = str(tool.get("description") or "")
        for other in sorted(n for n in names - {str(tool.get("name"))} if _distinctive(n)):
            for match in re.finditer(rf"(?<![\w.-]){re.escape(other)}(?![\w-])", text):
                quoted = f"{tool.get('name')} -> {other}"
                before = text[: match.start()].rstrip("`'\" ")
                (instructions if INSTRUCTION_BEFORE.search(before) else mentions).append(quoted)
    if instructions:
        return advised(f"descriptions direct the model to other tools: {', '.join(instructions)}")
    if mentions:
        return advised(f"descriptions name other tools: {', '.join(mentions)}")
    return passed("no description names another tool")


@compliance_check(
    "security-tool-rug-pull",
    Category.SECURITY,
    "Tool definitions are stable across listings",
    capability="tools",
    spec=SECURITY_PAGE,
    why="A tool that changes its definition after approval (a rug pull) escapes the user's review.",
    fix="Keep definitions stable within a session; announce real changes with list_changed.",
)
def check_rug_pull(ctx: ComplianceContext) -> Outcome:
    for _ in range(2):
        if (error := ctx.list_tools_again().error) is not None:
            ctx.note_answer({"error": error})
            return failed(f"a repeated tools/list failed with {describe({'error': error})}")
    listings = ctx.tool_listings
    first = {str(t.get("name")): canonical(t) for t in listings[0]}
    for number, later in enumerate(listings[1:], start=2):
        now = {str(t.get("name")): canonical(t) for t in later}
        changed = sorted(n for n in first.keys() | now.keys() if first.get(n) != now.get(n))
        if changed:
            return failed(f"listing {number} differs from the first for: {', '.join(changed)}")
    return passed(f"{len(listings)} listings identical")


# --- leaks in errors -------------------------------------------------------------------------------
def _error_texts(ctx: ComplianceContext) -> list[str]:
    """The messages of JSON-RPC errors and the texts of isError tool results, as plain text."""
    texts = []
    for response in ctx.error_responses():
        error = response["error"]
        data = error.get("data")
        texts.append(f"{error.get('message', '')}\n{data if isinstance(data, str) else json.dumps(data)}")
    for message in ctx.received_messages():
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and result.get("isError") is True:
            texts += [
                str(block.get("text"))
                for block in result.get("content") or []
                if isinstance(block, dict) and block.get("type") == "text"
            ]
    return texts


@compliance_check(
    "security-error-no-stacktrace",
    Category.SECURITY,
    "Errors do not leak stack traces",
    spec=SECURITY_PAGE,
    why="Stack traces reveal paths, versions and code structure to whoever triggers an error.",
    fix="Log traces on the server; send the client a short message.",
    after_all=True,
)
def check_no_stacktrace(ctx: ComplianceContext) -> Outcome:
    texts = _error_texts(ctx)
    if not texts:
        return skipped("no error was received to inspect")
    leaks = [t for t in texts if any(p.search(t) for p in STACK_TRACE)]
    if leaks:
        return failed(f"{len(leaks)} of {len(texts)} errors contain a stack trace, e.g. {leaks[0][:120]}")
    return passed(f"{len(texts)} errors, none with a stack trace")


def _private_addresses(text: str) -> list[str]:
    found = []
    for candidate in IPV4.findall(text):
        try:
            address = ipaddress.ip_address(candidate)
        except ValueError:
            continue
        if (address.is_private or address.is_link_local) and not address.is_loopback:
            found.append(candidate)
    return found


@compliance_check(
    "security-error-no-internal-ip",
    Category.SECURITY,
    "Errors do not leak internal IP addresses",
    spec=SECURITY_PAGE,
    why="Internal addresses in errors map the network behind the server for an attacker.",
    fix="Keep upstream addresses out of client-facing error messages.",
    after_all=True,
)
def check_no_internal_ip(ctx: ComplianceContext) -> Outcome:
    texts = _error_texts(ctx)
    if not texts:
        return skipped("no error was received to inspect")
    leaks = sorted({ip for text in texts for ip in _private_addresses(text)})
    if leaks:
        return failed(f"errors mention internal addresses: {', '.join(leaks)}")
    return passed(f"{len(texts)} errors, no internal addresses")


# --- probes against read-only tools ---------------------------------------------------------------
def _string_params(
    ctx: ComplianceContext,
    tools: list[JsonObject] | None = None,
    wanted: Callable[[JsonObject, str], bool] | None = None,
) -> list[tuple[JsonObject, str]]:
    """(tool, string argument) pairs for a probe, at most MAX_PARAMS_PER_TOOL per tool (those `wanted`, if given)."""
    targets = []
    for tool in (ctx.read_only_tools() if tools is None else tools)[: MAX_TOOLS_PROBED * 4]:
        names = [name for name in text_parameters(tool) if wanted is None or wanted(tool, name)]
        targets += [(tool, name) for name in names[:MAX_PARAMS_PER_TOOL]]
    return targets[: MAX_TOOLS_PROBED * MAX_PARAMS_PER_TOOL]


def _probe_targets(ctx: ComplianceContext, addresses: bool) -> list[tuple[JsonObject, str]]:
    """Where a probe sends its payloads: the string arguments of working tools. A tool whose backend is out of reach
    fails on it whatever the payload, unless the payload replaces the backend: so only the SSRF probe (`addresses`,
    whose payload is the one address the sandbox serves) reaches such a tool, and only through an argument that says
    where the tool connects to."""
    targets = _string_params(ctx, ctx.working_tools())
    if addresses:
        down = [tool for tool in ctx.read_only_tools() if ctx.backend_down(str(tool.get("name")))]
        targets += _string_params(ctx, down, takes_an_address)
    return targets[: MAX_TOOLS_PROBED * MAX_PARAMS_PER_TOOL]


@dataclass
class ProbeTally:
    sent: int = 0
    reached: int = 0  # answered with a tool result (possibly isError), not rejected by validation
    evidence: str | None = None
    tools: list[JsonObject] = field(default_factory=list)  # the tools probed


def _inject(
    ctx: ComplianceContext, payloads: list[str], evidence: re.Pattern[str] | None, seen: threading.Event | None = None
) -> ProbeTally:
    """Send each payload through the string arguments of working tools (see _probe_targets). A tool whose backend is
    out of reach gets the SSRF probe's first payload alone; one that goes out of service during the probe, no more."""
    tally = ProbeTally()
    for tool, param in _probe_targets(ctx, addresses=seen is not None):
        if tool not in tally.tools:
            tally.tools.append(tool)
        for payload in payloads:
            if ctx.backend_down(str(tool["name"])) and (seen is None or payload != payloads[0]):
                break  # out of service now, or from the start and given the first payload already
            response = ctx.call_tool(str(tool["name"]), {**ctx.arguments_for(tool), param: payload})
            tally.sent += 1
            if response is not None and not is_error(response):
                tally.reached += 1
            output = json.dumps(response, ensure_ascii=False) if response is not None else ""
            match = evidence.search(output) if evidence else None
            if match or (seen is not None and seen.is_set()):
                tally.evidence = f"{tool['name']}({param}={payload!r}) -> {match.group(0) if match else 'canary hit'}"
                return tally
    return tally


def _judge_injection(ctx: ComplianceContext, tally: ProbeTally, kind: str) -> Outcome:
    """Evidence (a marker only the payload can produce) fails the check whatever else the tool does. Without
    it, only tools whose call succeeds without the payload count: a tool that fails for every input never let
    the payload reach the code under test."""
    unprobed = [tool for tool in _probed_tools(ctx) if tool not in tally.tools]
    out_of_service = service_summary(ctx, unprobed)
    if tally.sent == 0:
        if out_of_service:
            return not_evaluable(
                f"the {kind} payload", f"none was sent, every tool's backend is out of reach: {out_of_service}"
            )
        return skipped("no read-only tool with a string argument to probe (destructive tools are never probed)")
    reached = f"{tally.reached} of {tally.sent} payloads reached the tool"
    if tally.evidence:
        ctx.rests_on_evidence()
        return failed(f"{kind} executed: {tally.evidence} ({reached})")
    failing = {
        str(tool["name"]): failure for tool in tally.tools if (failure := failure_text(ctx.baseline(tool))) is not None
    }
    if len(failing) == len(tally.tools):
        reasons = [f"{name}: {why}" for name, why in failing.items()] + ([out_of_service] if out_of_service else [])
        return not_evaluable(f"the {kind} payload", "; ".join(reasons))
    evaluated = [str(tool["name"]) for tool in tally.tools if str(tool["name"]) not in failing]
    unevaluable = f"; not evaluable (failing without the payload too): {', '.join(failing)}" if failing else ""
    unevaluable += left_out(ctx, unprobed, "probed")
    return passed(f"no evidence of {kind} in {', '.join(evaluated)} ({reached}{unevaluable})")


def _probed_tools(ctx: ComplianceContext) -> list[JsonObject]:
    """The tools an injection probe would send its payloads through if all of them worked."""
    return list({id(tool): tool for tool, _ in _string_params(ctx)}.values())


@compliance_check(
    "security-command-injection",
    Category.SECURITY,
    "Resists command injection in tool arguments",
    capability="tools",
    spec=SECURITY_PAGE,
    why="A tool that passes arguments to a shell runs whatever the model (or a document) injects.",
    fix="Never build shell command lines from arguments; pass argument vectors without a shell.",
)
def check_command_injection(ctx: ComplianceContext) -> Outcome:
    # The marker is computed by the shell: its result never appears in the payload itself.
    payloads = [
        "; echo hookconf-cmd-$((6*7))",
        "$(echo hookconf-cmd-$((6*7)))",
        "`echo hookconf-cmd-$((6*7))`",
        "| echo hookconf-cmd-$((6*7))",
    ]
    return _judge_injection(ctx, _inject(ctx, payloads, re.compile(r"hookconf-cmd-42")), "command injection")


@compliance_check(
    "security-sql-injection",
    Category.SECURITY,
    "Resists SQL injection in tool arguments",
    capability="tools",
    spec=SECURITY_PAGE,
    why="A query built by string concatenation lets arguments rewrite it.",
    fix="Use parameterized queries.",
)
def check_sql_injection(ctx: ComplianceContext) -> Outcome:
    payloads = [
        "' UNION SELECT 'hookconf-sql-'||(6*7) --",
        '" UNION SELECT "hookconf-sql-"||(6*7) --',
        "') UNION SELECT 'hookconf-sql-'||(6*7) --",
    ]
    return _judge_injection(ctx, _inject(ctx, payloads, re.compile(r"hookconf-sql-42")), "SQL injection")


@compliance_check(
    "security-path-traversal",
    Category.SECURITY,
    "Resists path traversal in tool arguments",
    capability="tools",
    spec=SECURITY_PAGE,
    why="A tool that joins arguments to paths unchecked reads files outside its directory.",
    fix="Resolve paths and refuse any outside the allowed roots.",
)
def check_path_traversal(ctx: ComplianceContext) -> Outcome:
    payloads = ["../../../../../../../../etc/passwd", "/etc/passwd", "....//....//....//....//etc/passwd"]
    return _judge_injection(ctx, _inject(ctx, payloads, re.compile(r"root:[^:\n\\]*:0:0:")), "path traversal")


@compliance_check(
    "security-ssrf-internal",
    Category.SECURITY,
    "Resists SSRF to internal addresses",
    capability="tools",
    spec=SECURITY_PAGE,
    why="A tool that fetches any URL lets a prompt reach services behind the firewall.",
    fix="Allow-list the hosts a tool may fetch; refuse loopback, private and link-local addresses.",
)
def check_ssrf(ctx: ComplianceContext) -> Outcome:
    with canary_server() as (url, hit):
        tally = _inject(ctx, [f"{url}/hookconf-ssrf", f"{url}/hookconf-ssrf?via=redirect"], None, hit)
        if tally.evidence is None and hit.is_set():
            tally.evidence = "the canary on 127.0.0.1 was fetched"
    return _judge_injection(ctx, tally, "SSRF")


@contextmanager
def canary_server() -> Iterator[tuple[str, threading.Event]]:
    """A one-endpoint HTTP server on 127.0.0.1; the event is set when anything fetches it."""
    hit = threading.Event()

    class Canary(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hit.set()
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"hookconf canary")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Canary)
    thread = threading.Thread(target=server.serve_forever, args=(CANARY_POLL_S,), name="hookconf-canary", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hit
    finally:
        server.shutdown()
        server.server_close()


@compliance_check(
    "security-oversized-input",
    Category.SECURITY,
    "Survives an oversized input",
    spec=SECURITY_PAGE,
    why="One huge argument must not take the server down for every client.",
    fix="Bound input sizes and answer oversized ones with an error.",
)
def check_oversized_input(ctx: ComplianceContext) -> Outcome:
    # Survival needs an answer, not a working call: a tool whose backend is out of reach does when no other has a
    # text argument (its error answer comes after the argument was read), but it is slow to fail, so it comes last.
    targets = _string_params(ctx, ctx.working_tools()) or _string_params(ctx)
    big = "x" * OVERSIZED_BYTES
    fallback = ""
    if targets:
        tool, param = targets[0]
        name, usual = str(tool["name"]), ctx.arguments_for(tool)
        arguments = {**usual, param: big}
        if ctx.backend_down(name):
            fallback = f" (every read-only tool with a text argument is out of service; {ctx.service_note([tool])})"
    else:
        name, usual, arguments = UNKNOWN_TOOL, {}, {"payload": big}
    # The verdict is about survival, so the baseline must have been answered; an error answer is fine.
    baseline = ctx.call_once(name, usual)
    response = ctx.call_tool(name, arguments)
    if not ctx.still_serving():
        if baseline is None:
            return not_evaluable("the oversized input", f"{name}: no answer")
        return failed(
            f"the server stopped serving after a {OVERSIZED_BYTES // 1024} KiB argument to {name} "
            f"(it answered the same call without it: {describe(baseline)})"
        )
    answered = "no answer" if response is None else ("an error" if is_error(response) else "a result")
    return passed(f"a {OVERSIZED_BYTES // 1024} KiB argument to {name} got {answered}; still serving{fallback}")


def _crashed_on(response: JsonObject | None) -> bool:
    """No answer, or -32603: the tool failed instead of ignoring or rejecting what it was given."""
    return response is None or error_code(response) == INTERNAL_ERROR


def _answer_kind(response: JsonObject | None) -> str:
    if is_error(response):
        return "rejected"
    return "answered with isError: true" if failure_text(response) is not None else "served"


@compliance_check(
    "security-extra-params",
    Category.SECURITY,
    "Rejects or ignores unknown tool arguments",
    capability="tools",
    spec="server/tools#calling-tools",
    why="Unexpected arguments must be ignored or rejected, never crash the tool.",
    fix="Validate arguments; ignore or reject the ones the schema does not name.",
)
def check_extra_params(ctx: ComplianceContext) -> Outcome:
    # An answer without a crash passes, so a tool out of service still can; one of them is enough.
    tools = ctx.working_tools()[:MAX_TOOLS_PROBED] or ctx.read_only_tools()[:1]
    if not tools:
        return skipped("no read-only tool to call")
    unevaluable: list[str] = []
    for tool in tools:
        name = str(tool["name"])
        response = ctx.call_tool(name, {**ctx.arguments_for(tool), "hookconf_extra_param": "x"})
        if not _crashed_on(response):
            return passed(f"{name} with an extra argument: {_answer_kind(response)}")
        failure = failure_text(ctx.baseline(tool))
        if failure is None:
            what = "no answer" if response is None else str(INTERNAL_ERROR)
            return failed(f"{name} failed with {what} on an extra argument; without it the same call succeeds")
        unevaluable.append(f"{name}: {failure}")
        ctx.backend_errors.clear()  # settled as not evaluable: its errors say nothing about the next tool
    return not_evaluable("the extra argument", "; ".join(unevaluable))


# --- HTTP: origin, CORS, sessions, auth --------------------------------------------------------------
def _ping_body(request_id: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"})


@compliance_check(
    "security-origin-validation",
    Category.SECURITY,
    "Validates the Origin header",
    transport="http",
    spec="basic/transports#security-warning",
    why="Without Origin validation a web page can reach a local server through DNS rebinding.",
    fix="Answer requests whose Origin is not yours with 403.",
)
def check_origin(ctx: ComplianceContext) -> Outcome:
    reply = ctx.http.raw_request(
        "POST", body=ctx.keepalive_body("hookconf-origin-1"), headers={"Origin": "http://evil.example"}
    )
    if reply.status == 403:
        return passed("a foreign Origin was refused with 403")
    if 400 <= reply.status < 500:
        return passed(f"a foreign Origin was refused with {reply.status}")
    return failed(f"a request with Origin http://evil.example was answered {reply.status}")


@compliance_check(
    "security-cors-headers",
    Category.SECURITY,
    "CORS does not admit every origin",
    transport="http",
    spec="basic/transports#security-warning",
    why="Access-Control-Allow-Origin: * lets any web page read the server's answers.",
    fix="Send CORS headers only for origins you trust, never *.",
    advice="a CORS grant to a foreign origin; the spec sets no rule for CORS (the Origin MUST is "
    "security-origin-validation's)",
)
def check_cors(ctx: ComplianceContext) -> Outcome:
    reply = ctx.http.raw_request(
        "OPTIONS",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST", "Content-Type": ""},
    )
    allowed = reply.headers.get("access-control-allow-origin")
    if allowed in ("*", "http://evil.example"):
        return advised(f"a preflight from http://evil.example was allowed (Access-Control-Allow-Origin: {allowed})")
    return passed(f"no CORS grant for a foreign origin (status {reply.status})")


@compliance_check(
    "security-session-entropy",
    Category.SECURITY,
    "Session ids are long and random",
    transport="http",
    revisions=HANDSHAKE,
    spec="basic/transports#session-management",
    why="Guessable session ids let one client take over another's session.",
    fix="Use a cryptographically random id of at least 128 bits (e.g. a UUID4 or 32 hex digits).",
    should=SECURE_SESSION_ID_RULE,
)
def check_session_entropy(ctx: ComplianceContext) -> Outcome:
    session_id = ctx.http.session_id
    if not session_id:
        return skipped("the server issued no session id (stateless)")
    if not all(0x21 <= ord(c) <= 0x7E for c in session_id):
        # a MUST: "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)."
        return failed(
            "the session id contains characters outside visible ASCII (0x21 to 0x7E), which the spec requires (MUST)"
        )
    # one id shows how short or uniform it is, not how it was made: the SHOULD, not the best-practice MUST of
    # non-deterministic ids, which only a sequence of ids could show broken
    if len(session_id) < 16 or session_id.isdigit() or len(set(session_id)) < 8:
        return warned(f"session id {session_id!r} is short or guessable")
    return passed(f"{len(session_id)}-character session id")


def _auth_skip(ctx: ComplianceContext) -> Outcome | None:
    if not ctx.auth_configured:
        return skipped("no Authorization header configured (pass --auth); MCP does not require auth")
    return None


def _initialize_body(ctx: ComplianceContext, request_id: str) -> str:
    """An initialize (server/discover since 2026-07-28) needs no session, so the answer to it can only be
    about the credential."""
    if ctx.stateless:
        return ctx.keepalive_body(request_id)
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "initialize",
            "params": initialize_params(LATEST_HANDSHAKE_REVISION),
        }
    )


def _without_auth(ctx: ComplianceContext, session: bool = False, **kwargs: Any) -> Any:
    body = _ping_body("hookconf-noauth-1") if session else _initialize_body(ctx, "hookconf-noauth-1")
    return ctx.http.raw_request("POST", body=body, headers={"Authorization": ""}, session=session, **kwargs)


@compliance_check(
    "security-auth-required",
    Category.SECURITY,
    "Rejects unauthenticated requests",
    transport="http",
    spec=AUTH_PAGE,
    why="A server that takes credentials must not serve requests without them.",
    fix="Answer requests without a valid token with 401.",
)
def check_auth_required(ctx: ComplianceContext) -> Outcome:
    if (skip := _auth_skip(ctx)) is not None:
        return skip
    reply = _without_auth(ctx, session=False)
    return (
        passed("401 without credentials")
        if reply.status == 401
        else failed(f"a request without Authorization was answered {reply.status}")
    )


@compliance_check(
    "security-www-authenticate",
    Category.SECURITY,
    "401 answers carry WWW-Authenticate",
    transport="http",
    spec=f"{AUTH_PAGE}#authorization-server-location",
    why="WWW-Authenticate (with resource_metadata) is how a client finds where to get a token.",
    fix='Send WWW-Authenticate: Bearer resource_metadata="..." with every 401.',
)
def check_www_authenticate(ctx: ComplianceContext) -> Outcome:
    if (skip := _auth_skip(ctx)) is not None:
        return skip
    reply = _without_auth(ctx, session=False)
    if reply.status != 401:
        return skipped(f"no 401 to inspect (status {reply.status}; see security-auth-required)")
    header = reply.headers.get("www-authenticate")
    if not header:
        return failed("the 401 has no WWW-Authenticate header")
    return passed(f"WWW-Authenticate: {header[:80]}")


@compliance_check(
    "security-auth-malformed",
    Category.SECURITY,
    "Rejects malformed credentials",
    transport="http",
    spec=AUTH_PAGE,
    why="A server must not accept a token it cannot validate.",
    fix="Validate every token; answer invalid ones with 401.",
)
def check_auth_malformed(ctx: ComplianceContext) -> Outcome:
    if (skip := _auth_skip(ctx)) is not None:
        return skip
    reply = ctx.http.raw_request(
        "POST",
        body=_initialize_body(ctx, "hookconf-badauth-1"),
        session=False,
        headers={"Authorization": "Bearer hookconf-not-a-token"},
    )
    return (
        passed(f"an invalid token was refused ({reply.status})")
        if reply.status in (401, 403)
        else failed(f"an invalid token was answered {reply.status}")
    )


@compliance_check(
    "security-session-not-auth",
    Category.SECURITY,
    "A session id does not replace the credential",
    transport="http",
    revisions=HANDSHAKE,
    spec=AUTH_PAGE,
    why="Session ids are not authentication; each request must carry the token.",
    fix="Check the Authorization header on every request, with or without a session.",
)
def check_session_not_auth(ctx: ComplianceContext) -> Outcome:
    if (skip := _auth_skip(ctx)) is not None:
        return skip
    if not ctx.http.session_id:
        return skipped("the server issued no session id")
    reply = _without_auth(ctx, session=True)
    return (
        passed("401 with a session id but no token")
        if reply.status == 401
        else failed(f"a request with a session id but no token was answered {reply.status}")
    )


@compliance_check(
    "security-token-in-uri",
    Category.SECURITY,
    "Rejects tokens in the query string",
    transport="http",
    spec=f"{AUTH_PAGE}#access-token-usage",
    why="Tokens in URLs end up in logs and browser histories; the spec forbids them.",
    fix="Accept tokens only in the Authorization header.",
)
def check_token_in_uri(ctx: ComplianceContext) -> Outcome:
    if (skip := _auth_skip(ctx)) is not None:
        return skip
    header = next((v for k, v in ctx.config.server.headers.items() if k.lower() == "authorization"), "")
    token = header.split(" ", 1)[-1]
    reply = _without_auth(ctx, session=False, url=f"{ctx.http.url}?access_token={token}")
    return (
        passed("a token in the query string was refused")
        if reply.status == 401
        else failed(f"a token in the query string was accepted ({reply.status})")
    )


@compliance_check(
    "security-oauth-metadata",
    Category.SECURITY,
    "Protected Resource Metadata is served (RFC 9728)",
    transport="http",
    spec=f"{AUTH_PAGE}#authorization-server-discovery",
    why="Clients discover the authorization server from /.well-known/oauth-protected-resource.",
    fix="Serve RFC 9728 metadata with resource and authorization_servers.",
)
def check_oauth_metadata(ctx: ComplianceContext) -> Outcome:
    if (skip := _auth_skip(ctx)) is not None:
        return skip
    parts = urlsplit(ctx.http.url)
    base = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource"
    for url in (base + parts.path, base):
        reply = ctx.http.raw_request(
            "GET",
            url=url,
            session=False,
            headers={"Authorization": "", "Content-Type": "", "Accept": "application/json"},
        )
        document = reply.messages[0] if reply.status == 200 and reply.messages else None
        if isinstance(document, dict):
            if document.get("resource") and document.get("authorization_servers"):
                return passed(f"{url}: resource {document['resource']}")
            return failed(f"{url} lacks resource or authorization_servers")
    return failed(f"no Protected Resource Metadata at {base}")


@compliance_check(
    "security-tls-required",
    Category.SECURITY,
    "Remote servers use HTTPS",
    transport="http",
    spec=f"{AUTH_PAGE}#communication-security",
    why="Tokens and data travel in clear text over plain HTTP.",
    fix="Serve remote endpoints over HTTPS only.",
)
def check_tls(ctx: ComplianceContext) -> Outcome:
    parts = urlsplit(ctx.http.url)
    if parts.scheme == "https":
        return passed("HTTPS")
    host = parts.hostname or ""
    if host in ("localhost", "127.0.0.1", "::1"):
        return skipped("a loopback endpoint; TLS is not expected there")
    return failed(f"{ctx.http.url} is plain HTTP")


@compliance_check(
    "security-rate-limiting",
    Category.SECURITY,
    "Rate limiting is enforced",
    transport="http",
    spec=SECURITY_PAGE,
    why="A public endpoint without rate limits can be flooded.",
    fix="Answer excess requests with 429 and Retry-After.",
)
def check_rate_limiting(ctx: ComplianceContext) -> Outcome:
    statuses = [ctx.http.raw_request("POST", body=ctx.keepalive_body(f"hookconf-rate-{i}")).status for i in range(30)]
    if 429 in statuses:
        return passed(f"429 after {statuses.index(429)} requests")
    return skipped("no rate limit met in 30 requests on this endpoint; MCP does not require one")
