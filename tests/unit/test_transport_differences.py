"""Transport differences are methods of the transport: outside hookconf/wire no code asks which transport it has."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hookconf.wire.http import TOO_MANY_REQUESTS, HttpExchange, HttpTransport
from hookconf.wire.recording import Recording
from hookconf.wire.stdio import StdioTransport
from hookconf.wire.transcript import Script, TranscriptTransport

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parents[2] / "hookconf"
TRANSPORT_CLASSES = frozenset({"Transport", "HttpTransport", "StdioTransport", "TranscriptTransport"})
# (file under hookconf/, enclosing function) -> why the isinstance stays.
KEPT = {
    (
        "checks/compliance/context.py",
        "http_transport",
    ): "the typed HTTP view for the checks the catalog runs only against HTTP servers (and for branches taken "
    "only where Transport.one_stream is False): status codes, headers, raw POSTs and DELETEs exist only there",
}


def transport_type_tests(source: str) -> list[tuple[str, int]]:
    """The enclosing function and line of every isinstance(..., <a transport class>) in `source`."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and _names(node.args[1]) & TRANSPORT_CLASSES
        ):
            found.append((function, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(ast.parse(source), "<module>")
    return found


def _names(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Tuple):
        return set().union(*(_names(element) for element in node.elts))
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return set()


def test_the_finder_sees_a_transport_type_test_in_every_spelling() -> None:
    source = (
        "def a(t):\n    return isinstance(t, HttpTransport)\n"
        "def b(t):\n    return isinstance(t, (int, http.StdioTransport))\n"
        "def c(t):\n    return isinstance(t, dict)\n"
    )
    assert transport_type_tests(source) == [("a", 2), ("b", 4)]


def test_no_code_outside_the_wire_layer_tests_which_transport_it_has() -> None:
    found = {
        (path.relative_to(PACKAGE).as_posix(), function): line
        for path in sorted(PACKAGE.rglob("*.py"))
        if "wire" not in path.relative_to(PACKAGE).parts
        for function, line in transport_type_tests(path.read_text(encoding="utf-8"))
    }
    unexpected = {
        f"{path}:{line} in {function}()" for (path, function), line in found.items() if (path, function) not in KEPT
    }
    assert unexpected == set(), "make the difference a method or property of the transport (hookconf/wire)"
    assert set(found) == set(KEPT), "an allow-listed isinstance is gone: drop it from KEPT"


def test_only_http_has_a_reply_per_request() -> None:
    assert StdioTransport.one_stream
    assert TranscriptTransport.one_stream
    assert not HttpTransport.one_stream


def test_http_mirrors_the_revision_in_a_header_and_a_stream_of_messages_ignores_it() -> None:
    http = HttpTransport("http://127.0.0.1:9/mcp", Recording(), {}, 1.0)
    http.mirror_protocol_version("2025-11-25")
    assert http.protocol_version == "2025-11-25"
    http.close()
    transcript = TranscriptTransport(Script({}))
    transcript.mirror_protocol_version("2025-11-25")
    assert not hasattr(transcript, "protocol_version")
    transcript.close()


def test_only_the_latest_http_exchange_decides_whether_the_server_rate_limited() -> None:
    http = HttpTransport("http://127.0.0.1:9/mcp", Recording(), {}, 1.0)
    assert not http.rate_limited()
    http.exchanges.append(HttpExchange("POST", TOO_MANY_REQUESTS, "text/plain"))
    assert http.rate_limited()
    http.exchanges.append(HttpExchange("POST", 200, "application/json"))
    assert not http.rate_limited()
    http.close()
    assert not TranscriptTransport(Script({})).rate_limited()


def test_a_detached_client_shares_the_server_but_not_the_session() -> None:
    http = HttpTransport("http://127.0.0.1:9/mcp", Recording(), {"Authorization": "Bearer t"}, 1.0)
    http.session_id = "s-1"
    detached = http.detached_client(1.0)
    assert (detached.url, detached.configured_headers, detached.session_id) == (http.url, http.configured_headers, None)
    assert detached.recording is not http.recording
    detached.close()
    http.close()
    assert TranscriptTransport(Script({})).detached_client(1.0) is None
