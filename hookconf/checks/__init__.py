"""The check catalog: a registry and one module per suite.

Importing this package imports every suite module, so the registry is complete.
"""

from hookconf.checks import determinism, dsgvo, idempotency, latency, side_effects
from hookconf.checks.registry import FINDINGS, SUITES, Finding, SuiteResult
from hookconf.verdicts import Status

__all__ = ["FINDINGS", "SUITES", "Finding", "Status", "SuiteResult", "determinism", "dsgvo",
           "idempotency", "latency", "side_effects"]
