"""The transcript transport records and frames a scripted server's lines as stdio would."""

from __future__ import annotations

import pytest

from hookconf.errors import RequestTimeoutError, TransportClosedError
from hookconf.wire.transcript import Script, TranscriptTransport, hang_up, lines, result

pytestmark = pytest.mark.unit


def test_both_directions_are_recorded_and_bytes_that_are_no_utf8_are_a_framing_fault() -> None:
    transport = TranscriptTransport(Script({"ping": lines(b'{"jsonrpc":"2.0","id":1,"result":{"t":"\xff"}}')}))
    answer = transport.request("ping", None, 1.0)
    assert answer["result"] == {"t": "\ufffd"}
    recorded = [(m.direction, m.message) for m in transport.recording.messages()]
    assert recorded == [
        ("sent", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        ("received", {"jsonrpc": "2.0", "id": 1, "result": {"t": "\ufffd"}}),
    ]
    assert [f.kind for f in transport.recording.faults()] == ["framing"]
    assert [line.method for line in transport.read] == ["ping"]


def test_an_answer_later_than_the_timeout_times_the_request_out() -> None:
    transport = TranscriptTransport(Script({"ping": result({}, after_s=0.2)}))
    with pytest.raises(RequestTimeoutError):
        transport.request("ping", None, 0.05)
    assert transport.request("ping", None, 1.0)["result"] == {}
    transport.close()


def test_a_server_that_hangs_up_ends_every_later_request() -> None:
    transport = TranscriptTransport(Script({"ping": hang_up}))
    with pytest.raises(TransportClosedError, match="hung up"):
        transport.request("ping", None, 1.0)
    with pytest.raises(TransportClosedError):
        transport.request("tools/list", None, 1.0)
