"""Command line: each subcommand is a short pipeline of steps that returns the exit code."""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from hookconf import (
    ALL_SUITES,
    COMPLIANCE_SUITE,
    DEFAULT_CONFIG_NAME,
    HANDSHAKE_REVISIONS,
    SPEC_VERSIONS,
    STATELESS_REVISIONS,
    __version__,
)
from hookconf.console import drop_stdout, emit, emit_lines, finish_stdout
from hookconf.errors import ConfigError, HookconfError
from hookconf.report.formats import OutputFormat
from hookconf.safe_text import safe_text

if TYPE_CHECKING:
    from hookconf.config import AuditConfig
    from hookconf.engine.events import Listener
    from hookconf.report.model import Report
    from hookconf.wire.process import ServerProcess
    from hookconf.wire.sandbox import Sandbox

GRADES = ("A", "B", "C", "D", "F")

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
# What `pip install 'hookconf[fleet]'` adds: `hookconf fleet` needs it, a single server's audit does not.
FLEET_EXTRA_MODULES = frozenset({"packaging", "pandas", "tabulate", "matplotlib", "uv"})

Command = Callable[[argparse.Namespace], int]


def run() -> NoReturn:
    """The command line's entry (`hookconf`, `python -m hookconf`): main, then a quick exit.

    The garbage collector waits until the start-up is done (see startup_done): the few hundred modules an audit
    imports allocate objects by the million, which live as long as the process, and collecting them while they
    load costs 10% of the imports' CPU time and finds no garbage.
    """
    gc.disable()
    exit_now(main())


def startup_done() -> None:
    """Collect garbage again, no longer traversing what was there at start-up (modules, classes, models)."""
    gc.freeze()
    gc.enable()


