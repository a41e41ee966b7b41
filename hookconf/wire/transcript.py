"""A transport whose server is a script: a table (or any callable) that answers each line hookconf writes.

Every message goes through the same correlation, framing and recording as over stdio: what the script
answers is encoded as stdout lines and read back as a real server's would be (a line that is no UTF-8 is a
framing fault, two messages on one line are one unreadable line). So a check, a hook suite or the session
can be run from a transcript, without any process, and judges the Recording it leaves exactly as it judges
a real one. It lives in the wire layer beside stdio and HTTP because it is one: it needs nothing of the tests,
a change to the Transport interface is type-checked against it, and a script built from a Recording would
answer a recorded conversation again, so that its verdicts could be re-judged without the server.
"""

from __future__ import annotations

import io
import itertools
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookconf.wire.recording import Recording
from hookconf.wire.stdio import pump_lines
from hookconf.wire.transport import JsonObject, Transport, parse_message

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND = -32700, -32600, -32601


@dataclass(frozen=True)
class Incoming:
    """One line the scripted server reads: its text, and the decoded JSON (None when it does not parse)."""

    raw: str
    message: Any

    @property
    def method(self) -> str | None:
        method = self.message.get("method") if isinstance(self.message, dict) else None
        return method if isinstance(method, str) else None

    @property
    def id(self) -> Any:
        return self.message.get("id") if isinstance(self.message, dict) else None

    @property
    def params(self) -> JsonObject:
        params = self.message.get("params") if isinstance(self.message, dict) else None
        return params if isinstance(params, dict) else {}

    @property
    def is_request(self) -> bool:
        return isinstance(self.message, dict) and self.method is not None and "id" in self.message


