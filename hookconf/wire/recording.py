"""A timestamped recording of every message in both directions."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

Direction = Literal["sent", "received"]


@dataclass(frozen=True)
class RecordedMessage:
    at: float  # seconds since the recording started
    direction: Direction
    raw: str
    message: Any  # the decoded JSON, or None when the raw text was not JSON

    @property
    def is_json(self) -> bool:
        return self.message is not None


class Recording:
    def __init__(self) -> None:
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._messages: list[RecordedMessage] = []

    def add(self, direction: Direction, raw: str, message: Any) -> None:
        entry = RecordedMessage(time.monotonic() - self._started, direction, raw, message)
        with self._lock:
            self._messages.append(entry)

    def messages(self) -> list[RecordedMessage]:
        with self._lock:
            return list(self._messages)

    def received(self) -> list[RecordedMessage]:
        return [m for m in self.messages() if m.direction == "received"]
