"""`hookconf fleet discover`: manifest entries from the MCP Registry, server.json files and package lists.

Every server is either written as an entry hookconf can audit (an npm or PyPI package that speaks stdio or
streamable HTTP, or a remote streamable-HTTP URL that needs no secret header) or skipped with the reason.
Required inputs with no value get a placeholder, `REPLACE-ME-NAME`, listed for that entry.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookconf.fleet.errors import DiscoverError, DiscoverInputError
from hookconf.fleet.manifest import SERVER_NAME_PATTERN
from hookconf.fleet.server_json import (
    SSE,
    STDIO,
    STREAMABLE_HTTP,
    Input,
    Package,
    Remote,
    ServerJsonError,
    ServerVersion,
    read_listing,
    unfilled_variables,
)
from hookconf.fleet.versions import is_prerelease, latest_versions, sorted_versions, version_key

INSTALLABLE = ("npm", "pypi")
REMOTE = "remote"
REGISTRY_TYPES = ("npm", "pypi", "oci", "nuget", "mcpb", REMOTE)
PAGE_LIMIT = 100
MAX_PAGES = 10_000  # a registry whose cursor never ends would otherwise be read forever
REGISTRY_TIMEOUT_S = 30
PLACEHOLDER_PREFIX = "REPLACE-ME-"
HOOKCONF_PORT = "{port}"
NOT_AUDITABLE = {
    "oci": "an OCI (container) image; hookconf installs servers from npm and PyPI only",
    "nuget": "a NuGet package; hookconf installs servers from npm and PyPI only",
    "mcpb": "an MCP bundle (.mcpb); hookconf installs servers from npm and PyPI only",
}
SSE_REASON = "speaks the HTTP+SSE transport of 2024-11-05, which hookconf does not audit (stdio and streamable HTTP)"


@dataclass(frozen=True)
class Options:
    types: tuple[str, ...] = ()  # registry types to keep (npm, pypi, oci, nuget, mcpb, remote); empty: all
    name_patterns: tuple[str, ...] = ()  # globs on the registry name; empty: all
    latest: int = 1


@dataclass
class Discovered:
    """A manifest entry: the `[[servers]]` table, where it came from and the placeholders it holds."""

    origin: str
    table: dict[str, Any]
    placeholders: list[str] = field(default_factory=list)
    comment: str = ""


@dataclass(frozen=True)
class Skipped:
    origin: str
    reason: str


@dataclass
class Discovery:
    servers: list[Discovered] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


# ---------------------------------------------------------------- sources


def registry_endpoints(url: str) -> list[str]:
    """The list endpoint(s) to try: the URL as given when it names one, else v0.1 and then v0."""
    base = url.rstrip("/")
    if base.endswith("/servers"):
        return [base]
    if re.search(r"/v0(\.\d+)?$", base):
        return [f"{base}/servers"]
    return [f"{base}/v0.1/servers", f"{base}/v0/servers"]


def fetch_registry(
    url: str, *, search: str | None = None, updated_since: str | None = None, latest_only: bool = True
) -> list[ServerVersion]:
    """Every listed server version, page by page along the cursor."""
    import httpx2

    if not url.startswith(("http://", "https://")):
        raise DiscoverInputError(
            f"--registry {url}: give an http(s) URL, e.g. https://registry.modelcontextprotocol.io"
        )
    params: dict[str, str] = {"limit": str(PAGE_LIMIT)}
    if search:
        params["search"] = search
    if updated_since:
        params["updated_since"] = updated_since
    if latest_only:
        params["version"] = "latest"
    endpoints = registry_endpoints(url)
    try:
        with httpx2.Client(timeout=REGISTRY_TIMEOUT_S, follow_redirects=True) as client:
            for index, endpoint in enumerate(endpoints):
                first = client.get(endpoint, params=params)
                if first.status_code == 404 and index + 1 < len(endpoints):
                    continue  # a registry of the other API generation
                return list(_pages(client, endpoint, params, first))
    except httpx2.HTTPError as exc:
        raise DiscoverError(
            f"cannot reach the MCP Registry at {url}: {str(exc).rstrip('.') or type(exc).__name__}; check --registry "
            "(e.g. https://registry.modelcontextprotocol.io) or read a saved copy with --export"
        ) from None
    raise AssertionError("registry_endpoints returns at least one endpoint")


def _pages(client: Any, endpoint: str, params: dict[str, str], response: Any) -> Iterator[ServerVersion]:
    seen_cursors: set[str] = set()
    for _ in range(MAX_PAGES):
        servers, cursor = _read_page(endpoint, response)
        yield from servers
        if not cursor:
            return
        if cursor in seen_cursors:
            raise DiscoverError(f"{endpoint}: the registry returned cursor {cursor!r} twice; its paging loops")
        seen_cursors.add(cursor)
        response = client.get(endpoint, params={**params, "cursor": cursor})
    raise DiscoverError(f"{endpoint}: more than {MAX_PAGES} pages; narrow the listing with --search")


def _read_page(endpoint: str, response: Any) -> tuple[list[ServerVersion], str | None]:
    if response.status_code != 200:
        raise DiscoverError(
            f"{endpoint}: the registry answered HTTP {response.status_code}: {response.text[:200].strip()}"
        )
    try:
        page = response.json()
    except ValueError:
        raise DiscoverError(f"{endpoint}: the answer is not JSON; is this an MCP Registry?") from None
    if not isinstance(page, Mapping) or not isinstance(page.get("servers"), list):
        raise DiscoverError(f"{endpoint}: the answer has no 'servers' list; is this an MCP Registry?")
    metadata = page.get("metadata")
    cursor = None
    if isinstance(metadata, Mapping):
        cursor = metadata.get("nextCursor") or metadata.get("next_cursor")
    return _read_items(page["servers"], endpoint), str(cursor) if cursor else None


def _read_items(items: Iterable[object], where: str) -> list[ServerVersion]:
    servers = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise DiscoverError(f"{where}: servers[{index}] is not an object")
        try:
            servers.append(read_listing(item))
        except ServerJsonError as exc:
            raise DiscoverError(f"{where}: servers[{index}]: {exc}") from None
    return servers


def read_export(path: Path) -> list[ServerVersion]:
    """A server.json file, a JSON list of them, a saved registry page, or a directory of such files."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.json") if p.is_file())
        if not files:
            raise DiscoverInputError(f"--export {path}: no .json files in that directory")
        return [server for file in files for server in _read_export_file(file)]
    return _read_export_file(path)


