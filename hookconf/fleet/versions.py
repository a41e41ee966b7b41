"""Version order as each registry orders versions, and the registries' lists of released versions for ``latest:N``.

npm orders by semver: a pre-release comes before its release (1.0.0-canary.5 < 1.0.0), and 1.0.0-1 is a pre-release.
PyPI orders by PEP 440: 1.0.0.post1 and 1.0.0-1 (a post-release there) come after 1.0.0. Other sources (a command,
an HTTP URL) take PEP 440 where the string parses, semver where that parses, else a natural sort (1.10 after 1.9).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from hookconf.fleet.errors import InstallError

LATEST_PATTERN = re.compile(r"latest:(?P<count>[1-9][0-9]*)")
REGISTRY_TIMEOUT_S = 60
PYPI_JSON_URL = "https://pypi.org/pypi/{package}/json"
# A distribution file name: NAME-VERSION(-...).whl, NAME-VERSION.tar.gz or .zip (PEP 427 / 625).
DIST_FILE = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+?)-(?P<version>[0-9][^-]*?)(?:-.*)?\.(?:whl|tar\.gz|zip)$")

# semver 2.0.0: MAJOR.MINOR.PATCH, an optional -PRE-RELEASE and +BUILD (npm accepts a leading v or =)
SEMVER = re.compile(
    r"^[v=]?(?P<major>0|[1-9]\d*)\.(?P<minor>0|[1-9]\d*)\.(?P<patch>0|[1-9]\d*)"
    r"(?:-(?P<pre>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$"
)
NPM = "npm"
PYPI = "pypi"

SemverKey = tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]
VersionKey = tuple[Any, ...]


def version_key(version: str, registry: str | None = None) -> VersionKey:
    """A sort key in the registry's order (see the module); keys of one registry compare with each other."""
    if registry == NPM:
        semver = semver_key(version)
        return (2, semver) if semver is not None else (0, natural_key(version))
    try:
        return (1, Version(version))
    except InvalidVersion:
        semver = semver_key(version) if registry != PYPI else None
        if semver is None:
            return (0, natural_key(version))
        # a semver pre-release PEP 440 cannot read (1.0.0-canary.5): before its release, after what comes before it
        return (1, Version("{}.{}.{}.dev0".format(*semver[:3])), semver[4])


def semver_key(version: str) -> SemverKey | None:
    """semver precedence: the release after its pre-releases; pre-release fields compared one by one, numbers
    numerically and before words, a shorter list first when the fields before agree. None: not semver."""
    match = SEMVER.match(version.strip())
    if match is None:
        return None
    pre = match["pre"]
    fields = tuple((0, int(part)) if part.isdigit() else (1, part) for part in pre.split(".")) if pre else ()
    return (int(match["major"]), int(match["minor"]), int(match["patch"]), 0 if pre else 1, fields)


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    parts = re.findall(r"\d+|\D+", text)
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts)


def sorted_versions(versions: Iterable[str], registry: str | None = None) -> list[str]:
    return sorted(versions, key=lambda version: version_key(version, registry))


def is_prerelease(version: str, registry: str | None = None) -> bool:
    if registry == NPM and (semver := semver_key(version)) is not None:
        return semver[3] == 0
    try:
        return Version(version).is_prerelease
    except InvalidVersion:
        return "-" in version  # semver: anything after a hyphen marks a pre-release


def latest_count(spec: str) -> int | None:
    """N for a ``latest:N`` entry, None for an explicit version."""
    match = LATEST_PATTERN.fullmatch(spec)
    return int(match["count"]) if match else None


def latest_versions(released: Iterable[str], count: int, registry: str | None = None) -> list[str]:
    stable = [v for v in released if not is_prerelease(v, registry)]
    return sorted_versions(set(stable), registry)[-count:]


def npm_versions(package: str) -> list[str]:
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError("npm is not on PATH; install Node.js (it ships npm) to audit npm servers")
    completed = _run([npm, "view", package, "versions", "--json"], f"npm view {package} versions")
    listed = json.loads(completed or "[]")
    return [listed] if isinstance(listed, str) else [str(v) for v in listed]


def pypi_versions(package: str) -> list[str]:
    """Released, not fully yanked versions from PyPI's JSON API; `pip index versions` if that fails."""
    import httpx2

    try:
        response = httpx2.get(PYPI_JSON_URL.format(package=package), timeout=REGISTRY_TIMEOUT_S, follow_redirects=True)
        response.raise_for_status()
        releases: dict[str, list[dict[str, object]]] = response.json()["releases"]
    except (httpx2.HTTPError, ValueError, KeyError):
        return _pip_index_versions(package)
    return [version for version, files in releases.items() if files and not all(f.get("yanked") for f in files)]


def _pip_index_versions(package: str) -> list[str]:
    output = _run([sys.executable, "-m", "pip", "index", "versions", package], f"pip index versions {package}")
    for line in output.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.removeprefix("Available versions:").split(",") if v.strip()]
    raise InstallError(f"pip index versions {package} listed no versions; check the package name")


def find_links_versions(directory: Path, package: str) -> list[str]:
    """Versions of `package` among the wheels and sdists in a local directory."""
    wanted = canonicalize_name(package)
    found = []
    for path in directory.iterdir():
        match = DIST_FILE.match(path.name)
        if match and canonicalize_name(match["name"]) == wanted:
            found.append(match["version"])
    if not found:
        raise InstallError(f"no wheel or sdist of {package} in {directory}")
    return found


def _run(argv: list[str], what: str) -> str:
    try:
        completed = subprocess.run(
            argv, capture_output=True, text=True, timeout=REGISTRY_TIMEOUT_S, stdin=subprocess.DEVNULL, check=False
        )
    except subprocess.TimeoutExpired:
        raise InstallError(f"{what} gave no answer within {REGISTRY_TIMEOUT_S} s; is the registry reachable?") from None
    except OSError as exc:
        raise InstallError(f"cannot run {what}: {exc.strerror}") from exc
    if completed.returncode != 0:
        tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
        raise InstallError(f"{what} failed (exit {completed.returncode}): {' '.join(tail)}")
    return completed.stdout
