"""dsgvo: a keyword heuristic over the tool description for data-flow and deletion documentation.

It reads the description only and never calls the tool, so it runs for destructive tools too. A tool
counts as destructive here when the server declares it (destructiveHint: true) or its description says
that it deletes, writes or changes something; the spec's worst-case default for an unannotated tool keeps
it from being called, but is no evidence that it destroys data (that tool gets ANNOT-001 instead).
"""

from __future__ import annotations

import re

from hookconf.checks.context import ToolContext, declares_destructive, is_read_only, tool_annotations
from hookconf.checks.registry import Finding, hook_suite, register_finding, verdict
from hookconf.verdicts import Status, Verdict
from hookconf.wire.transport import JsonObject

SUITE = "dsgvo"

# German terms too: DSGVO is the German name of the GDPR and many descriptions are written in German.
DELETION_TERMS = (
    "delet",
    "remov",
    "eras",
    "purg",
    "retention",
    "retain",
    "permanent",
    "irreversib",
    "undo",
    "recover",
    "backup",
    "kept for",
    "lösch",
    "aufbewahr",
    "unwiderruflich",
)
DATA_FLOW_TERMS = (
    "stor",
    "persist",
    "retain",
    "retention",
    "send",
    "transmit",
    "upload",
    "share",
    "third-party",
    "third party",
    "network",
    "remote",
    "local",
    "log",
    "cache",
    "personal data",
    "pii",
    "gdpr",
    "dsgvo",
    "privacy",
    "no data",
    "reads",
    "writes",
    "speicher",
    "übermittel",
    "daten",
    "datenschutz",
    "internet",
    "submit",
)
# Where the data comes from or goes to, said without a keyword: a named service ("from Context7", "using
# SearXNG", "through Firecrawl", "from the configured SearXNG instance"), a named API ("Brave's Place Search
# API"), a fetched URL, or a verb that keeps or hands on what it gets ("Records ... feedback"). A name must
# not be the first word of a longer noun ("from the Word document" names a file format, not a recipient).
FLOW_PREPOSITION = (
    r"\b(?:from|using|through|via|calls|queries)\s+"
    r"(?:(?:the|an?\s+external|configured|remote|hosted)\s+)*"
)
# A capitalised name that is not a format or an identifier ("content from URLs" says nothing of the recipient).
NOT_A_SERVICE = r"(?!(?:URL|URI|HTML|JSON|XML|CSV|PDF|ID|UUID|SQL|API|LLM|AI)s?\b)"
SERVICE_NAME = NOT_A_SERVICE + r"[A-Z][\w-]*(?:\.[\w-]+)*(?:'s)?(?:\s+[A-Z][\w-]*(?:\.[\w-]+)*)*"
AFTER_SERVICE = (
    r"(?=\s*$|\s*[,.;:!?)]|\s+(?:api|apis|instance|service|server|endpoint|backend|index|cloud|"
    r"and|or|for|without|with|to|in|on|at|by|when|if|so|which|that|based)\b)"
)
NAMED_SERVICE = re.compile(FLOW_PREPOSITION + SERVICE_NAME + AFTER_SERVICE)
NAMED_API = re.compile(r"\b" + SERVICE_NAME + r"\s+API\b")
FETCHED_URL = re.compile(
    r"\bfetch(?:es|ed|ing)?\s+(?:(?:a|an|the|any|given|one|each|that|this)\s+)?(?:web\s*page|url)s?\b", re.IGNORECASE
)
KEEPS_OR_HANDS_ON = re.compile(
    r"(?:^|[.;:!?\n]\s*|\b(?:and|then|also|it|tool)\s+)(?:records|publish(?:es)?|posts)\b"
    r"(?!\s+(?:are|is|were|was|of|in|from|with|that|which)\b)",
    re.IGNORECASE,
)

