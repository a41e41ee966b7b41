"""The terminal report: a table per tool, then the resource figures and a closing count line."""

from __future__ import annotations

from hookconf.report.model import Report, ResultEntry

STATUS_LABELS = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "indeterminate": "INDET", "skip": "SKIP"}
MAX_DETAIL = 90
BAR_WIDTH = 20


def render(report: Report) -> str:
    server = report.server
    name = server.server_info.get("name", server.name)
    version = server.server_info.get("version", "")
    lines = [
        f"hookconf {report.tool.version} - hook readiness of {server.name}",
        f"server {name} {version} | protocol {server.protocol_version} | {server.transport}",
        "",
    ]
    scores = {tool.name: tool for tool in report.tools}
    for tool_name, group in report.results_by_tool().items():
        hook_results = [entry for entry in group if entry.suite != "compliance"]
        if hook_results:
            lines.extend(_tool_table(tool_name, hook_results, scores.get(tool_name)))
    if report.compliance is not None:
        lines.extend(_compliance_section(report))
    lines.append(f"Hook score: {_score(report.score)}")
    if report.resources is not None:
        lines.append(_resource_line(report))
    summary = report.summary
    lines.append(f"{summary.passed} passed, {summary.failed} failed, {summary.skipped} skipped, "
                 f"{summary.warned} warned, {summary.indeterminate} indeterminate")
    return "\n".join(lines) + "\n"


def _tool_table(tool_name: str, results: list[ResultEntry], tool: object) -> list[str]:
    score = getattr(tool, "score", None)
    header = f"{tool_name}  (score {_score(score)})"
    note = getattr(tool, "note", None)
    rows = [header, "-" * len(header)]
    if note and all(entry.details != note for entry in results):
        rows.append(f"  note: {note}")
    for entry in results:
        code = entry.code or ""
        rows.append(f"  {STATUS_LABELS[entry.status]:<6}{entry.suite:<14}{code:<11}{_clip(entry.details)}")
    rows.append("")
    return rows


def _bar(score: float | None) -> str:
    if score is None:
        return "-" * BAR_WIDTH
    filled = round(score / 100 * BAR_WIDTH)
    return "█" * filled + "░" * (BAR_WIDTH - filled)


def _compliance_section(report: Report) -> list[str]:
    compliance = report.compliance
    assert compliance is not None
    lines = [f"Protocol compliance ({compliance.spec_version}): grade {compliance.grade}, {compliance.score:g}/100"]
    for category in compliance.categories:
        score = "n/a" if category.score is None else f"{category.score:.0f}"
        lines.append(f"  {category.name:<11} {_bar(category.score)} {score:>4}  ({category.passed} passed, "
                     f"{category.failed} failed, {category.warned} warned, {category.skipped} skipped)")
    if compliance.lighthouse is not None:
        lines.append(f"  mcp-lighthouse profile: {_score(compliance.lighthouse_score)}")
        for row in compliance.lighthouse:
            score = "n/a" if row.score is None else f"{row.score:.0f}"
            lines.append(f"    {row.name:<12}{_bar(row.score)} {score:>4}  (weight {row.weight} %)")
    noteworthy = [r for r in report.results
                  if r.suite == "compliance" and r.status in ("fail", "warn", "indeterminate")]
    for entry in noteworthy:
        flag = " [required]" if entry.required else ""
        lines.append(f"  {STATUS_LABELS[entry.status]:<6}{entry.id}{flag}: {_clip(entry.details)}")
    lines.append("")
    return lines


def _score(score: float | None) -> str:
    return "n/a" if score is None else f"{score:g}/100"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 3] + "..."


def _resource_line(report: Report) -> str:
    r = report.resources
    assert r is not None
    startup = "n/a" if r.startup_ms is None else f"{r.startup_ms:.0f} ms"
    return (f"Resources: startup {startup}, peak RSS {r.peak_rss_bytes / 2**20:.1f} MiB, "
            f"CPU {r.cpu_seconds:.2f} s, peak threads {r.peak_threads}, peak children {r.peak_children}")
