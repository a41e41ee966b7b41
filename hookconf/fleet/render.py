"""The fleet tables on the terminal and in files: Markdown (tabulate), the check results as Parquet (pyarrow,
the fleet extra; CSV without it) and one self-contained HTML page: distributions as matplotlib SVG written
inline, and an index of the servers that a few lines of inline script sort and search (no CDN, works offline).
Every size is bounded by the servers, not by their versions or check results, except regressions.md and the
results file, which list everything."""

from __future__ import annotations

import html
import io
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tabulate import tabulate

from hookconf import __version__
from hookconf.fleet.errors import StoreError
from hookconf.fleet.store import FleetStore
from hookconf.fleet.tables import (
    FleetTables,
    grade_distribution,
    history_table,
    latest_audited,
    named_count,
    store_tables,
)
from hookconf.safe_text import LAYOUT_FIELDS, safe_text

SCORES_NOTE = (
    "A row per server: its latest and previous stored versions (every version: hookconf fleet report "
    "--server NAME). Cells: the hook score, then the compliance grade and score where the compliance suite ran, "
    "then the audit's wall time (and how many tools and compliance checks its time budget cut, "
    "reported as skipped); or why there is no audit. "
    "Suite columns: mean status points of the latest audited version (pass 100, warn 60, "
    "indeterminate 50, fail 0; skips left out)."
)
REGRESSIONS_NOTE = (
    "Consecutive audited versions of each server in version order. tools: how many tools "
    "tools/list gave (within the config's toolFilter; - where the report cannot say); "
    "added/removed: how many and which. worse/better: checks whose "
    "status changed (skips left out; compliance checks only where both were graded in the "
    "same era, see spec); deltas are new minus old; p95 is the slowest tool's; audit_s is the "
    "audit's wall time."
)
ECOSYSTEM_NOTE = (
    "Over the latest audited version of every server. Suites: results per status, and each "
    "status's share of the suite's results (skips included). Registries: the servers of each registry, "
    "their median scores, grades, and the share failing at least one check."
)
RESULTS_NOTE = (
    "results.parquet: a row per check result of every stored version (server, version, check, status, code, "
    "title, duration and the audit's figures); pandas.read_parquet and DuckDB read it."
)
TERMINAL_ROWS = 40  # servers and regressions the terminal shows; the files have them all
HTML_REGRESSIONS = 200  # the largest score drops in report.html; regressions.md has every pair
HTML_CHANGES = 5
RESULTS_CHUNK = 50_000
TERMINAL_CHANGES = 3
TERMINAL_TOOLS = 3
MARKDOWN_TOOLS = 5
TOOL_CHANGES = ("added", "removed")
MARKDOWN_CELL_SPECIALS = re.compile(r"([|`\\])")
STATUS_COLOURS = {
    "pass": "#2e7d32",
    "warn": "#f9a825",
    "indeterminate": "#9e9e9e",
    "fail": "#c62828",
    "skip": "#e0e0e0",
    "advice": "#4fc3f7",
}


def write_report(store_path: Path, out_dir: Path, servers: Sequence[str] = ()) -> Iterator[str]:
    """Print the tables (and the history of these servers) and write scores.md, regressions.md, ecosystem.md,
    results.parquet (results.csv without pyarrow) and report.html."""
    with FleetStore(store_path, create=False) as store:
        if not store.count():
            raise StoreError(f"{store_path} holds no audits yet; run 'hookconf fleet run targets/*.toml' first")
        tables = store_tables(store.connection)
        yield terminal_text(tables)
        for server in servers:
            yield _section(f"History: {server}", history_table(tables.audits, server), "simple")
        out_dir.mkdir(parents=True, exist_ok=True)
        written = write_files(tables, out_dir, store_path)
        written.insert(3, write_results(store.connection, tables.audits, out_dir))
    yield f"wrote {', '.join(str(path) for path in written)}"


