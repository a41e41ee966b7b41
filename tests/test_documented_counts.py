"""The check counts the README states are the catalog's."""

from __future__ import annotations

import re
from pathlib import Path

from hookconf.checks.compliance import CHECKS
from hookconf.checks.compliance.catalog import Category

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
WORDS = {"four": 4, "five": 5}


def _count(revision: str) -> int:
    return sum(revision in check.revisions for check in CHECKS.values())


def _practices(revision: str) -> int:
    return sum(revision in check.revisions and check.category is Category.PRACTICES for check in CHECKS.values())


def test_the_readme_counts_the_handshake_catalog_as_it_is() -> None:
    text = " ".join(README.split())
    match = re.search(
        r"(\d+) checks for 2025-11-25 \((\d+), (\d+) and (\d+) for 2024-11-05, 2025-03-26 and "
        r"2025-06-18, which lack some of the rules\), (\d+) of them in the categories .*? plus (\w+) "
        r"best-practice checks",
        text,
    )
    assert match is not None
    latest, oldest, second, third, graded, practices = match.groups()
    assert [int(n) for n in (latest, oldest, second, third)] == [
        _count(r) for r in ("2025-11-25", "2024-11-05", "2025-03-26", "2025-06-18")
    ]
    assert int(graded) == _count("2025-11-25") - _practices("2025-11-25")
    assert WORDS[practices] == _practices("2025-11-25")


def test_the_readme_counts_the_stateless_catalog_as_it_is() -> None:
    text = " ".join(README.split())
    match = re.search(
        r"The 2026-07-28 catalog \((\d+) checks\) carries every id of \S+ 2026-07-28 list \((\d+)\) "
        r"with its category and required flag, plus hookconf's own: the (\w+) best-practice checks, "
        r"(\w+) more that cover mcp-lighthouse checks, and `([a-z-]+)`",
        text,
    )
    assert match is not None
    total, seed, practices, lighthouse, spec_extra = match.groups()
    assert int(total) == _count("2026-07-28")
    assert WORDS[practices] == _practices("2026-07-28")
    assert int(seed) + WORDS[practices] + WORDS[lighthouse] + 1 == int(total)
    assert spec_extra in CHECKS
