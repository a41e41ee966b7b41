"""Output formats, chosen through an enum; each renders the one Report model to text."""

from __future__ import annotations

import os
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from hookconf.report.model import Report


class OutputFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    JUNIT = "junit"
    SARIF = "sarif"
    GITHUB = "github"
    MARKDOWN = "markdown"
    HTML = "html"


def render(report: Report, output: OutputFormat, *, colour: bool = False) -> str:
    # Renderers are imported on use, so that naming a format (as the CLI parser does) costs nothing.
    from hookconf.report import github, html, human, junit, markdown, sarif
    from hookconf.report.text import shown_report

    renderers: dict[OutputFormat, Callable[[Report], str]] = {
        OutputFormat.HUMAN: lambda r: human.render(r, colour=colour),
        OutputFormat.JSON: lambda r: r.to_json(),
        OutputFormat.JUNIT: junit.render,
        OutputFormat.SARIF: sarif.render,
        OutputFormat.GITHUB: github.render,
        OutputFormat.MARKDOWN: markdown.render,
        OutputFormat.HTML: html.render,
    }
    # Server text reaches every format but JSON with its hidden code points written out; each format then
    # applies its own escaping (XML, HTML, Markdown, workflow commands). JSON escapes the text itself.
    return renderers[output](report if output is OutputFormat.JSON else shown_report(report))


def wants_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to anything but '' (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
