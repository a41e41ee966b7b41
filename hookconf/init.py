"""`hookconf init -- CMD` / `hookconf init URL`: a working config written from the server itself.

The server is started in an audit sandbox (or reached), its tools are listed, and the config names it as given, with
a probe for each read-only tool holding the arguments hookconf generates from its inputSchema, ready to edit. Tools
that may write are left as they are: hookconf does not call them unless the config's allowDestructive names them.
"""

from __future__ import annotations

import contextlib
from typing import Any

from hookconf import ALL_SUITES


def config_from_server(server: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The config for the server table (validated), and a one-line summary of what it holds."""
    from hookconf.checks.arguments import generated_arguments
    from hookconf.checks.context import is_read_only
    from hookconf.config import parse_config
    from hookconf.era import connect
    from hookconf.wire.sandbox import audit_sandbox

    config = parse_config({"server": server}, source="the command line")
    with audit_sandbox(config.server) as sandbox:
        started = sandbox.applied(config) if sandbox is not None else config
        connection = connect(started.server, started.timeout_ms / 1000, started.spec_version)
        with contextlib.closing(connection.session) as session:
            tools = session.list_tools()
    readable = [tool for tool in tools if is_read_only(tool)]
    probes = [{"name": str(t.get("name")), "args": generated_arguments(t.get("inputSchema"))[0]} for t in readable]
    written = {"server": server, "suites": list(ALL_SUITES), "timeoutMs": config.timeout_ms, "probes": probes}
    parse_config(written, source="the config written")  # what init writes, check accepts
    others = len(tools) - len(readable)
    summary = f"{len(tools)} tools, a probe for each of the {len(readable)} read-only ones" + (
        f"; the other {others} may write, and are not called unless allowDestructive names them" if others else ""
    )
    return written, summary