def _read_export_file(path: Path) -> list[ServerVersion]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DiscoverInputError(f"--export {path}: no such file or directory") from None
    except OSError as exc:
        raise DiscoverInputError(f"--export {path}: cannot read it: {exc.strerror}") from None
    except ValueError as exc:
        raise DiscoverInputError(f"--export {path}: not JSON ({exc})") from None
    if isinstance(document, Mapping) and isinstance(document.get("servers"), list):
        items: list[object] = document["servers"]
    elif isinstance(document, list):
        items = document
    else:
        items = [document]
    try:
        return _read_items(items, str(path))
    except DiscoverError as exc:
        raise DiscoverInputError(f"--export {exc}") from None


# ---------------------------------------------------------------- choosing entries


def discover(
    listed: Sequence[ServerVersion],
    options: Options,
    npm: Sequence[str] = (),
    pypi: Sequence[str] = (),
) -> Discovery:
    names = _NameBook()
    found = Discovery()
    for registry_name, versions in _by_server(listed).items():
        if options.name_patterns and not any(fnmatch.fnmatchcase(registry_name, p) for p in options.name_patterns):
            continue
        live = [v for v in versions if (v.status or "").lower() != "deleted"]
        if not live:
            continue
        outcome = _choose(live, options)
        if isinstance(outcome, Skipped):
            found.skipped.append(outcome)
        elif outcome is not None:
            outcome.table = {"name": names.claim(registry_name, short_name(registry_name)), **outcome.table}
            found.servers.append(outcome)
    for source, packages in (("npm", npm), ("pypi", pypi)):
        for package in dict.fromkeys(packages):  # a name given twice is one server
            table = {
                "name": names.claim(package, package_short_name(package)),
                "source": source,
                "package": package,
                "versions": [f"latest:{options.latest}"],
            }
            found.servers.append(Discovered(origin=package, table=table, comment=f"{source} package {package}"))
    return found


