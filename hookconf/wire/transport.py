"""The transport interface and the id correlation that stdio and HTTP share."""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
import time
from abc import ABC, abstractmethod
from concurrent.futures import Future, InvalidStateError
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from hookconf.errors import NoUsableAnswerError, RequestTimeoutError, TransportClosedError
from hookconf.protocol import APPLICATION_METHODS, APPLICATION_PREFIXES, META
from hookconf.wire.recording import ID_MATCH, JSON_RPC, Recording

if TYPE_CHECKING:
    from hookconf.wire.http import HttpTransport

JsonObject = dict[str, Any]
# The first "id" member of a message that does not parse: which request an unreadable answer was meant for.
SALVAGED_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
SHOWN_CHARS = 80
# Deeper messages are unreadable: Python code that walks them recursively (schema validation, rendering) would
# hit the interpreter's recursion limit. Real MCP messages nest a few dozen levels at most.
MAX_NESTING_DEPTH = 128
# After the ping's answer, a server that handles messages concurrently may still be finishing the
# raw line's answer: wait a few of its own round trips for it, bounded on both sides.
RAW_ANSWER_GRACE_ROUND_TRIPS = 3
RAW_ANSWER_GRACE_S = (0.005, 0.1)
# Requests a server answers from its protocol layer alone. How fast it answered them is the yardstick for
# a liveness wait: a ping after a raw line that runs none of the server's own code is answered about as
# fast, so one unanswered after LIVENESS_ROUND_TRIPS times the slowest of them (at least LIVENESS_FLOOR_S)
# is the sign of a hung server, not of a slow one.
PROTOCOL_METHODS = frozenset(
    {
        "initialize",
        "server/discover",
        "ping",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    }
)
LIVENESS_ROUND_TRIPS = 10
LIVENESS_FLOOR_S = 2.0


@dataclass(frozen=True)
class LivenessFailure:
    """A ping that outlasted its liveness wait: why the server counts as hung, and how many messages had been
    received by then (one received later shows that the server is not stuck after all)."""

    reason: str
    received: int


class ServerHungError(RequestTimeoutError):
    """A ping after a raw line that gives a server no reason to be busy outlasted the liveness wait: the server
    is hung, and that is known without waiting out the request timeout. The message says why."""


