"""Sessions: `tests`, `lint`, `audit_all` (the default fleet, targets/reference.toml), `corpus` (the
corpus of real servers, targets/corpus.toml, and its verdict ledger), `report`, `speed` (hookconf's wall
time beside mcp-lighthouse and a raw client on both fleets, bench/speed.py), and one per server
version of targets/*.toml (named SERVER@VERSION, tagged SERVER: `nox -t server-memory`). Every session
installs what it needs into its own uv venv; the fleet sessions share .hookconf-cache/, the default
fleet's store is reports/hookconf.sqlite and the corpus has its own, reports/corpus.sqlite."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["tests", "lint"]

PYTHON = "3.11"
TARGETS = Path(__file__).parent / "targets"
DEFAULT_FLEET = TARGETS / "reference.toml"
CORPUS = TARGETS / "corpus.toml"
CORPUS_STORE = "reports/corpus.sqlite"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run the test suite against real fixture servers."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff (lint and format) and mypy, strict."""
    session.install("-e", ".[lint]")
    session.run("ruff", "format", "--check", "hookconf", "tests", "bench", "noxfile.py")
    session.run("ruff", "check", "hookconf", "tests", "bench", "noxfile.py")
    session.run("mypy")


@nox.session(python=PYTHON, default=False)
def audit_all(session: nox.Session) -> None:
    """Install and audit every server version of the default fleet (or the manifests after --), then report."""
    session.install("-e", ".[fleet]")
    manifests = session.posargs or [str(DEFAULT_FLEET)]
    # Exit 1 only says that some target could not be installed or started; the report shows which.
    session.run("hookconf", "fleet", "run", *manifests, success_codes=[0, 1])
    session.run("hookconf", "fleet", "report")


@nox.session(python=PYTHON, default=False)
def corpus(session: nox.Session) -> None:
    """Audit the corpus of real servers into reports/corpus.sqlite and print the verdict ledger's status.

    Arguments after -- go to `hookconf fleet run` (e.g. `--force` after a change to the checks)."""
    session.install("-e", ".[fleet]")
    session.run(
        "hookconf", "fleet", "run", str(CORPUS), "--store", CORPUS_STORE, *session.posargs, success_codes=[0, 1]
    )
    session.run("python", "bench/ledger.py", "--store", CORPUS_STORE)


@nox.session(python=PYTHON, default=False)
def report(session: nox.Session) -> None:
    """Tables of the stored audits: reports/scores.md, regressions.md, ecosystem.md, results.parquet, report.html."""
    session.install("-e", ".[fleet]")
    session.run("hookconf", "fleet", "report", *session.posargs)


@nox.session(python=PYTHON, default=False)
def speed(session: nox.Session) -> None:
    """hookconf beside mcp-lighthouse 0.4.0 and the floor on every target of both fleets, and issue 15's targets.

    Arguments after -- go to bench/speed.py (e.g. `--rounds 1 --only server-memory --json speed.json`)."""
    session.install("-e", ".[fleet]")
    session.run("python", "bench/speed.py", *session.posargs)


def _manifests() -> list[Path]:
    return sorted(TARGETS.glob("*.toml"))


def _declared_targets(manifest: Path) -> list[tuple[str, str]]:
    """(server, version) as the manifest lists them; `latest:N` stays as it is, hookconf resolves it."""
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []  # audit_all reports the broken manifest; sessions come from the good ones
    servers = data.get("servers")
    if not isinstance(servers, list):
        return []
    return [
        (str(server.get("name")), str(version))
        for server in servers
        if isinstance(server, dict)
        for version in (server.get("versions") or [])
    ]


def _audit_one(manifest: Path, server: str, version: str) -> Callable[[nox.Session], None]:
    def audit(session: nox.Session) -> None:
        session.install("-e", ".[fleet]")
        store = ["--store", CORPUS_STORE] if manifest == CORPUS else []
        session.run(
            "hookconf",
            "fleet",
            "run",
            str(manifest),
            "--server",
            server,
            "--version",
            version,
            *store,
            *session.posargs,
            success_codes=[0, 1],
        )

    audit.__doc__ = f"Audit {server} {version} from targets/{manifest.name}."
    return audit


for _manifest in _manifests():
    for _server, _version in _declared_targets(_manifest):
        register = nox.session(python=PYTHON, name=f"{_server}@{_version}", tags=[_server], default=False)
        register(_audit_one(_manifest, _server, _version))
