"""Isolated, cached installs: a uv venv per PyPI version, an npm prefix with its own cache per npm version.

An install lives in ``CACHE/SOURCE/PACKAGE/VERSION``. A marker written after the installer
succeeded makes the directory a cache hit on the next run; a directory without one is a broken
install and is wiped and done again. A file lock beside it keeps two audits of the same version
from installing at once.
"""

from __future__ import annotations

import configparser
import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from packaging.utils import canonicalize_name

from hookconf.fleet.errors import InstallError
from hookconf.fleet.manifest import Target
from hookconf.wire.process import ENV_ALLOWLIST

INSTALL_TIMEOUT_S = 900
OUTPUT_TAIL_LINES = 12
MARKER = ".hookconf-install.json"
# Installers need the network settings of the machine (proxies, CA bundles, index mirrors), but
# nothing else of the auditor's environment: install scripts are strangers' code too.
INSTALLER_ENV = (
    *ENV_ALLOWLIST,
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
)
INSTALLER_ENV_PREFIXES = ("UV_", "PIP_", "npm_config_", "NPM_CONFIG_")


@dataclass(frozen=True)
class Installed:
    prefix: Path
    executable: Path
    cached: bool
    seconds: float


class Installer(ABC):
    source: ClassVar[str]

    def ensure(self, target: Target, cache_dir: Path) -> Installed:
        """The install of this target, from the cache when it is there."""
        # The manifest requires both for npm and pypi servers, the only ones with an installer.
        assert target.package is not None
        assert target.install_spec is not None
        prefix = (cache_dir / self.source / safe_name(target.package) / safe_name(target.version)).absolute()
        started = time.monotonic()
        with _locked(prefix):
            cached = _marker_spec(prefix) == target.install_spec
            if not cached:
                shutil.rmtree(prefix, ignore_errors=True)
                prefix.mkdir(parents=True)
                self.install(target, prefix)
                _write_marker(prefix, target.install_spec)
        executable = self.executable(target, prefix)
        return Installed(prefix, executable, cached, round(time.monotonic() - started, 3))

    @abstractmethod
    def install(self, target: Target, prefix: Path) -> None:
        """Install the target's spec into the empty directory `prefix`."""

    @abstractmethod
    def executable(self, target: Target, prefix: Path) -> Path:
        """The program that starts the server: the manifest's `bin`, or the package's only program."""


class NpmInstaller(Installer):
    source = "npm"

    def install(self, target: Target, prefix: Path) -> None:
        npm = shutil.which("npm")
        if npm is None:
            raise InstallError("npm is not on PATH; install Node.js (it ships npm) to audit npm servers")
        argv = [
            npm,
            "install",
            "--prefix",
            str(prefix),
            "--cache",
            str(prefix / ".npm-cache"),
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--loglevel=error",
        ]
        if not target.install_scripts:
            argv.append("--ignore-scripts")
        run_installer([*argv, str(target.install_spec)], f"npm install {target.install_spec}")

    def executable(self, target: Target, prefix: Path) -> Path:
        package_json = prefix / "node_modules" / str(target.package) / "package.json"
        try:
            bins = json.loads(package_json.read_text(encoding="utf-8")).get("bin") or {}
        except (OSError, ValueError) as exc:
            raise InstallError(f"npm installed {target.install_spec} but {package_json} is unreadable: {exc}") from exc
        if isinstance(bins, str):
            bins = {str(target.package).rpartition("/")[2]: bins}
        program = choose_program(target, sorted(bins))
        return prefix / "node_modules" / ".bin" / program


class PypiInstaller(Installer):
    source = "pypi"

    def install(self, target: Target, prefix: Path) -> None:
        uv = find_uv()
        python = target.python or sys.executable
        run_installer([uv, "venv", "--quiet", "--python", python, str(prefix)], f"uv venv --python {python}")
        # Byte-compiled at install, as pip does by default: otherwise a server whose interpreter may
        # not write __pycache__ compiles its whole dependency tree at every start, and its start-up
        # figure measures that rather than the server.
        argv = [uv, "pip", "install", "--quiet", "--compile-bytecode", "--python", str(venv_python(prefix))]
        if target.find_links:
            argv += ["--no-index", "--find-links", target.find_links]
        run_installer([*argv, str(target.install_spec)], f"uv pip install {target.install_spec}")

    def executable(self, target: Target, prefix: Path) -> Path:
        scripts = console_scripts(prefix, str(target.package))
        return venv_scripts(prefix) / choose_program(target, sorted(scripts))


