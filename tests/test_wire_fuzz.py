"""Random and malformed frames into the wire layer and the negotiation: whatever a server sends, no exception
escapes them, and every wait ends with an answer or a hookconf error.

Seeded: a failure names its seed and iteration; rerun with HOOKCONF_FUZZ_SEED=<seed> to reproduce it.
"""

from __future__ import annotations

import io
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

import pytest

from hookconf.errors import HookconfError
from hookconf.session import McpSession
from hookconf.wire.http import _request_id, iter_sse_events
from hookconf.wire.stdio import decode_line, pump_lines
from hookconf.wire.transcript import Incoming, Reply, TranscriptTransport, silence
from hookconf.wire.transport import JsonObject, Transport

SEED = int(os.environ.get("HOOKCONF_FUZZ_SEED", "1404"))
WIRE_ITERATIONS = 20_000
NEGOTIATION_ITERATIONS = 1500
TIME_BUDGET_S = 20.0  # a few seconds here; the budget leaves room for a loaded CI machine
ODD_IDS: tuple[Any, ...] = (1, 2, 3, "a", "1", None, True, 1.0, -1, 10**30, [1], {"id": 1}, "\ud800", "")
ODD_VALUES: tuple[Any, ...] = (
    None,
    True,
    0,
    -1.5,
    "",
    "x",
    [],
    {},
    [[]],
    {"a": {}},
    "2025-11-25",
    "\ud800",
    10**40,
    "9999-99-99",
)


# --- frames ------------------------------------------------------------------------------------------------
def odd_message(rng: random.Random) -> Any:
    kind = rng.randrange(6)
    request_id = rng.choice(ODD_IDS)
    if kind == 0:
        return {"jsonrpc": "2.0", "id": request_id, "result": rng.choice(ODD_VALUES)}
    if kind == 1:
        return {"jsonrpc": "2.0", "id": request_id, "error": rng.choice([*ODD_VALUES, {"code": -32601}])}
    if kind == 2:
        return {
            "jsonrpc": rng.choice(["2.0", "1.0", None]),
            "method": rng.choice(["ping", "notifications/x", 7]),
            "id": request_id,
        }
    if kind == 3:
        return [odd_message(rng) for _ in range(rng.randrange(4))]
    if kind == 4:
        return rng.choice(ODD_VALUES)
    return {
        "jsonrpc": "2.0",
        "method": rng.choice(["notifications/message", "ping", None]),
        "params": rng.choice(ODD_VALUES),
    }


def nested(rng: random.Random) -> bytes:
    depth = rng.choice([2, 127, 128, 129, 500, 1200, 50_000])
    body = b"[" * depth + b"]" * depth if rng.random() < 0.5 else b'{"a":' * depth + b"1" + b"}" * depth
    return b'{"jsonrpc":"2.0","id":%d,"result":' % rng.randrange(1, 4) + body + b"}"


def mutated(rng: random.Random, line: bytes) -> bytes:
    cut = rng.randrange(len(line) + 1)
    choice = rng.randrange(5)
    if choice == 0:
        return line[:cut]  # truncated
    if choice == 1:
        return line[:cut] + bytes([rng.randrange(256)]) + line[cut:]  # a random byte, often invalid UTF-8
    if choice == 2:
        return line[:cut] + b"\xed\xa0\x80" + line[cut:]  # an encoded surrogate: never valid UTF-8
    if choice == 3:
        return line[:cut] + b"\r\n" + line[cut:]  # split in two
    return line.replace(b"2.0", b"\xff\xfe", 1)


