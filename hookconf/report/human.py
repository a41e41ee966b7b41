"""The terminal report: a table per tool, then the resource figures and a closing count line."""

from __future__ import annotations

from hookconf.report.model import Report, ResultEntry

STATUS_LABELS = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "indeterminate": "INDET", "skip": "SKIP"}
MAX_DETAIL = 90


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
        lines.extend(_tool_table(tool_name, list(group), scores.get(tool_name)))
    lines.append(f"Score: {_score(report.score)}")
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