INSTALLERS: dict[str, Installer] = {installer.source: installer for installer in (NpmInstaller(), PypiInstaller())}


def choose_program(target: Target, programs: list[str]) -> str:
    if target.bin is not None:
        if target.bin not in programs:
            raise InstallError(
                f"{target.label}: bin {target.bin!r} is not a program of {target.package} "
                f"(it has: {', '.join(programs) or 'none'}); fix 'bin' in the manifest"
            )
        return target.bin
    if len(programs) == 1:
        return programs[0]
    unscoped = str(target.package).rpartition("/")[2]
    if unscoped in programs:
        return unscoped
    if not programs:
        raise InstallError(f"{target.label}: {target.package} installs no program; set 'command' in the manifest")
    raise InstallError(
        f"{target.label}: {target.package} installs several programs ({', '.join(programs)}); "
        "choose one with 'bin' in the manifest"
    )


def console_scripts(prefix: Path, package: str) -> list[str]:
    """The console_scripts entry points of the installed distribution named `package`."""
    wanted = canonicalize_name(package)
    for dist_info in prefix.glob("lib/python*/site-packages/*.dist-info"):
        if canonicalize_name(dist_info.name.split("-")[0]) != wanted:
            continue
        entry_points = configparser.ConfigParser(delimiters=("=",))
        entry_points.optionxform = str  # type: ignore[assignment,method-assign]  # script names are case-sensitive
        entry_points.read(dist_info / "entry_points.txt", encoding="utf-8")
        if entry_points.has_section("console_scripts"):
            return list(entry_points["console_scripts"])
        return []
    raise InstallError(
        f"uv installed {package} but no {package} distribution is in {prefix}; is 'package' the distribution's name?"
    )


def venv_scripts(prefix: Path) -> Path:
    return prefix / ("Scripts" if os.name == "nt" else "bin")


def venv_python(prefix: Path) -> Path:
    return venv_scripts(prefix) / ("python.exe" if os.name == "nt" else "python")


def find_uv() -> str:
    """The uv that came with hookconf's dependencies, else the one on PATH."""
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        pass
    found = shutil.which("uv")
    if found is None:
        raise InstallError("uv is not installed; run 'python -m pip install uv' to audit PyPI servers")
    return found


def installer_environment() -> dict[str, str]:
    return {
        key: value
        for key, value in os.environ.items()
        if key in INSTALLER_ENV or key.startswith(INSTALLER_ENV_PREFIXES)
    }


def run_installer(argv: list[str], what: str) -> None:
    try:
        completed = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=installer_environment(),
            timeout=INSTALL_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InstallError(f"{what} did not finish within {INSTALL_TIMEOUT_S} s; is the registry reachable?") from None
    except OSError as exc:
        raise InstallError(f"cannot run {what}: {exc.strerror}") from exc
    if completed.returncode != 0:
        output = (completed.stderr.strip() or completed.stdout.strip()).splitlines()
        tail = "\n".join(output[-OUTPUT_TAIL_LINES:])
        raise InstallError(f"{what} failed (exit {completed.returncode}):\n{tail}")


def safe_name(text: str) -> str:
    """A directory name for a package or version: '@scope/name' becomes '@scope+name'."""
    return re.sub(r"[^A-Za-z0-9@._-]+", "+", text)


def _marker_spec(prefix: Path) -> str | None:
    try:
        return str(json.loads((prefix / MARKER).read_text(encoding="utf-8"))["spec"])
    except (OSError, ValueError, KeyError):
        return None


def _write_marker(prefix: Path, spec: str) -> None:
    marker = {"spec": spec, "installedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (prefix / MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")


@contextlib.contextmanager
def _locked(prefix: Path) -> Iterator[None]:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with (prefix.parent / f"{prefix.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
