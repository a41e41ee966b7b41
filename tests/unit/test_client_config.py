"""Servers from MCP clients' config files (Claude Desktop, Claude Code, Cursor, VS Code) as hookconf server configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookconf.client_config import read_env_file, servers_in
from hookconf.config import parse_config
from hookconf.errors import ConfigError


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_an_mcp_servers_file_gives_stdio_and_http_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKCONF_TEST_ROOT", "/srv/notes")
    monkeypatch.delenv("HOOKCONF_TEST_UNSET_A", raising=False)
    path = write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "notes": {
                    "command": "npx",
                    "args": ["-y", "notes-mcp", "${HOOKCONF_TEST_ROOT}", "${HOOKCONF_TEST_UNSET_A:-/tmp}"],
                    "env": {"TOKEN": "${HOOKCONF_TEST_ROOT}"},
                },
                "remote": {"type": "http", "url": "http://127.0.0.1:3001/mcp", "headers": {"X-Key": "k"}},
            }
        },
    )
    servers = servers_in(path)
    assert servers["notes"] == {
        "name": "notes",
        "command": "npx",
        "args": ["-y", "notes-mcp", "/srv/notes", "/tmp"],
        "env": {"TOKEN": "${HOOKCONF_TEST_ROOT}"},  # expanded when the config is validated
    }
    assert servers["remote"] == {
        "name": "remote",
        "transport": "http",
        "url": "http://127.0.0.1:3001/mcp",
        "headers": {"X-Key": "k"},
    }
    assert parse_config({"server": servers["notes"]}).server.env == {"TOKEN": "/srv/notes"}


def test_vs_code_variables_and_env_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKCONF_TEST_TOKEN", "s3cret")
    (tmp_path / "dev.env").write_text("# local\nexport REGION=eu\nNAME='quoted value'\n", encoding="utf-8")
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "servers": {
                "files": {
                    "type": "stdio",
                    "command": "node",
                    "args": ["${workspaceFolder}/server.js"],
                    "env": {"TOKEN": "${env:HOOKCONF_TEST_TOKEN}"},
                    "envFile": "${workspaceFolder}/dev.env",
                }
            }
        },
    )
    server = servers_in(path)["files"]
    assert server["args"] == [f"{tmp_path.resolve()}/server.js"]
    assert server["env"] == {"REGION": "eu", "NAME": "quoted value", "TOKEN": "${HOOKCONF_TEST_TOKEN}"}
    assert parse_config({"server": server}).server.env["TOKEN"] == "s3cret"


def test_what_hookconf_cannot_supply_is_named(tmp_path: Path) -> None:
    prompt = write(tmp_path / "a.json", {"servers": {"gh": {"command": "gh-mcp", "env": {"T": "${input:token}"}}}})
    with pytest.raises(ConfigError, match=r"server 'gh': \$\{input:token\} asks the user for a value"):
        servers_in(prompt)
    sse = write(tmp_path / "b.json", {"mcpServers": {"old": {"type": "sse", "url": "http://127.0.0.1/sse"}}})
    with pytest.raises(ConfigError, match="transport 'sse' is not one hookconf speaks"):
        servers_in(sse)
    empty = write(tmp_path / "c.json", {"other": {}})
    with pytest.raises(ConfigError, match="no servers in it"):
        servers_in(empty)


def test_a_malformed_env_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("A=1\nnot a pair\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line 2: not KEY=VALUE"):
        read_env_file(path)
