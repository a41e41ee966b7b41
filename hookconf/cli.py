"""Command line: each subcommand is a short pipeline of steps that returns the exit code."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hookconf import DEFAULT_CONFIG_NAME, HANDSHAKE_REVISIONS, HOOK_SUITES, __version__
from hookconf.errors import ConfigError, HookconfError
from hookconf.report.formats import OutputFormat

if TYPE_CHECKING:
    from hookconf.config import AuditConfig

EXIT_OK = 0
EXIT_FAILURES = 1

Command = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command: Command = args.command
    try:
        return command(args)
    except HookconfError as exc:
        print(f"hookconf: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("hookconf: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hookconf", description="Audit MCP servers for hook readiness and resource cost.")
    parser.add_argument("--version", action="version", version=f"hookconf {__version__}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    _add_check(commands)
    _add_init(commands)
    explain = commands.add_parser("explain", help="explain a finding code and how to fix it")
    explain.add_argument("code", help="a finding code, e.g. IDEMP-001")
    explain.set_defaults(command=run_explain)
    commands.add_parser("list", help="list every finding code with suite, severity and weight").set_defaults(
        command=run_list)
    for name in ("version-info", "version"):
        commands.add_parser(name, help="print hookconf's version and the MCP revisions it speaks").set_defaults(
            command=run_version_info)
    return parser


def _add_check(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser("check", help="audit the server a config file describes")
    check.add_argument("config", type=Path, help=f"path to the config (e.g. {DEFAULT_CONFIG_NAME})")
    check.add_argument("--output", "--format", dest="output", type=OutputFormat,
                       choices=list(OutputFormat), default=OutputFormat.HUMAN, help="report format on stdout")
    check.add_argument("--suite", action="append", choices=HOOK_SUITES, metavar="SUITE",
                       help=f"run only this suite (repeatable): {', '.join(HOOK_SUITES)}")
    check.add_argument("--tool", help="audit only the tool with this name")
    check.add_argument("--tries", type=int, help="identical calls per tool (2..50); overrides the config")
    check.set_defaults(command=run_check)


def _add_init(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    init = commands.add_parser("init", help=f"write an example {DEFAULT_CONFIG_NAME} into this directory")
    init.add_argument("--server-name", default="my-mcp-server", help="the server's name in the config")
    init.add_argument("--force", action="store_true", help="overwrite an existing config")
    init.set_defaults(command=run_init)


def run_check(args: argparse.Namespace) -> int:
    from hookconf.config import load_config
    from hookconf.report.formats import render
    from hookconf.runner import RunOptions, run_audit

    config = _with_overrides(load_config(args.config), args.tries)
    suites = tuple(args.suite) if args.suite else HOOK_SUITES
    report = run_audit(config, RunOptions(suites=suites, tool=args.tool))
    if args.tool is not None and not report.tools:
        raise ConfigError(f"--tool {args.tool}: the server has no such tool (or toolFilter excludes it)")
    sys.stdout.write(render(report, args.output))
    return EXIT_FAILURES if report.has_failures else EXIT_OK


def _with_overrides(config: AuditConfig, tries: int | None) -> AuditConfig:
    if tries is None:
        return config
    from hookconf.config import parse_config

    data = config.model_dump(by_alias=True, exclude_none=True)
    data["tries"] = tries
    return parse_config(data, source="--tries")


def run_init(args: argparse.Namespace) -> int:
    from hookconf.config import example_config

    target = Path.cwd() / DEFAULT_CONFIG_NAME
    if target.exists() and not args.force:
        raise ConfigError(f"{target} already exists; pass --force to overwrite it")
    target.write_text(json.dumps(example_config(args.server_name), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {target}; edit server.command/args and the probes, then run: hookconf check {DEFAULT_CONFIG_NAME}")
    return EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    from hookconf.checks import FINDINGS

    finding = FINDINGS.get(args.code.strip().upper())
    if finding is None:
        known = ", ".join(sorted(FINDINGS))
        raise ConfigError(f"unknown finding code {args.code!r}; known codes: {known}")
    print(f"{finding.code}  {finding.title}")
    print(f"suite: {finding.suite}   severity: {finding.severity.upper()}")
    print()
    print(finding.explanation)
    print()
    print(f"How to fix: {finding.remediation}")
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from hookconf.checks import FINDINGS, SUITES

    print(f"{'CODE':<11}{'SUITE':<14}{'SEVERITY':<15}{'WEIGHT':<8}TITLE")
    for finding in sorted(FINDINGS.values(), key=lambda f: (f.suite == "*", f.suite, f.code)):
        suite = SUITES.get(finding.suite)
        weight = str(suite.weight) if suite else "-"
        print(f"{finding.code:<11}{finding.suite:<14}{finding.severity.upper():<15}{weight:<8}{finding.title}")
    return EXIT_OK


def run_version_info(args: argparse.Namespace) -> int:
    print(f"hookconf {__version__}")
    revisions = ", ".join(HANDSHAKE_REVISIONS)
    print(f"MCP revisions spoken: {revisions} (initialize handshake; offers {HANDSHAKE_REVISIONS[-1]})")
    return EXIT_OK
