"""`check --watch`: a change under the watched folder audits the server again and says what changed."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from pathlib import Path

import hookconf
from hookconf.report.formats.human import render
from hookconf.report.model import Report
from hookconf.watch import Watcher, changed_files, snapshot
from tests.support import FIXTURES

WAIT_S = 120


def test_dependencies_builds_and_editor_files_are_not_watched(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text("x = 1\n", encoding="utf-8")
    before = snapshot(tmp_path)
    for ignored in ("node_modules/pkg/index.js", ".git/HEAD", "__pycache__/server.pyc", "server.py.swp", "out.log"):
        path = tmp_path / ignored
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("changed\n", encoding="utf-8")
    assert changed_files(before, snapshot(tmp_path)) == []
    (tmp_path / "server.py").write_text("x = 2\n", encoding="utf-8")
    assert changed_files(before, snapshot(tmp_path)) == ["server.py"]


def test_a_saved_change_audits_again_and_shows_the_newly_failing_verdict(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    shutil.copy(FIXTURES / "good_server.py", server)
    config = tmp_path / "hookconf.json"
    config.write_text(json.dumps({"server": {"name": "dev", "command": sys.executable, "args": [str(server)]}}))
    shown: list[str] = []
    first_audit = threading.Event()

    def audit() -> Report:
        report = hookconf.audit(config, suites=("idempotency",))
        first_audit.set()
        return report

    def show(text: str) -> None:
        shown.append(text)

    watcher = Watcher(tmp_path, audit, show, lambda report: render(report, colour=False), runs=2, quiet_s=0.2)
    loop = threading.Thread(target=watcher.run, daemon=True)
    loop.start()
    assert first_audit.wait(WAIT_S)
    source = server.read_text(encoding="utf-8")
    nondeterministic = "    return str(a + b)\n"
    assert nondeterministic in source
    server.write_text(source.replace(nondeterministic, "    import random\n    return str(random.random())\n"))
    loop.join(WAIT_S)
    assert not loop.is_alive()
    assert "add_numbers" in shown[0]  # the first audit: the whole report
    assert shown[1].startswith("\nchanged: server.py; auditing again")
    assert "newly failing" in shown[2].lower()
    assert "add_numbers" in shown[2]
