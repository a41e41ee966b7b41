"""The MCP protocol vocabulary, declared once: eras, JSON-RPC error codes, `_meta` keys, the params hookconf sends
to open a session in each era, the result model of each method, and the spec pages the checks cite.

A leaf: it imports only the standard library and hookconf's own constants, so any layer may use it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from hookconf import HANDSHAKE_REVISIONS, STATELESS_REVISIONS, __version__

STATELESS_REVISION = STATELESS_REVISIONS[-1]
# A well-formed revision that no MCP revision will ever be: a version a server cannot support.
UNKNOWN_REVISION = "1999-01-01"


class Era(StrEnum):
    """How a session starts; its value is what reports and `hookconf list` print."""

    HANDSHAKE = "handshake"  # initialize, sessions, ping
    STATELESS = "stateless"  # server/discover, _meta on every request

    @property
    def revisions(self) -> tuple[str, ...]:
        return STATELESS_REVISIONS if self is Era.STATELESS else HANDSHAKE_REVISIONS

    @classmethod
    def of(cls, revision: str) -> Era:
        return cls.STATELESS if revision in STATELESS_REVISIONS else cls.HANDSHAKE


# --- JSON-RPC 2.0 error codes ----------------------------------------------------------------------
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# --- MCP error codes, 2026-07-28 -------------------------------------------------------------------
HEADER_MISMATCH = -32020  # an HTTP header disagrees with the body, or is missing
MISSING_CLIENT_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022  # data: {requested, supported: [...]}
STATELESS_ERROR_CODES = (HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_VERSION)
# --- MCP error codes 2026-07-28 retired ------------------------------------------------------------
RESOURCE_NOT_FOUND = -32002  # now INVALID_PARAMS
URL_ELICITATION_REQUIRED = -32042  # MRTR replaced it

# --- `_meta` ---------------------------------------------------------------------------------------
META = "_meta"
META_PREFIX = "io.modelcontextprotocol/"
PROTOCOL_VERSION_KEY = META_PREFIX + "protocolVersion"
CLIENT_CAPABILITIES_KEY = META_PREFIX + "clientCapabilities"
CLIENT_INFO_KEY = META_PREFIX + "clientInfo"
SERVER_INFO_KEY = META_PREFIX + "serverInfo"

CLIENT_NAME = "hookconf"


def client_info() -> dict[str, Any]:
    """The Implementation hookconf names itself with, in initialize and in the stateless `_meta`."""
    return {"name": CLIENT_NAME, "version": __version__}


def initialize_params(revision: str) -> dict[str, Any]:
    """The params of an initialize offering `revision`, with no client capabilities."""
    return {"protocolVersion": revision, "capabilities": {}, "clientInfo": client_info()}


def stateless_meta(revision: str = STATELESS_REVISION) -> dict[str, Any]:
    """The per-request `_meta` envelope of the stateless era: version, capabilities (none) and client."""
    return {PROTOCOL_VERSION_KEY: revision, CLIENT_CAPABILITIES_KEY: {}, CLIENT_INFO_KEY: client_info()}


def discover_message(request_id: Any, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """A whole server/discover request, carrying `meta` or the envelope of the latest stateless revision."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "server/discover",
        "params": {META: stateless_meta() if meta is None else meta},
    }


# --- results ---------------------------------------------------------------------------------------
INPUT_REQUIRED = "input_required"  # 2026-07-28: the resultType of a result that asks the client for input
INPUT_REQUIRED_MODEL = "InputRequiredResult"
# The mcp_types model of the result of each request a client sends (EmptyResult: an empty object).
RESULT_MODELS = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/read": "ReadResourceResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "logging/setLevel": "EmptyResult",
    "completion/complete": "CompleteResult",
    "server/discover": "DiscoverResult",
    "subscriptions/listen": "SubscriptionsListenResult",
}

# --- the spec: https://modelcontextprotocol.io/specification/<revision>/<page>#<anchor> ------------
SPEC_BASE = "https://modelcontextprotocol.io/specification"
BASE_PAGE = "basic"
LIFECYCLE_PAGE = "basic/lifecycle"
STDIO_PAGE = "basic/transports#stdio"
HTTP_PAGE = "basic/transports#streamable-http"
SECURITY_PAGE = "basic/security_best_practices"
AUTH_PAGE = "basic/authorization"


def spec_url(revision: str, page: str) -> str:
    return f"{SPEC_BASE}/{revision}/{page}"


# Requests that run the server's own code (a tool, a resource read, a prompt, a completion) or hold a stream
# open: a server that reads its input in order may legitimately be busy with one for the whole timeout.
APPLICATION_METHODS = frozenset(
    {
        "tools/call",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "completion/complete",
        "subscriptions/listen",
    }
)
APPLICATION_PREFIXES = ("tasks/",)
