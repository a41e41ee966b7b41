"""Baselines: a JSON file of expected failures, each a compliance check id or `tool:code` with a reason.

A failure the file lists does not fail the run; an entry whose check ran and did not fail is stale and
does, so a baseline cannot outlive the problems it excuses. Entries whose check did not run (another
--suite, a skipped check, a tool that is gone) are reported and change nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hookconf.config import first_validation_error
from hookconf.errors import ConfigError
from hookconf.report.keys import baseline_id
from hookconf.report.model import BaselineItem, BaselineOutcome, Report, ResultEntry
from hookconf.safe_text import model_json
from hookconf.verdicts import Status

PLACEHOLDER_REASON = "TODO: say why this failure is expected (or fix it and delete this entry)"


class ExpectedFailure(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="a compliance check id, or tool:code (e.g. search_notes:IDEMP-001)")
    reason: str = Field(min_length=1, description="why the failure is accepted for now")

    @field_validator("id", "reason")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()


class BaselineFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    expected_failures: list[ExpectedFailure] = Field(alias="expectedFailures")

    def to_json(self) -> str:
        return model_json(self) + "\n"


def load_baseline(path: Path) -> BaselineFile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"--baseline {path}: no such file; 'hookconf baseline write REPORT.json --output {path}' writes one"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--baseline {path}: not readable JSON ({exc})") from exc
    try:
        baseline = BaselineFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"--baseline {path}: invalid baseline - {first_validation_error(exc)}") from None
    _check_ids(path, baseline)
    return baseline


def _check_ids(path: Path, baseline: BaselineFile) -> None:
    """An id that names nothing would never match and never go stale, so it is refused."""
    from hookconf.checks import FINDINGS
    from hookconf.checks.compliance import CHECKS

    seen: set[str] = set()
    for position, entry in enumerate(baseline.expected_failures):
        where = f"--baseline {path}: expectedFailures.{position}.id"
        tool, sep, code = entry.id.rpartition(":")
        if entry.id in seen:
            raise ConfigError(f"{where}: {entry.id!r} is listed twice")
        seen.add(entry.id)
        if sep and tool and code in FINDINGS:
            continue
        if not sep and entry.id in CHECKS:
            continue
        raise ConfigError(
            f"{where}: {entry.id!r} is neither a compliance check id nor tool:CODE with a known "
            "finding code; see 'hookconf list'"
        )


def apply_baseline(report: Report, baseline: BaselineFile, source: str) -> Report:
    """Mark the failures the baseline expects and say which entries matched, went stale or did not run."""
    reasons = {entry.id: entry.reason for entry in baseline.expected_failures}
    results = [_marked(entry, reasons) for entry in report.results]
    outcome = BaselineOutcome(file=source, baselined=[], stale=[], notRun=[])
    for entry in baseline.expected_failures:
        matched = _matching(results, entry.id)
        item = BaselineItem(id=entry.id, reason=entry.reason, status=_worst(matched))
        if any(r.baseline_reason is not None for r in matched):
            outcome.baselined.append(item)
        elif item.status in (None, Status.SKIP):
            outcome.not_run.append(item)
        else:
            outcome.stale.append(item)
    return report.model_copy(update={"results": results, "baseline": outcome})


def _marked(entry: ResultEntry, reasons: dict[str, str]) -> ResultEntry:
    key = baseline_id(entry)
    if entry.status is not Status.FAIL or key is None or key not in reasons:
        return entry
    return entry.model_copy(update={"baseline_reason": reasons[key]})


def _matching(results: list[ResultEntry], wanted: str) -> list[ResultEntry]:
    """The results an entry speaks about: the check's result, or the verdicts the code's suite gave the tool."""
    from hookconf.checks import FINDINGS

    tool, sep, code = wanted.rpartition(":")
    if not sep:
        return [r for r in results if r.id == wanted]
    suite = FINDINGS[code].suite
    return [r for r in results if r.id is None and r.tool == tool and suite in ("*", r.suite)]


def _worst(results: list[ResultEntry]) -> Status | None:
    """The most telling status among the matched results: a failure, else what ran, else SKIP or None."""
    order = (Status.FAIL, Status.WARN, Status.INDETERMINATE, Status.PASS, Status.ADVICE, Status.SKIP)
    statuses = {r.status for r in results}
    return next((status for status in order if status in statuses), None)


def unexpected_failures(report: Report) -> list[ResultEntry]:
    return [r for r in report.results if r.status is Status.FAIL and r.baseline_reason is None]


def has_stale_entries(report: Report) -> bool:
    return report.baseline is not None and bool(report.baseline.stale)


def baseline_from_report(report: Report) -> BaselineFile:
    """Every failure in the report as an expected failure with a reason still to be written."""
    ids = dict.fromkeys(key for r in report.results if r.status is Status.FAIL and (key := baseline_id(r)))
    return BaselineFile(expectedFailures=[ExpectedFailure(id=key, reason=PLACEHOLDER_REASON) for key in ids])
