"""The fleet stack is an extra: a single server's audit runs without it, and `hookconf fleet` says how to get it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hookconf.cli import FLEET_EXTRA_MODULES
from tests.support import stdio_server

# Run hookconf as if the fleet extra were not installed: importing any of its modules fails as a missing module does.
WITHOUT_FLEET_EXTRA = """
import sys
for name in {modules!r}:
    sys.modules[name] = None
from hookconf.cli import main
sys.exit(main(sys.argv[1:]))
"""


def hookconf_without_fleet_extra(*argv: str) -> subprocess.CompletedProcess[str]:
    script = WITHOUT_FLEET_EXTRA.format(modules=sorted(FLEET_EXTRA_MODULES))
    return subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=120, check=False
    )


def test_a_single_server_is_audited_without_the_fleet_extra(tmp_path: Path) -> None:
    config = tmp_path / "hookconf.json"
    config.write_text(json.dumps({"server": stdio_server("good_server.py")}), encoding="utf-8")
    done = hookconf_without_fleet_extra("check", str(config), "--output", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["grade"] == "A"


def test_fleet_commands_say_to_install_the_extra(tmp_path: Path) -> None:
    done = hookconf_without_fleet_extra("fleet", "report", "--store", str(tmp_path / "none.sqlite"))
    assert done.returncode == 2
    assert "needs the fleet extra" in done.stderr
    assert "pip install 'hookconf[fleet]'" in done.stderr
    assert "Traceback" not in done.stderr
