"""A timestamped recording of every message in both directions."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

Direction = Literal["sent", "received"]
# What kind of rule a broken message breaks, and so which check judges it.
FaultKind = Literal["framing", "json-rpc", "id-match"]
FRAMING: FaultKind = "framing"  # stdio-framing: bytes that are not UTF-8 lines of bounded length
JSON_RPC: FaultKind = "json-rpc"  # lifecycle-jsonrpc: a message that does not decode to a JSON-RPC object
ID_MATCH: FaultKind = "id-match"  # lifecycle-id-match: a response to no request


@dataclass(frozen=True)
class RecordedMessage:
    at: float  # seconds since the recording started
    direction: Direction
    raw: str
    message: Any  # the decoded JSON, or None when the raw text was not JSON

    @property
    def is_json(self) -> bool:
        return self.message is not None


@dataclass(frozen=True)
class WireFault:
    """A received message that breaks the wire's rules, seen as it arrived."""

    at: float
    kind: FaultKind
    detail: str


class Recording:
    def __init__(self) -> None:
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._messages: list[RecordedMessage] = []
        self._faults: list[WireFault] = []

    def add(self, direction: Direction, raw: str, message: Any) -> None:
        entry = RecordedMessage(time.monotonic() - self._started, direction, raw, message)
        with self._lock:
            self._messages.append(entry)

    def messages(self) -> list[RecordedMessage]:
        with self._lock:
            return list(self._messages)

    def received(self) -> list[RecordedMessage]:
        return [m for m in self.messages() if m.direction == "received"]

    def add_fault(self, kind: FaultKind, detail: str) -> None:
        fault = WireFault(time.monotonic() - self._started, kind, detail)
        with self._lock:
            self._faults.append(fault)

    def faults(self, kind: FaultKind | None = None) -> list[WireFault]:
        with self._lock:
            return [f for f in self._faults if kind is None or f.kind == kind]
