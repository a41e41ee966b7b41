"""Compare two JSON reports of the same server: newly failing, fixed, newly skipped, score deltas.

Results are matched by (suite, tool, check id or finding code). A hook suite gives one verdict per tool
and its code changes with the verdict (none when it passes), so a hook result without an exact match
is paired with the one verdict the other report has for the same suite and tool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from hookconf.config import first_validation_error
from hookconf.errors import ConfigError
from hookconf.report.keys import result_key, tool_scoped
from hookconf.report.model import Report, ResultEntry
from hookconf.report.text import clip
from hookconf.verdicts import Status

MAX_DETAIL = 100
# A failure counts as a regression when the base ran the same check and it did not fail there.
RAN_WITHOUT_FAILING = (Status.PASS, Status.WARN, Status.INDETERMINATE, Status.ADVICE)


@dataclass(frozen=True)
class Change:
    before: ResultEntry | None
    after: ResultEntry

    @property
    def regressed(self) -> bool:
        return self.before is not None and self.before.status in RAN_WITHOUT_FAILING


@dataclass(frozen=True)
class ReportDiff:
    base: Report
    current: Report
    newly_failing: list[Change]
    fixed: list[Change]
    newly_skipped: list[Change]

    @property
    def regressed(self) -> bool:
        return any(change.regressed for change in self.newly_failing)


def load_report(path: Path) -> Report:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not a JSON report ({exc}); write one with 'hookconf check --output json'") from exc
    if not isinstance(data, dict) or "schemaVersion" not in data or "results" not in data:
        raise ConfigError(
            f"{path}: not a hookconf report (no schemaVersion/results); write one with 'hookconf check --output json'"
        )
    try:
        return Report.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            f"{path}: not a hookconf report this version reads (schemaVersion "
            f"{data.get('schemaVersion')}): {first_validation_error(exc)}"
        ) from None


def diff_reports(base: Report, current: Report) -> ReportDiff:
    _refuse_other_revisions(base, current)
    pairs = [(_counterpart(entry, base), entry) for entry in current.results]
    newly_failing = [
        Change(before, after)
        for before, after in pairs
        if after.status is Status.FAIL and (before is None or before.status is not Status.FAIL)
    ]
    newly_skipped = [
        Change(before, after)
        for before, after in pairs
        if after.status is Status.SKIP and before is not None and before.status is not Status.SKIP
    ]
    fixed = [
        Change(before, after)
        for before, after in pairs
        if before is not None and before.status is Status.FAIL and after.status in RAN_WITHOUT_FAILING
    ]
    return ReportDiff(base, current, newly_failing, fixed, newly_skipped)


def _refuse_other_revisions(base: Report, current: Report) -> None:
    if base.spec_version and current.spec_version and base.spec_version != current.spec_version:
        raise ConfigError(
            f"the reports grade different protocol revisions (base {base.spec_version}, current "
            f"{current.spec_version}); audit both with the same revision, e.g. 'hookconf check --spec-version "
            f"{base.spec_version}' for the current one, and compare again"
        )


def _counterpart(entry: ResultEntry, other: Report) -> ResultEntry | None:
    key = result_key(entry)
    exact = [candidate for candidate in other.results if result_key(candidate) == key]
    if exact:
        return exact[0]
    if entry.id is not None:
        return None
    same_slot = [c for c in other.results if c.id is None and (c.suite, c.tool) == key[:2]]
    return same_slot[0] if len(same_slot) == 1 else None


def render_diff(diff: ReportDiff) -> str:
    lines = [f"hookconf diff: {diff.base.server.name} -> {diff.current.server.name}", *_score_lines(diff), ""]
    lines.extend(_section("Newly failing", diff.newly_failing))
    lines.extend(_section("Fixed", diff.fixed))
    lines.extend(_section("Newly skipped", diff.newly_skipped))
    verdict = "regressions: something that ran without failing now fails" if diff.regressed else "no regressions"
    lines.append(
        f"{len(diff.newly_failing)} newly failing, {len(diff.fixed)} fixed, "
        f"{len(diff.newly_skipped)} newly skipped; {verdict}"
    )
    return "\n".join(lines) + "\n"


def _score_lines(diff: ReportDiff) -> list[str]:
    base, current = diff.base, diff.current
    lines = [f"hook score: {_delta(base.score, current.score)}"]
    if base.compliance_score is not None or current.compliance_score is not None:
        revision = current.spec_version or base.spec_version
        lines.append(
            f"compliance ({revision}): grade {base.grade or '-'} -> {current.grade or '-'}, "
            f"score {_delta(base.compliance_score, current.compliance_score)}"
        )
    return lines


def _delta(before: float | None, after: float | None) -> str:
    def shown(score: float | None) -> str:
        return "n/a" if score is None else f"{score:g}"

    change = "" if before is None or after is None else f" ({after - before:+.1f})"
    return f"{shown(before)} -> {shown(after)}{change}"


def _section(title: str, changes: list[Change]) -> list[str]:
    if not changes:
        return []
    lines = [f"{title} ({len(changes)}):"]
    lines.extend(
        f"  {_label(change.after)}  {_was(change)}: {clip(change.after.details, MAX_DETAIL)}" for change in changes
    )
    lines.append("")
    return lines


def _label(entry: ResultEntry) -> str:
    key = entry.id or entry.code or entry.suite
    return f"{entry.tool} {entry.suite} {key}" if tool_scoped(entry) else key


def _was(change: Change) -> str:
    before = change.before
    if before is None:
        return "new"
    return f"was {before.status}" + (f" {before.code}" if before.code and before.id is None else "")


def diff_exit_code(diff: ReportDiff) -> int:
    return 1 if diff.regressed else 0
