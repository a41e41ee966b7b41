"""Fleet manifests: TOML files naming servers, where to get them and which versions to audit.

Validation errors name the file, the server and the field, and exit 2 like a bad check config.
Loading turns each (server, version) into a `Target`: plain data that a worker process can take.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from hookconf.config import AuditConfig
from hookconf.errors import HookconfError
from hookconf.fleet.errors import ManifestError
from hookconf.fleet.versions import (
    find_links_versions,
    latest_count,
    latest_versions,
    npm_versions,
    pypi_versions,
)

Source = Literal["npm", "pypi", "command", "http"]
INSTALLED_SOURCES = ("npm", "pypi")
SERVER_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VersionEntry(_Strict):
    """`[servers.versions."1.1"]`: what differs for one version (command sources need a command)."""

    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    spec: str | None = Field(default=None, description="npm/pypi: what to install instead of PACKAGE@VERSION")


class ServerEntry(_Strict):
    name: str = Field(pattern=SERVER_NAME_PATTERN)
    source: Source
    package: str | None = None
    versions: list[str] | dict[str, VersionEntry]
    bin: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    setup: list[str] = Field(default_factory=list)
    find_links: str | None = None
    python: str | None = None
    install_scripts: bool = False
    config: dict[str, Any] = Field(default_factory=dict)

    @field_validator("versions")
    @classmethod
    def _some_versions(cls, versions: list[str] | dict[str, VersionEntry]) -> list[str] | dict[str, VersionEntry]:
        if not versions:
            raise ValueError("list at least one version (or 'latest:N')")
        if isinstance(versions, list) and len(set(versions)) != len(versions):
            raise ValueError("a version is listed twice")
        return versions

    @field_validator("config")
    @classmethod
    def _no_server_in_config(cls, config: dict[str, Any]) -> dict[str, Any]:
        if "server" in config:
            raise ValueError("'server' is built from the manifest; set command, args, env or url on the server")
        return config

    @model_validator(mode="after")
    def _source_needs(self) -> ServerEntry:
        if self.source in INSTALLED_SOURCES and not self.package:
            raise ValueError(f"a {self.source} server needs 'package' (the name in the registry)")
        if self.find_links and self.source != "pypi":
            raise ValueError("'find_links' is for pypi servers only")
        for version in self.version_names:
            self._check_version(version)
        return self

    def _check_version(self, version: str) -> None:
        entry = self.entry_for(version)
        if latest_count(version) is not None and self.source not in INSTALLED_SOURCES:
            raise ValueError(f"version {version!r}: 'latest:N' needs a registry (source npm or pypi)")
        if self.source == "command" and not (entry.command or self.command):
            raise ValueError(
                f"version {version!r}: a command server needs 'command' for each version "
                f'([servers.versions."{version}"] command = ...), or one for all'
            )
        if self.source == "http" and not (entry.url or self.url):
            raise ValueError(f"version {version!r}: an http server needs 'url' for each version, or one for all")

    @property
    def version_names(self) -> list[str]:
        return list(self.versions)

    def entry_for(self, version: str) -> VersionEntry:
        if isinstance(self.versions, dict):
            return self.versions.get(version, VersionEntry())
        return VersionEntry()


class FleetInfo(_Strict):
    name: str = Field(min_length=1)
    config: dict[str, Any] = Field(default_factory=dict, description="check-config defaults for every server")


class Manifest(_Strict):
    fleet: FleetInfo
    servers: list[ServerEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_servers(self) -> Manifest:
        names = [s.name for s in self.servers]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"server name {', '.join(map(repr, twice))} is used twice; names must be unique")
        return self


@dataclass(frozen=True)
class Target:
    """One (server, version) to install and audit, with everything a worker process needs."""

    fleet: str
    manifest: str
    manifest_dir: str
    server: str
    version: str
    source: str
    package: str | None = None
    install_spec: str | None = None
    find_links: str | None = None
    python: str | None = None
    install_scripts: bool = False
    bin: str | None = None
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    setup: tuple[str, ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)
    declared_version: str = ""
    resolve_error: str | None = None  # `latest:N` could not be resolved: recorded as an install failure

    @property
    def key(self) -> tuple[str, str]:
        return (self.server, self.version)

    @property
    def label(self) -> str:
        return f"{self.server} {self.version}"


def load_manifest(path: Path) -> Manifest:
    data = _read_toml(path)
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        raise ManifestError(f"{path}: invalid manifest\n{_describe(exc, data)}") from None
    _validate_configs(path, manifest)
    return manifest


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ManifestError(f"manifest {path} not found; pass a TOML file such as targets/reference.toml") from None
    except OSError as exc:
        raise ManifestError(f"cannot read manifest {path}: {exc.strerror}") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML ({exc})") from exc


def _describe(exc: ValidationError, data: Mapping[str, Any]) -> str:
    lines = []
    for error in exc.errors():
        loc = list(error["loc"])
        parts = []
        if len(loc) >= 2 and loc[0] == "servers" and isinstance(loc[1], int):
            parts.append(_server_label(data.get("servers"), loc[1]))
            loc = loc[2:]
        field_path = ".".join(str(part) for part in _drop_union_tags(loc))
        if field_path:
            parts.append(field_path)
        lines.append(f"  - {': '.join(parts) or '(top level)'}: {_message(error)}")
    return "\n".join(lines)


def _message(error: Mapping[str, Any]) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown key (check its spelling)"
    return str(error["msg"]).removeprefix("Value error, ")


def _server_label(servers: object, index: int) -> str:
    name = None
    if isinstance(servers, list) and index < len(servers) and isinstance(servers[index], dict):
        name = servers[index].get("name")
    return f"server {name!r}" if isinstance(name, str) else f"servers[{index}]"


def _drop_union_tags(loc: Sequence[object]) -> list[object]:
    """pydantic names the union member it tried ("list[str]", "dict[str,VersionEntry]"); users need only the path."""
    return [part for part in loc if not (isinstance(part, str) and ("[" in part or part.startswith("function-")))]


def _validate_configs(path: Path, manifest: Manifest) -> None:
    """Each server's check config must be a valid config once the manifest supplies the server part."""
    for server in manifest.servers:
        config = merged_config(manifest.fleet.config, server.config)
        try:
            AuditConfig.model_validate({"server": {"name": server.name, "command": "placeholder"}, **config})
        except ValidationError as exc:
            details = [
                f"  - server {server.name!r}: config.{'.'.join(map(str, e['loc']))}: {_message(e)}"
                for e in exc.errors()
            ]
            raise ManifestError(f"{path}: invalid manifest\n" + "\n".join(details)) from None


