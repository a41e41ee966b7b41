"""GitHub Actions workflow commands: `::error` per failure and per stale baseline entry, `::warning` per
warning, `::notice` per baselined failure and per advice (a verdict no spec rule backs), and a closing `::notice`
with the summary (which counts the undecided verdicts: one annotation each would drown the rest, and says what
the time budget cut, if it ran out)."""

from __future__ import annotations

from hookconf.report.keys import tool_scoped
from hookconf.report.model import Report, ResultEntry
from hookconf.report.text import budget_text, counts_line, headline
from hookconf.verdicts import Status

COMMANDS = {Status.FAIL: "error", Status.WARN: "warning"}


def escape_data(text: str) -> str:
    """Workflow-command message escaping: %, CR and LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Property values escape ':' and ',' as well, which would otherwise end the value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties: str) -> str:
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def render(report: Report, *, colour: bool = False) -> str:  # colour: only the human format paints
    lines = [_line(report, entry) for entry in report.results if entry.status in COMMANDS]
    lines.extend(_advice_line(report, entry) for entry in report.results if entry.status is Status.ADVICE)
    if report.baseline is not None:
        lines.extend(
            command(
                "error",
                f"stale baseline entry {item.id}: the check now {item.status}; remove it from {report.baseline.file}",
                title="hookconf: stale baseline entry",
            )
            for item in report.baseline.stale
        )
    summary = f"{headline(report)}; {counts_line(report)}"
    if report.budget is not None and report.budget.exhausted:  # what was skipped for want of time
        summary += f"; time budget {budget_text(report)}"
    lines.append(command("notice", summary, title=f"hookconf: {report.server.name}"))
    return "\n".join(lines) + "\n"


def _advice_line(report: Report, entry: ResultEntry) -> str:
    """Advice rests on no spec rule: a notice, never a warning or an error."""
    return command(
        "notice",
        f"advice (no spec rule): {entry.title or entry.suite}: {entry.details}",
        title=f"hookconf advice {entry.id or entry.code or entry.suite}",
    )


def _line(report: Report, entry: ResultEntry) -> str:
    label = entry.id or entry.code or entry.suite
    scope = f" {entry.tool}" if tool_scoped(entry) else ""
    title = f"hookconf {label}{scope}"
    if entry.baseline_reason is not None:
        return command("notice", f"expected failure (baselined: {entry.baseline_reason}): {entry.details}", title=title)
    return command(COMMANDS[entry.status], f"{entry.title or entry.suite}: {entry.details}", title=title)
