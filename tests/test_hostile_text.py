"""Server text that tries to break the outputs (raw_server.py --hostile-text: ESC [31m, BEL, NUL, U+202E, a newline
and report-format syntax in a tool name, its description, serverInfo and its errors), and a reader that
closes stdout early."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from hookconf.fleet.outcome import Outcome, OutcomeKind
from hookconf.fleet.store import FleetStore
from hookconf.report.formats import OutputFormat, markdown, render
from hookconf.report.model import Report
from hookconf.safe_text import escape_in_json, is_hidden, safe_text
from tests.support import CliRun, stdio_server
from tests.test_fleet_tables import report as fleet_report_json

HOOKCONF = [sys.executable, "-m", "hookconf"]
# What raw_server.py --hostile-text sends (the fixture parses its arguments on import, so it is not imported)
HOSTILE_TEXT = "\x1b[31mred\x07bell\x00nul\u202eevil\nnext <b>&amp; | `tick` ::error::x %0A"
HOSTILE_NAME = "evil\x1b[31m\x07\x00\u202etool\nname"
SHOWN_NAME = "evil\\x1b[31m\\x07\\x00\\u202etool\\x0aname"  # HOSTILE_NAME as every text format shows it


def hidden_characters(text: str, layout: str = "\n\t") -> list[str]:
    """The code points in `text` that do not show as themselves, but for the layout characters allowed."""
    return [char for char in text if char not in layout and is_hidden(char)]


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def markdown_rows(path: Path) -> list[list[str]]:
    """The cells of every table row in a Markdown file (separator rows left out)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [table_cells(line) for line in lines if line.startswith("|") and not line.startswith(("|--", "|:-"))]


def table_cells(row: str) -> list[str]:
    """A table row's cells as GitHub Markdown splits them: a backslash escapes the character after it, so an
    escaped pipe stays inside its cell."""
    cells, cell, escaped = [], "", False
    for char in row.strip()[1:-1]:
        if char == "|" and not escaped:
            cells.append(cell.strip())
            cell = ""
            continue
        cell += char
        escaped = char == "\\" and not escaped
    return [*cells, cell.strip()]


def hookconf(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HOOKCONF, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        timeout=120,
        cwd=cwd,
        check=False,
    )