def random_frame(rng: random.Random) -> bytes:
    kind = rng.randrange(7)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    if kind == 1:
        return nested(rng)
    if kind == 2:
        return b'{"jsonrpc":"2.0","id":1,"result":' + b"1" * rng.choice([10, 5000]) + b"}"  # int too long
    if kind == 3:
        return rng.choice([b"NaN", b"[NaN, -Infinity]", b'{"id": Infinity}', b'"\\ud800"', b"{}", b"[]", b""])
    line = json.dumps(odd_message(rng), ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
    return mutated(rng, line) if kind in (4, 5) else line


# --- the wire layer ----------------------------------------------------------------------------------------
def expect_some(rng: random.Random, transport: Transport) -> list[Future[JsonObject]]:
    futures = []
    for request_id in rng.sample([1, 2, 3, "a", None], rng.randrange(4)):
        try:
            futures.append(transport._expect(request_id, "fuzz"))
        except HookconfError:
            break  # the transport closed (an oversized line): later requests are refused, as they should be
    return futures


def assert_every_wait_is_sound(futures: list[Future[JsonObject]]) -> None:
    for future in futures:
        if not future.done():
            continue
        error = future.exception()
        if error is None:
            assert isinstance(future.result(), dict)
        else:
            assert isinstance(error, HookconfError), repr(error)


def feed_wire(rng: random.Random, transport: Transport) -> list[Future[JsonObject]]:
    futures = expect_some(rng, transport)
    frames = b"\n".join(random_frame(rng) for _ in range(rng.randrange(1, 6))) + b"\n"
    mode = rng.randrange(4)
    if mode == 0:
        pump_lines(io.BytesIO(frames), transport, max_line_bytes=rng.choice([16, 512, 1 << 20]))
    elif mode == 1:
        for line in frames.split(b"\n"):
            assert isinstance(decode_line(line)[0], str)
            transport.deliver(line.decode("utf-8", "surrogateescape"), reply_to=rng.choice([None, 1, "a"]))
    elif mode == 2:
        text = frames.decode("utf-8", "replace").replace("\n", "\ndata: ")
        for event in iter_sse_events(iter(f"data: {text}\n\n".splitlines())):
            transport.deliver(event.data, reply_to=rng.choice([None, 1, 2]))
    else:
        for line in frames.split(b"\n"):
            _request_id(line.decode("utf-8", "replace"))
    return futures


def test_no_frame_makes_an_exception_escape_the_wire_layer() -> None:
    rng = random.Random(SEED)
    started = time.monotonic()
    for iteration in range(WIRE_ITERATIONS):
        try:
            assert_every_wait_is_sound(feed_wire(rng, TranscriptTransport(silence)))
        except BaseException as exc:
            pytest.fail(f"seed {SEED}, iteration {iteration}: {exc!r} escaped the wire layer")
    elapsed = time.monotonic() - started
    print(f"wire fuzz: {WIRE_ITERATIONS} iterations in {elapsed:.2f} s (seed {SEED})")
    assert elapsed < TIME_BUDGET_S


# --- the negotiation ---------------------------------------------------------------------------------------
def scripted_answers(rng: random.Random) -> Callable[[Incoming], Sequence[Reply]]:
    """Answers each request with an odd result, a broken line, a wrong id or nothing at all."""

    def answer(incoming: Incoming) -> Sequence[Reply]:
        message = incoming.message
        if not isinstance(message, dict) or "id" not in message:
            return []
        request_id = message["id"]
        choice = rng.randrange(6)
        if choice == 0:
            return []
        if choice == 1:
            return [Reply(random_frame(rng).decode("utf-8", "replace"))]
        result: Any = rng.choice(ODD_VALUES)
        if choice in (2, 3):
            result = {
                "protocolVersion": rng.choice(ODD_VALUES),
                "capabilities": rng.choice(ODD_VALUES),
                "serverInfo": rng.choice(ODD_VALUES),
                "instructions": rng.choice(ODD_VALUES),
                "tools": rng.choice([*ODD_VALUES, [{"name": "t"}, 3]]),
                "nextCursor": rng.choice(ODD_VALUES),
            }
        answer_id = request_id if choice != 4 else rng.choice(ODD_IDS)
        return [Reply({"jsonrpc": "2.0", "id": answer_id, "result": result})]

    return answer


def test_no_answer_makes_an_exception_escape_the_negotiation() -> None:
    rng = random.Random(SEED)
    started = time.monotonic()
    for iteration in range(NEGOTIATION_ITERATIONS):
        session = McpSession(transport=TranscriptTransport(scripted_answers(rng)), timeout_s=0.001, process=None)
        try:
            identity = session.initialize(offer=rng.choice(["2025-11-25", "2025-06-18", "2024-11-05"]))
            assert identity.protocol_version in ("2025-11-25", "2025-06-18", "2024-11-05")
            session.list_tools()
            session.call_tool("t", {})
        except HookconfError:
            pass  # a refusal to go on, with a message: what a hostile answer may cause
        except BaseException as exc:
            pytest.fail(f"seed {SEED}, iteration {iteration}: {exc!r} escaped the negotiation")
    elapsed = time.monotonic() - started
    print(f"negotiation fuzz: {NEGOTIATION_ITERATIONS} iterations in {elapsed:.2f} s (seed {SEED})")
    assert elapsed < TIME_BUDGET_S


# --- the rules, one frame at a time -------------------------------------------------------------------------
def test_a_stray_log_line_ends_no_wait_and_is_no_jsonrpc_fault() -> None:
    transport = TranscriptTransport(silence)
    waiting = transport._expect(1, "initialize")
    transport.deliver("[info] listening on stdio")
    assert not waiting.done()
    assert transport.recording.faults() == []
    transport.deliver('{"jsonrpc":"2.0","id":1,"result":{}}')
    assert waiting.result() == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_an_unreadable_answer_fails_the_request_whose_id_it_names() -> None:
    transport = TranscriptTransport(silence)
    first, second = transport._expect(1, "ping"), transport._expect(2, "tools/list")
    transport.deliver('{"jsonrpc":"2.0","id":2,"result":{"tools":[' + "[" * 200 + "]" * 200 + "]}}")
    assert not first.done()
    with pytest.raises(HookconfError, match=r"request 2 \(tools/list\) could not be read: nested more than 128"):
        second.result()
    assert [f.kind for f in transport.recording.faults()] == ["json-rpc"]


def test_a_response_to_no_request_answers_the_oldest_waiting_and_is_recorded() -> None:
    transport = TranscriptTransport(silence)
    transport.send({"jsonrpc": "2.0", "id": 7, "method": "ping"})  # answered below, so not a stray id
    first, second = transport._expect(8, "ping"), transport._expect(9, "ping")
    transport.deliver('{"jsonrpc":"2.0","id":7,"result":{}}')  # late: ignored
    transport.deliver('{"jsonrpc":"2.0","id":true,"result":{"n":1}}')  # true is not an id hookconf sent
    transport.deliver('{"jsonrpc":"2.0","id":[9],"result":{"n":2}}')
    assert first.result()["result"] == {"n": 1}
    assert second.result()["result"] == {"n": 2}
    details = [f.detail for f in transport.recording.faults("id-match")]
    assert details == [
        "a response carried the id true, which matches no request; taken as the answer to request 8 (ping)",
        "a response carried the id [9], which matches no request; taken as the answer to request 9 (ping)",
    ]


def test_an_unreadable_answer_to_a_raw_line_is_silence_from_a_server_that_still_serves() -> None:
    def answers(incoming: Incoming) -> Sequence[Reply]:
        if incoming.method == "ping":
            return [Reply({"jsonrpc": "2.0", "id": incoming.id, "result": {}})]
        return [Reply('{"jsonrpc":"2.0","id":"raw-1","error":{"code":-32601,"message":"cut')]

    transport = TranscriptTransport(answers)
    raw = json.dumps({"jsonrpc": "2.0", "id": "raw-1", "method": "no/such"})
    assert transport.send_then_ping(raw, "raw-1", timeout_s=1.0) is None
    assert "not JSON" in transport.recording.faults("json-rpc")[0].detail
