"""The library API: audit a server from Python as `hookconf check` does, and get the Report.

    import hookconf
    report = hookconf.audit("hook-conformance.config.json")
    report = hookconf.audit({"server": {"name": "notes", "command": "python", "args": ["server.py"]}},
                            suites=["idempotency", "compliance"])

A bad config or option raises ConfigError (its message names every field at fault) before any server starts; a
server that does not start raises ServerStartError. Both are HookconfError, whose message says what to do.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookconf import ALL_SUITES, COMPLIANCE_SUITE
from hookconf.errors import ConfigError

if TYPE_CHECKING:
    from hookconf.config import AuditConfig
    from hookconf.engine.events import Listener
    from hookconf.report.model import Report
    from hookconf.wire.process import ServerProcess
    from hookconf.wire.sandbox import Sandbox


@dataclass(frozen=True)
class AuditOptions:
    """What to run, beside the config: see `audit`."""

    suites: Sequence[str] = ALL_SUITES
    tool: str | None = None
    only: Sequence[str] = ()
    skip: Sequence[str] = ()
    lighthouse_profile: bool = False

    def check(self) -> None:
        """A ConfigError naming what is unknown: cheap, so it comes before the server starts."""
        if unknown := sorted(set(self.suites) - set(ALL_SUITES)):
            raise ConfigError(f"unknown suite {', '.join(unknown)}; the suites are {', '.join(ALL_SUITES)}")
        if self.only or self.skip:
            from hookconf.checks.compliance.catalog import CHECKS, Category, unknown_selectors
            from hookconf.config import did_you_mean

            if unknown := unknown_selectors([*self.only, *self.skip]):
                known = [*CHECKS, *(category.value for category in Category)]
                named = ", ".join(f"{name}{did_you_mean(name, known)}" for name in unknown)
                raise ConfigError(f"--only/--skip: unknown category or check id {named}; see 'hookconf list'")


def audit(
    config: AuditConfig | Mapping[str, Any] | str | os.PathLike[str],
    *,
    suites: Sequence[str] = ALL_SUITES,
    tool: str | None = None,
    only: Sequence[str] = (),
    skip: Sequence[str] = (),
    lighthouse_profile: bool = False,
) -> Report:
    """Audit the server the config describes: a config file's path, the config as a mapping, or an AuditConfig.

    `suites` limits the suites (the hook suites and "compliance"), `tool` audits one tool, `only`/`skip` select
    compliance checks by category or id, `lighthouse_profile` weighs the grade's categories as mcp-lighthouse does.
    A server hookconf starts runs in an audit sandbox that is removed afterwards.
    """
    from hookconf.engine.server import spawned_server
    from hookconf.wire.sandbox import audit_sandbox

    started = time.monotonic()
    audited = load(config)
    options = AuditOptions(tuple(suites), tool, tuple(only), tuple(skip), lighthouse_profile)
    options.check()
    with audit_sandbox(audited.server) as sandbox:
        if sandbox is not None:
            audited = sandbox.applied(audited)
        with spawned_server(audited.server) as process:  # first: it boots while the audit stack imports
            return run(audited, options, sandbox=sandbox, process=process, started=started)


def load(config: AuditConfig | Mapping[str, Any] | str | os.PathLike[str]) -> AuditConfig:
    """The config as an AuditConfig: validated (a mapping) or read (a path)."""
    from hookconf.config import AuditConfig, load_config, parse_config

    if isinstance(config, AuditConfig):
        return config
    if isinstance(config, Mapping):
        return parse_config(dict(config))
    return load_config(Path(config))


def run(
    config: AuditConfig,
    options: AuditOptions | None = None,
    *,
    sandbox: Sandbox | None = None,
    process: ServerProcess | None = None,
    listener: Listener | None = None,
    started: float | None = None,
) -> Report:
    """The lower half of `audit`, for a caller that prepares the server itself (the command line, the fleet's
    worker): audit a validated config, whose server runs in `sandbox` (its changes are reported per tool) and is
    `process` when already spawned; `listener` hears each verdict as it is decided; `started` is when the audit
    began, if before this call (the time budget counts from it)."""
    from hookconf.engine.audit import RunOptions, run_audit

    options = options or AuditOptions()
    compliance = None
    if COMPLIANCE_SUITE in options.suites:
        from hookconf.engine.compliance import ComplianceOptions

        compliance = ComplianceOptions(options.only, options.skip, options.lighthouse_profile)
    plan = RunOptions(suites=options.suites, tool=options.tool, compliance=compliance, sandbox=sandbox, started=started)
    return run_audit(config, plan, process, listener)