def terminal_text(tables: FleetTables) -> str:
    parts = [
        _section("Scores", _first_rows(tables.scores, "servers", "scores.md"), "simple"),
        _section("Regressions", _first_rows(regressions_view(tables), "pairs", "regressions.md"), "simple"),
    ]
    parts += [_section(f"Ecosystem: {name}", frame, "simple") for name, frame in tables.ecosystem.items()]
    return "\n\n".join(parts)


def _first_rows(frame: pd.DataFrame, what: str, where: str) -> pd.DataFrame:
    """The first TERMINAL_ROWS rows and a last row saying how many more the file has."""
    if len(frame) <= TERMINAL_ROWS:
        return frame
    more = pd.DataFrame([{frame.columns[0]: f"+{len(frame) - TERMINAL_ROWS} more {what} in {where}"}])
    return pd.concat([frame.head(TERMINAL_ROWS), more], ignore_index=True)


def _section(title: str, frame: pd.DataFrame, fmt: str) -> str:
    return f"{title}\n{render_table(frame, fmt)}"


def render_table(frame: pd.DataFrame, fmt: str) -> str:
    """A table for the terminal ("simple") or Markdown ("github"); tabulate's "html" escapes cells itself."""
    if frame.empty:
        return "(none)"
    escape = markdown_cell if fmt == "github" else str
    return tabulate(
        [[escape(cell) for cell in row] for row in display_rows(frame)],
        headers=[escape(header) for header in display_headers(frame)],
        tablefmt=fmt,
        disable_numparse=True,
    )


def display_rows(frame: pd.DataFrame) -> list[list[str]]:
    """The cells as text, server text (tool names, details, messages) on one line and safe to show."""
    return [[safe_text(_cell(value)) for value in row] for row in frame.itertuples(index=False)]


def display_headers(frame: pd.DataFrame) -> list[str]:
    return [safe_text(str(column)) for column in frame.columns]


def markdown_cell(text: str) -> str:
    """A table cell that renders as itself: HTML escaped, and the pipe (which would end the cell) and the
    backtick (which would open code) escaped with a backslash."""
    return MARKDOWN_CELL_SPECIALS.sub(r"\\\1", html.escape(text, quote=False))


def _cell(value: Any) -> str:
    if isinstance(value, tuple):  # tool names: every one of them
        return named_count(value)
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def regressions_view(tables: FleetTables) -> pd.DataFrame:
    """The terminal shows the pairs where something changed (the largest score drops first when they are
    many) and the first few changes of each; regressions.md lists every pair and every change."""
    frame = tables.regressions
    tools_changed = frame["added"].map(_names).map(bool) | frame["removed"].map(_names).map(bool)
    changed = frame[
        (frame["worse"] != "") | (frame["better"] != "") | (frame["score_delta"].fillna(0) != 0) | tools_changed
    ]
    if len(changed) > TERMINAL_ROWS:
        changed = _largest_drops(changed)
    return _first_tools(changed, TERMINAL_TOOLS).assign(
        worse=changed["worse"].map(_first_changes), better=changed["better"].map(_first_changes)
    )


def _first_tools(regressions: pd.DataFrame, limit: int) -> pd.DataFrame:
    """The added and removed tools shortened to the first `limit` names of each and '+N more'."""
    return regressions.assign(
        **{column: regressions[column].map(lambda names: named_count(_names(names), limit)) for column in TOOL_CHANGES}
    )


def _names(cell: Any) -> tuple[str, ...]:
    """A tool-change cell's names; none where the reports could not say."""
    return cell if isinstance(cell, tuple) else ()


def _largest_drops(regressions: pd.DataFrame) -> pd.DataFrame:
    """The pairs by score delta, the largest drop first (pairs without a delta last), then by server."""
    return regressions.sort_values(["score_delta", "server"], na_position="last", kind="stable")


