"""`hookconf fleet run`, `report` and `discover`; light at import, the work is imported per command."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hookconf.fleet.executors import DEFAULT as DEFAULT_EXECUTOR
from hookconf.fleet.executors import executor_names

if TYPE_CHECKING:
    from hookconf.fleet.execute import FleetRun

DEFAULT_STORE = Path("reports") / "hookconf.sqlite"
DEFAULT_CACHE = Path(".hookconf-cache")
DEFAULT_OUT = Path("reports")
EXIT_OK = 0
EXIT_FAILURES = 1


def add_fleet_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fleet = commands.add_parser("fleet", help="audit many servers and versions; compare them in tables")
    actions = fleet.add_subparsers(title="fleet commands", required=True, metavar="ACTION")
    _add_run(actions)
    _add_report(actions)
    _add_import(actions)
    _add_discover(actions)


def _add_run(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = actions.add_parser("run", help="install and audit every server version the manifests list")
    run.add_argument("manifests", nargs="+", type=Path, metavar="MANIFEST", help="fleet manifest (TOML)")
    run.add_argument("--jobs", "-j", type=_positive, help="audits at once (default: the number of cores)")
    run.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"SQLite history (default {DEFAULT_STORE})")
    run.add_argument("--force", action="store_true", help="audit again what the store already has")
    run.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        help=f"where installs are kept between runs (default {DEFAULT_CACHE})",
    )
    run.add_argument("--server", action="append", default=[], metavar="NAME", help="only this server (repeatable)")
    run.add_argument(
        "--version",
        dest="only_version",
        metavar="VERSION",
        help="only this version (as listed in the manifest, or as 'latest:N' resolved it)",
    )
    run.add_argument(
        "--keep-workdir",
        action="store_true",
        help="keep each audit's workdir and sandbox (the server's HOME and TMPDIR); the summary says where",
    )
    run.add_argument(
        "--executor",
        choices=executor_names(),
        default=DEFAULT_EXECUTOR,
        help="local process pool (default) or a dask.distributed cluster (the dask extra)",
    )
    run.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --executor dask: the scheduler to connect to (default: a local cluster)",
    )
    run.set_defaults(command=run_fleet_command)


def _add_report(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    report = actions.add_parser("report", help="tables of the stored audits: terminal, Markdown, CSV, HTML")
    report.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"SQLite history (default {DEFAULT_STORE})")
    report.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"directory for scores.md, regressions.md, ecosystem.md, results.parquet (results.csv without "
        f"pyarrow) and report.html (default {DEFAULT_OUT})",
    )
    report.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME",
        help="also print every stored version of this server (repeatable)",
    )
    report.set_defaults(command=run_report_command)


def _add_import(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    merge = actions.add_parser(
        "import", help="merge other stores and JSON reports (hookconf check --json) into the store"
    )
    merge.add_argument("sources", nargs="+", type=Path, metavar="SOURCE", help="a store (.sqlite) or a JSON report")
    merge.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"SQLite history (default {DEFAULT_STORE})")
    merge.set_defaults(command=run_import_command)


def _add_discover(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    discover = actions.add_parser(
        "discover",
        help="write a manifest from the MCP Registry, server.json files, or npm and PyPI package names",
    )
    sources = discover.add_argument_group("where servers come from (at least one)")
    sources.add_argument(
        "--registry", metavar="URL", help="an MCP Registry, e.g. https://registry.modelcontextprotocol.io"
    )
    sources.add_argument(
        "--export",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="a server.json file, a JSON list of them or a saved registry page, or a directory of such files",
    )
    sources.add_argument("--npm", nargs="+", action="extend", default=[], metavar="NAME", help="npm packages")
    sources.add_argument("--pypi", nargs="+", action="extend", default=[], metavar="NAME", help="PyPI packages")
    filters = discover.add_argument_group("filters")
    filters.add_argument(
        "--type",
        dest="types",
        action="append",
        default=[],
        choices=["npm", "pypi", "oci", "nuget", "mcpb", "remote"],
        help="keep servers with a package of this registry type, or a remote (repeatable; default: all)",
    )
    filters.add_argument(
        "--name",
        dest="name_patterns",
        action="append",
        default=[],
        metavar="PATTERN",
        help="keep registry names matching this glob, e.g. 'io.github.acme/*' (repeatable)",
    )
    filters.add_argument("--search", metavar="TEXT", help="the registry's own name search")
    filters.add_argument("--updated-since", metavar="TIME", help="registry servers updated since (RFC 3339)")
    filters.add_argument(
        "--latest",
        type=_positive,
        default=1,
        metavar="N",
        help="versions per server: the N newest the registry lists, or latest:N for --npm/--pypi (default 1)",
    )
    discover.add_argument("--fleet", default="discovered", metavar="NAME", help="the manifest's fleet name")
    discover.add_argument("--output", "-o", type=Path, metavar="MANIFEST", help="where to write (default: stdout)")
    discover.add_argument("--force", action="store_true", help="replace an existing --output file")
    discover.set_defaults(command=run_discover_command)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run_fleet_command(args: argparse.Namespace) -> int:
    from hookconf.fleet.errors import ManifestError
    from hookconf.fleet.execute import default_jobs, run_fleet
    from hookconf.fleet.executors import make_executor
    from hookconf.fleet.manifest import load_targets
    from hookconf.fleet.progress import make_progress
    from hookconf.fleet.store import FleetStore

    targets = load_targets(args.manifests, servers=args.server, version=args.only_version)
    if not targets:
        raise ManifestError(
            f"--version {args.only_version}: no such version of the chosen servers in the "
            "manifests; use a version as listed (or as 'latest:N' resolves it)"
        )
    jobs = args.jobs or default_jobs()
    with FleetStore(args.store) as store, make_executor(args.executor, jobs, args.scheduler) as pool:
        run = run_fleet(
            targets,
            store,
            pool,
            args.cache,
            make_progress(sys.stderr),
            force=args.force,
            keep_workdir=args.keep_workdir,
        )
    _print_summary(run, args.store)
    return EXIT_FAILURES if run.failed or run.lost else EXIT_OK


def _print_summary(run: FleetRun, store: Path) -> None:
    from hookconf.console import emit_lines
    from hookconf.safe_text import safe_text

    audited = len(run.outcomes) - len(run.failed)
    parts = [f"{audited} audited", f"{len(run.failed)} failed", f"{run.skipped} skipped (already stored)"]
    if run.lost:
        parts.append(f"{run.lost} lost (a worker died; run again to audit them)")
    lines = [f"fleet: {', '.join(parts)}; stored in {store}"]
    for outcome in run.failed:  # the message may quote the server's stderr
        message = safe_text(" ".join((outcome.message or "").split()))
        lines.append(f"  {outcome.server} {outcome.version}: {outcome.kind}: {message}")
    lines.extend(
        f"  kept for {outcome.server} {outcome.version}: {', '.join(outcome.kept)}"
        for outcome in run.outcomes
        if outcome.kept
    )
    if run.outcomes or run.skipped:
        lines.append(f"tables: hookconf fleet report --store {store}")
    emit_lines(lines)


def run_report_command(args: argparse.Namespace) -> int:
    from hookconf.console import emit
    from hookconf.fleet.render import write_report

    for line in write_report(args.store, args.out, args.server):
        emit(f"{line}\n")
    return EXIT_OK


def run_import_command(args: argparse.Namespace) -> int:
    from hookconf.console import emit_lines
    from hookconf.fleet.merge import import_sources
    from hookconf.fleet.store import FleetStore
    from hookconf.safe_text import safe_text

    with FleetStore(args.store) as store:
        imported = import_sources(store, args.sources)
        total = store.count()
    lines = [f"{safe_text(str(i.source))}: {i.added} added, {i.already_stored} already stored" for i in imported]
    emit_lines([*lines, f"{args.store} holds {total} audits; tables: hookconf fleet report --store {args.store}"])
    return EXIT_OK


def run_discover_command(args: argparse.Namespace) -> int:
    from hookconf.fleet.discover import (
        Options,
        discover,
        fetch_registry,
        read_export,
        render_manifest,
        report_lines,
        write_manifest,
    )
    from hookconf.fleet.errors import DiscoverError, DiscoverInputError
    from hookconf.safe_text import safe_text

    if not (args.registry or args.export or args.npm or args.pypi):
        raise DiscoverInputError("name a source: --registry URL, --export PATH, --npm NAME... or --pypi NAME...")
    listed = []
    if args.registry:
        listed += fetch_registry(
            args.registry, search=args.search, updated_since=args.updated_since, latest_only=args.latest == 1
        )
    for path in args.export:
        listed += read_export(path)
    options = Options(types=tuple(args.types), name_patterns=tuple(args.name_patterns), latest=args.latest)
    found = discover(listed, options, npm=args.npm, pypi=args.pypi)
    lines = report_lines(found, str(args.output or "stdout"))
    if not found.servers:
        for line in lines[:-1]:
            print(safe_text(line), file=sys.stderr)
        raise DiscoverError(
            f"no auditable server among the {len(listed)} listed server versions; widen the filters "
            "(--type, --name, --search) or add --npm/--pypi names"
        )
    write_manifest(render_manifest(found, args.fleet), args.output, force=args.force)
    for line in lines:  # registry text: shown safely
        print(safe_text(line), file=sys.stderr)
    return EXIT_OK
