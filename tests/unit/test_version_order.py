"""Versions in the order their registry gives them: semver for npm, PEP 440 for PyPI, and the mixed cases."""

from __future__ import annotations

import pandas as pd
import pytest

from hookconf.fleet.tables import in_version_order
from hookconf.fleet.versions import is_prerelease, latest_versions, sorted_versions


def test_npm_puts_pre_releases_before_their_release_in_semver_precedence() -> None:
    released = ["1.0.0", "1.0.0-canary.10", "0.9.9", "1.0.0-canary.5", "1.0.0-rc.1", "1.0.0-alpha", "1.0.0-alpha.1"]
    assert sorted_versions(released, "npm") == [
        "0.9.9",
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-canary.5",
        "1.0.0-canary.10",
        "1.0.0-rc.1",
        "1.0.0",
    ]


def test_a_hyphen_number_is_a_pre_release_on_npm_and_a_post_release_on_pypi() -> None:
    assert sorted_versions(["1.0.0-1", "1.0.0"], "npm") == ["1.0.0-1", "1.0.0"]
    assert sorted_versions(["1.0.0-1", "1.0.0"], "pypi") == ["1.0.0", "1.0.0-1"]
    assert is_prerelease("1.0.0-1", "npm")
    assert not is_prerelease("1.0.0-1", "pypi")


def test_pypi_orders_by_pep_440() -> None:
    released = ["1.0.0.post1", "1.0.0", "1.0.0rc1", "1.0.0.dev3", "0.10", "0.9"]
    assert sorted_versions(released, "pypi") == ["0.9", "0.10", "1.0.0.dev3", "1.0.0rc1", "1.0.0", "1.0.0.post1"]


@pytest.mark.parametrize("registry", ["npm", "pypi"])
def test_latest_skips_pre_releases(registry: str) -> None:
    released = ["2.0.0", "2.1.0-beta.1" if registry == "npm" else "2.1.0b1", "1.9.0", "1.10.0"]
    assert latest_versions(released, 2, registry) == ["1.10.0", "2.0.0"]


def test_a_source_without_a_registry_reads_semver_pre_releases_too() -> None:
    assert sorted_versions(["1.0.0", "1.0.0-canary.5", "0.9.9", "2026.1.2"]) == [
        "0.9.9",
        "1.0.0-canary.5",
        "1.0.0",
        "2026.1.2",
    ]


def test_fleet_tables_order_each_server_by_its_registry() -> None:
    frame = pd.DataFrame(
        {
            "server": ["js", "js", "py", "py"],
            "version": ["1.0.0", "1.0.0-1", "1.0.0-1", "1.0.0"],
            "source": ["npm", "npm", "pypi", "pypi"],
        }
    )
    ordered = in_version_order(frame)
    assert list(zip(ordered["server"], ordered["version"], strict=True)) == [
        ("js", "1.0.0-1"),
        ("js", "1.0.0"),
        ("py", "1.0.0"),
        ("py", "1.0.0-1"),
    ]
