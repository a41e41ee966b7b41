"""The commands that need no server: init, explain, list, version-info, and config errors (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hookconf.checks import FINDINGS
from hookconf.config import AuditConfig, Thresholds, example_config, load_config, parse_config
from tests.support import CliRun, stdio_server

SEED_CODES = [
    "IDEMP-001",
    "IDEMP-002",
    "IDEMP-003",
    "SIDE-001",
    "SIDE-002",
    "LAT-001",
    "LAT-002",
    "DET-001",
    "DET-002",
    "DSGVO-001",
    "DSGVO-002",
]


def test_version_info_names_the_revisions(run_cli: Callable[..., CliRun]) -> None:
    for command in ("version-info", "version"):
        run = run_cli(command)
        assert run.exit_code == 0
        assert run.stdout.startswith("hookconf 0.1.0")
        assert "2024-11-05" in run.stdout
        assert "2025-11-25" in run.stdout


def test_list_shows_every_seed_code_with_suite_and_weight(run_cli: Callable[..., CliRun]) -> None:
    run = run_cli("list")
    assert run.exit_code == 0
    findings, checks = run.stdout.split("\n\n")
    rows = {line.split()[0]: line.split() for line in findings.splitlines()[1:]}
    check_rows = {line.split()[0]: line.split() for line in checks.splitlines()[1:]}
    assert check_rows["lifecycle-init"][1:3] == ["lifecycle", "yes"]
    assert check_rows["security-rate-limiting"][1:3] == ["security", "no"]
    assert check_rows["bp-description-length"][1:3] == ["practices", "-"]
    assert set(SEED_CODES) <= set(rows)
    assert rows["IDEMP-001"][1:4] == ["idempotency", "FAIL", "30"]
    assert rows["SIDE-002"][1:4] == ["side-effects", "INDETERMINATE", "25"]
    assert rows["DSGVO-002"][1:4] == ["dsgvo", "WARN", "10"]


@pytest.mark.parametrize("code", sorted(FINDINGS))
def test_explain_every_code(run_cli: Callable[..., CliRun], code: str) -> None:
    run = run_cli("explain", code.lower())
    assert run.exit_code == 0
    assert run.stdout.startswith(code)
    assert "How to fix:" in run.stdout
    assert FINDINGS[code].remediation in run.stdout


def test_explain_unknown_code_lists_the_known_ones(run_cli: Callable[..., CliRun]) -> None:
    run = run_cli("explain", "NOPE-1")
    assert run.exit_code == 2
    assert "unknown finding code or check id 'NOPE-1'" in run.stderr
    assert "hookconf list" in run.stderr


def test_init_writes_a_config_that_validates(
    run_cli: Callable[..., CliRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_cli("init", "--server-name", "notes-server")
    assert run.exit_code == 0
    config = load_config(tmp_path / "hook-conformance.config.json")
    assert config.server.name == "notes-server"
    again = run_cli("init")
    assert again.exit_code == 2
    assert "--force" in again.stderr
    assert run_cli("init", "--force", "--server-name", "other").exit_code == 0
    assert load_config(tmp_path / "hook-conformance.config.json").server.name == "other"


def test_init_writes_the_defaults_the_config_model_declares(monkeypatch: pytest.MonkeyPatch) -> None:
    written = example_config("notes-server")
    assert parse_config(written).model_dump(exclude={"probes"}) == parse_config(
        {"server": written["server"]}
    ).model_dump(exclude={"probes"})
    # a default changed on the model is what init writes: the model is the one place it is declared
    monkeypatch.setattr(AuditConfig.model_fields["tries"], "default", 7)
    monkeypatch.setattr(Thresholds.model_fields["series_time_ms"], "default", 9000)
    changed = example_config("notes-server")
    assert (changed["tries"], changed["thresholds"]["seriesTimeMs"]) == (7, 9000)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"server": {"name": "x", "transport": "smoke", "command": "true"}}, "server.transport"),
        ({"server": {"name": "x"}}, "needs 'command'"),
        ({"server": {"name": "x", "transport": "http"}}, "needs 'url'"),
        ({"server": {"name": "x", "command": "true"}, "suites": ["idempotency", "speed"]}, "unknown suite 'speed'"),
        ({"server": {"name": "x", "command": "true"}, "tries": 1}, "tries: Input should be greater than or equal to 2"),
        (
            {"server": {"name": "x", "command": "true"}, "thresholds": {"latencyP95Ms": "fast"}},
            "thresholds.latencyP95Ms",
        ),
        ({"server": {"name": "x", "command": "true"}, "probes": [{"args": {}}]}, "probes.0.name: Field required"),
        ({"server": {"name": "x", "command": "true"}, "tryes": 3}, "tryes: unknown key"),
        (
            {"server": {"name": "x", "command": "true", "env": {"KEY": "${HOOKCONF_TEST_NEVER_SET}"}}},
            "server.env: KEY: ${HOOKCONF_TEST_NEVER_SET} is not set in the environment",
        ),
    ],
)
def test_bad_config_exits_2_naming_the_field(
    run_cli: Callable[..., CliRun], tmp_path: Path, settings: dict[str, object], expected: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(settings), encoding="utf-8")
    run = run_cli("check", str(path))
    assert run.exit_code == 2
    assert expected in run.stderr
    assert "Traceback" not in run.stderr


def test_overrides_keep_an_escaped_variable_reference_as_text(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    server = {**stdio_server("good_server.py"), "env": {"LITERAL": "$${HOOKCONF_TEST_NEVER_SET}"}}
    run = run_cli("check", str(write_config(server)), "--tries", "2", "--suite", "dsgvo", "--output", "json")
    assert run.exit_code in (0, 1), run.stderr
    assert run.json()["tools"]


def test_missing_and_malformed_config_files(run_cli: Callable[..., CliRun], tmp_path: Path) -> None:
    missing = run_cli("check", str(tmp_path / "absent.json"))
    assert missing.exit_code == 2
    assert "not found" in missing.stderr
    assert "hookconf init" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"server": {"name": "x",}', encoding="utf-8")
    malformed = run_cli("check", str(broken))
    assert malformed.exit_code == 2
    assert "not valid JSON (line 1" in malformed.stderr


def test_tries_flag_is_validated_like_the_config(
    run_cli: Callable[..., CliRun], write_config: Callable[..., Path]
) -> None:
    path = write_config(stdio_server("good_server.py"))
    run = run_cli("check", str(path), "--tries", "99")
    assert run.exit_code == 2
    assert "tries: Input should be less than or equal to 50" in run.stderr


def test_unknown_suite_flag_exits_2(run_cli: Callable[..., CliRun], write_config: Callable[..., Path]) -> None:
    path = write_config(stdio_server("good_server.py"))
    with pytest.raises(SystemExit) as exit_info:
        run_cli("check", str(path), "--suite", "speed")
    assert exit_info.value.code == 2


def test_module_entry_point_and_help_run_without_the_audit_stack() -> None:
    probe = (
        "import sys, runpy; sys.argv = ['hookconf', '--help']\n"
        "try:\n    runpy.run_module('hookconf', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = ('pandas', 'mcp_types._v2025_11_25', 'hookconf.session', 'mcp')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert "check" in completed.stdout
    assert "explain" in completed.stdout
    assert "HEAVY []" in completed.stdout


QUICK_EXIT = """
import atexit, sys, threading, time
from pathlib import Path
from hookconf.cli import exit_now
marker = Path(sys.argv[1])
atexit.register(lambda: marker.with_suffix('.atexit').write_text('ran'))
if sys.argv[2] == 'worker':
    threading.Thread(target=lambda: (time.sleep(0.3), marker.write_text('done'))).start()
