"""dsgvo: a keyword heuristic over the tool description for data-flow and deletion documentation.

It reads the description only and never calls the tool, so it runs for destructive tools too. A tool
counts as destructive here when the server declares it (destructiveHint: true) or its description says
that it deletes, writes or changes something; the spec's worst-case default for an unannotated tool keeps
it from being called, but is no evidence that it destroys data (that tool gets ANNOT-001 instead).
"""

from __future__ import annotations

import re

from hookconf.checks.context import ToolContext, declares_destructive, is_read_only, tool_annotations
from hookconf.checks.registry import Finding, SuiteResult, hook_suite, register_finding, result
from hookconf.verdicts import Status
from hookconf.wire.transport import JsonObject

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

# A description says the tool changes something when one of these verbs opens a sentence or clause ("Deletes
# a file", "Create or update ...", "Use this to remove ..."); a noun use ("check for updates") does not count.
CHANGE_VERBS = (
    r"(?:delet|remov|eras|purg|wip|truncat|overwrit|writ|modif|updat|edit|replac|renam|mov|clear|reset|"
    r"insert|append|destroy|drop|kill|terminat|uninstall|revert|commit|push|merg|upload|sav|patch)"
    r"(?:e|es|ed|ing|s|y|ies|ied)?"
)
CHANGE_STATEMENT = re.compile(
    r"(?:^|[.;:!?\n(]\s*|\b(?:and|or|then|also|to|will|can|may|it|tool|that|which)\s+)" + CHANGE_VERBS + r"\b",
    re.IGNORECASE,
)
READ_ONLY_STATEMENT = re.compile(
    r"\bread[- ]?only\b|\b(?:does not|doesn't|never|without|cannot|won't|will not)\s+"
    r"(?:modify|modifying|change|changing|write|writing|delete|deleting|alter|altering)\b|\bno side[- ]effects\b",
    re.IGNORECASE,
)

NO_DELETION_DOCS = register_finding(Finding(
    code="DSGVO-001", suite=SUITE, severity=Status.FAIL,
    title="Destructive tool lacks deletion / retention documentation",
    explanation="The tool may destroy data (the server declares destructiveHint: true, or the "
    "description says the tool deletes, writes or changes something), and its description says "
    "nothing about what is deleted, whether it can be recovered, or how long data is kept. GDPR "
    "art. 17 and 30 expect that to be knowable. This is a keyword heuristic, not legal advice.",
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


def describes_changes(description: str) -> bool:
    """The description says the tool deletes, writes or changes something, and does not call it read-only."""
    return bool(CHANGE_STATEMENT.search(description)) and not READ_ONLY_STATEMENT.search(description)


def judged_destructive(tool: JsonObject) -> bool:
    """Declared destructive, or (with no destructiveHint either way) described as changing something."""
    if is_read_only(tool) or isinstance(tool_annotations(tool).get("destructiveHint"), bool):
        return declares_destructive(tool)
    return describes_changes(str(tool.get("description") or ""))


@hook_suite(SUITE, weight=10, summary="Description mentions data flow / retention / deletion (heuristic).",
            calls_tool=False)
def check_dsgvo(ctx: ToolContext) -> SuiteResult:
    description = str(ctx.tool.get("description") or "")
    if judged_destructive(ctx.tool):
        if mentions(description, DELETION_TERMS):
            return result(SUITE, ctx.name, Status.PASS, "destructive tool documents deletion / retention")
        return result(SUITE, ctx.name, Status.FAIL, NO_DELETION_DOCS.title, NO_DELETION_DOCS.code)
    if mentions(description, DATA_FLOW_TERMS):
        return result(SUITE, ctx.name, Status.PASS, "description documents data flow")
    return result(SUITE, ctx.name, Status.WARN, NO_DATA_FLOW_DOCS.title, NO_DATA_FLOW_DOCS.code)