class Transport(ABC):
    """Sends JSON-RPC messages and waits for answers by id, never "the next line".

    Notifications and server-to-client requests that arrive in between are recorded;
    a server `ping` is answered at once. In the stateless era (2026-07-28) `meta` is the per-request
    envelope: every request sent through `request` or `exchange` carries it in `params._meta`.
    """

    # Whether every message travels on one stream the server reads in order (stdio): the answer to a raw line
    # is told from silence by a ping after it, and may arrive after its wait ended. False where each request
    # gets a reply of its own (HTTP: the POST's reply), which cannot come late.
    one_stream: ClassVar[bool] = True

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.meta: JsonObject | None = None
        self._ids = itertools.count(1)
        self._pending: dict[Any, Future[JsonObject]] = {}  # in the order the requests went out
        self._pending_methods: dict[Any, str] = {}
        self._sent_ids: set[Any] = set()
        self._awaited_notifications: dict[str, Future[JsonObject]] = {}  # by method
        self._lock = threading.Lock()
        self._closed_reason: str | None = None
        self.timeouts = 0  # requests that got no answer in time: a hint that the server may be hung
        self.slowest_protocol_answer_s: float | None = None  # of the PROTOCOL_METHODS answered so far
        self._answered_any = False
        self.liveness_failures: list[LivenessFailure] = []  # each ping after a raw line that outlasted its wait

    def next_id(self) -> int:
        return next(self._ids)

    def request(self, method: str, params: JsonObject | None = None, timeout_s: float = 30.0) -> JsonObject:
        """Send a request and return the whole response object (result or error)."""
        message: JsonObject = {"jsonrpc": "2.0", "id": self.next_id(), "method": method}
        if params is not None:
            message["params"] = params
        return self.exchange(message, timeout_s)

    def exchange(self, message: JsonObject, timeout_s: float) -> JsonObject:
        message = self.enveloped(message)
        future = self._expect(message["id"], str(message.get("method")))
        try:
            sent_at = time.monotonic()
            self.send(message)
            response = future.result(timeout=timeout_s)
        except FutureTimeout:
            self.timeouts += 1
            raise RequestTimeoutError(f"no answer to {message.get('method')!r} within {timeout_s:g} s") from None
        else:
            self._note_answer(str(message.get("method")), time.monotonic() - sent_at)
            return response
        finally:
            self._forget(message["id"])

    def _note_answer(self, method: str, seconds: float) -> None:
        """Time a protocol answer for the liveness wait. The first answer of the conversation is left out: a
        server started for it (or waking up) spends its start-up time on it, not on answering."""
        with self._lock:
            first, self._answered_any = not self._answered_any, True
            if method in PROTOCOL_METHODS and not first:
                self.slowest_protocol_answer_s = max(seconds, self.slowest_protocol_answer_s or 0.0)

    def carry_pace(self, earlier: Transport) -> None:
        """Take over the pace of the conversation this one replaces (a restarted server is the same program),
        so that the liveness wait has its yardstick before the new server has answered anything but its start."""
        with self._lock:
            paces = [p for p in (self.slowest_protocol_answer_s, earlier.slowest_protocol_answer_s) if p is not None]
            self.slowest_protocol_answer_s = max(paces, default=None)

    def liveness_wait(self, timeout_s: float) -> float | None:
        """How long a ping may take before a server that has no reason to be busy counts as hung: ten times the
        slowest protocol answer so far, at least two seconds, at most `timeout_s`; None before any answer."""
        slowest = self.slowest_protocol_answer_s
        if slowest is None:
            return None
        return min(timeout_s, max(LIVENESS_FLOOR_S, LIVENESS_ROUND_TRIPS * slowest))

    def liveness_ping(self, timeout_s: float, after: str, ping_params: JsonObject | None = None) -> JsonObject:
        """A ping (server/discover since 2026-07-28) sent after a raw line that runs none of the server's own
        code, waited for only the liveness wait. Raises ServerHungError when it outlasts that wait."""
        wait = self.liveness_wait(timeout_s)
        method = self.keepalive_method if ping_params is None else "ping"
        try:
            return self.request(method, ping_params, timeout_s if wait is None else wait)
        except NoUsableAnswerError:
            raise
        except RequestTimeoutError:
            if wait is None or wait >= timeout_s:
                raise
            slowest_ms = round((self.slowest_protocol_answer_s or 0.0) * 1000, 1)
            reason = (
                f"a {method} sent right after {after} got no answer within {wait:g} s, while every protocol "
                f"request before was answered within {slowest_ms:g} ms; {after} runs none of the server's own "
                f"code, so an alive server answers that {method} about as fast ({LIVENESS_ROUND_TRIPS} times "
                f"that, at least {LIVENESS_FLOOR_S:g} s, was waited)"
            )
            self.liveness_failures.append(LivenessFailure(reason, len(self.recording.received())))
            raise ServerHungError(reason) from None

    def silent_since(self, failure: LivenessFailure) -> bool:
        """Whether nothing has been received since that liveness failure: the server is still stuck."""
        return len(self.recording.received()) == failure.received

    def enveloped(self, message: JsonObject) -> JsonObject:
        """The message with the stateless era's `_meta` merged into its params (its own keys win)."""
        if self.meta is None or "method" not in message:
            return message
        params = dict(message.get("params") or {})
        params[META] = {**self.meta, **(params.get(META) or {})}
        return {**message, "params": params}

    @property
    def keepalive_method(self) -> str:
        """The cheapest request every server of this era answers: ping, or server/discover since 2026-07-28."""
        return "ping" if self.meta is None else "server/discover"

    def send_then_ping(
        self,
        raw: str,
        expect_id: Any,
        timeout_s: float,
        or_notification: str | None = None,
        ping_meta: JsonObject | None = None,
    ) -> JsonObject | None:
        """Send a raw line that may get no answer, followed by a ping (server/discover since 2026-07-28).

        A server reads its input in order, so once the ping is answered, an answer to the raw line
        that has not arrived is not coming: silence is detected without waiting for a timeout. After a raw
        line that runs none of the server's own code (see occupies_server) the ping gets only the liveness
        wait: a server that answers none within it counts as hung (ServerHungError).
        Returns the answer with `expect_id` (or the first `or_notification`, when named, if that comes
        first), or None when the server stayed silent.

        `ping_meta`, given while the era is not yet known, is carried in the ping's `params._meta`: real
        SDKs pin a connection's era on its first message without that envelope. A server that answers such
        a ping with an error does not speak the handshake era (where every server answers ping), and may
        answer the raw line after it, so that answer is then awaited for the whole timeout.
        """
        answer = self._expect(expect_id, "a raw message")
        if or_notification is not None:
            with self._lock:
                self._awaited_notifications[or_notification] = answer
        ping_params = None if ping_meta is None else {META: ping_meta}
        busy = occupies_server(raw)  # decided first: the ping follows the raw line as closely as before
        try:
            self.record_sent(raw)
            self.send_raw(raw)
            sent_at = time.monotonic()
            if busy:
                ping = self.request(self.keepalive_method if ping_params is None else "ping", ping_params, timeout_s)
            else:
                ping = self.liveness_ping(timeout_s, "the raw message", ping_params)
            round_trip = time.monotonic() - sent_at
            low, high = RAW_ANSWER_GRACE_S
            grace = min(high, max(low, RAW_ANSWER_GRACE_ROUND_TRIPS * round_trip))
            if ping_meta is not None and "error" in ping:
                grace = timeout_s
            return answer.result(timeout=grace)
        except FutureTimeout:
            return None
        except NoUsableAnswerError:
            if not answer.done():
                raise  # the ping's own answer was unusable
            return None  # the raw line's answer could not be read (a fault the checks judge); the server serves
        finally:
            self._forget(expect_id)
            with self._lock:
                self._awaited_notifications.pop(or_notification or "", None)

    def first_stream_message(
        self, body: str, request_id: Any, timeout_s: float, opened_by: str, first_wait_s: float
    ) -> tuple[int | None, Any]:
        """Send a request that opens a stream (subscriptions/listen), return the HTTP status (None without HTTP)
        and the message that opens the stream, then end the stream.

        On one stream that is the `opened_by` notification or the request's own answer, whichever comes first
        (other notifications may come in between; a ping after the request bounds the wait), and the request is
        then cancelled. Over HTTP it is the stream's first message, waited for at most `first_wait_s`.
        """
        first = self.send_then_ping(body, request_id, timeout_s, or_notification=opened_by)
        if first is not None:
            self.notify("notifications/cancelled", {"requestId": request_id, "reason": "probe done"})
        return None, first

    def notify(self, method: str, params: JsonObject | None = None) -> None:
        message: JsonObject = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def _expect(self, request_id: Any, method: str) -> Future[JsonObject]:
        future: Future[JsonObject] = Future()
        with self._lock:
            if self._closed_reason is not None:
                raise TransportClosedError(self._closed_reason)
            self._pending[request_id] = future
            self._pending_methods[request_id] = method
        return future

    def _forget(self, request_id: Any) -> None:
        with self._lock:
            self._pending.pop(request_id, None)
            self._pending_methods.pop(request_id, None)

    def deliver(self, raw: str, reply_to: Any = None) -> None:
        """Hand one received message (a line, an SSE data field, an HTTP body) to whoever waits for it.

        `reply_to` is the id of the request whose HTTP POST this came back on (None on stdio). Never raises:
        whatever the server sent, a message that cannot be read becomes a fault in the recording and ends
        the wait of the request it answered at once.
        """
        message, failure = parse_message(raw)
        if failure is not None:
            self.recording.add("received", raw, None)
            if meant_as_message(raw):
                self.recording.add_fault(JSON_RPC, f"an unreadable message ({failure}): {raw[:SHOWN_CHARS]!r}")
            self._unreadable(raw, failure, reply_to)
            return
        self.recording.add("received", raw, message)
        items = message if isinstance(message, list) else [message]
        for item in items:
            if isinstance(item, dict):
                self._dispatch(item, reply_to)
            else:
                shown = json.dumps(item)[:SHOWN_CHARS]  # a scalar or a shallow list: depth is checked above
                self.recording.add_fault(JSON_RPC, f"a message that is not a JSON-RPC object: {shown}")
        if not items:
            self.recording.add_fault(JSON_RPC, "an empty batch []")

    def _unreadable(self, raw: str, reason: str, reply_to: Any) -> None:
        """Text that could not be decoded: fail the request it answered, when that is certain: the one whose
        POST it came back on, or the one whose id it names. A stray log line on stdout answers nothing."""
        salvaged = SALVAGED_ID.search(raw[:4096]) if meant_as_message(raw) else None
        candidates = [reply_to] if reply_to is not None else []
        if salvaged is not None:
            with contextlib.suppress(ValueError):
                candidates.append(json.loads(salvaged.group(1)))
        with self._lock:
            future = next((self._pending[c] for c in candidates if _hashable(c) and c in self._pending), None)
            method = self._method_of(future) if future is not None else ""
        if future is not None:
            _settle(future, NoUsableAnswerError(f"the answer to {method} could not be read: {reason}"))

    def _oldest_waiting(self) -> Future[JsonObject] | None:
        """The earliest request still waiting for its answer (called with the lock held), or None."""
        return next((future for future in self._pending.values() if not future.done()), None)

    def _method_of(self, future: Future[JsonObject]) -> str:
        request_id = next(key for key, value in self._pending.items() if value is future)
        return f"request {json.dumps(request_id)} ({self._pending_methods.get(request_id)})"

    def _dispatch(self, message: JsonObject, reply_to: Any = None) -> None:
        if message.get("method") == "ping" and "id" in message:
            with contextlib.suppress(TransportClosedError):  # the reader thread must survive a closed stdin
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
            return
        future = self._waiter_for(message, reply_to)
        if future is not None:
            _settle(future, message)

    def _waiter_for(self, message: JsonObject, reply_to: Any) -> Future[JsonObject] | None:
        """Who waits for this message: a request for its response, by id, or a caller for a notification."""
        with self._lock:
            if "method" not in message:
                return self._response_waiter(message.get("id"), reply_to)
            if "id" not in message and isinstance(message["method"], str):
                return self._awaited_notifications.get(message["method"])
        return None

    def _response_waiter(self, response_id: Any, reply_to: Any) -> Future[JsonObject] | None:
        """The request a response answers (called with the lock held).

        A response whose id matches no request hookconf ever sent is a fault; it is still taken as the answer
        to the request it came back on (HTTP), or else to the oldest one waiting (stdio answers in order), so
        that the audit can go on and lifecycle-id-match judges it.
        """
        if _hashable(response_id) and not isinstance(response_id, bool) and response_id in self._pending:
            return self._pending[response_id]
        if response_id is None or (
            _hashable(response_id) and not isinstance(response_id, bool) and response_id in self._sent_ids
        ):
            return None  # an error to an unparseable request, or a late or repeated answer
        on_post = reply_to is not None and reply_to in self._pending
        target = self._pending[reply_to] if on_post else self._oldest_waiting()
        detail = f"a response carried the id {json.dumps(response_id)[:SHOWN_CHARS]}, which matches no request"
        if target is None:
            self.recording.add_fault(ID_MATCH, detail + "; no request was waiting")
            return None
        self.recording.add_fault(ID_MATCH, f"{detail}; taken as the answer to {self._method_of(target)}")
        return target

    def refuse(self, request_id: Any, error: Exception) -> None:
        """End the wait of one request with `error`, unless it already has its answer."""
        with self._lock:
            future = self._pending.get(request_id)
        if future is not None:
            _settle(future, error)

    def mark_closed(self, reason: str, error: type[TransportClosedError] = TransportClosedError) -> None:
        """The conversation is over: every wait ends with `error`, and so does every later request."""
        with self._lock:
            if self._closed_reason is None:
                self._closed_reason = reason
            waiting = list(self._pending.values())
        for future in waiting:
            _settle(future, error(reason))

    @property
    def closed_reason(self) -> str | None:
        return self._closed_reason

    def send(self, message: JsonObject) -> None:
        raw = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        if not raw.isascii() and not _encodable(raw):  # a lone surrogate, e.g. in an id the server chose
            raw = json.dumps(message, separators=(",", ":"))
        self._note_sent(message)
        self.recording.add("sent", raw, message)
        self.send_raw(raw)

    def record_sent(self, raw: str) -> None:
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            message = None
        self._note_sent(message)
        self.recording.add("sent", raw, message)

    def _note_sent(self, message: Any) -> None:
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict) and "method" in item and _hashable(item.get("id")):
                with self._lock:
                    self._sent_ids.add(item.get("id"))

    def mirror_protocol_version(self, version: str) -> None:
        """Carry the revision in use where the transport repeats it outside the messages (HTTP: the
        MCP-Protocol-Version header); a stream of messages alone has no such place."""
        return

    def rate_limited(self) -> bool:
        """Whether the latest exchange was refused by a rate limiter (HTTP 429); a stream of messages has none."""
        return False

    def detached_client(self, timeout_s: float) -> HttpTransport | None:
        """A new client of the same server that shares no session with this one, for a probe that must leave this
        conversation untouched (HTTP); None where a second client needs a second server (one_stream)."""
        return None

    @abstractmethod
    def send_raw(self, raw: str) -> None:
        """Send one message exactly as given (conformance checks send malformed ones)."""

    @abstractmethod
    def close(self) -> None:
        """End the conversation and release the server."""


