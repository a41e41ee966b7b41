"""The terminal report: a table per tool, a score bar per compliance category, the resource figures
and a closing count line. Colour (ANSI) only when the caller asks for it, i.e. on a terminal."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass

from hookconf.report.model import BaselineItem, BaselineOutcome, Report, ResultEntry, SandboxDelta, ToolEntry
from hookconf.report.text import (
    ADVICE_NOTE,
    STATUS_LABELS,
    budget_text,
    clip,
    hook_score_text,
    score_text,
    timing_text,
    tool_score_text,
)

STATUS_COLOURS = {"pass": "32", "warn": "33", "fail": "31", "indeterminate": "35", "skip": "2", "advice": "36"}
MAX_DETAIL = 90
LINE_PREFIX = 34  # a result line's status, suite and code columns before the detail
BAR_WIDTH = 20


@dataclass(frozen=True)
class Paint:
    enabled: bool

    def __call__(self, text: str, sgr: str) -> str:
        return f"\x1b[{sgr}m{text}\x1b[0m" if self.enabled else text

    def status(self, status: str, width: int = 6) -> str:
        label = STATUS_LABELS[status]
        return self(f"{label:<{width}}" if len(label) < width else f"{label} ", STATUS_COLOURS[status])

    def score(self, text: str, score: float | None) -> str:
        """Lighthouse's bands: 90 and up green, 50 and up amber, below red."""
        if score is None:
            return self(text, "2")
        return self(text, "32" if score >= 90 else "33" if score >= 50 else "31")


def _era_lines(report: Report) -> list[str]:
    """The protocol era and why (probe answer or pin), then the warnings, e.g. a dual-era server's."""
    lines = [f"era {report.era} ({report.detection})"] if report.era else []
    return lines + [f"warning: {warning}" for warning in report.warnings]


def render(report: Report, *, colour: bool = False) -> str:
    paint = Paint(colour)
    server = report.server
    name = server.server_info.get("name", server.name)
    version = server.server_info.get("version", "")
    lines = [
        f"hookconf {report.tool.version} - hook readiness of {server.name}",
        f"server {name} {version} | protocol {server.protocol_version} | {server.transport}",
        *_era_lines(report),
        "",
    ]
    scores = {tool.name: tool for tool in report.tools}
    for tool_name, group in report.results_by_tool().items():
        hook_results = [entry for entry in group if entry.suite != "compliance"]
        if hook_results:
            lines.extend(_tool_table(tool_name, hook_results, scores.get(tool_name), paint))
    if report.compliance is not None:
        lines.extend(_compliance_section(report, paint))
    if report.baseline is not None:
        lines.extend(_baseline_section(report.baseline, paint))
    lines.extend(_hook_score_lines(report))
    if report.resources is not None:
        lines.append(_resource_line(report))
    if report.timing is not None:
        lines.append(f"Time: {timing_text(report)}")
    if report.budget is not None:
        lines.append(f"Budget: {budget_text(report)}")
    summary = report.summary
    baselined = sum(entry.baseline_reason is not None for entry in report.results)
    failed = f"{summary.failed} failed" + (f" ({baselined} baselined)" if baselined else "")
    lines.append(
        f"{summary.passed} passed, {failed}, {summary.skipped} skipped, "
        f"{summary.warned} warned, {summary.indeterminate} indeterminate"
        + (f", {summary.advice} advice" if summary.advice else "")
    )
    return "\n".join(lines) + "\n"


def _hook_score_lines(report: Report) -> list[str]:
    lines = [f"Hook score: {hook_score_text(report)}"]
    coverage = report.coverage
    if coverage is not None and coverage.suites_run:
        lines.append(f"  suites: {', '.join(coverage.suites_run)}")
    if coverage is not None and coverage.tools_listed and not coverage.tools_called:
        lines.append("  no tool was called, so there is nothing to score (see the notes above)")
    return lines


def _tool_table(tool_name: str, results: list[ResultEntry], tool: ToolEntry | None, paint: Paint) -> list[str]:
    header = f"{tool_name}  (score {tool_score_text(tool) if tool else 'n/a'})"
    note = tool.note if tool else None
    rows = [header, "-" * len(header)]
    if note and all(entry.details != note for entry in results):
        rows.append(f"  note: {note}")
    if tool is not None and tool.sandbox is not None and tool.sandbox.changes:
        rows.append(f"  sandbox: {_clip(sandbox_text(tool.sandbox))}")
    for entry in results:
        code = entry.code or ""
        rows.append(f"  {paint.status(entry.status)}{entry.suite:<14}{code:<11}{_clip(_detail(entry))}")
    rows.append("")
    return rows


