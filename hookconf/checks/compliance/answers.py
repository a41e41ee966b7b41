"""Reading a server's answer (an error, its code, why it is no success) and the not-evaluable verdicts that
rest on an answer rather than on the server."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from hookconf.checks.backend import one_line, unreachable_backend
from hookconf.checks.compliance.catalog import Outcome, undecided
from hookconf.verdicts import Status

if TYPE_CHECKING:
    from hookconf.checks.compliance.context import ComplianceContext


def not_evaluable_without_discover(ctx: ComplianceContext, consequence: str = "") -> Outcome | None:
    """Since 2026-07-28 what the server says about itself, and what its rejections mean, rest on the
    conformant server/discover: when it was not served, the check fails as not evaluable."""
    if ctx.stateless and not ctx.discover_served:
        return Outcome(
            Status.FAIL,
            f"not evaluable: the conformant server/discover was not served{consequence} (see lifecycle-discover)",
        )
    return None


def not_evaluable_rejection(ctx: ComplianceContext) -> Outcome | None:
    """A rejection is credited only when the conformant server/discover was served: a server that rejects
    everything proves nothing by rejecting a malformed request too."""
    return not_evaluable_without_discover(ctx, " either, so the rejection says nothing about this request")


def error_code(response: Any) -> Any:
    if isinstance(response, dict) and isinstance(response.get("error"), dict):
        return response["error"].get("code")
    return None


def is_error(response: Any) -> bool:
    return isinstance(response, dict) and "error" in response


def failure_text(response: Any) -> str | None:
    """Why an answer is no success: "no answer", the error's code, message and data, or the text of an isError
    result; None for a successful result."""
    if response is None:
        return "no answer"
    if is_error(response):
        error = response["error"]
        if not isinstance(error, dict):
            return f"error {json.dumps(error)[:200]}"
        data = error.get("data")
        text = f"error {error.get('code')}: {error.get('message')}"
        return text if data is None else f"{text} ({data if isinstance(data, str) else json.dumps(data)})"
    result = response.get("result") if isinstance(response, dict) else None
    if isinstance(result, dict) and result.get("isError") is True:
        texts = [
            str(block.get("text"))
            for block in result.get("content") or []
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        return "isError: " + (" ".join(texts) or "no text")
    return None


def backend_failure(response: Any) -> str | None:
    """The message of a failed answer that names a backend out of reach (the sandbox's fault); else None."""
    text = failure_text(response)
    return unreachable_backend(text) if text is not None else None


def not_evaluable(without: str, failure: str) -> Outcome:
    """A check that would blame an input, when the same call fails without that input too."""
    return undecided(f"not evaluable: the call fails without {without} as well: {one_line(failure, 300)}")


def describe(response: Any) -> str:
    if response is None:
        return "no answer"
    if is_error(response):
        error = response["error"]
        return f"error {error.get('code')} ({str(error.get('message'))[:80]})"
    if isinstance(response, dict) and "result" in response:
        return "a result"
    return f"{json.dumps(response)[:80]}"
