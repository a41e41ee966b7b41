"""Which protocol era a server speaks, decided by one conformant server/discover, and the session that speaks it.

2026-07-28 is stateless (server/discover, `_meta` on every request); the earlier revisions start with the
initialize handshake. A DiscoverResult or a JSON-RPC error with a code only the stateless era defines
selects 2026-07-28; anything else (-32601, other errors, an HTTP error page, silence) the handshake era.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from hookconf import AUTO_SPEC_VERSION, HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION, STATELESS_REVISIONS
from hookconf.config import ServerConfig
from hookconf.errors import RequestTimeoutError, ServerStartError, TransportClosedError
from hookconf.protocol import STATELESS_ERROR_CODES, STATELESS_REVISION, Era, discover_message, stateless_meta
from hookconf.session import McpSession, is_discover_result, open_session
from hookconf.validation import models_for
from hookconf.wire.http import TOO_MANY_REQUESTS, HttpReply, connect_failure
from hookconf.wire.process import ServerProcess
from hookconf.wire.transport import JsonObject, Transport

PROBE_ID = "hookconf-era-probe"
STDERR_LINES = 5
LATE_ANSWER_POLL_S = 0.02


@dataclass(frozen=True)
class DetectedEra:
    """The revision graded, how it was chosen, and what the user should know about that choice."""

    revision: str
    detection: str
    warnings: tuple[str, ...] = ()

    @property
    def era(self) -> Era:
        return Era.of(self.revision)


@dataclass(frozen=True)
class ProbeAnswer:
    response: JsonObject | None  # the JSON-RPC answer to server/discover; None when there was none
    note: str  # what came back, for the detection text
    exited: str | None = None  # how the server ended when it exited on the probe

    @property
    def stateless(self) -> bool:
        code = _error_code(self.response)
        return is_discover_result(self.response) or code in STATELESS_ERROR_CODES


@dataclass(frozen=True)
class Connection:
    """The session talking in the chosen era (the caller closes it), and the era."""

    session: McpSession
    era: DetectedEra


def connect(
    server: ServerConfig, timeout_s: float, spec_version: str = AUTO_SPEC_VERSION, process: ServerProcess | None = None
) -> Connection:
    """Open the server and talk to it in the pinned era, or in the one a server/discover probe selects."""
    session = open_session(server, timeout_s, process=process)
    try:
        if spec_version in HANDSHAKE_REVISIONS:
            return _pinned_handshake(session, spec_version)
        if spec_version in STATELESS_REVISIONS:
            return _pinned_stateless(session, spec_version)
        return _detect(session, server, timeout_s)
    except BaseException:
        session.close()
        raise


def _pinned_handshake(session: McpSession, revision: str) -> Connection:
    identity = session.initialize(offer=revision)
    warnings: tuple[str, ...] = ()
    if identity.protocol_version != revision and not session.warnings:
        warnings = (
            f"Pinned to {revision}, but the server answered initialize with {identity.protocol_version}; "
            f"graded as {identity.protocol_version}.",
        )
    detected = DetectedEra(
        identity.protocol_version, f"pinned with --spec-version {revision}", (*session.warnings, *warnings)
    )
    return Connection(session, detected)


def _pinned_stateless(session: McpSession, revision: str) -> Connection:
    answer = probe(session)
    if answer.exited is not None:
        raise ServerStartError(
            f"server {answer.exited} on server/discover (pinned to {revision}); "
            "run with --spec-version auto to grade its handshake era"
        )
    session.discover(answered=answer.response or {})
    warnings: tuple[str, ...] = ()
    if not is_discover_result(answer.response):
        warnings = (
            f"server/discover got {answer.note}: the server does not speak {revision}, and the checks that "
            f"need it fail as not evaluable. Run with --spec-version auto to grade the era it speaks.",
        )
    return Connection(session, DetectedEra(revision, f"pinned with --spec-version {revision}", warnings))


def _detect(session: McpSession, server: ServerConfig, timeout_s: float) -> Connection:
    # Importing a revision's models takes 50 ms or more: import them while the server boots and answers
    # the probe, rather than after it; the stateless era's only while that may still be the answer.
    probed: list[ProbeAnswer] = []
    threading.Thread(target=_import_models, args=(probed,), name="hookconf-models", daemon=True).start()
    answer = probe(session)
    probed.append(answer)
    if answer.stateless:
        # Over HTTP the probe went through a throwaway client: the audit's own first exchange is a discover too.
        session.discover(answered=answer.response if session.transport.one_stream else None)
        return Connection(session, DetectedEra(STATELESS_REVISION, _detected(answer), _dual_era_warnings(answer)))
    if answer.exited is None:
        return _handshake_or_late_discover(session, answer)
    session.close()
    fresh = open_session(server, timeout_s)
    try:
        identity = fresh.initialize()
    except BaseException as exc:
        # Only a fresh instance that is gone exited as well; one that refused initialize or negotiated an
        # unknown version said so itself.
        exited_too = isinstance(exc, ServerStartError) and not fresh.server_alive()
        fresh.close()
        if exited_too:
            raise ServerStartError(
                f"server {answer.exited} on the server/discover probe, and a fresh instance "
                f"exits at startup as well, before answering initialize: check the command, "
                f"its arguments and its environment.\n{exc}"
            ) from None
        raise
    warning = (
        f"The server {answer.exited} on the 2026-07-28 server/discover probe; a fresh instance was started "
        f"and graded as {identity.protocol_version} (handshake era). Pin --spec-version "
        f"{LATEST_HANDSHAKE_REVISION} to skip the probe."
    )
    return Connection(fresh, DetectedEra(identity.protocol_version, _detected(answer), (*fresh.warnings, warning)))


def _handshake_or_late_discover(session: McpSession, answer: ProbeAnswer) -> Connection:
    """Initialize, unless the server refuses it having answered the probe late: a server that handles requests
    concurrently can answer the ping before a slow server/discover, and then serves the era that answer chose."""
    try:
        identity = session.initialize()
    except ServerStartError:
        # Over HTTP the probe's answer is its POST's reply, which cannot come late.
        one_stream = session.transport.one_stream
        late = _late_probe_answer(session) if answer.response is None and one_stream else None
        if late is None or not ProbeAnswer(late, "").stateless:
            raise
        session.discover(answered=late)
        detection = f"{_detected(ProbeAnswer(late, _describe(late)))} (answered after the ping that followed it)"
        warnings = _dual_era_warnings(ProbeAnswer(late, ""))
        return Connection(session, DetectedEra(STATELESS_REVISION, detection, warnings))
    return Connection(session, DetectedEra(identity.protocol_version, _detected(answer), tuple(session.warnings)))


def _late_probe_answer(session: McpSession) -> JsonObject | None:
    """The answer to the era probe, arriving after the probe stopped waiting, within the timeout; or None."""
    deadline = time.monotonic() + session.timeout_s
    while True:
        received = (entry.message for entry in session.transport.recording.received())
        late = next(
            (
                message
                for message in received
                if isinstance(message, dict)
                and message.get("id") == PROBE_ID
                and ("result" in message or "error" in message)
            ),
            None,
        )
        if late is not None or time.monotonic() >= deadline or not session.server_alive():
            return late
        time.sleep(LATE_ANSWER_POLL_S)


def _detected(answer: ProbeAnswer) -> str:
    # "legacy" is the detection text's word for the handshake era (reports quote it)
    era = STATELESS_REVISION if answer.stateless else "legacy"
    if is_discover_result(answer.response):
        return f"server/discover answered with supportedVersions [{', '.join(map(str, _supported(answer)))}]"
    return f"server/discover {answer.note}, {era}"


def _supported(answer: ProbeAnswer) -> list[Any]:
    return list(((answer.response or {}).get("result") or {}).get("supportedVersions") or [])


def _dual_era_warnings(answer: ProbeAnswer) -> tuple[str, ...]:
    handshake = [v for v in _supported(answer) if v in HANDSHAKE_REVISIONS]
    if not handshake:
        return ()
    return (dual_era_warning(str(handshake[-1]), "its supportedVersions list it"),)


def dual_era_warning(other: str, evidence: str) -> str:
    return (
        f"The server is dual-era: it also speaks {other} (handshake era; {evidence}). This report grades "
        f"{STATELESS_REVISION}; run again with --spec-version {other} to grade its handshake side."
    )


def _import_models(probed: list[ProbeAnswer]) -> None:
    """The handshake era's models first: every audit needs them (a stateless one for the dual-era check's
    initialize); then the stateless era's, unless the probe has said by then that the server does not speak it."""
    models_for(LATEST_HANDSHAKE_REVISION)
    if not probed or probed[0].stateless:
        models_for(STATELESS_REVISION)


