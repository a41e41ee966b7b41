"""A pytest plugin: `pytest --hookconf CONFIG` audits the server once and makes each verdict a test.

Each compliance check becomes a test named after its id, each hook suite a test per tool; a FAIL fails it, a WARN
passes it with a warning, a skip or an indeterminate verdict skips it with the reason, advice passes. The tests carry
the markers `hookconf`, their suite (`idempotency`, `side_effects`, ..., `compliance`) and, for compliance checks,
their category (`lifecycle`, `security`, ...), so `-m "hookconf and not security"` selects among them. The
`hookconf_report` fixture gives a test the whole Report of the first --hookconf config.

Registered through the `pytest11` entry point; loading it only adds the options, nothing of the audit stack.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from hookconf import ALL_SUITES

if TYPE_CHECKING:
    from hookconf.report.model import Report, ResultEntry

MARKER = "hookconf"


class HookconfWarning(UserWarning):
    """A check that warned: the server breaks a SHOULD of the spec, or a hook suite's rule it may keep."""


class CheckFailedError(Exception):
    """A check that failed; its message is the verdict's details."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hookconf", "hookconf: audit an MCP server, each verdict a test")
    group.addoption(
        "--hookconf",
        action="append",
        default=[],
        metavar="CONFIG",
        help="audit the server this hookconf config describes and add a test per check (repeatable)",
    )
    group.addoption(
        "--hookconf-suite",
        action="append",
        default=[],
        choices=ALL_SUITES,
        help="run only these suites (repeatable; default: all)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a verdict of hookconf's audit of an MCP server")
    if not config.getoption("hookconf"):
        return  # no audit in this run: its markers would only clutter `pytest --markers`
    from hookconf.checks.compliance.catalog import Category

    for name in (*ALL_SUITES, *Category):
        config.addinivalue_line("markers", f"{marker_name(name)}: hookconf's {name} verdicts")


def marker_name(name: str) -> str:
    return name.replace("-", "_")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    for path in config.getoption("hookconf"):
        collector = AuditedServer.from_parent(session, path=Path(path).resolve())
        items.extend(session.genitems(collector))


class AuditedServer(pytest.File):
    """A hookconf config, collected as the verdicts of its audit (the audit runs when it is collected)."""

    def collect(self) -> Iterator[pytest.Item]:
        from hookconf.errors import HookconfError

        try:
            report = audited(self.config, self.path)
        except HookconfError as exc:  # a bad config, a server that does not start: the message says what to do
            raise self.CollectError(f"hookconf: {exc}") from None
        named: set[str] = set()
        for entry in report.results:
            name = f"{entry.suite}::{entry.id or entry.tool}"
            if name in named:  # a tool's second verdict in one suite: a finding of its own (CALL-003, SCHEMA-001)
                name = f"{name}::{entry.code}"
            named.add(name)
            yield Verdict.from_parent(self, name=name, entry=entry)


class Verdict(pytest.Item):
    def __init__(self, *, entry: ResultEntry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.add_marker(MARKER)
        self.add_marker(marker_name(entry.suite))
        if entry.category:
            self.add_marker(marker_name(entry.category))

    def runtest(self) -> None:
        status, details = self.entry.status, self.entry.details
        if status == "fail":
            raise CheckFailedError(f"{self.entry.code or self.entry.id}: {details}" if self.entry.code else details)
        if status == "warn":
            warnings.warn(HookconfWarning(details), stacklevel=1)
        elif status in ("skip", "indeterminate"):
            pytest.skip(f"{status}: {details}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CheckFailedError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


def audited(config: pytest.Config, path: Path) -> Report:
    """The report of the config's audit, made once per test session."""
    cache: dict[Path, Report] = config.stash.setdefault(REPORTS, {})
    if path not in cache:
        from hookconf.api import audit

        cache[path] = audit(path, suites=tuple(config.getoption("hookconf_suite")) or ALL_SUITES)
    return cache[path]


REPORTS = pytest.StashKey[dict[Path, "Report"]]()


@pytest.fixture(scope="session")
def hookconf_report(pytestconfig: pytest.Config) -> Report:
    """The Report of the first --hookconf config's audit."""
    from hookconf.errors import HookconfError

    paths = pytestconfig.getoption("hookconf")
    if not paths:
        pytest.skip("no --hookconf CONFIG given")
    try:
        return audited(pytestconfig, Path(paths[0]).resolve())
    except HookconfError as exc:
        pytest.fail(f"hookconf: {exc}", pytrace=False)
