"""What a compliance check sees: the session, the server's lists, raw sends, fresh sessions and every recording."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from hookconf import STATELESS_REVISIONS
from hookconf.checks.arguments import generated_arguments
from hookconf.checks.backend import one_line, sandbox_note, unreachable_backend
from hookconf.checks.compliance.catalog import Outcome, undecided
from hookconf.checks.context import is_read_only
from hookconf.config import AuditConfig
from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.protocol import META
from hookconf.session import Listing, McpSession
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


@dataclass
class ComplianceContext:
    config: AuditConfig
    session: McpSession
    revision: str
    auth_configured: bool
    pool: SessionPool = field(kw_only=True)  # the server's other sessions: fresh ones, the spare, replacements
    _lists: dict[str, Listing] = field(default_factory=dict)
    memo: dict[str, Any] = field(default_factory=dict)  # probes that several checks read
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
    def capabilities(self) -> JsonObject:
        return self.session.identity.capabilities if self.session.identity else {}

    @property
    def stateless(self) -> bool:
        """Graded as 2026-07-28: server/discover, `_meta` on every request, no ping."""
        return self.revision in STATELESS_REVISIONS

    @property
    def handshake_result(self) -> JsonObject:
        """What the server said about itself: its InitializeResult, or its DiscoverResult since 2026-07-28."""
        return self.session.identity.handshake_result if self.session.identity else {}

    @property
    def discover_served(self) -> bool:
        """The conformant server/discover was answered with a DiscoverResult: the twin that makes a rejection
        of a malformed request attributable to the malformation."""
        return bool(self.session.identity and self.session.identity.discover_result)

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
        key = f"call:{name}:{json.dumps(arguments, sort_keys=True, default=str)}"
        if key not in self.memo:
            made, answer = self._recorded_call(name, arguments)
            self.memo[key] = answer if made else self.call_tool(name, arguments)
            backend = backend_failure(self.memo[key]) if self.memo[key] is not None else None
            if backend is not None and name not in self._answered and self._is_usual_call(name, arguments):
                self.out_of_service.setdefault(name, backend)
        return self.note_answer(self.memo[key])

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
        memo_key = f"call:{name}:{json.dumps(arguments, sort_keys=True, default=str)}"
        return self.memo.get(memo_key) is not None or self._recorded_call(name, arguments)[1] is not None

    def _recorded_call(self, name: str, arguments: Any) -> tuple[bool, JsonObject | None]:
        """Whether this call was made on the current session, and its answer (None when none came)."""
        sent_ids = {
            entry.message.get("id")
            for entry in self.session.transport.recording.messages()
            if entry.direction == "sent"
            and isinstance(entry.message, dict)
            and entry.message.get("method") == "tools/call"
            and isinstance(entry.message.get("params"), dict)
            and entry.message["params"].get("name") == name
            and entry.message["params"].get("arguments") == arguments
        }
        sent_ids.discard(None)
        answers = [
            item
            for item in self.received_messages()
            if isinstance(item, dict) and "method" not in item and item.get("id") in sent_ids
        ]
        if answers:
            return True, answers[0]
        return bool(sent_ids), None

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
        received_before = len(transport.recording.received())
        try:
            answer = transport.send_then_ping(raw, expect_id, self.session.timeout_s)
        except (RequestTimeoutError, TransportClosedError):
            # A server that answered the message and then stopped serving did answer it.
            return RawAnswer(self._answer_since(received_before, expect_id), False)
        if answer is None:
            answer = self._answer_since(received_before, None)
        return RawAnswer(answer, True)

    def _answer_since(self, start: int, expect_id: Any) -> JsonObject | None:
        """The response received since `start` that carries `expect_id` (when given), else an error that came
        back with id null instead of the request's id: that still is an answer."""
        received = [entry.message for entry in self.session.transport.recording.received()[start:]]
        responses = [m for m in received if isinstance(m, dict) and "method" not in m]
        if expect_id is not None:
            answer = next((m for m in responses if m.get("id") == expect_id), None)
            if answer is not None:
                return answer
        return next((m for m in responses if m.get("id") is None and isinstance(m.get("error"), dict)), None)

    def probe(self, key: str, message: Any) -> RawAnswer:
        """A raw probe that several checks judge, sent once."""
        if key not in self.memo:
            expect_id = message.get("id") if isinstance(message, dict) else None
            if isinstance(message, dict):
                message = self.conformant(message)
            self.memo[key] = (
                self.send_json(message, expect_id)
                if not isinstance(message, str)
                else self.send_raw(message, expect_id)
            )
        answer: RawAnswer = self.memo[key]
        if isinstance(answer.response, dict):
            self.note_answer(answer.response)
        return answer

    def send_json(self, message: Any, expect_id: Any = None, headers: dict[str, str] | None = None) -> RawAnswer:
        return self.send_raw(json.dumps(message, ensure_ascii=False), expect_id, headers)

    @property
    def http(self) -> HttpTransport:
        return http_transport(self.session)

    def fresh_session(self, recorded: bool = True) -> contextlib.AbstractContextManager[McpSession]:
        """A new process (stdio) or a new HTTP session, not yet initialized; closed afterwards (its server exits
        while the next checks run). Without `recorded` its messages are left out of `recordings`."""
        return self.pool.fresh(recorded)

    def recordings(self) -> list[Recording]:
        """Every recording of this run's era: the main session's, then those of fresh sessions and of servers
        replaced after a death or a hang, in the order they came."""
        return [self.session.transport.recording, *self.pool.recordings]

    def all_received(self) -> list[Any]:
        """Every JSON message received in this run's era, on every session."""
        return [
            item
            for recording in self.recordings()
            for entry in recording.received()
            if entry.is_json
            for item in (entry.message if isinstance(entry.message, list) else [entry.message])
        ]

    def results_for(self, *methods: str) -> list[tuple[str, JsonObject]]:
        """(method, result) of every result received for a request of one of `methods` (all when none given)."""
        found = []
        for recording in self.recordings():
            sent = {
                m.message.get("id"): m.message.get("method")
                for m in recording.messages()
                if m.direction == "sent" and isinstance(m.message, dict) and "method" in m.message
            }
            for entry in recording.received():
                for item in entry.message if isinstance(entry.message, list) else [entry.message]:
                    answered = isinstance(item, dict) and "result" in item and isinstance(item.get("id"), (str, int))
                    method = sent.get(item["id"]) if answered else None
                    if method is not None and (not methods or method in methods) and isinstance(item["result"], dict):
                        found.append((str(method), item["result"]))
        return found

    def received_messages(self) -> list[Any]:
        messages: list[Any] = []
        for entry in self.session.transport.recording.received():
            if entry.is_json:
                messages.extend(entry.message if isinstance(entry.message, list) else [entry.message])
        return messages

    def error_responses(self) -> list[JsonObject]:
        return [m for m in self.received_messages() if isinstance(m, dict) and isinstance(m.get("error"), dict)]