# --- the probe ---------------------------------------------------------------------------------------
def probe(session: McpSession) -> ProbeAnswer:
    """One conformant server/discover, bounded without a fixed wait, that leaves the server's era undecided.

    On stdio it is followed by a ping, the one request the handshake era allows before initialize: a
    server reads its input in order, so once the ping is answered a discover answer that has not come is
    not coming. The ping carries the 2026-07-28 `_meta` envelope: the TypeScript SDK 2.x stdio entry keeps
    a connection undecided after server/discover and pins it to the handshake era on the first message
    without the envelope, while a handshake-era server answers the ping all the same (`_meta` is legal in
    every request's params). Over HTTP the POST's own answer decides; a throwaway client keeps the probe's
    session id, if a handshake-era server issues one, away from the audit's session.
    """
    if not session.transport.one_stream:
        return _probe_http(session.transport, session.timeout_s)
    raw = json.dumps(discover_message(PROBE_ID))
    try:
        response = session.transport.send_then_ping(raw, PROBE_ID, session.timeout_s, ping_meta=stateless_meta())
    except TransportClosedError:
        return ProbeAnswer(None, "made the server exit", exited=_exit_note(session))
    except RequestTimeoutError:
        return ProbeAnswer(None, "got no answer (nor did a ping after it)")
    return ProbeAnswer(response, _describe(response))


