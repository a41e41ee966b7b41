"""Errors that name a backend the server could not reach: the audit's sandbox, not the server, is at fault.

hookconf audits servers offline, so a tool that calls an API, a database or a search index fails with the
transport error of that backend. Such an error says nothing about the server's own conformance: a check
that meets one is indeterminate, quoting the message, never a FAIL.
"""

from __future__ import annotations

import functools
import re

UNREACHABLE_BACKEND = re.compile(
    r"ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH"
    r"|connection refused|connect(?:ion)? timed? ?out|network is unreachable|no route to host"
    r"|getaddrinfo|name or service not known|temporary failure in name resolution|nodename nor servname"
    r"|failed to resolve|could not resolve host|name resolution|dns lookup failed"
    r"|fetch failed|failed to fetch|socket hang up|max retries exceeded|failed to establish a new connection"
    r"|ConnectError|ConnectTimeout|ConnectionError|ServerSelectionTimeoutError"
    r"|no such host|UnknownHostException|cannot connect to host|UND_ERR_CONNECT_TIMEOUT"
    r"|HTTPS?ConnectionPool\(host=|timeout of \d+ ?ms exceeded"
    # In words, as servers put it after their own retries: "Could not connect to arXiv after 3 attempts. Please check
    # your network connection", curl's "Couldn't connect to server", .NET's "Unable to connect to the remote server".
    r"|could(?:\s+not|n['\u2019]?t)\s+connect\s+to\b|(?:unable|failed)\s+to\s+connect\s+to\b"
    r"|check\s+(?:your|the)\s+(?:network|internet)\s+connection|no\s+internet\s+connection"
    r"|\bnetwork\s+error\s*(?:[:.!)\]]|$)"
    r"|host\s+(?:is\s+)?unreachable|EAI_(?:NONAME|FAIL|NODATA)|ENETDOWN|\bgaierror\b",
    re.IGNORECASE,
)
MESSAGE_CHARS = 200


# Checks ask this of the same few messages hundreds of times in one audit, and one scan of a long answer
# (an error that echoes a 128 KiB argument) takes tens of milliseconds.
@functools.lru_cache(maxsize=1024)
def unreachable_backend(text: str) -> str | None:
    """The message, shortened, when the text names a backend that could not be reached; else None."""
    if not UNREACHABLE_BACKEND.search(text):
        return None
    return one_line(text)


def one_line(text: str, limit: int = MESSAGE_CHARS) -> str:
    """A server's message for a verdict: whitespace runs as one space, at most `limit` characters."""
    message = " ".join(text.split())
    return message if len(message) <= limit else message[: limit - 3] + "..."


def sandbox_note(message: str) -> str:
    """The reason an indeterminate verdict gives when a backend was out of reach."""
    return (
        f"the server could not reach a backend ({message}); hookconf audits offline, so this says "
        "nothing about the server itself"
    )
