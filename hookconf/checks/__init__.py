"""The check catalog: a registry and one module per suite.

Importing this package imports every suite module, so the registry is complete, and checks it against
the suites declared in hookconf.HOOK_SUITES.
"""

from hookconf.checks import determinism, dsgvo, idempotency, latency, side_effects
from hookconf.checks.registry import FINDINGS, SUITES, CheckDeclaration, Finding, SuiteResult, seal_suites
from hookconf.verdicts import Status, Verdict

seal_suites()

__all__ = [
    "FINDINGS",
    "SUITES",
    "CheckDeclaration",
    "Finding",
    "Status",
    "SuiteResult",
    "Verdict",
    "determinism",
    "dsgvo",
    "idempotency",
    "latency",
    "side_effects",
]
