"""What one target's audit produced, as plain data: the worker makes it, the store keeps it, progress shows it.

A leaf module (hookconf's version and the standard library only), so that reading the store never imports
the audit stack the worker runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

from hookconf import __version__


class OutcomeKind(StrEnum):
    AUDITED = "audited"
    INSTALL_FAILED = "install-failed"
    SETUP_FAILED = "setup-failed"
    AUDIT_FAILED = "audit-failed"  # the server would not start, or died before it answered
    ERROR = "error"  # a defect in hookconf itself; the message says where


@dataclass(frozen=True)
class Outcome:
    """What one target's audit produced; crosses the process boundary and goes into the store."""

    fleet: str
    server: str
    version: str
    source: str
    kind: OutcomeKind
    started_at: str
    duration_s: float
    message: str | None = None
    report_json: str | None = None
    install_s: float | None = None
    cached_install: bool | None = None
    hookconf_version: str = __version__
    kept: tuple[str, ...] = ()  # with --keep-workdir: the workdir and sandbox left in place

    @property
    def key(self) -> tuple[str, str]:
        return (self.server, self.version)

    @property
    def ok(self) -> bool:
        return self.kind is OutcomeKind.AUDITED


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
