"""SARIF 2.1.0: one rule per compliance check or finding code that occurs, one result per failure,
warning or undecided verdict, each with a fingerprint that stays the same across runs and located in the config
file that describes the server (GitHub's upload requires a physical location on every result). Advice (a verdict
no spec rule backs) is no problem, so it is not a result; the run's summary counts it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hookconf.report.keys import fingerprint, tool_scoped
from hookconf.report.model import Report, ResultEntry
from hookconf.verdicts import Status

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/hookconf/"
FINGERPRINT_NAME = "hookconf/finding/v1"
REPORTED = (Status.FAIL, Status.WARN, Status.INDETERMINATE)
LEVELS = {Status.FAIL: "error", Status.WARN: "warning", Status.INDETERMINATE: "note"}
# SARIF: a result whose kind is not "fail" must have level "none"; undecided verdicts are kind "open".

JsonDict = dict[str, Any]


def render(report: Report, *, colour: bool = False) -> str:  # colour: only the human format paints
    entries = [entry for entry in report.results if entry.status in REPORTED]
    rules = _rules(report, entries)
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    run: JsonDict = {
        "tool": {
            "driver": {
                "name": "hookconf",
                "version": report.tool.version,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "automationDetails": {"id": f"hookconf/{report.server.name}/"},
        "invocations": [{"executionSuccessful": True}],
        "results": [_result(report, entry, index) for entry in entries],
        "properties": _run_properties(report),
    }
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2) + "\n"


def rule_id(entry: ResultEntry) -> str:
    """A compliance check id, a finding code, or for a verdict without a code the suite's name."""
    return entry.id or entry.code or entry.suite


def _rules(report: Report, entries: list[ResultEntry]) -> list[JsonDict]:
    first_of_each: dict[str, ResultEntry] = {}
    for entry in entries:
        first_of_each.setdefault(rule_id(entry), entry)
    revision = report.spec_version or report.server.protocol_version
    return [_rule(rule, entry, revision) for rule, entry in first_of_each.items()]


def _rule(rule: str, entry: ResultEntry, revision: str) -> JsonDict:
    from hookconf.checks import FINDINGS, SUITES
    from hookconf.checks.compliance import CHECKS

    if entry.id is not None and entry.id in CHECKS:
        check = CHECKS[entry.id]
        applicable = revision if revision in check.revisions else check.revisions[-1]
        why = check.why if check.should is None else f"{check.why} Warnings rest on: {check.should.citation()}"
        return _rule_shape(
            rule,
            RuleText(check.title, why, check.fix, check.spec_url(applicable)),
            "error" if check.required else "warning",
            {"suite": "compliance", "category": check.category.value, "required": check.required},
        )
    if entry.code is not None and entry.code in FINDINGS:
        finding = FINDINGS[entry.code]
        return _rule_shape(
            rule,
            RuleText(finding.title, finding.explanation, finding.remediation),
            LEVELS.get(finding.severity, "warning"),
            {"suite": finding.suite},
        )
    suite = SUITES.get(entry.suite)
    summary = suite.summary if suite is not None else entry.title or rule
    return _rule_shape(
        rule, RuleText(f"{entry.suite} suite", summary, "See the result's message."), "note", {"suite": entry.suite}
    )


@dataclass(frozen=True)
class RuleText:
    title: str
    description: str
    fix: str
    spec_url: str | None = None


def _rule_shape(rule: str, text: RuleText, level: str, properties: JsonDict) -> JsonDict:
    shape: JsonDict = {
        "id": rule,
        "name": "".join(part.capitalize() for part in rule.replace("_", "-").split("-")),
        "shortDescription": {"text": text.title},
        "fullDescription": {"text": text.description},
        "help": {"text": f"{text.fix}\nSpec: {text.spec_url}" if text.spec_url else text.fix},
        "defaultConfiguration": {"level": level},
        "properties": {**properties, "tags": ["mcp", str(properties["suite"])]},
    }
    if text.spec_url:
        shape["helpUri"] = text.spec_url
    return shape


def _result(report: Report, entry: ResultEntry, index: dict[str, int]) -> JsonDict:
    rule = rule_id(entry)
    label = entry.title or rule
    stable = fingerprint(report, entry)
    result: JsonDict = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": "none" if entry.status is Status.INDETERMINATE else LEVELS[entry.status],
        "kind": "open" if entry.status is Status.INDETERMINATE else "fail",
        "message": {"text": f"{label}: {entry.details}"},
        "fingerprints": {FINGERPRINT_NAME: stable},
        "partialFingerprints": {FINGERPRINT_NAME: stable},
        "properties": {"suite": entry.suite, "tool": entry.tool, "status": entry.status.value},
    }
    location: JsonDict = {"physicalLocation": physical_location(report)}
    if tool_scoped(entry):
        location["logicalLocations"] = [
            {"name": entry.tool, "fullyQualifiedName": f"{report.server.name}/{entry.tool}", "kind": "function"}
        ]
    result["locations"] = [location]
    if entry.baseline_reason is not None:
        result["suppressions"] = [{"kind": "external", "status": "accepted", "justification": entry.baseline_reason}]
    return result


def physical_location(report: Report) -> JsonDict:
    """Where every result is located: the config file the audit read (GitHub code scanning refuses a result
    without a physical location), else an artifact named after the server; the same file across runs, so that
    alerts track from one run to the next."""
    uri = report.config or f"{report.server.name}.mcp-server"
    return {"artifactLocation": {"uri": uri.replace("\\", "/")}, "region": {"startLine": 1}}


def _run_properties(report: Report) -> JsonDict:
    return {
        "server": report.server.name,
        "protocolVersion": report.server.protocol_version,
        "hookScore": report.score,
        "grade": report.grade,
        "complianceScore": report.compliance_score,
        "specVersion": report.spec_version,
        "summary": report.summary.model_dump(),
    }
