"""An MCP client over a wire: handshake, tool listing and calls, with every result validated."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hookconf import HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION, STATELESS_REVISIONS
from hookconf.config import ServerConfig
from hookconf.errors import (
    ConnectionFailedError,
    HookconfError,
    NoUsableAnswerError,
    RequestTimeoutError,
    ServerStartError,
    TransportClosedError,
)
from hookconf.protocol import (
    INPUT_REQUIRED,
    INPUT_REQUIRED_MODEL,
    META,
    RESULT_MODELS,
    SERVER_INFO_KEY,
    STATELESS_REVISION,
    initialize_params,
    stateless_meta,
)
from hookconf.validation import models_for, validation_errors
from hookconf.wire.http import HttpTransport, wait_until_listening
from hookconf.wire.process import ResourceFigures, ServerProcess, start_server
from hookconf.wire.recording import Recording
from hookconf.wire.stdio import StdioTransport
from hookconf.wire.transport import JsonObject, Transport

MAX_LIST_PAGES = 100


@dataclass
class Listing:
    items: list[JsonObject] = field(default_factory=list)
    pages: int = 0
    error: JsonObject | None = None


@dataclass(frozen=True)
class SchemaViolation:
    """A server message that does not match the MCP schema of the negotiated revision."""

    method: str
    model: str
    errors: list[str]
    tool: str | None = None


@dataclass(frozen=True)
class CallOutcome:
    """One tools/call: the result, or the JSON-RPC error, or a timeout, with its round-trip time."""

    duration_ms: float
    result: JsonObject | None = None
    error: JsonObject | None = None
    timed_out: bool = False

    @property
    def failed(self) -> bool:
        """The call produced no usable output: a JSON-RPC error, a timeout, or isError."""
        return self.result is None or bool(self.result.get("isError"))

    def describe_failure(self) -> str:
        if self.timed_out:
            return "no answer within the timeout"
        if self.error is not None:
            return f"JSON-RPC error {self.error.get('code')}: {self.error.get('message')}"
        return "result has isError: true" + _first_text(self.result)


def _first_text(result: JsonObject | None) -> str:
    for block in (result or {}).get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            return f" ({str(block.get('text'))[:120]})"
    return ""


def is_discover_result(response: Any) -> bool:
    result = response.get("result") if isinstance(response, dict) else None
    return isinstance(result, dict) and isinstance(result.get("supportedVersions"), list)


def result_meta(result: JsonObject) -> JsonObject:
    meta = result.get(META)
    return meta if isinstance(meta, dict) else {}


@dataclass
class ServerIdentity:
    protocol_version: str
    server_info: JsonObject
    capabilities: JsonObject
    instructions: str | None
    startup_ms: float
    initialize_result: JsonObject = field(default_factory=dict)
    # stateless era: the whole answer to server/discover (None when there was none)
    discover_response: JsonObject | None = None

    @property
    def stateless(self) -> bool:
        return self.protocol_version in STATELESS_REVISIONS

    @property
    def discover_result(self) -> JsonObject:
        """The DiscoverResult, or {} when server/discover was not served."""
        if is_discover_result(self.discover_response):
            return dict((self.discover_response or {})["result"])
        return {}

    @property
    def handshake_result(self) -> JsonObject:
        """What the server said about itself: the InitializeResult or the DiscoverResult."""
        return self.discover_result if self.stateless else self.initialize_result


@dataclass
class McpSession:
    transport: Transport
    timeout_s: float
    process: ServerProcess | None
    identity: ServerIdentity | None = None
    violations: list[SchemaViolation] = field(default_factory=list)
    calls_by_tool: Counter[str] = field(default_factory=Counter)
    tool_listings: list[list[JsonObject]] = field(default_factory=list)  # every complete tools/list, in order
    warnings: list[str] = field(default_factory=list)  # for the report: what the audit worked around
    _models: Any = None

    # --- handshake -------------------------------------------------------------------------------
    def initialize(self, offer: str = LATEST_HANDSHAKE_REVISION) -> ServerIdentity:
        started = self.process.started_at if self.process else time.monotonic()
        params = initialize_params(offer)
        # Importing a revision's models takes a few hundred ms: do it while the server boots.
        preload = threading.Thread(target=models_for, args=(offer,), name="hookconf-models", daemon=True)
        preload.start()
        response = self._request_or_fail("initialize", params)
        startup_ms = (time.monotonic() - started) * 1000
        preload.join()
        if "error" in response:
            raise ServerStartError(f"server refused initialize: {_error_text(response['error'])}")
        result = _object(response.get("result"))
        version = self._graded_version(result.get("protocolVersion"), offer)
        self._load_models(version)
        self._validate("initialize", RESULT_MODELS["initialize"], result)
        self.transport.mirror_protocol_version(version)
        self._notify_or_fail("notifications/initialized")
        instructions = result.get("instructions")
        self.identity = ServerIdentity(
            protocol_version=version,
            server_info=_object(result.get("serverInfo")),
            capabilities=_object(result.get("capabilities")),
            instructions=instructions if isinstance(instructions, str) else None,
            startup_ms=round(startup_ms, 1),
            initialize_result=result,
        )
        return self.identity

    def _graded_version(self, negotiated: Any, offer: str) -> str:
        """The revision the session is graded by: the negotiated one, or, when the server answered with one that
        is no handshake revision, the one hookconf offered (lifecycle-proto-version fails on the answer)."""
        if isinstance(negotiated, str) and negotiated in HANDSHAKE_REVISIONS:
            return negotiated
        self.warnings.append(
            f"The server answered initialize with protocolVersion {json.dumps(negotiated)[:80]}, which is no "
            f"revision of the handshake era ({', '.join(HANDSHAKE_REVISIONS)}); graded as {offer}, the "
            "revision hookconf offered."
        )
        return offer

    def _notify_or_fail(self, method: str) -> None:
        try:
            self.transport.notify(method)
        except TransportClosedError as exc:
            raise ServerStartError(self._startup_failure(method, exc)) from None

    def discover(self, answered: JsonObject | None = None) -> ServerIdentity:
        """Enter the stateless era: every later request carries `_meta`; server/discover says who the server is.

        `answered` is the era probe's answer, so it is not asked twice ({} when the probe got none).
        A server that does not serve server/discover still gets an identity, with no capabilities: a run
        pinned to 2026-07-28 grades such a server rather than stopping.
        """
        started = self.process.started_at if self.process else time.monotonic()
        preload = threading.Thread(target=models_for, args=(STATELESS_REVISION,), name="hookconf-models", daemon=True)
        preload.start()
        self.transport.meta = stateless_meta()
        self.transport.mirror_protocol_version(STATELESS_REVISION)
        response = answered if answered is not None else self._setup_discover()
        startup_ms = (time.monotonic() - started) * 1000
        preload.join()
        self._load_models(STATELESS_REVISION)
        result = response.get("result") if is_discover_result(response) else None
        if result is not None:
            self._validate("server/discover", RESULT_MODELS["server/discover"], result)
        result = result or {}
        instructions = result.get("instructions")
        self.identity = ServerIdentity(
            protocol_version=STATELESS_REVISION,
            server_info=_object(result_meta(result).get(SERVER_INFO_KEY)),
            capabilities=_object(result.get("capabilities")),
            instructions=instructions if isinstance(instructions, str) else None,
            startup_ms=round(startup_ms, 1),
            discover_response=response,
        )
        return self.identity

    def _setup_discover(self) -> JsonObject:
        """server/discover, sent once more after an HTTP 429: a rate limiter may count the era probe just
        before it, and every rule that reads the DiscoverResult judges the answer this settles on."""
        response = self._request_or_fail("server/discover", {})
        if self.transport.rate_limited():
            response = self._request_or_fail("server/discover", {})
        return response

    def connect_as(self, revision: str) -> ServerIdentity:
        """Start talking in the era of `revision`: server/discover for 2026-07-28, else initialize offering it."""
        return self.discover() if revision in STATELESS_REVISIONS else self.initialize(offer=revision)

    def _request_or_fail(self, method: str, params: JsonObject) -> JsonObject:
        try:
            return self.transport.request(method, params, self.timeout_s)
        except (RequestTimeoutError, TransportClosedError) as exc:
            raise ServerStartError(self._startup_failure(method, exc)) from None

    def _startup_failure(self, method: str, exc: HookconfError) -> str:
        message = f"server did not answer {method}: {exc}"
        if isinstance(exc, ConnectionFailedError):
            message = f"{exc}; the server cannot be audited"
        elif isinstance(exc, NoUsableAnswerError):
            message = f"server gave no usable answer: {exc}"
        if self.process is not None:
            # The pipe breaks a moment before the exit status is known.
            code = self.process.exit_code(wait_s=1.0 if self.transport.closed_reason else 0.0)
            if code is not None:
                message = f"server exited with code {code} before answering {method}"
            tail = self.process.stderr_tail()
            message += f"\nits stderr ends with:\n{tail}" if tail else "\n(it wrote nothing to stderr)"
        return message

    # --- tools -----------------------------------------------------------------------------------
    def list_tools(self) -> list[JsonObject]:
        listing = self.list_all("tools/list", "tools")
        if listing.error is not None:
            raise ServerStartError(f"tools/list failed: {_error_text(listing.error)}")
        return listing.items

    def list_all(self, method: str, key: str) -> Listing:
        """Every page of a paginated list; validated page by page against the revision's model."""
        listing = Listing()
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            response = self._request_or_fail(method, {"cursor": cursor} if cursor else {})
            if "error" in response:
                listing.error = response["error"]
                break
            result = _object(response.get("result"))
            listing.pages += 1
            self._validate(method, RESULT_MODELS[method], result)
            items = result.get(key)
            if isinstance(items, list):
                listing.items.extend(item for item in items if isinstance(item, dict))
            cursor = result.get("nextCursor")
            if not cursor:
                break
        if method == "tools/list" and listing.error is None:
            self.tool_listings.append(list(listing.items))
        return listing

    def request(self, method: str, params: JsonObject | None = None, timeout_s: float | None = None) -> JsonObject:
        """One request; the whole response (result or error). Timeouts and a lost server raise."""
        return self.transport.request(method, params, timeout_s or self.timeout_s)

    def call_tool(self, name: str, arguments: JsonObject, timeout_s: float | None = None) -> CallOutcome:
        started = time.monotonic()
        self.calls_by_tool[name] += 1
        params = {"name": name, "arguments": arguments}
        request_id = self.transport.next_id()
        message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        try:
            response = self.transport.exchange(message, timeout_s or self.timeout_s)
        except NoUsableAnswerError as exc:
            unusable = {"code": None, "message": str(exc)}
            return CallOutcome(duration_ms=(time.monotonic() - started) * 1000, error=unusable)
        except RequestTimeoutError:
            self._cancel(request_id)
            return CallOutcome(duration_ms=(time.monotonic() - started) * 1000, timed_out=True)
        except TransportClosedError as exc:
            lost = {"code": None, "message": f"connection lost: {exc}"}
            return CallOutcome(duration_ms=(time.monotonic() - started) * 1000, error=lost)
        duration_ms = (time.monotonic() - started) * 1000
        if "error" in response:
            error = response["error"]
            return CallOutcome(duration_ms=duration_ms, error=_object(error) or {"code": None, "message": repr(error)})
        result = _object(response.get("result"))
        if result.get("resultType") == INPUT_REQUIRED:
            self._validate("tools/call", INPUT_REQUIRED_MODEL, result, tool=name)
            asked = {
                "code": None,
                "message": "the tool asked for input (resultType input_required); hookconf answers no input requests",
            }
            return CallOutcome(duration_ms=duration_ms, error=asked)
        self._validate("tools/call", RESULT_MODELS["tools/call"], result, tool=name)
        return CallOutcome(duration_ms=duration_ms, result=result)

    def _cancel(self, request_id: int) -> None:
        with contextlib.suppress(TransportClosedError):
            self.transport.notify("notifications/cancelled", {"requestId": request_id, "reason": "timeout"})

    def responsive(self, timeout_s: float | None = None) -> bool:
        """Whether the server still answers a ping (server/discover since 2026-07-28) within the timeout."""
        try:
            self.transport.request(self.transport.keepalive_method, None, timeout_s or self.timeout_s)
        except (RequestTimeoutError, TransportClosedError):
            return False
        return True

    # --- validation ------------------------------------------------------------------------------
    def _load_models(self, version: str) -> None:
        self._models = models_for(version)

    def _validate(self, method: str, model_name: str, payload: JsonObject, tool: str | None = None) -> None:
        model = getattr(self._models, model_name, None)
        if model is None:
            return  # a result this revision does not define
        errors = validation_errors(model, payload)
        if errors:
            self.violations.append(SchemaViolation(method, model_name, list(errors), tool))

    def close(self) -> None:
        self.transport.close()

    def close_in_background(self) -> threading.Thread:
        """Close without waiting: a server may take a while to exit; join the thread before reporting."""
        closing = threading.Thread(target=self.close, name="hookconf-close", daemon=True)
        closing.start()
        return closing

    def resource_figures(self) -> ResourceFigures | None:
        if self.process is None:
            return None
        return self.process.figures(self.identity.startup_ms if self.identity else None)

    def server_alive(self) -> bool:
        return self.transport.closed_reason is None


def _object(value: Any) -> JsonObject:
    """A JSON object the server sent, or {} when it sent something else there."""
    return dict(value) if isinstance(value, dict) else {}


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"JSON-RPC error {error.get('code')}: {error.get('message')}"
    return repr(error)


def open_session(
    server: ServerConfig, timeout_s: float, start_process: bool = True, process: ServerProcess | None = None
) -> McpSession:
    """Start (or reach) the server described by the config; the caller initializes and closes it.

    With `start_process` false an HTTP server that is already running is reached as a new session;
    `process` is one already spawned by wire.process.start_server.
    """
    recording = Recording()
    if process is None and (start_process or server.transport == "stdio"):
        process = start_server(server)
    try:
        transport: Transport
        if server.transport == "stdio":
            assert process is not None  # the config requires a command for stdio
            transport = StdioTransport(process, recording)
        else:
            assert server.url is not None
            if process is not None:
                wait_until_listening(server.url, process, timeout_s)
            transport = HttpTransport(server.url, recording, server.headers, timeout_s, process)
    except BaseException:
        if process is not None:
            process.stop()
        raise
    return McpSession(transport=transport, timeout_s=timeout_s, process=process)