def _first_changes(changes: str, limit: int = TERMINAL_CHANGES) -> str:
    listed = [change for change in changes.split("; ") if change]
    if len(listed) <= limit:
        return changes
    return "; ".join(listed[:limit]) + f"; +{len(listed) - limit} more in regressions.md"


def write_files(tables: FleetTables, out_dir: Path, store_path: Path) -> list[Path]:
    documents = {
        "scores.md": _markdown("Scores", SCORES_NOTE, {"": tables.scores}),
        "regressions.md": regressions_markdown(tables.regressions),
        "ecosystem.md": _markdown("Ecosystem", ECOSYSTEM_NOTE, tables.ecosystem),
        "report.html": html_report(tables, store_path),
    }
    written = []
    for name, text in documents.items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# The chosen audits in version order drive the join (CROSS JOIN keeps them the outer loop), so SQLite streams
# the rows in that order without sorting them all; within an audit they come in check order (by the index).
# A row is only its audit's position, its check's id, its status and duration: the audit's columns and the
# check's are fetched once each and repeated by Arrow (or by the CSV writer).
RESULTS_SQL = """
SELECT o.position, r.check_ref, r.status, r.duration_ms
FROM temp.ordered o CROSS JOIN results r ON r.audit_id = o.audit_id
ORDER BY o.position
"""
AUDIT_SQL = """
SELECT a.server, a.version, f.score, COALESCE(f.grade, '-'), f.startup_ms, f.peak_rss_bytes, f.cpu_seconds, f.audit_s
FROM temp.ordered o JOIN audits a ON a.id = o.audit_id LEFT JOIN figures f ON f.audit_id = o.audit_id
ORDER BY o.position
"""
CHECKS_SQL = "SELECT id, check_name, suite, tool, category, check_id, required, graded, code, title FROM checks"
AUDIT_NAMES = ("server", "version", "score", "grade", "startup_ms", "peak_rss_bytes", "cpu_seconds", "audit_s")
CHECK_NAMES = ("check", "suite", "tool", "category", "check_id", "required", "graded", "code", "title")
RESULT_NAMES = (
    "server",
    "version",
    "check",
    "suite",
    "tool",
    "category",
    "check_id",
    "required",
    "graded",
    "status",
    "code",
    "title",
    "duration_ms",
    *AUDIT_NAMES[2:],
)
TEXT_COLUMNS = ("server", "version", "check", "suite", "tool", "category", "check_id", "status", "code", "title")
FLAG_COLUMNS = ("required", "graded")


@dataclass(frozen=True)
class ResultChunk:
    positions: list[int]  # of each row's audit in the audits frame
    checks: list[int]  # of each row's check in the checks' columns
    statuses: list[str | None]
    durations: list[float | None]