def exit_now(code: int) -> NoReturn:
    """End the process once the command is done, without the interpreter's teardown of its modules and
    objects (0.1 s after an audit, which has loaded a few hundred modules and pydantic's model graph).

    Only when nothing is left running: with a thread that still works, the usual exit waits for it. The
    exit handlers still run (a weakref.finalize, a temporary directory's cleanup), and the output is flushed.
    """
    main_thread = threading.main_thread()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not main_thread):
        raise SystemExit(code)
    atexit._run_exitfuncs()
    finish_stdout()
    with suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:
        # A write that does not go through console.emit met a closed stdout before the command could say
        # its exit code: the code of a process ended by SIGPIPE, as a shell reports it.
        drop_stdout()
        return EXIT_BROKEN_PIPE
    finally:
        finish_stdout()  # print() and argparse (--help) leave text in the buffer


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command: Command = args.command
    if command is not run_check:
        startup_done()  # run_check says when its imports are done
    try:
        return command(args)
    except HookconfError as exc:
        # The message may quote the server (its stderr tail, an error it answered): shown safely.
        print(f"hookconf: {safe_text(str(exc), layout=True)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("hookconf: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in FLEET_EXTRA_MODULES:
            raise
        print(
            f"hookconf: this command needs the fleet extra ({exc.name} is missing): pip install 'hookconf[fleet]'",
            file=sys.stderr,
        )
        return ConfigError.exit_code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hookconf", description="Audit MCP servers for hook readiness and resource cost."
    )
    parser.add_argument("--version", action="version", version=f"hookconf {__version__}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    _add_check(commands)
    _add_init(commands)
    explain = commands.add_parser("explain", help="explain a finding code and how to fix it")
    explain.add_argument("code", help="a finding code, e.g. IDEMP-001")
    explain.set_defaults(command=run_explain)
    commands.add_parser("list", help="list every finding code with suite, severity and weight").set_defaults(
        command=run_list
    )
    _add_benchmark(commands)
    commands.add_parser(
        "mcp", help="serve hookconf's tools (audit, explain, diff) over MCP on stdio; needs hookconf[mcp]"
    ).set_defaults(command=run_mcp)
    for name in ("version-info", "version"):
        commands.add_parser(name, help="print hookconf's version and the MCP revisions it speaks").set_defaults(
            command=run_version_info
        )
    from hookconf.fleet.cli import add_fleet_commands
    from hookconf.report.commands import add_report_commands

    add_fleet_commands(commands)
    add_report_commands(commands)
    return parser


def _add_check(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "check",
        help="audit a server: the one a config file describes, a URL, or a command after --",
        description="Audit an MCP server. TARGET is a config file (e.g. hook-conformance.config.json), the URL of a "
        "server that runs (streamable HTTP), or, after --, the command that starts one: hookconf check -- npx -y "
        "@modelcontextprotocol/server-memory. --from reads the servers of an MCP client's config file.",
    )
    check.add_argument("target", nargs="*", metavar="TARGET", help="a config file, a URL, or -- COMMAND ARGS...")
    _add_server_options(check)
    _add_run_options(check)
    _add_compliance_options(check)
    check.set_defaults(command=run_check)


def _add_server_options(check: argparse.ArgumentParser) -> None:
    server = check.add_argument_group("a server named on the command line (instead of a config file)")
    server.add_argument(
        "--from",
        dest="from_file",
        type=Path,
        metavar="FILE",
        help="an MCP client's config file "
        "(mcpServers, VS Code's servers): its server --server, else each of its servers",
    )
    server.add_argument(
        "--server",
        dest="server_name",
        metavar="NAME",
        help="with --from: the server to audit; without: the name the report gives the server",
    )
    server.add_argument(
        "-e",
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable of the server (repeatable)",
    )
    server.add_argument("--env-file", type=Path, metavar="FILE", help="KEY=VALUE lines for the server's environment")
    server.add_argument("--cwd", metavar="DIR", help="the folder the server starts in")
    server.add_argument("--timeout", type=int, metavar="MS", help="timeoutMs: how long any answer may take")


def _add_run_options(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "--report",
        action="append",
        default=[],
        type=_report_output,
        metavar="FORMAT=PATH",
        help="also write the report in FORMAT to PATH (repeatable), beside the --output on stdout",
    )
    check.add_argument(
        "--watch",
        nargs="?",
        const=".",
        type=Path,
        metavar="PATH",
        help="audit again whenever a file under PATH (default: here) changes, showing what changed; Ctrl+C ends it",
    )
    from hookconf.report.commands import add_output_option

    add_output_option(check, "report format on stdout")
    check.add_argument(
        "--suite",
        action="append",
        choices=ALL_SUITES,
        metavar="SUITE",
        help=f"run only this suite (repeatable): {', '.join(ALL_SUITES)}",
    )
    check.add_argument("--tool", help="audit only the tool with this name")
    check.add_argument("--tries", type=int, help="identical calls per tool (2..50); overrides the config")
    check.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="time budget of the audit (budgetS in the config; 0: none): checked before each tool's "
        "suites and each compliance check, what it leaves undone is skipped, never failed",
    )
    check.add_argument(
        "-v", "--verbose", action="store_true", help="print each verdict to stderr as the audit reaches it"
    )
    check.add_argument("--badge", type=Path, metavar="PATH", help="also write an SVG badge with grade and score")
    check.add_argument(
        "--keep-workdir",
        action="store_true",
        help="keep the audit's sandbox (the server's HOME, TMPDIR and XDG directories) and print where it is",
    )
    check.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="expected failures (JSON; 'hookconf baseline write' makes one): they do not fail the "
        "run, and an entry that now passes does",
    )


def _add_compliance_options(check: argparse.ArgumentParser) -> None:
    compliance = check.add_argument_group("protocol compliance")
    compliance.add_argument(
        "--only",
        type=_comma_list,
        default=[],
        metavar="LIST",
        help="run only these compliance categories or check ids (comma-separated)",
    )
    compliance.add_argument(
        "--skip",
        type=_comma_list,
        default=[],
        metavar="LIST",
        help="leave out these compliance categories or check ids (comma-separated)",
    )
    compliance.add_argument("--strict", action="store_true", help="exit 1 when a required compliance check fails")
    compliance.add_argument("--min-grade", choices=GRADES, help="exit 1 when the grade is below this one")
    compliance.add_argument(
        "--profile", choices=["lighthouse"], help="also report mcp-lighthouse's five category scores and weights"
    )
    compliance.add_argument(
        "--auth", metavar="VALUE", help='Authorization header for HTTP servers, e.g. "Bearer TOKEN"'
    )
    compliance.add_argument(
        "-H", "--header", action="append", default=[], metavar="'NAME: VALUE'", help="extra HTTP header (repeatable)"
    )
    compliance.add_argument(
        "--spec-version",
        choices=SPEC_VERSIONS,
        metavar="REVISION",
        help=f"MCP revision to speak and grade: {', '.join(SPEC_VERSIONS)} (default: auto, "
        "or specVersion in the config; auto probes with server/discover)",
    )