def merged_config(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The fleet's `[fleet.config]` under the server's `[servers.config]`; the server wins key by key."""
    return {**defaults, **overrides}


def load_targets(paths: Iterable[Path], servers: Sequence[str] = (), version: str | None = None) -> list[Target]:
    """Every target of the manifests, `latest:N` resolved; optionally only some servers or one version."""
    manifests = [(path, load_manifest(path)) for path in paths]
    known = _servers_by_name(manifests)
    unknown = [name for name in servers if name not in known]
    if unknown:
        raise ManifestError(
            f"--server {', '.join(unknown)}: no such server in the manifests; known: {', '.join(sorted(known))}"
        )
    targets: list[Target] = []
    for path, manifest in manifests:
        for server in manifest.servers:
            if servers and server.name not in servers:
                continue
            for declared in server.version_names:
                targets.extend(_targets_for(path, manifest, server, declared, version))
    return _without_duplicates(targets)


def _servers_by_name(manifests: Sequence[tuple[Path, Manifest]]) -> dict[str, Path]:
    """Server names key the store, so one name in two manifests would mix two servers' histories."""
    known: dict[str, Path] = {}
    for path, manifest in manifests:
        for server in manifest.servers:
            if server.name in known and known[server.name] != path.resolve():
                raise ManifestError(
                    f"{path}: server {server.name!r} is also defined in {known[server.name]}; "
                    "rename one of them (the store keys audits by server name)"
                )
            known[server.name] = path.resolve()
    return known


def _targets_for(
    path: Path, manifest: Manifest, server: ServerEntry, declared: str, only_version: str | None
) -> list[Target]:
    count = latest_count(declared)
    if only_version is not None and only_version != declared and count is None:
        return []
    if count is None:
        return [_target(path, manifest, server, declared, declared)]
    try:
        resolved = latest_versions(_released(path, server), count, server.source)
    except HookconfError as exc:
        return [_target(path, manifest, server, declared, declared, resolve_error=str(exc))]
    chosen = [v for v in resolved if only_version in (None, declared, v)]
    return [_target(path, manifest, server, declared, v) for v in chosen]


def _released(path: Path, server: ServerEntry) -> list[str]:
    assert server.package is not None  # the model requires a package for registry sources
    if server.find_links:
        return find_links_versions(_relative_to(path, server.find_links), server.package)
    if server.source == "npm":
        return npm_versions(server.package)
    return pypi_versions(server.package)


def _target(
    path: Path,
    manifest: Manifest,
    server: ServerEntry,
    declared: str,
    version: str,
    *,
    resolve_error: str | None = None,
) -> Target:
    entry = server.entry_for(declared)
    return Target(
        fleet=manifest.fleet.name,
        manifest=str(path),
        manifest_dir=str(path.resolve().parent),
        server=server.name,
        version=version,
        source=server.source,
        package=server.package,
        install_spec=_install_spec(path, server, entry, version),
        find_links=str(_relative_to(path, server.find_links)) if server.find_links else None,
        python=server.python,
        install_scripts=server.install_scripts,
        bin=server.bin,
        command=entry.command or server.command,
        args=tuple(entry.args if entry.args is not None else server.args),
        env={**server.env, **entry.env},
        cwd=server.cwd,
        url=entry.url or server.url,
        headers={**server.headers, **entry.headers},
        setup=tuple(server.setup),
        config=merged_config(manifest.fleet.config, server.config),
        declared_version=declared,
        resolve_error=resolve_error,
    )


def _install_spec(path: Path, server: ServerEntry, entry: VersionEntry, version: str) -> str | None:
    if server.source not in INSTALLED_SOURCES:
        return None
    if entry.spec:
        is_path = entry.spec.startswith(("./", "../"))
        return str(_relative_to(path, entry.spec)) if is_path else entry.spec
    return f"{server.package}@{version}" if server.source == "npm" else f"{server.package}=={version}"


def _relative_to(manifest: Path, location: str) -> Path:
    return (manifest.resolve().parent / location).resolve()


def _without_duplicates(targets: list[Target]) -> list[Target]:
    """`latest:2` next to an explicit version can name the same release twice; audit it once."""
    seen: dict[tuple[str, str], Target] = {}
    for target in targets:
        seen.setdefault(target.key, target)
    return list(seen.values())
