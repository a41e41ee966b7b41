"""Output formats, chosen through an enum; each renders the one Report model to text."""

from __future__ import annotations

import importlib
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


# the module whose render(report) writes each format but human (which takes colour) and json (the model's own)
RENDERER_MODULES = {
    OutputFormat.JUNIT: "hookconf.report.junit",
    OutputFormat.SARIF: "hookconf.report.sarif",
    OutputFormat.GITHUB: "hookconf.report.github",
    OutputFormat.MARKDOWN: "hookconf.report.markdown",
    OutputFormat.HTML: "hookconf.report.html",
}


def render(report: Report, output: OutputFormat, *, colour: bool = False) -> str:
    # Only the chosen renderer is imported, so that naming a format (as the CLI parser does) costs nothing
    # and rendering one costs no other format's imports (the XML ones load xml.etree).
    if output is OutputFormat.JSON:
        return report.to_json()
    from hookconf.report.text import shown_report

    # Server text reaches every format but JSON with its hidden code points written out; each format then
    # applies its own escaping (XML, HTML, Markdown, workflow commands). JSON escapes the text itself.
    shown = shown_report(report)
    if output is OutputFormat.HUMAN:
        from hookconf.report import human

        return human.render(shown, colour=colour)
    renderer: Callable[[Report], str] = importlib.import_module(RENDERER_MODULES[output]).render
    return renderer(shown)


def wants_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to anything but '' (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
