"""Protocol compliance: the catalog of checks, one module per category, each holding the checks of both eras
(the 2026-07-28 ones in a section of their own; lifecycle's in lifecycle_stateless); importing this fills the
registry."""

from hookconf.checks.compliance import (
    errors,
    features,
    lifecycle,
    lifecycle_stateless,
    schema,
    security,
    transport,
)
from hookconf.checks.compliance.catalog import CHECKS, Category, ComplianceCheck

__all__ = [
    "CHECKS",
    "Category",
    "ComplianceCheck",
    "errors",
    "features",
    "lifecycle",
    "lifecycle_stateless",
    "schema",
    "security",
    "transport",
]