def not_evaluable_without_discover(ctx: ComplianceContext, consequence: str = "") -> Outcome | None:
    """Since 2026-07-28 what the server says about itself, and what its rejections mean, rest on the
    conformant server/discover: when it was not served, the check fails as not evaluable."""
    if ctx.stateless and not ctx.discover_served:
        return Outcome(
            Status.FAIL,
            f"not evaluable: the conformant server/discover was not served{consequence} (see lifecycle-discover)",
        )
    return None


def not_evaluable_rejection(ctx: ComplianceContext) -> Outcome | None:
    """A rejection is credited only when the conformant server/discover was served: a server that rejects
    everything proves nothing by rejecting a malformed request too."""
    return not_evaluable_without_discover(ctx, " either, so the rejection says nothing about this request")


def error_code(response: Any) -> Any:
    if isinstance(response, dict) and isinstance(response.get("error"), dict):
        return response["error"].get("code")
    return None


def is_error(response: Any) -> bool:
    return isinstance(response, dict) and "error" in response


def failure_text(response: Any) -> str | None:
    """Why an answer is no success: "no answer", the error's code, message and data, or the text of an isError
    result; None for a successful result."""
    if response is None:
        return "no answer"
    if is_error(response):
        error = response["error"]
        if not isinstance(error, dict):
            return f"error {json.dumps(error)[:200]}"
        data = error.get("data")
        text = f"error {error.get('code')}: {error.get('message')}"
        return text if data is None else f"{text} ({data if isinstance(data, str) else json.dumps(data)})"
    result = response.get("result") if isinstance(response, dict) else None
    if isinstance(result, dict) and result.get("isError") is True:
        texts = [
            str(block.get("text"))
            for block in result.get("content") or []
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        return "isError: " + (" ".join(texts) or "no text")
    return None


def backend_failure(response: Any) -> str | None:
    """The message of a failed answer that names a backend out of reach (the sandbox's fault); else None."""
    text = failure_text(response)
    return unreachable_backend(text) if text is not None else None


def not_evaluable(without: str, failure: str) -> Outcome:
    """A check that would blame an input, when the same call fails without that input too."""
    return undecided(f"not evaluable: the call fails without {without} as well: {one_line(failure, 300)}")


def describe(response: Any) -> str:
    if response is None:
        return "no answer"
    if is_error(response):
        error = response["error"]
        return f"error {error.get('code')} ({str(error.get('message'))[:80]})"
    if isinstance(response, dict) and "result" in response:
        return "a result"
    return f"{json.dumps(response)[:80]}"


def http_transport(session: McpSession) -> HttpTransport:
    """The session's transport, for the checks the catalog runs only against HTTP servers (status codes,
    headers, raw POSTs and DELETEs) and for branches taken only where `one_stream` is False."""
    transport = session.transport
    assert isinstance(transport, HttpTransport), "HTTP checks run only against HTTP servers"
    return transport
