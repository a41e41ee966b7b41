"""Plain helpers the test modules import: fixture-server configs, free ports, and the CLI's captured run.
The pytest fixtures stay in conftest.py."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def stdio_server(script: str, *args: str) -> dict[str, Any]:
    return {
        "name": script.removesuffix(".py"),
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(FIXTURES / script), *args],
    }


@dataclass
class CliRun:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def check_in_process(config: Path, *flags: str, timeout_s: float = 120) -> subprocess.CompletedProcess[str]:
    """`hookconf check CONFIG --output json FLAGS` in a process of its own (a traceback from any thread, an exit
    without a report: all of it shows)."""
    return subprocess.run(
        [sys.executable, "-m", "hookconf", "check", str(config), "--output", "json", *flags],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_server(script: str) -> dict[str, Any]:
    """A config that has hookconf start the fixture as a streamable-HTTP server on a free port."""
    port = free_port()
    return {**stdio_server(script, "--http", str(port)), "transport": "http", "url": f"http://127.0.0.1:{port}/mcp"}


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"fixture server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"fixture server did not listen on port {port} within {timeout_s} s")
