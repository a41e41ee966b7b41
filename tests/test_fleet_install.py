"""Real installs from local packages, no registry: wheels into uv venvs, an npm tarball into a prefix."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sqlite3
import subprocess
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import CliRun

FLEET = Path(__file__).parent / "fleet"
DISTRIBUTION = "hookconf-fixture-server"
MODULE = "hookconf_fixture_server"
HOOK_SUITES_ONLY = 'suites = ["idempotency", "side-effects", "latency", "determinism", "dsgvo"]'
LOOKUP_PROBE = (
    'probes = [{ name = "lookup", args = { key = "a" }, stateProbe = { tool = "lookup", args = { key = "a" } } }]'
)


def build_wheel(directory: Path, version: str) -> Path:
    """A pure-Python wheel of tests/fleet/stdlib_server.py with a console script, built by the book (PEP 427)."""
    dist_info = f"{MODULE}-{version}.dist-info"
    files = {
        f"{MODULE}.py": (FLEET / "stdlib_server.py").read_bytes(),
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {version}\n".encode(),
        f"{dist_info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: hookconf-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
        f"{dist_info}/entry_points.txt": f"[console_scripts]\n{DISTRIBUTION} = {MODULE}:main\n".encode(),
    }
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n").encode()
    wheel = directory / f"{MODULE}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def audits(store: Path) -> list[tuple[str, str, str | None, int | None, str | None]]:
    with sqlite3.connect(store) as db:
        query = "SELECT version, outcome, message, cached_install, report_json FROM audits ORDER BY id"
        return db.execute(query).fetchall()


def served_version(report_json: str | None) -> object:
    assert report_json is not None
    return json.loads(report_json)["server"]["serverInfo"]["version"]


def test_pypi_versions_install_from_local_wheels_into_cached_venvs(
    run_cli: Callable[..., CliRun], tmp_path: Path
) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for version in ("0.9", "1.0", "1.1", "1.2rc1"):
        build_wheel(wheels, version)
    manifest = tmp_path / "local.toml"
    manifest.write_text(
        textwrap.dedent(f"""
        [fleet]
        name = "local"
        [[servers]]
        name = "fixture"
        source = "pypi"
        package = "{DISTRIBUTION}"
        find_links = "wheels"
        versions = ["latest:2", "9.9"]
        [servers.config]
        {HOOK_SUITES_ONLY}
        {LOOKUP_PROBE}
    """),
        encoding="utf-8",
    )
    store, cache = tmp_path / "hookconf.sqlite", tmp_path / "cache"
    args = ("fleet", "run", str(manifest), "--store", str(store), "--cache", str(cache))

    first = run_cli(*args)
    assert first.exit_code == 1  # 9.9 is not in the wheelhouse
    rows = {version: (outcome, message, report) for version, outcome, message, _, report in audits(store)}
    assert sorted(rows) == ["1.0", "1.1", "9.9"]  # latest:2 skips the release candidate
    for version in ("1.0", "1.1"):
        outcome, _, report = rows[version]
        assert outcome == "audited"
        assert served_version(report) == version  # the installed package itself answered
        assert (cache / "pypi" / DISTRIBUTION / version / "bin" / DISTRIBUTION).is_file()
    outcome, message, _ = rows["9.9"]
    assert outcome == "install-failed"
    assert f"uv pip install {DISTRIBUTION}==9.9 failed" in str(message)
    assert "fixture 9.9: install-failed" in first.stdout

    again = run_cli(*args, "--version", "1.0", "--force")
    assert again.exit_code == 0
    assert audits(store)[-1][:2] == ("1.0", "audited")
    assert audits(store)[-1][3] == 1  # served from the cache, not installed again


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_version_installs_from_a_local_tarball(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    subprocess.run(
        ["npm", "pack", str(FLEET / "npm-fixture"), "--pack-destination", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    manifest = tmp_path / "npm.toml"
    manifest.write_text(
        textwrap.dedent(f"""
        [fleet]
        name = "npm-local"
        [[servers]]
        name = "npm-fixture"
        source = "npm"
        package = "hookconf-npm-fixture"
        [servers.versions."1.0.0"]
        spec = "./hookconf-npm-fixture-1.0.0.tgz"
        [servers.config]
        {HOOK_SUITES_ONLY}
        {LOOKUP_PROBE}
    """),
        encoding="utf-8",
    )
    store, cache = tmp_path / "hookconf.sqlite", tmp_path / "cache"
    run = run_cli("fleet", "run", str(manifest), "--store", str(store), "--cache", str(cache))
    assert run.exit_code == 0, run.stdout
    ((version, outcome, _, cached, report),) = audits(store)
    assert (version, outcome, cached) == ("1.0.0", "audited", 0)
    assert served_version(report) == "1.0.0"
    prefix = cache / "npm" / "hookconf-npm-fixture" / "1.0.0"
    assert (prefix / "node_modules" / ".bin" / "hookconf-npm-fixture").exists()
    assert (prefix / ".npm-cache").is_dir()  # its own npm cache