def write_results(db: Any, audits: pd.DataFrame, out_dir: Path) -> Path:
    """Every check result of every stored version, in version order, read from the store in chunks: as
    Parquet where pyarrow is installed (the fleet extra), else as CSV."""
    db.execute("DROP TABLE IF EXISTS temp.ordered")
    db.execute("CREATE TEMP TABLE ordered (position INTEGER PRIMARY KEY, audit_id INTEGER)")
    db.executemany("INSERT INTO temp.ordered VALUES (?, ?)", list(enumerate(map(int, audits["audit_id"]))))
    per_audit = _safe_columns(dict(zip(AUDIT_NAMES, _columns(db.execute(AUDIT_SQL).fetchall(), 8), strict=True)))
    check_ids, *check_columns = _columns(db.execute(CHECKS_SQL).fetchall(), 1 + len(CHECK_NAMES))
    per_check = _safe_columns(dict(zip(CHECK_NAMES, check_columns, strict=True)))
    row_of_check = {int(check_id): row for row, check_id in enumerate(check_ids)}
    chunks = _result_chunks(db, row_of_check)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return _write_csv(chunks, per_audit, per_check, out_dir / "results.csv")
    types: dict[str, pa.DataType] = {column: pa.string() for column in (*TEXT_COLUMNS, "grade")}
    types |= {column: pa.bool_() for column in FLAG_COLUMNS}
    schema = pa.schema([(name, types.get(name, pa.float64())) for name in RESULT_NAMES])
    audit_table = pa.table(
        {name: pa.array(per_audit[name], type=types[name] if name in types else pa.float64()) for name in AUDIT_NAMES}
    )
    check_table = pa.table({name: pa.array(per_check[name], type=types[name]) for name in CHECK_NAMES})
    path = out_dir / "results.parquet"
    with pq.ParquetWriter(path, schema) as writer:
        for chunk in chunks:
            by_audit = audit_table.take(pa.array(chunk.positions, type=pa.int64()))
            by_check = check_table.take(pa.array(chunk.checks, type=pa.int64()))
            own: dict[str, pa.Array[Any] | pa.ChunkedArray[Any]] = {
                "status": pa.array(_safe_list(chunk.statuses), type=pa.string()),
                "duration_ms": pa.array(chunk.durations, type=pa.float64()),
            }
            own |= {name: by_audit.column(name) for name in AUDIT_NAMES}
            own |= {name: by_check.column(name) for name in CHECK_NAMES}
            arrays = [own[name] for name in RESULT_NAMES]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
    return path


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    if not rows:
        return [[] for _ in range(width)]
    return [list(column) for column in zip(*rows, strict=True)]


def _result_chunks(db: Any, row_of_check: Mapping[int, int]) -> Iterator[ResultChunk]:
    cursor = db.execute(RESULTS_SQL)
    while rows := cursor.fetchmany(RESULTS_CHUNK):
        positions, check_refs, statuses, durations = _columns(rows, 4)
        yield ResultChunk(positions, [row_of_check[ref] for ref in check_refs], statuses, durations)


def _safe_list(values: list[Any]) -> list[Any]:
    """Text safe to show, worked out once per distinct value (the columns repeat a great deal); a list with
    nothing to change is returned as it is."""
    changed = {value: shown for value in set(values) if isinstance(value, str) and (shown := safe_text(value)) != value}
    return [changed.get(value, value) for value in values] if changed else values


