"""Protocol compliance: the catalog of checks, one module per area; importing this fills the registry."""

from hookconf.checks.compliance import (
    errors,
    features,
    lifecycle,
    schema,
    security,
    stateless,
    stateless_transport,
    transport,
)
from hookconf.checks.compliance.catalog import CHECKS, Category, ComplianceCheck

__all__ = ["CHECKS", "Category", "ComplianceCheck", "errors", "features", "lifecycle", "schema", "security",
           "stateless", "stateless_transport", "transport"]
