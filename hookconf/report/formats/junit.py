"""JUnit XML: a testcase per compliance check (named by its id, its category the classname) and per hook suite
and tool (the tool's name, the suite the classname), so that a CI test view lists each check findable by name.
Totals on the root and on each testsuite. A failure fails its testcase; a skip and an undecided verdict are skipped
with the reason; a warning and advice pass, with their text in system-out and as a property, so that a CI view can
tell them apart."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from hookconf.report.model import Report, ResultEntry
from hookconf.report.text import ADVICE_NOTE
from hookconf.verdicts import Status

ACROSS_SUITES = "*"  # the suite of a finding any calling suite can make (CALL-003): its testcases go under "calls"
SKIPPED = (Status.SKIP, Status.INDETERMINATE)


def render(report: Report, *, colour: bool = False) -> str:  # colour: only the human format paints
    groups: dict[str, list[ResultEntry]] = {}
    for entry in report.results:
        groups.setdefault(classname(entry), []).append(entry)
    root = ET.Element("testsuites", name=f"hookconf {report.server.name}", time=f"{report.duration_ms / 1000:.3f}")
    _totals(root, report.results)
    for name, entries in groups.items():
        suite = ET.SubElement(root, "testsuite", name=name)
        _totals(suite, entries)
        suite.set("time", f"{sum(e.duration_ms for e in entries) / 1000:.3f}")
        named: set[str] = set()
        for entry in entries:
            _testcase(suite, name, entry, named)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def classname(entry: ResultEntry) -> str:
    """compliance.CATEGORY for a compliance check, the hook suite's name for a hook verdict."""
    if entry.id is not None:
        return f"compliance.{entry.category}" if entry.category else "compliance"
    return "calls" if entry.suite == ACROSS_SUITES else entry.suite


def _totals(element: ET.Element, entries: Sequence[ResultEntry]) -> None:
    element.set("tests", str(len(entries)))
    element.set("failures", str(sum(e.status is Status.FAIL for e in entries)))
    element.set("errors", "0")
    element.set("skipped", str(sum(e.status in SKIPPED for e in entries)))


def _testcase(suite: ET.Element, name: str, entry: ResultEntry, named: set[str]) -> None:
    """The entry's testcase: the check id, or the tool; a tool's second verdict in one suite is its own finding."""
    case_name = entry.id or entry.tool
    if case_name in named:
        case_name = f"{entry.tool} {entry.code}"
    named.add(case_name)
    case = ET.SubElement(suite, "testcase", classname=name, name=case_name, time=f"{entry.duration_ms / 1000:.3f}")
    label = f"{entry.code}: {entry.title}" if entry.code else entry.details
    if entry.status is Status.FAIL:
        ET.SubElement(case, "failure", message=label, type=entry.code or entry.id or "fail").text = entry.details
    elif entry.status in SKIPPED:
        reason = entry.details if entry.status is Status.SKIP else f"indeterminate: {entry.details}"
        ET.SubElement(case, "skipped", message=reason)
    elif entry.status is Status.WARN:
        ET.SubElement(ET.SubElement(case, "properties"), "property", name="warning", value=entry.details)
        ET.SubElement(case, "system-out").text = f"WARN {label}: {entry.details}"
    elif entry.status is Status.ADVICE:
        ET.SubElement(ET.SubElement(case, "properties"), "property", name="advice", value=entry.details)
        ET.SubElement(case, "system-out").text = f"ADVICE {entry.id or label} ({ADVICE_NOTE}): {entry.details}"
