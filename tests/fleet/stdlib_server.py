"""A small MCP server in the standard library only: starts in milliseconds, installs without dependencies.

CLI: python stdlib_server.py [--release R] [--startup-delay SECONDS]

Newline-delimited JSON-RPC over stdio. One read-only tool, `lookup(key)`, answers
`{"key": KEY, "release": R}`. The release defaults to the installed distribution's version when
this file is packaged as `hookconf-fixture-server` (see tests/test_fleet_install.py), else "0".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import metadata
from typing import Any

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
DISTRIBUTION = "hookconf-fixture-server"
LOOKUP = {
    "name": "lookup",
    "description": "Returns a constant for a key. Stores no personal data, sends nothing over the network, "
    "retains nothing after the call.",
    "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
}


def installed_release() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0"


def answer(message: dict[str, Any], release: str) -> dict[str, Any] | None:
    method, params = message.get("method"), message.get("params") or {}
    if "id" not in message or not isinstance(method, str):
        return None  # a notification, or a response to us
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        requested = params.get("protocolVersion")
        reply["result"] = {
            "protocolVersion": requested if requested in REVISIONS else REVISIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stdlib-fixture", "version": release},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": [LOOKUP]}
    elif method == "tools/call" and params.get("name") == "lookup":
        key = (params.get("arguments") or {}).get("key")
        text = json.dumps({"key": key, "release": release}, sort_keys=True)
        reply["result"] = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "tools/call":
        reply["error"] = {"code": -32602, "message": f"unknown tool {params.get('name')!r}"}
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"method not found: {method}"}
    return reply


def serve(release: str) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            reply: dict[str, Any] | None = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "parse error"},
            }
        else:
            reply = (
                answer(message, release)
                if isinstance(message, dict)
                else {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
            )
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--release", default=None)
    parser.add_argument(
        "--startup-delay",
        type=float,
        default=0.0,
        help="sleep this long before serving, to make audits last (for interrupting them)",
    )
    args = parser.parse_args()
    time.sleep(args.startup_delay)
    serve(args.release or installed_release())


if __name__ == "__main__":
    main()