# A description says the tool changes something when one of these verbs opens a sentence or clause ("Deletes
# a file", "Create or update ...", "Use this to remove ..."); a noun use ("check for updates") does not count.
CHANGE_VERBS = (
    r"(?:(?:delet|remov|eras|purg|wip|truncat|overwrit|writ|modif|updat|edit|replac|renam|mov|clear|reset|"
    r"insert|append|destroy|drop|kill|terminat|uninstall|revert|commit|push|merg|upload|patch)"
    r"(?:e|es|ed|ing|s|y|ies|ied)?"
    # "to save space / time / tokens" economises, it stores nothing
    r"|sav(?:e|es|ed|ing)\b(?!\s+(?:space|time|tokens?|context|bandwidth|memory|effort)\b))"
)
CHANGE_STATEMENT = re.compile(
    r"(?:^|[.;:!?\n(]\s*|\b(?:and|or|then|also|to|will|can|may|it|tool|that|which)\s+)" + CHANGE_VERBS + r"\b",
    re.IGNORECASE,
)
# The same at the start of a sentence or clause in Spanish, German and French descriptions ("Reemplaza el
# bloque ...", "Löscht die Datei", "Supprime le fichier"): the third person and the infinitive.
FOREIGN_CHANGE_VERBS = (
    r"(?:reemplaza|elimina|borra|modifica|actualiza|sobrescribe|renombra|inserta|mueve|vac[ií]a)(?:r|n)?"
    r"|(?:l[öo]sch|ersetz|[üu]berschreib|[äa]nder|aktualisier|entfern|schreib|verschieb)(?:t|en|e)?|leert|leeren"
    r"|(?:supprim|remplac|modifi|[ée]cras|effac|renomm|d[ée]plac|enregistr)(?:e|es|ent|er)"
)
FOREIGN_CHANGE_STATEMENT = re.compile(
    r"(?:^|[.;:!?\n(]\s*|\b(?:y|o|und|oder|dann|et|ou|puis)\s+)(?:" + FOREIGN_CHANGE_VERBS + r")\b",
    re.IGNORECASE,
)
# A sentence about a cache changes copies, which can be fetched again: "Set force=true to re-fetch and
# overwrite a cached paper (required to replace a newer stored version with an older one)".
CACHE_SENTENCE = re.compile(r"[^.;!?\n]*\bcach(?:e|ed|es|ing)\b[^.;!?\n]*", re.IGNORECASE)
READ_ONLY_STATEMENT = re.compile(
    r"\bread[- ]?only\b|\b(?:does not|doesn't|never|without|cannot|won't|will not)\s+"
    r"(?:modify|modifying|change|changing|write|writing|delete|deleting|alter|altering)\b|\bno side[- ]effects\b",
    re.IGNORECASE,
)

NO_DELETION_DOCS = register_finding(
    Finding(
        code="DSGVO-001",
        suite=SUITE,
        severity=Status.FAIL,
        title="Destructive tool lacks deletion / retention documentation",
        explanation="The tool may destroy data (the server declares destructiveHint: true, or the "
        "description says the tool deletes, writes or changes something), and its description says "
        "nothing about what is deleted, whether it can be recovered, or how long data is kept. GDPR "
        "art. 17 and 30 expect that to be knowable. This is a keyword heuristic, not legal advice.",
        remediation="State in the description what the tool deletes or changes, whether that is "
        "permanent, and what is retained afterwards (and for how long).",
    )
)
NO_DATA_FLOW_DOCS = register_finding(
    Finding(
        code="DSGVO-002",
        suite=SUITE,
        severity=Status.WARN,
        title="Tool description missing data-flow keywords",
        explanation="The description does not say where data goes: whether the tool stores, logs, "
        "caches or sends anything, locally or to a third party. A hook runs without a human looking, "
        "so its data flow should be documented. Keyword heuristic, not legal advice.",
        remediation="Add a sentence on data flow, e.g. 'Reads the local index; stores nothing; sends "
        "nothing over the network.'",
    )
)


def mentions(text: str, terms: tuple[str, ...]) -> bool:
    """True when a term starts a word of the text ("log" matches "logs", not "catalogue")."""
    lowered = re.sub(r"\s+", " ", text.lower())
    return any(re.search(r"\b" + re.escape(term), lowered) for term in terms)


def describes_changes(description: str) -> bool:
    """The description says the tool deletes, writes or changes something, and does not call it read-only."""
    text = CACHE_SENTENCE.sub(".", description)
    said = CHANGE_STATEMENT.search(text) or FOREIGN_CHANGE_STATEMENT.search(text)
    return bool(said) and not READ_ONLY_STATEMENT.search(description)


def describes_data_flow(description: str) -> bool:
    """The description says where data comes from or goes to: a keyword, a named service or API, a fetched URL."""
    text = description.strip()
    return mentions(text, DATA_FLOW_TERMS) or any(
        pattern.search(text) for pattern in (NAMED_SERVICE, NAMED_API, FETCHED_URL, KEEPS_OR_HANDS_ON)
    )


def judged_destructive(tool: JsonObject) -> bool:
    """Declared destructive, or (with no destructiveHint either way) described as changing something."""
    if is_read_only(tool) or isinstance(tool_annotations(tool).get("destructiveHint"), bool):
        return declares_destructive(tool)
    return describes_changes(str(tool.get("description") or ""))


@hook_suite(
    SUITE, weight=10, summary="Description mentions data flow / retention / deletion (heuristic).", calls_tool=False
)
def check_dsgvo(ctx: ToolContext) -> Verdict:
    return judge_description(ctx.tool)


def judge_description(tool: JsonObject) -> Verdict:
    """The dsgvo verdict on a tool definition (its annotations and description)."""
    description = str(tool.get("description") or "")
    if judged_destructive(tool):
        if mentions(description, DELETION_TERMS):
            return verdict(Status.PASS, "destructive tool documents deletion / retention")
        return verdict(Status.FAIL, NO_DELETION_DOCS.title, NO_DELETION_DOCS.code)
    if describes_data_flow(description):
        return verdict(Status.PASS, "description documents data flow")
    return verdict(Status.WARN, NO_DATA_FLOW_DOCS.title, NO_DATA_FLOW_DOCS.code)
