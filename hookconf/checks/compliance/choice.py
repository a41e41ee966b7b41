"""Which tools a compliance check calls, and through which arguments: tools in service first, and a tool whose
backend is out of reach only where its answer could still change the verdict.

The order comes from `ComplianceContext.read_only_tools` (tools out of service last) and `working_tools` (those
whose backend is not known to be out of reach); this module holds what the checks add to that choice: a tool's
text arguments, the ones that name where it connects to, and the note a verdict gives for the tools it left out.
"""

from __future__ import annotations

import re
from typing import Any

from hookconf.checks.compliance.context import ComplianceContext
from hookconf.wire.transport import JsonObject

ADDRESS_FORMATS = {"uri", "url", "iri", "uri-reference", "iri-reference", "hostname", "idn-hostname", "ipv4", "ipv6"}
ADDRESS_WORDS = {
    "url",
    "urls",
    "uri",
    "uris",
    "href",
    "link",
    "links",
    "endpoint",
    "host",
    "hostname",
    "domain",
    "website",
    "site",
}
NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")  # "base_url" and "baseUrl" both give "url"
DESCRIBES_AN_ADDRESS = re.compile(r"\b(?:URL|URI)s?\b", re.IGNORECASE)
ECHO_MIN_CHARS = 3  # shorter values turn up in any message
MAX_NAMED = 3  # tools out of service a verdict names with their failure


def input_properties(tool: JsonObject) -> dict[str, Any]:
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


def text_parameters(tool: JsonObject) -> list[str]:
    """The names of the tool's string arguments, in the order its inputSchema lists them."""
    return [
        name
        for name, schema in input_properties(tool).items()
        if isinstance(schema, dict) and schema.get("type") == "string"
    ]


def takes_an_address(tool: JsonObject, parameter: str) -> bool:
    """Whether the argument says where the tool connects to (a URL, a host): a value there replaces the backend."""
    schema = input_properties(tool).get(parameter)
    schema = schema if isinstance(schema, dict) else {}
    words = {part.lower() for part in NAME_PARTS.findall(parameter)}
    return (
        schema.get("format") in ADDRESS_FORMATS
        or bool(words & ADDRESS_WORDS)
        or parameter.lower().endswith(("url", "uri", "urls"))
        or bool(DESCRIBES_AN_ADDRESS.search(str(schema.get("description") or "")))
    )


def failure_echoes(ctx: ComplianceContext, tool: JsonObject, parameter: str) -> bool:
    """Whether the failure that put the tool out of service repeats the argument's usual value: then another value
    may come back in its error too. A dead backend's error that does not repeat it cannot carry a payload back."""
    usual = ctx.arguments_for(tool).get(parameter)
    failure = ctx.out_of_service.get(str(tool.get("name")), "")
    return isinstance(usual, str) and len(usual) >= ECHO_MIN_CHARS and usual.lower() in failure.lower()


def service_summary(ctx: ComplianceContext, tools: list[JsonObject]) -> str:
    """How those of the tools whose backend is out of reach failed, the first MAX_NAMED of them by name and message
    ("name: how it failed; ..."), the rest counted: a server with 27 tools behind one dead API needs no 27 quotes."""
    down = [tool for tool in tools if ctx.backend_down(str(tool.get("name")))]
    note = ctx.service_note(down[:MAX_NAMED])
    return note + (f"; and {len(down) - MAX_NAMED} more" if len(down) > MAX_NAMED else "")


def left_out(ctx: ComplianceContext, tools: list[JsonObject], verb: str = "called") -> str:
    """ "; not <verb>, out of service: name: how it failed; ..." for those of the tools whose backend is out of reach,
    "" when there are none: a verdict says which tools it did not call and why."""
    note = service_summary(ctx, tools)
    return f"; not {verb}, out of service: {note}" if note else ""
