"""Calls whose answer is an error: in disguise (isError false), or naming a backend the sandbox cannot reach.

A series of calls that contains such an answer says nothing about the tool's idempotency, determinism or
latency: it is the error that repeats, not the tool's output. The classifier is conservative on purpose:
an answer counts as an error only when its text starts like one, or when it is short and names an
unreachable backend, so that an ordinary output that merely mentions an error is never taken for one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hookconf.checks.backend import UNREACHABLE_BACKEND, sandbox_note, unreachable_backend
from hookconf.checks.registry import BACKEND_UNREACHABLE, CALL_FAILED
from hookconf.session import CallOutcome
from hookconf.wire.transport import JsonObject

# "Error <action>ing ...": the actions a tool reports failing at (not "Error handling", not "Error rate").
FAILED_ACTIONS = (
    "search",
    "fetch",
    "execut",
    "call",
    "process",
    "read",
    "writ",
    "load",
    "gett",
    "creat",
    "runn",
    "pars",
    "connect",
    "retriev",
    "query",
    "list",
    "send",
    "open",
    "sav",
    "updat",
    "delet",
    "invok",
)
ERROR_OPENING = re.compile(
    r"^\W{0,3}(?:"
    r"error(?:\s*[:!(\u2013\u2014]|\s+-\s|\s+\d{3}\b|\s*$|\s+(?:while|when|during|in|calling|occurred|"
    rf"(?:{'|'.join(FAILED_ACTIONS)})ing)\b)"  # "Error: ...", "Error searching libraries: ...", "ERROR 500"
    r"|failed to\b|failed:|failure:"
    r"|(?:an? )?(?:unexpected |internal |unknown )?error (?:occurred|has occurred|was raised)"
    r"|traceback \(most recent call last\)"
    r"|[A-Za-z_][\w.]*(?:Error|Exception)\b\s*:"  # an exception named first: "TypeError: fetch failed"
    r")",
    re.IGNORECASE,
)
FIRST_WORD = re.compile(r"[A-Za-z]{3,}")
SHORT_ANSWER_CHARS = 300  # a backend named in a longer text is likelier part of real content
# "Document hookconf.docx does not exist": the thing the call named is not there. Counted only in a short
# answer that names an argument of the call, so a listing that says "No documents found" is never one.
NOT_THERE = re.compile(
    r"\b(?:does not|doesn't|did not|do not) exist\b|\b(?:was |were |is |are )?not found\b"
    r"|\bcould not be found\b|\bcannot be found\b|\bno such\b",
    re.IGNORECASE,
)
NOT_THERE_CHARS = 200
MIN_ARGUMENT_CHARS = 3
QUOTE_CHARS = 120
ERROR_OBJECT_KEYS = {"error", "message", "code", "status", "success", "details"}
# What differs between two reports of the same error: ids, hex digests, counters, ports, durations.
VOLATILE_IN_ERRORS = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}|\b[0-9a-fA-F]{16,}\b|\d+(?:\.\d+)?")


def result_text(outcome: CallOutcome) -> str:
    """The text blocks of a call's result, joined."""
    blocks = (outcome.result or {}).get("content") or []
    return "\n".join(str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def disguised_error(outcome: CallOutcome, arguments: JsonObject | None = None) -> str | None:
    """The error text of a result that reads as an error while isError is false; else None.

    An answer whose first word repeats the input (an example message of type "error", say) is no evidence.
    """
    if outcome.result is None or outcome.result.get("isError"):
        return None
    text = result_text(outcome).strip()
    if not text or _echoes_input(text, arguments or {}):
        return None
    if ERROR_OPENING.match(text) or _is_error_object(text) or _names_a_missing_input(text, arguments or {}):
        return quoted(text)
    backend = UNREACHABLE_BACKEND.search(text) if len(text) <= SHORT_ANSWER_CHARS else None
    if backend is not None and not _in_arguments(backend.group(), arguments or {}):
        return quoted(text)
    return None


def _echoes_input(text: str, arguments: JsonObject) -> bool:
    first_word = FIRST_WORD.search(text)
    return first_word is not None and _in_arguments(first_word.group(), arguments)


def _in_arguments(word: str, arguments: JsonObject) -> bool:
    return any(word.lower() in value.lower() for value in _strings(arguments))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _is_error_object(text: str) -> bool:
    """A JSON object that carries an error: {"error": "..."} and nothing else, or {"success": false, "error":
    "...", ...} whatever else it echoes (the table it looked for, an errorType)."""
    if not text.startswith("{"):
        return False
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return False
    if not isinstance(value, dict) or not value.get("error") or value.get("success") is True:
        return False
    return set(value) <= ERROR_OBJECT_KEYS or value.get("success") is False


def _names_a_missing_input(text: str, arguments: JsonObject) -> bool:
    """A short answer saying that a thing the call named does not exist or was not found."""
    if len(text) > NOT_THERE_CHARS or "\n" in text.strip() or not NOT_THERE.search(text):
        return False
    return any(len(value) >= MIN_ARGUMENT_CHARS and value.lower() in text.lower() for value in _strings(arguments))


def error_message(outcome: CallOutcome, arguments: JsonObject | None = None) -> str | None:
    """What a failed call said: the JSON-RPC error message, the isError text, or the disguised error."""
    if outcome.timed_out:
        return None
    if outcome.error is not None:
        return str(outcome.error.get("message") or "")
    if outcome.result is not None and outcome.result.get("isError"):
        return result_text(outcome)
    return disguised_error(outcome, arguments)


def failure_signature(outcome: CallOutcome, arguments: JsonObject | None = None) -> str | None:
    """What a failed call said with its numbers and ids masked, so that two reports of one error compare
    equal; None for a call that did not fail (or got no answer: a hang is handled on its own)."""
    if outcome.timed_out or not (outcome.failed or disguised_error(outcome, arguments) is not None):
        return None
    code = outcome.error.get("code") if outcome.error is not None else None
    message = error_message(outcome, arguments) or ""
    return f"{code}:{VOLATILE_IN_ERRORS.sub('#', ' '.join(message.split()))}"


def backend_message(outcome: CallOutcome, arguments: JsonObject | None = None) -> str | None:
    """The message of a failed (or disguised-error) call that names an unreachable backend."""
    message = error_message(outcome, arguments)
    return unreachable_backend(message) if message else None


def backend_failure(samples: Sequence[CallOutcome], arguments: JsonObject) -> str | None:
    """The first message in the series that names a backend out of reach, or None."""
    return next((message for sample in samples if (message := backend_message(sample, arguments)) is not None), None)


def quoted(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= QUOTE_CHARS else one_line[: QUOTE_CHARS - 3] + "..."


@dataclass(frozen=True)
class Undecidable:
    """Why a series of calls cannot be judged, with the finding code that says so."""

    reason: str
    code: str


def undecidable(samples: Sequence[CallOutcome], arguments: JsonObject, calls: str = "calls") -> Undecidable | None:
    """Why the series cannot show the tool's behaviour, or None when it can.

    A backend out of reach comes first (the sandbox's fault, whatever else happened), then answers that
    are errors without isError, then a series whose every call failed.
    """
    backend = backend_failure(samples, arguments)
    if backend is not None:
        return Undecidable(sandbox_note(backend), BACKEND_UNREACHABLE.code)
    disguised = [text for sample in samples if (text := disguised_error(sample, arguments)) is not None]
    if disguised:
        return Undecidable(
            f"{len(disguised)} of {len(samples)} {calls} answered with an error while isError "
            f"is false ({disguised[0]}); an error is not the tool's output (see CALL-003)",
            CALL_FAILED.code,
        )
    if samples and all(sample.failed for sample in samples):
        return Undecidable(f"all {len(samples)} {calls} failed: {samples[0].describe_failure()}", CALL_FAILED.code)
    return None
