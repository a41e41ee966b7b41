"""What the server sent and was sent in this run's era: the main session's recording and every other one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hookconf.wire.recording import RecordedMessage, Recording
from hookconf.wire.transport import JsonObject


def _items(entry: RecordedMessage) -> list[Any]:
    """The JSON-RPC messages of one recorded line: a batch's members, or the message itself."""
    return entry.message if isinstance(entry.message, list) else [entry.message]


@dataclass(frozen=True)
class MessageLog:
    """Queries over the recordings: `main` is the current session's, `others` those of fresh sessions and of
    servers replaced after a death or a hang, in the order they came."""

    main: Recording
    others: list[Recording]

    def recordings(self) -> list[Recording]:
        return [self.main, *self.others]

    def received_count(self) -> int:
        """How many lines the main session received so far: a mark for `received_since`."""
        return len(self.main.received())

    def received_since(self, mark: int) -> list[RecordedMessage]:
        return self.main.received()[mark:]

    def sent_requests(self) -> list[JsonObject]:
        """The requests sent on the main session (messages with a method; notifications included)."""
        return [
            m.message
            for m in self.main.messages()
            if m.direction == "sent" and isinstance(m.message, dict) and "method" in m.message
        ]

    def all_received(self) -> list[Any]:
        """Every JSON message received in this run's era, on every session."""
        return [
            item
            for recording in self.recordings()
            for entry in recording.received()
            if entry.is_json
            for item in _items(entry)
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
                for item in _items(entry):
                    answered = isinstance(item, dict) and "result" in item and isinstance(item.get("id"), (str, int))
                    method = sent.get(item["id"]) if answered else None
                    if method is not None and (not methods or method in methods) and isinstance(item["result"], dict):
                        found.append((str(method), item["result"]))
        return found

    def received_messages(self) -> list[Any]:
        """Every JSON message the main session received."""
        messages: list[Any] = []
        for entry in self.main.received():
            if entry.is_json:
                messages.extend(_items(entry))
        return messages

    def error_responses(self) -> list[JsonObject]:
        return [m for m in self.received_messages() if isinstance(m, dict) and isinstance(m.get("error"), dict)]

    def answer_since(self, mark: int, expect_id: Any) -> JsonObject | None:
        """The response received since `mark` that carries `expect_id` (when given), else an error that came
        back with id null instead of the request's id: that still is an answer."""
        received = [entry.message for entry in self.received_since(mark)]
        responses = [m for m in received if isinstance(m, dict) and "method" not in m]
        if expect_id is not None:
            answer = next((m for m in responses if m.get("id") == expect_id), None)
            if answer is not None:
                return answer
        return next((m for m in responses if m.get("id") is None and isinstance(m.get("error"), dict)), None)

    def tool_call_answer(self, name: str, arguments: Any) -> tuple[bool, JsonObject | None]:
        """Whether this tools/call was made on the main session, and its answer (None when none came)."""
        sent_ids = {
            message.get("id")
            for message in self.sent_requests()
            if message.get("method") == "tools/call"
            and isinstance(message.get("params"), dict)
            and message["params"].get("name") == name
            and message["params"].get("arguments") == arguments
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