@dataclass(frozen=True)
class Reply:
    """What the server writes: a JSON value (one line), or text or bytes written exactly as given (a
    newline is added when missing), `after_s` seconds after it read the line it answers."""

    payload: Any
    after_s: float = 0.0

    def line(self) -> bytes:
        if isinstance(self.payload, bytes):
            data = self.payload
        elif isinstance(self.payload, str):
            data = self.payload.encode("utf-8", "surrogatepass")
        else:
            data = json.dumps(self.payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        return data if data.endswith(b"\n") else data + b"\n"


HANG_UP = Reply("")  # instead of a line: the server ends the conversation, as a process that exits


ScriptedServer = Callable[[Incoming], Sequence[Reply]]
Answer = Callable[[Incoming], Sequence[Reply]]  # one rule's answer to the line it matched


def result(value: Any, after_s: float = 0.0) -> Answer:
    """Answer the request with this result."""
    return lambda incoming: [Reply({"jsonrpc": "2.0", "id": incoming.id, "result": value}, after_s)]


def error(code: Any, message: str, data: Any = None, after_s: float = 0.0, request_id: Any = ...) -> Answer:
    """Answer the request with this JSON-RPC error (with `request_id` in place of the request's own id, when given)."""
    body: JsonObject = {"code": code, "message": message, **({} if data is None else {"data": data})}
    return lambda incoming: [
        Reply({"jsonrpc": "2.0", "id": incoming.id if request_id is ... else request_id, "error": body}, after_s)
    ]


def silence(_incoming: Incoming) -> Sequence[Reply]:
    """Answer nothing."""
    return []


def hang_up(_incoming: Incoming) -> Sequence[Reply]:
    """End the conversation: every wait ends, and every later request is refused, as when a process exits."""
    return [HANG_UP]


def lines(*payloads: Any) -> Answer:
    """Write exactly these messages or lines, whatever was asked (a wrong id, a stray log line, a notification)."""
    return lambda _incoming: [Reply(payload) for payload in payloads]


def in_turn(*answers: Answer) -> Answer:
    """The first answer to the first matching line, the second to the next; the last one from then on."""
    turns: Iterator[Answer] = itertools.chain(answers, itertools.repeat(answers[-1]))
    lock = threading.Lock()

    def answer(incoming: Incoming) -> Sequence[Reply]:
        with lock:
            chosen = next(turns)
        return chosen(incoming)

    return answer


@dataclass(frozen=True)
class When:
    """A rule's key that matches a method and some of its params (compared as JSON), e.g. one tool's calls."""

    method: str
    params: tuple[tuple[str, str], ...] = ()

    def matches(self, incoming: Incoming) -> bool:
        if incoming.method != self.method:
            return False
        params = incoming.params
        return all(name in params and _canonical(params[name]) == value for name, value in self.params)


def when(method: str, **params: Any) -> When:
    return When(method, tuple((name, _canonical(value)) for name, value in sorted(params.items())))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


RuleKey = str | When


class Script:
    """A scripted server as a table: a method, or a method and some of its params (`when("tools/call",
    name="echo")`), mapped to an answer. The first rule that matches answers; what no rule matches is answered as
    a conformant server would: a line that is not JSON with -32700 (id null), a message that is no request with
    -32600, an unknown method with -32601; notifications and responses get no answer."""

    def __init__(self, rules: Mapping[RuleKey, Answer]) -> None:
        self.rules: dict[RuleKey, Answer] = dict(rules)

    def but(self, rules: Mapping[RuleKey, Answer]) -> Script:
        """This script with `rules` in front of its own: the same server, misbehaving where they say."""
        return Script({**rules, **{key: answer for key, answer in self.rules.items() if key not in rules}})

    def __call__(self, incoming: Incoming) -> Sequence[Reply]:
        for key, answer in self.rules.items():
            if _matches(key, incoming):
                return answer(incoming)
        return _unmatched(incoming)


def _matches(key: RuleKey, incoming: Incoming) -> bool:
    return incoming.method == key if isinstance(key, str) else key.matches(incoming)


def _unmatched(incoming: Incoming) -> Sequence[Reply]:
    message = incoming.message
    if message is None:
        return error(PARSE_ERROR, "Parse error", request_id=None)(incoming)
    if isinstance(message, dict) and ("result" in message or "error" in message) and "method" not in message:
        return []  # the client's answer to a request of the server's
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        request_id = message.get("id") if isinstance(message, dict) else None
        return error(INVALID_REQUEST, "Invalid Request", request_id=request_id)(incoming)
    if "id" not in message:
        return []  # a notification
    return error(METHOD_NOT_FOUND, f"Method not found: {incoming.method}")(incoming)


class TranscriptTransport(Transport):
    """Each line sent is handed to `server` at once; its replies are read back as stdout lines (after their
    `after_s`, from a timer, so that a late answer arrives late and a request can time out)."""

    def __init__(self, server: ScriptedServer, recording: Recording | None = None) -> None:
        super().__init__(recording if recording is not None else Recording())
        self.server = server
        self.read: list[Incoming] = []  # every line the server read, in order
        self._timers: list[threading.Timer] = []
        self._timer_lock = threading.Lock()

    def send_raw(self, raw: str) -> None:
        message, failure = parse_message(raw)
        incoming = Incoming(raw, None if failure is not None else message)
        self.read.append(incoming)
        for reply in self.server(incoming):
            if reply.after_s > 0:
                self._later(reply)
            else:
                self._write(reply)

    def _later(self, reply: Reply) -> None:
        timer = threading.Timer(reply.after_s, self._write, args=(reply,))
        timer.daemon = True
        with self._timer_lock:
            self._timers.append(timer)
        timer.start()

    def _write(self, reply: Reply) -> None:
        if reply is HANG_UP:
            self.mark_closed("the scripted server hung up")
        elif self.closed_reason is None:
            pump_lines(io.BytesIO(reply.line()), self)

    def close(self) -> None:
        with self._timer_lock:
            timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()
        self.mark_closed("the scripted server was closed")
