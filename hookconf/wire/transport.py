"""The transport interface and the id correlation that stdio and HTTP share."""

from __future__ import annotations

import itertools
import json
import threading
import time
from abc import ABC, abstractmethod
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.wire.recording import Recording

JsonObject = dict[str, Any]
# After the ping's answer, a server that handles messages concurrently may still be finishing the
# raw line's answer: wait a few of its own round trips for it, bounded on both sides.
RAW_ANSWER_GRACE_ROUND_TRIPS = 3
RAW_ANSWER_GRACE_S = (0.005, 0.1)


class Transport(ABC):
    """Sends JSON-RPC messages and waits for answers by id, never "the next line".

    Notifications and server-to-client requests that arrive in between are recorded;
    a server `ping` is answered at once. In the stateless era (2026-07-28) `meta` is the per-request
    envelope: every request sent through `request` or `exchange` carries it in `params._meta`.
    """

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.meta: JsonObject | None = None
        self._ids = itertools.count(1)
        self._pending: dict[Any, Future[JsonObject]] = {}
        self._awaited_notifications: dict[str, Future[JsonObject]] = {}  # by method
        self._lock = threading.Lock()
        self._closed_reason: str | None = None
        self.timeouts = 0  # requests that got no answer in time: a hint that the server may be hung

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
        future = self._expect(message["id"])
        try:
            self.send(message)
            return future.result(timeout=timeout_s)
        except FutureTimeout:
            self.timeouts += 1
            raise RequestTimeoutError(
                f"no answer to {message.get('method')!r} within {timeout_s:g} s"
            ) from None
        finally:
            with self._lock:
                self._pending.pop(message["id"], None)

    def enveloped(self, message: JsonObject) -> JsonObject:
        """The message with the stateless era's `_meta` merged into its params (its own keys win)."""
        if self.meta is None or "method" not in message:
            return message
        params = dict(message.get("params") or {})
        params["_meta"] = {**self.meta, **(params.get("_meta") or {})}
        return {**message, "params": params}

    @property
    def keepalive_method(self) -> str:
        """The cheapest request every server of this era answers: ping, or server/discover since 2026-07-28."""
        return "ping" if self.meta is None else "server/discover"

    def send_then_ping(self, raw: str, expect_id: Any, timeout_s: float,
                       or_notification: str | None = None, ping_meta: JsonObject | None = None) -> JsonObject | None:
        """Send a raw line that may get no answer, followed by a ping (server/discover since 2026-07-28).

        A server reads its input in order, so once the ping is answered, an answer to the raw line
        that has not arrived is not coming: silence is detected without waiting for a timeout.
        Returns the answer with `expect_id` (or the first `or_notification`, when named, if that comes
        first), or None when the server stayed silent.

        `ping_meta`, given while the era is not yet known, is carried in the ping's `params._meta`: real
        SDKs pin a connection's era on its first message without that envelope. A server that answers such
        a ping with an error does not speak the handshake era (where every server answers ping), and may
        answer the raw line after it, so that answer is then awaited for the whole timeout.
        """
        answer = self._expect(expect_id)
        if or_notification is not None:
            with self._lock:
                self._awaited_notifications[or_notification] = answer
        try:
            self.record_sent(raw)
            self.send_raw(raw)
            sent_at = time.monotonic()
            if ping_meta is None:
                ping = self.request(self.keepalive_method, None, timeout_s)
            else:
                ping = self.request("ping", {"_meta": ping_meta}, timeout_s)
            round_trip = time.monotonic() - sent_at
            low, high = RAW_ANSWER_GRACE_S
            grace = min(high, max(low, RAW_ANSWER_GRACE_ROUND_TRIPS * round_trip))
            if ping_meta is not None and "error" in ping:
                grace = timeout_s
            return answer.result(timeout=grace)
        except FutureTimeout:
            return None
        finally:
            with self._lock:
                self._pending.pop(expect_id, None)
                self._awaited_notifications.pop(or_notification or "", None)

    def notify(self, method: str, params: JsonObject | None = None) -> None:
        message: JsonObject = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def _expect(self, request_id: Any) -> Future[JsonObject]:
        future: Future[JsonObject] = Future()
        with self._lock:
            if self._closed_reason is not None:
                raise TransportClosedError(self._closed_reason)
            self._pending[request_id] = future
        return future

    def deliver(self, raw: str) -> None:
        """Hand one received message (a line or an SSE data field) to whoever waits for it."""
        try:
            message = json.loads(raw)
        except json.JSONDecodeError:
            self.recording.add("received", raw, None)
            return
        self.recording.add("received", raw, message)
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                self._dispatch(item)

    def _dispatch(self, message: JsonObject) -> None:
        if message.get("method") == "ping" and "id" in message:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
            return
        future = self._waiter_for(message)
        if future is not None and not future.done():
            future.set_result(message)

    def _waiter_for(self, message: JsonObject) -> Future[JsonObject] | None:
        """Who waits for this message: a request for its response, by id, or a caller for a notification."""
        with self._lock:
            if "method" not in message:
                return self._pending.get(message.get("id"))
            if "id" not in message and isinstance(message["method"], str):
                return self._awaited_notifications.get(message["method"])
        return None

    def mark_closed(self, reason: str) -> None:
        with self._lock:
            self._closed_reason = reason
            waiting = list(self._pending.values())
        for future in waiting:
            if not future.done():
                future.set_exception(TransportClosedError(reason))

    @property
    def closed_reason(self) -> str | None:
        return self._closed_reason

    def send(self, message: JsonObject) -> None:
        raw = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        self.recording.add("sent", raw, message)
        self.send_raw(raw)

    def record_sent(self, raw: str) -> None:
        try:
            message = json.loads(raw)
        except json.JSONDecodeError:
            message = None
        self.recording.add("sent", raw, message)

    @abstractmethod
    def send_raw(self, raw: str) -> None:
        """Send one message exactly as given (conformance checks send malformed ones)."""

    @abstractmethod
    def close(self) -> None:
        """End the conversation and release the server."""