def _safe_columns(columns: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The text columns safe to show, the flags as booleans."""
    for name in TEXT_COLUMNS:
        if name in columns:
            columns[name] = _safe_list(columns[name])
    for name in FLAG_COLUMNS:
        if name in columns:
            columns[name] = [None if value is None else bool(value) for value in columns[name]]
    return columns


def _write_csv(
    chunks: Iterator[ResultChunk], per_audit: dict[str, list[Any]], per_check: dict[str, list[Any]], path: Path
) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        for number, chunk in enumerate(chunks):
            columns = {name: [per_audit[name][p] for p in chunk.positions] for name in AUDIT_NAMES}
            columns |= {name: [per_check[name][c] for c in chunk.checks] for name in CHECK_NAMES}
            columns |= {"status": _safe_list(chunk.statuses), "duration_ms": chunk.durations}
            frame = pd.DataFrame({name: columns[name] for name in RESULT_NAMES})
            csv_safe(frame).to_csv(handle, index=False, header=number == 0)
    return path


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its text safe to show (a CSV is read with `cat` as often as with a spreadsheet);
    line breaks in details and messages stay, CSV quotes them. The stored reports keep the text as sent."""
    safe: pd.DataFrame = frame.apply(
        lambda column: column.map(
            lambda value: (
                inert_cell(safe_text(value, layout=column.name in LAYOUT_FIELDS)) if isinstance(value, str) else value
            )
        )
    )
    return safe


def inert_cell(text: str) -> str:
    """A spreadsheet runs a cell that starts with = + - @ as a formula: such text (a tool name, an error a
    server sent) gets a leading apostrophe, which the spreadsheet hides. Numbers written as text stay."""
    if text[:1] in FORMULA_STARTS and not NUMBER.fullmatch(text):
        return "'" + text
    return text


def _markdown(title: str, note: str, sections: Mapping[str, pd.DataFrame]) -> str:
    parts = [f"# {title}", "", note, ""]
    for name, frame in sections.items():
        if name:
            parts += [f"## {name.capitalize()}", ""]
        parts += [render_table(frame, "github"), ""]
    return "\n".join(parts)


def regressions_markdown(regressions: pd.DataFrame) -> str:
    """The table with long tool lists shortened, then those lists in full below it."""
    text = _markdown("Regressions", REGRESSIONS_NOTE, {"": _first_tools(regressions, MARKDOWN_TOOLS)})
    shortened = [
        (row, column)
        for row in regressions.to_dict("records")
        for column in TOOL_CHANGES
        if len(_names(row[column])) > MARKDOWN_TOOLS
    ]
    if not shortened:
        return text
    lines = ["## Tools added and removed", ""]
    lines += [
        "- "
        + markdown_cell(
            safe_text(f"{row['server']} {row['from']} → {row['to']}, {column}: {named_count(_names(row[column]))}")
        )
        for row, column in shortened
    ]
    return text + "\n".join(lines) + "\n"


def html_report(tables: FleetTables, store_path: Path) -> str:
    latest = latest_audited(tables.audits)
    generated = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    servers = tables.audits["server"].nunique()
    body = [
        "<h1>hookconf fleet report</h1>",
        f"<p>{servers} servers, {len(tables.audits)} server versions from {html.escape(str(store_path))}, "
        f"hookconf {__version__}, {generated}.</p>",
        "<h2>Distributions</h2>",
        chart_svg(_scores_chart, latest),
        chart_svg(_status_chart, tables.status_shares),
        chart_svg(_resources_chart, latest),
        "<h2>Scores</h2>",
        f"<p>{html.escape(SCORES_NOTE)}</p>",
        '<p><input id="find" type="search" placeholder="filter servers" aria-label="filter servers"> '
        "Click a column's header to sort by it.</p>",
        _html_table(tables.scores).replace("<table>", '<table id="servers">', 1),
        "<h2>Regressions</h2>",
        f"<p>{html.escape(REGRESSIONS_NOTE)}</p>",
        *_html_regressions(tables.regressions),
        "<h2>Ecosystem</h2>",
        f"<p>{html.escape(ECOSYSTEM_NOTE)} {html.escape(RESULTS_NOTE)}</p>",
    ]
    for name, frame in tables.ecosystem.items():
        body += [f"<h3>{html.escape(name.capitalize())}</h3>", _html_table(frame)]
    return HTML_PAGE.format(body="\n".join(body), script=INDEX_SCRIPT)


def _html_regressions(regressions: pd.DataFrame) -> list[str]:
    """The largest score drops when the pairs are many, each change list shortened; regressions.md has all."""
    shown = regressions
    parts = []
    if len(regressions) > HTML_REGRESSIONS:
        shown = _largest_drops(regressions).head(HTML_REGRESSIONS)
        parts.append(f"<p>The {HTML_REGRESSIONS} largest score drops of {len(regressions)} pairs.</p>")
    shortened = shown.assign(
        worse=shown["worse"].map(lambda text: _first_changes(text, HTML_CHANGES)),
        better=shown["better"].map(lambda text: _first_changes(text, HTML_CHANGES)),
    )
    return [*parts, _html_table(shortened)]


def _html_table(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "<p>(none)</p>"
    return tabulate(display_rows(frame), headers=display_headers(frame), tablefmt="html", disable_numparse=True)


def chart_svg(draw: Callable[[Any, pd.DataFrame], None], data: pd.DataFrame) -> str:
    """Draw with matplotlib, return the SVG element itself (fonts as paths, so it renders offline)."""
    if data.empty:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "hookconf", "font.size": 9}):
        figure = plt.figure()
        try:
            draw(figure, data)
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
        finally:
            plt.close(figure)
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]


