"""Output formats, chosen through an enum; each renders the one Report model to text."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from hookconf.report import human, junit
from hookconf.report.model import Report


class OutputFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    JUNIT = "junit"


RENDERERS: dict[OutputFormat, Callable[[Report], str]] = {
    OutputFormat.HUMAN: human.render,
    OutputFormat.JSON: Report.to_json,
    OutputFormat.JUNIT: junit.render,
}


def render(report: Report, output: OutputFormat) -> str:
    return RENDERERS[output](report)
