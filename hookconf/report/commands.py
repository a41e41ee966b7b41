"""`hookconf diff`, `hookconf render`, `hookconf baseline write` and `hookconf schema`; light at import, the work is
imported per command."""

from __future__ import annotations

import argparse
from pathlib import Path

from hookconf.console import emit
from hookconf.report.formats import OutputFormat

EXIT_OK = 0


def add_report_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    diff = commands.add_parser("diff", help="compare two JSON reports: newly failing, fixed, newly skipped, scores")
    diff.add_argument("base", type=Path, metavar="BASE.json", help="the earlier report (check --output json)")
    diff.add_argument("current", type=Path, metavar="CURRENT.json", help="the later report")
    diff.set_defaults(command=run_diff)
    render = commands.add_parser("render", help="write a stored JSON report in any format (e.g. sarif, junit)")
    render.add_argument("report", type=Path, metavar="REPORT.json", help="a report from check --output json")
    add_output_option(render, "the format to write on stdout")
    render.set_defaults(command=run_render)
    baseline = commands.add_parser("baseline", help="expected failures for check --baseline")
    actions = baseline.add_subparsers(title="baseline commands", required=True, metavar="ACTION")
    write = actions.add_parser("write", help="write a baseline listing every failure of a JSON report")
    write.add_argument("report", type=Path, metavar="REPORT.json", help="a report from check --output json")
    write.add_argument("--output", "-o", type=Path, required=True, metavar="FILE", help="the baseline to write")
    write.set_defaults(command=run_baseline_write)
    commands.add_parser("schema", help="print the JSON Schema of the JSON report").set_defaults(command=run_schema)


def add_output_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """`--output FORMAT` (alias `--format`): one of the report formats, human by default."""
    parser.add_argument(
        "--output",
        "--format",
        dest="output",
        type=OutputFormat,
        choices=list(OutputFormat),
        default=OutputFormat("human"),
        help=help_text,
    )


def run_diff(args: argparse.Namespace) -> int:
    from hookconf.report.diff import diff_exit_code, diff_reports, load_report, render_diff
    from hookconf.report.text import shown_report

    diff = diff_reports(shown_report(load_report(args.base)), shown_report(load_report(args.current)))
    emit(render_diff(diff))
    return diff_exit_code(diff)


def run_render(args: argparse.Namespace) -> int:
    import sys

    from hookconf.report.diff import load_report
    from hookconf.report.formats import render, wants_colour

    emit(render(load_report(args.report), args.output, colour=wants_colour(sys.stdout)))
    return EXIT_OK


def run_baseline_write(args: argparse.Namespace) -> int:
    from hookconf.errors import HookconfError
    from hookconf.report.baseline import baseline_from_report
    from hookconf.report.diff import load_report

    baseline = baseline_from_report(load_report(args.report))
    try:
        args.output.write_text(baseline.to_json(), encoding="utf-8")
    except OSError as exc:
        raise HookconfError(f"--output {args.output}: cannot write ({exc.strerror or exc})") from exc
    emit(
        f"wrote {args.output} with {len(baseline.expected_failures)} expected failures; "
        "replace each TODO reason with why the failure is accepted\n"
    )
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    from hookconf.report.schema import render_schema

    emit(render_schema())
    return EXIT_OK
