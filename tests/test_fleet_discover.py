"""`hookconf fleet discover`: manifests from a local MCP Registry (both API generations, cursor paging), from
server.json files of both schema generations, and from npm/PyPI names. No server is installed or started."""

from __future__ import annotations

import json
import threading
import tomllib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from hookconf.fleet.discover import Options, discover, manifest_name, short_name
from hookconf.fleet.manifest import Manifest, load_manifest
from hookconf.fleet.manifest_text import manifest_text
from hookconf.fleet.server_json import read_listing
from tests.support import CliRun, free_port

EXPORTS = Path(__file__).parent / "fleet" / "discover"
OFFICIAL = "io.modelcontextprotocol.registry/official"

Page = dict[str, Any]


class Registry:
    """A local MCP Registry: per list path, pages chained by cursors; every request is recorded."""

    def __init__(self, pages_by_path: dict[str, list[Page]]) -> None:
        self.pages_by_path = pages_by_path
        self.requests: list[tuple[str, dict[str, str]]] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = {key: values[0] for key, values in parse_qs(url.query).items()}
                registry.requests.append((url.path, query))
                pages = registry.pages_by_path.get(url.path)
                if pages is None:
                    self._answer(404, {"title": "Not Found", "status": 404})
                    return
                index = int(query.get("cursor", "page-0").removeprefix("page-"))
                self._answer(200, pages[index])

            def _answer(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Registry:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def chained(pages: list[list[dict[str, Any]]], cursor_key: str) -> list[Page]:
    """Pages whose metadata points at the next one, as `nextCursor` (v0.1) or `next_cursor` (v0 of 2025)."""
    chain = []
    for index, servers in enumerate(pages):
        metadata: dict[str, Any] = {"count": len(servers)}
        if index + 1 < len(pages):
            metadata[cursor_key] = f"page-{index + 1}"
        chain.append({"servers": servers, "metadata": metadata})
    return chain


def camel(name: str, version: str, *packages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": f"{name} server", "version": version, "packages": list(packages), **extra}


def npm(identifier: str, version: str, **extra: Any) -> dict[str, Any]:
    return {
        "registryType": "npm",
        "identifier": identifier,
        "version": version,
        "transport": {"type": "stdio"},
        **extra,
    }


def pypi(identifier: str, version: str, **extra: Any) -> dict[str, Any]:
    return {
        "registryType": "pypi",
        "identifier": identifier,
        "version": version,
        "transport": {"type": "stdio"},
        **extra,
    }


def wrapped(server: dict[str, Any], *, is_latest: bool = True, status: str = "active") -> dict[str, Any]:
    """A v0.1 list item: the server.json under `server`, the registry's data under `_meta`."""
    return {"server": server, "_meta": {OFFICIAL: {"status": status, "isLatest": is_latest}}}


def bare(server: dict[str, Any], *, is_latest: bool = True) -> dict[str, Any]:
    """A v0 list item of late 2025: the server.json with the registry's `_meta` beside its fields."""
    return {**server, "_meta": {OFFICIAL: {"status": "active", "isLatest": is_latest}}}


def snake(name: str, version: str, *packages: dict[str, Any]) -> dict[str, Any]:
    """A 2025-07-09 server.json as the v0 registry of mid 2025 listed it."""
    return {
        "id": f"id-{name}",
        "name": name,
        "description": f"{name} server",
        "version_detail": {"version": version, "release_date": "2025-07-01T00:00:00Z", "is_latest": True},
        "packages": list(packages),
    }


SECRET_ENV = {"name": "API_KEY", "description": "the service's key", "isRequired": True, "isSecret": True}
V01_PAGES = [
    [
        wrapped(camel("io.github.acme/notes", "1.4.0", npm("@acme/notes-mcp", "1.4.0"))),
        wrapped(
            camel("io.github.acme/search", "0.3.0", pypi("acme-search-mcp", "0.3.0", environmentVariables=[SECRET_ENV]))
        ),
    ],
    [
        wrapped(
            camel(
                "io.github.other/imagery",
                "2.0.0",
                {"registryType": "oci", "identifier": "ghcr.io/other/imagery:2.0.0", "transport": {"type": "stdio"}},
            )
        ),
        wrapped(
            camel(
                "com.example/open-remote",
                "3.1.0",
                remotes=[{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}],
            )
        ),
    ],
    [
        wrapped(
            camel(
                "ai.acme/oauth-remote",
                "1.0.0",
                remotes=[
                    {
                        "type": "streamable-http",
                        "url": "https://mcp.acme.ai/mcp",
                        "headers": [{"name": "Authorization", "isRequired": True, "isSecret": True}],
                    }
                ],
            )
        ),
        wrapped(camel("io.github.acme/gone", "1.0.0", npm("@acme/gone", "1.0.0")), status="deleted"),
    ],
]


@pytest.fixture
def registry_v01() -> Iterator[Registry]:
    with Registry({"/v0.1/servers": chained(V01_PAGES, "nextCursor")}) as registry:
        yield registry


def servers_of(path: Path) -> dict[str, dict[str, Any]]:
    load_manifest(path)  # what fleet run would read
    return {server["name"]: server for server in tomllib.loads(path.read_text(encoding="utf-8"))["servers"]}


@pytest.mark.http
def test_registry_v01_pages_become_a_manifest(
    run_cli: Callable[..., CliRun], tmp_path: Path, registry_v01: Registry
) -> None:
    out = tmp_path / "fleet.toml"
    run = run_cli("fleet", "discover", "--registry", registry_v01.url, "--output", str(out))
    assert run.exit_code == 0, run.stderr
    servers = servers_of(out)
    assert servers["acme-notes"] == {
        "name": "acme-notes",
        "source": "npm",
        "package": "@acme/notes-mcp",
        "versions": ["1.4.0"],
    }
    assert servers["acme-search"]["env"] == {"API_KEY": "REPLACE-ME-API_KEY"}
    assert servers["example-open-remote"] == {
        "name": "example-open-remote",
        "source": "http",
        "versions": ["3.1.0"],
        "url": "https://mcp.example.com/mcp",
    }
    assert set(servers) == {"acme-notes", "acme-search", "example-open-remote"}  # deleted and unauditable left out
    assert [query.get("cursor") for _, query in registry_v01.requests] == [None, "page-1", "page-2"]
    assert all(query["version"] == "latest" for _, query in registry_v01.requests)
    assert "discover: skipped io.github.other/imagery: oci package ghcr.io/other/imagery:2.0.0 is an OCI" in run.stderr
    assert "discover: skipped ai.acme/oauth-remote: remote https://mcp.acme.ai/mcp needs header Authorization" in (
        run.stderr
    )
    assert "acme-search (io.github.acme/search): placeholder REPLACE-ME-... written for required API_KEY (secret)" in (
        run.stderr
    )
    assert "gone" not in run.stderr
    text = out.read_text(encoding="utf-8")
    assert "#   io.github.other/imagery: oci package" in text  # the manifest says what it left out, too


@pytest.mark.http
def test_registry_v0_with_both_server_json_generations(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    """v0 answers: bare items with `_meta` and `next_cursor`, then 2025-07-09 snake_case documents; no v0.1."""
    old_npm = {
        "registry_name": "npm",
        "name": "@old/files",
        "version": "0.9.0",
        "runtime_hint": "npx",
        "package_arguments": [{"type": "positional", "value_hint": "root_dir", "is_required": True}],
        "environment_variables": [{"name": "LOG_LEVEL", "default": "info"}],
    }
    pages = [
        [bare(camel("io.github.new/tasks", "2.1.0", pypi("new-tasks", "2.1.0")))],
        [
            snake(
                "io.github.old/files",
                "0.9.0",
                old_npm,
                {"registry_name": "docker", "name": "old/files", "version": "0.9.0"},
            )
        ],
    ]
    with Registry({"/v0/servers": chained(pages, "next_cursor")}) as registry:
        out = tmp_path / "fleet.toml"
        run = run_cli("fleet", "discover", "--registry", registry.url, "--search", "s", "-o", str(out))
    assert run.exit_code == 0, run.stderr
    servers = servers_of(out)
    assert servers["new-tasks"] == {
        "name": "new-tasks",
        "source": "pypi",
        "package": "new-tasks",
        "versions": ["2.1.0"],
    }
    assert servers["old-files"] == {
        "name": "old-files",
        "source": "npm",
        "package": "@old/files",
        "versions": ["0.9.0"],
        "args": ["REPLACE-ME-ROOT_DIR"],
        "env": {"LOG_LEVEL": "info"},
    }
    paths = [path for path, _ in registry.requests]
    assert paths == ["/v0.1/servers", "/v0/servers", "/v0/servers"]  # v0.1 first, then the older API
    assert registry.requests[-1][1] == {"limit": "100", "search": "s", "version": "latest", "cursor": "page-1"}


@pytest.mark.http
def test_filters_type_name_and_latest(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    versions = ["1.0.0", "1.1.0", "1.2.0-beta.1", "1.1.5"]
    pages = [
        [wrapped(camel("io.github.acme/notes", v, npm("@acme/notes-mcp", v)), is_latest=False) for v in versions],
        [
            wrapped(camel("io.github.acme/search", "0.3.0", pypi("acme-search-mcp", "0.3.0"))),
            wrapped(camel("io.github.zed/notes", "4.0.0", npm("@zed/notes", "4.0.0"))),
        ],
    ]
    with Registry({"/v0.1/servers": chained(pages, "nextCursor")}) as registry:
        out = tmp_path / "fleet.toml"
        run = run_cli(
            "fleet", "discover", "--registry", registry.url, "--type", "npm", "--name", "io.github.acme/*",
            "--latest", "2", "--updated-since", "2025-10-01T00:00:00Z", "-o", str(out),
        )  # fmt: skip
        assert all("version" not in query for _, query in registry.requests)  # every version, to pick two
        assert all(query["updated_since"] == "2025-10-01T00:00:00Z" for _, query in registry.requests)
    assert run.exit_code == 0, run.stderr
    servers = servers_of(out)
    assert list(servers) == ["acme-notes"]
    assert servers["acme-notes"]["versions"] == ["1.1.0", "1.1.5"]  # newest stable, in npm's order
    assert "skipped" not in run.stderr.replace("0 skipped", "")  # filtered out is not "cannot audit"


def test_export_directory_of_both_generations(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    out = tmp_path / "fleet.toml"
    run = run_cli("fleet", "discover", "--export", str(EXPORTS), "--latest", "2", "-o", str(out))
    assert run.exit_code == 0, run.stderr
    servers = servers_of(out)
    assert servers["modelcontextprotocol-filesystem"]["args"] == ["REPLACE-ME-TARGET_DIR"]
    assert servers["modelcontextprotocol-filesystem"]["versions"] == ["2025.7.1"]
    github = servers["acme-github-tools"]
    assert github["args"] == ["--toolsets", "issues,pulls"]  # {toolsets} filled from its variable's default
    assert github["env"] == {"GITHUB_TOKEN": "REPLACE-ME-GITHUB_TOKEN", "GITHUB_HOST": "github.com"}
    assert servers["example-weather"]["versions"] == ["1.1.0", "1.2.0"]
    assert set(servers) == {"modelcontextprotocol-filesystem", "acme-github-tools", "example-weather"}
    assert "skipped io.github.acme/container-only: oci package docker.io/acme/container-only:2.0.0" in run.stderr
    hosted = next(line for line in run.stderr.splitlines() if "ai.acme/hosted" in line)
    assert "remote https://mcp.acme.ai/sse speaks the HTTP+SSE transport" in hosted
    assert "remote https://mcp.acme.ai/mcp needs header Authorization" in hosted
    assert "GITHUB_TOKEN (secret)" in run.stderr


def test_export_single_file_to_stdout(run_cli: Callable[..., CliRun]) -> None:
    run = run_cli("fleet", "discover", "--export", str(EXPORTS / "github.json"), "--fleet", "mine")
    assert run.exit_code == 0, run.stderr
    manifest = Manifest.model_validate(tomllib.loads(run.stdout))
    assert manifest.fleet.name == "mine"
    assert [s.name for s in manifest.servers] == ["acme-github-tools"]
    assert "written to stdout" in run.stderr


def test_npm_and_pypi_names_resolve_at_run_time(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    out = tmp_path / "fleet.toml"
    run = run_cli(
        "fleet", "discover", "--npm", "@modelcontextprotocol/server-memory", "mcp-searxng", "mcp-searxng",
        "--pypi", "mcp-server-time", "--latest", "3", "-o", str(out),
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    servers = servers_of(out)
    assert servers["modelcontextprotocol-server-memory"] == {
        "name": "modelcontextprotocol-server-memory",
        "source": "npm",
        "package": "@modelcontextprotocol/server-memory",
        "versions": ["latest:3"],
    }
    assert servers["mcp-searxng"]["versions"] == ["latest:3"]
    assert servers["mcp-server-time"]["source"] == "pypi"
    assert len(servers) == 3  # mcp-searxng, given twice, is one server


def test_unreachable_registry_is_a_clear_error(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    run = run_cli("fleet", "discover", "--registry", closed, "-o", str(tmp_path / "fleet.toml"))
    assert run.exit_code == 1
    assert f"cannot reach the MCP Registry at {closed}" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "fleet.toml").exists()


@pytest.mark.http
def test_not_a_registry_is_a_clear_error(run_cli: Callable[..., CliRun]) -> None:
    with Registry({"/v0.1/servers": [{"items": []}]}) as registry:
        run = run_cli("fleet", "discover", "--registry", registry.url)
    assert run.exit_code == 1
    assert "has no 'servers' list; is this an MCP Registry?" in run.stderr


def test_usage_errors_exit_2(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    assert "name a source" in run_cli("fleet", "discover").stderr
    not_http = run_cli("fleet", "discover", "--registry", "registry.example.com")
    assert (not_http.exit_code, "give an http(s) URL" in not_http.stderr) == (2, True)
    existing = tmp_path / "fleet.toml"
    existing.write_text("hand-written", encoding="utf-8")
    refused = run_cli("fleet", "discover", "--npm", "x", "-o", str(existing))
    assert refused.exit_code == 2
    assert "pass --force" in refused.stderr
    assert existing.read_text(encoding="utf-8") == "hand-written"
    assert run_cli("fleet", "discover", "--npm", "x", "-o", str(existing), "--force").exit_code == 0
    missing = run_cli("fleet", "discover", "--export", str(tmp_path / "none.json"))
    assert (missing.exit_code, "no such file" in missing.stderr) == (2, True)


def test_nothing_auditable_is_an_error(run_cli: Callable[..., CliRun]) -> None:
    run = run_cli("fleet", "discover", "--export", str(EXPORTS / "container.json"))
    assert run.exit_code == 1
    assert "skipped io.github.acme/container-only" in run.stderr
    assert "no auditable server" in run.stderr


@pytest.mark.parametrize(
    ("registry_name", "expected"),
    [
        ("io.github.owner/repo", "owner-repo"),
        ("io.github.acme/acme-mcp", "acme-mcp"),
        ("com.example/weather", "example-weather"),
        ("io.modelcontextprotocol/filesystem", "modelcontextprotocol-filesystem"),
        ("ai.smithery.tools/x y", "smithery.tools-x-y"),
        ("io.github.__/..", "server"),
    ],
)
def test_short_names_fit_the_manifest(registry_name: str, expected: str) -> None:
    assert short_name(registry_name) == expected


def test_names_stay_unique() -> None:
    listed = [
        read_listing(camel(name, "1.0.0", npm(f"@x/{index}", "1.0.0")))
        for index, name in enumerate(["io.github.a/b-c", "io.github.a-b/c", "com.a/b-c", "com.a/b_c"])
    ]
    listed.append(read_listing(camel("com.a/b-c", "2.0.0", npm("@x/again", "2.0.0"))))  # one server, two versions
    found = discover(listed, Options(), npm=["a-b-c"])
    names = ["a-b-c", "io.github.a-b-c", "com.a-b-c", "a-b_c", "a-b-c-2"]
    assert [s.table["name"] for s in found.servers] == names
    assert manifest_name("@scope/pkg") == "scope-pkg"


def test_written_text_reads_back_exactly(tmp_path: Path) -> None:
    awkward = 'quote " backslash \\ newline \n tab \t bell \x07 del \x7f unicode ü 🙂 \u2028'
    table = {
        "name": "x",
        "source": "http",
        "versions": ["1", "2"],
        "url": "http://127.0.0.1:{port}/mcp",
        "env": {"A.B": awkward, "plain_key": "", "with space": "v"},
        "headers": {},
        "args": [awkward, "--flag"],
    }
    text = manifest_text('fleet "x"', [(f"comment {awkward}", table)], header=f"header\n{awkward}")
    data = tomllib.loads(text)
    assert data == {"fleet": {"name": 'fleet "x"'}, "servers": [table]}
    path = tmp_path / "fleet.toml"
    path.write_text(text, encoding="utf-8")
    assert load_manifest(path).servers[0].env["A.B"] == awkward


def test_a_package_serving_http_gets_hookconfs_free_port() -> None:
    serving = npm(
        "@acme/web-mcp",
        "1.0.0",
        transport={"type": "streamable-http", "url": "http://localhost:{port}/mcp"},
        packageArguments=[{"type": "named", "name": "--port", "valueHint": "port"}],
    )
    tenant = npm("@acme/tenant-mcp", "1.0.0", transport={"type": "streamable-http", "url": "http://{tenant}.local/mcp"})
    listed = [
        read_listing(camel("io.github.acme/web", "1.0.0", serving)),
        read_listing(camel("io.github.acme/t", "1.0.0", tenant)),
    ]
    found = discover(listed, Options())
    assert [s.table for s in found.servers] == [
        {
            "name": "acme-web",
            "source": "npm",
            "package": "@acme/web-mcp",
            "versions": ["1.0.0"],
            "args": ["--port", "{port}"],
            "url": "http://localhost:{port}/mcp",
        }
    ]
    assert found.skipped[0].reason == (
        "npm package @acme/tenant-mcp serves streamable HTTP at http://{tenant}.local/mcp, which needs {tenant}"
    )


def test_newest_release_gives_the_arguments() -> None:
    """Without the registry's latest flag, the highest release (not a pre-release) says how to run the server."""
    documents = [
        camel(
            "io.github.acme/n", "1.0.0", npm("@acme/n", "1.0.0", environmentVariables=[{"name": "OLD", "default": "1"}])
        ),
        camel(
            "io.github.acme/n", "1.1.0", npm("@acme/n", "1.1.0", environmentVariables=[{"name": "NEW", "default": "1"}])
        ),
        camel("io.github.acme/n", "2.0.0-rc.1", npm("@acme/n", "2.0.0-rc.1", environmentVariables=[])),
    ]
    found = discover([read_listing(d) for d in documents], Options(latest=5))
    assert found.servers[0].table["env"] == {"NEW": "1"}
    assert found.servers[0].table["versions"] == ["1.0.0", "1.1.0"]
