"""Small wording helpers shared by the text formats."""

from __future__ import annotations

from hookconf import HOOK_SUITES
from hookconf.report.model import Coverage, Report, ResultEntry, ToolEntry
from hookconf.safe_text import safe_data

STATUS_LABELS = {
    "pass": "PASS",
    "warn": "WARN",
    "fail": "FAIL",
    "indeterminate": "INDET",
    "skip": "SKIP",
    "advice": "ADVICE",
}
ADVICE_NOTE = "advice: no spec rule asks for it; never counted as a problem"


def shown_report(report: Report) -> Report:
    """The report with every string safe to show (hidden code points written out, see hookconf.safe_text):
    what each text format renders. The JSON output keeps the text as the server sent it."""
    return Report.model_validate(safe_data(report.model_dump(by_alias=True)))


def score_text(score: float | None) -> str:
    return "n/a" if score is None else f"{score:g}/100"


def coverage_text(coverage: Coverage | None) -> str:
    """What a hook score rests on, e.g. `4/9 tools called, 5 suites`; empty for a report without coverage."""
    if coverage is None:
        return ""
    suites = len(coverage.suites_run)
    return f"{coverage.tools_called}/{coverage.tools_listed} tools called, {suites} suite{'' if suites == 1 else 's'}"


def hook_score_text(report: Report) -> str:
    """The hook score with its coverage: `71.5/100 (4/9 tools called, 5 suites)`, `n/a (0/9 tools called, ...)`."""
    coverage = coverage_text(report.coverage)
    return f"{score_text(report.score)} ({coverage})" if coverage else score_text(report.score)


def tool_score_text(tool: ToolEntry) -> str:
    """A tool's score and the suites it counts, or why it has none."""
    if tool.called is False:
        return "n/a: not called"
    if tool.score is None or tool.scored_suites is None:
        return score_text(tool.score)
    suites = len(tool.scored_suites)
    return f"{score_text(tool.score)}, {suites} suite{'' if suites == 1 else 's'}"


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def counts_line(report: Report) -> str:
    s = report.summary
    return (
        f"{s.passed} passed, {s.failed} failed, {s.warned} warned, {s.indeterminate} indeterminate, "
        f"{s.skipped} skipped" + (f", {s.advice} advice" if s.advice else "")
    )


def timing_text(report: Report) -> str:
    """`4.2 s (start-up 0.8 s, hook suites 2.1 s, compliance 1.2 s)`; empty for a report without timing."""
    timing = report.timing
    if timing is None:
        return ""
    parts = [f"start-up {_seconds(timing.startup_ms)}", f"hook suites {_seconds(timing.hook_ms)}"]
    if any(entry.suite == "compliance" for entry in report.results):
        parts.append(f"compliance {_seconds(timing.compliance_ms)}")
    return f"{_seconds(timing.total_ms)} ({', '.join(parts)})"


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 100 else f"{ms / 1000:.2f} s"


def budget_text(report: Report, *, names: int = 3) -> str:
    """What the time budget cut, e.g. `2 s, ran out: skipped the suites of 3 tools (a, b, c) and 40 compliance
    checks`; empty for an audit without a budget."""
    budget = report.budget
    if budget is None:
        return ""
    if not budget.exhausted:
        return f"{budget.seconds:g} s, not exhausted"
    cut = []
    if budget.cut_tools:
        shown = ", ".join(budget.cut_tools[:names]) + (" ..." if len(budget.cut_tools) > names else "")
        cut.append(f"the suites of {_count(len(budget.cut_tools), 'tool')} ({shown})")
    if budget.cut_checks:
        cut.append(_count(len(budget.cut_checks), "compliance check"))
    return f"{budget.seconds:g} s, ran out: skipped {' and '.join(cut)}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def headline(report: Report) -> str:
    """One line a reader can act on: hook score, and the compliance grade where it ran."""
    parts = [f"hook score {hook_score_text(report)}"]
    if report.grade is not None:
        parts.append(f"compliance grade {report.grade} ({score_text(report.compliance_score)}, {report.spec_version})")
    return "; ".join(parts)


def hook_grid(report: Report) -> list[tuple[ToolEntry, list[ResultEntry | None]]]:
    """Each audited tool with its verdict per hook suite, in HOOK_SUITES order (None: the suite did not run)."""
    by_tool = report.results_by_tool()
    grid = []
    for tool in report.tools:
        verdicts = {entry.suite: entry for entry in by_tool.get(tool.name, [])}
        grid.append((tool, [verdicts.get(suite) for suite in HOOK_SUITES]))
    return grid
