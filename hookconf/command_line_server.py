"""A server named on the command line instead of in a config file: `-- CMD ARGS...` or a URL, with -e, --env-file,
--cwd, -H and --auth. Used by `check` and `init`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hookconf.errors import ConfigError

URL = re.compile(r"^https?://", re.IGNORECASE)


def is_url(target: Sequence[str]) -> bool:
    return len(target) == 1 and bool(URL.match(target[0]))


def server_table(
    target: Sequence[str],
    *,
    env: Sequence[str] = (),
    env_file: Path | None = None,
    cwd: str | None = None,
    headers: Sequence[str] = (),
    name: str | None = None,
) -> dict[str, Any]:
    """The `server` table of a config for the target: a URL (streamable HTTP) or a command and its arguments."""
    if not target:
        raise ConfigError("name the server: '-- COMMAND ARGS...' to start one, or its URL")
    if is_url(target):
        if env or env_file or cwd:
            raise ConfigError("-e, --env-file and --cwd are for a server hookconf starts, not for a URL")
        return {"name": name or "server", "transport": "http", "url": target[0], "headers": parse_headers(headers)}
    if headers:
        raise ConfigError("-H and --auth are for a server reached by URL")
    from hookconf.client_config import read_env_file

    variables = read_env_file(env_file) if env_file is not None else {}
    variables.update(parse_pairs(env, "-e"))
    server: dict[str, Any] = {"name": name or _name_of(target), "command": target[0], "args": list(target[1:])}
    return server | {"env": variables} | ({"cwd": cwd} if cwd else {})


def parse_pairs(pairs: Sequence[str], flag: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{flag} {pair!r}: write it as KEY=VALUE")
        found[key.strip()] = value
    return found


def parse_headers(headers: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for header in headers:
        key, sep, value = header.partition(":")
        if not sep or not key.strip():
            raise ConfigError(f"-H {header!r}: expected 'Name: value'")
        found[key.strip()] = value.strip()
    return found


def _name_of(command: Sequence[str]) -> str:
    """A name for the server from its command line: the package or script it runs, not the runner."""
    runners = {"npx", "uvx", "pipx", "node", "python", "python3", "deno", "bun", "bunx", "docker", "uv", "-m", "run"}
    words = [word for word in command if not word.startswith("-")]
    named = next((word for word in words if Path(word).name not in runners), words[0] if words else "server")
    return Path(named).name.removesuffix(".py").removesuffix(".js") or "server"
