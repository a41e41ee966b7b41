"""JUnit XML: one testsuite per tool, one testcase per suite. A warning, an undecided verdict and advice pass,
with their text in system-out (advice also as a property, so that a CI view can tell it apart)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hookconf.report.model import Report
from hookconf.report.text import ADVICE_NOTE
from hookconf.verdicts import Status


def render(report: Report, *, colour: bool = False) -> str:  # colour: only the human format paints
    root = ET.Element("testsuites", name=f"hookconf {report.server.name}", time=f"{report.duration_ms / 1000:.3f}")
    for tool_name, group in report.results_by_tool().items():
        results = list(group)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=tool_name,
            tests=str(len(results)),
            failures=str(sum(r.status is Status.FAIL for r in results)),
            skipped=str(sum(r.status is Status.SKIP for r in results)),
            time=f"{sum(r.duration_ms for r in results) / 1000:.3f}",
        )
        for entry in results:
            case = ET.SubElement(
                suite, "testcase", classname=tool_name, name=entry.suite, time=f"{entry.duration_ms / 1000:.3f}"
            )
            label = f"{entry.code}: {entry.title}" if entry.code else entry.details
            if entry.status is Status.FAIL:
                ET.SubElement(case, "failure", message=label, type=entry.code or "fail").text = entry.details
            elif entry.status is Status.SKIP:
                ET.SubElement(case, "skipped", message=entry.details)
            elif entry.status in (Status.WARN, Status.INDETERMINATE):
                ET.SubElement(case, "system-out").text = f"{entry.status.upper()} {label}: {entry.details}"
            elif entry.status is Status.ADVICE:
                properties = ET.SubElement(case, "properties")
                ET.SubElement(properties, "property", name="advice", value=entry.details)
                ET.SubElement(case, "system-out").text = f"ADVICE {entry.id or label} ({ADVICE_NOTE}): {entry.details}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
