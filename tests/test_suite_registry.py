"""The hook suites' one list: HOOK_SUITES declares the names in report order, each suite module registers one of
them, and loading the checks fails when the two disagree, so that no suite is left out of an audit silently."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hookconf import HOOK_SUITES
from hookconf.checks import SUITES
from hookconf.checks.registry import hook_suite, seal_suites


def load_checks_with_declared(declared: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """Import hookconf.checks in a fresh interpreter whose HOOK_SUITES is `declared`."""
    probe = (
        "import hookconf\n"
        f"hookconf.HOOK_SUITES = {declared!r}\n"
        "import hookconf.checks\n"
        "print('LOADED', list(hookconf.checks.SUITES))"
    )
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)


def test_the_registry_holds_the_declared_suites_in_their_order() -> None:
    assert list(SUITES) == list(HOOK_SUITES)


def test_a_suite_registered_but_not_declared_fails_at_import() -> None:
    completed = load_checks_with_declared(tuple(name for name in HOOK_SUITES if name != "dsgvo"))
    assert completed.returncode != 0
    assert "RuntimeError: suite dsgvo is not declared in hookconf.HOOK_SUITES" in completed.stderr
    assert "LOADED" not in completed.stdout


def test_a_suite_declared_but_not_registered_fails_at_import() -> None:
    completed = load_checks_with_declared((*HOOK_SUITES, "speed"))
    assert completed.returncode != 0
    assert "RuntimeError: suite speed is declared in hookconf.HOOK_SUITES but no module" in completed.stderr
    assert "LOADED" not in completed.stdout


def test_the_declared_order_is_the_registry_order_whatever_the_import_order() -> None:
    reordered = (*HOOK_SUITES[1:], HOOK_SUITES[0])
    completed = load_checks_with_declared(reordered)
    assert completed.stdout.strip() == f"LOADED {list(reordered)}", completed.stderr


def test_registering_an_undeclared_name_raises_and_leaves_the_registry_alone() -> None:
    with pytest.raises(RuntimeError, match="suite speed is not declared"):
        hook_suite("speed", weight=1, summary="not a suite")
    with pytest.raises(RuntimeError, match=r"suite speed is declared .* but no module"):
        seal_suites((*HOOK_SUITES, "speed"))
    assert list(SUITES) == list(HOOK_SUITES)
