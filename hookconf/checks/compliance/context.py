"""What a compliance check sees: what the server declared, its lists, requests and raw sends, fresh sessions,
the recorded messages (a MessageLog) and the probes several checks judge (a ProbeCache). Checks ask the context;
only it and the runner reach the session."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from hookconf import STATELESS_REVISIONS
from hookconf.checks.arguments import generated_arguments
from hookconf.checks.backend import sandbox_note, unreachable_backend
from hookconf.checks.compliance.answers import backend_failure, failure_text
from hookconf.checks.compliance.catalog import Outcome, undecided
from hookconf.checks.compliance.message_log import MessageLog
from hookconf.checks.compliance.probe_cache import Key, ProbeCache
from hookconf.checks.context import is_read_only
from hookconf.config import AuditConfig
from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.protocol import META
from hookconf.session import Listing, McpSession, SchemaViolation, ServerIdentity
from hookconf.session_pool import SessionPool
from hookconf.verdicts import Status
from hookconf.wire.http import HttpReply, HttpTransport
from hookconf.wire.recording import Recording
from hookconf.wire.transport import JsonObject, occupies_server


class HungToolError(Exception):
    """A check asked for a tool that hung earlier: the check does not apply (the hang is reported once)."""

    def __init__(self, tool: str, where: str) -> None:
        super().__init__(f"{tool} hung in {where} and is not called again")
        self.tool = tool


BACKEND_FAILURES_OUT_OF_SERVICE = 2


@dataclass(frozen=True)
class RawAnswer:
    """What came back for a raw message: the JSON-RPC answer (None when silent) and, on HTTP, the reply."""

    response: Any
    still_serving: bool
    http: HttpReply | None = None


def probe_key(name: str) -> Key[RawAnswer]:
    """The answer to the raw probe `name` (ComplianceContext.probe, errors.noting_arrivals)."""
    return Key("probe", name)


def call_key(name: str, arguments: Any) -> Key[JsonObject | None]:
    """The answer to one exact tools/call (ComplianceContext.call_once); None when none came."""
    return Key("call", f"{name}:{json.dumps(arguments, sort_keys=True, default=str)}")


@dataclass
class ComplianceContext:
    config: AuditConfig
    session: McpSession
    revision: str
    auth_configured: bool
    pool: SessionPool = field(kw_only=True)  # the server's other sessions: fresh ones, the spare, replacements
    _lists: dict[str, Listing] = field(default_factory=dict)
    probes: ProbeCache = field(default_factory=ProbeCache)  # probes that several checks read, made once
    warnings: list[str] = field(default_factory=list)  # for the report, e.g. a dual-era server
    # Answers met by the running check that name a backend out of reach (see attributed); reset per check.
    backend_errors: list[str] = field(default_factory=list)
    # Tools whose call got no answer within timeoutMs, and where that happened ("the hook suites", a check id):
    # no check calls them again. Known to the whole audit: the runner adds the ones the hook suites found.
    hung_tools: dict[str, str] = field(default_factory=dict)
    # Tools no call of which can work in this audit, with how they failed: their usual call (the hook suites'
    # series, or a check's) failed naming a backend out of reach, or the hook suites' series failed the same
    # way twice; or two of the checks' calls failed naming such a backend and none succeeded. Checks pick other
    # tools first, and probes that need a working call leave them out. The runner adds the hook suites' ones.
    out_of_service: dict[str, str] = field(default_factory=dict)
    _backend_failures: dict[str, int] = field(default_factory=dict)  # per tool: calls failing at a backend
    _answered: set[str] = field(default_factory=set)  # tools that answered a check's call without failing
    _asking_usual: set[str] = field(default_factory=set)  # tools whose usual call is being made to see if it works
    running: str = ""  # the id of the check running now, which a hang is attributed to
    passed_over: set[str] = field(default_factory=set)  # hung tools left out of the running check's choice

    # --- what the server declared ----------------------------------------------------------------
    @property
    def transport_kind(self) -> str:
        return self.config.server.transport

    @property
    def identity(self) -> ServerIdentity | None:
        """What the server said about itself when the session was set up (None before that)."""
        return self.session.identity

    @property
    def started_by_audit(self) -> bool:
        """Whether hookconf started the server's process (so it can time its start, restart it)."""
        return self.session.process is not None

    @property
    def timeout_s(self) -> float:
        return self.session.timeout_s

    @property
    def capabilities(self) -> JsonObject:
        return self.identity.capabilities if self.identity else {}

    @property
    def stateless(self) -> bool:
        """Graded as 2026-07-28: server/discover, `_meta` on every request, no ping."""
        return self.revision in STATELESS_REVISIONS

    @property
    def handshake_result(self) -> JsonObject:
        """What the server said about itself: its InitializeResult, or its DiscoverResult since 2026-07-28."""
        return self.identity.handshake_result if self.identity else {}

    @property
    def discover_served(self) -> bool:
        """The conformant server/discover was answered with a DiscoverResult: the twin that makes a rejection
        of a malformed request attributable to the malformation."""
        return bool(self.identity and self.identity.discover_result)

    def declared(self, capability: str) -> bool:
        value: Any = self.capabilities
        for part in capability.split("."):
            if not isinstance(value, dict) or part not in value:
                return False
            value = value[part]
        return value is not None and value is not False

    # --- lists, fetched once ---------------------------------------------------------------------
    def listing(self, method: str, key: str) -> Listing:
        if method not in self._lists:
            self._lists[method] = self.session.list_all(method, key)
        listing = self._lists[method]
        if listing.error is not None:
            self.note_answer({"error": listing.error})
        return listing

    def list_tools_again(self) -> Listing:
        """tools/list once more, every page, not cached: each complete list is kept in `tool_listings`."""
        return self.session.list_all("tools/list", "tools")

    @property
    def tool_listings(self) -> list[list[JsonObject]]:
        """Every complete tools/list of the session, in order."""
        return self.session.tool_listings

    def schema_violations(self, method: str) -> list[SchemaViolation]:
        """Where the session's answers to `method` did not match the spec's schema."""
        return [v for v in self.session.violations if v.method == method]

    @property
    def tools(self) -> list[JsonObject]:
        return self.listing("tools/list", "tools").items

    def read_only_tools(self) -> list[JsonObject]:
        """The tools the audit may call: annotated read-only, or opted in by the config; never one that hung.
        Those out of service come last, so that a check picks a tool that works whenever one does; last of all those
        whose backend is out of reach, which are slow to fail and fail whatever the input."""
        allowed = [t for t in self.tools if is_read_only(t) or t.get("name") in self.config.allow_destructive]
        self.passed_over.update(str(t.get("name")) for t in allowed if t.get("name") in self.hung_tools)
        callable_tools = [t for t in allowed if t.get("name") not in self.hung_tools]
        return sorted(
            callable_tools, key=lambda t: (t.get("name") in self.out_of_service, self.backend_down(str(t.get("name"))))
        )

    def working_tools(self) -> list[JsonObject]:
        """The read-only tools whose backend is not known to be out of reach: those a probe that needs a working
        call may use. A tool that failed the same way for another reason still is one: its error may be about the
        input (a file that is not there), which a probe's payload changes."""
        return [t for t in self.read_only_tools() if not self.backend_down(str(t.get("name")))]

    def backend_down(self, name: str) -> bool:
        return unreachable_backend(self.out_of_service.get(name, "")) is not None

    def service_note(self, tools: list[JsonObject]) -> str:
        """How those of these tools whose backend is out of reach failed: "name: failure; ..."."""
        return "; ".join(
            f"{t.get('name')}: {self.out_of_service[str(t.get('name'))]}"
            for t in tools
            if self.backend_down(str(t.get("name")))
        )

    def _listed_tool_names(self) -> set[str]:
        """The names in the tool list fetched so far (none fetched: none; a stuck server is not asked again)."""
        listing = self._lists.get("tools/list")
        return {str(tool.get("name")) for tool in listing.items} if listing is not None else set()

    def hang_note(self) -> str:
        """Why the running check did not call the tools that hung, for a check that had no other tool."""
        return "; ".join(
            f"{name} hung in {self.hung_tools[name]} and is not called again" for name in sorted(self.passed_over)
        )

    def arguments_for(self, tool: JsonObject) -> JsonObject:
        probe = self.config.probe_for(str(tool.get("name")))
        if probe is not None and probe.args is not None:
            return dict(probe.args)
        return generated_arguments(tool.get("inputSchema"))[0]

    # --- requests --------------------------------------------------------------------------------
    def request(self, method: str, params: JsonObject | None = None) -> JsonObject | None:
        """The whole response, or None when the server did not answer in time."""
        try:
            return self.note_answer(self.session.request(method, params))
        except RequestTimeoutError:
            return None

    def call_tool(self, name: str, arguments: Any, meta: JsonObject | None = None) -> JsonObject | None:
        """One call; a tool that gets no answer in time is marked hung, and a hung tool is not called again."""
        if name in self.hung_tools:
            self.passed_over.add(name)
            raise HungToolError(name, self.hung_tools[name])
        params: JsonObject = {"name": name, "arguments": arguments}
        if meta:
            params[META] = meta
        self.session.calls_by_tool[name] += 1
        try:
            return self._note_service(name, self.note_answer(self.session.request("tools/call", params)))
        except RequestTimeoutError:
            if name in self._listed_tool_names():  # an unlisted name is the check's own probe, no tool of the server
                self.hung_tools[name] = self.running
            return None

    def call_once(self, name: str, arguments: Any) -> JsonObject | None:
        """The answer to this exact call, made at most once: an identical earlier call in the recording (a hook
        suite's, or another check's) is reused, and one that got no answer is not made again (a tool that hung
        is not called again). The baseline against which a check blames an input."""
        return self.note_answer(self.probes.get_or_make(call_key(name, arguments), lambda: self._call(name, arguments)))

    def _call(self, name: str, arguments: Any) -> JsonObject | None:
        made, answer = self.log.tool_call_answer(name, arguments)
        if not made:
            answer = self.call_tool(name, arguments)
        backend = backend_failure(answer) if answer is not None else None
        if backend is not None and name not in self._answered and self._is_usual_call(name, arguments):
            self.out_of_service.setdefault(name, backend)
        return answer

    def _is_usual_call(self, name: str, arguments: Any) -> bool:
        tool = next((t for t in self.tools if t.get("name") == name), None)
        return tool is not None and arguments == self.arguments_for(tool)

    def _note_service(self, name: str, response: JsonObject | None) -> JsonObject | None:
        """Count the tool's calls that fail at a backend out of reach; two, while neither a check's call nor its usual
        call succeeded, put it out of service (the payloads of probes differ, the dead backend does not)."""
        if response is None or name not in self._listed_tool_names():
            return response
        backend = backend_failure(response)
        if backend is None:
            if failure_text(response) is None:
                self._answered.add(name)
            return response
        self._backend_failures[name] = self._backend_failures.get(name, 0) + 1
        enough = self._backend_failures[name] >= BACKEND_FAILURES_OUT_OF_SERVICE
        if enough and name not in self._answered and name not in self._asking_usual:
            self._asking_usual.add(name)
            try:
                if not self._usual_call_works(name):
                    self.out_of_service.setdefault(name, backend)
            finally:
                self._asking_usual.discard(name)
        return response

    def _usual_call_works(self, name: str) -> bool:
        """Whether the tool's usual call (a hook suite's or a check's, else made now, once) succeeds: then its
        backend is there, and a failure under a probe's input is the input's doing."""
        tool = next((t for t in self.tools if t.get("name") == name), None)
        if tool is None:
            return False
        answer = self.call_once(name, self.arguments_for(tool))
        return answer is not None and failure_text(answer) is None

    def baseline(self, tool: JsonObject) -> JsonObject | None:
        """The tool called as a client normally would: with its probe's (or generated) arguments."""
        return self.call_once(str(tool.get("name")), self.arguments_for(tool))

    def usual_call_answered(self, name: str) -> bool:
        """Whether the tool answered a call with its usual arguments (a check's own or a hook suite's): then a
        hang under a check's unusual input is the input's doing, not the tool's."""
        tool = next((t for t in self.tools if t.get("name") == name), None)
        if tool is None:
            return False
        arguments = self.arguments_for(tool)
        made = self.probes.get(call_key(name, arguments), None)
        return made is not None or self.log.tool_call_answer(name, arguments)[1] is not None

    def note_answer(self, response: JsonObject | None) -> JsonObject | None:
        """Remember an answer that names an unreachable backend; return the answer."""
        message = backend_failure(response) if response is not None else None
        if message is not None and message not in self.backend_errors:
            self.backend_errors.append(message)
        return response

    def rests_on_evidence(self) -> None:
        """The verdict rests on what an answer showed (a marker, a garbled text), not on an error: backend
        errors met on the way (by other tools) do not make it indeterminate."""
        self.backend_errors.clear()

    def attributed(self, outcome: Outcome) -> Outcome:
        """A FAIL or WARN of a check that met an answer naming an unreachable backend says nothing about the
        server: the sandbox is offline. Indeterminate, with the message."""
        if outcome.status in (Status.FAIL, Status.WARN) and self.backend_errors:
            return undecided(sandbox_note(self.backend_errors[0]))
        return outcome

    @property
    def keepalive_method(self) -> str:
        """ping, or server/discover since 2026-07-28 (ping is gone there)."""
        return self.session.transport.keepalive_method

    def conformant(self, message: JsonObject) -> JsonObject:
        """The message with the era's `_meta` envelope (2026-07-28), so that only its own defect is judged."""
        return self.session.transport.enveloped(message)

    def notify(self, method: str, params: JsonObject | None = None) -> None:
        """A notification on the session, as a client sends one (no answer is awaited)."""
        self.session.transport.notify(method, params)

    def first_stream_message(
        self, message: JsonObject, request_id: str, opened_by: str, first_wait_s: float
    ) -> tuple[int | None, Any]:
        """Send a request that opens a stream: the HTTP status (None on stdio) and the message that opens it
        (see Transport.first_stream_message)."""
        return self.session.transport.first_stream_message(
            json.dumps(message), request_id, self.timeout_s, opened_by=opened_by, first_wait_s=first_wait_s
        )

    def keepalive_body(self, request_id: Any) -> str:
        return json.dumps(self.conformant({"jsonrpc": "2.0", "id": request_id, "method": self.keepalive_method}))

    def still_serving(self, liveness: bool = False) -> bool:
        """Whether the server answers a ping (server/discover since 2026-07-28). With `liveness`, asked right
        after a message that gives the server no reason to be busy, only for the liveness wait (see
        Transport.liveness_ping); otherwise for the whole timeout."""
        transport = self.session.transport
        try:
            if liveness:
                transport.liveness_ping(self.session.timeout_s, "the raw message")
            else:
                self.session.request(self.keepalive_method, None, self.session.timeout_s)
        except (RequestTimeoutError, TransportClosedError):
            return False
        return True

    def send_raw(self, raw: str, expect_id: Any = None, headers: dict[str, str] | None = None) -> RawAnswer:
        """Send bytes an SDK would refuse to send; report the answer and whether the server still serves.

        Whether it still serves is asked with a ping; after a message that runs none of the server's own code
        (every raw message the checks send but a tools/call, resources/read...) a server that leaves the ping
        unanswered for the liveness wait counts as hung, without waiting out timeoutMs.
        Over HTTP `headers` are merged over the usual ones ("" removes one); stdio has none."""
        transport = self.session.transport
        if not transport.one_stream:
            reply = self.http.raw_request("POST", body=raw, headers=headers, timeout_s=self.session.timeout_s)
            # The reply may carry notifications first; the answer is the response (or a batch of them).
            answer = next(
                (m for m in reply.messages if isinstance(m, list) or (isinstance(m, dict) and "method" not in m)), None
            )
            return RawAnswer(answer, self.still_serving(liveness=not occupies_server(raw)), reply)
        received_before = self.log.received_count()
        try:
            answer = transport.send_then_ping(raw, expect_id, self.session.timeout_s)
        except (RequestTimeoutError, TransportClosedError):
            # A server that answered the message and then stopped serving did answer it.
            return RawAnswer(self.log.answer_since(received_before, expect_id), False)
        if answer is None:
            answer = self.log.answer_since(received_before, None)
        return RawAnswer(answer, True)

    def probe(self, key: str, message: Any) -> RawAnswer:
        """A raw probe that several checks judge, sent once."""
        answer = self.probes.get_or_make(probe_key(key), lambda: self._send_probe(message))
        if isinstance(answer.response, dict):
            self.note_answer(answer.response)
        return answer

    def _send_probe(self, message: Any) -> RawAnswer:
        expect_id = message.get("id") if isinstance(message, dict) else None
        if isinstance(message, dict):
            message = self.conformant(message)
        return self.send_json(message, expect_id) if not isinstance(message, str) else self.send_raw(message, expect_id)

    def send_json(self, message: Any, expect_id: Any = None, headers: dict[str, str] | None = None) -> RawAnswer:
        return self.send_raw(json.dumps(message, ensure_ascii=False), expect_id, headers)

    @property
    def http(self) -> HttpTransport:
        return http_transport(self.session)

    def fresh_session(self, recorded: bool = True) -> contextlib.AbstractContextManager[McpSession]:
        """A new process (stdio) or a new HTTP session, not yet initialized; closed afterwards (its server exits
        while the next checks run). Without `recorded` its messages are left out of `recordings`."""
        return self.pool.fresh(recorded)

    # --- the recorded messages -------------------------------------------------------------------
    @property
    def log(self) -> MessageLog:
        """The recordings of this run's era, the current main session's first (it changes when a server is
        replaced)."""
        return MessageLog(self.session.transport.recording, self.pool.recordings)

    def recordings(self) -> list[Recording]:
        return self.log.recordings()

    def all_received(self) -> list[Any]:
        return self.log.all_received()

    def results_for(self, *methods: str) -> list[tuple[str, JsonObject]]:
        return self.log.results_for(*methods)

    def received_messages(self) -> list[Any]:
        return self.log.received_messages()

    def error_responses(self) -> list[JsonObject]:
        return self.log.error_responses()


def http_transport(session: McpSession) -> HttpTransport:
    """The session's transport, for the checks the catalog runs only against HTTP servers (status codes,
    headers, raw POSTs and DELETEs) and for branches taken only where `one_stream` is False."""
    transport = session.transport
    assert isinstance(transport, HttpTransport), "HTTP checks run only against HTTP servers"
    return transport
