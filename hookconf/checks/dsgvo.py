"""dsgvo: a keyword heuristic over the tool description for data-flow and deletion documentation.

It reads the description only and never calls the tool, so it runs for destructive tools too.
"""

from __future__ import annotations

import re

from hookconf.checks.context import ToolContext, is_destructive
from hookconf.checks.registry import Finding, SuiteResult, hook_suite, register_finding, result
from hookconf.verdicts import Status

SUITE = "dsgvo"

# German terms too: DSGVO is the German name of the GDPR and many descriptions are written in German.
DELETION_TERMS = (
    "delet", "remov", "eras", "purg", "retention", "retain", "permanent", "irreversib", "undo",
    "recover", "backup", "kept for", "lösch", "aufbewahr", "unwiderruflich",
)
DATA_FLOW_TERMS = (
    "stor", "persist", "retain", "retention", "send", "transmit", "upload", "share",
    "third-party", "third party", "network", "remote", "local", "log", "cache", "personal data",
    "pii", "gdpr", "dsgvo", "privacy", "no data", "reads", "writes", "speicher", "übermittel",
    "daten", "datenschutz",
)

NO_DELETION_DOCS = register_finding(Finding(
    code="DSGVO-001", suite=SUITE, severity=Status.FAIL,
    title="Destructive tool lacks deletion / retention documentation",
    explanation="The tool may destroy data (destructiveHint is true, or unset on a tool that is "
    "not read-only), and its description says nothing about what is deleted, whether it can be "
    "recovered, or how long data is kept. GDPR art. 17 and 30 expect that to be knowable. This "
    "is a keyword heuristic, not legal advice.",
    remediation="State in the description what the tool deletes or changes, whether that is "
    "permanent, and what is retained afterwards (and for how long).",
))
NO_DATA_FLOW_DOCS = register_finding(Finding(
    code="DSGVO-002", suite=SUITE, severity=Status.WARN,
    title="Tool description missing data-flow keywords",
    explanation="The description does not say where data goes: whether the tool stores, logs, "
    "caches or sends anything, locally or to a third party. A hook runs without a human looking, "
    "so its data flow should be documented. Keyword heuristic, not legal advice.",
    remediation="Add a sentence on data flow, e.g. 'Reads the local index; stores nothing; sends "
    "nothing over the network.'",
))


def mentions(text: str, terms: tuple[str, ...]) -> bool:
    """True when a term starts a word of the text ("log" matches "logs", not "catalogue")."""
    lowered = re.sub(r"\s+", " ", text.lower())
    return any(re.search(r"\b" + re.escape(term), lowered) for term in terms)


@hook_suite(SUITE, weight=10, summary="Description mentions data flow / retention / deletion (heuristic).",
            calls_tool=False)
def check_dsgvo(ctx: ToolContext) -> SuiteResult:
    description = str(ctx.tool.get("description") or "")
    if is_destructive(ctx.tool):
        if mentions(description, DELETION_TERMS):
            return result(SUITE, ctx.name, Status.PASS, "destructive tool documents deletion / retention")
        return result(SUITE, ctx.name, Status.FAIL, NO_DELETION_DOCS.title, NO_DELETION_DOCS.code)
    if mentions(description, DATA_FLOW_TERMS):
        return result(SUITE, ctx.name, Status.PASS, "description documents data flow")
    return result(SUITE, ctx.name, Status.WARN, NO_DATA_FLOW_DOCS.title, NO_DATA_FLOW_DOCS.code)
