"""Servers from an MCP client's config file, as hookconf server configs: `check --from FILE [--server NAME]`.

Read: `mcpServers` files (Claude Desktop, Claude Code's .mcp.json, Cursor, Windsurf), VS Code's mcp.json (`servers`)
and a VS Code settings.json (`mcp.servers`). Their variables become hookconf's: VS Code's ${env:NAME} is ${NAME},
expanded from the environment like every ${NAME}; ${workspaceFolder} and ${userHome} are the folders they name.
What hookconf cannot supply (VS Code's ${input:ID} prompts) is an error that names it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hookconf.config import expand_variables
from hookconf.errors import ConfigError

VS_CODE_ENV = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
VS_CODE_INPUT = re.compile(r"\$\{input:([^}]*)\}")
HTTP_TYPES = ("http", "streamable-http", "streamableHttp")
STDIO_TYPES = ("stdio", None)


def servers_in(path: Path) -> dict[str, dict[str, Any]]:
    """Each server the client config lists, by its name, as the `server` table of a hookconf config."""
    data = _read(path)
    entries = _server_entries(data, path)
    folders = {"workspaceFolder": str(_workspace(path)), "userHome": str(Path.home())}
    return {name: _server(name, entry, path, folders) for name, entry in entries.items()}


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines (blank lines and # comments skipped, `export ` and quotes around the value allowed)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"env file {path}: cannot read it ({exc.strerror})") from None
    found: dict[str, str] = {}
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        if not sep or not key.strip().isidentifier():
            raise ConfigError(f"env file {path}, line {number}: not KEY=VALUE")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        found[key.strip()] = value
    return found


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--from {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--from {path}: cannot read it ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--from {path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def _server_entries(data: Any, path: Path) -> dict[str, Any]:
    if isinstance(data, dict):
        for table in (data.get("mcpServers"), data.get("servers"), (data.get("mcp") or {}).get("servers")):
            if isinstance(table, dict):
                return table
    raise ConfigError(f"--from {path}: no servers in it (no 'mcpServers', 'servers' or 'mcp.servers' table)")


def _workspace(path: Path) -> Path:
    """The folder VS Code calls the workspace: the one that holds .vscode/, else the file's own."""
    folder = path.resolve().parent
    return folder.parent if folder.name == ".vscode" else folder


def _server(name: str, entry: Any, path: Path, folders: dict[str, str]) -> dict[str, Any]:
    where = f"--from {path}: server {name!r}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: not a table")
    entry = _translated(entry, where, folders)
    kind = entry.get("type")
    if kind in HTTP_TYPES or (kind is None and "url" in entry and "command" not in entry):
        server = {"name": name, "transport": "http", "url": entry.get("url"), "headers": entry.get("headers") or {}}
    elif kind in STDIO_TYPES:
        env = dict(read_env_file(_relative(entry["envFile"], path))) if entry.get("envFile") else {}
        env.update(entry.get("env") or {})
        command = _expanded(str(entry.get("command") or ""), where) or None
        args = [_expanded(str(arg), where) for arg in entry.get("args") or []]
        server = {"name": name, "command": command, "args": args, "env": env}
        server |= {"cwd": entry["cwd"]} if entry.get("cwd") else {}
    else:
        raise ConfigError(f"{where}: transport {kind!r} is not one hookconf speaks (stdio, streamable HTTP)")
    return server


def _translated(value: Any, where: str, folders: dict[str, str]) -> Any:
    """The entry with VS Code's variables in hookconf's terms."""
    if isinstance(value, str):
        if prompt := VS_CODE_INPUT.search(value):
            raise ConfigError(
                f"{where}: ${{input:{prompt[1]}}} asks the user for a value, which hookconf cannot; "
                "write the value, or use ${env:NAME} and export NAME"
            )
        value = VS_CODE_ENV.sub(r"${\1}", value)
        for variable, folder in folders.items():
            value = value.replace(f"${{{variable}}}", folder)
        return value
    if isinstance(value, list):
        return [_translated(item, where, folders) for item in value]
    if isinstance(value, dict):
        return {key: _translated(item, where, folders) for key, item in value.items()}
    return value


def _expanded(text: str, where: str) -> str:
    """Client configs expand variables in the command line too (hookconf's own configs take args as written)."""
    try:
        return expand_variables(text)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _relative(name: str, path: Path) -> Path:
    candidate = Path(name).expanduser()
    return candidate if candidate.is_absolute() else _workspace(path) / candidate
