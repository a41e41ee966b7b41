"""Markdown for pull-request comments: headline, counts, a table per compliance category and one per
tool, then the failures in full and the warnings folded away. Everything the server sent is escaped."""

from __future__ import annotations

import html
import re

from hookconf import HOOK_SUITES
from hookconf.report.keys import tool_scoped
from hookconf.report.model import Report, ResultEntry
from hookconf.report.text import (
    ADVICE_NOTE,
    STATUS_LABELS,
    budget_text,
    headline,
    hook_grid,
    score_text,
    timing_text,
    tool_score_text,
)
from hookconf.verdicts import Status

MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]#|~])")
CELL_ICONS = {"pass": "✅", "warn": "⚠️", "fail": "❌", "indeterminate": "❔", "skip": "⏭️", "advice": "💡"}


def escape(text: str) -> str:
    """Plain text that renders as itself: HTML and Markdown syntax neutralised, one line."""
    one_line = " ".join(str(text).split())
    return MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(one_line, quote=False))


def render(report: Report, *, colour: bool = False) -> str:  # colour: only the human format paints
    sections = [
        _header(report),
        _counts_table(report),
        _category_table(report),
        _tool_table(report),
        _listing("Failures", [e for e in report.results if e.status is Status.FAIL], folded=False),
        _listing(
            "Warnings and undecided verdicts",
            [e for e in report.results if e.status in (Status.WARN, Status.INDETERMINATE)],
            folded=True,
        ),
        _listing(
            f"Advice ({ADVICE_NOTE.removeprefix('advice: ')})",
            [e for e in report.results if e.status is Status.ADVICE],
            folded=True,
        ),
        _baseline(report),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def _header(report: Report) -> str:
    server = report.server
    identity = f"{server.server_info.get('name', server.name)} {server.server_info.get('version', '')}".strip()
    return (
        f"## hookconf: {escape(server.name)}\n\n"
        f"**{escape(headline(report))}**  \n"
        f"server {escape(identity)} · protocol {escape(server.protocol_version)} · {escape(server.transport)} · "
        f"hookconf {escape(report.tool.version)}" + _time_lines(report)
    )


def _time_lines(report: Report) -> str:
    """The audit's wall time by phase and what its time budget cut, under the header."""
    lines = [
        f"time {timing_text(report)}" if report.timing else "",
        f"budget {budget_text(report)}" if report.budget else "",
    ]
    return "".join(f"  \n{escape(line)}" for line in lines if line)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def _counts_table(report: Report) -> str:
    s = report.summary
    header = ["passed", "failed", "warned", "indeterminate", "skipped"] + (["advice"] if s.advice else [])
    counts = [s.passed, s.failed, s.warned, s.indeterminate, s.skipped] + ([s.advice] if s.advice else [])
    return _table(header, [[str(count) for count in counts]])


def _category_table(report: Report) -> str:
    if report.compliance is None or not report.compliance.categories:
        return ""
    advice = any(c.advice for c in report.compliance.categories)
    rows = [
        [
            escape(c.name),
            score_text(c.score),
            str(c.passed),
            str(c.failed),
            str(c.warned),
            str(c.skipped),
            *([str(c.advice)] if advice else []),
        ]
        for c in report.compliance.categories
    ]
    return "### Protocol compliance by category\n\n" + _table(
        ["category", "score", "passed", "failed", "warned", "skipped", *(["advice"] if advice else [])], rows
    )


def _tool_table(report: Report) -> str:
    if not report.tools:
        return ""
    rows = [
        [escape(tool.name), escape(tool_score_text(tool)), *map(_cell, verdicts)]
        for tool, verdicts in hook_grid(report)
    ]
    return "### Hook readiness by tool\n\n" + _table(["tool", "score", *HOOK_SUITES], rows)


def _cell(entry: ResultEntry | None) -> str:
    if entry is None:
        return ""
    code = f" {escape(entry.code)}" if entry.code else ""
    return f"{CELL_ICONS[entry.status]} {STATUS_LABELS[entry.status]}{code}"


def _listing(title: str, entries: list[ResultEntry], *, folded: bool) -> str:
    if not entries:
        return ""
    items = "\n".join(_item(entry) for entry in entries)
    if folded:
        return f"<details><summary>{title} ({len(entries)})</summary>\n\n{items}\n\n</details>"
    return f"### {title} ({len(entries)})\n\n{items}"


def _item(entry: ResultEntry) -> str:
    label = escape(entry.id or entry.code or entry.suite)
    scope = f" · tool {escape(entry.tool)}" if tool_scoped(entry) else ""
    required = " (required)" if entry.required else ""
    baselined = f" — baselined: {escape(entry.baseline_reason)}" if entry.baseline_reason else ""
    return (
        f"- **{STATUS_LABELS[entry.status]}** {label}{required}{scope}: "
        f"{escape(entry.title or '')} — {escape(entry.details)}{baselined}"
    )


def _baseline(report: Report) -> str:
    outcome = report.baseline
    if outcome is None:
        return ""
    lines = [
        f"### Baseline {escape(outcome.file)}",
        "",
        f"{len(outcome.baselined)} expected failures, {len(outcome.stale)} stale, {len(outcome.not_run)} not run",
    ]
    lines.extend(f"- **STALE** {escape(item.id)}: now {item.status}; remove the entry" for item in outcome.stale)
    return "\n".join(lines)
