"""What the audit will do before it calls anything: the tools it sees, the suites it runs, each tool's arguments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hookconf.checks import SUITES
from hookconf.checks.arguments import generated_arguments
from hookconf.checks.context import missing_annotations, skip_reason
from hookconf.checks.registry import NOT_ANNOTATED, Suite
from hookconf.config import AuditConfig
from hookconf.wire.transport import JsonObject


@dataclass(frozen=True)
class ToolPlan:
    tool: JsonObject
    arguments: JsonObject
    arguments_source: str
    callable: bool
    note: str | None
    skip_code: str | None = None  # the finding a skip of the calling suites carries (ANNOT-001)


def plan_tool(tool: JsonObject, config: AuditConfig) -> ToolPlan:
    name = str(tool.get("name"))
    probe = config.probe_for(name)
    note = None
    if probe is not None and probe.args is not None:
        arguments, source = dict(probe.args), "probe"
    else:
        arguments, note = generated_arguments(tool.get("inputSchema"))
        source = "generated"
    reason = skip_reason(tool)
    if reason is None or name in config.allow_destructive:
        return ToolPlan(tool, arguments, source, True, note)
    missing = missing_annotations(tool)
    if not missing:
        return ToolPlan(tool, arguments, source, False, reason)
    # the spec's default (destructiveHint: true) and allowDestructive are in ANNOT-001's explanation
    note = f"no {'/'.join(missing)} annotation: not called, hook readiness unknown; annotate it"
    return ToolPlan(tool, arguments, source, False, note, NOT_ANNOTATED.code)


def selected_tools(tools: list[JsonObject], config: AuditConfig, only: str | None) -> list[JsonObject]:
    chosen = [t for t in tools if config.tool_filter is None or t.get("name") in config.tool_filter]
    return [t for t in chosen if only is None or t.get("name") == only]


def selected_suites(config: AuditConfig, suites: Sequence[str]) -> list[Suite]:
    """The registered hook suites `suites` and the config select, in the registry's (the reports') order."""
    return [suite for suite in SUITES.values() if suite.name in suites and suite.name in config.suites]