def chart_label(text: str) -> str:
    """Text for a chart: safe to show (matplotlib also writes it into the SVG as a comment), and a `$` taken
    literally rather than as the start of mathtext."""
    return safe_text(str(text)).replace("$", r"\$")


def _scores_chart(figure: Any, latest: pd.DataFrame) -> None:
    """How many servers got each grade, and how their hook and compliance scores spread."""
    figure.set_size_inches(11, 2.8)
    grades_axes, hook_axes, compliance_axes = figure.subplots(1, 3)
    grades = grade_distribution(latest)
    grades_axes.bar(grades["grade"], grades["servers"], color="C0")
    grades_axes.set_xlabel("compliance grade")
    grades_axes.set_ylabel("servers")
    bins = list(range(0, 101, 10))
    for axes, column, label in (
        (hook_axes, "score", "hook score"),
        (compliance_axes, "compliance_score", "compliance score"),
    ):
        values = pd.to_numeric(latest[column], errors="coerce").dropna()
        axes.hist(values, bins=bins, color="C2")
        axes.set_xlim(0, 100)
        axes.set_xlabel(f"{label} ({len(values)} servers; n/a left out)")
    figure.suptitle("Grades and scores of the latest versions")


def _status_chart(figure: Any, shares: pd.DataFrame) -> None:
    figure.set_size_inches(7, 0.4 * len(shares) + 1)
    axes = figure.add_subplot()
    left = pd.Series(0.0, index=shares.index)
    for status in shares.columns:
        if status in STATUS_COLOURS:
            axes.barh(shares.index, shares[status], left=left, color=STATUS_COLOURS[status], label=status)
            left += shares[status]
    axes.set_xlim(0, 100)
    axes.set_xlabel("share of results (%)")
    axes.invert_yaxis()
    axes.legend(ncols=5, loc="upper center", bbox_to_anchor=(0.5, -0.25), frameon=False)
    axes.set_title("Statuses per suite, latest versions")


RESOURCE_HISTOGRAMS = (
    ("startup_ms", "start-up to initialize answer (ms)"),
    ("peak_rss_mib", "peak RSS of the process tree (MiB)"),
    ("audit_s", "audit wall time (s)"),
)


def _resources_chart(figure: Any, latest: pd.DataFrame) -> None:
    figure.set_size_inches(11, 2.8)
    for axes, (column, label) in zip(figure.subplots(1, 3), RESOURCE_HISTOGRAMS, strict=True):
        values = pd.to_numeric(latest[column], errors="coerce").dropna()
        axes.hist(values, bins=20, color="C1")
        axes.set_xlabel(label)
    figure.supylabel("servers")
    figure.suptitle("Cost of the latest versions")


INDEX_SCRIPT = """
const table = document.getElementById("servers");
if (table) {
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  document.getElementById("find").addEventListener("input", (event) => {
    const wanted = event.target.value.toLowerCase();
    for (const row of rows) row.hidden = !row.cells[0].textContent.toLowerCase().includes(wanted);
  });
  table.tHead.addEventListener("click", (event) => {
    const header = event.target.closest("th");
    if (!header) return;
    const column = header.cellIndex;
    const up = header.dataset.order !== "up";
    header.dataset.order = up ? "up" : "down";
    const key = (row) => row.cells[column].textContent.replace(/^hook /, "");
    const compare = (a, b) => key(a).localeCompare(key(b), undefined, { numeric: true });
    rows.sort((a, b) => (up ? compare(a, b) : compare(b, a)));
    body.append(...rows);
  });
}
"""


HTML_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>hookconf fleet report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }}
th {{ background: #f3f3f3; }}
#servers th {{ cursor: pointer; }}
svg {{ max-width: 100%; height: auto; display: block; margin: 1em 0; }}
</style>
</head>
<body>
{body}
<script>{script}</script>
</body>
</html>
"""
