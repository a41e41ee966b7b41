"""An SVG badge in the usual two-part shape: `hookconf | A 92`, coloured by grade. Without a
compliance grade it shows the hook score, graded on the same scale."""

from __future__ import annotations

from html import escape
from pathlib import Path

from hookconf.errors import HookconfError
from hookconf.report.model import Report

GRADE_COLOURS = {"A": "#4c1", "B": "#97ca00", "C": "#dfb317", "D": "#fe7d37", "F": "#e05d44"}
NO_SCORE_COLOUR = "#9f9f9f"
LABEL = "hookconf"
CHAR_WIDTH = 7  # Verdana 11px averages close to this; the badge only needs to be roughly snug
PADDING = 10


def badge_value(report: Report) -> tuple[str, str | None]:
    """The badge's right-hand text and the grade that colours it."""
    from hookconf.scoring import letter_grade

    if report.grade is not None and report.compliance_score is not None:
        return f"{report.grade} {report.compliance_score:.0f}", report.grade
    if report.score is not None:
        return f"hook {report.score:.0f}", letter_grade(report.score)
    return "no score", None


def render(report: Report) -> str:
    value, grade = badge_value(report)
    colour = GRADE_COLOURS.get(grade or "", NO_SCORE_COLOUR)
    left = len(LABEL) * CHAR_WIDTH + PADDING
    right = len(value) * CHAR_WIDTH + PADDING
    total = left + right
    label, text = escape(LABEL), escape(value)
    # No ids (gradients, clip paths): two badges inlined in one page would otherwise share them.
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" \
aria-label="{label}: {text}">
  <title>{label}: {text}</title>
  <rect width="{total}" height="20" rx="3" fill="{colour}"/>
  <rect width="{left}" height="20" rx="3" fill="#555"/>
  <rect x="{left - 3}" width="3" height="20" fill="#555"/>
  <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
    <text x="{left / 2}" y="15" fill="#010101" fill-opacity=".3">{label}</text>
    <text x="{left / 2}" y="14">{label}</text>
    <text x="{left + right / 2}" y="15" fill="#010101" fill-opacity=".3">{text}</text>
    <text x="{left + right / 2}" y="14">{text}</text>
  </g>
</svg>
"""


def write_badge(report: Report, path: Path) -> None:
    try:
        path.write_text(render(report), encoding="utf-8")
    except OSError as exc:
        raise HookconfError(f"--badge {path}: cannot write the badge ({exc.strerror or exc})") from exc
