"""Output formats: each module of this package is one (`--output NAME` renders through `formats/NAME.py`),
and each defines `render(report, *, colour: bool = False) -> str`; only the human format paints. A format
gets the report with server text already written out (`shown_report`) and applies its own escaping, unless it
sets `SHOWS_RAW_TEXT = True` (json: it escapes the text itself).

Naming the formats (as the CLI parser does) imports none of them, and rendering one imports no other format's
imports (the XML ones load xml.etree).
"""

from __future__ import annotations

import importlib
import os
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol, TextIO, cast

from hookconf.plugins import module_names

if TYPE_CHECKING:
    from hookconf.report.model import Report

# The formats that came first keep their place in --output's choices; a new one follows them, by name.
ORDER = ("human", "json", "junit", "sarif", "github", "markdown", "html")


class Renderer(Protocol):
    def __call__(self, report: Report, *, colour: bool = False) -> str: ...


def format_names() -> list[str]:
    """Every format of this package, without importing any."""
    return module_names(__path__, ORDER)


def _format_enum() -> type[StrEnum]:
    members = [(name.upper(), name) for name in format_names()]
    return cast("type[StrEnum]", StrEnum("OutputFormat", members, module=__name__, qualname="OutputFormat"))


# A format's name: `--output` converts its argument with it (refusing an unknown one) and lists its members.
OutputFormat = _format_enum()


def render(report: Report, output: str, *, colour: bool = False) -> str:
    module = importlib.import_module(f"{__name__}.{OutputFormat(output).value}")
    renderer: Renderer = module.render
    if getattr(module, "SHOWS_RAW_TEXT", False):
        return renderer(report, colour=colour)
    from hookconf.report.text import shown_report

    # Server text reaches every format but JSON with its hidden code points written out; each format then
    # applies its own escaping (XML, HTML, Markdown, workflow commands). JSON escapes the text itself.
    return renderer(shown_report(report), colour=colour)


def wants_colour(stream: TextIO) -> bool:
    """Colour on a terminal that is not TERM=dumb; never when NO_COLOR is set to anything but '' (no-color.org),
    always when FORCE_COLOR is (to anything but '' and '0': a CI log that renders colour)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