def _by_server(listed: Sequence[ServerVersion]) -> dict[str, list[ServerVersion]]:
    grouped: dict[str, list[ServerVersion]] = {}
    for version in listed:
        grouped.setdefault(version.name, []).append(version)
    return grouped


def _newest(versions: Sequence[ServerVersion]) -> ServerVersion:
    """The version the registry flags as latest, else the highest release, else the highest pre-release."""
    flagged = [v for v in versions if v.is_latest]
    releases = [v for v in versions if v.version and not is_prerelease(v.version)]
    pool = flagged or releases or list(versions)
    return max(pool, key=lambda v: version_key(v.version or ""))


def _choose(versions: Sequence[ServerVersion], options: Options) -> Discovered | Skipped | None:
    """The first auditable package of the newest version, else its first auditable remote; None: filtered out."""
    newest = _newest(versions)
    reasons: list[str] = []
    considered = False
    for package in newest.packages:
        if options.types and package.registry_type not in options.types:
            continue
        considered = True
        chosen = _package_entry(newest, versions, package, options.latest)
        if isinstance(chosen, Discovered):
            return chosen
        reasons.append(chosen)
    if not options.types or REMOTE in options.types:
        for remote in newest.remotes:
            considered = True
            remote_entry = _remote_entry(newest, remote)
            if isinstance(remote_entry, Discovered):
                return remote_entry
            reasons.append(remote_entry)
    if not considered:
        if options.types:
            return None
        reasons.append("lists no package and no remote")
    return Skipped(newest.name, "; ".join(reasons))


def _package_entry(
    newest: ServerVersion, versions: Sequence[ServerVersion], package: Package, latest: int
) -> Discovered | str:
    what = f"{package.registry_type} package {package.identifier or '(unnamed)'}"
    problem = _package_problem(package)
    if problem:
        return f"{what} {problem}"
    url = None
    if package.transport == STREAMABLE_HTTP:
        url, missing = _serving_url(package)
        if missing:
            return f"{what} serves streamable HTTP at {package.url}, which needs {', '.join(missing)}"
    inputs = _Inputs()
    table: dict[str, Any] = {
        "source": package.registry_type,
        "package": package.identifier,
        "versions": _package_versions(versions, package, latest),
    }
    args = inputs.arguments(package.arguments, serving_port=url is not None and HOOKCONF_PORT in url)
    env = inputs.mapping(package.environment, serving_port=url is not None and HOOKCONF_PORT in url)
    if args:
        table["args"] = args
    if env:
        table["env"] = env
    if url:
        table["url"] = url
        headers = inputs.mapping(package.headers)
        if headers:
            table["headers"] = headers
    return Discovered(newest.name, table, inputs.placeholders, _comment(newest))


def _package_problem(package: Package) -> str | None:
    if package.registry_type not in INSTALLABLE:
        return f"is {NOT_AUDITABLE.get(package.registry_type, 'from a registry hookconf does not install from')}"
    if not package.identifier:
        return "has no identifier"
    if package.transport == SSE:
        return SSE_REASON
    if package.transport not in (STDIO, STREAMABLE_HTTP):
        return f"speaks transport {package.transport!r}, which hookconf does not know"
    if package.transport == STREAMABLE_HTTP and not package.url:
        return "serves streamable HTTP but names no URL"
    return None


