"""Streamable HTTP: POST answered with JSON or an SSE stream, session id and version headers."""

from __future__ import annotations

import base64
import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hookconf.errors import ConnectionFailedError, NoUsableAnswerError, ServerStartError
from hookconf.wire.process import ServerProcess
from hookconf.wire.recording import JSON_RPC, Recording
from hookconf.wire.transport import Transport, meant_as_message, parse_message

if TYPE_CHECKING:
    import httpx2

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
# 2026-07-28: the params key whose value a request mirrors in Mcp-Name
NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
HEADER_SAFE = re.compile(r"[\x20-\x7e]*")
BASE64_SENTINEL = re.compile(r"=\?base64\?.*\?=")
CONNECT_POLL_S = 0.02
TOO_MANY_REQUESTS = 429
FIRST_ERROR_STATUS = 400
SHOWN_BODY_CHARS = 200


@dataclass(frozen=True)
class SseEvent:
    event: str | None  # None when the event has no `event:` field, which means "message"
    data: str


@dataclass(frozen=True)
class HttpExchange:
    """What one HTTP request looked like on the wire, for the checks that judge HTTP behaviour."""

    method: str
    status: int
    content_type: str
    sse_events: tuple[SseEvent, ...] = ()


@dataclass(frozen=True)
class HttpReply:
    status: int
    headers: dict[str, str]  # lower-case names
    body: str
    messages: list[Any]  # JSON-RPC messages in the body or its SSE events
    sse_events: tuple[SseEvent, ...] = ()

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def response(self) -> Any:
        """The JSON-RPC response among the messages (notifications may come first), or None."""
        return next((m for m in self.messages if isinstance(m, dict) and "method" not in m), None)


