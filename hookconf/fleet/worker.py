"""One audit of one target, meant to run in a process of its own: install, workdir, setup, audit.

Whatever happens, the worker returns an `Outcome`: an install that fails, a setup command that
fails and a server that will not start are results to store, not reasons to stop the fleet.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookconf.budget import FLEET_BUDGET_S
from hookconf.config import AuditConfig, parse_config
from hookconf.engine.audit import RunOptions, run_audit
from hookconf.errors import HookconfError
from hookconf.fleet.errors import InstallError, SetupError
from hookconf.fleet.install import INSTALLERS, Installed, safe_name
from hookconf.fleet.manifest import Target
from hookconf.fleet.outcome import Outcome, OutcomeKind, utc_now
from hookconf.wire.process import clean_environment, process_tree, terminate
from hookconf.wire.sandbox import audit_sandbox

SETUP_TIMEOUT_S = 120
PLACEHOLDER = re.compile(r"\{(workdir|prefix|version|manifest_dir|python|port)\}")


def audit_target(target: Target, cache_dir: str, keep_workdir: bool = False) -> Outcome:
    started, clock = utc_now(), time.monotonic()
    installed: Installed | None = None
    kept: list[str] | None = [] if keep_workdir else None

    def outcome(kind: OutcomeKind, message: str | None = None, report_json: str | None = None) -> Outcome:
        return Outcome(
            fleet=target.fleet,
            server=target.server,
            version=target.version,
            source=target.source,
            kind=kind,
            started_at=started,
            duration_s=round(time.monotonic() - clock, 3),
            message=message,
            report_json=report_json,
            install_s=installed.seconds if installed else None,
            cached_install=installed.cached if installed else None,
            kept=tuple(kept or ()),
        )

    try:
        if target.resolve_error is not None:
            return outcome(OutcomeKind.INSTALL_FAILED, target.resolve_error)
        installed = _install(target, Path(cache_dir))
        return outcome(OutcomeKind.AUDITED, report_json=_audit_in_workdir(target, installed, kept))
    except InstallError as exc:
        return outcome(OutcomeKind.INSTALL_FAILED, str(exc))
    except SetupError as exc:
        return outcome(OutcomeKind.SETUP_FAILED, str(exc))
    except HookconfError as exc:
        return outcome(OutcomeKind.AUDIT_FAILED, str(exc))
    except Exception as exc:  # the fleet must go on; the stored message points at the defect
        return outcome(OutcomeKind.ERROR, f"{type(exc).__name__}: {exc}")


def _install(target: Target, cache_dir: Path) -> Installed | None:
    installer = INSTALLERS.get(target.source)
    return installer.ensure(target, cache_dir) if installer else None


def _audit_in_workdir(target: Target, installed: Installed | None, kept: list[str] | None = None) -> str:
    """The workdir holds the server's data (what setup makes, what a stateProbe reads); the sandbox beside
    it is the server's HOME and TMPDIR, whose changes are reported per tool. Setup runs in the sandbox too,
    so that it leaves nothing in the real HOME; the installer does not. Both are removed afterwards, unless
    `kept` is given: then they stay, and their paths are added to it."""
    workdir = Path(tempfile.mkdtemp(prefix=f"hookconf-{safe_name(target.server)}-"))
    if kept is not None:
        kept.append(str(workdir))
    try:
        values = placeholder_values(target, workdir, installed)
        config = audit_config(target, values, installed)
        with audit_sandbox(config.server, keep=kept is not None) as sandbox:
            if sandbox is not None and kept is not None:
                kept.append(str(sandbox.root))
            setup_env = sandbox.environment() if sandbox is not None else {}
            run_setup(target, values, workdir, setup_env)
            if sandbox is not None:
                config = sandbox.applied(config)
            return run_audit(config, RunOptions(sandbox=sandbox)).to_json()
    finally:
        if kept is None:
            shutil.rmtree(workdir, ignore_errors=True)


def placeholder_values(target: Target, workdir: Path, installed: Installed | None) -> dict[str, str]:
    return {
        "workdir": str(workdir),
        # A command or http server has no install; its prefix is the directory of its manifest.
        "prefix": str(installed.prefix if installed else target.manifest_dir),
        "version": target.version,
        "manifest_dir": target.manifest_dir,
        "python": sys.executable,
        "port": str(_free_port()),
    }


def substitute(value: Any, values: Mapping[str, str]) -> Any:
    """Replace the known {placeholders} in every string of a nested value; other braces stay as they are."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda match: values[match[1]], value)
    if isinstance(value, list | tuple):
        return [substitute(item, values) for item in value]
    if isinstance(value, Mapping):
        return {key: substitute(item, values) for key, item in value.items()}
    return value


def run_setup(
    target: Target, values: Mapping[str, str], workdir: Path, sandbox_env: Mapping[str, str] | None = None
) -> None:
    env = clean_environment({**(sandbox_env or {}), **substitute(dict(target.env), values)})
    for line in target.setup:
        argv = shlex.split(substitute(line, values))
        try:
            completed = subprocess.run(
                argv,
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=SETUP_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise SetupError(f"setup command {line!r} did not finish within {SETUP_TIMEOUT_S} s") from None
        except OSError as exc:
            raise SetupError(
                f"setup command {line!r} could not start: {exc.strerror}; fix 'setup' in {target.manifest}"
            ) from exc
        if completed.returncode != 0:
            tail = (completed.stderr.strip() or completed.stdout.strip())[-500:]
            raise SetupError(f"setup command {line!r} failed (exit {completed.returncode}): {tail}")


def audit_config(target: Target, values: Mapping[str, str], installed: Installed | None) -> AuditConfig:
    command = target.command or (str(installed.executable) if installed else None)
    server: dict[str, Any] = {
        "name": target.server,
        "transport": "http" if target.url else "stdio",
        "command": command,
        "args": list(target.args),
        "env": dict(target.env),
        "cwd": target.cwd or "{workdir}",
        "url": target.url,
        "headers": dict(target.headers),
    }
    # every fleet audit has a time budget unless the manifest sets budgetS (0: none)
    given = {key: value for key, value in server.items() if value is not None}
    data = substitute({"budgetS": FLEET_BUDGET_S, **target.config, "server": given}, values)
    return parse_config(data, source=f"{target.manifest}: server {target.server!r} version {target.version}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class _WorkerState:
    """Per-process state of a pool worker; in any other process it stays as it is here."""

    stop: Any = None  # the pool's multiprocessing Event: set when the fleet was interrupted
    in_audit: bool = False


_WORKER = _WorkerState()


def prepare_worker(stop: Any) -> None:
    """Pool initializer. Ctrl-C is for the fleet process: it sets `stop` and sends SIGTERM, which
    unwinds a running audit like an exception, so its server is stopped and reaped as usual."""
    _WORKER.stop = stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_terminate)


def _on_terminate(signum: int, frame: object) -> None:
    # An idle worker ignores it: the pool shuts it down in order, where dying would break the pool.
    if _WORKER.in_audit:
        raise SystemExit(128 + signum)


def audit_in_pool(target: Target, cache_dir: str, keep_workdir: bool = False) -> Outcome | None:
    """`audit_target`, unless the fleet was interrupted before this audit started (then None)."""
    if _WORKER.stop is not None and _WORKER.stop.is_set():
        return None
    _WORKER.in_audit = True
    try:
        return audit_target(target, cache_dir, keep_workdir)
    except BaseException:
        # Interrupted anywhere, even between starting a server and handing it to the session that
        # would stop it: whatever this worker started goes with it.
        terminate(process_tree(os.getpid())[1:])
        raise
    finally:
        _WORKER.in_audit = False