def _probe_http(main: Transport, timeout_s: float) -> ProbeAnswer:
    import httpx2

    try:
        reply = _post_probe(main, timeout_s)
        if reply is None or reply.status == TOO_MANY_REQUESTS:
            # A cold start (a package fetched, a runtime warming up) can outlast one probe, and a rate limiter
            # can refuse one: a second probe grades such a server in its own era, not the handshake era.
            reply = _post_probe(main, timeout_s)
    except httpx2.HTTPError as exc:
        return ProbeAnswer(None, f"got no answer ({type(exc).__name__})")
    if reply is None:
        return ProbeAnswer(None, "got no answer (timed out twice)")
    response = reply.response
    note = f"answered HTTP {reply.status}" + (
        f" with {_describe(response).removeprefix('answered with ')}" if response else ""
    )
    return ProbeAnswer(response, note)


def _post_probe(main: Transport, timeout_s: float) -> HttpReply | None:
    """The probe's reply, or None when it timed out."""
    import httpx2

    transport = main.detached_client(timeout_s)
    assert transport is not None, "a transport with a reply per request has a detached client"
    transport.meta = stateless_meta()
    transport.protocol_version = STATELESS_REVISION
    try:
        return transport.raw_request(
            "POST", body=json.dumps(discover_message(PROBE_ID)), session=False, timeout_s=timeout_s
        )
    except httpx2.ConnectError as exc:
        # Refused, DNS, TLS: initialize would meet the same wall (after a second DNS lookup, say).
        raise ServerStartError(f"{connect_failure(transport.url, exc)}; the server cannot be audited") from None
    except httpx2.TimeoutException:
        return None
    finally:
        transport.close()


def _describe(response: JsonObject | None) -> str:
    if response is None:
        return "got no answer"
    code = _error_code(response)
    if code is not None:
        return f"answered with JSON-RPC error {code}"
    return "answered with a result that is not a DiscoverResult"


def _error_code(response: Any) -> Any:
    error = response.get("error") if isinstance(response, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def _exit_note(session: McpSession) -> str:
    process = session.process
    code = process.exit_code(wait_s=1.0) if process is not None else None
    note = "exited" if code is None else f"exited with code {code}"
    tail = process.stderr_tail(STDERR_LINES) if process is not None else ""
    return note + (f" (its stderr ends with: {tail})" if tail else " (it wrote nothing to stderr)")