def _serving_url(package: Package) -> tuple[str, list[str]]:
    """The package's URL with an unset port variable given hookconf's free {port}; other unset ones are missing."""
    assert package.url is not None
    url = package.url
    missing = []
    for variable in unfilled_variables(url):
        if variable.lower() == "port":
            url = url.replace(f"{{{variable}}}", HOOKCONF_PORT)
        else:
            missing.append(f"{{{variable}}}")
    return url, missing


def _package_versions(versions: Sequence[ServerVersion], package: Package, latest: int) -> list[str]:
    """The newest `latest` releases of this package that the registry lists; latest:N when it lists none."""
    released = {
        p.version
        for v in versions
        for p in v.packages
        if p.version and p.registry_type == package.registry_type and p.identifier == package.identifier
    }
    if not released:
        return [f"latest:{latest}"]
    chosen = latest_versions(released, latest, package.registry_type)
    return chosen or sorted_versions(released, package.registry_type)[-latest:]  # only pre-releases listed


def _remote_entry(newest: ServerVersion, remote: Remote) -> Discovered | str:
    what = f"remote {remote.url or '(no URL)'}"
    if not remote.url:
        return "a remote with no URL"
    if remote.transport == SSE:
        return f"{what} {SSE_REASON}"
    if remote.transport != STREAMABLE_HTTP:
        return f"{what} speaks transport {remote.transport!r}, which hookconf does not know"
    if unfilled_variables(remote.url):
        needed = ", ".join(f"{{{v}}}" for v in unfilled_variables(remote.url))
        return f"{what} needs {needed} in its URL, which the registry does not give"
    secrets = [h.name for h in remote.headers if h.required and (h.value is None or unfilled_variables(h.value))]
    if secrets:
        return (
            f"{what} needs header {', '.join(secrets)} with a value the registry does not give "
            "(an OAuth token or API key); hookconf cannot log in for it"
        )
    table: dict[str, Any] = {"source": "http", "versions": [newest.version or "current"], "url": remote.url}
    headers = {h.name: h.value for h in remote.headers if h.value is not None and not unfilled_variables(h.value)}
    if headers:
        table["headers"] = headers
    return Discovered(newest.name, table, [], _comment(newest))


def _comment(server: ServerVersion) -> str:
    description = " ".join(server.description.split())
    return f"{server.name} {server.version or ''}".rstrip() + (f": {description}" if description else "")


class _Inputs:
    """Values for a package's arguments and variables; a required one without a value gets a placeholder."""

    def __init__(self) -> None:
        self.placeholders: list[str] = []

    def arguments(self, inputs: Sequence[Input], *, serving_port: bool) -> list[str]:
        args: list[str] = []
        for item in inputs:
            value = self._value(item, serving_port=serving_port)
            if item.kind == "named":
                if value is not None:
                    args.extend([item.name, value])
            elif value is not None:
                args.append(value)
        return args

    def mapping(self, inputs: Sequence[Input], *, serving_port: bool = False) -> dict[str, str]:
        values = {}
        for item in inputs:
            value = self._value(item, serving_port=serving_port)
            if value is not None and item.name:
                values[item.name] = value
        return values

    def _value(self, item: Input, *, serving_port: bool) -> str | None:
        if item.value is not None:
            return item.value
        if serving_port and item.name.lstrip("-").lower() == "port":
            return HOOKCONF_PORT
        if not item.required:
            return None
        label = re.sub(r"[^A-Za-z0-9_]+", "-", item.name.lstrip("-")).strip("-").upper() or "VALUE"
        self.placeholders.append(f"{item.name}{' (secret)' if item.secret else ''}")
        return f"{PLACEHOLDER_PREFIX}{label}"


# ---------------------------------------------------------------- names


