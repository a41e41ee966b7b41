"""hookconf: audit MCP servers for hook readiness, protocol compliance and resource cost.

`hookconf.audit(config)` audits a server from Python (hookconf/api.py); it is loaded on first use, so that the
command line's start-up stays light.
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

HANDSHAKE_REVISIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
STATELESS_REVISIONS: tuple[str, ...] = ("2026-07-28",)
LATEST_HANDSHAKE_REVISION = HANDSHAKE_REVISIONS[-1]
AUTO_SPEC_VERSION = "auto"  # probe the server; the report names the revision graded, never "auto"
SPEC_VERSIONS: tuple[str, ...] = (AUTO_SPEC_VERSION, *HANDSHAKE_REVISIONS, *STATELESS_REVISIONS)

# The hook suites, in report order: the one list of their names, here so that the command line and the
# report renderers need not load the checks. Each name is registered by one module of hookconf.checks, and
# loading the checks fails when a registered suite is not declared here or a declared one is not registered.
HOOK_SUITES: tuple[str, ...] = ("idempotency", "side-effects", "latency", "determinism", "dsgvo")
COMPLIANCE_SUITE = "compliance"
ALL_SUITES: tuple[str, ...] = (*HOOK_SUITES, COMPLIANCE_SUITE)
DEFAULT_CONFIG_NAME = "hook-conformance.config.json"


if TYPE_CHECKING:
    from hookconf.api import audit as audit
else:

    def __getattr__(name: str) -> Any:
        if name == "audit":
            from hookconf.api import audit

            return audit
        raise AttributeError(f"module 'hookconf' has no attribute {name!r}")
