"""server.json documents of the MCP Registry, both generations, read into one shape.

The 2025-07-09 schema spells fields in snake_case (`version_detail.version`, packages with `registry_name`,
`name`, `runtime_hint`, `package_arguments`, `environment_variables`; remotes with `transport_type`
"streamable" or "sse"). The 2025-09-29 schema and later spell them in camelCase (`version`, packages with
`registryType`, `identifier`, `transport: {type, url, headers}`, `runtimeHint`, `packageArguments`,
`environmentVariables`; remotes with `type` "streamable-http" or "sse"). Inputs (arguments, environment
variables, headers) have `value`, `default`, `isRequired`/`is_required`, `isSecret`/`is_secret` and
`variables` for `{name}` references in the value.

Registry list items come bare (v0 until late 2025: the server.json with `_meta` beside its fields) or
wrapped (v0.1: `{"server": {...}, "_meta": {...}}`); the registry's status and latest flag live under
`_meta["io.modelcontextprotocol.registry/official"]`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

OFFICIAL_META = "io.modelcontextprotocol.registry/official"
STDIO = "stdio"
STREAMABLE_HTTP = "streamable-http"
SSE = "sse"
# 2025-07-09 names: docker images are OCI images, "streamable" is streamable HTTP
REGISTRY_TYPE_ALIASES = {"docker": "oci"}
TRANSPORT_ALIASES = {"streamable": STREAMABLE_HTTP, "http": STREAMABLE_HTTP}
VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")

InputKind = Literal["env", "header", "positional", "named"]


class ServerJsonError(ValueError):
    """A document that is not a server.json: the message says which field is missing or wrong."""


@dataclass(frozen=True)
class Input:
    """An argument, environment variable or header: what the registry says a client must supply."""

    kind: InputKind
    name: str  # the variable or header name, the flag of a named argument, the hint of a positional one
    value: str | None  # the fixed value, else the default, `{variables}` filled in where they are known
    required: bool
    secret: bool


@dataclass(frozen=True)
class Package:
    registry_type: str  # npm, pypi, oci, nuget, mcpb, or what a registry invents next
    identifier: str
    version: str | None
    transport: str
    url: str | None  # for a package that serves HTTP once started
    runtime_hint: str | None
    arguments: tuple[Input, ...]
    environment: tuple[Input, ...]
    headers: tuple[Input, ...]


@dataclass(frozen=True)
class Remote:
    transport: str
    url: str
    headers: tuple[Input, ...]


@dataclass(frozen=True)
class ServerVersion:
    """One version of one server as a server.json describes it."""

    name: str  # the registry name, reverse-DNS: io.github.owner/repo
    version: str | None
    description: str
    packages: tuple[Package, ...]
    remotes: tuple[Remote, ...]
    status: str | None  # the registry's: active, deprecated, deleted
    is_latest: bool | None


def read_listing(item: Mapping[str, Any]) -> ServerVersion:
    """A registry list item (bare or wrapped) or a plain server.json document."""
    wrapped = item.get("server")
    document = wrapped if isinstance(wrapped, Mapping) else item
    metas = [m for m in (item.get("_meta"), document.get("_meta")) if isinstance(m, Mapping)]
    official: Mapping[str, Any] = {}
    for meta in metas:
        found = meta.get(OFFICIAL_META)
        if isinstance(found, Mapping):
            official = found
            break
    return read_server_json(document, official)


def read_server_json(document: Mapping[str, Any], official: Mapping[str, Any] | None = None) -> ServerVersion:
    name = document.get("name")
    if not isinstance(name, str) or not name:
        raise ServerJsonError("no 'name' (a server.json names its server, e.g. io.github.owner/repo)")
    official = official or {}
    detail = _mapping(document.get("version_detail"))
    status = _text(official.get("status")) or _text(document.get("status"))
    is_latest = _pick(official, "isLatest", "is_latest")
    if is_latest is None:
        is_latest = detail.get("is_latest")
    return ServerVersion(
        name=name,
        version=_text(document.get("version")) or _text(detail.get("version")),
        description=_text(document.get("description")) or "",
        packages=tuple(_package(p) for p in _mappings(document.get("packages"), f"{name}: packages")),
        remotes=tuple(_remote(r) for r in _mappings(document.get("remotes"), f"{name}: remotes")),
        status=status,
        is_latest=is_latest if isinstance(is_latest, bool) else None,
    )


def _package(package: Mapping[str, Any]) -> Package:
    registry_type = _text(_pick(package, "registryType", "registry_type", "registry_name")) or "unknown"
    identifier = _text(_pick(package, "identifier", "name")) or ""
    transport = _mapping(package.get("transport"))
    environment = _inputs(_pick(package, "environmentVariables", "environment_variables"), "env")
    arguments = _inputs(_pick(package, "packageArguments", "package_arguments"), None)
    valued = [i for i in (*environment, *arguments) if i.value is not None]
    known = {name: i.value for i in valued if i.value is not None for name in (i.name, i.name.lstrip("-"))}
    url = _text(transport.get("url"))
    return Package(
        registry_type=REGISTRY_TYPE_ALIASES.get(registry_type.lower(), registry_type.lower()),
        identifier=identifier,
        version=_text(package.get("version")),
        transport=_transport(transport.get("type")) or STDIO,
        url=fill_variables(url, known) if url else None,
        runtime_hint=_text(_pick(package, "runtimeHint", "runtime_hint")),
        arguments=arguments,
        environment=environment,
        headers=_inputs(transport.get("headers"), "header"),
    )


def _remote(remote: Mapping[str, Any]) -> Remote:
    return Remote(
        transport=_transport(_pick(remote, "type", "transport_type")) or STREAMABLE_HTTP,
        url=_text(remote.get("url")) or "",
        headers=_inputs(remote.get("headers"), "header"),
    )


def _inputs(items: object, kind: InputKind | None) -> tuple[Input, ...]:
    return tuple(_input(item, kind) for item in _mappings(items, "inputs"))


def _input(item: Mapping[str, Any], kind: InputKind | None) -> Input:
    if kind is None:
        kind = "named" if item.get("type") == "named" else "positional"
    if kind == "positional":
        name = _text(_pick(item, "valueHint", "value_hint")) or _text(item.get("name")) or "value"
    else:
        name = _text(item.get("name")) or ""
    value = _text(item.get("value"))
    if value is None:
        value = _text(item.get("default"))
    if value is not None:
        value = fill_variables(value, _variable_values(item.get("variables")))
    return Input(
        kind=kind,
        name=name,
        value=value,
        required=_pick(item, "isRequired", "is_required") is True,
        secret=_pick(item, "isSecret", "is_secret") is True,
    )


def _variable_values(variables: object) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, variable in _mapping(variables).items():
        spec = _mapping(variable)
        value = _text(spec.get("value")) or _text(spec.get("default"))
        if value is not None:
            values[str(key)] = value
    return values


def fill_variables(text: str, values: Mapping[str, str]) -> str:
    """`{name}` replaced where a value is known; unknown ones stay (hookconf fills {port}, {workdir}, ...)."""
    return VARIABLE.sub(lambda m: values.get(m[1], m[0]), text)


def unfilled_variables(text: str) -> list[str]:
    return VARIABLE.findall(text)


def _transport(value: object) -> str | None:
    text = _text(value)
    return TRANSPORT_ALIASES.get(text.lower(), text.lower()) if text else None


def _pick(mapping: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in mapping:
            return mapping[key]
    return None


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _mappings(value: object, what: str) -> Sequence[Mapping[str, Any]]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ServerJsonError(f"{what}: expected a list, got {type(value).__name__}")
    return [item for item in value if isinstance(item, Mapping)]