def sandbox_text(delta: SandboxDelta, limit: int = 3) -> str:
    """`1 created, 1 changed: ~/.cache/x (120 B), $TMPDIR/y`: what the tool's calls wrote in its sandbox."""
    counts = ", ".join(
        f"{n} {kind}"
        for n, kind in ((delta.created, "created"), (delta.changed, "changed"), (delta.removed, "removed"))
        if n
    )
    shown = ", ".join(c.path + (f" ({c.size} B)" if c.size is not None else "") for c in delta.changes[:limit])
    total = delta.created + delta.changed + delta.removed
    return f"{counts}: {shown}" + (f" +{total - limit} more" if total > limit else "")


def _detail(entry: ResultEntry) -> str:
    return entry.details if entry.baseline_reason is None else f"[baselined] {entry.details}"


def _bar(score: float | None, paint: Paint) -> str:
    """A lighthouse-style bar and the score beside it, e.g. `████████░░   80`."""
    if score is None:
        return paint("-" * BAR_WIDTH, "2") + "  n/a"
    filled = round(score / 100 * BAR_WIDTH)
    return paint.score("█" * filled + "░" * (BAR_WIDTH - filled) + f" {score:>4.0f}", score)


def _compliance_section(report: Report, paint: Paint) -> list[str]:
    compliance = report.compliance
    assert compliance is not None
    grade = paint.score(f"grade {compliance.grade}, {compliance.score:g}/100", compliance.score)
    lines = [f"Protocol compliance ({compliance.spec_version}): {grade}"]
    for category in compliance.categories:
        lines.append(
            f"  {category.name:<11} {_bar(category.score, paint)}  ({category.passed} passed, "
            f"{category.failed} failed, {category.warned} warned, {category.skipped} skipped"
            + (f", {category.advice} advice" if category.advice else "")
            + ")"
        )
    if compliance.lighthouse is not None:
        lines.append(f"  mcp-lighthouse profile: {_score(compliance.lighthouse_score)}")
        for row in compliance.lighthouse:
            lines.append(f"    {row.name:<12}{_bar(row.score, paint)}  (weight {row.weight} %)")
    noteworthy = [
        r for r in report.results if r.suite == "compliance" and r.status in ("fail", "warn", "indeterminate")
    ]
    for entry in noteworthy:
        flag = " [required]" if entry.required else ""
        lines.append(f"  {paint.status(entry.status)}{entry.id}{flag}: {_clip(_detail(entry))}")
    advice = [r for r in report.results if r.suite == "compliance" and r.status == "advice"]
    if advice:
        lines.append(f"  {ADVICE_NOTE}")
        lines.extend(f"  {paint.status(entry.status)}{entry.id}: {_clip(entry.details)}" for entry in advice)
    lines.append("")
    return lines


def _baseline_section(outcome: BaselineOutcome, paint: Paint) -> list[str]:
    lines = [
        f"Baseline {outcome.file}: {len(outcome.baselined)} expected failures, {len(outcome.stale)} stale, "
        f"{len(outcome.not_run)} not run"
    ]
    lines.extend(
        _baseline_line(paint("STALE ", STATUS_COLOURS["fail"]), item, f"now {item.status}; remove the entry")
        for item in outcome.stale
    )
    lines.extend(_baseline_line(paint("EXPECT", "2"), item, item.reason) for item in outcome.baselined)
    lines.extend(_baseline_line(paint("NOTRUN", "2"), item, "did not run this time") for item in outcome.not_run)
    lines.append("")
    return lines


def _baseline_line(label: str, item: BaselineItem, text: str) -> str:
    return f"  {label}{item.id}: {_clip(text)}"


def _score(score: float | None) -> str:
    return score_text(score)


def _clip(text: str) -> str:
    return clip(text, detail_width())


def detail_width() -> int:
    """How much of a detail a line shows: what a terminal as wide as stdout's leaves beside the columns before it,
    MAX_DETAIL when stdout is no terminal (a file, a pipe, a CI log) or a narrow one."""
    if not sys.stdout.isatty():
        return MAX_DETAIL
    columns = shutil.get_terminal_size((0, 0)).columns
    return max(MAX_DETAIL, columns - LINE_PREFIX)


def _resource_line(report: Report) -> str:
    r = report.resources
    assert r is not None
    startup = "n/a" if r.startup_ms is None else f"{r.startup_ms:.0f} ms"
    return (
        f"Resources: startup {startup}, peak RSS {r.peak_rss_bytes / 2**20:.1f} MiB, "
        f"CPU {r.cpu_seconds:.2f} s, peak threads {r.peak_threads}, peak children {r.peak_children}"
    )
