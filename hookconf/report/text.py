"""Small wording helpers shared by the text formats."""

from __future__ import annotations

from hookconf import HOOK_SUITES
from hookconf.report.model import Report, ResultEntry, ToolEntry

STATUS_LABELS = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "indeterminate": "INDET", "skip": "SKIP",
                 "advice": "ADVICE"}
ADVICE_NOTE = "advice: no spec rule asks for it; never counted as a problem"


def score_text(score: float | None) -> str:
    return "n/a" if score is None else f"{score:g}/100"


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def counts_line(report: Report) -> str:
    s = report.summary
    return (f"{s.passed} passed, {s.failed} failed, {s.warned} warned, {s.indeterminate} indeterminate, "
            f"{s.skipped} skipped" + (f", {s.advice} advice" if s.advice else ""))


def headline(report: Report) -> str:
    """One line a reader can act on: hook score, and the compliance grade where it ran."""
    parts = [f"hook score {score_text(report.score)}"]
    if report.grade is not None:
        parts.append(f"compliance grade {report.grade} ({score_text(report.compliance_score)}, "
                     f"{report.spec_version})")
    return "; ".join(parts)


def hook_grid(report: Report) -> list[tuple[ToolEntry, list[ResultEntry | None]]]:
    """Each audited tool with its verdict per hook suite, in HOOK_SUITES order (None: the suite did not run)."""
    by_tool = report.results_by_tool()
    grid = []
    for tool in report.tools:
        verdicts = {entry.suite: entry for entry in by_tool.get(tool.name, [])}
        grid.append((tool, [verdicts.get(suite) for suite in HOOK_SUITES]))
    return grid