def header_value(value: str) -> str:
    """`value` as a 2026-07-28 header carries it: verbatim when it is printable ASCII without leading or
    trailing whitespace, else (and when it looks encoded already) `=?base64?<its UTF-8, base64>?=`."""
    if HEADER_SAFE.fullmatch(value) and value == value.strip() and not BASE64_SENTINEL.fullmatch(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8')).decode('ascii')}?="


def iter_sse_events(lines: Iterator[str]) -> Iterator[SseEvent]:
    """Yield each SSE event that carries data; events with empty data (priming events) yield nothing."""
    data: list[str] = []
    event: str | None = None
    for line in lines:
        if line == "":
            if any(data):
                yield SseEvent(event, "\n".join(data))
            data, event = [], None
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line.startswith("event:"):
            event = line[6:].strip()
    if any(data):
        yield SseEvent(event, "\n".join(data))


def _lines_until(deadline: float, response: httpx2.Response) -> Iterator[str]:
    """The stream's lines until the deadline. Keep-alive comments and empty events carry no message, so
    without it a stream that sends them more often than the read timeout would be read forever; a stream
    that falls silent ends at the read timeout."""
    import httpx2

    try:
        for line in response.iter_lines():
            if time.monotonic() >= deadline:
                return
            yield line
    except httpx2.ReadTimeout:
        return


class HttpTransport(Transport):
    one_stream = False

    def __init__(
        self,
        url: str,
        recording: Recording,
        headers: dict[str, str],
        timeout_s: float,
        process: ServerProcess | None = None,
    ) -> None:
        super().__init__(recording)
        self.url = url
        self.configured_headers = dict(headers)
        self.process = process
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.exchanges: list[HttpExchange] = []
        import httpx2  # with the first HTTP transport: a stdio audit never loads it (40 ms of imports)

        self._client = httpx2.Client(headers=headers, timeout=httpx2.Timeout(timeout_s, connect=timeout_s))

    def _headers(self, body: str | None = None, session: bool = True) -> dict[str, str]:
        """The headers of a POST carrying `body`: the usual ones, then those that mirror the message."""
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if self.session_id and session:
            headers[SESSION_HEADER] = self.session_id
        if self.protocol_version:
            headers[VERSION_HEADER] = self.protocol_version
        return {**headers, **self._message_headers(body)}

    def _message_headers(self, body: str | None) -> dict[str, str]:
        """2026-07-28 mirrors the method (and the tool, prompt or resource) of each message in headers."""
        if self.meta is None or not body:
            return {}
        message, _ = parse_message(body)
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return {}
        headers = {METHOD_HEADER: message["method"]}
        params = message.get("params")
        name = params.get(NAME_PARAMS.get(message["method"], "")) if isinstance(params, dict) else None
        if isinstance(name, str):
            headers[NAME_HEADER] = header_value(name)
        return headers

    def mirror_protocol_version(self, version: str) -> None:
        self.protocol_version = version

    def rate_limited(self) -> bool:
        return bool(self.exchanges) and self.exchanges[-1].status == TOO_MANY_REQUESTS

    def detached_client(self, timeout_s: float) -> HttpTransport:
        return HttpTransport(self.url, Recording(), self.configured_headers, timeout_s)

    def send_raw(self, raw: str) -> None:
        # Each POST runs in its own thread so that the caller's timeout, not the socket's, bounds the wait.
        threading.Thread(target=self._post, args=(raw,), name="hookconf-http-post", daemon=True).start()

    def _post(self, raw: str) -> None:
        """POST one message and hand on what comes back. A request that gets no JSON-RPC answer because the
        connection failed or the endpoint answered with an error status fails at once, with the cause."""
        import httpx2

        request_id = _request_id(raw)
        try:
            with self._client.stream("POST", self.url, content=raw.encode(), headers=self._headers(raw)) as response:
                self._remember(response)
                content_type = response.headers.get("content-type", "")
                body = ""
                if content_type.startswith("text/event-stream"):
                    events = []
                    for event in iter_sse_events(response.iter_lines()):
                        events.append(event)
                        self.deliver(event.data, reply_to=request_id)
                    self._remember_events(events)
                elif response.status_code != 202:
                    body = response.read().decode("utf-8", "replace")
                    refused = response.status_code >= FIRST_ERROR_STATUS
                    if body.strip():  # an error page is no unreadable answer: the status says what happened
                        self.deliver(body, reply_to=None if refused else request_id)
                if response.status_code >= FIRST_ERROR_STATUS and request_id is not None:
                    self.refuse(request_id, NoUsableAnswerError(_status_text(response, body)))
        except httpx2.HTTPError as exc:
            self.recording.add("received", f"(HTTP error: {exc})", None)
            if isinstance(exc, httpx2.ConnectError):
                self.mark_closed(connect_failure(self.url, exc), ConnectionFailedError)
            elif self.process is not None and self.process.exit_code() is not None:
                self.mark_closed(f"server exited with code {self.process.exit_code()}")
            elif request_id is not None and not isinstance(exc, httpx2.TimeoutException):
                self.refuse(request_id, NoUsableAnswerError(f"the HTTP exchange failed: {_error_text(exc)}"))

    def _remember(self, response: httpx2.Response) -> None:
        session_id = response.headers.get(SESSION_HEADER)
        if session_id:
            self.session_id = session_id
        self.exchanges.append(HttpExchange("POST", response.status_code, response.headers.get("content-type", "")))

    def _remember_events(self, events: list[SseEvent]) -> None:
        last = self.exchanges[-1]
        self.exchanges[-1] = HttpExchange(last.method, last.status, last.content_type, tuple(events))

    def raw_request(
        self,
        method: str,
        *,
        body: str | None = None,
        headers: dict[str, str] | None = None,
        url: str | None = None,
        session: bool = True,
        timeout_s: float = 10.0,
    ) -> HttpReply:
        """One HTTP request exactly as given, answered synchronously (for the transport checks).

        `headers` are merged over the usual ones; a value of "" removes that header. An SSE answer
        is read to its end, except for GET, whose stream may stay open: only its status and headers count.
        """
        import httpx2

        merged = self._headers(body, session)
        for name, value in (headers or {}).items():  # header names are case-insensitive: an override replaces
            merged = {k: v for k, v in merged.items() if k.lower() != name.lower()}
            merged[name] = value
        removed = [k for k, v in merged.items() if v == ""]
        merged = {k: v for k, v in merged.items() if v != ""}
        content = body.encode("utf-8") if body is not None else None
        if body is not None:
            self.record_sent(body)
        request = self._client.build_request(
            method, url or self.url, content=content, headers=merged, timeout=timeout_s
        )
        for name in removed:  # also drops the client's default headers, e.g. a configured Authorization
            if name in request.headers:
                del request.headers[name]
        try:
            return self._read_reply(request, method)
        except httpx2.TimeoutException:
            self.timeouts += 1  # as for a JSON-RPC request: a hint that the server may be hung
            raise

    def _read_reply(self, request: httpx2.Request, method: str) -> HttpReply:
        with contextlib.closing(self._client.send(request, stream=True)) as response:
            reply_headers = {k.lower(): v for k, v in response.headers.items()}
            if method == "GET" and reply_headers.get("content-type", "").startswith("text/event-stream"):
                return HttpReply(response.status_code, reply_headers, "", [])
            if reply_headers.get("content-type", "").startswith("text/event-stream"):
                events = tuple(iter_sse_events(response.iter_lines()))
                messages = [self._decode_received(event.data) for event in events]
                return HttpReply(response.status_code, reply_headers, "", messages, events)
            text = response.read().decode("utf-8", "replace")
        messages = [self._decode_received(text)] if text.strip() else []
        return HttpReply(response.status_code, reply_headers, text, messages)

    def first_message(self, body: str, timeout_s: float) -> tuple[int, Any]:
        """POST a request whose answer may be a stream that stays open (subscriptions/listen): the status and
        the first message, read as soon as it arrives, or None once `timeout_s` has passed; then the connection
        is dropped."""
        deadline = time.monotonic() + timeout_s
        self.record_sent(body)
        with self._client.stream(
            "POST", self.url, content=body.encode(), headers=self._headers(body), timeout=timeout_s
        ) as response:
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                event = next(iter_sse_events(_lines_until(deadline, response)), None)
                return response.status_code, self._decode_received(event.data) if event else None
            text = response.read().decode("utf-8", "replace")
            return response.status_code, self._decode_received(text) if text.strip() else None

    def first_stream_message(
        self, body: str, request_id: Any, timeout_s: float, opened_by: str, first_wait_s: float
    ) -> tuple[int | None, Any]:
        return self.first_message(body, min(timeout_s, first_wait_s))

    def _decode_received(self, raw: str) -> Any:
        message, failure = parse_message(raw)
        if failure is not None:
            self.recording.add("received", raw, None)
            if meant_as_message(raw):
                self.recording.add_fault(JSON_RPC, f"an unreadable message ({failure}): {raw[:80]!r}")
            return None
        # Plain HTTP documents (a 401 body, auth metadata) are not MCP messages and are not recorded.
        if isinstance(message, list) or (isinstance(message, dict) and {"jsonrpc", "id", "method"} & set(message)):
            self.recording.add("received", raw, message)
        return message

    def close(self) -> None:
        """End the session (DELETE) and stop the process; a second close (a server replaced after a hang is
        closed again with the audit's other sessions) does nothing more."""
        import httpx2

        if self.session_id and not self._client.is_closed:
            with contextlib.suppress(httpx2.HTTPError):
                self._client.delete(self.url, headers=self._headers(), timeout=2.0)
        self._client.close()
        self.mark_closed("connection closed by hookconf")
        if self.process is not None:
            self.process.stop()


def _request_id(raw: str) -> Any:
    """The id of the request a POST body carries, or None (a notification, a response, a batch, no JSON)."""
    message, _ = parse_message(raw)
    if isinstance(message, dict) and "method" in message and isinstance(message.get("id"), (str, int)):
        return message["id"]
    return None


def _status_text(response: httpx2.Response, body: str) -> str:
    shown = " ".join(body.split())[:SHOWN_BODY_CHARS]
    return f"HTTP {response.status_code} {response.reason_phrase}".rstrip() + (
        f" with no JSON-RPC answer (body: {shown!r})" if shown else " with an empty body"
    )


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def connect_failure(url: str, exc: httpx2.ConnectError) -> str:
    """Why `url` cannot be reached, named: refused, DNS, TLS, or the error as the client put it."""
    text = str(exc)
    host = urlsplit(url).hostname or url
    if "refused" in text.lower():
        cause = "connection refused (nothing listens there)"
    elif any(
        mark in text
        for mark in (
            "Name or service not known",
            "nodename nor servname",
            "getaddrinfo",
            "Temporary failure in name resolution",
            "No address associated",
        )
    ):
        cause = f"DNS lookup of {host} failed"
    elif "SSL" in text or "TLS" in text or "CERTIFICATE" in text.upper():
        cause = "TLS handshake failed"
    else:
        cause = "cannot connect"
    return f"cannot reach {url}: {cause} ({_error_text(exc)})"


def wait_until_listening(url: str, process: ServerProcess, timeout_s: float) -> None:
    """Poll the URL's port until it accepts a connection, the process exits, or time runs out."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.exit_code() is not None:
            raise ServerStartError(
                f"server exited with code {process.exit_code()} before listening on {url}; "
                f"its stderr ends with:\n{process.stderr_tail()}"
            )
        try:
            with socket.create_connection((host, port), timeout=CONNECT_POLL_S * 10):
                return
        except OSError:
            time.sleep(CONNECT_POLL_S)
    raise ServerStartError(f"server did not listen on {url} within {timeout_s:g} s")
