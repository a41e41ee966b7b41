"""The compliance checks see a narrow context: only it (and the runner) reach the session, and the probes several
checks judge are kept under typed keys."""

from __future__ import annotations

import ast
from pathlib import Path

from hookconf.checks import compliance
from hookconf.checks.compliance.probe_cache import Key, ProbeCache

COMPLIANCE_PACKAGE = Path(compliance.__file__).parent
CONTEXT_MODULE = "context.py"


def session_reads(source: str) -> list[int]:
    """The lines of `source` that read an attribute named `session` (ctx.session, anything.session)."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr == "session"
    )


def test_session_reads_finds_a_reach_through() -> None:
    assert session_reads("def check(ctx):\n    return ctx.session.identity\n") == [2]
    assert session_reads("def check(ctx, session):\n    return session.identity, ctx.fresh_session()\n") == []


def test_no_check_module_but_the_context_reads_the_session() -> None:
    modules = sorted(COMPLIANCE_PACKAGE.glob("*.py"))
    assert len(modules) > 5, "the compliance package was not found"
    reads = {
        path.name: lines
        for path in modules
        if path.name != CONTEXT_MODULE and (lines := session_reads(path.read_text(encoding="utf-8")))
    }
    assert reads == {}, f"modules reaching through the context to the session (file: lines): {reads}"


def test_the_probe_cache_makes_an_entry_once_even_when_it_is_none() -> None:
    cache = ProbeCache()
    made: list[str] = []

    def make() -> str | None:
        made.append("call")
        return None

    key: Key[str | None] = Key("call", "echo")
    assert cache.get_or_make(key, make) is None
    assert cache.get_or_make(key, make) is None
    assert made == ["call"]
    assert key in cache


def test_probe_cache_keys_of_different_kinds_do_not_collide() -> None:
    cache = ProbeCache()
    cache.put(Key[str]("probe", "invalid-json"), "answer")
    assert Key[list[str]]("arrived", "invalid-json") not in cache
    assert cache.get(Key[list[str]]("arrived", "invalid-json"), []) == []
    assert cache[Key[str]("probe", "invalid-json")] == "answer"
