"""One self-contained HTML page: inline CSS, no scripts, no external assets, so it opens offline.
Every string that came from the server (names, descriptions, details) is escaped."""

from __future__ import annotations

from html import escape

from hookconf import HOOK_SUITES
from hookconf.report.model import Report, ResultEntry
from hookconf.report.text import (
    ADVICE_NOTE,
    STATUS_LABELS,
    budget_text,
    counts_line,
    coverage_text,
    hook_grid,
    score_text,
    timing_text,
)

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 10px}
.meta{color:#5b6475;margin:0 0 18px}
.cards{display:flex;gap:14px;flex-wrap:wrap}
.card{background:#fff;border-radius:10px;padding:14px 18px;box-shadow:0 1px 3px #0002;min-width:150px}
.card .big{font-size:30px;font-weight:700}.card .label{color:#5b6475;font-size:13px}
table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 3px #0002;border-radius:8px}
th,td{padding:6px 10px;border-bottom:1px solid #e6e8ec;text-align:left;vertical-align:top}
th{background:#eef0f4;font-size:13px}
td.details{word-break:break-word}
.bar{background:#e6e8ec;border-radius:4px;height:12px;width:160px;display:inline-block;vertical-align:middle}
.nowrap{white-space:nowrap}
.bar span{display:block;height:12px;border-radius:4px}
.good{color:#0a7a33}.average{color:#b26a00}.poor{color:#c5221f}.none{color:#8a93a3}
.bg-good{background:#0cce6b}.bg-average{background:#ffa400}.bg-poor{background:#ff4e42}
.status{font-weight:700;font-size:12px;padding:2px 6px;border-radius:4px;color:#fff;white-space:nowrap}
.s-pass{background:#0a7a33}.s-warn{background:#b26a00}.s-fail{background:#c5221f}
.s-indeterminate{background:#7b4bb3}.s-skip{background:#8a93a3}.s-advice{background:#1f7a8c}
.muted{color:#5b6475}
"""


def render(report: Report, *, colour: bool = False) -> str:  # colour: only the human format paints
    body = "\n".join(
        part
        for part in (
            _header(report),
            _cards(report),
            _categories(report),
            _tools(report),
            _results(report),
            _advice(report),
            _baseline(report),
            _resources(report),
        )
        if part
    )
    title = escape(f"hookconf report: {report.server.name}")
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{title}</title>\n'
        f"<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def band(score: float | None) -> str:
    """Lighthouse's colour bands: 90 and up good, 50 and up average, below poor."""
    if score is None:
        return "none"
    return "good" if score >= 90 else "average" if score >= 50 else "poor"


def _header(report: Report) -> str:
    server = report.server
    identity = f"{server.server_info.get('name', server.name)} {server.server_info.get('version', '')}".strip()
    return (
        f'<h1>{escape(server.name)}</h1>\n<p class="meta">server {escape(identity)} · protocol '
        f"{escape(server.protocol_version)} · {escape(server.transport)} · hookconf {escape(report.tool.version)}"
        f" · {escape(counts_line(report))}</p>" + _time_line(report)
    )


def _time_line(report: Report) -> str:
    """The audit's wall time by phase and what its time budget cut."""
    parts = [
        f"time {timing_text(report)}" if report.timing else "",
        f"budget {budget_text(report)}" if report.budget else "",
    ]
    shown = " · ".join(part for part in parts if part)
    return f'\n<p class="meta">{escape(shown)}</p>' if shown else ""


def _card(value: str, label: str, score: float | None) -> str:
    return (
        f'<div class="card"><div class="big {band(score)}">{escape(value)}</div>'
        f'<div class="label">{escape(label)}</div></div>'
    )


def _cards(report: Report) -> str:
    coverage = coverage_text(report.coverage)
    cards = [_card(score_text(report.score), f"hook score ({coverage})" if coverage else "hook score", report.score)]
    if report.grade is not None:
        cards.append(_card(report.grade, f"compliance grade ({report.spec_version})", report.compliance_score))
        cards.append(_card(score_text(report.compliance_score), "compliance score", report.compliance_score))
    s = report.summary
    cards.append(_card(str(s.failed), "failed", 0 if s.failed else 100))
    cards.append(_card(str(s.warned), "warned", 60 if s.warned else 100))
    return f'<div class="cards">{"".join(cards)}</div>'


def _bar(score: float | None) -> str:
    width = 0 if score is None else max(0.0, min(100.0, score))
    return (
        f'<span class="nowrap"><span class="bar"><span class="bg-{band(score)}" '
        f'style="width:{width:.0f}%"></span></span> '
        f'<span class="{band(score)}">{"n/a" if score is None else f"{score:.0f}"}</span></span>'
    )


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "\n".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _td(text: str, css: str = "") -> str:
    return f'<td class="{css}">{escape(text)}</td>' if css else f"<td>{escape(text)}</td>"


def _categories(report: Report) -> str:
    if report.compliance is None or not report.compliance.categories:
        return ""
    advice = any(c.advice for c in report.compliance.categories)
    rows = [
        [
            _td(c.name),
            f"<td>{_bar(c.score)}</td>",
            _td(str(c.passed)),
            _td(str(c.failed)),
            _td(str(c.warned)),
            _td(str(c.skipped)),
            *([_td(str(c.advice))] if advice else []),
        ]
        for c in report.compliance.categories
    ]
    return "<h2>Protocol compliance by category</h2>\n" + _table(
        ["category", "score", "passed", "failed", "warned", "skipped", *(["advice"] if advice else [])], rows
    )


def _status(entry: ResultEntry) -> str:
    mark = " (baselined)" if entry.baseline_reason else ""
    return f'<span class="status s-{entry.status}">{STATUS_LABELS[entry.status]}{mark}</span>'


def _tools(report: Report) -> str:
    if not report.tools:
        return ""
    rows = []
    for tool, verdicts in hook_grid(report):
        cells = [f'<td class="nowrap">{_status(v)} {escape(v.code or "")}</td>' if v else "<td></td>" for v in verdicts]
        score = '<td class="nowrap">not called</td>' if tool.called is False else f"<td>{_bar(tool.score)}</td>"
        rows.append([_td(tool.name), score, *cells])
    return "<h2>Hook readiness by tool</h2>\n" + _table(["tool", "score", *HOOK_SUITES], rows)


def _results(report: Report) -> str:
    noteworthy = [e for e in report.results if e.status in ("fail", "warn", "indeterminate")]
    if not noteworthy:
        return '<h2>Findings</h2>\n<p class="muted">No failures, warnings or undecided verdicts.</p>'
    rows = [
        [
            f"<td>{_status(e)}</td>",
            _td(e.id or e.code or ""),
            _td(e.suite),
            _td(e.tool),
            _td(e.title or ""),
            _td(_details(e), "details"),
        ]
        for e in noteworthy
    ]
    return "<h2>Findings</h2>\n" + _table(["status", "check", "suite", "tool", "title", "details"], rows)


def _advice(report: Report) -> str:
    """Verdicts no spec rule backs: listed apart from the findings, as they are never counted as problems."""
    advice = [e for e in report.results if e.status == "advice"]
    if not advice:
        return ""
    rows = [
        [
            f"<td>{_status(e)}</td>",
            _td(e.id or e.code or ""),
            _td(e.tool),
            _td(e.title or ""),
            _td(e.details, "details"),
        ]
        for e in advice
    ]
    note = ADVICE_NOTE.removeprefix("advice: ")
    return f'<h2>Advice</h2>\n<p class="muted">{escape(note[0].upper() + note[1:])}.</p>\n' + _table(
        ["status", "check", "tool", "title", "details"], rows
    )


def _details(entry: ResultEntry) -> str:
    if entry.baseline_reason:
        return f"{entry.details} — baselined: {entry.baseline_reason}"
    return entry.details


def _baseline(report: Report) -> str:
    outcome = report.baseline
    if outcome is None:
        return ""
    rows = [
        [_td(kind), _td(item.id), _td(str(item.status or "-")), _td(item.reason, "details")]
        for kind, items in (("stale", outcome.stale), ("expected", outcome.baselined), ("not run", outcome.not_run))
        for item in items
    ]
    return f"<h2>Baseline {escape(outcome.file)}</h2>\n" + _table(["entry", "id", "status now", "reason"], rows)


def _resources(report: Report) -> str:
    r = report.resources
    if r is None:
        return ""
    startup = "n/a" if r.startup_ms is None else f"{r.startup_ms:.0f} ms"
    rows = [
        [
            _td(startup),
            _td(f"{r.peak_rss_bytes / 2**20:.1f} MiB"),
            _td(f"{r.cpu_seconds:.2f} s"),
            _td(str(r.peak_threads)),
            _td(str(r.peak_children)),
        ]
    ]
    return "<h2>Resources</h2>\n" + _table(["startup", "peak RSS", "CPU", "peak threads", "peak children"], rows)
