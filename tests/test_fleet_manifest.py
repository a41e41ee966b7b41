"""Fleet manifests: errors that name the file, the server and the field (exit 2); versions in order."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from hookconf.fleet.manifest import load_targets
from hookconf.fleet.versions import find_links_versions, latest_versions, sorted_versions
from hookconf.fleet.worker import substitute
from tests.support import CliRun

FLEET = '[fleet]\nname = "t"\n'
MEMORY = '[[servers]]\nname = "memory"\nsource = "npm"\npackage = "@modelcontextprotocol/server-memory"\n'


def write_manifest(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fleet.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            FLEET + MEMORY.replace('"npm"', '"docker"') + 'versions = ["1"]',
            "server 'memory': source: Input should be 'npm', 'pypi', 'command' or 'http'",
        ),
        (
            FLEET + '[[servers]]\nname = "memory"\nsource = "npm"\nversions = ["1"]',
            "server 'memory': a npm server needs 'package'",
        ),
        (
            FLEET + MEMORY + 'versions = ["1"]\n[servers.config]\ntries = 1',
            "server 'memory': config.tries: Input should be greater than or equal to 2",
        ),
        (
            FLEET + MEMORY + 'versions = ["1"]\n[servers.config]\nprobez = []',
            "server 'memory': config.probez: unknown key (check its spelling)",
        ),
        (
            FLEET + MEMORY + 'versions = ["1"]\n[servers.config]\nserver = { name = "x" }',
            "server 'memory': config: 'server' is built from the manifest",
        ),
        (FLEET + MEMORY + 'verions = ["1"]', "server 'memory': verions: unknown key (check its spelling)"),
        (FLEET + MEMORY + "versions = []", "server 'memory': versions: list at least one version"),
        (
            FLEET + '[[servers]]\nname = "dev"\nsource = "command"\nversions = ["1.0"]',
            "server 'dev': version '1.0': a command server needs 'command'",
        ),
        (
            FLEET + '[[servers]]\nname = "dev"\nsource = "command"\ncommand = "x"\nversions = ["latest:2"]',
            "server 'dev': version 'latest:2': 'latest:N' needs a registry",
        ),
        (
            FLEET + '[[servers]]\nname = "api"\nsource = "http"\nversions = ["1"]',
            "server 'api': version '1': an http server needs 'url'",
        ),
        (
            FLEET + '[[servers]]\nname = "bad name!"\nsource = "command"\ncommand = "x"\nversions = ["1"]',
            "server 'bad name!': name: String should match pattern",
        ),
        (FLEET + MEMORY + 'versions = ["1"]\n' + MEMORY + 'versions = ["2"]', "server name 'memory' is used twice"),
        (MEMORY + 'versions = ["1"]', "fleet: Field required"),
        ('[fleet]\nname = "t"\nservers = [', "not valid TOML"),
    ],
)
def test_manifest_errors_exit_2_naming_file_server_and_field(
    run_cli: Callable[..., CliRun], tmp_path: Path, manifest: str, expected: str
) -> None:
    path = write_manifest(tmp_path, manifest)
    run = run_cli("fleet", "run", str(path), "--store", str(tmp_path / "store.sqlite"))
    assert run.exit_code == 2
    assert str(path) in run.stderr
    assert expected in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "store.sqlite").exists()  # nothing runs, nothing is stored


def test_missing_manifest_and_unknown_server_exit_2(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    missing = run_cli("fleet", "run", str(tmp_path / "nope.toml"))
    assert missing.exit_code == 2
    assert "nope.toml not found" in missing.stderr
    path = write_manifest(tmp_path, FLEET + MEMORY + 'versions = ["1"]')
    unknown = run_cli("fleet", "run", str(path), "--server", "memroy")
    assert unknown.exit_code == 2
    assert "--server memroy: no such server" in unknown.stderr
    assert "known: memory" in unknown.stderr


def test_one_server_name_in_two_manifests_is_an_error(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    first = write_manifest(tmp_path, FLEET + MEMORY + 'versions = ["1"]')
    second = tmp_path / "other.toml"
    second.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    run = run_cli("fleet", "run", str(first), str(second))
    assert run.exit_code == 2
    assert "server 'memory' is also defined in" in run.stderr


def test_report_without_a_store_says_how_to_make_one(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    run = run_cli("fleet", "report", "--store", str(tmp_path / "none.sqlite"), "--out", str(tmp_path))
    assert run.exit_code == 1
    assert "hookconf fleet run" in run.stderr


def test_targets_merge_fleet_server_and_version_settings(tmp_path: Path) -> None:
    path = write_manifest(
        tmp_path,
        """
        [fleet]
        name = "dev"
        config = { tries = 4, timeoutMs = 5000 }

        [[servers]]
        name = "notes"
        source = "command"
        env = { LEVEL = "info", DATA = "{workdir}/data" }
        args = ["serve"]
        [servers.config]
        tries = 2
        [servers.versions."1.1"]
        command = "notes-1.1"
        [servers.versions."1.2"]
        command = "notes-1.2"
        args = ["serve", "--fast"]
        env = { LEVEL = "debug" }

        [[servers]]
        name = "pkg"
        source = "pypi"
        package = "my-pkg"
        [servers.versions."0.1"]
        spec = "./dist/my_pkg-0.1-py3-none-any.whl"
    """,
    )
    notes_11, notes_12, pkg = load_targets([path])
    assert (notes_11.command, notes_11.args) == ("notes-1.1", ("serve",))
    assert (notes_12.command, notes_12.args) == ("notes-1.2", ("serve", "--fast"))
    assert notes_12.env == {"LEVEL": "debug", "DATA": "{workdir}/data"}
    assert notes_11.config == {"tries": 2, "timeoutMs": 5000}
    assert pkg.install_spec == str(tmp_path / "dist" / "my_pkg-0.1-py3-none-any.whl")
    assert [t.label for t in load_targets([path], servers=["notes"], version="1.2")] == ["notes 1.2"]


def test_versions_sort_as_versions_not_strings() -> None:
    assert sorted_versions(["1.10", "1.9", "1.2", "1.10.1", "0.6.2"]) == ["0.6.2", "1.2", "1.9", "1.10", "1.10.1"]
    assert sorted_versions(["2026.8.31", "2025.12.18", "2026.1.26"]) == ["2025.12.18", "2026.1.26", "2026.8.31"]
    assert sorted_versions(["1.0.0", "1.0.0-beta.2", "1.0.0-beta.10"]) == ["1.0.0-beta.2", "1.0.0-beta.10", "1.0.0"]
    assert sorted_versions(["release-10", "release-9"]) == ["release-9", "release-10"]  # not PEP 440: natural order


def test_latest_n_skips_prereleases_and_takes_the_newest() -> None:
    released = ["0.9", "1.10", "1.9", "2.0rc1", "1.2", "2.0.0-beta.1"]
    assert latest_versions(released, 2) == ["1.9", "1.10"]
    assert latest_versions(released, 10) == ["0.9", "1.2", "1.9", "1.10"]


def test_latest_n_from_a_directory_of_wheels_and_sdists(tmp_path: Path) -> None:
    for name in ("my_pkg-1.9-py3-none-any.whl", "my_pkg-1.10.tar.gz", "my-pkg-1.2.zip", "other-3.0-py3-none-any.whl"):
        (tmp_path / name).touch()
    assert sorted_versions(find_links_versions(tmp_path, "My.Pkg")) == ["1.2", "1.9", "1.10"]


def test_placeholders_are_replaced_and_other_braces_kept() -> None:
    values = {"workdir": "/tmp/w", "prefix": "/p", "version": "1.2"}
    config = {"args": ["{workdir}/data", '--json={"a": 1}'], "probe": {"path": "{prefix}/v{version}/{unknown}"}}
    assert substitute(config, values) == {
        "args": ["/tmp/w/data", '--json={"a": 1}'],
        "probe": {"path": "/p/v1.2/{unknown}"},
    }