sys.stdout.write('buffered output')
exit_now(3)
"""


@pytest.mark.parametrize("left_running", ["nothing", "worker"])
def test_the_quick_exit_flushes_runs_exit_handlers_and_waits_for_a_working_thread(
    tmp_path: Path, left_running: str
) -> None:
    marker = tmp_path / "worker.txt"
    completed = subprocess.run(
        [sys.executable, "-c", QUICK_EXIT, str(marker), left_running],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 3
    assert completed.stdout == "buffered output"
    assert marker.with_suffix(".atexit").read_text() == "ran"
    assert marker.exists() == (left_running == "worker")  # the exit waited for the thread that was still working


def test_a_stdio_audit_never_loads_the_http_client_and_collects_garbage_once_started(
    write_config: Callable[..., Path],
) -> None:
    path = write_config(stdio_server("good_server.py"))
    probe = (
        "import gc, sys\nfrom hookconf.cli import main\n"
        "gc.disable()  # as the entry does until the audit's imports are done\n"
        f"code = main(['check', {str(path)!r}, '--output', 'json'])\n"
        "print('EXIT', code, 'HTTP', [m for m in ('httpx2', 'httpx', 'httpcore') if m in sys.modules], "
        "'GC', gc.isenabled(), file=sys.stderr)"
    )
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(completed.stdout)["server"]["transport"] == "stdio"
    assert "EXIT 0 HTTP [] GC True" in completed.stderr


def test_a_command_other_than_check_collects_garbage() -> None:
    probe = "import gc\nfrom hookconf.cli import main\ngc.disable()\nmain(['list'])\nprint('GC', gc.isenabled())"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert completed.stdout.rstrip().endswith("GC True")
