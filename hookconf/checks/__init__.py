"""The check catalog: a registry and one module per suite.

Importing this package imports every suite module, so the registry is complete, and checks it against
the suites declared in hookconf.HOOK_SUITES.
"""

from hookconf.checks import determinism, dsgvo, idempotency, latency, side_effects
from hookconf.checks.registry import FINDINGS, SUITES, Finding, SuiteResult, seal_suites
from hookconf.verdicts import Status

seal_suites()

__all__ = [
    "FINDINGS",
    "SUITES",
    "Finding",
    "Status",
    "SuiteResult",
    "determinism",
    "dsgvo",
    "idempotency",
    "latency",
    "side_effects",
]
