"""What a suite sees of one tool: its definition, its arguments and a shared cache of calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hookconf.config import AuditConfig, Probe
from hookconf.session import CallOutcome, McpSession
from hookconf.wire.sandbox import CallWatch
from hookconf.wire.transport import JsonObject


def tool_annotations(tool: JsonObject) -> dict[str, Any]:
    annotations = tool.get("annotations")
    return annotations if isinstance(annotations, dict) else {}


def is_read_only(tool: JsonObject) -> bool:
    return tool_annotations(tool).get("readOnlyHint") is True


def skip_reason(tool: JsonObject) -> str | None:
    """Why the calling suites leave a tool alone unless allowDestructive names it; None for a read-only tool.

    Only readOnlyHint: true says a call changes nothing: destructiveHint: false says no more than that a
    write is additive (create a record, make a directory), and a probe must never change what it measures.
    """
    if is_read_only(tool):
        return None
    if declares_destructive(tool):
        return "not called: annotated destructiveHint: true; allowDestructive opts it in"
    return ("not called: not annotated readOnlyHint: true (it may write; destructiveHint: false only says it "
            "does not destroy); allowDestructive opts it in")


def declares_destructive(tool: JsonObject) -> bool:
    """The server says so itself: destructiveHint: true on a tool not annotated read-only."""
    return not is_read_only(tool) and tool_annotations(tool).get("destructiveHint") is True


def missing_annotations(tool: JsonObject) -> list[str]:
    """The hints whose absence leaves the tool on the spec's worst-case default (destructiveHint: true)."""
    annotations = tool_annotations(tool)
    if is_read_only(tool) or isinstance(annotations.get("destructiveHint"), bool):
        return []
    return [hint for hint in ("readOnlyHint", "destructiveHint") if not isinstance(annotations.get(hint), bool)]


@dataclass
class ToolContext:
    """Suites share the repeated calls: idempotency, determinism and latency read one series."""

    tool: JsonObject
    arguments: JsonObject
    config: AuditConfig
    session: McpSession
    probe: Probe | None
    _samples: list[CallOutcome] = field(default_factory=list)
    hung: bool = False
    server_stuck: bool = False  # shared verdict: after a hang, the server answered no ping either
    own_calls: int = 0  # calls of this tool made by its suites (not as another tool's state probe)
    sandbox: CallWatch | None = None  # what this tool's calls wrote into the audit's sandbox
    # Every tool that hung in this audit, as its own or as another tool's state probe: shared by the tools'
    # contexts, so that none is called again by any suite.
    hung_tools: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return str(self.tool.get("name"))

    @property
    def is_read_only(self) -> bool:
        return is_read_only(self.tool)

    @property
    def series(self) -> list[CallOutcome]:
        """The calls made so far with the probe's arguments."""
        return list(self._samples)

    def samples(self, count: int) -> list[CallOutcome]:
        """The first `count` calls with the probe's arguments, made on first demand and kept."""
        while len(self._samples) < count and not self.hung:
            self._samples.append(self.call(self.name, self.arguments))
        return self._samples[:count]

    def call(self, name: str, arguments: JsonObject) -> CallOutcome:
        """One call; a timeout marks the tool as hung so that it is not called again."""
        if self.hung or self.server_stuck or name in self.hung_tools:
            return CallOutcome(duration_ms=0.0, timed_out=True)
        if self.sandbox is not None:
            self.sandbox.before_call(own=name == self.name)
        outcome = self.session.call_tool(name, arguments)
        if name == self.name:
            self.own_calls += 1
        if outcome.timed_out:
            self.hung = name == self.name
            self.hung_tools.add(name)
            self.server_stuck = not self.session.responsive()
        return outcome
