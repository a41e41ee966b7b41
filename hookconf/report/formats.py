"""Output formats, chosen through an enum; each renders the one Report model to text."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookconf.report.model import Report


class OutputFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    JUNIT = "junit"


def render(report: Report, output: OutputFormat) -> str:
    # Renderers are imported on use, so that naming a format (as the CLI parser does) costs nothing.
    from hookconf.report import human, junit

    renderers: dict[OutputFormat, Callable[[Report], str]] = {
        OutputFormat.HUMAN: human.render,
        OutputFormat.JSON: lambda r: r.to_json(),
        OutputFormat.JUNIT: junit.render,
    }
    return renderers[output](report)