def _add_benchmark(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = commands.add_parser(
        "benchmark", help="time N requests of a read-only tool (or tools/list) at concurrency C"
    )
    bench.add_argument("config", type=Path, help="the config of the server to benchmark")
    bench.add_argument("--tool", metavar="NAME", help="the read-only tool to call (default: tools/list)")
    bench.add_argument("--requests", "-r", type=int, default=100, metavar="N", help="requests to time (default 100)")
    bench.add_argument("--concurrency", "-c", type=int, default=1, metavar="C", help="requests in flight (default 1)")
    bench.add_argument("--output", choices=("human", "json"), default="human", help="result format on stdout")
    bench.set_defaults(command=run_benchmark)


def run_benchmark(args: argparse.Namespace) -> int:
    from hookconf.benchmark import render_human, run_benchmark
    from hookconf.config import load_config

    result = run_benchmark(load_config(args.config), args.tool, args.requests, args.concurrency)
    emit(result.to_json() if args.output == "json" else render_human(result))
    return EXIT_OK


def _comma_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _add_init(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    init = commands.add_parser(
        "init",
        help=f"write {DEFAULT_CONFIG_NAME}: from a server it starts (-- CMD ARGS...) or reaches (URL), else an example",
    )
    init.add_argument("target", nargs="*", metavar="-- CMD ARGS... | URL", help="the server to start or reach")
    init.add_argument("--server-name", help="the server's name in the config")
    init.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE", help="the server's environment")
    init.add_argument("--env-file", type=Path, metavar="FILE", help="KEY=VALUE lines for the server's environment")
    init.add_argument("--cwd", metavar="DIR", help="the folder the server starts in")
    init.add_argument("-H", "--header", action="append", default=[], metavar="'Name: value'", help="an HTTP header")
    init.add_argument("--force", action="store_true", help="overwrite an existing config")
    init.set_defaults(command=run_init)


def run_check(args: argparse.Namespace) -> int:
    started = time.monotonic()  # the budget and the report's start-up time count from here
    if args.only or args.skip:  # a cheap error comes before any server starts
        from hookconf.api import AuditOptions

        AuditOptions(only=tuple(args.only), skip=tuple(args.skip)).check()
    targets = _check_targets(args)
    baseline = None
    if args.baseline is not None:  # read before the audit, so that a bad file costs no audit
        from hookconf.report.baseline import load_baseline

        baseline = load_baseline(args.baseline)
    if args.watch is not None:
        return _watch(args)
    codes = []
    for config, label in targets:
        report = _audit_once(config, args, started, label)
        if baseline is not None:
            from hookconf.report.baseline import apply_baseline

            report = apply_baseline(report, baseline, str(args.baseline))
        _write_outputs(report, args, several=len(targets) > 1)
        codes.append(_exit_code(report, args))
        started = time.monotonic()
    return max(codes)


def _check_targets(args: argparse.Namespace) -> list[tuple[AuditConfig, str | None]]:
    """The configs to audit, each with the file that describes its server (None: the command line)."""
    from hookconf.config import load_config, parse_config

    if args.from_file is not None:
        if args.target:
            raise ConfigError("--from names the servers already; give no TARGET with it")
        from hookconf.client_config import servers_in

        servers = servers_in(args.from_file)
        if args.server_name is not None and args.server_name not in servers:
            raise ConfigError(f"--server {args.server_name}: not in {args.from_file}; it has {', '.join(servers)}")
        chosen = [args.server_name] if args.server_name is not None else list(servers)
        return [
            (
                _with_overrides(parse_config({"server": servers[name]}, source=f"{args.from_file}: {name}"), args),
                _shown_path(args.from_file),
            )
            for name in chosen
        ]
    if len(args.target) == 1 and not _is_url(args.target[0]) and not args.env and args.env_file is None:
        path = Path(args.target[0])
        if path.suffix == ".json" or (path.is_file() and not os.access(path, os.X_OK)):  # a program is a command
            return [(_with_overrides(load_config(path), args), _shown_path(path))]
    if not args.target:
        raise ConfigError(
            f"name the server: a config file (hookconf init writes {DEFAULT_CONFIG_NAME}), its URL, "
            "or -- COMMAND ARGS... to start it"
        )
    from hookconf.command_line_server import server_table

    table = server_table(args.target, env=args.env, env_file=args.env_file, cwd=args.cwd, name=args.server_name)
    return [(_with_overrides(parse_config({"server": table}, source="the command line"), args), None)]


def _is_url(text: str) -> bool:
    from hookconf.command_line_server import is_url

    return is_url([text])


def _shown_path(path: Path) -> str:
    """The path as the report gives it: relative to here when it is under here (stable across machines)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _audit_once(config: AuditConfig, args: argparse.Namespace, started: float, label: str | None) -> Report:
    from hookconf.engine.server import spawned_server
    from hookconf.wire.sandbox import audit_sandbox

    with audit_sandbox(config.server, keep=args.keep_workdir) as sandbox:
        if sandbox is not None:
            config = sandbox.applied(config)
        # Servers take 0.3-1.2 s to boot: spawn it first, so that it boots while the audit stack imports.
        with spawned_server(config.server) as process:
            report = _audit(config, args, process, sandbox, started)
    if sandbox is not None and args.keep_workdir:
        print(f"hookconf: the server's sandbox is kept at {sandbox.root}", file=sys.stderr)
    if args.tool is not None and not report.tools:
        raise ConfigError(f"--tool {args.tool}: the server has no such tool (or toolFilter excludes it)")
    return report.model_copy(update={"config": label}) if label is not None else report


def _write_outputs(report: Report, args: argparse.Namespace, several: bool = False) -> None:
    from hookconf.report.formats import render, wants_colour

    if several and args.output == OutputFormat("human"):
        emit(f"== {report.server.name}\n")
    emit(render(report, args.output, colour=wants_colour(sys.stdout)))
    for output, path in args.report:
        try:
            path.write_text(render(report, output), encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--report {output}={path}: cannot write it ({exc.strerror})") from None
    if args.badge is not None:
        from hookconf.report.badge import write_badge

        write_badge(report, args.badge)


def _watch(args: argparse.Namespace) -> int:
    from hookconf.report.formats import render, wants_colour
    from hookconf.watch import Watcher

    def audit() -> Report:
        config, label = _check_targets(args)[0]  # read again each time: a saved config change is a change too
        return _audit_once(config, args, time.monotonic(), label)

    colour = wants_colour(sys.stdout)
    watcher = Watcher(
        root=args.watch,
        audit=audit,
        show=lambda text: emit(text if text.endswith("\n") else text + "\n"),
        render=lambda report: render(report, args.output, colour=colour),
    )
    try:
        watcher.run()
    except KeyboardInterrupt:
        return EXIT_OK
    return EXIT_OK


def _report_output(value: str) -> tuple[StrEnum, Path]:
    name, sep, path = value.partition("=")
    if not sep or not path:
        raise argparse.ArgumentTypeError(f"{value!r}: write it as FORMAT=PATH, e.g. sarif=hookconf.sarif")
    try:
        return OutputFormat(name), Path(path)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{name!r} is no format; the formats: {', '.join(map(str, OutputFormat))}"
        ) from None


def _audit(
    config: AuditConfig,
    args: argparse.Namespace,
    process: ServerProcess | None,
    sandbox: Sandbox | None,
    started: float,
) -> Report:
    from hookconf.api import AuditOptions, run

    suites = tuple(args.suite) if args.suite else ALL_SUITES
    options = AuditOptions(suites, args.tool, tuple(args.only), tuple(args.skip), args.profile == "lighthouse")
    listener = _listener(args)
    startup_done()
    return run(config, options, sandbox=sandbox, process=process, listener=listener, started=started)


def _listener(args: argparse.Namespace) -> Listener | None:
    """-v: every verdict on stderr; else, on a terminal, a status line once an audit takes longer than 2 s."""
    from hookconf.report.formats import wants_colour

    if args.verbose:
        from hookconf.report.verdict_lines import VerdictPrinter

        return VerdictPrinter(sys.stderr, colour=wants_colour(sys.stderr))
    if sys.stderr.isatty() and os.environ.get("TERM") != "dumb":
        from hookconf.report.progress_line import ProgressLine

        return ProgressLine(sys.stderr)
    return None


def _exit_code(report: Report, args: argparse.Namespace) -> int:
    from hookconf.report.baseline import has_stale_entries, unexpected_failures

    failures = unexpected_failures(report)  # without a --baseline: every FAIL
    if has_stale_entries(report) or any(r.suite != COMPLIANCE_SUITE for r in failures):
        return EXIT_FAILURES
    compliance = report.compliance
    if compliance is not None and args.strict and any(r.required and r.graded for r in failures):
        return EXIT_FAILURES
    if compliance is not None and args.min_grade and GRADES.index(compliance.grade) > GRADES.index(args.min_grade):
        return EXIT_FAILURES
    return EXIT_OK


def _with_overrides(config: AuditConfig, args: argparse.Namespace) -> AuditConfig:
    """--tries, --budget, --timeout, --auth, -H and --spec-version change the config and are validated like it."""
    if (
        args.tries is None
        and args.budget is None
        and args.timeout is None
        and args.auth is None
        and not args.header
        and args.spec_version is None
    ):
        return config
    from hookconf.config import parse_config

    data = config.model_dump(by_alias=True, exclude_none=True)
    if args.tries is not None:
        data["tries"] = args.tries
    if args.budget is not None:
        data["budgetS"] = args.budget
    if args.timeout is not None:
        data["timeoutMs"] = args.timeout
    if args.spec_version is not None:
        data["specVersion"] = args.spec_version
    from hookconf.command_line_server import parse_headers

    headers = {**(data["server"].get("headers") or {}), **parse_headers(args.header)}
    if args.auth is not None:
        headers["Authorization"] = args.auth
    data["server"]["headers"] = headers
    return parse_config(data, source="command line", expanded=True)


def run_init(args: argparse.Namespace) -> int:
    from hookconf.config import example_config

    path = Path.cwd() / DEFAULT_CONFIG_NAME
    if path.exists() and not args.force:
        raise ConfigError(f"{path} already exists; pass --force to overwrite it")
    if not args.target:
        path.write_text(json.dumps(example_config(args.server_name or "my-mcp-server"), indent=2) + "\n", "utf-8")
        emit(
            f"wrote {path}; set server.command and args to what starts your server, then: hookconf check {path.name}\n"
        )
        return EXIT_OK
    from hookconf.command_line_server import server_table
    from hookconf.init import config_from_server

    server = server_table(
        args.target, env=args.env, env_file=args.env_file, cwd=args.cwd, headers=args.header, name=args.server_name
    )
    config, summary = config_from_server(server)
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    emit(f"wrote {path}: {summary}; next: hookconf check {path.name}\n")
    return EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    from hookconf.explain import explanation

    lines = explanation(args.code)
    if lines is None:
        raise ConfigError(f"unknown finding code or check id {args.code!r}; 'hookconf list' shows them all")
    emit_lines(lines)
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from hookconf.checks import FINDINGS, SUITES
    from hookconf.checks.compliance import CHECKS
    from hookconf.explain import required_text
    from hookconf.protocol import Era

    lines = [f"{'CODE':<11}{'SUITE':<14}{'SEVERITY':<15}{'WEIGHT':<8}TITLE"]
    for finding in sorted(FINDINGS.values(), key=lambda f: (f.suite == "*", f.suite, f.code)):
        suite = SUITES.get(finding.suite)
        weight = str(suite.weight) if suite else "-"
        lines.append(f"{finding.code:<11}{finding.suite:<14}{finding.severity.upper():<15}{weight:<8}{finding.title}")
    lines += ["", f"{'CHECK':<45}{'CATEGORY':<11}{'REQUIRED':<10}{'ERAS':<11}TITLE"]
    for check in sorted(CHECKS.values(), key=lambda c: (c.category, c.id)):
        required = required_text(check, "yes", "no") if check.graded else "-"
        eras = (
            "both"
            if len(check.revisions) > len(STATELESS_REVISIONS) and STATELESS_REVISIONS[0] in check.revisions
            else (Era.STATELESS if check.revisions == Era.STATELESS.revisions else Era.HANDSHAKE)
        )
        lines.append(f"{check.id:<45}{check.category:<11}{required:<10}{eras:<11}{check.title}")
    lines.append("REQUIRED a/b: a in the handshake revisions, b in 2026-07-28; ERAS: where the check applies")
    emit_lines(lines)
    return EXIT_OK


def run_mcp(args: argparse.Namespace) -> int:
    from hookconf.mcp_server import serve

    serve()
    return EXIT_OK


def run_version_info(args: argparse.Namespace) -> int:
    revisions = ", ".join(HANDSHAKE_REVISIONS)
    emit_lines(
        [
            f"hookconf {__version__}",
            f"MCP revisions spoken: {revisions} (initialize handshake; offers {HANDSHAKE_REVISIONS[-1]}); "
            f"{', '.join(STATELESS_REVISIONS)} (stateless, server/discover); --spec-version auto probes which one",
        ]
    )
    return EXIT_OK
