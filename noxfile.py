"""Sessions: `tests` and `lint`. Every session installs what it needs into its own uv venv."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["tests", "lint"]

PYTHON = "3.11"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run the test suite against real fixture servers."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff and mypy, strict."""
    session.install("-e", ".[lint]")
    session.run("ruff", "check", "hookconf", "tests", "bench", "noxfile.py")
    session.run("mypy")