NAME_PATTERN = re.compile(SERVER_NAME_PATTERN)
HOSTED_NAMESPACES = ("io.github.", "io.gitlab.", "com.github.", "com.gitlab.")


def short_name(registry_name: str) -> str:
    """io.github.owner/repo -> owner-repo, com.example/weather -> example-weather; repo alone when it
    already starts with the owner (io.github.acme/acme-mcp -> acme-mcp)."""
    namespace, _, server = registry_name.partition("/")
    owner = namespace
    for prefix in HOSTED_NAMESPACES:
        if namespace.startswith(prefix):
            owner = namespace.removeprefix(prefix)
            break
    else:
        parts = namespace.split(".")
        if len(parts) >= 2:
            owner = ".".join(parts[1:])  # reverse DNS: the top-level domain says nothing
    if not server:
        return manifest_name(owner)
    if server == owner or server.startswith(f"{owner}-"):
        return manifest_name(server)
    return manifest_name(f"{owner}-{server}")


def package_short_name(package: str) -> str:
    """@scope/name -> scope-name; a PyPI name as it is."""
    return manifest_name(package.removeprefix("@").replace("/", "-"))


def manifest_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._")
    return name if NAME_PATTERN.match(name) else f"server-{name}".rstrip("-")


class _NameBook:
    """Unique manifest names: the short name, else the whole registry name, else a number appended."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def claim(self, origin: str, short: str) -> str:
        for candidate in (short, manifest_name(origin)):
            if candidate.lower() not in self.used:
                return self._take(candidate)
        number = 2
        while f"{short}-{number}".lower() in self.used:
            number += 1
        return self._take(f"{short}-{number}")

    def _take(self, name: str) -> str:
        self.used.add(name.lower())
        return name


# ---------------------------------------------------------------- the manifest


def render_manifest(found: Discovery, fleet: str) -> str:
    from hookconf.fleet.manifest_text import manifest_text

    header = ""
    if found.skipped:
        header = "Not audited (hookconf fleet discover could not make an auditable entry):\n" + "\n".join(
            f"  {s.origin}: {s.reason}" for s in found.skipped
        )
    servers = []
    for server in found.servers:
        comment = server.comment
        if server.placeholders:
            comment += f"\nREPLACE-ME placeholders for required {', '.join(server.placeholders)}: put real values"
        servers.append((comment, server.table))
    return manifest_text(fleet, servers, header)


def report_lines(found: Discovery, written_to: str) -> list[str]:
    """What stderr says: a line per skipped server and per entry with placeholders, then the total."""
    lines = [f"discover: skipped {s.origin}: {s.reason}" for s in found.skipped]
    lines += [
        f"discover: {s.table['name']} ({s.origin}): placeholder REPLACE-ME-... written for required "
        f"{', '.join(s.placeholders)}; put real values in before auditing"
        for s in found.servers
        if s.placeholders
    ]
    versions = sum(len(s.table["versions"]) for s in found.servers)
    lines.append(
        f"discover: {len(found.servers)} servers ({versions} version entries) written to {written_to}, "
        f"{len(found.skipped)} skipped"
    )
    return lines


def write_manifest(text: str, output: Path | None, *, force: bool) -> None:
    """Checked by the manifest loader before it is written: what discover writes, `fleet run` reads."""
    import tempfile

    from hookconf.fleet.manifest import load_manifest

    if output is not None and output.exists() and not force:
        raise DiscoverInputError(f"--output {output} exists; pass --force to replace it, or choose another path")
    with tempfile.TemporaryDirectory(prefix="hookconf-discover-") as scratch:
        check = Path(scratch) / "manifest.toml"
        check.write_text(text, encoding="utf-8")
        load_manifest(check)
    if output is None:
        from hookconf.console import emit

        emit(text)
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise DiscoverInputError(f"--output {output}: cannot write it: {exc.strerror}") from None