def _settle(future: Future[JsonObject], outcome: JsonObject | Exception) -> None:
    """Give a waiting request its answer or its error, unless another thread (an HTTP POST, the closing
    transport) was first."""
    with contextlib.suppress(InvalidStateError):
        if isinstance(outcome, Exception):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)


def _hashable(value: Any) -> bool:
    return isinstance(value, (str, int, float, type(None)))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def occupies_server(raw: str) -> bool:
    """Whether a raw line may legitimately keep a server that reads in order busy: it holds a message (or a
    batch with one) whose method runs the server's own code or holds a stream open, even without an id (a
    server may run it all the same). Unreadable JSON, a request whose method is no string, and a protocol
    message (ping, a list, initialize, a notification, an unknown method) do not."""
    message, failure = parse_message(raw)
    if failure is not None:
        return False
    items = message if isinstance(message, list) else [message]
    return any(isinstance(item, dict) and _runs_application_code(item.get("method")) for item in items)


def _runs_application_code(method: Any) -> bool:
    return isinstance(method, str) and (method in APPLICATION_METHODS or method.startswith(APPLICATION_PREFIXES))


def meant_as_message(raw: str) -> bool:
    """Text meant as a JSON-RPC message (or a batch), not a stray log line such as "[info] starting"."""
    return raw.lstrip()[:1] in ("{", "[") and '"jsonrpc"' in raw[:4096]


def _nested_deeper_than(message: Any, raw: str, limit: int) -> bool:
    """Whether the decoded message nests arrays and objects more than `limit` levels deep (walked without
    recursion; only when the text has enough brackets to be that deep)."""
    if raw.count("[") + raw.count("{") <= limit:
        return False
    stack: list[tuple[Any, int]] = [(message, 1)] if isinstance(message, (dict, list)) else []
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_message(raw: str) -> tuple[Any, str | None]:
    """The decoded message and None, or None and why it cannot be read (not JSON, nested too deep)."""
    try:
        message = json.loads(raw)
    except RecursionError:
        return None, f"nested more than {MAX_NESTING_DEPTH} levels deep"
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at character {exc.pos}"
    except ValueError as exc:  # e.g. a number too long to convert
        return None, f"not JSON: {exc}"
    if _nested_deeper_than(message, raw, MAX_NESTING_DEPTH):
        return None, f"nested more than {MAX_NESTING_DEPTH} levels deep"
    return message, None
