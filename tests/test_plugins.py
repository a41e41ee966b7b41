"""A format or an executor is one module of its package: found by listing the package, imported only when chosen."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hookconf.fleet.executors import executor_names, make_executor
from hookconf.plugins import module_names
from hookconf.report.formats import ORDER, OutputFormat, format_names
from tests.test_fleet_tables import report
from tests.test_layers import loaded_after

FORMATS_DIR = Path(__file__).resolve().parent.parent / "hookconf" / "report" / "formats"

# A format dropped next to the others: `render` and nothing else, as CONTRIBUTING.md says.
TSV_FORMAT = """
from hookconf.report.model import Report


def render(report: Report, *, colour: bool = False) -> str:
    return "\\n".join(f"{tool.name}\\t{tool.calls}" for tool in report.tools)
"""

# In a fresh interpreter: the formats package with a second directory on its path holding tsv.py, then the
# CLI's parser and the renderer, which know nothing of tsv but what the package lists.
WITH_EXTRA_FORMAT = """
import importlib.util, json, sys
import hookconf.report
spec = importlib.util.spec_from_file_location(
    "hookconf.report.formats", {init!r}, submodule_search_locations=[{formats!r}, {extra!r}]
)
formats = importlib.util.module_from_spec(spec)
sys.modules["hookconf.report.formats"] = formats
spec.loader.exec_module(formats)
from hookconf.cli import build_parser
from hookconf.report.model import Report
args = build_parser().parse_args(["check", "config.json", "--output", "tsv"])
rendered = formats.render(Report.model_validate_json(sys.stdin.read()), args.output)
print(json.dumps({{"names": formats.format_names(), "output": str(args.output), "rendered": rendered}}))
"""


def test_module_names_lists_public_modules_first_in_order_then_by_name(tmp_path: Path) -> None:
    for name in ("zeta", "alpha", "human", "json", "_private"):
        (tmp_path / f"{name}.py").write_text("raise ImportError('listing must not import me')\n", encoding="utf-8")
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "__init__.py").write_text("", encoding="utf-8")
    assert module_names([str(tmp_path)], ("json", "human", "absent")) == ["json", "human", "alpha", "zeta"]


def test_the_known_formats_and_executors_keep_their_order() -> None:
    # a new format or executor comes after these, so their order in --help and the choices stays as it was
    assert format_names()[:7] == ["human", "json", "junit", "sarif", "github", "markdown", "html"]
    assert [member.value for member in OutputFormat] == format_names()
    assert executor_names()[:2] == ["local", "dask"]


def test_a_format_dropped_into_the_package_is_an_output_choice_and_renders(tmp_path: Path) -> None:
    (tmp_path / "tsv.py").write_text(TSV_FORMAT, encoding="utf-8")
    probe = WITH_EXTRA_FORMAT.format(
        init=str(FORMATS_DIR / "__init__.py"), formats=str(FORMATS_DIR), extra=str(tmp_path)
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe],
        check=False,
        input=report(["search", "fetch"]),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout)
    assert found["names"] == [*ORDER, "tsv"]
    assert found["output"] == "tsv"
    assert found["rendered"] == "search\t0\nfetch\t0"


@pytest.mark.parametrize("command", ["--help", "check --help", "fleet run --help"])
def test_help_imports_no_format_and_no_executor(command: str) -> None:
    code = f"from hookconf.cli import main\ntry:\n    main({command.split()!r})\nexcept SystemExit:\n    pass\n"
    plugins = tuple(f"hookconf.report.formats.{name}" for name in format_names())
    plugins += tuple(f"hookconf.fleet.executors.{name}" for name in executor_names())
    assert loaded_after(code, (*plugins, "distributed", "hookconf.report.text")) == []


def test_an_unknown_executor_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown executor 'nope'; known: local, dask"):
        make_executor("nope", 1)
