"""The fleet tables on the terminal and in files: Markdown and CSV (tabulate, pandas) and one
self-contained HTML page whose charts are matplotlib SVG written inline (no script, no CDN)."""

from __future__ import annotations

import html
import io
import re
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from tabulate import tabulate

from hookconf import __version__
from hookconf.fleet.errors import StoreError
from hookconf.fleet.store import FleetStore
from hookconf.fleet.tables import FleetTables, build_tables, latest_audited, named_count, status_shares
from hookconf.safe_text import LAYOUT_FIELDS, safe_text

SCORES_NOTE = (
    "Cells: the hook score, then the compliance grade and score where the compliance suite ran, "
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
    "status's share of the suite's results (skips included)."
)
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


def write_report(store_path: Path, out_dir: Path) -> Iterator[str]:
    """Print the tables and write scores.md, regressions.md, ecosystem.md, results.csv and report.html."""
    with FleetStore(store_path, create=False) as store:
        stored = store.latest()
    if not stored:
        raise StoreError(f"{store_path} holds no audits yet; run 'hookconf fleet run targets/*.toml' first")
    tables = build_tables(stored)
    yield terminal_text(tables)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = write_files(tables, out_dir, store_path)
    yield f"wrote {', '.join(str(path) for path in written)}"


def terminal_text(tables: FleetTables) -> str:
    parts = [_section("Scores", tables.scores, "simple"), _section("Regressions", regressions_view(tables), "simple")]
    parts += [_section(f"Ecosystem: {name}", frame, "simple") for name, frame in tables.ecosystem.items()]
    return "\n\n".join(parts)


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
    """The terminal shows the pairs where something changed and the first few changes of each;
    regressions.md and report.html list every pair and every change."""
    frame = tables.regressions
    tools_changed = frame["added"].map(_names).map(bool) | frame["removed"].map(_names).map(bool)
    changed = frame[
        (frame["worse"] != "") | (frame["better"] != "") | (frame["score_delta"].fillna(0) != 0) | tools_changed
    ]
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


def _first_changes(changes: str) -> str:
    listed = [change for change in changes.split("; ") if change]
    if len(listed) <= TERMINAL_CHANGES:
        return changes
    return "; ".join(listed[:TERMINAL_CHANGES]) + f"; +{len(listed) - TERMINAL_CHANGES} more in regressions.md"


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
    csv = out_dir / "results.csv"
    csv_safe(tables.results).to_csv(csv, index=False)
    written.insert(3, csv)
    return written


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
    body = [
        "<h1>hookconf fleet report</h1>",
        f"<p>{len(tables.audits)} server versions from {html.escape(str(store_path))}, "
        f"hookconf {__version__}, {generated}.</p>",
        "<h2>Scores</h2>",
        f"<p>{html.escape(SCORES_NOTE)}</p>",
        chart_svg(_scores_chart, tables.audits),
        _html_table(tables.scores),
        "<h2>Regressions</h2>",
        f"<p>{html.escape(REGRESSIONS_NOTE)}</p>",
        _html_table(tables.regressions),
        "<h2>Ecosystem</h2>",
        f"<p>{html.escape(ECOSYSTEM_NOTE)}</p>",
        chart_svg(_status_chart, status_shares(tables.results.merge(latest[["server", "version"]]))),
        chart_svg(_resources_chart, latest),
    ]
    for name, frame in tables.ecosystem.items():
        body += [f"<h3>{html.escape(name.capitalize())}</h3>", _html_table(frame)]
    return HTML_PAGE.format(body="\n".join(body))


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


def _scores_chart(figure: Any, audits: pd.DataFrame) -> None:
    audited = audits[audits["outcome"] == "audited"]
    # A version whose hook score is n/a (no tool called) gets no bar, and its label says why.
    labels = [
        chart_label(f"{server} {version}") + (" (n/a)" if missing else "")
        for server, version, missing in zip(audited["server"], audited["version"], audited["score"].isna(), strict=True)
    ]
    figure.set_size_inches(7, 0.28 * len(labels) + 1)
    axes = figure.add_subplot()
    servers = sorted(set(audited["server"]))
    palette = [f"C{servers.index(s) % 10}" for s in audited["server"]]
    axes.barh(range(len(labels)), audited["score"].fillna(0), color=palette)
    axes.set_yticks(range(len(labels)), labels)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("hook score")
    axes.set_title("Hook score of every audited version")


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


AUDIT_PHASES = (("startup_s", "start-up"), ("hook_s", "hook suites"), ("compliance_s", "compliance"))


def _resources_chart(figure: Any, latest: pd.DataFrame) -> None:
    figure.set_size_inches(11, 0.3 * len(latest) + 1.2)
    startup, memory, audit = figure.subplots(1, 3, sharey=True)
    servers = [chart_label(server) for server in latest["server"]]
    startup.barh(servers, latest["startup_ms"].fillna(0), color="C0")
    startup.set_xlabel("start-up to initialize answer (ms)")
    memory.barh(servers, latest["peak_rss_mib"].fillna(0), color="C1")
    memory.set_xlabel("peak RSS of the process tree (MiB)")
    left = pd.Series(0.0, index=latest.index)
    for index, (column, label) in enumerate(AUDIT_PHASES):  # a slow server shows where its time went
        seconds = pd.to_numeric(latest[column], errors="coerce").fillna(0.0)
        audit.barh(servers, seconds, left=left, color=f"C{index + 2}", label=label)
        left += seconds
    audit.set_xlabel("audit wall time (s)")
    audit.legend(loc="lower right", fontsize=7)
    startup.invert_yaxis()
    figure.suptitle("Cost of the latest versions")


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
svg {{ max-width: 100%; height: auto; display: block; margin: 1em 0; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""
