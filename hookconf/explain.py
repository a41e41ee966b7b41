"""What `hookconf explain` and `hookconf list` say about a finding code or a compliance check, as lines of text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookconf import HANDSHAKE_REVISIONS, STATELESS_REVISIONS

if TYPE_CHECKING:
    from hookconf.checks.compliance.catalog import ComplianceCheck


def explanation(wanted: str) -> list[str] | None:
    """The explanation of a finding code (any case) or a compliance check id, None for an unknown one."""
    from hookconf.checks import FINDINGS
    from hookconf.checks.compliance import CHECKS

    wanted = wanted.strip()
    finding = FINDINGS.get(wanted.upper())
    if finding is not None:
        return [
            f"{finding.code}  {finding.title}",
            f"suite: {finding.suite}   severity: {finding.severity.upper()}",
            "",
            finding.explanation,
            "",
            f"How to fix: {finding.remediation}",
        ]
    check = CHECKS.get(wanted.lower())
    return check_explanation(check) if check is not None else None


def check_explanation(check: ComplianceCheck) -> list[str]:
    required = required_text(check, "required", "optional")
    if not check.graded:
        required = "best practice, not graded"
    lines = [f"{check.id}  {check.title}", f"suite: compliance   category: {check.category}   {required}"]
    gates = [
        f"capability {check.capability}" if check.capability else "",
        f"{check.transport} only" if check.transport else "",
        f"revisions {', '.join(check.revisions)}",
    ]
    lines.append(f"applies to: {'; '.join(g for g in gates if g)}")
    if check.lighthouse:
        lines.append(f"covers mcp-lighthouse: {', '.join(check.lighthouse)}")
    lines += ["", f"Why: {check.why}", f"How to fix: {check.fix}", f"Spec: {check.spec_url(check.revisions[-1])}"]
    if check.should is not None:
        lines.append(f"Warnings rest on: {check.should.citation()}")
    if check.advice is not None:
        lines.append(f"Advice, never counted as a problem: {check.advice}")
    return lines


def required_text(check: ComplianceCheck, yes: str, no: str) -> str:
    """Whether the check is required: `yes` or `no`, or `a/b` when that differs between the handshake revisions
    (a) and 2026-07-28 (b)."""
    handshake, stateless = check.required_for(HANDSHAKE_REVISIONS[-1]), check.required_for(STATELESS_REVISIONS[-1])
    if handshake == stateless or not set(STATELESS_REVISIONS) & set(check.revisions):
        return yes if handshake else no
    return f"{yes if handshake else no}/{yes if stateless else no}"