@pytest.fixture(scope="module")
def hostile_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "hook-conformance.config.json"
    path.write_text(json.dumps({"server": stdio_server("raw_server.py", "--hostile-text")}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def outputs(hostile_config: Path) -> dict[str, str]:
    """`hookconf check --output FORMAT` of the hostile server, per format, as a real subprocess writes it."""
    printed = {}
    for output in OutputFormat:
        run = hookconf("check", str(hostile_config), "--output", output.value)
        assert run.returncode == 0, run.stderr
        printed[output.value] = run.stdout
    return printed


@pytest.mark.parametrize("output", [f.value for f in OutputFormat])
def test_no_output_carries_a_raw_control_character(outputs: dict[str, str], output: str) -> None:
    assert json.loads(outputs["json"])["tools"][-1]["name"] == HOSTILE_NAME  # the server did send it
    assert hidden_characters(outputs[output]) == []


@pytest.mark.parametrize("output", ["human", "junit", "github", "markdown", "html"])
def test_text_formats_show_the_tool_name_with_its_control_characters_written_out(
    outputs: dict[str, str], output: str
) -> None:
    shown = {"markdown": markdown.escape(SHOWN_NAME), "github": SHOWN_NAME.replace("\\x0a", "%0A")}.get(
        output, SHOWN_NAME
    )  # in details: a line break
    assert shown in outputs[output]


def test_json_keeps_the_server_text_and_escapes_the_bidi_override(outputs: dict[str, str]) -> None:
    report = json.loads(outputs["json"])
    assert [tool["name"] for tool in report["tools"]] == ["alpha", "beta", HOSTILE_NAME]
    assert report["server"]["serverInfo"]["name"] == f"raw-fixture {HOSTILE_TEXT}"
    assert any(
        f"JSON-RPC error -32603: Internal error: {HOSTILE_TEXT}" in entry["details"] for entry in report["results"]
    )
    assert "\\u202e" in outputs["json"]  # JSON would leave U+202E raw; escaped, it reads back the same


def test_junit_is_well_formed_xml_naming_the_tool_visibly(outputs: dict[str, str]) -> None:
    root = ET.fromstring(outputs["junit"])
    assert SHOWN_NAME in [case.get("name") for case in root.iter("testcase")]


def test_sarif_is_json_whose_every_string_shows_as_itself(outputs: dict[str, str]) -> None:
    sarif = json.loads(outputs["sarif"])
    assert [text for text in strings_in(sarif) if hidden_characters(text)] == []
    names = {
        location["name"]
        for result in sarif["runs"][0]["results"]
        for location in result.get("locations", [{}])[0].get("logicalLocations", [])
    }
    assert SHOWN_NAME in names


def test_github_annotations_are_one_workflow_command_per_line(outputs: dict[str, str]) -> None:
    lines = outputs["github"].splitlines()
    assert lines
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    # the newline in the tool name stays inside one annotation's message, escaped as the runner reads it
    assert any("evil\\x1b[31m\\x07\\x00\\u202etool%0Aname" in line for line in lines)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed_html(page: str) -> Tags:
    parser = Tags()
    parser.feed(page)
    parser.close()
    return parser


def test_html_shows_server_markup_as_text(outputs: dict[str, str]) -> None:
    page = parsed_html(outputs["html"])
    assert "b" not in page.tags  # the server's <b> is text, not a tag
    assert "script" not in page.tags
    assert any(SHOWN_NAME in text for text in page.text)


def test_markdown_tool_table_keeps_its_columns(outputs: dict[str, str], tmp_path: Path) -> None:
    document = tmp_path / "report.md"
    document.write_text(outputs["markdown"], encoding="utf-8")
    rows = [row for row in markdown_rows(document) if row]
    tool_rows = [row for row in rows if row[0].startswith("evil")]
    header = next(row for row in rows if row[0] == "tool")
    assert tool_rows
    assert all(len(row) == len(header) for row in tool_rows)


def test_an_error_message_quoting_the_servers_stderr_shows_it_safely(tmp_path: Path) -> None:
    config = tmp_path / "crash.json"
    stderr = r"printf 'fatal \033[31mred\007 \342\200\256evil\n' >&2; exit 3"
    config.write_text(
        json.dumps({"server": {"name": "crash", "transport": "stdio", "command": "sh", "args": ["-c", stderr]}}),
        encoding="utf-8",
    )
    run = hookconf("check", str(config))
    assert run.returncode == 1
    assert "fatal \\x1b[31mred\\x07 \\u202eevil" in run.stderr
    assert hidden_characters(run.stderr) == []


def test_diff_shows_the_server_text_safely(outputs: dict[str, str], tmp_path: Path) -> None:
    current = json.loads(outputs["json"])
    poisoning = [entry for entry in current["results"] if entry.get("id") == "security-tool-description-poisoning"]
    assert [entry["status"] for entry in poisoning] == ["fail"]  # the U+202E in the description
    base = {
        **current,
        "results": [{**entry, "status": "pass"} if entry in poisoning else entry for entry in current["results"]],
    }
    (tmp_path / "base.json").write_text(json.dumps(base), encoding="utf-8")
    (tmp_path / "current.json").write_text(outputs["json"], encoding="utf-8")
    run = hookconf("diff", str(tmp_path / "base.json"), str(tmp_path / "current.json"))
    assert run.returncode == 1  # a regression
    assert "evil\\x1b[31m" in run.stdout
    assert hidden_characters(run.stdout) == []
    assert closed_stdout_run("diff", str(tmp_path / "base.json"), str(tmp_path / "current.json")) == (1, "")


# ---- the fleet tables, from the hostile server's stored report ----


@pytest.fixture(scope="module")
def fleet_out(outputs: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CliRun]:
    """Two versions of the hostile server: 2.0 dropped its hostile tool (so regressions name it)."""
    folder = tmp_path_factory.mktemp("hostile-fleet")
    store = folder / "hookconf.sqlite"
    first = json.loads(outputs["json"])
    second = {**first, "tools": [tool for tool in first["tools"] if tool["name"] != HOSTILE_NAME]}
    with FleetStore(store) as fleet:
        for version, report in (("1.0", first), (f"2.0{HOSTILE_TEXT}", second)):
            fleet.add(
                Outcome(
                    fleet="hostile",
                    server=f"hostile{HOSTILE_TEXT}",
                    version=version,
                    source="command",
                    kind=OutcomeKind.AUDITED,
                    started_at="2026-12-04T00:00:00Z",
                    duration_s=1.0,
                    report_json=json.dumps(report),
                )
            )
    run = hookconf("fleet", "report", "--store", str(store), "--out", str(folder / "out"))
    assert run.returncode == 0, run.stderr
    return folder / "out", CliRun(run.returncode, run.stdout, run.stderr)


@pytest.mark.parametrize("name", ["scores.md", "regressions.md", "ecosystem.md", "report.html"])
def test_fleet_files_carry_no_raw_control_character(fleet_out: tuple[Path, CliRun], name: str) -> None:
    out, terminal = fleet_out
    assert hidden_characters(terminal.stdout) == []
    assert hidden_characters((out / name).read_text(encoding="utf-8")) == []


def test_fleet_markdown_tables_keep_their_columns(fleet_out: tuple[Path, CliRun]) -> None:
    out, _ = fleet_out
    header, *rows = markdown_rows(out / "regressions.md")
    assert rows
    assert all(len(row) == len(header) for row in rows)
    changed = dict(zip(header, rows[0], strict=True))
    assert "evil\\\\x1b[31m" in changed["added"] + changed["removed"]  # one backslash, escaped for Markdown
    scores = markdown_rows(out / "scores.md")
    assert all(len(row) == len(scores[0]) for row in scores)


def test_fleet_html_and_csv_show_the_tool_name_as_text(fleet_out: tuple[Path, CliRun]) -> None:
    out, _ = fleet_out
    page = parsed_html((out / "report.html").read_text(encoding="utf-8"))
    assert "b" not in page.tags
    assert any("evil\\x1b[31m" in text for text in page.text)
    results = pd.read_parquet(out / "results.parquet")
    assert SHOWN_NAME in set(results["tool"])
    text = results[["server", "version", "check", "tool", "code", "title"]].to_numpy().ravel()
    assert [cell for cell in text if isinstance(cell, str) and hidden_characters(cell)] == []


def test_the_fleet_progress_line_shows_a_quoted_message_safely() -> None:
    from hookconf.fleet.progress import describe

    failed = Outcome(
        fleet="hostile",
        server="s",
        version="1",
        source="command",
        kind=OutcomeKind.AUDIT_FAILED,
        started_at="2026-12-04T00:00:00Z",
        duration_s=1.0,
        message=HOSTILE_TEXT,
    )
    assert hidden_characters(describe(failed)) == []


# ---- safe_text itself ----


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("bell\x07", "bell\\x07"),
        ("nul\x00", "nul\\x00"),
        ("cr\roverwrite", "cr\\x0doverwrite"),
        ("c1\x85\x9b", "c1\\x85\\x9b"),
        ("bidi\u202eabc\u2066", "bidi\\u202eabc\\u2066"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("lone\ud800", "lone\\ud800"),
        ("non\ufffe\uffff", "non\\ufffe\\uffff"),
        ("line\u2028sep", "line\\u2028sep"),
        ("two\nlines\tand tab", "two\\x0alines\\x09and tab"),
    ],
)
def test_hidden_code_points_are_written_out(text: str, shown: str) -> None:
    assert safe_text(text) == shown


def test_ordinary_text_and_layout_stay() -> None:
    for text in ("Grüße, 日本語, café", "emoji 👩\u200d💻 joined", "non-breaking\u00a0space", "private \ue000 use"):
        assert safe_text(text) == text
    assert safe_text("two\nlines\tand\rcr", layout=True) == "two\nlines\tand\\x0dcr"


def test_json_escaping_keeps_the_value() -> None:
    original = f"{HOSTILE_TEXT} \x85 \U000e0041 \ud800 Grüße"
    document = escape_in_json(json.dumps(original, ensure_ascii=False))
    assert json.loads(document) == original
    assert hidden_characters(document) == []
    assert "Grüße" in document  # readable text is not escaped


def test_a_lone_surrogate_breaks_neither_the_json_nor_the_text_formats() -> None:
    # a server can send one as a JSON escape ("\\ud800"); pydantic's serialiser could not encode it
    document = fleet_report_json(["lone\ud800"])
    assert json.loads(document)["tools"][0]["name"] == "lone\ud800"
    report = Report.model_validate(json.loads(document))
    for output in OutputFormat:
        render(report, output).encode("utf-8")  # stdout's encoding: no UnicodeEncodeError


# ---- a reader that closes stdout early ----


def closed_stdout_run(*args: str) -> tuple[int, str]:
    """Run hookconf with a stdout pipe whose reader is gone before hookconf writes anything."""
    process = subprocess.Popen([*HOOKCONF, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read().decode("utf-8", "replace")
    return process.wait(timeout=120), stderr


@pytest.mark.parametrize(
    "args", [["list"], ["explain", "IDEMP-001"], ["explain", "error-id-echo"], ["version-info"], ["schema"], ["--help"]]
)
def test_a_closed_stdout_ends_quietly_with_the_commands_exit_code(args: list[str]) -> None:
    assert closed_stdout_run(*args) == (0, "")


def test_check_into_a_closed_stdout_keeps_its_verdict(hostile_config: Path) -> None:
    # --strict: the hostile server fails a required compliance check, so the verdict is exit 1
    strict = ["check", str(hostile_config), "--suite", "compliance", "--strict"]
    assert hookconf(*strict).returncode == 1
    assert closed_stdout_run(*strict) == (1, "")
    assert closed_stdout_run("check", str(hostile_config), "--suite", "compliance") == (0, "")


def test_fleet_report_into_a_closed_stdout(fleet_out: tuple[Path, CliRun], tmp_path: Path) -> None:
    out, _ = fleet_out
    store = out.parent / "hookconf.sqlite"
    assert closed_stdout_run("fleet", "report", "--store", str(store), "--out", str(tmp_path)) == (0, "")
    assert (tmp_path / "report.html").exists()  # the files are written all the same


@pytest.mark.parametrize("command", ["list", "explain IDEMP-001", "check {config} --output json"])
def test_piped_into_head(command: str, hostile_config: Path) -> None:
    line = f"{' '.join(HOOKCONF)} {command.format(config=hostile_config)} | head -1"
    run = subprocess.run(
        ["bash", "-o", "pipefail", "-c", line], capture_output=True, text=True, timeout=120, check=False
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert len(run.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://attacker.example","x")', '\'=HYPERLINK("http://attacker.example","x")'),
        ("@SUM(1+1)", "'@SUM(1+1)"),
        ("+cmd", "'+cmd"),
        ("-2+3", "'-2+3"),
        ("-5.0", "-5.0"),
        ("+1e3", "+1e3"),
        ("read_file", "read_file"),
        ("", ""),
    ],
)
def test_a_csv_cell_a_spreadsheet_would_run_as_a_formula_is_made_inert(cell: str, written: str) -> None:
    import pandas as pd

    from hookconf.fleet.render import csv_safe

    assert csv_safe(pd.DataFrame({"tool": [cell]}))["tool"].tolist() == [written]
